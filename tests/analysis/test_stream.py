"""Streaming analysis gives the figures of the in-memory analysis, chunked anywhere.

A property test over random captures (gaps, unknown levels, every edge mode, outliers
far outside the histogram window, periods near 2^62, edges near both ends of int64)
with chunk boundaries anywhere, inside a pulse too,
for the compiled kernel and its numpy twin; and the exact histogram against np.unique.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtlab.analysis import kernel
from rtlab.analysis.histogram import DENSE_CAP, ExactHistogram
from rtlab.analysis.stream import analyze_stream
from rtlab.analysis.summary import analyze
from rtlab.model import Capture, Channel, EdgeStream

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
KERNELS = [False, *([True] if kernel.native_available() else [])]


@st.composite
def captures(draw: Any) -> Capture:
    """One or two channels; durations from narrow to wide; gaps with known or unknown
    resume levels; an unknown initial level sometimes."""
    cap = Capture(tick_s=Fraction(16, 10**9))
    top = draw(st.sampled_from([2, 40, 10**5, 10**12]))
    names = ["D0", "D1"][: draw(st.integers(1, 2))]
    # far outside the dense window, or a period near 2^62 (c2c near ±2^62); edges near
    # the ends of int64
    far = draw(st.sampled_from([10**13, 2**62 - 2**52]))
    origin = draw(st.sampled_from([1, -(2**62)] if far > 10**13 else [1, 2**62, -(2**63) + 2]))
    series = []
    for _ in names:
        d = draw(st.lists(st.integers(0, top), max_size=120))
        if d and draw(st.booleans()):
            d[draw(st.integers(0, len(d) - 1))] += far
        series.append(np.cumsum(np.asarray(d, dtype=np.int64)) + origin)
    ends = [int(s[-1]) for s in series if s.size]
    last = max(ends, default=0)
    gaps = []
    first = min([int(s[0]) for s in series if s.size], default=0)
    for start in sorted(draw(st.lists(st.integers(first, last + 1), max_size=3, unique=True))):
        end = start + draw(st.integers(1, 50))
        if gaps and start <= gaps[-1][1]:
            continue
        gaps.append([start, end])
    cap.gaps = np.asarray(gaps, dtype=np.int64).reshape(-1, 2)
    for name, e in zip(names, series, strict=True):
        for a, b in gaps:  # no edge inside a gap (the readers' promise)
            e = e[(e < a) | (e >= b)]
        levels = draw(st.lists(st.integers(-1, 1), min_size=len(gaps), max_size=len(gaps)))
        gl = np.asarray(levels, dtype=np.int8) if draw(st.booleans()) else None
        cap.add(Channel(name, e, draw(st.sampled_from([0, 1, 1, -1])), gl))
    return cap


def _doc(an: Any) -> dict[str, Any]:
    return json.loads(json.dumps(an.to_dict(), default=str))


def assert_same_figures(ref: dict[str, Any], got: dict[str, Any]) -> None:
    """Identical documents: every figure is the exact value rounded once, on both paths
    and whatever the values' span (stats.py, exact.py)."""
    assert got == ref


@pytest.mark.parametrize("native", KERNELS)
@pytest.mark.parametrize("edge", ["rising", "falling", "both"])
@SETTINGS
@given(cap=captures(), chunk=st.integers(1, 37))
def test_streaming_equals_in_memory(cap: Capture, chunk: int, native: bool, edge: str) -> None:
    ref = _doc(analyze(cap, edge=edge))  # type: ignore[arg-type]
    an = analyze_stream(EdgeStream.from_capture(cap, chunk), edge=edge, use_native=native)  # type: ignore[arg-type]
    assert_same_figures(ref, _doc(an))


@pytest.mark.parametrize("native", KERNELS)
def test_narrow_values_are_bit_identical(native: bool) -> None:
    """The usual case (periods within the histogram range): every figure bit for bit,
    and a chunk boundary inside a high pulse (odd chunk sizes) changes nothing."""
    rng = np.random.default_rng(5)
    e = np.cumsum(rng.integers(60, 80, 100_001)).astype(np.int64)
    cap = Capture(tick_s=Fraction(16, 10**9), gaps=np.array([[int(e[500]) + 1, int(e[501])]]))
    cap.add(Channel("D0", e, 0, np.array([1], dtype=np.int8)))
    ref = analyze(cap).to_dict()
    for chunk in (1, 3, 4095, 1 << 22):
        got = analyze_stream(EdgeStream.from_capture(cap, chunk), use_native=native).to_dict()
        assert json.dumps(got, default=str) == json.dumps(ref, default=str)


@SETTINGS
@given(
    values=st.lists(st.integers(-(2**40), 2**40), max_size=300),
    cuts=st.lists(st.integers(1, 50), min_size=1, max_size=10),
    spread=st.sampled_from([1, 7, DENSE_CAP // 3, 2**40]),
)
def test_histogram_counts_exactly(values: list[int], cuts: list[int], spread: int) -> None:
    v = np.asarray(values, dtype=np.int64) % spread
    h = ExactHistogram()
    pos, k = 0, 0
    while pos < v.size:
        step = cuts[k % len(cuts)]
        h.add(v[pos : pos + step])
        pos, k = pos + step, k + 1
    got_v, got_c = h.distinct()
    want_v, want_c = np.unique(v, return_counts=True)
    assert got_v.tolist() == want_v.tolist()
    assert got_c.tolist() == want_c.tolist()
    assert len(h) == v.size
    assert h.counts.size <= DENSE_CAP


@pytest.mark.skipif(not kernel.native_available(), reason="rtlab_native not installed")
def test_kernel_spills_what_its_histograms_cannot_hold() -> None:
    """More out-of-window values than the overflow buffer takes in one call: the pass
    stops, the caller drains and resumes, and nothing is lost."""
    rng = np.random.default_rng(1)
    e = np.cumsum(rng.integers(1, 2**45, 300_000)).astype(np.int64)
    hists_n = [ExactHistogram() for _ in kernel.METRICS]
    hists_p = [ExactHistogram() for _ in kernel.METRICS]
    st_n, st_p = kernel.new_state(0, "rising"), kernel.new_state(0, "rising")
    kernel.accumulate(e, st_n, hists_n, use_native=True)
    kernel.accumulate(e, st_p, hists_p, use_native=False)
    assert st_n.tolist() == st_p.tolist()
    for a, b in zip(hists_n, hists_p, strict=True):
        assert [x.tolist() for x in a.distinct()] == [x.tolist() for x in b.distinct()]
    assert sum(len(h) for h in hists_n[1:3]) == e.size - 1


@pytest.mark.skipif(not kernel.native_available(), reason="rtlab_native not installed")
@pytest.mark.parametrize("edge", ["rising", "falling", "both"])
@pytest.mark.parametrize("level", [0, 1, -1])
def test_kernel_steady_state_loop_equals_numpy(edge: str, level: int) -> None:
    """The compiled kernel's pair loop (a known level, every value in range) leaves it
    at a rare outlier and comes back: histograms and state equal to the numpy twin's,
    over chunks of every parity."""
    rng = np.random.default_rng(11)
    d = rng.integers(60, 80, 200_001)
    d[rng.random(d.size) < 1e-3] += 10**7  # outside the dense window: the general loop
    e = np.cumsum(d).astype(np.int64)
    got: list[Any] = []
    for native in (True, False):
        hists = [ExactHistogram() for _ in kernel.METRICS]
        state = kernel.new_state(level, edge)
        for lo, hi in ((0, 7), (7, 60_000), (60_000, 60_001), (60_001, e.size)):
            kernel.accumulate(e[lo:hi], state, hists, use_native=native)
        got.append((state.tolist(), [[x.tolist() for x in h.distinct()] for h in hists]))
    assert got[0] == got[1]
