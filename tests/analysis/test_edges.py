from fractions import Fraction

import numpy as np
import pytest

import rtlab
from rtlab import intervals as iv
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel
from tests.conftest import square_wave


def test_periods_widths_intervals_c2c_match_the_generator(jittery_capture) -> None:
    cap, highs, lows = jittery_capture
    ch = cap["D0"]
    np.testing.assert_array_equal(ch.widths("high").values, highs)
    np.testing.assert_array_equal(ch.widths("low").values, lows)
    periods = highs + lows  # rising to rising
    np.testing.assert_array_equal(ch.periods("rising").values, periods)
    np.testing.assert_array_equal(ch.periods("falling").values, lows[:-1] + highs[1:])
    inter = np.empty(highs.size * 2, np.int64)
    inter[0::2], inter[1::2] = highs, lows
    np.testing.assert_array_equal(ch.intervals().values, inter)
    np.testing.assert_array_equal(ch.c2c().values, np.diff(periods))
    st = rtlab.stats(ch.periods())
    assert st.mean == pytest.approx(periods.mean() * 16)
    assert st.rms == pytest.approx(periods.std() * 16)


def test_initial_high_swaps_polarity() -> None:
    cap = Capture(tick_s=Fraction(1, 10**9))
    cap.add(Channel("x", np.array([10, 13, 20, 23, 30]), initial_level=1))
    # edges: 10 falling, 13 rising, 20 falling, 23 rising, 30 falling
    np.testing.assert_array_equal(cap["x"].edge_times("rising"), [13, 23])
    np.testing.assert_array_equal(cap["x"].widths("high").values, [7, 7])
    np.testing.assert_array_equal(cap["x"].widths("low").values, [3, 3])


def test_no_interval_spans_a_gap() -> None:
    # rising every 100 ticks; data lost in [450, 720); resumes high at 720
    e1 = np.array([0, 50, 100, 150, 200, 250, 300, 350, 400])  # ends low after 400? no:
    # 0 r, 50 f, 100 r, ... 400 r -> level high at the gap start
    e2 = np.array([750, 800, 850, 900])  # after the gap the level is high: 750 f, 800 r...
    cap = Capture(tick_s=Fraction(1, 10**9), gaps=[[450, 720]])
    cap.add(Channel("D0", np.concatenate([e1, e2]), 0, gap_levels=np.array([1])))
    ch = cap["D0"]
    np.testing.assert_array_equal(ch.edge_times("rising"), [0, 100, 200, 300, 400, 800, 900])
    np.testing.assert_array_equal(ch.periods().values, [100, 100, 100, 100, 100])
    assert np.all(ch.intervals().values == 50)
    assert len(ch.intervals()) == 8 + 3
    np.testing.assert_array_equal(ch.widths("high").values, [50] * 4 + [50])
    assert np.all(ch.c2c().values == 0) and len(ch.c2c()) == 3 + 0
    levels = iv.levels_before(cap, ch)
    assert list(levels[-4:]) == [1, 0, 1, 0]


def test_unknown_level_after_gap_excludes_polarity_but_keeps_intervals() -> None:
    cap = Capture(tick_s=Fraction(1, 10**9), gaps=[[35, 60]])
    cap.add(
        Channel(
            "D0", np.array([0, 10, 20, 30, 60, 70, 80]), 0, gap_levels=np.array([UNKNOWN_LEVEL])
        )
    )
    ch = cap["D0"]
    np.testing.assert_array_equal(ch.edge_times("rising"), [0, 20])
    assert len(ch.intervals()) == 3 + 2


def test_tie_of_a_perfect_clock_is_zero_and_reports_the_frequency() -> None:
    cap = Capture(tick_s=Fraction(1, 10**9))
    e = np.arange(0, 10_000_000, 500)  # 1 MHz square wave, 1 ns ticks
    cap.add(Channel("clk", e, 0))
    r = rtlab.tie(cap, cap["clk"], nominal_hz=999_000.0)
    assert np.all(r.samples.values == 0)
    assert r.frequency_hz == pytest.approx(1e6)
    assert r.offset_ppm == pytest.approx(1001.001, rel=1e-4)


def test_tie_sees_a_phase_step_and_survives_a_missing_edge() -> None:
    cap = Capture(tick_s=Fraction(1, 10**9))
    rising = np.arange(0, 1000) * 1000
    rising[500:] += 10  # a 10 ns phase step
    rising = np.delete(rising, 700)  # one lost cycle
    e = np.sort(np.concatenate([rising, rising + 500]))
    cap.add(Channel("clk", e, 0))
    tie = rtlab.stats(rtlab.tie(cap, cap["clk"]).samples)
    assert tie.max - tie.min == pytest.approx(10, abs=0.1)  # ns


def test_latency_pairs_unpaired_and_extra() -> None:
    cap = Capture(tick_s=Fraction(1, 10**9))
    a = np.array([0, 5, 100, 105, 200, 205, 300, 305])  # rising at 0, 100, 200, 300
    b = np.array([7, 9, 110, 120, 130, 140, 310, 315, 320, 325])  # rising 7, 110, 130, 310, 320
    cap.add(Channel("irq", a, 0))
    cap.add(Channel("task", b, 0))
    r = rtlab.latency(cap, "irq", "task")
    np.testing.assert_array_equal(r.samples.values, [7, 10, 10])
    assert r.unpaired == 1  # the A edge at 200 has no response before 300
    assert r.extra == 2  # 130 and 320 are second responses
    assert r.n_source == 4 and r.n_target == 5


def test_analyze_document_has_every_metric(jittery_capture) -> None:
    cap, _, _ = jittery_capture
    cap.add(Channel("D1", cap["D0"].edges + 7, 0))
    doc = rtlab.analyze(cap, latency_pairs=[("D0", "D1")]).to_dict()
    for metric in ("period", "high", "low", "interval", "c2c"):
        assert doc["channels"]["D0"][metric]["n"] > 0
    lat = doc["latency"]["D0:D1"]
    assert lat["min_ns"] == lat["max_ns"] == 7 * 16
    assert lat["unpaired"] == 0 and lat["extra"] == 0
    assert doc["channels"]["D0"]["frequency_hz"] == pytest.approx(
        1e9 / doc["channels"]["D0"]["period"]["mean_ns"]
    )


def test_square_wave_helper() -> None:
    np.testing.assert_array_equal(
        square_wave(np.array([2, 2]), np.array([3, 3]), 0), [0, 2, 5, 7, 10]
    )


def test_short_channel_names_through_reader_aliases() -> None:
    cap = Capture(tick_s=Fraction(1, 10**9), metadata={"aliases": {"clk": "tb.u.clk"}})
    cap.add(Channel("tb.u.clk", np.arange(0, 100, 10), 0))
    assert cap["clk"] is cap["tb.u.clk"]
    with pytest.raises(KeyError, match="no channel 'clock'"):
        cap["clock"]
