"""External vs internal in cycles, from one QEMU cycles plugin capture (rtlab.lab.qemu_cycles):
the STM32 study's method (a pin set around each call, timed from outside) against the
guest's own timestamps, both on the plugin's cycle count.

rtbench --markers brackets each timed path `t0; pin high; call; pin low; t1`, each end
atomic with its timestamp, and says per series where its samples' edges are (meta
`marker.NAME = A@a+s>B@b+t`, rtlab.studies.instrument_check). The plugin writes every
marker store (an edge) and every load of the guest's counter register (a read) in
execution order, so for sample i:

- external (the figure of record): falling edge - rising edge, in cycles;
- internal: the first counter read after the falling edge - the last one before the
  rising edge, in cycles (the guest's counter itself counts QEMU's icount clock; the
  plugin cannot write it, so the reads are timed instead).

They agree when every sample's internal - external lies within [0, the bracket's own
cost]: the empty bracket's internal figure (series marker_cost, its largest warm sample;
its cold sample for the cold one).

    rows = compare(runs, cycles)      # one Row per marked series
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from rtlab.analysis.stats import median
from rtlab.lab.qemu_cycles import READ, Cycles
from rtlab.protocol import Run
from rtlab.studies.instrument_check import InstrumentCheckError, Plan


@dataclass(frozen=True)
class Row:
    scenario: str
    series: str
    n: int  # samples (cold first)
    external: float  # median of the warm samples, cycles
    internal: float
    diff_min: int  # internal - external over every sample
    diff_max: int
    bound: int  # the bracket's own cost (warm); the cold sample is held to bound_cold
    bound_cold: int
    outside: int  # samples beyond [0, bound]
    external_cycles: tuple[int, ...] = ()  # every sample, cold first

    @property
    def agrees(self) -> bool:
        return self.outside == 0


class _Stream:
    """The capture's events with, per channel, each edge's position in the stream."""

    def __init__(self, cyc: Cycles) -> None:
        self.cycles = np.array([c for _, c in cyc.order], dtype=np.int64)
        chans = np.array([ch for ch, _ in cyc.order], dtype=np.int64)
        self.pos = {ch: np.flatnonzero(chans == ch) for ch in range(4)}
        self.reads = np.flatnonzero(chans == READ)

    def edges(self, ch: int, idx: np.ndarray, what: str) -> np.ndarray:
        pos = self.pos.get(ch, np.array([], dtype=np.int64))
        if idx.size and int(idx.max()) >= pos.size:
            raise InstrumentCheckError(
                f"{what}: needs edge {int(idx.max())} of channel {ch}, capture has {pos.size}"
            )
        return pos[idx]

    def read_before(self, at: np.ndarray) -> np.ndarray:
        k = np.searchsorted(self.reads, at) - 1
        if (k < 0).any():
            raise InstrumentCheckError("a bracket starts before any counter read")
        return self.cycles[self.reads[k]]

    def read_after(self, at: np.ndarray) -> np.ndarray:
        k = np.searchsorted(self.reads, at)
        if (k >= self.reads.size).any():
            raise InstrumentCheckError("a bracket ends after the last counter read")
        return self.cycles[self.reads[k]]


def _samples(run: Run, name: str) -> int:
    s = run.series.get(name)
    return 0 if s is None else 1 + len(s.values)


def _figures(run: Run, stream: _Stream, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(external, internal) cycles of every sample of series `name`, cold first."""
    plan = Plan.parse(str(run.meta[f"marker.{name}"]), f"marker.{name}")
    i = np.arange(_samples(run, name))
    ia, ib = plan.edges(i)
    up = stream.edges(plan.a_ch, ia, name)
    down = stream.edges(plan.b_ch, ib, name)
    external = stream.cycles[down] - stream.cycles[up]
    internal = stream.read_after(down) - stream.read_before(up)
    return external, internal


def compare(runs: Iterable[Run], cyc: Cycles) -> list[Row]:
    """One row per marked series of every run with markers on (marker_cost itself
    included: its difference is the bracket's cost outside the pulse)."""
    stream = _Stream(cyc)
    rows = []
    for run in runs:
        if run.meta.get("markers") != "on":
            continue
        scen = str(run.meta.get("scenario", run.workload))
        _, cost = _figures(run, stream, "marker_cost")
        bound = int(cost[1:].max()) if cost.size > 1 else int(cost[0])
        bound_cold = int(cost[0])
        for key in run.meta:
            if not key.startswith("marker.") or not _samples(run, key[7:]):
                continue
            name = key[len("marker.") :]
            ext, int_ = _figures(run, stream, name)
            diff = int_ - ext
            limit = np.full(diff.size, bound)
            limit[0] = bound_cold
            warm = slice(1, None) if diff.size > 1 else slice(None)
            outside = int(np.count_nonzero((diff < 0) | (diff > limit)))
            rows.append(
                Row(scen, name, int(diff.size), median(ext[warm].astype(float)),
                    median(int_[warm].astype(float)), int(diff.min()), int(diff.max()),
                    bound, bound_cold, outside, tuple(int(v) for v in ext))
            )  # fmt: skip
    return rows
