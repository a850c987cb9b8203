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
repetitions = {reps}

[[workload]]
kind = "command"
name = "wake"
argv = ["sh", "{gate}", "{dir}"]
seconds = 1
"""
REPS = 3
# The first run ends at once; the others wait while the test holds the gate, so the reads
# happen while the run goes on however slow this host is.
GATE = """\
if [ -e "$1/first" ]; then
    while [ -e "$1/hold" ]; do sleep 0.05; done
else
    : > "$1/first"
fi
printf '@rtl1 hello workload=wake version=1\\n@rtl1 series latency unit=ns\\n'
printf '@rtl1 s latency 0 1000,2000,3000\\n@rtl1 end records=3 status=ok\\n'
"""


def _ok_runs(store: Path) -> int:
    r = rtlab("runs", "--store", str(store))
    assert r.returncode == 0, r.stderr
    return len(re.findall(r"\bok\b", r.stdout))


def test_runs_and_report_while_a_run_writes(tmp_path: Path) -> None:
    gate = tmp_path / "gate.sh"
    gate.write_text(GATE)
    (tmp_path / "hold").touch()
    spec = tmp_path / "watched.toml"
    spec.write_text(SPEC.format(reps=REPS, gate=gate, dir=tmp_path))
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
        (tmp_path / "hold").unlink()
        _out, err = run.communicate(timeout=120)
    finally:
        (tmp_path / "hold").unlink(missing_ok=True)  # no gate left waiting on a failure
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err
    # progress was visible while the run went on, finished runs only and in order
    assert still_running, f"the spec ran out before the reads ({seen})"
    assert seen[-1] >= 1 and seen == sorted(seen) and seen[-1] <= later < REPS, (seen, later)
    assert report.returncode == 0, report.stderr
    assert f"process {run.pid} is writing" in report.stderr  # the view's age is said
    row = r"\| wake@idle \| latency \| ok:[1-9]( running:1)? \|"
    assert re.search(row, report.stdout), report.stdout
    assert _ok_runs(store) == REPS
