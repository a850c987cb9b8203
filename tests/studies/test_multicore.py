"""rtlab.studies.multicore: figures across repetitions, their intervals, the figures an
icount run withholds, and a host too busy for parallel TCG."""

from __future__ import annotations

import math

from rtlab.lab.qemu.timing import withhold_cross_core
from rtlab.protocol import Run, parse
from rtlab.studies import multicore
from tests.lab.workloads.rtbench.test_rtbench_host import run_text, tput

SMP = "timing_mode=parallel-tcg qemu_cores=2 host_cpus=4 rtos=freertos qemu_machine=mps2-an521"


def repetition(p1_two_cores: int, meta: str = SMP, load: float = 0.5) -> list[Run]:
    m = f"{meta} host_load1={load}"
    text = run_text("scalability", tput("p1", 1000) + tput("p4", 400), cores=1, meta=m)
    text += run_text("scalability", tput("p1", p1_two_cores) + tput("p4", 400), cores=2, meta=m)
    levels = tput("contention_0", 500) + tput("contention_50", 250)
    text += run_text("contention", levels, cores=2, meta=f"{m} levels=0,50")
    return parse(text)


def test_intervals_over_repetitions() -> None:
    figs = multicore.figures([repetition(n) for n in (1800, 2000, 2200)])
    assert figs is not None and figs.repetitions == 3
    p1 = figs.scaling["p1"]
    assert p1[1].mean == 100.0 and p1[1].half == 0.0
    # per core: 900, 1000, 1100 of 1000 -> 90, 100, 110 %; sd 10, t(2) = 4.30265: the
    # two-sided 95 % quantile of Student's t with 2 degrees of freedom, whose closed form
    # is a·sqrt(2 / (1 − a²)) with a = 0.95
    assert math.isclose(p1[2].mean, 100.0)
    t2 = 0.95 * math.sqrt(2 / (1 - 0.95**2))
    assert math.isclose(p1[2].half or 0, t2 * 10 / math.sqrt(3), rel_tol=1e-9)
    assert figs.contention == {
        0: multicore.Interval(100.0, 0.0, 3),
        50: multicore.Interval(50.0, 0.0, 3),
    }
    assert figs.setting.mode == "parallel-tcg" and not figs.setting.violations
    md = multicore.markdown("c", figs)
    assert "| P1 get count | 100.0 ± 0.0 | 100.0 ± 24.8 |" in md and "parallel TCG" in md
    # counts written as a person writes them, never "core(s)"
    assert "3 repetitions" in md and "| 1 core | 2 cores |" in md and "(s)" not in md


def test_one_repetition_has_no_interval() -> None:
    figs = multicore.figures([repetition(2000)])
    assert figs is not None and figs.scaling["p1"][2].half is None
    md = multicore.markdown("c", figs)
    assert "; 1 repetition;" in md and ", 1 core\n" in md
    assert "± " not in multicore.markdown("c", figs).split("Scalability")[1]


def test_busy_host_is_flagged() -> None:
    figs = multicore.figures([repetition(2000, load=0.5), repetition(2000, load=2.7)])
    assert figs is not None
    assert figs.setting.host_loads == [0.5, 2.7]
    (v,) = figs.setting.violations
    assert "2.70 on 4 CPUs" in v and "1.30 idle for 2 guest cores" in v


def test_icount_withheld_parts_give_reasons_not_numbers() -> None:
    meta = "timing_mode=icount qemu_cores=2 timebase=icount rtos=freertos"
    reps = []
    for _ in range(2):
        raw = "\n".join(_unparse(r) for r in repetition(2000, meta=meta))
        reps.append(withhold_cross_core(parse(raw), 2, 0))
    figs = multicore.figures(reps)
    assert figs is not None
    assert set(figs.withheld) == {"scalability@2", "contention@2"}
    assert "in turns" in figs.withheld["contention@2"]
    assert set(figs.scaling["p1"]) == {1} and figs.contention == {}
    md = multicore.markdown("c", figs)
    assert "**scalability on 2 cores: unsupported on icount**" in md


def test_single_core_cells_have_no_multicore_figures() -> None:
    text = run_text("scalability", tput("p1", 1000), cores=1)
    assert multicore.figures([parse(text)]) is None


def _unparse(run: Run) -> str:
    """The protocol text of a parsed test run (its meta, counters; no series)."""
    body = []
    for name, (value, unit) in run.counters.items():
        body.append(f"@rtl1 c {name} {value} unit={unit}")
    meta = " ".join(f"{k}={v}" for k, v in run.meta.items() if k not in ("scenario", "cores"))
    return run_text(run.meta["scenario"], body, int(run.meta["cores"]), meta).rstrip("\n")


MODEL = "timing_mode=rp2040-model timebase=rp2040_model board=pico"


def test_rp2040_model_mode_and_rtoses_side_by_side() -> None:
    """The model's runs name their timing mode; two RTOSes' cells on one board and mode
    share one table per figure (the RP2040 study's figures), one alone has none."""
    fr = multicore.figures([repetition(1600, meta=f"{MODEL} rtos=freertos")])
    nx = multicore.figures([repetition(2000, meta=f"{MODEL} rtos=nuttx")])
    assert fr is not None and nx is not None
    assert fr.setting.mode == "rp2040-model" and "RP2040 cycle model" in fr.setting.mode_text
    assert multicore.side_by_side([("a", fr)]) == ""
    md = multicore.side_by_side([("a", fr), ("b", nx)])
    assert "| pattern | FreeRTOS | NuttX |" in md
    assert "| P1 get count | 80.0 | 100.0 |" in md  # per core: 800 and 1000 of 1000
    assert "| 50 | 50.0 | 50.0 |" in md  # contention, % of level 0


def test_the_builds_version_beats_the_firmwares_placeholder() -> None:
    """NuttX's images report rtos_version=0.0.0; the build recorded its tree's commit."""
    rep = repetition(2000, meta=f"{MODEL} rtos=nuttx rtos_version=0.0.0")
    told = multicore.figures([rep], "4ebc8a7291df")
    untold = multicore.figures([rep])
    assert told is not None and untold is not None
    assert told.setting.rtos_version == "4ebc8a7291df"
    assert untold.setting.rtos_version == "unknown version"
