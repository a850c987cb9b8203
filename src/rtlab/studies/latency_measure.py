"""The cross-check of rtbench's Zephyr figures against Zephyr's own benchmark,
tests/benchmarks/latency_measure, run on the same QEMU machine in the same Kconfig
configuration (workload kind `latency_measure`).

    rows = cross_check(lm_run, rtbench_runs)   # one row per pair below

Each pair sets one latency_measure line beside the rtbench series that measures the
nearest thing, both in nanoseconds of the run's clock (under QEMU -icount shift=0: one
instruction = 1 ns), and states how the two definitions differ, so a gap between them
reads as a difference of definition or as a finding. Input: protocol Runs (stored runs
of both kinds), never files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rtlab.analysis.stats import median
from rtlab.protocol import Run


@dataclass(frozen=True)
class Pair:
    label: str
    lm: str  # latency_measure counter (slug of its line) in ns
    scenario: str  # rtbench scenario
    series: str  # rtbench series
    difference: str  # how the two definitions differ


_AVG = (
    "latency_measure times 1000 back-to-back calls between two timestamps and prints "
    "the average (its loop's compare and branch included, warm caches, no per-call "
    "timestamp); rtbench times each call between two timestamps and subtracts their "
    "measured back-to-back cost (the call into the port's function and its return stay in)"
)
# Build settings whose difference between the two builds moves a pair, and how.
_CONFIG_CAUSES = {
    "CONFIG_SPIN_VALIDATE": "each k_spin_lock and k_spin_unlock of the call checks and "
    "records its owner (selected by CONFIG_ASSERT=y, even under FORCE_NO_ASSERT)",
    "CONFIG_ASSERT": "__ASSERT checks in the kernel calls",
    "optimization": "the compiler's optimization level",
    "CONFIG_TIMESLICING": "the time-slice bookkeeping of every context switch",
    "CONFIG_SYS_CLOCK_TICKS_PER_SEC": "tick interrupts during a measurement",
}
PAIRS: tuple[Pair, ...] = (
    Pair(
        "semaphore give, no waiter",
        "average_semaphore_signal_time",
        "primitives",
        "sem_give",
        _AVG + ". Both give a semaphore nobody waits on (latency_measure's counts up "
        "to 1000, rtbench's binary one is taken back between gives).",
    ),
    Pair(
        "semaphore take, available",
        "average_semaphore_test_time",
        "primitives",
        "sem_take",
        _AVG + ". Both take an available semaphore without blocking.",
    ),
    Pair(
        "give with context switch",
        "semaphore_give_time_context_switch",
        "primitives",
        "preempt_sem",
        "Both: from just before k_sem_give in a lower thread to the first timestamp of "
        "the higher thread it wakes. latency_measure takes ONE sample (resolution one "
        "40 ns timer tick, SysTick-based k_cycle_get_32) right after creating that "
        "thread; rtbench takes every iteration's sample (TIMER0 at the same 25 MHz) and "
        "reports their distribution.",
    ),
    Pair(
        "take with context switch (back)",
        "semaphore_take_time_context_switch",
        "primitives",
        "return_sem",
        "Both: from the higher thread's last timestamp before it blocks in k_sem_take to "
        "the lower thread running again. One sample in latency_measure, every iteration "
        "in rtbench.",
    ),
    Pair(
        "ISR → thread",
        "time_from_isr_to_executing_a_different_thread",
        "irq",
        "isr_task",
        "latency_measure enters the ISR through irq_offload (an SVC exception), submits "
        "a k_work item, timestamps at the END of the ISR and stops at the first "
        "instruction of the system workqueue thread (one sample). rtbench pends an NVIC "
        "line, timestamps just BEFORE the trigger, the handler sends to a queue and the "
        "clock stops at the first instruction of the actor thread: it also counts "
        "exception entry and the handler's own work (every iteration).",
    ),
)


@dataclass(frozen=True)
class CrossRow:
    label: str
    lm_metric: str
    lm_ns: int | None  # None: that line missing or FAILED
    series: str
    rtbench_mean_ns: float | None
    rtbench_median_ns: float | None
    rtbench_n: int
    difference: str

    @property
    def ratio(self) -> float | None:
        """rtbench mean / latency_measure, or None when either is missing or zero."""
        if self.lm_ns and self.rtbench_mean_ns is not None:
            return self.rtbench_mean_ns / self.lm_ns
        return None


def lm_nanoseconds(run: Run) -> dict[str, int]:
    """{line slug: ns} of one latency_measure run (its `<slug>.ns` counters)."""
    return {
        name.removesuffix(".ns"): value
        for name, (value, unit) in run.counters.items()
        if name.endswith(".ns") and unit == "ns"
    }


def _series_ns(runs: Sequence[Run], scenario: str, series: str) -> np.ndarray | None:
    for r in runs:
        if r.meta.get("scenario") == scenario and series in r.series:
            s = r.series[series]
            if s.tick_s is None or len(s.values) == 0:
                return None
            return s.values.astype(np.float64) * float(s.tick_s) * 1e9
    return None


def config_difference(
    kconfig_rtbench: Mapping[str, str], kconfig_lm: Mapping[str, str]
) -> str:
    """The settings of _CONFIG_CAUSES the two builds set differently, each with what it
    changes in the measured path ("" when none differ or a build's is unknown)."""
    if not kconfig_rtbench or not kconfig_lm:
        return ""
    parts = [
        f"{key} is {kconfig_lm.get(key, '?')} in latency_measure, "
        f"{kconfig_rtbench.get(key, '?')} in rtbench: {why}"
        for key, why in _CONFIG_CAUSES.items()
        if kconfig_rtbench.get(key) != kconfig_lm.get(key)
    ]
    return ("Builds differ: " + "; ".join(parts) + ".") if parts else ""


def cross_check(
    lm_run: Run,
    rtbench_runs: Sequence[Run],
    pairs: Sequence[Pair] = PAIRS,
    kconfig_rtbench: Mapping[str, str] | None = None,
    kconfig_lm: Mapping[str, str] | None = None,
) -> list[CrossRow]:
    """One row per pair: latency_measure's figure, rtbench's mean and median, the
    definition difference (and the build settings that differ, given both builds'
    Kconfig that matters)."""
    lm = lm_nanoseconds(lm_run)
    builds = config_difference(kconfig_rtbench or {}, kconfig_lm or {})
    rows = []
    for p in pairs:
        ns = _series_ns(rtbench_runs, p.scenario, p.series)
        rows.append(
            CrossRow(
                label=p.label,
                lm_metric=p.lm,
                lm_ns=lm.get(p.lm),
                series=f"{p.scenario}/{p.series}",
                rtbench_mean_ns=float(ns.mean()) if ns is not None else None,
                rtbench_median_ns=median(ns) if ns is not None else None,
                rtbench_n=int(ns.size) if ns is not None else 0,
                difference=f"{p.difference} {builds}".strip(),
            )
        )
    return rows


def same_setup(a: Mapping[str, object], b: Mapping[str, object]) -> bool:
    """Two runs' target descriptions name the same RTOS, version, configuration, machine
    and time base: only then is a cross-check row a like-for-like comparison."""
    keys = ("rtos", "rtos_version", "rtos_config", "machine", "timebase", "icount_shift")
    return all(a.get(k) == b.get(k) for k in keys)


def markdown(rows: Sequence[CrossRow], title: str = "") -> str:
    """The cross-check as a Markdown table (docs/results pages), the difference in full."""
    out = [f"### {title}", ""] if title else []
    out += [
        "| pair | latency_measure ns | rtbench series | rtbench mean ns | rtbench median ns "
        "| rtbench / latency_measure | definition difference |",
        "| --- | ---: | --- | ---: | ---: | ---: | --- |",
    ]

    def num(x: float | None, fmt: str) -> str:
        return format(x, fmt) if x is not None else "–"

    for r in rows:
        out.append(
            f"| {r.label} | {num(r.lm_ns, 'd')} | `{r.series}` | {num(r.rtbench_mean_ns, '.1f')} "
            f"| {num(r.rtbench_median_ns, '.1f')} | {num(r.ratio, '.2f')} | {r.difference} |"
        )
    return "\n".join(out) + "\n"
