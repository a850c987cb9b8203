"""A model page's verdicts held to the model's declared uncertainties: reproduced only
under every setting, fragile (naming each setting's figure and verdict) when the
settings disagree; an order whose precondition fails is not reproduced."""

from __future__ import annotations

import pytest

from rtlab.studies import reproduction as rp
from rtlab.studies import reproduction_measures as rm
from rtlab.studies.reproduction_robust import Variant, robust
from tests.studies.claim_files import refused_claim

PAGE = Variant("fully-associative XIP cache", (("xip_cache", "fully-associative"),))
TWO_WAY = Variant("two-way XIP cache", (("xip_cache", "two-way"),))
TIES_1 = Variant("arbitration ties core1-first", (("arbitration_ties", "core1-first"),))


def _rp2040(t3_advantage: float, drops: dict[str, float]) -> rp.Reproduction:
    """The RP2040 study judged on figures as the measures give them (T2 ÷ T3 and T8)."""
    found = {
        "tm1.advantage.t2_t3": rp.Measured({"T2": 1.52, "T3": t3_advantage, "parity": 1.0}),
        "t8.drop.FreeRTOS": rp.Measured(drops["FreeRTOS"], "ratio"),
        "t8.drop.order": rp.Measured(drops),
    }
    rep = rp.reproduce(rp.load("rp2040"), found)
    assert rep is not None
    return rep


def _rows(rep: rp.Reproduction) -> dict[str, rp.Row]:
    return {r.id: r for r in rep.rows}


def test_a_verdict_that_holds_under_one_cache_mode_only_is_fragile_and_says_why() -> None:
    drops = {"FreeRTOS": 0.9, "NuttX": 0.8}
    page, two_way = _rp2040(0.66, drops), _rp2040(1.21, drops)
    assert _rows(page)["t3.order"].verdict == rp.NOT_REPRODUCED
    assert _rows(two_way)["t3.order"].verdict == rp.REPRODUCED
    rows = _rows(robust([(PAGE, page), (TWO_WAY, two_way)]))
    t3 = rows["t3.order"]
    assert t3.verdict == rp.FRAGILE
    assert t3.why.startswith("fully-associative XIP cache: T2 1.52 > parity 1 > T3 0.66 not; ")
    assert t3.why.endswith("two-way XIP cache: T2 1.52 > T3 1.21 > parity 1 reproduced")
    assert t3.rtlab == _rows(page)["t3.order"].rtlab  # the page's own figure is shown
    # the same verdict under every setting stands as it is
    assert rows["t8.nuttx"].verdict == rp.REPRODUCED and rows["t8.nuttx"].why == ""


def test_reproduced_only_when_every_setting_reproduces_it() -> None:
    good = {"FreeRTOS": 0.9, "NuttX": 0.8}
    bad = {"FreeRTOS": 0.8, "NuttX": 0.9}  # FreeRTOS drops more: the order fails
    rep = robust([(PAGE, _rp2040(1.21, good)), (TWO_WAY, _rp2040(1.21, good)),
                  (TIES_1, _rp2040(1.21, bad))])  # fmt: skip
    rows = _rows(rep)
    assert rows["t3.order"].verdict == rp.REPRODUCED
    assert rows["t8.nuttx"].verdict == rp.FRAGILE
    want = "; arbitration ties core1-first: NuttX 0.9 > FreeRTOS 0.8 not"
    assert rows["t8.nuttx"].why.endswith(want)
    assert "1 fragile" in rep.tally
    assert any("arbitration ties core1-first" in e for e in rep.environment)
    # reproduced under none: not reproduced, whatever else differs
    none = _rows(robust([(PAGE, _rp2040(0.5, bad)), (TWO_WAY, _rp2040(0.66, bad))]))
    assert none["t3.order"].verdict == rp.NOT_REPRODUCED


def test_an_order_of_drops_is_not_reproduced_when_nothing_drops() -> None:
    """T8: NuttX drops more than FreeRTOS presumes both drop; 1.14 and 1.09 are no drop."""
    rows = _rows(_rp2040(1.21, {"FreeRTOS": 1.14, "NuttX": 1.093}))
    t8 = rows["t8.nuttx"]
    assert t8.verdict == rp.NOT_REPRODUCED
    assert t8.why == (
        "its precondition fails (T8 drops on two cores): FreeRTOS 1.14, NuttX 1.093, not below 1"
    )
    one = _rows(_rp2040(1.21, {"FreeRTOS": 1.14, "NuttX": 0.9}))["t8.nuttx"]
    assert one.verdict == rp.NOT_REPRODUCED and one.why.endswith("): FreeRTOS 1.14, not below 1")
    assert _rows(_rp2040(1.21, {"FreeRTOS": 0.95, "NuttX": 0.9}))["t8.nuttx"].verdict == (
        rp.REPRODUCED
    )


def test_a_precondition_outside_an_order_is_refused_when_loaded() -> None:
    refused_claim(
        'id = "r"\nclaim = "z"\nsource = "Table 1"\nkind = "ratio"\n'
        'published = 1.0\nmeasure = "m"\nprecondition = { below = 1.0, what = "x" }\n',
        r"claim 1 \(r\): precondition",
    )


@pytest.mark.parametrize(
    ("label", "settings"),
    [
        ("smp[rtos=nuttx,xip_cache=two-way]@idle", (("xip_cache", "two-way"),)),
        ("smp[rtos=nuttx]@idle", ()),
        ("smp@idle", ()),
        (
            "smp[rtos=freertos,xip_cache=fully-associative,arbitration_ties=core1-first]@idle",
            (("xip_cache", "fully-associative"), ("arbitration_ties", "core1-first")),
        ),
    ],
)
def test_a_cell_says_its_model_setting_by_its_target_axes(label: str, settings: object) -> None:
    from rtlab.results import query as results

    cr = results.CellRuns(label=label, key=None, spec="s", workload="rtbench", stored_label=label)
    assert rm.variant_of(cr) == settings


def test_the_report_judges_each_model_setting_and_shows_the_page_s_own(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Cells of one spec under two XIP cache settings (the target's `variants`): the
    reproduction holds FreeRTOS's scalability claim to both; every other section is
    given the page's own cells only."""
    from rtlab.results import Store
    from rtlab.results import query as results
    from rtlab.studies import multicore
    from tests.studies.test_multicore import repetition

    own, two_way = "smp[rtos=freertos]@idle", "smp[rtos=freertos,xip_cache=two-way]@idle"
    cells = {
        lb: results.CellRuns(label=lb, key=lb, spec="s", workload="rtbench", stored_label=lb)
        for lb in (own, two_way)
    }
    below = multicore.figures([repetition(1200)])  # (60 + 50) / 2 = 55 % per core: degrades
    above = multicore.figures([repetition(3200)])  # (160 + 50) / 2 = 105 %: no degradation
    assert below is not None and above is not None
    store = Store(tmp_path / "s" / "rtlab.duckdb")
    reps = rm.reproductions(store, cells, multi=[(own, below), (two_way, above)])
    (rep,) = reps
    row = {r.id: r for r in rep.rows}["scaling.freertos"]
    assert row.verdict == rp.FRAGILE, row
    assert row.why.startswith("the page's model: 55 % reproduced; two-way XIP cache: 105 % not")
    assert rm.own_setting(cells) == {own: cells[own]}
    assert rm.own_setting({two_way: cells[two_way]}) == {two_way: cells[two_way]}


def test_the_environment_line_says_the_model_has_a_cache_the_study_denies(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The RP2040 study's Pico has "no cache"; the page's model runs the Pico's XIP cache
    (its own mode named, not its variants')."""
    from rtlab.results import Store
    from rtlab.results import query as results
    from rtlab.studies import multicore
    from tests.studies.test_multicore import repetition

    def cell(label: str, mode: str) -> results.CellRuns:
        run = {"run_id": label, "status": "ok", "target": {"xip_cache": mode}}
        return results.CellRuns(label, label, "s", "x", [run], stored_label=label)

    own, two_way = "smp[rtos=freertos]@idle", "smp[rtos=freertos,xip_cache=two-way]@idle"
    cells = {own: cell(own, "fully-associative"), two_way: cell(two_way, "two-way")}
    figs = multicore.figures([repetition(1200)])
    assert figs is not None
    store = Store(tmp_path / "s" / "rtlab.duckdb")
    (rep,) = rm.reproductions(store, cells, multi=[(own, figs), (two_way, figs)])
    said = [e for e in rep.environment if "no cache" in e]
    assert said == [
        "the model runs the Pico's 16 KiB XIP flash cache (fully associative: its size, not "
        "its conflict misses) where the study's conditions say no cache"
    ]
    assert any(e.endswith("variants: two-way XIP cache") for e in rep.environment)
    assert {r.verdict for r in rep.rows} <= {rp.REPRODUCED, rp.NOT_REPRODUCED, rp.NOT_COMPARABLE}
