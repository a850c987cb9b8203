"""`rtlab compare` names two different cells that share a label apart (a gate
failure printed "wake@idle → wake@idle" for two different cells)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rtlab.results import Store
from tests.analysis.latency_model import QUIET
from tests.conftest import rtlab
from tests.report.test_compare_runs import _store


def test_gate_failure_names_the_two_cells_apart(tmp_path: Path) -> None:
    rng = np.random.default_rng(13)
    path = tmp_path / "s.duckdb"
    with Store(path) as st:
        _store(st, "base", QUIET.runs(rng, 2))
        _store(st, "new", QUIET.runs(rng, 2, factor=1.3))
    r = rtlab("compare", "--store", str(path), "base", "new", "--fail-if", "median > 1ns")
    assert r.returncode == 1, r.stderr
    err = r.stderr.replace("\n", " ")
    assert "wake@idle (spec base) → wake@idle (spec new)" in err, r.stderr
    assert "wake@idle (spec base)" in r.stdout  # the table's cell column too
    same = rtlab("compare", "--store", str(path), "base", "base", "--fail-if", "median > 1ns")
    assert "wake@idle → wake@idle:" in same.stderr.replace("\n", " ")  # one cell: no tags
