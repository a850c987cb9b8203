"""What a QEMU run hands the runner: the runs it read (labelled, with what the machine
cannot measure withheld), so the guest's output is parsed once; an output that did not
parse goes to the runner, which reads it and stores the protocol error."""

from __future__ import annotations

import pytest

from rtlab.lab.qemu.machine import QemuResult
from rtlab.protocol import Labels, ProtocolError, Writer, parse


def test_a_parsed_run_hands_on_its_runs_not_its_text() -> None:
    lines: list[str] = []
    w = Writer(lines.append)
    w.hello("rtbench", "1")
    w.counter("p1", 22, "count")
    w.end()
    text = "\n".join(lines)
    labels = Labels.of(under={"timebase": "icount"})
    runs = parse(text, labels=labels)
    runs[0].counters.clear()  # as withholding leaves it: not what the text says
    done = QemuResult(0, text, False, [], runs=runs, labels=labels, parsed=True).completed()
    (run,) = done.read_runs("cell")
    assert run is runs[0] and not run.counters and run.meta["timebase"] == "icount"
    assert done.stdout == text  # the guest's output as it came


def test_an_output_that_did_not_parse_is_read_by_the_runner() -> None:
    res = QemuResult(0, "@rtl1 bogus x=1\n", False, [], problem="did not parse")
    done = res.completed()
    assert done.runs is None
    with pytest.raises(ProtocolError, match="bogus"):
        done.read_runs("cell")
