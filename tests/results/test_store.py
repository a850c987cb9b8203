"""The results store: DuckDB + Parquet, crash and Ctrl-C consistency, resume, queries."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pytest

from rtlab.protocol import Writer, parse_one
from rtlab.results import Store, StoreError, summarize
from tests.conftest import latency_output
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT


def protocol_run(values: np.ndarray, *, end: bool = True):
    w = Writer()
    w.hello("rtlab-latency", "0.1.0", method="clock_nanosleep")
    w.series("latency", values, encoding="sb")
    w.counter("overruns", 3, "count")
    w.histogram("h", [(0, 10, 2), (10, 20, 5)])
    w.warn("no_mlockall", "memory not locked")
    if end:
        w.end()
    return parse_one(w.text() if end else "\n".join(w.lines))


def test_roundtrip_of_a_protocol_run(tmp_path: Path) -> None:
    v = np.random.default_rng(3).integers(10_000, 90_000, 5000)
    db = tmp_path / "r" / "rtlab.duckdb"
    with (
        Store(db) as st,
        st.run(
            workload="rtlab-latency",
            spec_name="host",
            cell_key="abs",
            params={"interval_us": 1000},
            fingerprint={"k": 1},
        ) as r,
    ):
        r.add_protocol_run(protocol_run(v))
        r.load = {"cpu_busy": 0.5}
        run_id = r.run_id
    with Store(db, read_only=True) as st:
        (info,) = st.runs()
        assert info["run_id"] == run_id and info["status"] == "ok"
        assert info["params"] == {"interval_us": 1000} and info["fingerprint"] == {"k": 1}
        assert info["meta"]["method"] == "clock_nanosleep"
        assert info["load"] == {"cpu_busy": 0.5}
        assert np.array_equal(st.samples(run_id, "latency"), v)
        (s,) = st.summaries([run_id])
        assert s["n"] == 5000 and s["unit"] == "ns"
        assert s["p50"] == float(np.quantile(v, 0.5, method="inverted_cdf"))
        assert s["max"] == v.max() and s["min"] == v.min()
        assert st.sql("SELECT value, unit FROM counters") == [(3, "count")]
        assert st.sql("SELECT code FROM warnings") == [("no_mlockall",)]
        assert st.sql("SELECT sum(count) FROM histograms") == [(7,)]
        # DuckDB over the Parquet files agrees with numpy.
        (q,) = st.sql("SELECT quantile_disc(value, 0.99) FROM samples WHERE run_id=?", [run_id])
        assert q[0] == np.quantile(v, 0.99, method="inverted_cdf")
        with pytest.raises(StoreError, match="no series"):
            st.samples(run_id, "nope")


def test_truncated_workload_output_is_stored_incomplete(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as st:
        with st.run(workload="w") as r:
            r.add_protocol_run(protocol_run(np.arange(10), end=False))
        (info,) = st.runs()
        assert info["status"] == "incomplete"
        assert any("no end record" in p for p in info["problems"])
        assert st.samples(info["run_id"], "latency").tolist() == list(range(10))


def test_exception_marks_error_and_stores_nothing_half(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as st:
        with pytest.raises(RuntimeError), st.run(workload="w") as r:
            r.add_series("x", [1, 2, 3])
            raise RuntimeError("target unreachable")
        (info,) = st.runs()
        assert info["status"] == "error" and "target unreachable" in info["message"]
        assert info["samples_file"] is None
        assert st.sql("SELECT count(*) FROM series") == [(0,)]


@pytest.mark.parametrize("tick", [Fraction(10**400), Fraction(1, 10**400), Fraction(2**63)])
def test_a_tick_the_series_table_cannot_hold_is_refused_when_added(
    tmp_path: Path, tick: Fraction
) -> None:
    """Not a DuckDB exception at commit: one error at add_series."""
    with Store(tmp_path / "s.duckdb") as st, st.run(workload="w") as r:
        with pytest.raises(StoreError, match="cannot be stored exactly"):
            r.add_series("x", [1, 2, 3], unit="ticks", tick_s=tick)
        r.add_series("y", [1], unit="ticks", tick_s=Fraction(2**63 - 1))  # the largest kept


CHILD = textwrap.dedent("""
    import os, signal, sys, time
    import numpy as np
    from rtlab.results import Store
    # Ctrl-C as an interactive shell delivers it: a background job of a script (a CI
    # runner, a stress loop) starts with SIGINT ignored, and Python keeps that
    signal.signal(signal.SIGINT, signal.default_int_handler)
    st = Store(sys.argv[1])
    with st.run(workload="w", spec_name="spec", cell_key="a") as r:
        r.add_series("x", np.arange(100))
    mode = sys.argv[2]
    with st.run(workload="w", spec_name="spec", cell_key="b") as r:
        r.add_series("x", np.arange(50))
        if mode == "kill-after-samples":  # crash between the Parquet file and the commit
            st._write_samples(st.samples_dir / f"{r.run_id}.parquet", r)
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        print("ready", flush=True)
        time.sleep(600)  # Ctrl-C arrives here
""")


HANG_S = 600  # how long a child may take before the test calls it hung (never a speed bound)


def child(db: Path, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("mode", ["kill", "kill-after-samples"])
def test_crash_mid_run_leaves_finished_runs_intact(tmp_path: Path, mode: str) -> None:
    db = tmp_path / "s.duckdb"
    p = child(db, mode)
    p.communicate(timeout=HANG_S)
    assert p.returncode == -signal.SIGKILL
    with Store(db) as st:
        a, b = st.runs()
        assert a["status"] == "ok" and st.samples(a["run_id"], "x").tolist() == list(range(100))
        assert b["status"] == "interrupted" and b["samples_file"] is None
        assert st.recovered == [b["run_id"]]
        files = sorted(x.name for x in st.samples_dir.iterdir())
        assert files == [f"{a['run_id']}.parquet"]  # the orphan file is gone
        assert st.completed_cells("spec") == {"a": 1}  # resume: only cell b is left
        (n,) = st.sql("SELECT count(*) FROM samples")
        assert n == (100,)


def test_ctrl_c_marks_the_run_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    p = child(db, "sigint")
    assert p.stdout is not None
    assert p.stdout.readline().strip() == "ready"
    p.send_signal(signal.SIGINT)
    # a hang guard, not a speed check: on a loaded machine marking the run and closing
    # the store (DuckDB's checkpoint) took over 30 s
    _, err = p.communicate(timeout=HANG_S)
    assert p.returncode != 0 and "KeyboardInterrupt" in err
    with Store(db, read_only=True) as st:
        a, b = st.runs()
        assert a["status"] == "ok"
        assert b["status"] == "interrupted" and "Ctrl-C" in b["message"]


def test_running_run_of_this_process_is_not_recovered(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Store(db) as st:
        rid = st.begin_run(workload="w")
        assert Store(db).recovered == []  # same process: still being written
        st.mark(rid, "interrupted")


def test_open_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such store"):
        Store(tmp_path / "missing.duckdb", read_only=True)
    bad = tmp_path / "bad.duckdb"
    bad.write_text("not a database")
    with pytest.raises(StoreError, match="cannot open"):
        Store(bad)


def test_store_held_by_another_process_says_so(tmp_path: Path) -> None:
    """A second writer is refused with one line; a reader gets the writer's snapshot."""
    path = tmp_path / "held.duckdb"
    Store(path).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from rtlab.results import Store; s = Store(sys.argv[1]); "
            "s.begin_run(workload='w'); print('open', flush=True); sys.stdin.read()",
            str(path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        with pytest.raises(StoreError, match=f"in use by process {holder.pid}"):
            Store(path)
        with Store(path, read_only=True) as st:
            assert st.snapshot_of == holder.pid
            assert [r["status"] for r in st.runs()] == ["running"]
    finally:
        holder.communicate("", timeout=HANG_S)


def test_summarize_ticks_and_counts() -> None:
    s = summarize(np.array([3, 1, 2]), Fraction(1, 24_000_000))
    assert s["n"] == 3 and s["p50"] == pytest.approx(2 / 24e6 * 1e9)
    assert summarize(np.array([5, 7]), None)["max"] == 7
    assert summarize(np.zeros(0, np.int64), None)["p99"] is None


def test_million_samples_round_trip_compressed(tmp_path: Path) -> None:
    """A million samples come back as written, stored smaller than raw int64; how fast is
    bench/store_speed.py's (make test asserts no wall-clock speed)."""
    v = np.random.default_rng(1).integers(0, 10**6, 10**6)
    with Store(tmp_path / "s.duckdb") as st:
        with st.run(workload="w") as r:
            r.add_series("x", v)
        back = st.samples(r.run_id, "x")
    assert np.array_equal(back, v)
    assert os.path.getsize(st.samples_dir / f"{r.run_id}.parquet") < 8 * 10**6


def test_latency_run_end_to_end(tmp_path: Path) -> None:
    """What the runner does for one cell: build, run, parse, fingerprint, store."""
    from rtlab.lab.fingerprint import LoadMonitor, fingerprint

    with LoadMonitor() as load:
        out = latency_output("-i", "500", "-l", "300", "-w", "usleep")
    run = parse_one(out, source="rtlab-latency")
    with Store(tmp_path / "rtlab.duckdb") as st:
        with st.run(
            workload=run.workload,
            spec_name="host",
            cell_key="usleep/other/idle",
            params={"method": "usleep"},
            target={"kind": "local"},
            fingerprint=fingerprint(run.meta),
        ) as w:
            w.add_protocol_run(run)
            w.load = load.result()
        (info,) = st.runs(spec_name="host")
        assert info["status"] == "ok" and info["load"]["seconds"] > 0
        assert "timer_slack" in {x["code"] for x in info["fingerprint"]["warnings"]}
        assert st.samples(info["run_id"], "latency").size == 300
        (s,) = st.summaries()
        assert s["series"] == "latency" and s["p50"] > 0


def test_failure_while_storing_marks_the_run(tmp_path: Path) -> None:
    """A commit that fails (here: a counter too big for BIGINT) leaves no half run."""
    with Store(tmp_path / "s.duckdb") as st:
        with pytest.raises(duckdb.Error), st.run(workload="w") as r:
            r.add_series("x", [1, 2])
            r.counters["huge"] = (2**70, None)
        (info,) = st.runs()
        assert info["status"] == "error" and info["samples_file"] is None
        assert not list(st.samples_dir.glob("*.parquet"))
        assert st.sql("SELECT count(*) FROM series") == [(0,)]


def test_a_samples_file_deleted_by_hand_is_named(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as st:
        with st.run(workload="w") as r:
            r.add_series("latency", np.arange(5, dtype=np.int64))
        (path,) = st.samples_dir.glob("*.parquet")
        path.unlink()
        with pytest.raises(StoreError, match=f"{r.run_id}: its samples file .* is missing"):
            st.samples(r.run_id, "latency")
