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


# The exact tick of the header comment: numerator and denominator below 2^62 (a sample
# rate of any whole number of Hz up to 4.6e18, and any decimal tick rtlab reads).
_TICK_PART_MAX = 2**62
_TIME_MAX = 2**63 - 1  # the largest VCD time the reader takes (timeline.py)


def check_tick(tick: Fraction) -> str | None:
    """Why write() cannot put `tick` in the header comment, or None: the writer and the
    reader accept the same ticks."""
    if not (0 < tick.numerator < _TICK_PART_MAX and 0 < tick.denominator < _TICK_PART_MAX):
        return f"tick {tick} s: numerator and denominator must be below 2^62"
    return None


def apply_rtlab(
    path: Path, m: re.Match[bytes], ts: Fraction
) -> tuple[Fraction, Fraction, int, int]:
    """(tick / timescale, tick, t_start, t_end) from the comment write() puts in."""
    num, den = int(m.group(1)), int(m.group(2))
    lo, hi = int(m.group(3)), int(m.group(4))
    if den == 0 or check_tick(Fraction(num, den)) is not None:
        raise FormatError(path, f"rtlab header comment: tick {num}/{den} s out of range")
    if not (abs(lo) < 2**63 and abs(hi) < 2**63 and lo <= hi and hi - lo <= _TIME_MAX):
        raise FormatError(path, f"rtlab header comment: window {lo}..{hi} out of range")
    tick = Fraction(num, den)
    return tick / ts, tick, lo, hi


def _muldiv_round(x: np.ndarray, p: int, q: int) -> np.ndarray:
    """round(x * p / q) (halves up) for int64 x >= 0, exact: x = a*q + b, so the result
    is a*p + round(b*p / q) with b < q; in int64 when q*p is small, else Python ints."""
    if x.size == 0:
        return x.astype(np.int64)
    if q == 1:
        return x * p
    if 2 * q * p + q < 2**63:
        a, b = np.divmod(x, q)
        rounded: np.ndarray = a * p + (b * (2 * p) + q) // (2 * q)
        return rounded
    out = [(v * 2 * p + q) // (2 * q) for v in x.tolist()]
    return np.array(out, dtype=np.int64)


def fits_units(span: int, ratio: Fraction) -> bool:
    """True when `span` ticks are at most 2^63 - 1 timescale units (and back)."""
    units = (span * 2 * ratio.numerator + ratio.denominator) // (2 * ratio.denominator)
    return span >= 0 and units <= _TIME_MAX


def to_units(rel: np.ndarray, ratio: Fraction) -> np.ndarray:
    """Ticks (>= 0) → timescale units, rounded to nearest (exact when ratio is whole);
    the caller has checked the largest with fits_units."""
    return _muldiv_round(np.asarray(rel, dtype=np.int64), ratio.numerator, ratio.denominator)


def from_units(path: Path, name: str, v: np.ndarray, ratio: Fraction) -> np.ndarray:
    """Timescale units → ticks, checking that they came from whole ticks."""
    p, q = ratio.numerator, ratio.denominator
    if v.size and (int(v.max()) * 2 * q + p) // (2 * p) > _TIME_MAX:
        raise FormatError(path, f"{name}: times too large for the rtlab tick")
    t = _muldiv_round(np.asarray(v, dtype=np.int64), q, p)
    if not np.array_equal(to_units(t, ratio), v):
        raise FormatError(path, f"{name}: a change is not on the rtlab tick grid")
    return t
