"""Each study beside the published one: the data files load and cite, every row of a
reproduction has a source and a verdict, and a changed published figure changes the
verdict — on stores written through the real path (protocol text → parse → store) and
on rtbench runs parsed from the protocol, and through the real `rtlab report`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import multicore
from rtlab.studies import reproduction as rp
from rtlab.studies import reproduction_measures as rm
from rtlab.studies import reproduction_rtbench as rtb
from tests.studies.gpio_store import Truth, add_toggle_run, c_and_kotlin_store
from tests.studies.test_rtos_compare import _runs
from tests.studies.test_user_vs_kernel import store as uvk_store  # noqa: F401  (fixture)

VERDICTS = {rp.REPRODUCED, rp.NOT_REPRODUCED, rp.NOT_COMPARABLE}


def _text(key: str) -> str:
    return (Path(rp.__file__).parent / "published" / f"{key}.toml").read_text("utf-8")


@pytest.mark.parametrize("key", rp.STUDIES)
def test_every_study_file_loads_with_its_conditions_and_sources(key: str) -> None:
    pub = rp.load(key)
    assert {"board", "clock", "kernel", "method"} <= set(pub.conditions)
    assert pub.headline in {c.id for c in pub.claims}
    for c in pub.claims:
        assert c.source and c.measure and c.kind in rp.KINDS, c
    # judged against nothing: every claim still has a row, a source and a verdict
    rows = [rp.judge(c, None) for c in pub.claims]
    assert {r.verdict for r in rows} == {rp.NOT_COMPARABLE}
    assert all(r.why == "not measured in the selected runs" for r in rows)


def test_a_malformed_file_names_the_file_and_the_claim() -> None:
    bad = _text("gpio").replace('kind = "ratio"', 'kind = "ratoi"', 1)
    with pytest.raises(rp.PublishedError, match=r"gpio\.toml: claim 3 \(ratio\.mean\).*ratoi"):
        rp.parse(bad, "gpio.toml")
    with pytest.raises(rp.PublishedError, match=r"x\.toml: .*line 1"):
        rp.parse("[study\n", "x.toml")


def test_the_published_tables_are_the_studies_figures() -> None:
    """Spot checks against the studies' text (Table 1 of the STM32 study: cycles are µs
    × 8 MHz, minus the 13-cycle GPIO set in the preemption rows)."""
    stm = {c.id: c for c in rp.load("stm32").claims}
    assert stm["table1.sem_give"].published == 172 and stm["table1.return_sem"].published == 892
    assert stm["table1.preempt_sem"].published == round(68.625 * 8) - 13
    gpio = rp.load("gpio").raw["table"]
    assert gpio["C/C++"]["mean_ns"] == 2199.0 and gpio["Kotlin/Native"]["rms_ns"] == 202.0
    uvk = {c.id: c.published for c in rp.load("user_vs_kernel").claims}
    assert (uvk["min.user.stock"], uvk["min.kernel.stock"], uvk["min.kernel.rt"]) == (100, 20, 40)


# ------------------------------------------------------------------ the verdict logic


def _claim(**kw: object) -> rp.Claim:
    base: dict[str, object] = {"id": "x", "claim": "x", "source": "Table 9", "measure": "m"}
    return rp.Claim(**{**base, **kw})  # type: ignore[arg-type]


def test_units_emulation_and_missing_names_are_not_comparable() -> None:
    cycles = _claim(kind="value", published=172, unit="cycles")
    row = rp.judge(cycles, rp.Measured(150.0, "instructions", emulated="QEMU icount"))
    assert row.verdict == rp.NOT_COMPARABLE and row.why == "instructions vs cycles"
    assert "× 0.872" in row.compare  # the ratio is still shown
    ns = _claim(kind="value", published=2199, unit="ns", absolute=True)
    assert rp.judge(ns, rp.Measured(2199.0, "ns", emulated="qemu-tcg")).verdict == (
        rp.NOT_COMPARABLE
    )
    assert rp.judge(ns, rp.Measured(2300.0, "ns")).verdict == rp.REPRODUCED  # within 10 %
    order = _claim(kind="order", published=["A", "B", "C"], first="lowest")
    assert rp.judge(order, rp.Measured({"A": 1.0})).verdict == rp.NOT_COMPARABLE
    assert rp.judge(order, rp.Measured({"A": 1.0, "C": 3.0})).verdict == rp.REPRODUCED
    row = rp.judge(order, rp.Measured({"A": 2.0, "B": 1.0, "C": 3.0}))
    assert row.verdict == rp.NOT_REPRODUCED and row.compare.startswith("2 of 3 pairs")
    cache = _claim(kind="ratio", published=14.3, needs="cache")
    row = rp.judge(cache, rp.Measured(1.2, lacks=("cycles", "cache")))
    assert row.verdict == rp.NOT_COMPARABLE and "cache" in row.why


def test_a_period_is_judged_over_its_run_to_run_range() -> None:
    c = _claim(kind="period", published=40, unit="µs")
    grid = (100.0, 50.0, 40.0, 20.0)
    row = rp.judge(c, rp.Measured((20.0, 40.0, 40.0), "µs", grid=grid))
    assert (row.verdict, row.rtlab, row.compare) == (
        rp.REPRODUCED,
        "20–40 µs",
        "run-to-run over 3 runs",
    )
    assert rp.judge(c, rp.Measured((50.0, 100.0), "µs", grid=grid)).verdict == rp.NOT_REPRODUCED
    row = rp.judge(c, rp.Measured((20.0,), "µs", grid=(100.0, 20.0)))
    assert row.verdict == rp.NOT_COMPARABLE and "no 40 µs step" in row.why


# ------------------------------------------------------------------ GPIO study, real path


@pytest.fixture
def gpio_store(tmp_path: Path) -> Store:
    """C and Kotlin/Native cells; Kotlin's levels 8.8 % longer, as in the study."""
    return c_and_kotlin_store(tmp_path / "g" / "rtlab.duckdb")


def _gpio_rows(st: Store, text: str) -> dict[str, rp.Row]:
    cells = results.select_many(st, [], None)
    measured = rm.measures(st, cells)["gpio"]
    rep = rp.reproduce(rp.parse(text, "gpio.toml"), measured)
    assert rep is not None
    for r in rep.rows:
        assert r.source and r.verdict in VERDICTS, r
    return {r.id: r for r in rep.rows}


def test_gpio_claims_and_a_changed_figure_changes_the_verdict(gpio_store: Store) -> None:
    rows = _gpio_rows(gpio_store, _text("gpio"))
    assert rows["ratio.mean"].verdict == rp.REPRODUCED, rows["ratio.mean"]
    assert abs(float(rows["ratio.mean"].rtlab) - 1.088) < 0.02  # (1121 + 1273) / 2200, noise
    # the instrument's figures of a board (no emulator): the absolute mean compares too
    assert rows["mean.c"].verdict == rp.REPRODUCED, rows["mean.c"]
    assert rows["n.c"].verdict == rp.NOT_REPRODUCED  # 2 000 periods, not 260 000
    changed = _text("gpio").replace("published = 1.0882", "published = 1.25")
    again = _gpio_rows(gpio_store, changed)
    assert again["ratio.mean"].verdict == rp.NOT_REPRODUCED
    assert again["ratio.mean"].rtlab == rows["ratio.mean"].rtlab


@pytest.mark.parametrize(
    ("labels", "why"),
    [
        # plain TCG: the host's clock
        ({"emulated": "qemu-tcg", "qemu_machine": "virt"}, "host-timed emulation"),
        (
            {"emulated": "qemu-tcg", "qemu_machine": "virt", "qemu_icount_shift": "0"},
            "an instruction-count model",
        ),
    ],
)
def test_a_spread_claim_on_an_emulator_is_not_comparable(
    tmp_path: Path, labels: dict[str, str], why: str
) -> None:
    """A jitter, maximum-deviation or deviation claim: the host's noise under plain TCG,
    where the timer interrupts land under icount; neither is a board's jitter."""
    st = Store(tmp_path / "e" / "rtlab.duckdb")
    rng, truth = np.random.default_rng(5), Truth()
    for name, kind, lang, high, low in (
        ("c", "rtlab-toggle", "c", 1030, 1170),
        ("kotlin", "rtlab-toggle-kt", "kotlin", 1121, 1273),
    ):
        add_toggle_run(
            st, truth, rng, name=name, kind=kind, language=lang, high=high, low=low,
            instrument=False, meta=labels,
        )  # fmt: skip
    rows = _gpio_rows(st, _text("gpio"))
    for cid in ("order.rms", "order.max_dev", "ratio.fig2"):
        r = rows[cid]
        assert r.verdict == rp.NOT_COMPARABLE and r.why.startswith(why), r
        assert r.rtlab != "–"  # the figures are still shown
    # a period's mean and median are no spread: judged either way
    assert rows["ratio.mean"].verdict == rp.REPRODUCED, rows["ratio.mean"]
    assert rows["ratio.p50"].verdict != rp.NOT_COMPARABLE, rows["ratio.p50"]


def test_rtlab_report_shows_the_table_in_md_and_json(gpio_store: Store) -> None:
    def report(*args: str) -> str:
        argv = [sys.executable, "-m", "rtlab.cli", "report", "--store", str(gpio_store.path)]
        p = subprocess.run([*argv, *args], capture_output=True, text=True, check=True)
        return p.stdout

    md = report("--md")
    assert "## Reproduction: GPIO study" in md and "| claim | source | published |" in md
    doc = json.loads(report("--json"))
    [st] = doc["reproduction"]
    assert st["study"] == "gpio" and st["headline"].startswith("GPIO study: ")
    assert all(r["source"] and r["verdict"] in VERDICTS for r in st["rows"])


# ------------------------------------------------------------------ user vs kernel


def test_user_vs_kernel_minimum_periods(uvk_store: Store) -> None:  # noqa: F811
    cells = results.select_many(uvk_store, [], None)
    rep = rp.reproduce(rp.load("user_vs_kernel"), rm.measures(uvk_store, cells)["user_vs_kernel"])
    assert rep is not None
    rows = {r.id: r for r in rep.rows}
    # the fixture's hrtimer misses 20 µs (a 20 % outlier): 100 µs is its minimum
    assert rows["min.kernel.stock"].verdict == rp.NOT_REPRODUCED
    assert rows["min.kernel.stock"].rtlab == "100 µs"
    assert rows["min.user.stock"].verdict == rp.NOT_REPRODUCED  # usleep: P = T + 60 µs
    assert "no 40 µs step" in rows["min.kernel.rt"].why
    assert rows["usleep100"].verdict == rp.NOT_COMPARABLE  # an absolute time, emulated
    assert all(r.source for r in rep.rows)


# ------------------------------------------------------------------ the RTOS studies


def _cols(sem: dict[str, int]) -> list[rtb.Column]:
    """One column per RTOS on mps2-an385: sem_give/sem_take of `sem` ticks each."""
    out = []
    for rtos, ticks in sem.items():
        runs = _runs(rtos, "mps2-an385", {"sem_give": f"{ticks},{ticks}",
                                          "sem_take": f"{ticks},{ticks}"})  # fmt: skip
        out.append(rtb.column(rtos, runs))
    return out


def test_stm32_ranking_is_judged_per_machine() -> None:
    pub = rp.load("stm32")
    cols = _cols({"zephyr": 2, "ucos3": 3, "freertos": 4, "nuttx": 9})
    rows = {r.id: r for r in rp.reproduce(pub, rtb.stm32(cols)).rows}  # type: ignore[union-attr]
    assert rows["rank.sum.M3"].verdict == rp.REPRODUCED, rows["rank.sum.M3"]
    assert rows["rank.sum.M7"].why == "not measured in the selected runs"
    # instruction counts against cycles: shown, never judged
    swapped = _cols({"zephyr": 9, "ucos3": 3, "freertos": 4, "nuttx": 2})
    rows = {r.id: r for r in rp.reproduce(pub, rtb.stm32(swapped)).rows}  # type: ignore[union-attr]
    assert rows["rank.sum.M3"].verdict == rp.NOT_REPRODUCED
    assert rows["rank.rows.M3"].verdict == rp.NOT_REPRODUCED


def test_rp2040_multicore_claims_from_smp_figures() -> None:
    """FreeRTOS SMP figures (parallel TCG): its own claims are judged; a claim that
    needs NuttX on the same machine says which machines ran what."""
    from tests.studies.test_multicore import SMP, repetition

    fr = multicore.figures([repetition(n) for n in (1200, 1300)])  # P1: 60–65 % per core
    nx_meta = SMP.replace("rtos=freertos", "rtos=nuttx").replace("mps2-an521", "virt-a53")
    nx = multicore.figures([repetition(1900, meta=nx_meta)])
    assert fr is not None and nx is not None
    pub = rp.load("rp2040")
    rows = {r.id: r for r in rp.reproduce(pub, rtb.rp2040([], [("f", fr)])).rows}  # type: ignore[union-attr]
    assert rows["scaling.freertos"].verdict == rp.REPRODUCED, rows["scaling.freertos"]
    assert rows["contention.freertos"].verdict == rp.NOT_COMPARABLE  # two levels: no steps
    both = rtb.rp2040([], [("f", fr), ("n", nx)])
    rows = {r.id: r for r in rp.reproduce(pub, both).rows}  # type: ignore[union-attr]
    assert rows["scaling.order"].verdict == rp.NOT_COMPARABLE
    assert "FreeRTOS on mps2-an521, NuttX on virt-a53" in rows["scaling.order"].why
