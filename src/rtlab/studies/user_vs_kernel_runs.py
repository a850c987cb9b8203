"""What the user-vs-kernel study's modules share: which stored runs belong to the study,
each run's kernel, and how a figure is written (rtlab.studies.user_vs_kernel)."""

from __future__ import annotations

import math
from typing import Any

from rtlab.results import query as results

KERNEL_WORKLOAD = "rtlab-hrtimer"
USER_WORKLOAD = "rtlab-latency"
TIMERLAT_WORKLOAD = "rtlab-timerlat"  # the kernel's own tracer: the cross-check


def kernel_of(run: dict[str, Any]) -> tuple[str, str]:
    meta = run.get("meta") or {}
    rt = "PREEMPT_RT" in meta.get("kernel_version", "") or meta.get("preempt_rt") == "1"
    return ("PREEMPT_RT" if rt else "stock"), meta.get("kernel", "?")


def in_study(cells: dict[str, results.CellRuns]) -> list[results.CellRuns]:
    """The cells of specs that have a kernel-side (rtlab-hrtimer) cell."""
    specs = {cr.spec for cr in cells.values() if cr.workload == KERNEL_WORKLOAD}
    return [cr for cr in cells.values() if cr.spec in specs and cr.ok_ids]


def fmt(v: float | None, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    return f"{v:.{digits}g}" if abs(v) < 10**digits else f"{v:.0f}"
