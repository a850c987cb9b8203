"""Every duration of a channel as an event: its start time and its value, streamed.

The histograms of rtlab.analysis.kernel keep how often each value occurs, not when;
a user who sees "max 27,808 ns" wants to jump to it (sigrok's `timing` decoder with
--protocol-decoder-samplenum, Saleae's measurement table). This module walks a
channel's edges chunk by chunk, with the segment rule of kernel.py (nothing spans a
gap, the level resumes from the gap level), and gives for each metric the arrays
(start tick, value in ticks):

- period: from one chosen edge (rising, falling or both) to the next; starts at the first;
- high, low: a level's width; starts at the edge that began the level;
- interval: any two consecutive edges (the high and low widths and the widths of
  unknown level); starts at the first edge;
- c2c: the difference of two consecutive periods; starts at the first period's start.

The values are those the histograms count (tests/analysis/test_events.py checks it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rtlab.analysis.gaps import GapCursor
from rtlab.model import UNKNOWN_LEVEL, Channel, Edge

METRICS = ("period", "high", "low", "interval", "c2c")
_EMPTY = np.zeros(0, dtype=np.int64)

# metric -> (start ticks, values)
Events = dict[str, tuple[np.ndarray, np.ndarray]]


@dataclass
class ChannelEvents:
    """The running state of one channel's event walk (see the module doc)."""

    channel: Channel
    gaps: np.ndarray
    edge: Edge
    level: int = field(init=False)
    prev: int | None = None  # the last edge seen in this segment
    prev_sel: int | None = None  # the last chosen edge (periods)
    prev_period: tuple[int, int] | None = None  # (start, value) of the last period
    _cursor: GapCursor = field(init=False)

    def __post_init__(self) -> None:
        if self.edge not in ("rising", "falling", "both"):
            raise ValueError(f"edge must be rising, falling or both, not {self.edge!r}")
        self.level = self.channel.initial_level
        self._cursor = GapCursor(self.channel, self.gaps)

    def feed(self, edges: np.ndarray) -> Iterator[Events]:
        """The events that end in this chunk of the channel's edges (sorted, after every
        earlier chunk): one dict per piece between gaps."""
        for resume, part in self._cursor.pieces(np.asarray(edges, dtype=np.int64)):
            if resume is not None:  # nothing spans a gap
                self.level = resume
                self.prev = self.prev_sel = None
                self.prev_period = None
            yield self._segment(part)

    def _segment(self, e: np.ndarray) -> Events:
        lvl = self.level
        out: Events = {m: (_EMPTY, _EMPTY) for m in METRICS}
        x = np.concatenate(([self.prev], e)) if self.prev is not None else e
        starts, d = x[:-1], np.diff(x)
        out["interval"] = (starts, d)
        if lvl != UNKNOWN_LEVEL and d.size:
            # the level during x[0]..x[1]: lvl when x[0] is the carried edge, else the
            # level after e[0]
            level0 = lvl if self.prev is not None else lvl ^ 1
            hi0 = 0 if level0 == 1 else 1
            out["high"] = (starts[hi0::2], d[hi0::2])
            out["low"] = (starts[1 - hi0 :: 2], d[1 - hi0 :: 2])
        if self.edge == "both":
            chosen = e
        elif lvl != UNKNOWN_LEVEL:
            want = 0 if self.edge == "rising" else 1  # the level before a chosen edge
            chosen = e[(0 if lvl == want else 1) :: 2]
        else:
            chosen = e[:0]
        if chosen.size:
            t = np.concatenate(([self.prev_sel], chosen)) if self.prev_sel is not None else chosen
            p_start, p = t[:-1], np.diff(t)
            out["period"] = (p_start, p)
            if p.size:
                if self.prev_period is not None:
                    ps = np.concatenate(([self.prev_period[0]], p_start))
                    pv = np.concatenate(([self.prev_period[1]], p))
                else:
                    ps, pv = p_start, p
                out["c2c"] = (ps[:-1], np.diff(pv))
                self.prev_period = (int(p_start[-1]), int(p[-1]))
            self.prev_sel = int(chosen[-1])
        if lvl != UNKNOWN_LEVEL:
            self.level = lvl ^ (e.size & 1)
        self.prev = int(e[-1])
        return out


@dataclass
class Extremes:
    """The n largest and n smallest values of one metric with their start times; ties
    go to the earlier event (as a user scrolling from the start meets them)."""

    n: int
    largest: list[tuple[int, int]] = field(default_factory=list)  # (value, start)
    smallest: list[tuple[int, int]] = field(default_factory=list)

    def add(self, starts: np.ndarray, values: np.ndarray) -> None:
        if values.size == 0 or self.n == 0:
            return
        for side, sign in ((self.largest, -1), (self.smallest, 1)):
            k = min(self.n, values.size)
            # the k best of this chunk by (value, start): a partition, then an exact sort
            key = values * sign
            idx = np.argpartition(key, k - 1)[:k] if k < values.size else np.arange(values.size)
            kth = key[idx].max()
            # the better ones and the earliest k tied with the k-th (starts increase
            # within one piece), so the earliest of equals wins
            idx = np.concatenate((np.flatnonzero(key < kth), np.flatnonzero(key == kth)[:k]))
            cand = [(int(values[i]), int(starts[i])) for i in idx]
            merged = sorted(side + cand, key=lambda vs: (vs[0] * sign, vs[1]))[: self.n]
            side[:] = merged


def new_extremes(n: int) -> dict[str, Extremes]:
    return {m: Extremes(n) for m in METRICS}


def add_events(ext: dict[str, Extremes], events: Events) -> None:
    for metric, (starts, values) in events.items():
        ext[metric].add(starts, values)


def channel_extremes(
    channel: Channel, gaps: np.ndarray, edge: Edge, n: int
) -> dict[str, Extremes]:
    """The extremes of every metric of a loaded channel."""
    ext = new_extremes(n)
    for events in ChannelEvents(channel, gaps, edge).feed(channel.edges):
        add_events(ext, events)
    return ext


def extremes_doc(ext: Extremes, tick_ns: float, samples: bool) -> dict[str, list[dict[str, Any]]]:
    """JSON of one metric's extremes: value and start in ns (and ticks), and the sample
    number of the start when one tick is one sample (sigrok sessions)."""

    def row(value: int, start: int) -> dict[str, float | int]:
        out: dict[str, float | int] = {
            "value_ns": value * tick_ns,
            "at_ns": start * tick_ns,
            "value_ticks": value,
            "at_tick": start,
        }
        if samples:
            out["sample"] = start
        return out

    return {
        "largest": [row(v, s) for v, s in ext.largest],
        "smallest": [row(v, s) for v, s in ext.smallest],
    }
