"""`--from/--to`: a time window of a capture, as PulseView's cursors or Saleae's markers
set one, streamed and exact at the cut.

A bound is a time from the capture's tick 0 (`1.5ms`, `250us`, `0`), or an edge:
`D2:rising` (the first rising edge on D2), `D2:falling`, `D2:both` (its first edge),
optionally followed by an offset (`D2:rising+10us`, `D2:rising-1ms`); `--to` may also be
`+DURATION`, a length after the start of the window.

The window keeps the edges at times t with from <= t < to (in ticks: a bound between
two ticks is rounded up to the next whole tick, so an edge is kept exactly when its time
lies in [from, to)). Each channel enters the window at the level it had just before
`from` (its initial level, or the gap level, flipped by each edge before), the gaps are
clipped to the window, and the capture's observed window becomes [from, to): widths cut
by a bound are not measured, as at the ends of any capture.

Finding a trigger edge and the levels at `from` reads the stream up to `from` (a
first pass that stops there), then the window is a second, cut stream: memory stays
bounded by one chunk.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from rtlab.errors import RtlabError
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel, EdgeStream
from rtlab.ticks import parse_duration

_EDGE_BOUND = re.compile(r"^(?P<ch>.+):(?P<edge>rising|falling|both)(?P<off>[+-].+)?$")

Opener = Callable[[], EdgeStream]


@dataclass(frozen=True)
class Bound:
    """One side of a window: a time (s), or an edge of a channel, plus an offset (s)."""

    text: str
    seconds: Fraction | None = None
    channel: str | None = None
    edge: str = "rising"
    offset: Fraction = Fraction(0)
    after_start: bool = False  # `--to +2ms`: a length after the window's start


def parse_bound(text: str, option: str) -> Bound:
    s = text.strip()
    try:
        if s.startswith("+"):
            if option != "--to":
                raise ValueError("only --to may be a length (+DURATION)")
            return Bound(text, offset=parse_duration(s[1:]), after_start=True)
        m = _EDGE_BOUND.match(s)
        if m is not None:
            off = m["off"]
            offset = Fraction(0)
            if off:
                offset = parse_duration(off[1:]) * (-1 if off[0] == "-" else 1)
            return Bound(text, channel=m["ch"], edge=m["edge"], offset=offset)
        return Bound(text, seconds=Fraction(0) if s == "0" else parse_duration(s))
    except (ValueError, ZeroDivisionError) as exc:
        raise RtlabError(
            f"{option} {text!r}: {exc}; write a time (1.5ms, 250us) or an edge "
            f"(D2:rising, D2:rising+10us)"
        ) from None


@dataclass(frozen=True)
class Window:
    start: Bound | None = None
    end: Bound | None = None

    @classmethod
    def parse(cls, start: str | None, end: str | None) -> Window | None:
        if start is None and end is None:
            return None
        return cls(
            parse_bound(start, "--from") if start is not None else None,
            parse_bound(end, "--to") if end is not None else None,
        )

    def channels(self) -> list[str]:
        """The channels a trigger bound reads (a reader told to skip others keeps them)."""
        return [b.channel for b in (self.start, self.end) if b is not None and b.channel]


def _ceil_ticks(seconds: Fraction, tick_s: Fraction) -> int:
    return math.ceil(seconds / tick_s)


def _first_edge(open_stream: Opener, bound: Bound) -> int:
    """The tick of the first `bound.edge` edge of `bound.channel` (a first pass)."""
    stream = open_stream()
    cap = stream.header
    ch = cap[bound.channel or ""]  # KeyError names the channels
    level = ch.initial_level
    gaps, next_gap = cap.gaps, 0
    for name, edges in stream.chunks:
        if name != ch.name or edges.size == 0:
            continue
        e = np.asarray(edges, dtype=np.int64)
        while e.size:
            if next_gap < len(gaps):
                k = int(np.searchsorted(e, gaps[next_gap, 0], side="left"))
                part, e = e[:k], e[k:]
            else:
                part, e = e, e[:0]
            if part.size:
                hit = _first_of(part, level, bound.edge)
                if hit is not None:
                    _close(stream)
                    return hit
                if level != UNKNOWN_LEVEL:
                    level ^= part.size & 1
            while e.size and next_gap < len(gaps) and gaps[next_gap, 0] <= e[0]:
                gl = ch.gap_levels
                level = int(gl[next_gap]) if gl is not None else UNKNOWN_LEVEL
                next_gap += 1
    raise RtlabError(f"trigger {bound.text!r}: no {bound.edge} edge on {ch.name} in the capture")


def _first_of(part: np.ndarray, level: int, edge: str) -> int | None:
    if edge == "both":
        return int(part[0])
    if level == UNKNOWN_LEVEL:
        return None
    want = 0 if edge == "rising" else 1  # the level before such an edge
    i = 0 if level == want else 1
    return int(part[i]) if i < part.size else None


def _close(stream: EdgeStream) -> None:
    close = getattr(stream.chunks, "close", None)
    if close is not None:
        close()


def resolve(open_stream: Opener, window: Window, tick_s: Fraction) -> tuple[int | None, int | None]:
    """The window as ticks [lo, hi) (None: open on that side)."""

    def at(b: Bound | None, start: int | None) -> int | None:
        if b is None:
            return None
        if b.after_start:
            return (start or 0) + _ceil_ticks(b.offset, tick_s)
        if b.channel is not None:
            t0 = _first_edge(open_stream, b)
            return t0 + _ceil_ticks(b.offset, tick_s)
        return _ceil_ticks(b.seconds or Fraction(0), tick_s)

    lo = at(window.start, None)
    hi = at(window.end, lo)
    if lo is not None and hi is not None and hi <= lo:
        raise RtlabError(
            f"--to {window.end.text if window.end else ''!r} is not after "
            f"--from {window.start.text if window.start else ''!r}: the window is empty"
        )
    return lo, hi


def _levels_at(open_stream: Opener, lo: int) -> dict[str, int]:
    """Each channel's level just before tick `lo` (a first pass that stops once every
    channel has passed `lo`)."""
    stream = open_stream()
    cap = stream.header
    gaps = cap.gaps
    seg = int(np.searchsorted(gaps[:, 0], lo, side="right")) if len(gaps) else 0
    seg_start = int(gaps[seg - 1, 1]) if seg else None

    def start_level(ch: Channel) -> int:
        if seg == 0:
            return ch.initial_level
        return int(ch.gap_levels[seg - 1]) if ch.gap_levels is not None else UNKNOWN_LEVEL

    flips = dict.fromkeys(cap.channels, 0)
    open_channels = set(cap.channels)  # edge_counts may be unknown (0) until the end
    for name, edges in stream.chunks:
        if edges.size == 0:
            continue
        e = np.asarray(edges)
        a = int(np.searchsorted(e, seg_start, side="left")) if seg_start is not None else 0
        b = int(np.searchsorted(e, lo, side="left"))
        flips[name] += max(b - a, 0)
        if b < e.size:
            open_channels.discard(name)
            if not open_channels:
                break
    _close(stream)
    out = {}
    for ch in cap:
        lvl = start_level(ch)
        out[ch.name] = lvl if lvl == UNKNOWN_LEVEL else lvl ^ (flips[ch.name] & 1)
    return out


def window_stream(open_stream: Opener, window: Window) -> EdgeStream:
    """The stream `open_stream()` gives, cut to `window` (see the module doc)."""
    probe = open_stream()
    tick_s = probe.header.tick_s
    _close(probe)
    lo, hi = resolve(open_stream, window, tick_s)
    levels = _levels_at(open_stream, lo) if lo is not None else None
    inner = open_stream()
    cap = inner.header
    g = cap.gaps
    keep = np.ones(len(g), dtype=bool)
    if lo is not None:
        keep &= g[:, 1] > lo
    if hi is not None:
        keep &= g[:, 0] < hi
    gaps = g[keep].copy()
    if gaps.size:
        if lo is not None:
            gaps[:, 0] = np.maximum(gaps[:, 0], lo)
        if hi is not None:
            gaps[:, 1] = np.minimum(gaps[:, 1], hi)
    header = Capture(
        cap.tick_s, {}, gaps, cap.t_start, cap.t_end, cap.resolution_s, cap.metadata
    )
    for ch in cap:
        gl = ch.gap_levels[keep] if ch.gap_levels is not None else None
        level = levels[ch.name] if levels is not None else ch.initial_level
        header.add(Channel(ch.name, ch.edges[:0], level, gl))
    _set_bounds(header, cap, lo, hi)
    cap.metadata["cut"] = [lo, hi]  # the reader's own dict: it may add to it at the end

    def chunks() -> Iterator[tuple[str, np.ndarray]]:
        for name, edges in inner.chunks:
            if edges.size == 0:
                continue
            a = int(np.searchsorted(edges, lo, side="left")) if lo is not None else 0
            b = int(np.searchsorted(edges, hi, side="left")) if hi is not None else edges.size
            if b > a:
                yield name, edges[a:b]
        _set_bounds(header, cap, lo, hi)  # a reader may learn its window at the end

    return EdgeStream(header, dict(inner.edge_counts), chunks())


def _set_bounds(header: Capture, cap: Capture, lo: int | None, hi: int | None) -> None:
    start, end = cap.t_start, cap.t_end
    if lo is not None:
        start = lo if start is None else max(start, lo)
    if hi is not None:
        end = hi if end is None else min(end, hi)
    if start is not None and end is not None and end < start:
        end = start
    header.t_start, header.t_end = start, end


def window_capture(cap: Capture, window: Window) -> Capture:
    """A loaded capture cut to `window` (the same rules, on its edges in memory)."""
    stream = window_stream(lambda: EdgeStream.from_capture(cap), window)
    return stream.gather()
