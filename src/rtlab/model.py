"""The few types everything in rtlab shares: Capture, Channel, Samples.

Samples and the tick helpers live in rtlab.ticks (exact tick lengths, int64 ticks),
and a channel's durations in rtlab.intervals; rtlab.analysis builds on them. Nothing
here computes a statistic: `rtlab.stats(samples)` and `rtlab.tie(cap, channel)` are
rtlab.analysis'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from rtlab import intervals as iv

# Re-exported: the library API (README.md, "The library") names them rtlab.model.
from rtlab.ticks import (
    UNKNOWN_LEVEL,
    Edge,
    Samples,
    as_int64,
    format_tick,
    one_value_per_time,
    parse_duration,
)

__all__ = [
    "UNKNOWN_LEVEL",
    "Capture",
    "Channel",
    "Edge",
    "Samples",
    "as_int64",
    "format_tick",
    "parse_duration",
]


@dataclass
class Channel:
    """One digital signal: sorted edge times in ticks and the level before the first.

    `gap_levels[k]` is this channel's level when the capture's gap k ends (the level
    the instrument saw on resuming), or UNKNOWN_LEVEL.
    """

    name: str
    edges: np.ndarray
    initial_level: int = 0
    gap_levels: np.ndarray | None = None
    capture: Capture | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.edges = as_int64(self.edges)
        if self.initial_level not in (0, 1, UNKNOWN_LEVEL):
            raise ValueError(f"channel {self.name}: initial level must be 0 or 1")

    def __len__(self) -> int:
        return int(self.edges.size)

    def _cap(self) -> Capture:
        if self.capture is None:
            raise ValueError(f"channel {self.name} is not part of a capture")
        return self.capture

    # The durations live in rtlab.intervals; these are the notebook API (intervals.py
    # takes any object with these fields, so it needs no import of this module).
    def periods(self, edge: Edge = "rising") -> Samples:
        return iv.periods(self._cap(), self, edge)

    def widths(self, level: Literal["high", "low"] = "high") -> Samples:
        return iv.widths(self._cap(), self, level)

    def intervals(self) -> Samples:
        return iv.intervals(self._cap(), self)

    def c2c(self, edge: Edge = "rising") -> Samples:
        return iv.cycle_to_cycle(self._cap(), self, edge)

    def edge_times(self, edge: Edge = "rising") -> np.ndarray:
        return iv.select_edges(self._cap(), self, edge)


@dataclass
class Capture:
    """Channels of edges sharing one time base, with the gaps where data was lost.

    `gaps` is an (k, 2) int64 array of [start, end) tick ranges with no data; gaps are
    sorted and disjoint and no edge lies inside one. `t_start`/`t_end` bound the
    observed window (ticks), so partial levels at the ends are not taken as widths.
    """

    tick_s: Fraction
    channels: dict[str, Channel] = field(default_factory=dict)
    gaps: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    t_start: int | None = None
    t_end: int | None = None
    resolution_s: Fraction | None = None  # the instrument's resolution, if not one tick
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.tick_s = Fraction(self.tick_s)
        if self.tick_s <= 0:
            raise ValueError("tick length must be positive")
        self.gaps = as_int64(self.gaps).reshape(-1, 2)
        for ch in self.channels.values():
            ch.capture = self

    # -- construction -------------------------------------------------------------
    def add(self, channel: Channel) -> Channel:
        if channel.name in self.channels:
            raise ValueError(f"duplicate channel name {channel.name!r}")
        channel.capture = self
        self.channels[channel.name] = channel
        return channel

    def with_edges(self, edges: Callable[[Channel], np.ndarray]) -> Capture:
        """A copy (tick, gaps, window, resolution, a copy of the metadata) whose every
        channel keeps its levels and holds the edges `edges(channel)` gives."""
        out = replace(self, channels={}, metadata=dict(self.metadata))
        for ch in self:
            out.add(Channel(ch.name, edges(ch), ch.initial_level, ch.gap_levels))
        return out

    # -- access ---------------------------------------------------------------------
    def __getitem__(self, name: str) -> Channel:
        if name in self.channels:
            return self.channels[name]
        # Readers may give short names for hierarchical ones (VCD: "clk" for "tb.clk").
        alias = (self.metadata.get("aliases") or {}).get(name)
        if isinstance(alias, str) and alias in self.channels:
            return self.channels[alias]
        same = [n for n in self.channels if n.rsplit(".", 1)[-1] == name]
        if len(same) > 1:
            raise KeyError(
                f"channel {name!r} is ambiguous: the short name of {', '.join(same)}; "
                f"give a full name, e.g. -c {same[0]}"
            )
        known = ", ".join(self.channels) or "none"
        raise KeyError(f"no channel {name!r} in capture (channels: {known})")

    def __iter__(self) -> Iterator[Channel]:
        return iter(self.channels.values())

    def __len__(self) -> int:
        return len(self.channels)

    @property
    def tick_ns(self) -> float:
        return float(self.tick_s * 10**9)

    @property
    def resolution(self) -> Fraction:
        return self.resolution_s if self.resolution_s is not None else self.tick_s

    @property
    def n_edges(self) -> int:
        return sum(len(ch) for ch in self)

    def window(self) -> tuple[int, int]:
        """The observed window in ticks: explicit bounds, else first/last edge."""
        firsts = [int(ch.edges[0]) for ch in self if len(ch)]
        lasts = [int(ch.edges[-1]) for ch in self if len(ch)]
        lo = self.t_start if self.t_start is not None else (min(firsts) if firsts else 0)
        hi = self.t_end if self.t_end is not None else (max(lasts) if lasts else lo)
        return lo, hi

    def validate(self) -> None:
        """Raise ValueError when the invariants readers promise do not hold: gaps sorted
        and disjoint, each channel's edge times strictly increasing (one value per time
        step: docs/formats.md), all times within 2^63 - 1 ticks of each other."""
        g = self.gaps
        if g.size:
            if np.any(g[:, 1] < g[:, 0]):
                raise ValueError("a gap ends before it starts")
            if np.any(g[1:, 0] < g[:-1, 1]):
                raise ValueError("gaps overlap or are not sorted")
        for ch in self:
            e = ch.edges
            if e.size > 1 and np.any(e[1:] <= e[:-1]):
                what = "two edges at one time" if np.all(e[1:] >= e[:-1]) else "not sorted"
                raise ValueError(f"channel {ch.name}: edge times are {what}")
            if ch.gap_levels is not None and len(ch.gap_levels) != len(g):
                raise ValueError(f"channel {ch.name}: one gap level per gap expected")
        times = [t for t in (self.t_start, self.t_end) if t is not None]
        times += [int(x) for ch in self if len(ch) for x in (ch.edges[0], ch.edges[-1])]
        times += [int(g.min()), int(g.max())] if g.size else []
        if times and (max(times) - min(times) >= 2**63 or max(map(abs, times)) >= 2**63):
            raise ValueError("times more than 2^63 - 1 ticks apart do not fit in 64 bits")

    def describe(self) -> Mapping[str, Any]:
        lo, hi = self.window()
        return {
            "tick_ns": self.tick_ns,
            "channels": {ch.name: len(ch) for ch in self},
            "gaps": len(self.gaps),
            "window_ticks": [lo, hi],
        }


@dataclass
class EdgeStream:
    """A capture read chunk by chunk: what a streaming reader gives instead of a Capture.

    `header` is the capture without its edges (tick, gaps, window, metadata; channels
    with their levels and empty edge arrays); `edge_counts` the number of edges of every
    channel of the file; `chunks` yields (channel name, sorted int64 edge times) in
    time order within each channel, a channel's chunks consecutive or interleaved with
    other channels'. An array yielded may be reused once the next one is asked for.
    A reader that finds a problem mid-file raises its FormatError from the iterator.
    """

    header: Capture
    edge_counts: dict[str, int]
    chunks: Iterator[tuple[str, np.ndarray]]

    @property
    def total_edges(self) -> int:
        return sum(self.edge_counts.values())

    def gather(self, fresh: bool = False) -> Capture:
        """The whole capture: every chunk read and joined into the header's channels;
        the header's window and metadata as the reader leaves them once its stream is
        read. Each chunk is copied (an array may be reused) unless `fresh`: a reader
        whose every chunk is a new array of its own gathers without the copy."""
        parts: dict[str, list[np.ndarray]] = {n: [] for n in self.header.channels}
        for name, edges in self.chunks:
            parts[name].append(edges if fresh else np.array(edges, dtype=np.int64))
        for ch in self.header:
            if parts[ch.name]:
                ch.edges = np.concatenate(parts[ch.name])
        return self.header

    @classmethod
    def from_capture(cls, cap: Capture, chunk: int = 1 << 22) -> EdgeStream:
        """A loaded capture as a stream of chunks of at most `chunk` edges."""
        if chunk < 1:
            raise ValueError("chunk must be at least 1 edge")
        header = cap.with_edges(lambda ch: ch.edges[:0])

        def chunks() -> Iterator[tuple[str, np.ndarray]]:
            for ch in cap:
                for lo in range(0, len(ch), chunk):
                    yield ch.name, ch.edges[lo : lo + chunk]

        return cls(header, {ch.name: len(ch) for ch in cap}, chunks())


def one_value_per_time_stream(
    chunks: Iterator[tuple[str, np.ndarray, bool]],
) -> Iterator[tuple[str, np.ndarray]]:
    """one_value_per_time across chunk boundaries, for a stream whose channels come one
    after another: (name, sorted edges, may this chunk hold two equal times?) in, the
    chunks with one value per time step out. Each chunk's last run of equal times is
    held back until the next chunk (or channel) shows where it ends."""
    run: list[Any] = []  # [name, time, how many edges at that time]
    for name, e, dup in chunks:
        if run and run[0] != name:
            if run[2] % 2:
                yield run[0], np.array([run[1]], dtype=np.int64)
            run = []
        if e.size == 0:
            continue
        if run:
            if e[0] == run[1]:
                m = int(np.searchsorted(e, run[1], side="right"))
                run[2] += m
                e = e[m:]
                if e.size == 0:
                    continue
            if run[2] % 2:
                yield name, np.array([run[1]], dtype=np.int64)
        j = int(np.searchsorted(e, e[-1], side="left"))
        run = [name, int(e[-1]), int(e.size - j)]
        body = e[:j]
        if dup and body.size:
            body = one_value_per_time(body)[0]
        if body.size:
            yield name, body
    if run and run[2] % 2:
        yield run[0], np.array([run[1]], dtype=np.int64)
