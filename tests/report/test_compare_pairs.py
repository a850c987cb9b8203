"""`rtlab compare` of selections that do not match cell for cell, and of negative
figures, with the real CLI and store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtlab.report.compare import relative_change
from tests.conftest import rtlab

NL = "\\n"  # printf's newline


def _workload(name: str, values: list[int], seconds: int = 1) -> str:
    lines = [
        "@rtl1 hello workload=x version=1",
        "@rtl1 series lat unit=ns",
        f"@rtl1 s lat 0 {','.join(map(str, values))}",
        "@rtl1 end records=3 status=ok",
    ]
    argv = json.dumps(["printf", NL.join(lines) + NL])
    return f'[[workload]]\nkind = "command"\nname = "{name}"\nargv = {argv}\nseconds = {seconds}\n'


def _run(tmp: Path, store: Path, name: str, *workloads: str) -> None:
    spec = tmp / f"{name}.toml"
    spec.write_text(f'name = "{name}"\n' + "".join(workloads))
    r = rtlab("run", str(spec), "--store", str(store))
    assert r.returncode == 0, r.stderr


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("cmp")
    st = d / "s" / "rtlab.duckdb"
    same = [100] * 50
    _run(d, st, "a", _workload("both", same), _workload("gone", same))
    _run(d, st, "b", _workload("both", same, seconds=2), _workload("added", same))
    _run(d, st, "neg", _workload("w", [-5] * 100))
    _run(d, st, "pos", _workload("w", [9] * 100))
    return st


def test_unmatched_cells_are_shown_and_fail_a_gate(store: Path) -> None:
    """Cells of one side only vanished from table and JSON, and --fail-if said "1
    gate(s) passed"; cells whose fixed parameters differ were paired silently."""
    base = ["compare", "--store", str(store), "a", "b"]
    r = rtlab(*base, "--json", "--fail-if", "p99 > +10%")
    assert r.returncode == 1, r.stderr  # `both` is unchanged: the failures are the others
    doc = json.loads(r.stdout)
    (change,) = doc["changes"]
    assert change["base"] == "both@idle" and change["differs"] == ["seconds: 1 → 2"]
    assert sorted((u["side"], u["cell"]) for u in doc["unmatched"]) == [
        ("BASE", "gone@idle"),
        ("NEW", "added@idle"),
    ]
    assert len(doc["gate_failures"]) == 2
    assert all("not compared" in f for f in doc["gate_failures"])
    table = rtlab(*base, "--fail-if", "p99 > +10%")
    assert table.returncode == 1 and "gate(s) passed" not in table.stderr
    for text in ("only in BASE", "gone@idle", "only in NEW", "added@idle", "seconds: 1 → 2"):
        assert text in table.stdout, table.stdout
    # without a gate: the table still says what it could not compare; exit 0
    plain = rtlab(*base)
    assert plain.returncode == 0 and "not compared: gone@idle" in plain.stdout


def test_an_increase_from_a_negative_base_is_an_increase(store: Path) -> None:
    """−5 → +9 ns printed −280 %, so 'p99 > +10%' passed an increase."""
    r = rtlab("compare", "--store", str(store), "neg", "pos", "--json", "--fail-if", "p99 > +10%")
    assert r.returncode == 1, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    m = {x["metric"]: x for x in doc["changes"][0]["metrics"]}
    assert (m["p99"]["base_ns"], m["p99"]["new_ns"]) == (-5.0, 9.0)
    assert m["p99"]["change_pct"] == pytest.approx(280.0)
    assert "+280.0 %" in doc["gate_failures"][0]
    back = rtlab("compare", "--store", str(store), "pos", "neg", "--fail-if", "p99 < -10%")
    assert back.returncode == 1, back.stderr  # +9 → −5: a decrease, −155.6 %


@pytest.mark.parametrize(
    ("base", "new", "pct"),
    [(-5, 9, 280.0), (9, -5, -155.56), (-10, -5, 50.0), (-5, -10, -100.0), (4, 5, 25.0)],
)
def test_the_sign_of_a_relative_change_is_its_direction(base: int, new: int, pct: float) -> None:
    assert relative_change(base, new) == pytest.approx(pct, abs=0.01)


def test_from_zero_the_change_is_infinite_in_its_direction() -> None:
    assert relative_change(0, 3) == float("inf") and relative_change(0, -3) == float("-inf")
    assert relative_change(0, 0) == 0.0
