"""The default histogram shows the tail: a log count axis, said in its title, when the
max lies far beyond p99.9; a linear one otherwise."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from rtlab.model import Samples
from rtlab.report import plots


def _series(values: list[int]) -> list[tuple[str, Samples]]:
    return [("D0", Samples(np.array(values), Fraction(1, 10**9), name="period"))]


def test_a_far_tail_gets_a_log_count_axis_and_says_so():
    far = _series([2176, 2192, 2208] * 10_000 + [27_808])
    assert plots.tail_is_far(far)
    ch = plots.plot("hist", far, "period")
    assert ch.yscale == "log" and "far beyond p99.9" in ch.title


def test_a_tight_distribution_stays_linear():
    tight = _series([2176, 2192, 2208] * 10_000 + [2220])
    assert not plots.tail_is_far(tight)
    assert plots.plot("hist", tight, "period").yscale != "log"
    assert plots.plot("hist", tight, "period", log_y=True).yscale == "log"
