"""Statistics of integer samples: the figures timing papers report.

Computed on int64 ticks; converted to ns (or the samples' unit) only in the result.
Quantiles use the inverted-CDF definition (numpy's method="inverted_cdf", Hyndman &
Fan type 1): the q-quantile is the smallest sample x with at least q*n samples <= x,
so every quantile is a value that was actually measured.

Two exact paths give identical results: a histogram (np.bincount) when the values span
a narrow range — the usual case for periods and latencies, and O(n) — and a partition
of the array otherwise. Means, RMS and mean deviations come from exact integer sums
(exact.py) and are rounded to a float once, in the result's unit; quantile ranks come
from the quantile's exact decimal.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from rtlab.analysis import exact

DEFAULT_QUANTILES: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 0.999)
# The quantile columns of the results store's `summaries` table (summarize()).
SUMMARY_QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p999": 0.999}

# Histogram path only when the bincount array stays small next to the data.
_MAX_HIST_RANGE = 1 << 24


def _decimal(q: float) -> Decimal:
    return Decimal(repr(float(q)))  # the shortest decimal that is exactly this float


def quantile_key(q: float) -> str:
    """How a quantile is written in JSON and tables: 0.95 → "0.95", 0.999 → "0.999",
    0.9999995 → "0.9999995": the whole decimal, so two quantiles never share a key."""
    return format(_decimal(q).normalize(), "f")


def percent_label(q: float) -> str:
    """The quantile as a percentage for column titles: 0.999 → "99.9", exact."""
    return format((_decimal(q) * 100).normalize(), "f")


def parse_quantiles(text: str) -> tuple[float, ...]:
    """'0.5 0.99,0.999' or 'p50,p99.9' → (0.5, 0.99, 0.999); a quantile given twice
    (`0.5 p50`) is an error: its figures would need one key twice."""
    out: list[float] = []
    for tok in text.replace(",", " ").split():
        try:
            q = round(float(tok[1:]) / 100, 12) if tok.lower().startswith("p") else float(tok)
        except ValueError:
            raise ValueError(f"quantile {tok!r} is not a number (0.99 or p99)") from None
        if not 0 <= q <= 1 or math.isnan(q):
            raise ValueError(f"quantile {tok!r} is not in [0, 1] (or p0..p100)")
        if q in out:
            raise ValueError(f"quantile {tok!r} is given twice ({quantile_key(q)})")
        out.append(q)
    if not out:
        raise ValueError("no quantiles given")
    return tuple(out)


def _rank(q: float, n: int) -> int:
    """0-based index of the inverted-CDF q-quantile in the sorted n samples: from the
    quantile's exact decimal times n (exact.rank)."""
    return exact.rank(q, n)


def quantiles(values: np.ndarray | Sequence[float], qs: Sequence[float]) -> list[float]:
    """The inverted-CDF q-quantile of `values` for each q of `qs` (q = 1 is the maximum):
    each one a value that was measured. Every quantile rtlab prints is this one (or
    compute_stats', the same definition); ValueError for no values."""
    v = np.asarray(values)
    n = int(v.size)
    if n == 0:
        raise ValueError("a quantile of no values")
    ranks = [_rank(q, n) for q in qs]
    if not ranks:
        return []
    part = np.partition(v.ravel(), sorted(set(ranks)))
    return [float(part[r]) for r in ranks]


def quantile(values: np.ndarray | Sequence[float], q: float) -> float:
    """One inverted-CDF quantile (see quantiles)."""
    return quantiles(values, (q,))[0]


def median(values: np.ndarray | Sequence[float]) -> float:
    """The inverted-CDF median: of an even count, the lower middle value (a measured
    value, not the mean of the two middle ones)."""
    return quantile(values, 0.5)


def row_quantile(rows: np.ndarray, q: float) -> np.ndarray:
    """The inverted-CDF q-quantile of each row of a 2-D array (e.g. a trend plot's
    buckets), as float64."""
    if rows.ndim != 2 or rows.shape[1] == 0:
        raise ValueError("row_quantile needs a 2-D array with at least one column")
    k = _rank(q, rows.shape[1])
    return np.partition(rows, k, axis=1)[:, k].astype(np.float64)


def ecdf_points(values: np.ndarray, points: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """The empirical CDF as (sorted sample values, P(X <= x)): every sample when there are
    at most `points`, else the sorted samples at a grid of ranks dense in the tail (down
    to 1 - 10^-6), the extremes included."""
    n = values.size
    if n <= points:
        return np.sort(values), np.arange(1, n + 1) / n
    probs = np.concatenate(
        (np.linspace(0, 0.99, points // 2), 1 - np.logspace(-2, -6, points // 2))
    )
    idx = np.unique(np.clip((probs * n).astype(np.int64), 0, n - 1))
    return np.partition(values, idx)[idx], (idx + 1) / n


class SampleSet(Protocol):
    """What compute_stats reads of rtlab.ticks.Samples (that module imports this one)."""

    values: np.ndarray
    tick_s: Fraction
    unit: str
    resolution_s: Fraction | None

    def __len__(self) -> int: ...


@dataclass
class Stats:
    """Summary of a sample set. Values are in `unit` (ns for time samples)."""

    n: int
    unit: str
    mean: float = math.nan
    rms: float = math.nan  # population standard deviation: the RMS jitter
    min: float = math.nan
    max: float = math.nan
    max_dev: float = math.nan  # max |x - mean|
    mean_abs_dev: float = math.nan  # mean |x - mean|
    pkpk: float = math.nan
    quantiles: dict[float, float] = field(default_factory=dict)
    abs_dev_quantiles: dict[float, float] = field(default_factory=dict)
    resolution: float | None = None  # the instrument resolution, same unit

    def to_dict(self) -> dict[str, Any]:
        u = self.unit

        def num(x: float) -> float | None:
            return None if math.isnan(x) else x

        d: dict[str, Any] = {"n": self.n}
        for key in ("mean", "rms", "min", "max", "max_dev", "mean_abs_dev", "pkpk"):
            d[f"{key}_{u}"] = num(getattr(self, key))
        d["quantiles"] = {quantile_key(q): num(v) for q, v in self.quantiles.items()}
        d["abs_dev_quantiles"] = {
            quantile_key(q): num(v) for q, v in self.abs_dev_quantiles.items()
        }
        d[f"resolution_{u}"] = self.resolution
        return d


def _scale_and_unit(samples: SampleSet) -> tuple[Fraction, str]:
    """The exact size of one tick in the result's unit (ns for time samples)."""
    if samples.unit == "s":
        return Fraction(samples.tick_s) * 10**9, "ns"
    return Fraction(samples.tick_s), samples.unit


def compute_stats(
    samples: SampleSet, quantiles: tuple[float, ...] = DEFAULT_QUANTILES, scratch: bool = False
) -> Stats:
    """Statistics of `samples`. With scratch=True the values array may be overwritten
    (the caller owns it and is done with it): saves a copy on 10^8-sample arrays."""
    scale, unit = _scale_and_unit(samples)
    res = samples.resolution_s if samples.resolution_s is not None else samples.tick_s
    resolution = float(Fraction(res) * 10**9) if samples.unit == "s" else float(res)
    st = Stats(n=len(samples), unit=unit, resolution=resolution)
    if st.n == 0:
        st.quantiles = {q: math.nan for q in quantiles}
        st.abs_dev_quantiles = {q: math.nan for q in quantiles}
        return st
    return _finish(st, _raw_stats(samples.values, quantiles, scratch), scale)


def stats_from_histogram(
    values: np.ndarray,
    counts: np.ndarray,
    like: SampleSet,
    quantiles: tuple[float, ...] = DEFAULT_QUANTILES,
) -> Stats:
    """Statistics of an exact histogram of integer samples (histogram_raw_stats), in
    the unit and resolution of `like` (a sample set of the same kind, e.g. empty)."""
    st = compute_stats(like, quantiles)
    if values.size == 0:
        return st
    scale, _ = _scale_and_unit(like)
    return _finish(st, histogram_raw_stats(values, counts, quantiles), scale)


def _finish(st: Stats, raw: RawStats, scale: Fraction) -> Stats:
    """The figures in the result's unit, each the exact value rounded once."""
    f = exact.to_float
    st.n = raw.n
    st.mean = f(raw.mean * scale)
    st.rms = exact.sqrt_float(raw.var * scale * scale)
    st.min = f(raw.lo * scale)
    st.max = f(raw.hi * scale)
    st.max_dev = f(raw.max_dev * scale)
    st.mean_abs_dev = f(raw.mean_abs_dev * scale)
    st.pkpk = f((raw.hi - raw.lo) * scale)
    st.quantiles = {q: f(v * scale) for q, v in raw.quantiles.items()}
    st.abs_dev_quantiles = {q: f(v * scale) for q, v in raw.abs_dev_quantiles.items()}
    return st


def summarize(values: np.ndarray, tick_s: Fraction | None) -> dict[str, float | int | None]:
    """One row of the results store's `summaries` table: n, min, mean, rms, quantiles,
    max; in ns for time series (tick_s given), as they are for counts (tick_s None)."""
    v = np.asarray(values, dtype=np.int64)
    out: dict[str, float | int | None] = {"n": int(v.size)}
    keys = ("min", "mean", "rms", *SUMMARY_QUANTILES, "max")
    if v.size == 0:
        return out | dict.fromkeys(keys)
    scale = Fraction(tick_s) * 10**9 if tick_s is not None else Fraction(1)
    raw = _raw_stats(v, tuple(SUMMARY_QUANTILES.values()), scratch=False)
    f = exact.to_float
    out.update(
        min=f(raw.lo * scale),
        mean=f(raw.mean * scale),
        rms=exact.sqrt_float(raw.var * scale * scale),
        max=f(raw.hi * scale),
    )
    for k, q in SUMMARY_QUANTILES.items():
        out[k] = f(raw.quantiles[q] * scale)
    return out


@dataclass
class RawStats:
    """Statistics in ticks, exact: integers, and fractions where a mean forces them."""

    n: int
    mean: Fraction
    var: Fraction  # population variance: rms = sqrt(var)
    lo: int
    hi: int
    max_dev: Fraction
    mean_abs_dev: Fraction
    quantiles: dict[float, int]
    abs_dev_quantiles: dict[float, Fraction]  # of the float distances (_abs_dev_order)


def _raw_stats(values: np.ndarray, quantiles: tuple[float, ...], scratch: bool) -> RawStats:
    n = int(values.size)
    lo = int(values.min())
    hi = int(values.max())
    span = hi - lo + 1
    if span <= _MAX_HIST_RANGE and span <= 8 * n + 65536:
        return _hist_stats(values, lo, hi, quantiles, scratch)
    return _partition_stats(values, lo, hi, quantiles)


def _bincount_from(values: np.ndarray, lo: int, hi: int, scratch: bool) -> tuple[np.ndarray, int]:
    """Counts of each value, indexed from `base`; copies the array only when it must."""
    if lo >= 0 and hi < _MAX_HIST_RANGE:
        return np.bincount(values, minlength=hi + 1)[lo:], lo
    if scratch:
        values -= lo
        counts = np.bincount(values, minlength=hi - lo + 1)
        values += lo
        return counts, lo
    return np.bincount(values - lo, minlength=hi - lo + 1), lo


def _hist_stats(
    values: np.ndarray, lo: int, hi: int, quantiles: tuple[float, ...], scratch: bool
) -> RawStats:
    counts, _ = _bincount_from(values, lo, hi, scratch)
    present = np.flatnonzero(counts)  # offsets from lo of values that occur
    return _counts_stats(present.astype(np.uint64), counts[present], lo, hi, quantiles)


@dataclass
class _Moments:
    """Exact sums of offsets from lo: n, Σ, Σ², and those of the offsets above the mean."""

    n: int
    s1: int
    s2: int
    n_above: int
    s_above: int

    def raw(self, lo: int, hi: int) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        """(mean, variance, max |x - mean|, mean |x - mean|)."""
        n, m_off = self.n, Fraction(self.s1, self.n)
        var = Fraction(n * self.s2 - self.s1 * self.s1, n * n)
        above = self.s_above - m_off * self.n_above
        below = m_off * (n - self.n_above) - (self.s1 - self.s_above)
        mean = lo + m_off
        return mean, var, max(mean - lo, hi - mean), (above + below) / n


def _moments(off: np.ndarray, c: np.ndarray | None) -> _Moments:
    """The exact sums of uint64 offsets `off`, each counted c times (once if None)."""
    n = int(c.sum()) if c is not None else int(off.size)
    s1 = exact.dot(off, c)
    above = off > np.uint64(s1 // n)  # the offsets above the mean (s1 / n)
    ca = c[above] if c is not None else None
    n_above = int(ca.sum()) if ca is not None else int(np.count_nonzero(above))
    return _Moments(n, s1, exact.dot_square(off, c), n_above, exact.dot(off[above], ca))


def _abs_dev_order(off: np.ndarray, m_off: Fraction) -> np.ndarray:
    """|offset - mean| as float64: the distances the abs_dev_quantiles are taken from
    (the same doubles on both paths; each within an ulp or two of the exact distance)."""
    dist = off.astype(np.float64)
    dist -= exact.to_float(m_off)
    return np.abs(dist, out=dist)


def _counts_stats(
    off: np.ndarray, c: np.ndarray, lo: int, hi: int, quantiles: tuple[float, ...]
) -> RawStats:
    """The statistics of a histogram: `off` the sorted distinct offsets (uint64) from lo
    of the values that occur, `c` their counts."""
    c = c.astype(np.int64).view(np.uint64)
    mo = _moments(off, c)
    n = mo.n
    mean, var, max_dev, mad = mo.raw(lo, hi)
    cum = np.cumsum(c)
    qs = {q: lo + int(off[np.searchsorted(cum, _rank(q, n) + 1)]) for q in quantiles}
    # |x - mean| distribution: the distinct values ordered by their distance to the mean
    dist = _abs_dev_order(off, mean - lo)
    order = np.argsort(dist, kind="stable")
    cum_abs = np.cumsum(c[order])
    aq = {
        q: Fraction(float(dist[order[np.searchsorted(cum_abs, _rank(q, n) + 1)]]))
        for q in quantiles
    }
    return RawStats(n, mean, var, lo, hi, max_dev, mad, qs, aq)


def histogram_raw_stats(
    values: np.ndarray, counts: np.ndarray, quantiles: tuple[float, ...]
) -> RawStats:
    """The statistics of an exact histogram: `values` sorted distinct int64, `counts`
    (> 0) how often each occurred. The figures are those compute_stats gives for the
    expanded array, identical (exact sums, exact ranks)."""
    lo, hi = int(values[0]), int(values[-1])
    return _counts_stats(exact.offsets(values, lo), counts, lo, hi, quantiles)


def _partition_stats(
    values: np.ndarray, lo: int, hi: int, quantiles: tuple[float, ...]
) -> RawStats:
    """The statistics of a wide array, in chunks of offsets (no whole copy of them)."""
    n, step = int(values.size), 1 << 22

    def chunks() -> Iterator[np.ndarray]:
        for k in range(0, n, step):
            yield exact.offsets(values[k : k + step], lo)

    s1 = s2 = n_above = s_above = 0
    for c in chunks():
        s1, s2 = s1 + exact.dot(c), s2 + exact.dot_square(c)
    floor = np.uint64(s1 // n)  # the offsets above the mean (s1 / n)
    for c in chunks():
        above = c[c > floor]
        n_above, s_above = n_above + int(above.size), s_above + exact.dot(above)
    mean, var, max_dev, mad = _Moments(n, s1, s2, n_above, s_above).raw(lo, hi)
    ranks = sorted({_rank(q, n) for q in quantiles})
    qs: dict[float, int] = {}
    aq: dict[float, Fraction] = {}
    if ranks:  # np.partition takes no empty list
        part = np.partition(values, ranks)
        qs = {q: int(part[_rank(q, n)]) for q in quantiles}
        del part
        dist = np.empty(n, dtype=np.float64)
        for k, c in zip(range(0, n, step), chunks(), strict=True):
            dist[k : k + c.size] = _abs_dev_order(c, mean - lo)
        dist.partition(ranks)
        aq = {q: Fraction(float(dist[_rank(q, n)])) for q in quantiles}
        del dist
    return RawStats(n, mean, var, lo, hi, max_dev, mad, qs, aq)
