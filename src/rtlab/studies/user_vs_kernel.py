"""The user-space vs kernel-space study (docs/user-vs-kernel.md): what period a
user-space loop (`usleep`; `clock_nanosleep` under SCHED_FIFO) and a kernel hrtimer
(rtlab-hrtimer) hold, on a stock and a PREEMPT_RT kernel, idle and under load.

Input: the stored runs of specs that measure the kernel side (any spec with an
rtlab-hrtimer run; its rtlab-latency runs are the user-space side). Output: one row per
(method, kernel, condition, programmed period) with the actual period's mean, p99,
p99.9 and max, its RMS jitter and the overruns, and the minimum stable period per
(method, kernel, condition): the shortest programmed period down to which every
period measured has its p99.9 actual period within `tolerance_pct` of it and no
overrun (docs/metrics.md).

The actual period: the module's `period` series (callback to callback) for the hrtimer;
for rtlab-latency it is derived from the wake-up latency L: with an absolute deadline
(clock_nanosleep) P_i = T + L_i − L_{i−1}; with a relative sleep (usleep) the next
deadline starts after the wake-up, so P_i = T + L_i plus the loop's own few
instructions (a lower bound, by that much).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from rtlab.analysis.pool import pool
from rtlab.analysis.stats import compute_stats
from rtlab.model import Samples
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import memo
from rtlab.studies.user_vs_kernel_checks import (
    CROSSCHECK_TITLE,
    TRACECHECK_TITLE,
    CrossCheck,
    Quantiles,
    TraceCheck,
    crosscheck,
    crosscheck_table,
    quantiles_text,
    tracecheck,
    tracecheck_table,
)
from rtlab.studies.user_vs_kernel_runs import (
    KERNEL_WORKLOAD,
    USER_WORKLOAD,
    fmt,
    in_study,
    kernel_of,
)

__all__ = ["CrossCheck", "Quantiles", "TraceCheck", "fmt", "kernel_of", "quantiles_text"]

DEFAULT_TOLERANCE_PCT = 10.0
NS = Fraction(1, 10**9)


@dataclass(frozen=True)
class Row:
    method: str  # "user usleep", "user clock_nanosleep FIFO", "kernel hrtimer (hard)"
    kernel: str  # "stock" or "PREEMPT_RT"
    kernel_release: str
    condition: str
    period_us: float  # programmed
    runs: int
    n: int
    mean_us: float
    p99_us: float
    p999_us: float
    max_us: float
    rms_jitter_us: float  # RMS of actual − mean actual
    latency_max_us: float
    overruns: int
    emulated: str  # "" or e.g. "qemu-tcg, icount shift 1 (≈ 500 MIPS model)"

    def stable(self, tolerance_pct: float) -> bool:
        return self.overruns == 0 and self.p999_us <= self.period_us * (1 + tolerance_pct / 100)


@dataclass(frozen=True)
class MinStable:
    method: str
    kernel: str
    condition: str
    period_us: float | None  # None: no programmed period was stable
    tried_us: tuple[float, ...]


@dataclass
class Study:
    rows: list[Row]
    minimum: list[MinStable]
    tolerance_pct: float
    emulated: list[str]
    kernels: dict[str, str]  # "stock"/"PREEMPT_RT" -> release
    crosscheck: list[CrossCheck] = field(default_factory=list)
    tracecheck: list[TraceCheck] = field(default_factory=list)


def method_of(run: dict[str, Any]) -> str | None:
    meta = run.get("meta") or {}
    if run.get("workload") == KERNEL_WORKLOAD:
        return f"kernel {meta.get('method', 'hrtimer_hard').replace('_', ' (')})"
    if run.get("workload") == USER_WORKLOAD and meta.get("mode", "cyclic") == "cyclic":
        m = meta.get("method", "")
        if m == "usleep":
            return "user usleep"
        if m == "clock_nanosleep":
            pol = meta.get("policy", "other")
            return f"user clock_nanosleep {pol.upper() if pol != 'other' else 'OTHER'}"
    return None


HOST_TIME = ", plain TCG (host time)"  # an emulated run timed by the host's clock


def environment(run: dict[str, Any]) -> str:
    meta = run.get("meta") or {}
    if not meta.get("emulated"):
        return ""
    env = str(meta["emulated"])
    if meta.get("qemu_icount_shift"):
        env += f", icount shift {meta['qemu_icount_shift']} (≈ {meta.get('model_mips')} MIPS model)"
    else:
        env += HOST_TIME
    return env


def actual_periods_ns(store: Store, run: dict[str, Any]) -> Samples:
    """One run's actual periods, in ns (the module's and rtlab-latency's series tick)."""
    rid = run["run_id"]
    t = int((run.get("meta") or {}).get("interval_ns", 0))
    if run["workload"] == KERNEL_WORKLOAD:
        return Samples(store.samples(rid, "period"), NS, name="period")
    lat = np.asarray(store.samples(rid, "latency"), dtype=np.int64)
    if (run.get("meta") or {}).get("method") == "usleep":
        return Samples(t + lat, NS, name="period")
    return Samples(t + np.diff(lat), NS, name="period")


def _counter(store: Store, rid: str, name: str) -> int:
    got = store.sql("SELECT sum(value) FROM counters WHERE name = ? AND run_id = ?", [name, rid])
    return int(got[0][0] or 0) if got else 0


@memo.per_report
def study(
    store: Store,
    cells: dict[str, results.CellRuns],
    tolerance_pct: float = DEFAULT_TOLERANCE_PCT,
) -> Study | None:
    groups: dict[tuple[str, str, str, float], list[dict[str, Any]]] = {}
    for cr in in_study(cells):
        for run in cr.runs:
            method = method_of(run)
            if run["status"] != "ok" or method is None:
                continue
            t_us = int((run.get("meta") or {}).get("interval_ns", 0)) / 1000
            groups.setdefault((method, kernel_of(run)[0], cr.condition, t_us), []).append(run)
    if not groups:
        return None
    rows = []
    for (method, kernel, cond, t_us), runs in sorted(groups.items()):
        per = pool([actual_periods_ns(store, r) for r in runs])
        if per is None or not len(per):
            continue
        st = compute_stats(per, (0.99, 0.999))
        lat_max = max(
            (float(np.max(store.samples(r["run_id"], "latency"))) for r in runs), default=0.0
        )
        rows.append(
            Row(
                method,
                kernel,
                kernel_of(runs[0])[1],
                cond,
                t_us,
                len(runs),
                st.n,
                st.mean / 1000,
                st.quantiles[0.99] / 1000,
                st.quantiles[0.999] / 1000,
                st.max / 1000,
                st.rms / 1000,
                lat_max / 1000,
                sum(_counter(store, r["run_id"], "overruns") for r in runs),
                environment(runs[0]),
            )
        )
    kernels = {r.kernel: r.kernel_release for r in rows}
    return Study(
        rows,
        minimum_stable(rows, tolerance_pct),
        tolerance_pct,
        sorted({r.emulated for r in rows if r.emulated}),
        kernels,
        crosscheck(store, cells),
        tracecheck(store, cells),
    )


def minimum_stable(rows: Sequence[Row], tolerance_pct: float) -> list[MinStable]:
    by: dict[tuple[str, str, str], list[Row]] = {}
    for r in rows:
        by.setdefault((r.method, r.kernel, r.condition), []).append(r)
    out = []
    for (method, kernel, cond), rs in sorted(by.items()):
        # from the longest period down, as long as each one is stable: a short period
        # that happens to pass below a longer one that failed does not count
        best = None
        for r in sorted(rs, key=lambda r: r.period_us, reverse=True):
            if not r.stable(tolerance_pct):
                break
            best = r.period_us
        tried = tuple(sorted({r.period_us for r in rs}, reverse=True))
        out.append(MinStable(method, kernel, cond, best, tried))
    return out


def to_dict(st: Study) -> dict[str, Any]:
    return {
        "tolerance_pct": st.tolerance_pct,
        "emulated": st.emulated,
        "kernels": st.kernels,
        "rows": [asdict(r) for r in st.rows],
        "minimum_stable": [asdict(m) for m in st.minimum],
        "timerlat_crosscheck": [asdict(c) for c in st.crosscheck],
        "trace_crosscheck": [asdict(c) for c in st.tracecheck],
    }


def markdown(st: Study) -> str:
    lines = ["## User space vs kernel space", ""]
    if st.emulated:
        lines += [
            f"**Emulated** ({'; '.join(st.emulated)}): QEMU TCG timing is not silicon "
            "timing; compare methods and kernels with each other, never with a board.",
            "",
        ]
    lines += [
        "Kernels: " + ", ".join(f"{k} = `{v}`" for k, v in st.kernels.items()),
        "",
        f"Minimum stable period (p99.9 of the actual period within {st.tolerance_pct:g} % "
        "of the programmed one and no overrun, at it and every longer period; "
        "docs/metrics.md):",
        "",
        "| method | kernel | condition | min stable µs | periods tried µs |",
        "| --- | --- | --- | ---: | --- |",
    ]
    for m in st.minimum:
        tried = ", ".join(fmt(t) for t in m.tried_us)
        best = fmt(m.period_us) if m.period_us is not None else "none stable"
        lines.append(f"| {m.method} | {m.kernel} | {m.condition} | {best} | {tried} |")
    lines += [
        "",
        "| method | kernel | condition | programmed µs | mean µs | p99 µs | p99.9 µs | max µs "
        "| RMS jitter µs | max latency µs | overruns | n |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in st.rows:
        lines.append(
            f"| {r.method} | {r.kernel} | {r.condition} | {fmt(r.period_us)} | {fmt(r.mean_us, 4)} "
            f"| {fmt(r.p99_us, 4)} | {fmt(r.p999_us, 4)} | {fmt(r.max_us, 4)} "
            f"| {fmt(r.rms_jitter_us)} | {fmt(r.latency_max_us)} | {r.overruns} | {r.n} |"
        )
    if st.crosscheck:
        lines += ["", CROSSCHECK_TITLE + ":", "", *crosscheck_table(st.crosscheck)]
    if st.tracecheck:
        lines += ["", TRACECHECK_TITLE + ":", "", *tracecheck_table(st.tracecheck)]
    return "\n".join(lines) + "\n"


def findings(st: Study) -> list[str]:
    out = []
    env = " (emulated)" if st.emulated else ""
    for m in st.minimum:
        best = f"{fmt(m.period_us)} µs" if m.period_us is not None else "none of the periods tried"
        out.append(
            f"{m.method}, {m.kernel}, {m.condition}{env}: minimum stable period {best} "
            f"(p99.9 within {st.tolerance_pct:g} %, no overrun)."
        )
    return out
