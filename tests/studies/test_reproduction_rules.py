"""The verdict rules refuse what they cannot judge: each figure set below was once passed
or failed by an accident of arithmetic (an unbounded range, a NaN's position, a ratio to
zero) or crashed the report; each now gives "not comparable" with its reason, or the
claim file is refused when loaded."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from rtlab.studies import reproduction as rp
from tests.studies.claim_files import refused_claim

GRID = (100.0, 50.0, 40.0, 20.0)


def _claim(**kw: object) -> rp.Claim:
    base: dict[str, object] = {"id": "x", "claim": "x", "source": "Table 9", "measure": "m"}
    return rp.Claim(**{**base, **kw})  # type: ignore[arg-type]


def _not_comparable(c: rp.Claim, m: rp.Measured, why: str) -> rp.Row:
    row = rp.judge(c, m)
    assert row.verdict == rp.NOT_COMPARABLE, row
    assert why in row.why, row
    return row


def test_a_run_with_no_stable_period_leaves_the_range_open_and_is_not_judged() -> None:
    c = _claim(kind="period", published=100, unit="µs")
    # 20 ≤ 100 ≤ ∞ once passed: any published period above the smallest run's
    row = _not_comparable(c, rp.Measured((20.0, math.inf), "µs", grid=GRID), "no stable period")
    assert row.why.startswith("1 of 2 runs") and "none stable" in row.rtlab
    # every run unstable at the published period (it was tried): that is a verdict
    every = rp.Measured((math.inf, math.inf, math.inf), "µs", grid=GRID)
    assert rp.judge(c, every).verdict == rp.NOT_REPRODUCED
    # all runs stable: still judged
    assert rp.judge(c, rp.Measured((50.0, 100.0), "µs", grid=GRID)).verdict == rp.REPRODUCED


UNIT_CASES = {
    "value": (40, rp.Measured(40.0, "ns")),
    "ratio": (1.0, rp.Measured(1.0, "ns")),
    "range": ([20, 50], rp.Measured((30.0, 40.0), "ns")),
    "period": (40, rp.Measured((20.0, 50.0), "ns", grid=(50.0, 40.0, 20.0))),
    "order": (["A", "B"], rp.Measured({"A": 1.0, "B": 2.0}, "ns")),
    "order_each": (["A", "B"], rp.Measured({"row": {"A": 1.0, "B": 2.0}}, "ns")),
}


@pytest.mark.parametrize("kind", rp.KINDS)
def test_a_figure_in_another_unit_is_not_comparable_for_every_kind(kind: str) -> None:
    published, m = UNIT_CASES[kind]
    c = _claim(kind=kind, published=published, unit="µs")
    _not_comparable(c, m, "ns vs µs")
    same = rp.Measured(m.value, "µs", grid=m.grid)
    assert rp.judge(c, same).verdict == rp.REPRODUCED


NAN = math.nan
NAN_CASES = [
    ("value", 40, (NAN,)),
    ("value", 40, (40.0, NAN)),  # the last run speaks for a value
    ("ratio", 1.0, NAN),
    ("range", [20, 50], (NAN, 30.0)),
    ("range", [20, 50], (30.0, NAN)),
    ("period", 40, (NAN, 40.0)),
    ("period", 40, (40.0, NAN)),  # max() kept the NaN out here, min() kept it in there
    ("period", 40, (20.0, NAN, 50.0)),
    ("order", ["A", "B"], {"A": NAN, "B": 2.0}),
    ("order", ["A", "B"], {"A": 1.0, "B": NAN}),
    ("order_each", ["A", "B"], {"r1": {"A": 1.0, "B": 2.0}, "r2": {"A": NAN, "B": 2.0}}),
]


@pytest.mark.parametrize(("kind", "published", "value"), NAN_CASES)
def test_a_nan_anywhere_among_the_figures_is_not_comparable(
    kind: str, published: object, value: object
) -> None:
    c = _claim(kind=kind, published=published, unit="µs" if kind != "ratio" else "")
    m = rp.Measured(value, "µs" if kind != "ratio" else "", grid=GRID)  # type: ignore[arg-type]
    row = _not_comparable(c, m, "NaN")
    assert row.why.startswith("1 of ")


@pytest.mark.parametrize("kind", ["value", "ratio"])
def test_a_published_zero_is_refused_when_loaded_and_not_judged(kind: str) -> None:
    refused_claim(
        f'id = "zero"\nclaim = "z"\nsource = "Table 1"\nkind = "{kind}"\n'
        'published = 0\nmeasure = "m"\n',
        r"z\.toml: claim 1 \(zero\): published 0",
    )
    # a claim made in code: value 0 measured 0 was "not reproduced", a ratio to 0 raised
    c = _claim(kind=kind, published=0)
    _not_comparable(c, rp.Measured(0.0), "published 0")
    _not_comparable(c, rp.Measured(1.0), "published 0")


def test_a_non_finite_published_figure_is_refused_when_loaded() -> None:
    refused_claim(
        'id = "p"\nclaim = "z"\nsource = "Table 1"\nkind = "period"\n'
        'published = inf\nmeasure = "m"\n',
        r"claim 1 \(p\): published inf",
    )


@pytest.mark.parametrize(
    ("kind", "published", "empty"),
    [
        ("value", 40, ()),
        ("ratio", 1.0, ()),
        ("range", [20, 50], ()),
        ("period", 40, ()),
        ("order", ["A", "B"], {}),
        ("order_each", ["A", "B"], {}),
        ("order_each", ["A", "B"], {"r1": {}}),
    ],
)
def test_an_empty_measurement_is_not_comparable(
    kind: str, published: object, empty: object
) -> None:
    c = _claim(kind=kind, published=published)
    row = _not_comparable(c, rp.Measured(empty), "empty")  # type: ignore[arg-type]
    assert row.rtlab == "–"


def test_the_studies_files_still_load_under_the_stricter_rules() -> None:
    here = Path(rp.__file__).parent / "published"
    for key in rp.STUDIES:
        rp.parse((here / f"{key}.toml").read_text("utf-8"), f"{key}.toml")
