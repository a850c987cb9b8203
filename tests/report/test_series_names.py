"""Every series name the protocol accepts is in every output, and only timing series
are summarized (as the report review found), with the real CLI and store.

A `/` in a name (`irq/lat`) was taken for a multi-part run's part: the series was stored
but missing from the run summary, every report format and compare; a run of only such
series showed n = 0. Timestamps (`write_ts`) were listed as if they were latencies, and
every rtbench cell had an n = 0 row."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.conftest import rtlab

CELL = "w@idle"
NL = "\\n"  # printf's newline


def _spec(tmp: Path, name: str, shift: int) -> Path:
    lines = [
        "@rtl1 hello workload=x version=1",
        "@rtl1 series irq/lat unit=ns",
        f"@rtl1 s irq/lat 0 {','.join(str(v + shift) for v in range(100, 200))}",
        "@rtl1 series write_ts unit=ns kind=timestamps",
        "@rtl1 s write_ts 0 1000000,2000000,3000000",
        "@rtl1 end records=5 status=ok",
    ]
    spec = tmp / f"{name}.toml"
    spec.write_text(
        f'name = "{name}"\n[[workload]]\nkind = "command"\nname = "w"\n'
        f"argv = {json.dumps(['printf', NL.join(lines) + NL])}\n"
        "seconds = 1\n"
    )
    return spec


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("names")
    st = d / "s" / "rtlab.duckdb"
    for name, shift in (("a", 0), ("b", 50)):
        r = rtlab("run", str(_spec(d, name, shift)), "--store", str(st))
        assert r.returncode == 0, r.stderr
        if name == "a":  # the run's own summary table
            assert "irq/lat" in r.stdout and "100" in r.stdout, r.stdout
            assert "write_ts" not in r.stdout, r.stdout
    return st


def test_a_slash_in_a_name_is_in_every_report_format(store: Path) -> None:
    doc = json.loads(rtlab("report", "--store", str(store), "--spec", "a", "--json").stdout)
    rows = {(c["cell"], c["series"]): c for c in doc["cells"]}
    assert set(rows) == {(CELL, "irq/lat")}, rows  # write_ts: timestamps, not a latency
    assert rows[(CELL, "irq/lat")]["n"] == 100 and rows[(CELL, "irq/lat")]["min"] == 100
    text = rtlab("report", "--store", str(store), "--spec", "a", "--csv").stdout
    table = list(csv.DictReader(io.StringIO(text)))
    assert [(r["series"], r["n"]) for r in table] == [("irq/lat", "100")]
    md = rtlab("report", "--store", str(store), "--spec", "a", "--md").stdout
    assert f"| {CELL} | irq/lat | ok:1 | 100 |" in md and "write_ts" not in md
    html = store.parent / "a.html"
    r = rtlab("report", "--store", str(store), "--spec", "a", "-o", str(html))
    assert r.returncode == 0, r.stderr
    assert "<td>irq/lat</td>" in html.read_text()


def test_a_slash_in_a_name_is_compared(store: Path) -> None:
    r = rtlab("compare", "--store", str(store), "a", "b", "--json", "--fail-if", "median > +10%")
    assert r.returncode == 1, r.stderr  # 149 → 199 ns: +33.6 %
    doc = json.loads(r.stdout)
    (change,) = doc["changes"]
    assert change["series"] == "irq/lat"
    m = {x["metric"]: x for x in change["metrics"]}
    assert (m["median"]["base_ns"], m["median"]["new_ns"]) == (149.0, 199.0)
    assert "irq/lat" in doc["gate_failures"][0]


def test_a_cell_without_a_timing_series_says_why_not_n_0(small_store: Path) -> None:
    """rtbench's figures are per part (its tables); its summary row says so."""
    doc = json.loads(
        rtlab("report", "--store", str(small_store), "--spec", "small", "--json").stdout
    )
    rtb = [c for c in doc["cells"] if c["cell"].startswith("rtbench@")]
    assert len(rtb) == 2 and all(c["n"] is None for c in rtb), rtb
    assert all("part tables" in c["note"] for c in rtb)
    md = rtlab("report", "--store", str(small_store), "--spec", "small", "--md").stdout
    row = next(ln for ln in md.splitlines() if ln.startswith("| rtbench@idle |"))
    assert "| – | several parts" in row and "| 0 |" not in row
    header = next(ln for ln in md.splitlines() if ln.startswith("| cell | series |"))
    assert row.count(" |") == header.count(" |"), (header, row)  # one cell per column


def test_the_toggles_write_ts_is_stored_as_timestamps(tmp_path: Path) -> None:
    """rtlab-toggle, -rs and -kt print `series write_ts unit=ns` (no kind=): the runner
    marks it, from the workload kind's declaration, so no summary lists it. The program
    here prints what rtlab-toggle -t prints (tests/studies/gpio_store.py): this host has
    no gpiochip for the real one (tests/lab/workloads/gpio runs it in the arm64 guest)."""
    import numpy as np

    from rtlab.results import Store
    from tests.studies.gpio_store import toggle_output

    ts = np.cumsum(np.full(401, 2200, np.int64))
    text = toggle_output("rtlab-toggle", ts, "other", {}, None)
    prog = tmp_path / "fake-toggle"
    prog.write_text(f"#!/bin/sh\ncat <<'EOF'\n{text}EOF\n")
    prog.chmod(0o755)
    spec = tmp_path / "t.toml"
    spec.write_text(
        f'name = "t"\n[target]\nprograms = {{rtlab-toggle = "{prog}"}}\n'
        '[[workload]]\nkind = "rtlab-toggle"\nlines = 5\ntimestamps = true\n'
        'duration = "1s"\n'
    )
    store = tmp_path / "s" / "rtlab.duckdb"
    r = rtlab("run", str(spec), "--store", str(store))
    assert r.returncode == 0, r.stderr
    assert "│ period" in r.stdout and "│ write_ts" not in r.stdout, r.stdout
    with Store(store, read_only=True) as st:
        attrs = dict(st.sql("SELECT name, attrs FROM series"))
    assert json.loads(attrs["write_ts"]) == {"kind": "timestamps"}
    assert json.loads(attrs["period"]) == {}
