"""The latency_measure workload kind and the cross-check study, on text captured from
Zephyr 3.4.99's tests/benchmarks/latency_measure (mps2-an385, QEMU -icount shift=0):
no kernel needed. The real run is in tests/lab/targets/qemu_mps2/test_zephyr.py."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from rtlab.errors import ConfigError
from rtlab.lab.workloads.base import KINDS
from rtlab.lab.workloads.latency_measure import slug, to_protocol
from rtlab.protocol import Run, Series, parse
from rtlab.studies.latency_measure import PAIRS, cross_check, markdown, same_setup


def _line(what: str, cycles: str, ns: str, notes: str = "") -> str:
    """One result line as latency_measure prints it (FORMAT_STR "%-52s:%s , %s : %s")."""
    return f"{what:<52}:{cycles} , {ns} : {notes}"


CAPTURED = "\n".join(
    [
        "*** Booting Zephyr OS build  ***",
        "START - Time Measurement",
        "Timing results: Clock frequency: 25 MHz",
        _line("Average thread context switch using yield", "       3 cycles", "     157 ns"),
        _line("Switch from ISR back to interrupted thread", "       5 cycles", "     200 ns"),
        _line("Time from ISR to executing a different thread", "       6 cycles", "     240 ns"),
        _line("Average semaphore signal time", "       1 cycles", "      52 ns"),
        _line("Average semaphore test time", "       0 cycles", "      31 ns"),
        _line("Semaphore take time (context switch)", "       7 cycles", "     280 ns"),
        _line("Semaphore give time (context switch)", "       7 cycles", "     280 ns"),
        _line("Average time to lock a mutex", "       1 cycles", "      42 ns",
              "Error: Tick Occurred"),
        _line("Average time for heap free", "         FAILED", "         FAILED"),
        "=" * 67,
        "PROJECT EXECUTION SUCCESSFUL",
        "",
    ]
)  # fmt: skip


def test_text_becomes_one_complete_run() -> None:
    (run,) = parse(to_protocol(CAPTURED))
    assert run.complete and run.status == "ok" and run.workload == "latency_measure"
    assert run.meta["timing_clock_hz"] == "25000000"
    assert run.counters["average_semaphore_signal_time.ns"] == (52, "ns")
    assert run.counters["semaphore_give_time_context_switch.cycles"] == (7, "cycles")
    codes = {c for c, _ in run.warnings}
    assert codes == {"average_time_to_lock_a_mutex_note", "average_time_for_heap_free_failed"}
    assert "average_time_for_heap_free.ns" not in run.counters


def test_failed_or_unfinished_benchmark_is_an_error() -> None:
    (failed,) = parse(to_protocol(CAPTURED.replace("SUCCESSFUL", "FAILED")))
    assert failed.status == "error" and "FAILED" in (failed.message or "")
    (cut,) = parse(to_protocol(CAPTURED.split("Average time")[0]))
    assert cut.status == "error" and "did not finish" in (cut.message or "")
    assert to_protocol("qemu: could not load kernel\n") == ""


def test_kind_is_registered_and_takes_no_options() -> None:
    kind = KINDS["latency_measure"]
    assert kind.program == "zephyr-latency-measure" and kind.argv("x.elf", {}) == ["x.elf"]
    with pytest.raises(ConfigError, match="no parameter 'iterations'"):
        kind.check({"iterations": 5})
    assert slug("Semaphore take time (context switch)") == "semaphore_take_time_context_switch"


def _rtbench(scenario: str, **series: list[int]) -> Run:
    run = Run(workload="rtbench", version="0.1.0", status="ok", complete=True)
    run.meta["scenario"] = scenario
    tick = Fraction(1, 25_000_000)  # TIMER0: 40 ns
    for name, values in series.items():
        run.series[name] = Series(name, "ticks", tick, {}, np.asarray(values, np.int64))
    return run


def test_cross_check_pairs_every_line_with_its_series() -> None:
    (lm,) = parse(to_protocol(CAPTURED))
    rb = [
        _rtbench("primitives", sem_give=[1, 1, 2], sem_take=[1], preempt_sem=[6, 6],
                 return_sem=[5]),
        _rtbench("irq", isr_task=[8, 9]),
    ]  # fmt: skip
    rows = {r.lm_metric: r for r in cross_check(lm, rb)}
    assert len(rows) == len(PAIRS) == 5
    give = rows["average_semaphore_signal_time"]
    assert give.lm_ns == 52 and give.rtbench_n == 3
    assert give.rtbench_mean_ns == pytest.approx(160 / 3) and give.rtbench_median_ns == 40
    assert rows["time_from_isr_to_executing_a_different_thread"].ratio == pytest.approx(340 / 240)
    assert all(r.difference for r in rows.values())
    assert "irq_offload" in rows["time_from_isr_to_executing_a_different_thread"].difference
    alone = cross_check(lm, [])
    assert all(r.rtbench_mean_ns is None and r.ratio is None for r in alone)
    table = markdown(list(rows.values()), "zephyr 3.4.99 (lean)").splitlines()
    assert table[0] == "### zephyr 3.4.99 (lean)" and len(table) == 4 + len(PAIRS)
    assert (
        "| semaphore give, no waiter | 52 | `primitives/sem_give` | 53.3 | 40.0 | 1.03 |"
        in table[4]
    )
    assert " – " in markdown(alone)


def test_same_setup_needs_the_same_kernel_configuration_and_machine() -> None:
    a = {"rtos": "zephyr", "rtos_version": "3.4.99", "rtos_config": "lean",
         "machine": "mps2-an385", "timebase": "icount", "icount_shift": 0}  # fmt: skip
    assert same_setup(a, dict(a))
    assert not same_setup(a, {**a, "rtos_config": "default"})
