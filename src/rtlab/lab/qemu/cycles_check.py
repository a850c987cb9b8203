"""External vs internal in cycles, from one QEMU cycles plugin capture (rtlab.lab.qemu.cycles):
the STM32 study's method (a pin set around each call, timed from outside) against the
guest's own timestamps, both on the plugin's cycle count.

The figures per sample (rtlab.lab.qemu.cycles_figures): external = the marker pulse,
internal = the guest's timestamp reads around it, both in the plugin's cycles.

They agree when every sample's internal - external lies within the bracket's own cost,
either way (a primitive's timestamps lie outside its pulse, so its difference is
positive; an interrupt path's both come before their edges, so it may be negative): the
empty bracket's internal figure (series marker_cost, the median of its warm samples; its
cold sample for the cold one).

    rows = compare(runs, cycles)      # one Row per marked series
    bracket_bound(cost), outside_bracket(diff, cost)   # the same test, for cycles_output
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from rtlab.analysis.stats import median
from rtlab.lab.qemu.cycles import Cycles
from rtlab.lab.qemu.cycles_figures import Stream, figures, marked
from rtlab.protocol import Run


@dataclass(frozen=True)
class Row:
    scenario: str
    series: str
    n: int  # samples (cold first)
    external: float  # median of the warm samples, cycles
    internal: float
    diff_min: int  # internal - external over every sample
    diff_max: int
    bound: int  # the bracket's own cost (warm median); the cold sample is held to bound_cold
    bound_cold: int
    outside: int  # samples beyond [-bound, bound]
    external_cycles: tuple[int, ...] = ()  # every sample, cold first

    @property
    def agrees(self) -> bool:
        return self.outside == 0


def bracket_bound(cost: np.ndarray) -> int:
    """The empty bracket's own cost, warm: the median of its warm samples, not the largest.
    A tick that lands inside one empty bracket lengthens that sample alone, and a bound
    taken from it would let differences as large as the tick handler pass (µC/OS-III on
    the M3: 561 cycles against a bracket of 162). A tick inside a timed sample lengthens
    its internal and its external figure alike, so it never moves the difference."""
    warm = cost[1:] if cost.size > 1 else cost
    return math.ceil(median(warm.astype(float)))


def outside_bracket(diff: np.ndarray, cost: np.ndarray) -> int:
    """Samples whose internal - external lies beyond [-bound, bound] (bracket_bound; the
    cold sample against the cold bracket)."""
    limit = np.full(diff.size, bracket_bound(cost))
    limit[0] = int(cost[0])
    return int(np.count_nonzero(np.abs(diff) > limit))


def compare(runs: Iterable[Run], cyc: Cycles) -> list[Row]:
    """One row per marked series of every run with markers on (marker_cost itself
    included: its difference is the bracket's cost outside the pulse)."""
    stream = Stream(cyc)
    rows = []
    for run in runs:
        if run.meta.get("markers") != "on":
            continue
        scen = str(run.meta.get("scenario", run.workload))
        _, cost = figures(run, stream, "marker_cost")
        bound, bound_cold = bracket_bound(cost), int(cost[0])
        for name in marked(run):
            ext, int_ = figures(run, stream, name)
            diff = int_ - ext
            warm = slice(1, None) if diff.size > 1 else slice(None)
            outside = outside_bracket(diff, cost)
            rows.append(
                Row(scen, name, int(diff.size), median(ext[warm].astype(float)),
                    median(int_[warm].astype(float)), int(diff.min()), int(diff.max()),
                    bound, bound_cold, outside, tuple(int(v) for v in ext))
            )  # fmt: skip
    return rows
