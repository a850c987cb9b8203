"""The runner with real components: rtlab-latency, stress-ng, a DuckDB file, SIGINT."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from rtlab.lab.runner import run_spec
from rtlab.lab.spec import parse_spec
from rtlab.results import Store
from tests.conftest import RTLAB, rtlab, rtlab_run

FOUR_CELLS = """\
name = "four"
[[workload]]
kind = "rtlab-latency"
name = "w"
method = ["abs", "rel", "timerfd", "usleep"]
interval_us = 500
duration = "700ms"
"""


def test_interrupt_keeps_finished_runs_marks_the_one_in_progress_and_resumes(
    tmp_path: Path, built: Path
) -> None:
    spec = tmp_path / "four.toml"
    spec.write_text(FOUR_CELLS)
    store = tmp_path / "s" / "rtlab.duckdb"
    proc = rtlab_run(spec, store)
    assert proc.stderr is not None
    first_ok = ""
    for line in proc.stderr:  # the runner prints one line per finished run
        if line.startswith("ok "):
            first_ok = line
            break
    assert first_ok, "no run finished"
    time.sleep(0.35)  # well inside the second run (0.7 s of measurement)
    os.kill(proc.pid, signal.SIGINT)  # what Ctrl-C sends
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "marked interrupted" in err and "Traceback" not in err

    with Store(store) as st:
        runs = st.runs(spec_name="four")
        statuses = [r["status"] for r in runs]
        assert statuses.count("interrupted") == 1, statuses
        assert "running" not in statuses
        ok = [r for r in runs if r["status"] == "ok"]
        assert len(ok) >= 1
        for r in ok:  # finished runs intact: samples readable, summary present
            assert st.samples(r["run_id"], "latency").size > 500
        bad = next(r for r in runs if r["status"] == "interrupted")
        assert bad["samples_file"] is None
        assert not (store.parent / "samples" / f"{bad['run_id']}.parquet").exists()
        assert {s["run_id"] for s in st.summaries()} == {r["run_id"] for r in ok}
        n_ok = len(ok)

    # re-running the spec resumes: only the missing cells run
    r = rtlab("run", str(spec), "--store", str(store))
    assert r.returncode == 0, r.stderr
    assert f"{n_ok} run(s) already in the store" in r.stderr
    with Store(store) as st:
        done = st.completed_cells("four")
        assert len(done) == 4 and set(done.values()) == {1}


def test_truncated_output_is_detected_and_marked(tmp_path: Path, built: Path) -> None:
    # real rtlab-latency output, cut after its first lines (as a dying UART link would)
    text = f"""\
name = "cut"
[[workload]]
kind = "command"
argv = ["bash", "-c", "{built} -q -i 200 -l 400 | head -n 6"]
seconds = 1
[[workload]]
kind = "rtlab-latency"
name = "slow"
duration = "20s"
timeout_s = 1
"""
    with Store(tmp_path / "s.duckdb") as st:
        outcome = run_spec(parse_spec(text, tmp_path / "cut.toml"), st)
        by = {r.cell.workload: r for r in outcome.runs}
        assert by["command"].status == "incomplete"
        assert "truncated" in (by["command"].message or "")
        info = st.run_info(by["command"].run_id)
        assert any("no end record" in p for p in info["problems"])
        # a workload killed at its timeout: nothing complete came out
        assert by["slow"].status == "error" and "timed out" in (by["slow"].message or "")
        assert st.completed_cells("cut") == {}


def test_a_line_cut_mid_way_is_not_malformed_output(tmp_path: Path, built: Path) -> None:
    """Output that stops inside a line, killed at the timeout or at the program's end (an
    emulator out of its cycle budget closes the port as it writes): timed out or truncated,
    never "malformed workload output"."""
    cut = f"{built} -q -i 200 -l 400 | head -n 3; printf '@rtl1 c content'"
    text = f"""name = "cut-lines"
workload = [
  {{ kind = "command", name = "killed", argv = ["bash", "-c", "{cut}; sleep 30"], timeout_s = 1 }},
  {{ kind = "command", name = "ended", argv = ["bash", "-c", "{cut}"] }},
]
"""
    with Store(tmp_path / "s.duckdb") as st:
        outcome = run_spec(parse_spec(text, tmp_path / "c.toml"), st)
    runs = {r.cell.workload: r for r in outcome.runs}
    assert (runs["killed"].message or "").startswith("timed out, workload killed")
    assert runs["ended"].status == "incomplete" and "truncated" in (runs["ended"].message or "")


def test_force_runs_again_and_load_is_stopped(tmp_path: Path, built: Path) -> None:
    text = """\
name = "f"
conditions = ["load"]
[condition.load]
profile = "cpu"
workers = 1
settle_s = 0.1
[[workload]]
kind = "rtlab-latency"
duration = "300ms"
"""
    spec = parse_spec(text, tmp_path / "f.toml")
    with Store(tmp_path / "s.duckdb") as st:
        assert len(run_spec(spec, st).runs) == 1
        assert run_spec(spec, st).skipped == 1
        again = run_spec(spec, st, force=True)
        assert len(again.runs) == 1 and again.runs[0].status == "ok"
        run = st.run_info(again.runs[0].run_id)
        assert run["params"]["load_argv"][:3] == ["stress-ng", "--cpu", "1"]
        assert run["load"]["cpu_busy"] > 0.3  # the load really ran
        assert run["fingerprint"]["kernel"]["release"]
        assert run["meta"]["rtlab_version"]
    # no stress-ng of ours left behind
    left = subprocess.run(["pgrep", "-f", "stress-ng --cpu 1 --timeout"], capture_output=True)
    assert left.returncode == 1, left.stdout


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat fields after the command name: state, ppid, pgrp, ..."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()


def _group(pgid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and int(_stat(int(d.name))[2]) == pgid:
                out.append(int(d.name))
        except (OSError, IndexError):
            pass
    return out


def _child_of(ppid: int, deadline: float, comm: str = "stress-ng") -> int:
    """The pid (= process group) of the `comm` process that process `ppid` started."""
    while time.monotonic() < deadline:
        for d in Path("/proc").iterdir():
            try:
                if (
                    d.name.isdigit()
                    and int(_stat(int(d.name))[1]) == ppid
                    and ((d / "comm").read_text().strip() == comm)
                ):
                    return int(d.name)
            except (OSError, IndexError):
                pass
        time.sleep(0.05)
    raise AssertionError(f"the run started no {comm}")


def _kill_9_then_resume(spec: Path, name: str, comm: str) -> tuple[int, list[dict]]:
    """`rtlab run` killed with SIGKILL (no handler runs) while its `comm` child, a
    process group of its own, measures; the group outlives it. Then `rtlab run` again,
    which must stop that group before it starts its own `comm`, and end with exit 0.
    Returns the killed run's group and the runs of the spec (named `name`) stored."""
    store = spec.parent / "s" / "rtlab.duckdb"
    first = subprocess.Popen(
        [RTLAB, "run", str(spec), "--store", str(store)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    orphan = _child_of(first.pid, time.monotonic() + 60, comm)
    time.sleep(0.5)  # measuring
    first.kill()
    first.wait()
    time.sleep(0.3)
    assert _group(orphan), f"the {comm} died with the runner: nothing to recover"
    # Held where it is: on a loaded machine the next `rtlab run` took longer to start than
    # the orphan had left to live, and an orphan that ended by itself tests nothing. The
    # recovery continues a stopped group it stops (orphans.stop_group).
    os.killpg(orphan, signal.SIGSTOP)
    second = rtlab_run(spec, store, stdout=subprocess.DEVNULL)
    try:
        # its own starts after the recovery; the old group must be gone by then
        mine = _child_of(second.pid, time.monotonic() + 60, comm)
        assert mine != orphan
        assert _group(orphan) == [], f"the killed run's {comm} still runs"
    finally:
        _out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    with Store(store, read_only=True) as st:
        return orphan, st.runs(spec_name=name)


def test_kill_9_then_run_again_stops_the_orphan_load(tmp_path: Path, built: Path) -> None:
    """kill -9 of `rtlab run` leaves its stress-ng running (its --timeout is the run's
    length + 30 s); the next `rtlab run` on the store stops it before measuring."""
    spec = tmp_path / "k.toml"
    spec.write_text(
        'name = "k"\nconditions = ["load"]\n[condition.load]\nprofile = "cpu"\n'
        'workers = 1\nsettle_s = 0.2\n[[workload]]\nkind = "rtlab-latency"\n'
        'duration = "3s"\n'
    )
    pgid, runs = _kill_9_then_resume(spec, "k", "stress-ng")
    assert [r["status"] for r in runs] == ["interrupted", "ok"]
    assert f"stress-ng (process group {pgid})" in runs[0]["message"]


def test_kill_9_then_resume_measures_alone(tmp_path: Path, built: Path) -> None:
    """kill -9 of `rtlab run` left its workload (rtlab-latency, 6 s) measuring while the
    resumed run measured: two at once. Every process group a run
    starts is recorded with the run while it runs; the resumed `rtlab run` stops the
    dead run's before its own first run starts."""
    spec = tmp_path / "w.toml"
    spec.write_text(
        'name = "w"\nrepetitions = 2\n[[workload]]\nkind = "rtlab-latency"\nduration = "6s"\n'
    )
    orphan, runs = _kill_9_then_resume(spec, "w", "rtlab-latency")
    assert [r["status"] for r in runs] == ["interrupted", "ok", "ok"]
    assert f"rtlab-latency (process group {orphan}) was stopped" in runs[0]["message"]


def test_busy_host_is_each_runs_own_figure(
    tmp_path: Path, built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One `rtlab run` takes the fingerprint once; the busy_host warning must still be
    each run's own reading, taken before that run (here the kernel's /proc/loadavg
    replaced by a sequence, the one thing a test cannot make the host do)."""
    import rtlab.lab.runner as runner_mod

    readings = iter([[9.5, 1.0, 1.0], [0.0, 0.0, 0.0], [7.25, 2.0, 1.0]])
    monkeypatch.setattr(runner_mod, "loadavg", lambda: next(readings))
    text = 'name = "b"\nrepetitions = 3\n[[workload]]\nkind = "rtlab-latency"\nduration = "100ms"\n'
    spec = parse_spec(text, tmp_path / "b.toml")
    with Store(tmp_path / "s.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok"] * 3
        runs = [st.run_info(r.run_id) for r in out.runs]
        busy = [
            st.sql("SELECT msg FROM warnings WHERE run_id=? AND code='busy_host'", [r["run_id"]])
            for r in runs
        ]
    assert [r["load"]["loadavg_before_load"][0] for r in runs] == [9.5, 0.0, 7.25]
    assert "load average 9.5 before the run" in busy[0][0][0]
    assert busy[1] == []
    assert "load average 7.25 before the run" in busy[2][0][0]
    # the fingerprint (once per invocation) carries no copy of a busy_host figure
    assert all(w["code"] != "busy_host" for w in runs[0]["fingerprint"]["warnings"])


QUICK = """\
name = "quick"
repetitions = 400
[[workload]]
kind = "command"
argv = ["true"]
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_during_a_store_write_is_still_an_interrupt(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """Runs of `true` last milliseconds, so most interrupts land while the store writes.
    Inside a DuckDB query one became RuntimeError("Query interrupted"): a traceback and
    exit 1 (seen under load). Every one is now exit 130, and no run is left `running`."""
    spec = tmp_path / "quick.toml"
    spec.write_text(QUICK)
    for k in range(4):
        store = tmp_path / f"s{k}" / "rtlab.duckdb"
        proc = rtlab_run(spec, store, stdout=subprocess.DEVNULL)
        assert proc.stderr is not None
        said = ""  # until a first run is stored: the session's signal handling is in place
        while line := proc.stderr.readline():  # (a loaded machine starts Python slowly)
            said += line
            if line.startswith(("ok ", "error ", "incomplete ")):  # `true` says nothing
                break
        time.sleep(0.1 + 0.3 * k)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        err = said + err
        assert proc.returncode == 130 and "Traceback" not in err, err[-1500:]
        with Store(store, read_only=True) as st:
            assert not [r for r in st.runs() if r["status"] == "running"]
