"""Change of a quantile between two sets of repeated runs, with an interval that knows
runs vary; and the mean of a figure over repetitions with its t interval.

Samples of one run are not independent draws from one distribution shared by all runs:
each run has its own load, cache and scheduler history, so its p99 moves from run to run
(tens of percent on a shared VM). An interval from resampling pooled samples ignores that
and fails a build on noise. The unit of replication is the run:

  1. each run's quantile (inverted CDF, as everywhere in rtlab; q = 1 is the run's max);
  2. their logarithms, one value per run, on each side;
  3. Welch's t interval for the difference of the two means of logs (Welch–Satterthwaite
     degrees of freedom), turned back into a relative change: exp(d) − 1.

So the interval is for the change of the geometric mean over runs of the per-run
quantile, needs ≥ 2 runs on each side and positive per-run values, and assumes the runs
of a side are independent and their log quantiles roughly normal. A cluster bootstrap
(resampling whole runs) was rejected: with 3–5 runs per side it has 10–126 distinct
resamples and its percentile interval is far too narrow (in a simulation of the model of
tests/analysis/test_runchange.py, 8–16 % false fails of A against A' with 2–4 runs per
side for a nominal 2.5 %), where this t interval stays at its level.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rtlab.analysis.stats import quantiles

LEVEL = 0.95
MIN_RUNS = 2


@dataclass(frozen=True)
class Interval:
    """A relative change (percent) interval, or why there is none (low/high None)."""

    low_pct: float | None
    high_pct: float | None
    note: str = ""


@dataclass(frozen=True)
class MeanInterval:
    """The mean of one figure over repetitions and the half-width of its Student-t 95 %
    interval (None for one repetition: no spread to estimate)."""

    mean: float
    half: float | None
    n: int

    def text(self, fmt: str = "{:.1f}") -> str:
        if self.half is None:
            return fmt.format(self.mean)
        return f"{fmt.format(self.mean)} ± {fmt.format(self.half)}"


def mean_interval(values: Sequence[float], level: float = LEVEL) -> MeanInterval | None:
    """The finite values' mean with its Student-t interval at `level` (n − 1 degrees of
    freedom, sample standard deviation); None when no value is finite."""
    vals = [v for v in values if math.isfinite(v)]
    if not vals:
        return None
    n = len(vals)
    mean = sum(vals) / n
    if n < 2:
        return MeanInterval(mean, None, n)
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1))
    return MeanInterval(mean, t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n), n)


def run_quantiles(runs: Sequence[np.ndarray], qs: Sequence[float]) -> np.ndarray:
    """runs × qs: each run's quantiles (inverted CDF, so measured values; q = 1 → max)."""
    out = np.empty((len(runs), len(qs)))
    for i, v in enumerate(runs):
        out[i] = quantiles(v, qs)
    return out


def change_intervals(base: np.ndarray, new: np.ndarray, level: float = LEVEL) -> list[Interval]:
    """Per column (quantile) of run_quantiles(BASE) and run_quantiles(NEW): the Welch
    t interval of the relative change of the geometric mean over runs."""
    out = []
    for j in range(base.shape[1]):
        out.append(_welch_log(base[:, j], new[:, j], level))
    return out


def _welch_log(a: np.ndarray, b: np.ndarray, level: float) -> Interval:
    if a.size < MIN_RUNS or b.size < MIN_RUNS:
        return Interval(
            None,
            None,
            f"BASE has {_runs(a.size)}, NEW {_runs(b.size)}: no run-to-run variance to "
            f"estimate (needs ≥ {MIN_RUNS} runs a side)",
        )
    if not (np.all(a > 0) and np.all(b > 0)):
        return Interval(None, None, "a per-run value is ≤ 0 (the interval is on a log scale)")
    la, lb = np.log(a), np.log(b)
    d = float(lb.mean() - la.mean())
    va, vb = float(la.var(ddof=1)) / a.size, float(lb.var(ddof=1)) / b.size
    if va + vb == 0:  # every run gave the same value: nothing varies
        half = 0.0
    else:
        df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
        half = t_quantile(0.5 + level / 2, df) * math.sqrt(va + vb)
    return Interval(math.expm1(d - half) * 100, math.expm1(d + half) * 100)


def _runs(k: int) -> str:
    return f"{k} run" if k == 1 else f"{k} runs"


def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t with df (> 0, not necessarily whole) degrees of freedom,
    for p in (0.5, 1): bisection on the survival function (12 digits)."""
    if not 0.5 < p < 1 or not df > 0:
        raise ValueError(f"t_quantile needs 0.5 < p < 1 and df > 0, got {p}, {df}")
    lo, hi = 0.0, 1.0
    while _t_sf(hi, df) > 1 - p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if _t_sf(mid, df) > 1 - p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * hi:
            break
    return (lo + hi) / 2


def _t_sf(t: float, df: float) -> float:
    """P(T > t) for t ≥ 0: half the regularized incomplete beta I_x(df/2, 1/2)."""
    return 0.5 * _ibeta(df / 2, 0.5, df / (df + t * t))


def _ibeta(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b) (continued fraction, Numerical Recipes)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for num in (
            m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)),
        ):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h
