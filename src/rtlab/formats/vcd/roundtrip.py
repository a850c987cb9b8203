"""What write() puts into a VCD so that read() gets the exact capture back: a top scope
`rtlab`, a header comment with the exact tick and window (and the tick of `#0` when an
edge lies at the window's start), a comment with the channel names that VCD cannot
spell, and times in timescale units that convert back to whole ticks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from urllib.parse import quote, unquote

import numpy as np

from rtlab.errors import FormatError

# `$comment rtlab tick_s=16/1000000000 t_start=0 t_end=100 $end`, written by write();
# `t_zero=` (the tick of `#0`, one before t_start) when an edge lies at t_start
RTLAB_RE = re.compile(
    rb"\$comment\s+rtlab\s+tick_s=([0-9]{1,20})/([0-9]{1,20})\s+t_start=(-?[0-9]{1,20})"
    rb"\s+t_end=(-?[0-9]{1,20})(?:\s+t_zero=(-?[0-9]{1,20}))?\s+\$end"
)
# `$comment rtlab names David%20Prowse ... $end`: every channel's name in declared
# order, percent-encoded, when one of them is not the name its VCD variable spells
NAMES_RE = re.compile(rb"\$comment\s+rtlab\s+names((?:\s+[A-Za-z0-9_.~%-]+)*)\s+\$end")


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


@dataclass(frozen=True)
class Rtlab:
    """What the comments write() puts in say: tick / timescale, the exact tick, the
    window, the tick of `#0` and the channel names by declared full name."""

    ratio: Fraction
    tick: Fraction
    t_start: int
    t_end: int
    t_zero: int
    names: dict[str, str]


def encode_names(names: list[str]) -> str:
    """The names comment (see NAMES_RE)."""
    return "$comment rtlab names " + " ".join(quote(n, safe="") for n in names) + " $end"


def apply_rtlab(path: Path, head: bytes, ts: Fraction, declared: list[str]) -> Rtlab | None:
    """The comments write() puts in (None for a VCD that rtlab did not write);
    `declared` the full names of the variables in declared order."""
    m = RTLAB_RE.search(head)
    if m is None:
        return None
    num, den = int(m.group(1)), int(m.group(2))
    lo, hi = int(m.group(3)), int(m.group(4))
    zero = lo if m.group(5) is None else int(m.group(5))
    if den == 0 or check_tick(Fraction(num, den)) is not None:
        raise FormatError(path, f"rtlab header comment: tick {num}/{den} s out of range")
    if not (
        -(2**63) <= zero <= lo <= hi < 2**63 and abs(lo) < 2**63 and hi - zero <= _TIME_MAX
    ):
        raise FormatError(path, f"rtlab header comment: window {lo}..{hi} out of range")
    names: dict[str, str] = {}
    found = NAMES_RE.search(head)
    if found is not None:
        spelled = [unquote(n.decode("ascii")) for n in found.group(1).split()]
        if len(spelled) != len(declared):
            raise FormatError(
                path,
                f"rtlab names comment: {len(spelled)} names for {len(declared)} variables",
            )
        names = dict(zip(declared, spelled, strict=True))
    tick = Fraction(num, den)
    return Rtlab(tick / ts, tick, lo, hi, zero, names)


def _muldiv_round(x: np.ndarray, p: int, q: int) -> np.ndarray:
    """round(x * p / q) (halves up) for int64 x >= 0, exact: x = a*q + b, so the result
    is a*p + round(b*p / q) with b < q; in int64 when q*p is small, else Python ints."""
    if x.size == 0:
        return x.astype(np.int64)
    if q == 1:
        return x * p
    if 2 * q * p + q < 2**63:
        a, b = np.divmod(x, q)
        return a * p + (b * (2 * p) + q) // (2 * q)
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
