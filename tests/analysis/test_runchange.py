"""The interval over runs (rtlab.analysis.runchange): Student's t quantiles, its false-fail
rate on A against A' from a known model with run-to-run variance, its power on a real
+30 % shift, and no interval where the data cannot give one."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from rtlab.analysis.runchange import change_intervals, run_quantiles, t_quantile
from tests.analysis.latency_model import NOISY, QUIET

QS = [0.5, 0.99, 0.999, 1.0]  # median, p99, p99.9, max: what `rtlab compare` shows


@pytest.mark.parametrize(
    ("p", "df", "t"),
    [  # Student's t table
        (0.975, 1, 12.7062),
        (0.975, 2, 4.3027),
        (0.975, 5, 2.5706),
        (0.975, 10, 2.2281),
        (0.975, 30, 2.0423),
        (0.975, 1e6, 1.9600),
        (0.95, 3, 2.3534),
        (0.995, 4, 4.6041),
    ],
)
def test_t_quantile_matches_the_table(p: float, df: float, t: float) -> None:
    assert t_quantile(p, df) == pytest.approx(t, abs=1e-4)


def test_a_against_a_prime_fails_at_most_at_the_nominal_rate() -> None:
    """1200 pairs of 4 runs against 4 other runs of the same noisy model (per-run p99
    spread ×10, as on the shared VM): a `> +0%` gate on the interval's lower bound (and
    `< -0%` on its upper) fails at most 2.5 % + 1.5 % (3 binomial SD) of the pairs, for
    every metric."""
    rng = np.random.default_rng(22)
    n = 1200
    up = np.zeros(len(QS))
    down = np.zeros(len(QS))
    for _ in range(n):
        a = run_quantiles(NOISY.runs(rng, 4), QS)
        b = run_quantiles(NOISY.runs(rng, 4), QS)
        ivs = change_intervals(a, b)
        up += [iv.low_pct is not None and iv.low_pct > 0 for iv in ivs]
        down += [iv.high_pct is not None and iv.high_pct < 0 for iv in ivs]
    assert (up / n <= 0.04).all() and (down / n <= 0.04).all(), (up / n, down / n)
    assert (up + down).sum() > 0  # not vacuous: the interval is not infinitely wide


def test_a_real_30_percent_shift_fails_a_10_percent_gate() -> None:
    """5 runs a side on a quiet machine (per-run p99 spread ≈ 5 %): NEW 30 % slower is
    detected past a +10 % bound on median and p99 in ≥ 95 % of 100 pairs. The p99.9 and
    max of 2000-sample runs sit in a tail of 4 events a run: their intervals stay wide
    and the gate does not claim a change it cannot see."""
    rng = np.random.default_rng(30)
    n = 100
    hits = np.zeros(len(QS))
    for _ in range(n):
        a = run_quantiles(QUIET.runs(rng, 5), QS)
        b = run_quantiles(QUIET.runs(rng, 5, factor=1.3), QS)
        hits += [iv.low_pct is not None and iv.low_pct > 10 for iv in change_intervals(a, b)]
    assert hits[0] / n >= 0.95 and hits[1] / n >= 0.95, hits / n
    assert hits[3] / n < 0.5, hits / n


def test_one_run_a_side_gives_no_interval() -> None:
    rng = np.random.default_rng(1)
    a = run_quantiles(NOISY.runs(rng, 1), QS)
    b = run_quantiles(NOISY.runs(rng, 4), QS)
    for iv in change_intervals(a, b) + change_intervals(b, a):
        assert iv.low_pct is None and iv.high_pct is None
        assert re.search(r"\b1 run\b", iv.note) and "4 runs" in iv.note and "≥ 2 runs" in iv.note


def test_non_positive_values_give_no_interval() -> None:
    a = np.array([[0.0], [1.0], [2.0]])
    b = np.array([[1.0], [2.0], [3.0]])
    (iv,) = change_intervals(a, b)
    assert iv.low_pct is None and "≤ 0" in iv.note


def test_runs_that_agree_exactly_give_the_exact_change() -> None:
    a = np.full((3, 1), 100.0)
    b = np.full((4, 1), 125.0)
    (iv,) = change_intervals(a, b)
    assert iv.low_pct == pytest.approx(25.0) and iv.high_pct == pytest.approx(25.0)


def test_the_interval_widens_with_the_spread_and_narrows_with_runs() -> None:
    """Two runs a side: Welch's t has ~2 degrees of freedom (t = 4.3), not the normal's
    1.96; the half-width on the log scale is t × sqrt(s²/k_a + s²/k_b)."""
    a = np.log([[100.0], [110.0]])
    (iv,) = change_intervals(np.exp(a), np.exp(a))
    s = float(np.std(a, ddof=1))
    half = t_quantile(0.975, 2) * math.sqrt(s * s / 2 + s * s / 2)
    assert iv.high_pct == pytest.approx(math.expm1(half) * 100)
    assert iv.low_pct == pytest.approx(math.expm1(-half) * 100)
