"""Reading a board's output: a UART's reset NUL before the first line (Zephyr's RP2040
image sends one) is no part of it; the runs read as the bytes came are those of the
text; a malformed line leaves the text for the runner to refuse."""

from __future__ import annotations

import numpy as np

from rtlab.lab.serialboard.board_output import OutputReader
from rtlab.protocol import Labels, Writer
from rtlab.protocol.cut import parse_cut
from rtlab.protocol.parser import parse_one


class _Link:
    """A port that gives the chunks, then closes."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = list(chunks)

    def read(self, timeout: float) -> bytes | None:
        return self.chunks.pop(0) if self.chunks else None


def test_a_reset_nul_before_the_hello_is_dropped() -> None:
    run = (
        b"@rtl1 hello workload=rtbench version=0.1.0\n@rtl1 meta board=pico\n"
        b"@rtl1 end records=2 status=ok\n"
    )
    link = _Link(b"\0" + run[:20], run[20:], b"rtbench: done errors=0\n")
    got = OutputReader(link, {"board": "pico"}, "pico").read(10, 5)  # type: ignore[arg-type]
    assert got.ended_by == "done" and got.exit_status == 0
    assert "\0" not in got.text
    parsed = parse_one(got.text, "serial")
    assert parsed.complete and parsed.meta["board"] == "pico"


def test_the_runs_read_as_the_bytes_came_are_those_of_the_text() -> None:
    """The reader's runs (stored by the runner) equal a read of the whole text, labels
    included, however the port split the bytes; the text is what the board sent."""
    w = Writer(crc=True)
    w.hello("rtbench", "0.1.0")
    w.meta(board="pico", rtos="freertos")
    w.series("lat", np.arange(300, dtype=np.int64), encoding="sb")
    w.end()
    data = ("\0" + w.text() + w.text() + "rtbench: done errors=0\n").encode()
    chunks = [data[i : i + 5] for i in range(0, len(data), 5)]
    labels = Labels.of(under={"timebase": "icount", "rtos": "zephyr"})
    got = OutputReader(_Link(*chunks), {"board": "pico"}, "pico", labels).read(10, 5)  # type: ignore[arg-type]
    assert got.ended_by == "done" and got.runs is not None
    assert "timebase" not in got.text  # the labels are not written into the text
    assert len(got.runs) == 2 and all(r.complete for r in got.runs)
    assert got.runs[0].meta == {"timebase": "icount", "board": "pico", "rtos": "freertos"}
    again = parse_cut(got.text, "serial", labels)
    assert [r.meta for r in again] == [r.meta for r in got.runs]
    assert all(np.array_equal(a.series["lat"].values, b.series["lat"].values)
               for a, b in zip(again, got.runs, strict=True))  # fmt: skip


def test_a_malformed_line_leaves_the_text_for_the_runner_to_refuse() -> None:
    data = b"@rtl1 hello workload=rtbench version=0.1.0\n@rtl1 meta board=pico\n@rtl1 c x y\n"
    link = _Link(data, b"rtbench: ", b"done errors=3\n")
    got = OutputReader(link, {"board": "pico"}, "pico").read(10, 5)  # type: ignore[arg-type]
    assert got.ended_by == "done" and got.exit_status == 3  # read on after the bad line
    assert got.runs is None and got.text.startswith(data.decode())
