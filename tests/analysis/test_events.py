"""Events with their start times (rtlab.analysis.events): the values the histograms
count, split anywhere into chunks, across gaps, and the extremes' tie rule."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from rtlab import intervals as iv
from rtlab.analysis.events import ChannelEvents, Extremes, channel_extremes
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel


def _capture(edges: list[int], level: int = 0, gaps: list[list[int]] | None = None,
             gap_levels: list[int] | None = None) -> Capture:  # fmt: skip
    g = np.array(gaps or [], dtype=np.int64).reshape(-1, 2)
    gl = np.array(gap_levels, dtype=np.int64) if gap_levels is not None else None
    return Capture(Fraction(1, 10**9), {"A": Channel("A", np.array(edges), level, gl)}, g)


def _walk(cap: Capture, edge: str, cut: list[int]) -> dict[str, tuple[list, list]]:
    """Every event of channel A, fed in chunks split at the `cut` indices."""
    ch = cap["A"]
    walk = ChannelEvents(ch, cap.gaps, edge)  # type: ignore[arg-type]
    out: dict[str, tuple[list, list]] = {}
    for part in np.split(ch.edges, cut):
        for ev in walk.feed(part):
            for m, (s, v) in ev.items():
                out.setdefault(m, ([], []))
                out[m][0].extend(s.tolist())
                out[m][1].extend(v.tolist())
    return out


RNG = np.random.default_rng(7)
EDGES = np.cumsum(RNG.integers(1, 50, 400)).tolist()


@pytest.mark.parametrize("edge", ["rising", "falling", "both"])
@pytest.mark.parametrize("level", [0, 1, UNKNOWN_LEVEL])
@pytest.mark.parametrize("cut", [[], [1], [5, 6, 7, 200], [399]])
def test_event_values_are_the_intervals_values_wherever_chunks_split(edge, level, cut):
    cap = _capture(EDGES, level, [[EDGES[100] + 1, EDGES[101] - 1]], [1])
    ev = _walk(cap, edge, cut)
    ch = cap["A"]
    want = {
        "period": iv.periods(cap, ch, edge),
        "high": iv.widths(cap, ch, "high"),
        "low": iv.widths(cap, ch, "low"),
        "interval": iv.intervals(cap, ch),
        "c2c": iv.cycle_to_cycle(cap, ch, edge),
    }
    for m, s in want.items():
        got = ev.get(m, ([], []))
        assert got[1] == s.values.tolist(), m
        if m in ("period", "high", "low", "interval"):
            # each event starts where it ends minus its value
            ends = np.array(got[0]) + np.array(got[1])
            assert ends.tolist() == s.at.tolist(), m


def test_a_period_starts_at_its_first_rising_edge():
    cap = _capture([10, 15, 30, 32, 100, 101])
    ev = _walk(cap, "rising", [3])
    assert ev["period"] == ([10, 30], [20, 70])
    assert ev["high"] == ([10, 30, 100], [5, 2, 1])
    assert ev["low"] == ([15, 32], [15, 68])
    assert ev["c2c"] == ([10], [50])


def test_nothing_spans_a_gap_and_the_level_resumes_from_the_gap_level():
    cap = _capture([10, 20, 30, 60, 70], 0, [[35, 50]], [1])
    ev = _walk(cap, "rising", [])
    # after the gap the line is high: 60 is falling, 70 rising
    assert ev["period"] == ([10], [20])
    assert ev["interval"] == ([10, 20, 60], [10, 10, 10])
    assert ev["low"] == ([20, 60], [10, 10])


def test_extremes_keep_the_earliest_of_equal_values_across_chunks():
    ext = Extremes(2)
    ext.add(np.array([0, 10, 20, 30]), np.array([5, 9, 9, 1]))
    ext.add(np.array([40, 50]), np.array([9, 1]))
    assert ext.largest == [(9, 10), (9, 20)]
    assert ext.smallest == [(1, 30), (1, 50)]


def test_channel_extremes_of_a_loaded_channel():
    cap = _capture([0, 1, 10, 11, 13, 14], 0)
    ext = channel_extremes(cap["A"], cap.gaps, "rising", 1)
    assert ext["period"].largest == [(10, 0)]
    assert ext["period"].smallest == [(3, 10)]
