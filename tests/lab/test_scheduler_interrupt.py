"""Ctrl-C during a parallel session (several boards, rtlab.lab.scheduler) must leave no
worker using the store: `rtlab run` closes the store right after, and a worker still
inside a DuckDB call then made the close fail ("connection is busy with another call")
and the process abort at exit (-6, not 130), seen with three labgrid places under load.

The cause: Python 3.11's Thread.is_alive(), interrupted by the signal handler's
KeyboardInterrupt at the wrong moment, releases the running thread's state lock and
marks it stopped (threading.py, the bpo-45274 handler), so the join that followed
returned at once. Here a real SIGINT is sent at each line the main thread runs, in
turn, after the first result (real local targets running printf, the real store);
before the fix some of these lines left a worker running past run_parallel."""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from rtlab.lab import scheduler
from rtlab.lab.runner import RunOutcome, _run_on
from rtlab.lab.spec import Spec, parse_spec
from rtlab.lab.targets.base import make_target
from rtlab.procgroup import sigterm_as_interrupt
from rtlab.results import Store

LINES = ["@rtl1 hello workload=x version=1", "@rtl1 series lat unit=ns",
         "@rtl1 s lat 0 5,6,7", "@rtl1 end records=3 status=ok"]  # fmt: skip
PRINTF = ["printf", "\\n".join(LINES) + "\\n"]  # printf makes the newlines
# Lines swept: more than a turn of run_parallel's waiting loop as it was (15 lines on
# 3.11; a Ctrl-C at its 9th or 11th line after a result left a worker running).
SWEEP = 16


def _spec(tmp: Path, name: str, argv: list[str]) -> Spec:
    text = f'name = "{name}"\nrepetitions = 40\n[[workload]]\nkind = "command"\n'
    return parse_spec(text + f"argv = {json.dumps(argv)}\n", tmp / f"{name}.toml")


def _interrupted_session(spec: Spec, st: Store, k: int) -> list[RunOutcome]:
    """run_parallel on two local boards, a SIGINT sent at the main thread's k-th line
    after the first result; the runs it reported."""
    got: list[RunOutcome] = []
    lines = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal lines
        if got and event == "line":
            if lines == k:
                sys.settrace(None)
                os.kill(os.getpid(), signal.SIGINT)  # handled at the next check
            lines += 1
        return tracer

    todo = [(c, r) for r in range(spec.repetitions) for c in spec.cells()]
    targets = [make_target(spec.target), make_target(spec.target)]
    sys.settrace(tracer)
    try:
        with sigterm_as_interrupt():
            scheduler.run_parallel(targets, todo, _run_on(spec), st, got.append)
        raise AssertionError(f"line {k}: the session ran to its end, not interrupted")
    except KeyboardInterrupt:
        return got
    finally:
        sys.settrace(None)


def _children(comm: str) -> list[int]:
    """This process's child processes named `comm`."""
    found = []
    for d in Path("/proc").iterdir():
        try:
            stat = (d / "stat").read_text() if d.name.isdigit() else ""
        except OSError:
            continue
        if not stat:
            continue
        name, fields = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") :]
        if name == comm and int(fields.split()[2]) == os.getpid():  # ") state ppid ..."
            found.append(int(d.name))
    return found


def _workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(scheduler.WORKER_NAME)]


def _leaked() -> bool:
    """Whether a worker outlived run_parallel; it is let end (a daemon thread inside a
    DuckDB call at exit aborts the process) before the test says so."""
    if not _workers():
        return False
    while _workers():
        time.sleep(0.01)
    return True


def _intact(st: Store, spec_name: str, reported: int) -> None:
    """Every run of the session ok with its samples, or interrupted without any."""
    runs = st.runs(spec_name=spec_name)
    assert {r["status"] for r in runs} <= {"ok", "interrupted"}, [r["message"] for r in runs]
    ok = [r for r in runs if r["status"] == "ok"]
    assert len(ok) >= reported  # every run reported to the caller is stored complete
    for r in ok:
        assert st.samples(r["run_id"], "lat").tolist() == [5, 6, 7]
    assert all(r["samples_file"] is None for r in runs if r["status"] != "ok")


def test_ctrl_c_at_any_line_of_a_parallel_session_waits_for_every_worker(
    tmp_path: Path,
) -> None:
    leaked: list[int] = []
    with Store(tmp_path / "rtlab.duckdb") as st:
        for k in range(SWEEP):
            spec = _spec(tmp_path, f"q{k}", PRINTF)
            got = _interrupted_session(spec, st, k)
            if _leaked():
                leaked.append(k)
            _intact(st, spec.name, len(got))
    assert not leaked, f"a worker outlived run_parallel when Ctrl-C came at line(s) {leaked}"


def test_a_second_ctrl_c_while_the_boards_stop_still_waits_for_them(tmp_path: Path) -> None:
    """Runs that outlast the boards' abort (a local board's: nothing to abort; a run
    that started as the session stopped): a second Ctrl-C while they end must not cut
    the wait short (it interrupted Thread.join, with the same effect)."""
    spec = _spec(tmp_path, "slow", ["sh", "-c", f"sleep 2; {shlex.join(PRINTF)}"])
    todo = [(c, r) for r in range(spec.repetitions) for c in spec.cells()]
    targets = [make_target(spec.target), make_target(spec.target)]

    def ctrl_c_twice() -> None:
        deadline = time.monotonic() + 60
        while len(_children("sh")) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)  # both boards in their first run
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.4)  # the session waits for the runs in progress (2 s each)
        os.kill(os.getpid(), signal.SIGINT)

    got: list[RunOutcome] = []
    with Store(tmp_path / "rtlab.duckdb") as st:
        threading.Thread(target=ctrl_c_twice, daemon=True).start()
        with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt():
            scheduler.run_parallel(targets, todo, _run_on(spec), st, got.append)
        assert not _leaked(), "a worker outlived run_parallel after a second Ctrl-C"
        _intact(st, spec.name, len(got))
        assert [r["status"] for r in st.runs()] == ["interrupted", "interrupted"]
