"""Edges → intervals: periods, level widths, inter-edge intervals, cycle-to-cycle.

The durations a capture's edges define, as Samples (int64 ticks): no statistic is
computed here (rtlab.analysis does that), so rtlab.model's Channel methods call this
module without importing upward. Every function is a vectorized pass over the
channel's int64 edge array. Without gaps
the polarity of edge i follows from the initial level and i's parity (strided views, no
copies); with gaps each segment restarts from the level the instrument saw on resuming.
No interval ever spans a gap.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Protocol

import numpy as np

from rtlab.ticks import UNKNOWN_LEVEL, Edge, Samples


# What these functions read of rtlab.model's Capture and Channel: model's Channel methods
# call this module, so it takes them by their fields instead of importing model.
class CaptureLike(Protocol):
    tick_s: Fraction
    gaps: np.ndarray

    @property
    def resolution(self) -> Fraction: ...


class ChannelLike(Protocol):
    name: str
    edges: np.ndarray
    initial_level: int
    gap_levels: np.ndarray | None


def _samples(cap: CaptureLike, values: np.ndarray, name: str, at: np.ndarray | None) -> Samples:
    return Samples(values, cap.tick_s, name=name, resolution_s=cap.resolution, at=at)


def segment_ids(cap: CaptureLike, times: np.ndarray) -> np.ndarray | None:
    """For each time, the number of gaps that started at or before it (None: no gaps)."""
    if len(cap.gaps) == 0:
        return None
    return np.searchsorted(cap.gaps[:, 0], times, side="right")


def levels_before(cap: CaptureLike, ch: ChannelLike) -> np.ndarray:
    """The level before each edge (0, 1 or UNKNOWN_LEVEL), as int8."""
    e = ch.edges
    idx = np.arange(e.size, dtype=np.int64)
    seg = segment_ids(cap, e)
    if seg is None:
        if ch.initial_level == UNKNOWN_LEVEL:
            return np.full(e.size, UNKNOWN_LEVEL, dtype=np.int8)
        return ((idx & 1) ^ ch.initial_level).astype(np.int8)
    # Level at the start of each segment, and the index of its first edge.
    gl = ch.gap_levels if ch.gap_levels is not None else np.full(len(cap.gaps), -1)
    seg_level = np.concatenate(([ch.initial_level], np.asarray(gl, dtype=np.int64)))
    seg_first = np.concatenate(([0], np.searchsorted(e, cap.gaps[:, 1], side="left")))
    start_level = seg_level[seg]
    out = ((idx - seg_first[seg]) & 1) ^ start_level
    out[start_level == UNKNOWN_LEVEL] = UNKNOWN_LEVEL
    return out.astype(np.int8)


def _polarity_slice(ch: ChannelLike, edge: Edge) -> slice | None:
    """Without gaps, rising/falling edges are every other edge: a strided slice."""
    if edge == "both":
        return slice(None)
    if ch.initial_level == UNKNOWN_LEVEL:
        return None
    first_rising = 0 if ch.initial_level == 0 else 1
    start = first_rising if edge == "rising" else 1 - first_rising
    return slice(start, None, 2)


def _check_edge(edge: str) -> None:
    if edge not in ("rising", "falling", "both"):
        raise ValueError(f"edge must be rising, falling or both, not {edge!r}")


def select_edges(cap: CaptureLike, ch: ChannelLike, edge: Edge = "rising") -> np.ndarray:
    """The times of the chosen edges (a view when the capture has no gaps)."""
    _check_edge(edge)
    if edge == "both":
        return ch.edges
    if len(cap.gaps) == 0:
        sl = _polarity_slice(ch, edge)
        return ch.edges[sl] if sl is not None else ch.edges[:0]
    want = 0 if edge == "rising" else 1
    return ch.edges[levels_before(cap, ch) == want]


def _diff(a: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    """a[1:] - a[:-1], into the front of `out` when given (a scratch buffer the caller
    reuses across metrics, so that a large capture touches new memory only once)."""
    m = max(a.size - 1, 0)
    if out is None or out.size < m:
        return np.subtract(a[1:], a[:-1])
    return np.subtract(a[1:], a[:-1], out=out[:m])


def _diffs_within_segments(
    cap: CaptureLike, times: np.ndarray, out: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Differences of consecutive times and their end times, dropping gap-spanning ones."""
    d = _diff(times, out)
    at = times[1:]
    seg = segment_ids(cap, times)
    if seg is not None:
        keep = seg[1:] == seg[:-1]
        d, at = d[keep], at[keep]
    return d, at


def periods(
    cap: CaptureLike, ch: ChannelLike, edge: Edge = "rising", out: np.ndarray | None = None
) -> Samples:
    """T_i: rising-to-rising (or falling-to-falling) intervals."""
    t = select_edges(cap, ch, edge)
    d, at = _diffs_within_segments(cap, t, out)
    return _samples(cap, d, f"{ch.name}.period", at)


def intervals(cap: CaptureLike, ch: ChannelLike, out: np.ndarray | None = None) -> Samples:
    """Every inter-edge interval: the duration of each complete level."""
    d, at = _diffs_within_segments(cap, ch.edges, out)
    return _samples(cap, d, f"{ch.name}.interval", at)


def widths(
    cap: CaptureLike, ch: ChannelLike, level: str = "high", out: np.ndarray | None = None
) -> Samples:
    """Durations of complete high (rising→falling) or low (falling→rising) levels."""
    if level not in ("high", "low"):
        raise ValueError(f"level must be high or low, not {level!r}")
    e = ch.edges
    want_before = 0 if level == "high" else 1  # a high level starts at a rising edge
    if len(cap.gaps) == 0:
        sl = _polarity_slice(ch, "rising" if level == "high" else "falling")
        if sl is None:
            return _samples(cap, e[:0], f"{ch.name}.{level}", e[:0])
        starts = e[sl]
        ends = e[sl.start + 1 :: 2]
        k = min(starts.size, ends.size)
        buf = out[:k] if out is not None and out.size >= k else None
        d = np.subtract(ends[:k], starts[:k], out=buf)
        return _samples(cap, d, f"{ch.name}.{level}", ends[:k])
    lv = levels_before(cap, ch)
    seg = segment_ids(cap, e)
    assert seg is not None
    keep = (lv[:-1] == want_before) & (seg[1:] == seg[:-1])
    d = np.diff(e)[keep]
    return _samples(cap, d, f"{ch.name}.{level}", e[1:][keep])


def cycle_to_cycle(
    cap: CaptureLike, ch: ChannelLike, edge: Edge = "rising", out: np.ndarray | None = None
) -> Samples:
    """T_i − T_{i−1} for adjacent periods (both within one segment)."""
    t = select_edges(cap, ch, edge)
    p = _diff(t, out)
    # The second difference goes behind the first in the scratch buffer (no overlap).
    rest = out[p.size :] if out is not None and p.size and out.size >= 2 * p.size else None
    c2c = _diff(p, rest)
    at = t[2:]
    seg = segment_ids(cap, t)
    if seg is not None:
        keep = (seg[2:] == seg[1:-1]) & (seg[1:-1] == seg[:-2])
        c2c, at = c2c[keep], at[keep]
    return _samples(cap, c2c, f"{ch.name}.c2c", at)
