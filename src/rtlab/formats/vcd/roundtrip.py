"""What write() puts into a VCD so that read() gets the exact capture back: a top scope
`rtlab`, a header comment with the exact tick and window, and times in timescale units
that convert back to whole ticks."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np

from rtlab.errors import FormatError

# `$comment rtlab tick_s=16/1000000000 t_start=0 t_end=100 $end`, written by write()
RTLAB_RE = re.compile(
    rb"\$comment\s+rtlab\s+tick_s=([0-9]{1,20})/([0-9]{1,20})\s+t_start=(-?[0-9]{1,20})"
    rb"\s+t_end=(-?[0-9]{1,20})\s+\$end"
)


ROOT = "rtlab"  # top scope the writer adds; the reader strips it back off


def apply_rtlab(
    path: Path, m: re.Match[bytes], ts: Fraction
) -> tuple[Fraction, Fraction, int, int]:
    """(tick / timescale, tick, t_start, t_end) from the comment write() puts in."""
    num, den = int(m.group(1)), int(m.group(2))
    lo, hi = int(m.group(3)), int(m.group(4))
    if not (0 < num < 2**40 and 0 < den < 2**62 and abs(lo) < 2**62 and abs(hi) < 2**62):
        raise FormatError(path, "rtlab header comment: tick or window out of range")
    tick = Fraction(num, den)
    ratio = tick / ts
    if max(ratio.numerator, ratio.denominator) >= 2**31:
        raise FormatError(path, "rtlab header comment: tick does not fit the timescale")
    return ratio, tick, lo, hi


def to_units(rel: np.ndarray, ratio: Fraction) -> np.ndarray:
    """Ticks → timescale units, rounded to nearest (exact when ratio is whole)."""
    p, q = ratio.numerator, ratio.denominator
    if q == 1:
        return rel * p
    return (rel * (2 * p) + q) // (2 * q)


def from_units(path: Path, name: str, v: np.ndarray, ratio: Fraction) -> np.ndarray:
    """Timescale units → ticks, checking that they came from whole ticks."""
    p, q = ratio.numerator, ratio.denominator
    if v.size and int(np.abs(v).max()) > (2**62) // (2 * q):
        raise FormatError(path, f"{name}: times too large for the rtlab tick")
    t = (v * (2 * q) + p) // (2 * p)
    if not np.array_equal(to_units(t, ratio), v):
        raise FormatError(path, f"{name}: a change is not on the rtlab tick grid")
    return t
