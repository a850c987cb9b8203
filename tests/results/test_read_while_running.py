"""`rtlab runs` and `rtlab report` work while `rtlab run` writes the store (DuckDB lets
no other process open a file one process writes: readers get the writer's published
snapshot, rtlab.results.snapshot) and show the runs finished so far."""

from __future__ import annotations

import re
import time
from pathlib import Path

from tests.conftest import rtlab, rtlab_run

SPEC = """\
name = "watched"
conditions = ["idle"]
repetitions = 10

[[workload]]
kind = "rtlab-latency"
name = "wake"
method = ["abs"]
interval_us = 1000
duration = "1s"
"""
REPS = 10


def _ok_runs(store: Path) -> int:
    r = rtlab("runs", "--store", str(store))
    assert r.returncode == 0, r.stderr
    return len(re.findall(r"\bok\b", r.stdout))


def test_runs_and_report_while_a_run_writes(tmp_path: Path, built: Path) -> None:
    spec = tmp_path / "watched.toml"
    spec.write_text(SPEC)
    store = tmp_path / "st" / "rtlab.duckdb"
    run = rtlab_run(spec, store)
    try:
        seen: list[int] = []  # finished runs `rtlab runs` showed while the run went on
        while run.poll() is None and not (seen and seen[-1] >= 1):
            if store.exists():
                seen.append(_ok_runs(store))
            time.sleep(0.1)
        report = rtlab("report", "--store", str(store), "--md")
        still_running = run.poll() is None
        later = _ok_runs(store)
        _out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err
    # progress was visible while the run went on, finished runs only and in order
    assert still_running, f"the spec ran out before the reads ({seen}): make it longer"
    assert seen[-1] >= 1 and seen == sorted(seen) and seen[-1] <= later < REPS, (seen, later)
    assert report.returncode == 0, report.stderr
    assert f"process {run.pid} is writing" in report.stderr  # the view's age is said
    row = r"\| wake@idle \| latency \| ok:[1-9]( running:1)? \|"
    assert re.search(row, report.stdout), report.stdout
    assert _ok_runs(store) == REPS
