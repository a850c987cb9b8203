"""`rtlab compare` on repeated runs: the interval is over runs, so A against A' (the same
workload run again) passes a `--gate-on ci` gate at the stated rate and a real +30 %
shift fails it; with one run a side there is no interval and a gate on it refuses.

Stored runs are real (rtlab.results.Store, DuckDB + Parquet); the calibration draws them
from the known model of tests/analysis/latency_model.py so it can repeat quickly, and one
test runs the real rtlab-latency through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rtlab.report import compare
from rtlab.results import Store
from tests.analysis.latency_model import NOISY, QUIET
from tests.conftest import rtlab


def _store(store: Store, spec: str, runs: np.ndarray) -> None:
    for i, values in enumerate(runs):
        with store.run(
            workload="rtlab-latency",
            spec_name=spec,
            cell_key=f"wake@idle#{spec}",
            repetition=i,
            params={"label": "wake@idle"},
        ) as w:
            w.add_series("latency", values)


def test_a_against_a_prime_passes_the_interval_gate(tmp_path: Path) -> None:
    """30 pairs of two specs of 4 runs each from one noisy model (per-run p99 spread ×10,
    as measured on the shared VM). The issue's gate `p99 > +10%` on the interval fails
    none; `> +0%` on each metric, a one-sided 2.5 % test (3 of 120 expected), fails at
    most 8 (+3 binomial SD). The pooled-sample bootstrap of 492686a failed 3 of 30 and
    19 of 120 (seed 5)."""
    rng = np.random.default_rng(5)
    gates = [compare.parse_gate(f"{m} > +0%") for m in compare.METRICS]
    issue_gate = [compare.parse_gate("p99 > +10%")]
    zero_fails = issue_fails = 0
    with Store(tmp_path / "s.duckdb") as st:
        for i in range(30):
            _store(st, f"a{i}", NOISY.runs(rng, 4))
            _store(st, f"b{i}", NOISY.runs(rng, 4))
        for i in range(30):
            changes = compare.compare(st, f"a{i}", f"b{i}")
            zero_fails += len(compare.check_gates(changes, gates, "ci"))
            issue_fails += len(compare.check_gates(changes, issue_gate, "ci"))
    assert issue_fails == 0
    assert zero_fails <= 8


def test_a_30_percent_shift_fails_the_interval_gate(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    gates = [compare.parse_gate("p99 > +10%"), compare.parse_gate("median > +10%")]
    with Store(tmp_path / "s.duckdb") as st:
        _store(st, "base", QUIET.runs(rng, 5))
        _store(st, "new", QUIET.runs(rng, 5, factor=1.3))
        failures = compare.check_gates(compare.compare(st, "base", "new"), gates, "ci")
    assert len(failures) == 2 and all("95 % interval bound" in f for f in failures)


def test_one_run_a_side_has_no_interval(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    path = tmp_path / "s.duckdb"
    with Store(path) as st:
        _store(st, "one", NOISY.runs(rng, 1))
        _store(st, "four", NOISY.runs(rng, 4))
    base = ["compare", "--store", str(path), "one", "four"]
    table = rtlab(*base)
    assert table.returncode == 0, table.stderr
    assert "[n/a]" in table.stdout and "BASE has 1 run, NEW 4 runs" in table.stdout
    doc = json.loads(rtlab(*base, "--json").stdout)  # valid JSON: null, not NaN
    m = doc["changes"][0]["metrics"][1]
    assert m["metric"] == "p99" and m["ci_low_pct"] is None and "1 run" in m["ci_note"]
    gate = rtlab(*base, "--fail-if", "p99 > +10%", "--gate-on", "ci")
    assert gate.returncode == 2 and not gate.stdout
    assert gate.stderr.count("\n") == 1 and "no p99 interval" in gate.stderr
    assert "BASE has 1 run" in gate.stderr and "Traceback" not in gate.stderr
    estimate = rtlab(*base, "--fail-if", "p99 > +100000%")  # the estimate still gates
    assert estimate.returncode == 0, estimate.stderr


REAL_SPEC = """\
name = "again"
repetitions = 6
{workloads}
"""
WAKE = """
[[workload]]
kind = "rtlab-latency"
name = "{name}"
method = "abs"
policy = "other"
interval_us = 1000
duration = "300ms"
"""


def test_real_runs_a_against_a_prime_and_a_30_percent_shift(tmp_path: Path, built: Path) -> None:
    """Real rtlab-latency (SCHED_OTHER, 1 ms, 6 × 0.3 s a side), A and A' interleaved by
    the runner (repetition-major) so load drift hits both: `p99 > +10%` on the interval
    passes. NEW = A' with every latency 30 % longer, against A': the interval of the
    median (per-run spread ~6 % here) is sure it grew. A +10 % bound is left to the model
    tests: with the machine at load 8 the medians of A and A' differed by 8 %, and the
    p99's interval is as wide as its ×10 spread over runs: it says so by its width."""
    spec = tmp_path / "again.toml"
    spec.write_text(REAL_SPEC.format(workloads=WAKE.format(name="a") + WAKE.format(name="b")))
    path = tmp_path / "s.duckdb"
    r = rtlab("run", str(spec), "--store", str(path))
    assert r.returncode == 0, r.stderr + r.stdout
    with Store(path) as st:
        runs = st.runs(spec_name="again", status="ok")
        cell = {r["params"]["workload"]: r["cell_key"] for r in runs}
        b_runs = [r for r in runs if r["cell_key"] == cell["b"]]
        assert len(b_runs) == 6 and len(runs) == 12
        for i, run in enumerate(b_runs):
            slower = np.round(st.samples(run["run_id"], "latency") * 1.3).astype(np.int64)
            with st.run(
                workload="rtlab-latency",
                spec_name="slower",
                cell_key="b@idle#slower",
                repetition=i,
                params=run["params"],
            ) as w:
                w.add_series("latency", slower)
    base = ["compare", "--store", str(path), cell["a"]]
    same = rtlab(*base, cell["b"], "--fail-if", "p99 > +10%", "--gate-on", "ci")
    assert same.returncode == 0, same.stdout + same.stderr
    assert "1 gate(s) passed" in same.stderr
    # A' against A' × 1.3: the shift is exact, so only A''s run-to-run spread widens the
    # interval (A against A' × 1.3 also carries A's and A''s drift apart: 5 % on a fresh
    # machine under load, enough to put 0 inside the median's interval).
    gate = ["--fail-if", "median > +0%", "--gate-on", "ci", "--json"]
    shift = rtlab("compare", "--store", str(path), cell["b"], "slower", *gate)
    assert shift.returncode == 1, shift.stdout + shift.stderr
    doc = json.loads(shift.stdout)
    (sc,) = doc["changes"]
    assert (sc["runs_base"], sc["runs_new"]) == (6, 6)
    median = sc["metrics"][0]
    assert 0 < median["ci_low_pct"] <= median["ci_high_pct"]


def test_a_change_from_zero_is_null_in_json(tmp_path: Path) -> None:
    """A base that is 0 everywhere (a path the counter cannot resolve) has no relative
    change: the JSON says null (valid JSON, not Infinity), a gate still sees it grow."""
    path = tmp_path / "s.duckdb"
    with Store(path) as st:
        _store(st, "zero", np.zeros((2, 50), dtype=np.int64))
        _store(st, "some", np.ones((2, 50), dtype=np.int64))
    base = ["compare", "--store", str(path), "zero", "some"]
    done = rtlab(*base, "--json")
    assert done.returncode == 0, done.stderr
    assert "Infinity" not in done.stdout and "NaN" not in done.stdout
    median = json.loads(done.stdout)["changes"][0]["metrics"][0]
    assert median["metric"] == "median" and median["change_pct"] is None
    assert rtlab(*base, "--fail-if", "median > +10%").returncode == 1
