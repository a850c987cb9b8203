"""The user-vs-kernel study's two cross-checks (docs/user-vs-kernel.md#cross-checks): the
rtlab_hrtimer module's wake-up latency against the kernel's timerlat tracer, and its
period against the GPIO edges QEMU traced on the host (the pl061-trace instrument)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rtlab.analysis.stats import compute_stats
from rtlab.model import Samples
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies.mdtable import md_table
from rtlab.studies.user_vs_kernel_runs import (
    KERNEL_WORKLOAD,
    TIMERLAT_WORKLOAD,
    fmt,
    in_study,
    kernel_of,
)


@dataclass(frozen=True)
class Quantiles:
    p50_us: float
    p99_us: float
    max_us: float
    n: int


@dataclass(frozen=True)
class CrossCheck:
    """The module's hard-irq wake-up latency next to the timerlat tracer's, at one
    (kernel, condition, period); `unsupported` says why there is no tracer figure."""

    kernel: str
    condition: str
    period_us: float
    module: Quantiles | None
    timerlat_irq: Quantiles | None
    timerlat_thread: Quantiles | None
    unsupported: str = ""


@dataclass(frozen=True)
class TraceCheck:
    """The module's mean period next to the mean edge-to-edge time of the GPIO line it
    toggles, as QEMU's pl061-trace instrument saw it on the host (plain TCG only)."""

    kernel: str
    condition: str
    period_us: float
    module_mean_us: float
    trace_mean_us: float
    edges: int


def tracecheck(store: Store, cells: dict[str, results.CellRuns]) -> list[TraceCheck]:
    """Per (kernel, condition, period) of hrtimer runs timed by the pl061-trace
    instrument: both means, pooled over those runs (the pin toggles at every callback,
    so the time between two edges is one callback period)."""
    groups: dict[tuple[str, str, float], list[str]] = {}
    for cr in in_study(cells):
        for run in cr.runs:
            meta = run.get("meta") or {}
            if (
                run["status"] == "ok"
                and run["workload"] == KERNEL_WORKLOAD
                and meta.get("instrument.kind") == "pl061-trace"
            ):
                key = (kernel_of(run)[0], cr.condition, int(meta.get("interval_ns", 0)) / 1000)
                groups.setdefault(key, []).append(run["run_id"])
    out = []
    for key, ids in sorted(groups.items()):
        module, _ = results.pool(store, ids, ["period"])
        levels, _ = results.pool(store, ids, ["instrument.high", "instrument.low"])
        if module is not None and levels is not None and len(module) and len(levels):
            m, lv = compute_stats(module, ()), compute_stats(levels, ())
            out.append(TraceCheck(*key, m.mean / 1000, lv.mean / 1000, len(levels) + 1))
    return out


def _quantiles(s: Samples | None) -> Quantiles | None:
    if s is None or len(s) == 0:
        return None
    st = compute_stats(s, (0.5, 0.99))
    return Quantiles(st.quantiles[0.5] / 1000, st.quantiles[0.99] / 1000, st.max / 1000, st.n)


def crosscheck(store: Store, cells: dict[str, results.CellRuns]) -> list[CrossCheck]:
    """Per (kernel, condition, period) with a timerlat run: the module's hard-irq
    latency and the tracer's IRQ and thread latencies, pooled over the ok runs."""
    module: dict[tuple[str, str, float], list[str]] = {}
    tracer: dict[tuple[str, str, float], list[dict[str, Any]]] = {}
    for cr in in_study(cells):
        for run in cr.runs:
            if run["status"] != "ok":
                continue
            meta = run.get("meta") or {}
            key = (kernel_of(run)[0], cr.condition, int(meta.get("interval_ns", 0)) / 1000)
            if run["workload"] == TIMERLAT_WORKLOAD:
                tracer.setdefault(key, []).append(run)
            elif run["workload"] == KERNEL_WORKLOAD and meta.get("method") == "hrtimer_hard":
                module.setdefault(key, []).append(run["run_id"])

    def pooled(ids: Sequence[str], series: str) -> Samples | None:
        return results.pool(store, ids, [series])[0]

    out = []
    for key, runs in sorted(tracer.items()):
        ids = [r["run_id"] for r in runs]
        warned = store.sql(
            "SELECT msg FROM warnings WHERE code = 'unsupported' AND run_id IN "
            f"({', '.join('?' * len(ids))})",
            ids,
        )
        why = str(warned[0][0]) if warned else ""
        out.append(
            CrossCheck(
                *key,
                _quantiles(pooled(module.get(key, []), "latency")),
                None if why else _quantiles(pooled(ids, "irq_latency")),
                None if why else _quantiles(pooled(ids, "thread_latency")),
                why,
            )
        )
    return out


CROSSCHECK_TITLE = (
    "Cross-check: the module's hard-irq wake-up latency against the kernel's timerlat "
    "tracer at the same period (p50 / p99 / max µs)"
)


TRACECHECK_TITLE = (
    "Cross-check: the module's mean period against the GPIO edges QEMU traced on the host "
    "(pl061-trace instrument, plain TCG)"
)


def tracecheck_table(rows: Sequence[TraceCheck]) -> list[str]:
    head = ("kernel", "condition", "programmed µs", "module mean µs",
            "traced edge-to-edge mean µs", "difference", "edges")  # fmt: skip
    cells = []
    for c in rows:
        diff = 100 * (c.trace_mean_us - c.module_mean_us) / c.module_mean_us
        cells.append((c.kernel, c.condition, fmt(c.period_us), fmt(c.module_mean_us, 5),
                      fmt(c.trace_mean_us, 5), f"{diff:+.2f} %", c.edges))  # fmt: skip
    return md_table(head, cells, text_cols=2)


def quantiles_text(q: Quantiles | None) -> str:
    return "–" if q is None else f"{fmt(q.p50_us)} / {fmt(q.p99_us)} / {fmt(q.max_us)}"


def crosscheck_table(rows: Sequence[CrossCheck]) -> list[str]:
    head = ("kernel", "condition", "programmed µs", "module (hard irq)", "timerlat IRQ",
            "timerlat thread")  # fmt: skip
    cells = []
    for c in rows:
        tracer = (
            (f"unsupported: {c.unsupported}", "–")
            if c.unsupported
            else (quantiles_text(c.timerlat_irq), quantiles_text(c.timerlat_thread))
        )
        cells.append((c.kernel, c.condition, fmt(c.period_us), quantiles_text(c.module), *tracer))
    return md_table(head, cells, text_cols=2)
