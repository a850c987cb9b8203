"""What internal may differ from external by, in a QEMU cycles run: the empty bracket's
own cost (its warm median), so that a tick landing in one empty bracket does not widen
the check for every series of the run."""

from __future__ import annotations

import numpy as np

from rtlab.lab.qemu.cycles_check import bracket_bound, outside_bracket

# marker_cost's internal figures, cold first: the µC/OS-III M3 run whose fourth warm
# sample took the tick handler with it
COST = np.array([240, 162, 162, 162, 561, 162, 162, 163, 162], dtype=np.int64)


def test_a_tick_inside_one_empty_bracket_does_not_widen_the_bound() -> None:
    assert bracket_bound(COST) == 162


def test_a_difference_beyond_the_bracket_is_counted_though_the_tick_would_have_hidden_it() -> None:
    diff = np.array([200, 46, 46, 300, 46], dtype=np.int64)  # one sample 300 > 162
    assert outside_bracket(diff, COST) == 1


def test_the_cold_sample_is_held_to_the_cold_bracket() -> None:
    assert outside_bracket(np.array([230, 46], dtype=np.int64), COST) == 0
    assert outside_bracket(np.array([250, 46], dtype=np.int64), COST) == 1
    assert outside_bracket(np.array([-250, -46], dtype=np.int64), COST) == 1
