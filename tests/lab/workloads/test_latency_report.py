"""Missed periods of rtlab-latency, end to end: the real `rtlab run` stores the program's
`overruns` counter, and the run summary, the HTML report and the Markdown/JSON summaries
show it beside the latency figures (docs/metrics.md, "Wake-up latency")."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rtlab.results import Store
from tests.conftest import rtlab

# 5 us periods with the 50 us SCHED_OTHER timer slack: every sleeping method overruns.
SPEC = """\
name = "overruns"

[[workload]]
kind = "rtlab-latency"
name = "w"
method = ["abs", "timerfd"]
interval_us = 5
slack_ns = 50000
duration = "200ms"
"""


def test_overruns_are_stored_and_reported(tmp_path: Path, built: Path) -> None:
    spec = tmp_path / "overruns.toml"
    spec.write_text(SPEC)
    store = tmp_path / "rtlab.duckdb"
    r = rtlab("run", str(spec), "--store", str(store))
    assert r.returncode == 0, r.stderr + r.stdout

    with Store(store, read_only=True) as st:
        stored = {}
        for run in st.runs(spec_name="overruns"):
            [(value,)] = st.sql(
                "SELECT value FROM counters WHERE run_id = ? AND name = 'overruns'",
                [run["run_id"]],
            )
            n = st.samples(run["run_id"], "latency").size
            stored[run["params"]["label"]] = (value, n)
    assert len(stored) == 2 and all(v > 0 for v, _ in stored.values())

    def line(label: str) -> str:
        v, n = stored[label]
        return f"{label} latency: overruns {v:,} of {v + n:,} periods ({100 * v / (v + n):.2f} %)"

    expected = [line(label) for label in stored]
    # the summary `rtlab run` prints (a Rich table: lines may be wrapped, so compare words)
    words = re.sub(r"\s+", " ", r.stdout)
    for e in expected:
        assert e in words, r.stdout

    md = rtlab("report", "--spec", "overruns", "--md", "--store", str(store))
    assert md.returncode == 0, md.stderr
    for e in expected:
        assert f"- {e}" in md.stdout.splitlines(), md.stdout

    js = rtlab("report", "--spec", "overruns", "--json", "--store", str(store))
    cells = {c["cell"]: c for c in json.loads(js.stdout)["cells"]}
    for label, (v, n) in stored.items():
        assert cells[label]["overruns"] == v and cells[label]["n"] == n
        assert abs(cells[label]["overruns_pct"] - 100 * v / (v + n)) < 1e-9

    page = tmp_path / "report.html"
    h = rtlab("report", "--spec", "overruns", "-o", str(page), "--store", str(store))
    assert h.returncode == 0, h.stderr
    text = page.read_text()
    for e in expected:
        assert f"<li>{e}</li>" in text
