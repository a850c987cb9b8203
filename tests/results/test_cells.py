"""Cells never pool: a spec run, one parameter edited, run again; and
two specs with the same matrix. Every summary (report --md/--csv/--json, HTML, runs,
the summary after `rtlab run`, compare) keeps the cells apart and labels them by what
differs. The real CLI, the real rtlab-latency, a real store."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.conftest import rtlab

SPEC = """\
name = "{name}"
[[workload]]
kind = "rtlab-latency"
name = "wake"
interval_us = 1000
loops = {loops}  # a count: exact however loaded the host is
"""


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory, built: Path) -> Path:
    """Spec `a` run for 300 loops, then edited to 200 and run again; spec `b` = a at 300."""
    d = tmp_path_factory.mktemp("cells")
    store = d / "st" / "rtlab.duckdb"
    for name, loops in (("a", "300"), ("a", "200"), ("b", "300")):
        spec = d / f"{name}.toml"
        spec.write_text(SPEC.format(name=name, loops=loops))
        r = rtlab("run", str(spec), "--store", str(store))
        assert r.returncode == 0, r.stderr
        if (name, loops) == ("a", "200"):
            # the summary after the run: the spec as it is now, one cell
            assert "wake@idle (loops=200)" in r.stdout
            assert "loops=300" not in r.stdout
    return store


def _rows(store: Path, *sel: str) -> dict[str, dict[str, object]]:
    r = rtlab("report", "--store", str(store), "--json", *sel)
    assert r.returncode == 0, r.stderr
    return {c["cell"]: c for c in json.loads(r.stdout)["cells"]}


def test_edited_parameter_is_a_new_row(edited: Path) -> None:
    rows = _rows(edited, "--spec", "a")
    assert set(rows) == {"wake@idle (loops=300)", "wake@idle (loops=200)"}
    # 300 samples and 200: one run each, never 500 in a row
    assert {k: r["runs"] for k, r in rows.items()} == {k: {"ok": 1} for k in rows}
    assert rows["wake@idle (loops=300)"]["n"] == 300
    assert rows["wake@idle (loops=200)"]["n"] == 200
    assert len({r["cell_key"] for r in rows.values()}) == 2
    md = rtlab("report", "--store", str(edited), "--spec", "a", "--md").stdout
    assert "| wake@idle (loops=300) | latency | ok:1 |" in md
    assert "| wake@idle (loops=200) | latency | ok:1 |" in md
    table = list(
        csv.DictReader(
            io.StringIO(rtlab("report", "--store", str(edited), "--spec", "a", "--csv").stdout)
        )
    )
    assert [(t["cell"], t["runs"]) for t in table] == [
        ("wake@idle (loops=300)", "ok:1"),
        ("wake@idle (loops=200)", "ok:1"),
    ]


def test_two_specs_do_not_pool(edited: Path, tmp_path: Path) -> None:
    rows = _rows(edited, "a", "b")
    assert set(rows) == {
        "wake@idle (spec=a, loops=300)",
        "wake@idle (spec=a, loops=200)",
        "wake@idle (spec=b, loops=300)",
    }
    assert all(r["runs"] == {"ok": 1} for r in rows.values())
    # b's cell has the same key as a's first one (same definition): still apart
    assert rows["wake@idle (spec=b, loops=300)"]["spec"] == "b"
    out = tmp_path / "r.html"
    r = rtlab("report", "--store", str(edited), "a", "b", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "wake@idle (spec=b, loops=300)" in out.read_text()


def test_runs_lists_distinct_cells(edited: Path) -> None:
    r = rtlab("runs", "--store", str(edited), "--spec", "a")
    assert r.returncode == 0, r.stderr
    assert "(loops=300)" in r.stdout and "(loops=200)" in r.stdout


def test_compare_refuses_to_pool_two_cells(edited: Path) -> None:
    r = rtlab("compare", "--store", str(edited), "a", "b")
    assert r.returncode == 2
    assert "BASE has 2 cells labelled wake@idle" in r.stderr
    assert "loops=300; loops=200" in r.stderr and "a/wake@idle#" in r.stderr
    key = _rows(edited, "--spec", "a")["wake@idle (loops=300)"]["cell_key"]
    ok = rtlab("compare", "--store", str(edited), f"a/{key}", "b", "--json")
    assert ok.returncode == 0, ok.stderr
    change = json.loads(ok.stdout)["changes"][0]
    assert change["n_base"] == change["n_new"] == 300
