"""The RTOS studies' rows from the QEMU cycles plugin's runs (rtlab.studies.
reproduction_rtbench): the plugin's M0+ columns (core label "M0+", on QEMU's microbit)
answer the STM32 study's Cortex-M0(+) claims, Table 1's GPIO set is the empty marker
bracket's pulse, and K4perf's rows take the GPIO edge pass where a column has one —
on runs parsed from rtbench's protocol text as the plugin restates it."""

from __future__ import annotations

from rtlab.protocol import Run, parse
from rtlab.studies import reproduction as rp
from rtlab.studies import reproduction_rtbench as rtb

CLOCK = 8_000_000  # the plugin's clock of the STM32 stand-ins: one tick is one cycle


def _cycles_runs(
    rtos: str,
    machine: str,
    core: str,
    scenario: str,
    cycles: dict[str, int],
    bracket: int = 40,
) -> list[Run]:
    """One run as the cycles plugin restates it: each series `cycles` samples of its
    figure (two, the first its cold one too), the empty bracket's pulse (marker_cost)
    `bracket` cycles, its internal figure (the meta's cycles_bracket) larger."""
    lines = [
        "@rtl1 hello workload=rtbench version=0.1.0",
        f"@rtl1 meta scenario={scenario} rtos={rtos} rtos_version=v1 rtos_config=default",
        f"@rtl1 meta timebase=qemu_cycles qemu_machine={machine} cpu_hz={CLOCK}",
        f"@rtl1 meta cycles_core=Cortex-{core} cycles_bracket={bracket + 75}",
    ]
    for name, v in {**cycles, "marker_cost": bracket}.items():
        lines.append(f"@rtl1 c {name}.cold {v} unit=ticks")
        lines.append(f"@rtl1 series {name} unit=ticks tick_hz={CLOCK}")
        lines.append(f"@rtl1 s {name} 0 {v},{v}")
    lines.append(f"@rtl1 end records={len(lines)} status=ok")
    return parse("\n".join(lines) + "\n")


def _m0plus(rtos: str, sem: int, bracket: int = 40) -> rtb.Column:
    prims = dict.fromkeys(rtb.STM32_PRIMS, sem)
    runs = _cycles_runs(rtos, "microbit", "M0+", "primitives", prims, bracket)
    return rtb.column(f"{rtos}-cm0-default", runs)


def _rows(key: str, measured: dict[str, rp.Measured]) -> dict[str, rp.Row]:
    rep = rp.reproduce(rp.load(key), measured)
    assert rep is not None
    return {r.id: r for r in rep.rows}


def test_the_plugins_m0plus_columns_answer_the_cortex_m0_ranking() -> None:
    cols = [_m0plus("ucos3", 100), _m0plus("freertos", 120)]
    assert {c.core for c in cols} == {"M0+"}  # the plugin's table, not QEMU's M0
    rows = _rows("stm32", rtb.stm32(cols))
    rank = rows["rank.sum.M0"]
    assert rank.verdict == rp.REPRODUCED, rank  # µC/OS-III < FreeRTOS, as published
    assert "µC/OS-III 800 < FreeRTOS 960 cycles" in rank.rtlab
    # swapped, the same row is judged the other way: it reads the figures
    swapped = [_m0plus("ucos3", 120), _m0plus("freertos", 100)]
    assert _rows("stm32", rtb.stm32(swapped))["rank.sum.M0"].verdict == rp.NOT_REPRODUCED


def test_table1_gpio_set_under_the_plugin_is_the_brackets_pulse_shown_not_judged() -> None:
    rows = _rows("stm32", rtb.stm32([_m0plus("freertos", 120, bracket=13)]))
    gpio = rows["table1.gpio_set"]
    # even a bracket as cheap as the study's pin write is no pin write alone
    assert gpio.verdict.startswith(rp.NOT_COMPARABLE), gpio
    assert "13 cycles" in gpio.rtlab and "empty marker bracket" in gpio.how
    assert "no pin write alone" in gpio.why
    # the calls it was taken off are ranked without it
    assert "GPIO set" not in rows["table1.order"].rtlab


def _m33(handler: int, task: int, ext: tuple[int, int] | None) -> rtb.Column:
    irq = {"isr_handler": handler, "isr_task": task, "isr_task_tm": task}
    if ext is not None:
        irq |= {"isr_handler_ext": ext[0], "isr_task_ext": ext[1]}
    runs = _cycles_runs("freertos", "mps2-an505", "M33", "irq", irq)
    return rtb.column("freertos-cm33-default", runs)


def test_k4perf_takes_the_gpio_edge_pass_where_it_ran() -> None:
    m = rtb.k4perf([_m33(100, 500, (29, 281))])
    assert m["isr_handler.count"].value == 29 and m["isr_task.count"].value == 281
    assert "GPIO edge" in m["isr_handler.count"].how
    assert m["isr_handler.ns"].value == 29 * 8  # K4perf's 125 MHz: 8 ns a cycle
    assert m["ratio.troublemaker"].value == 1  # the busy loop's pass against its own
    rows = _rows("k4perf", m)
    assert rows["handler.cycles"].verdict == rp.REPRODUCED, rows["handler.cycles"]
    # without the pass, the software interrupt's figures speak
    swi = rtb.k4perf([_m33(100, 500, None)])
    assert swi["isr_handler.count"].value == 100 and "GPIO" not in swi["isr_handler.count"].how


def test_k4perf_cold_over_warm_is_not_judged_without_a_cache_model() -> None:
    """The plugin charges every access as a hit: K4perf's flash-cache ratios are not
    comparable there, not 'not reproduced'."""
    col = _m33(144, 844, (144, 844))
    col.cold = {"isr_handler": 145.0, "isr_task": 845.0}
    rows = _rows("k4perf", rtb.k4perf([col]))
    assert rows["cold.handler"].verdict == rp.NOT_COMPARABLE, rows["cold.handler"]
    assert "cache" in rows["cold.handler"].why
