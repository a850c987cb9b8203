"""The RTOS comparison from rtbench runs: columns named by what the runs say of
themselves, figures never filled in, findings cheapest first per machine."""

from __future__ import annotations

from rtlab.catalog import rtoses
from rtlab.lab.rtos import RTOSES
from rtlab.protocol import Run, parse
from rtlab.studies import rtos_compare, rtos_compare_tables

HEAD = "@rtl1 hello workload=rtbench version=0.1.0\n"


def _runs(
    rtos: str,
    machine: str,
    ticks: dict[str, str],
    config: str = "default",
    warn: str = "",
    tm: dict[str, int] | None = None,
) -> list[Run]:
    """One primitives run: `ticks` series name -> comma-separated samples (25 MHz ticks);
    the first sample is also given as the cold counter. `tm`: a Thread-Metric run too,
    test -> iterations in one second."""
    lines = [
        HEAD.rstrip("\n"),
        f"@rtl1 meta timebase=icount qemu_machine={machine} rtos_config={config}",
        f"@rtl1 meta scenario=primitives rtos={rtos} rtos_version=v1 cpu_hz=1000000000",
    ]
    if warn:
        lines.append(f"@rtl1 warn code=no_copy msg={warn}")
    for name, values in ticks.items():
        lines.append(f"@rtl1 series {name} unit=ticks tick_hz=25000000")
        lines.append(f"@rtl1 s {name} 0 {values}")
        lines.append(f"@rtl1 c {name}.cold {int(values.split(',')[0]) + 3} unit=ticks")
    lines.append(f"@rtl1 end records={len(lines)} status=ok")
    if tm:
        n = len(lines)
        lines += [
            HEAD.rstrip("\n"),
            f"@rtl1 meta scenario=threadmetric rtos={rtos} qemu_machine={machine} cores=1",
        ]
        for t, count in tm.items():
            lines += [f"@rtl1 c {t} {count}", f"@rtl1 c {t}.elapsed_us 1000000"]
        lines.append(f"@rtl1 end records={len(lines) - n} status=ok")
    return parse("\n".join(lines) + "\n")


def test_one_rtos_is_no_comparison() -> None:
    runs = _runs("freertos", "mps2-an385", {"sem_give": "1,2"})
    assert rtos_compare.compare([("a", runs)]) is None
    assert rtos_compare.compare([("a", runs), ("b", [])]) is None


def test_columns_figures_and_findings() -> None:
    a = _runs("freertos", "mps2-an385", {"sem_give": "1,2,1,2", "preempt_sem": "6,6,6,6"})
    b = _runs(
        "ucos3",
        "mps2-an385",
        {"sem_give": "1,1,1,1"},
        config="lean",
        warn="queues%20pass%20pointers",
    )
    cmp = rtos_compare.compare([("fr@idle", a), ("uc@idle", b)])
    assert cmp is not None and cmp.unit.startswith("instructions, mean")
    assert [c.label(cmp.with_config) for c in cmp.columns] == [
        "FreeRTOS v1 · M3 · default",
        "µC/OS-III v1 · M3 · lean",
    ]
    # 1.5 ticks of 40 instructions = 60 (the mean, not the 40/80 a median would say)
    assert cmp.primitives["Semaphore give"] == [60.0, 40.0]
    assert cmp.primitives["Preemption via semaphore"] == [240.0, None]  # never filled in
    md = rtos_compare_tables.markdown(cmp)
    assert "| Preemption via semaphore | 240 (0.240 µs) | – |" in md
    # cold: the first call, one sample (here 3 ticks above the first warm one)
    assert cmp.cold["Semaphore give"] == [160.0, 160.0]
    cold = "### Primitives, cold: the first call of each path, one sample, ± one counter tick"
    assert f"{cold} (40 instructions)" in md
    assert "**µC/OS-III v1 · M3 · lean**: no_copy: queues pass pointers" in md
    (finding,) = cmp.findings
    assert finding.startswith("RTOSes on mps2-an385 (M3)")
    assert "semaphore give: µC/OS-III v1 (lean) 40, FreeRTOS v1 (default) 60" in finding
    assert "all within one counter tick, 40 instructions: not resolved" in finding
    assert "preemption" not in finding  # one RTOS has it: nothing to compare


def test_different_machines_are_columns_but_no_finding() -> None:
    a = _runs("freertos", "mps2-an385", {"sem_give": "1"})
    b = _runs("zephyr", "mps2-an386", {"sem_give": "2"})
    cmp = rtos_compare.compare([("a", a), ("b", b)])
    assert cmp is not None and len(cmp.columns) == 2 and cmp.findings == []
    assert not cmp.with_config


def test_a_difference_of_more_than_a_tick_is_resolved() -> None:
    a = _runs("freertos", "mps2-an385", {"sem_give": "2,2"})
    b = _runs("zephyr", "mps2-an385", {"sem_give": "4,4"})
    cmp = rtos_compare.compare([("a", a), ("b", b)])
    assert cmp is not None and cmp.resolution == 40
    (finding,) = cmp.findings
    assert "FreeRTOS v1 80, Zephyr v1 160." in finding and "tick" not in finding


def test_threadmetric_relative_to_the_reference_rtos_on_each_machine() -> None:
    fr = _runs("freertos", "mps2-an385", {"sem_give": "1"}, tm={"t1": 1000, "t7": 400})
    zl = _runs("zephyr", "mps2-an385", {"sem_give": "1"}, "lean", tm={"t1": 1500, "t7": 100})
    n7 = _runs("nuttx", "mps2-an500", {"sem_give": "1"}, tm={"t1": 900})
    cmp = rtos_compare.compare([("fr", fr), ("zl", zl), ("n7", n7)])
    assert cmp is not None and cmp.reference == "freertos"
    # Zephyr lean against FreeRTOS's default (FreeRTOS has no lean); no FreeRTOS on an500
    assert cmp.tm_relative["T1 basic processing"] == [100.0, 150.0, None]
    assert cmp.tm_relative["T7 semaphore"] == [100.0, 25.0, None]
    md = rtos_compare_tables.markdown(cmp)
    assert "### Thread-Metric relative to FreeRTOS on the same machine (%)" in md
    # one table per machine: an500 has no T7 figure, so no T7 row there
    assert "| T7 semaphore | 100 % | 25 % |\n" in md
    assert "of the icount model) — mps2-an500 (M7)" in md


def test_each_machine_is_judged_by_its_own_counter_tick() -> None:
    """The microbit's 16 MHz counter ticks every 62.5 instructions, mps2's every 40: a
    finding on mps2 says 40, never the coarsest tick of the whole study."""
    m3 = [
        _runs(r, "mps2-an385", {"sem_give": v}) for r, v in (("freertos", "2,2"), ("zephyr", "3,3"))
    ]
    m0 = _runs("freertos", "microbit", {"sem_give": "2,2"})
    for line in m0:  # a 16 MHz series
        for s in line.series.values():
            s.tick_s = type(s.tick_s)(1, 16_000_000)
    cmp = rtos_compare.compare([("a", m3[0]), ("b", m3[1]), ("c", m0)])
    assert cmp is not None and cmp.ticks == {"mps2-an385": 40.0, "microbit": 62.5}
    (finding,) = cmp.findings
    assert "FreeRTOS v1 80, Zephyr v1 120" in finding and "62.5" not in finding
    md = rtos_compare_tables.markdown(cmp)
    assert "62.5 on microbit" in md and "40 on mps2-an385" in md


def test_title_is_the_ports_declared_one_else_the_name() -> None:
    """Every registered port's title is its port folder's declaration, the one the
    studies print; a name no port declares is shown as it is."""
    for name in RTOSES.names():
        assert RTOSES.get(name).title == rtoses.title(name) != name
    assert rtoses.title("freertos") == "FreeRTOS"
    assert rtoses.title("no-such-rtos") == "no-such-rtos"
    assert rtoses.title("") == ""
    # a column whose runs name no RTOS is shown as "?"
    col = rtos_compare.Column("c", "", "v1", "mps2-an385", "default", icount=True)
    assert col.label(with_config=False).startswith("? v1 · ")
