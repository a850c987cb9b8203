"""Repetitions pooled: the one way rtlab puts the samples of several runs together.

A cell's distribution is all its repetitions' samples together (docs/metrics.md), each
run's values kept as the integers they were: runs in different ticks are pooled exactly
in the largest tick every one of them is a whole multiple of, never through floats.
rtlab.results.query.pool reads the stored series and pools them here; a study that
derives its own per-run series (user space's actual period from its wake-up latency)
pools those the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import gcd

import numpy as np

from rtlab.ticks import Samples


def common_tick(ticks: Sequence[Fraction]) -> Fraction:
    """The largest tick every given tick is an integer multiple of (exact)."""
    num = 0
    den = 1
    for t in ticks:
        num = gcd(num, t.numerator)
        den = den * t.denominator // gcd(den, t.denominator)
    return Fraction(num, den)


def pool(parts: Sequence[Samples], name: str = "") -> Samples | None:
    """The parts (one Samples per run, in order) as one Samples; None for no parts.

    Time parts (unit "s") are rescaled to their common tick, exactly; other units are
    pooled only with parts of the same unit and tick (a count is not a duration).
    ValueError when the parts mix units, or non-time parts mix ticks."""
    if not parts:
        return None
    name = name or parts[0].name
    units = {p.unit for p in parts}
    if len(units) > 1:
        raise ValueError(f"cannot pool {name!r}: its runs give it in {', '.join(sorted(units))}")
    unit = units.pop()
    ticks = [p.tick_s for p in parts]
    if unit == "s":
        tick = common_tick(ticks)
        values = [p.values * int(p.tick_s / tick) if p.tick_s != tick else p.values for p in parts]
    else:
        if len(set(ticks)) > 1:
            raise ValueError(f"cannot pool {name!r}: its runs count it in different ticks")
        tick, values = ticks[0], [p.values for p in parts]
    return Samples(np.concatenate(values), tick, name=name, unit=unit)
