"""Time interval error (TIE): each edge against the ideal clock fitted to the edges.

A least-squares fit, so a statistic: it lives here, in rtlab.analysis, and takes the
capture and channel by their fields (rtlab.intervals' CaptureLike, ChannelLike).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from rtlab.analysis.stats import median
from rtlab.intervals import CaptureLike, ChannelLike, select_edges
from rtlab.ticks import Edge, Samples

# TIE residuals are fractions of a tick: kept as integers of 1/1000 tick.
TIE_SUBTICKS = 1000


@dataclass
class TieResult:
    """Time interval error against the ideal clock fitted to the edges."""

    samples: Samples  # residuals in 1/TIE_SUBTICKS tick units
    period_s: float  # fitted ideal period
    frequency_hz: float
    offset_ppm: float | None  # fitted frequency against the nominal one, when given


def tie(
    cap: CaptureLike, ch: ChannelLike, edge: Edge = "rising", nominal_hz: float | None = None
) -> TieResult:
    """Least-squares fit t_k ≈ t0 + k·T; TIE_k = t_k − (t0 + k·T).

    k counts ideal cycles: consecutive edges are ⌊Δt/T̃⌉ cycles apart (T̃ the median
    period, inverted CDF), so a missed edge or a gap does not shift the rest of the fit.
    """
    t = select_edges(cap, ch, edge)
    tick = Fraction(cap.tick_s, TIE_SUBTICKS)
    if t.size < 3:
        empty = Samples(np.zeros(0, np.int64), tick, name=f"{ch.name}.tie")
        return TieResult(empty, float("nan"), float("nan"), None)
    d = np.diff(t)
    med = median(d)
    steps = np.maximum(np.rint(d / med), 1).astype(np.int64) if med > 0 else np.ones_like(d)
    k = np.concatenate(([0], np.cumsum(steps))).astype(np.float64)
    tt = (t - t[0]).astype(np.float64)
    kc = k - k.mean()
    slope = float(np.dot(kc, tt - tt.mean()) / np.dot(kc, kc))
    resid = tt - (tt.mean() + kc * slope)
    values = np.rint(resid * TIE_SUBTICKS).astype(np.int64)
    s = Samples(values, tick, name=f"{ch.name}.tie", resolution_s=cap.resolution, at=t)
    period_s = slope * float(cap.tick_s)
    freq = 1.0 / period_s if period_s > 0 else float("nan")
    ppm = (freq / nominal_hz - 1.0) * 1e6 if nominal_hz else None
    return TieResult(s, period_s, freq, ppm)
