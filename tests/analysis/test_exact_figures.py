"""Figures exact by construction: quantile ranks from the quantile's exact decimal, means
and RMS from integer sums rounded once, streaming histograms right up to ±2^63.

The references here are pure Python (fractions, integers): no float on their way.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtlab.analysis import kernel, stats
from rtlab.analysis.histogram import ExactHistogram
from rtlab.analysis.stats import compute_stats, stats_from_histogram
from rtlab.analysis.stream import analyze_stream
from rtlab.analysis.summary import analyze
from rtlab.model import Capture, Channel, EdgeStream, Samples

KERNELS = [False, *([True] if kernel.native_available() else [])]
NS = Fraction(1, 10**9)
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
QS = (0.05, 0.07, 0.25, 0.5, 0.55, 0.75, 0.95, 0.99, 0.999, 0.0, 1.0)
I64 = 2**63


def exact_rank(q: float, n: int) -> int:
    """The inverted-CDF rank: the smallest k (0-based) with k + 1 >= q * n."""
    qn = Fraction(Decimal(repr(q))) * n
    return min(max(-(-qn.numerator // qn.denominator) - 1, 0), n - 1)


def nearest(value: float, want: Fraction) -> bool:
    """`value` is the float nearest to `want` (or ties with a neighbour)."""
    err = abs(Fraction(value) - want)
    return all(
        err <= abs(Fraction(x) - want)
        for x in (math.nextafter(value, -math.inf), math.nextafter(value, math.inf))
    )


def root_nearest(value: float, square: Fraction) -> bool:
    """`value` is the float nearest to the square root of `square`: of value and its
    neighbours, the one whose square is nearest (halfway points compared exactly)."""
    lo, hi = math.nextafter(value, -math.inf), math.nextafter(value, math.inf)
    down = (Fraction(lo) + Fraction(value)) / 2
    up = (Fraction(value) + Fraction(hi)) / 2
    return (value == 0 or down * down <= square) and square <= up * up


def reference(values: list[int], counts: list[int], qs: tuple[float, ...]) -> dict[str, Any]:
    n = sum(counts)
    total = sum(v * c for v, c in zip(values, counts, strict=True))
    mean = Fraction(total, n)
    var = sum(c * (v - mean) ** 2 for v, c in zip(values, counts, strict=True)) / n
    cum, quant = 0, {}
    order = sorted(zip(values, counts, strict=True))
    for q in qs:
        k, cum = exact_rank(q, n), 0
        for v, c in order:
            cum += c
            if cum > k:
                quant[q] = v
                break
    return {"n": n, "mean": mean, "var": var, "q": quant}


def assert_exact(stats: Any, ref: dict[str, Any], scale: Fraction) -> None:
    assert stats.n == ref["n"]
    assert nearest(stats.mean, ref["mean"] * scale), (stats.mean, float(ref["mean"] * scale))
    assert root_nearest(stats.rms, ref["var"] * scale * scale), stats.rms
    for q, v in ref["q"].items():
        assert nearest(stats.quantiles[q], v * scale), (q, stats.quantiles[q], v)


# -- ranks -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("q", "n", "rank"),
    [
        (0.55, 10**8, 54_999_999),
        (0.55, 5 * 10**7, 27_499_999),
        (0.55, 2 * 10**8, 109_999_999),
        (0.55, 10**11, 54_999_999_999),
        (0.07, 28 * 10**7, 19_599_999),
        (0.5, 10**8, 49_999_999),
        (0.999, 10**12, 998_999_999_999),
        (0.0, 10**8, 0),
        (1.0, 10**8, 10**8 - 1),
    ],
)
def test_quantile_rank_is_exact_at_large_n(q: float, n: int, rank: int) -> None:
    assert stats._rank(q, n) == rank == exact_rank(q, n)


@pytest.mark.parametrize(("q", "n"), [(0.55, 10**8), (0.07, 28 * 10**7), (0.55, 10**11)])
def test_histogram_quantile_lands_on_the_exact_rank(q: float, n: int) -> None:
    """Counts that put the quantile's exact rank on the last sample of one value: one
    rank more is the next value, which the float rank printed."""
    k = exact_rank(q, n) + 1
    values, counts = np.array([10, 20], dtype=np.int64), np.array([k, n - k], dtype=np.int64)
    like = Samples(np.zeros(0, np.int64), NS)
    st_ = stats_from_histogram(values, counts, like, (q,))
    assert st_.quantiles[q] == 10.0


# -- means and RMS -----------------------------------------------------------------------


def _periods_capture(periods: list[int], level: int = 0) -> Capture:
    edges = np.concatenate(([0], np.cumsum(np.asarray(periods, dtype=np.int64))))
    cap = Capture(tick_s=NS)
    cap.add(Channel("D0", edges, initial_level=level))
    return cap


@pytest.mark.parametrize("native", KERNELS)
@pytest.mark.parametrize("edge", ["rising", "both"])
def test_c2c_mean_of_wide_spans_is_exact_on_both_paths(native: bool, edge: str) -> None:
    """Rare periods of 2^52..2^53 ticks among periods of 3: float sums of their c2c pass
    2^53 and round. The mean c2c is a telescoping sum, (last period - first period) /
    (n - 1), printed as its float on both paths."""
    periods = ([3] * 300 + [2**52 + 2, 2**53 + 6]) * 5 + [3] * 40 + [2**52 + 2]
    cap = _periods_capture(periods)
    ref = analyze(cap, edge=edge)  # type: ignore[arg-type]
    got = analyze_stream(EdgeStream.from_capture(cap, 1000), edge=edge, use_native=native)  # type: ignore[arg-type]
    for an in (ref, got):
        c2c = an.channels["D0"]["c2c"]
        chosen = cap["D0"].edges[0::2] if edge == "rising" else cap["D0"].edges
        p = np.diff(chosen).tolist()
        want = Fraction(p[-1] - p[0], len(p) - 1)  # the c2c sum telescopes
        assert nearest(c2c.mean, want), (c2c.mean, float(want))
    assert ref.channels["D0"]["c2c"].mean == got.channels["D0"]["c2c"].mean


def test_rms_of_values_near_2_62_is_exact_on_the_partition_path() -> None:
    """Three values 1 tick apart near 2^62 and one far outlier (the partition path): a
    float of 2^62 + 1 is 2^62, so float deviations lose the spread."""
    base = 2**62
    values = np.array([base, base + 1, base + 2, base + 2**30], dtype=np.int64)
    ref = reference(values.tolist(), [1] * 4, QS)
    assert_exact(compute_stats(Samples(values, NS), QS), ref, Fraction(1))


def test_mean_of_values_spanning_more_than_2_63_is_exact() -> None:
    values = np.array([-(2**62) - 5, 2**62 + 3, 2**62 + 7, 11], dtype=np.int64)
    ref = reference(values.tolist(), [1] * 4, QS)
    assert_exact(compute_stats(Samples(values, NS), QS), ref, Fraction(1))
    v, c = np.unique(values, return_counts=True)
    like = Samples(np.zeros(0, np.int64), NS)
    assert_exact(stats_from_histogram(v, c, like, QS), ref, Fraction(1))


def test_mean_in_ns_is_rounded_once_for_odd_ticks() -> None:
    """1/24 MHz: ticks times an inexact scale; the mean is the exact value's float."""
    tick = Fraction(1, 24_000_000)
    values = np.array([1, 2, 2, 7, 3**30], dtype=np.int64)
    st_ = compute_stats(Samples(values, tick), QS)
    assert nearest(st_.mean, Fraction(int(values.sum()), 5) * tick * 10**9)
    assert nearest(st_.max, Fraction(3**30) * tick * 10**9)


# -- the streaming histogram at the ends of int64 ----------------------------------------


@pytest.mark.parametrize("native", KERNELS)
@pytest.mark.parametrize(
    "edges",
    [
        [0, 1, 2, I64 - 3],  # a period near 2^63 after short ones: c2c near +2^63
        [0, I64 - 10, I64 - 9, I64 - 8],  # a long period, then short ones: c2c near -2^63
        [-(I64 - 1), -(I64 - 2), -(I64 - 3), 0],  # edges from -2^63 up
        [-(2**62), -(2**62) + 1, 2**62 - 1, 2**62],  # ±2^62
    ],
)
def test_streaming_c2c_near_2_63_matches_in_memory(native: bool, edges: list[int]) -> None:
    cap = Capture(tick_s=NS)
    cap.add(Channel("D0", np.array(edges, dtype=np.int64), initial_level=0))
    ref = analyze(cap, edge="both").to_dict()
    for chunk in (1, 2, 4):
        got = analyze_stream(EdgeStream.from_capture(cap, chunk), edge="both", use_native=native)
        doc = got.to_dict()
        assert doc == ref, chunk
        c2c = doc["channels"]["D0"]["c2c"]
        assert c2c["min_ns"] <= c2c["quantiles"]["0.5"] <= c2c["max_ns"]


@pytest.mark.parametrize(
    "values",
    [
        [I64 - 1, I64 - 2, I64 - 1000],
        [-I64, -I64 + 1, -I64 + 5000],
        [I64 - 1, -I64, 0, I64 - 1],
        [2**62, 2**62 + 1, -(2**62)],
    ],
)
def test_histogram_window_never_passes_the_int64_ends(values: list[int]) -> None:
    h = ExactHistogram()
    for v in values:
        h.add(np.array([v], dtype=np.int64))
    got_v, got_c = h.distinct()
    want_v, want_c = np.unique(np.array(values, dtype=np.int64), return_counts=True)
    assert got_v.tolist() == want_v.tolist() and got_c.tolist() == want_c.tolist()
    assert h.base >= -I64 and h.base + h.counts.size - 1 <= I64 - 1


# -- the property: the histogram path's figures are the exact ones -----------------------


@st.composite
def histograms(draw: Any) -> tuple[list[int], list[int]]:
    """Distinct int64 values from narrow to near ±2^62..2^63, counts up to 10^10 (n well
    beyond 5·10^7, where float ranks round)."""
    centre = draw(st.sampled_from([0, 2**62, -(2**62), I64 - 2**20, -I64 + 2**20]))
    spread = draw(st.sampled_from([3, 1000, 2**30, 2**61]))
    raw = draw(st.lists(st.integers(-spread, spread), min_size=1, max_size=30, unique=True))
    values = sorted({max(-I64, min(I64 - 1, centre + v)) for v in raw})
    big = draw(st.sampled_from([1, 1000, 10**8, 10**10]))
    counts = [draw(st.integers(1, big)) for _ in values]
    return values, counts


@SETTINGS
@given(h=histograms())
def test_histogram_figures_are_exact(h: tuple[list[int], list[int]]) -> None:
    values, counts = h
    like = Samples(np.zeros(0, np.int64), NS)
    got = stats_from_histogram(np.array(values, np.int64), np.array(counts, np.int64), like, QS)
    assert_exact(got, reference(values, counts, QS), Fraction(1))


@SETTINGS
@given(h=histograms(), cuts=st.lists(st.integers(1, 9), min_size=1, max_size=5))
def test_streamed_histogram_equals_in_memory_figures(
    h: tuple[list[int], list[int]], cuts: list[int]
) -> None:
    """Small counts expanded: ExactHistogram filled chunk by chunk gives the figures
    compute_stats gives for the whole array (both of its paths)."""
    values, counts = h[0], [min(c, 5) for c in h[1]]
    arr = np.repeat(np.array(values, np.int64), counts)
    np.random.default_rng(len(arr)).shuffle(arr)
    hist, pos, k = ExactHistogram(), 0, 0
    while pos < arr.size:
        hist.add(arr[pos : pos + cuts[k % len(cuts)]])
        pos, k = pos + cuts[k % len(cuts)], k + 1
    v, c = hist.distinct()
    like = Samples(np.zeros(0, np.int64), NS)
    streamed = stats_from_histogram(v, c, like, QS).to_dict()
    assert streamed == compute_stats(Samples(arr, NS), QS).to_dict()
