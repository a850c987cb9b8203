"""Integer ticks of an exact length, and Samples: arrays of them.

Times are integer ticks (int64) of a known tick length until a statistic is printed:
no float rounding of 8 ns ticks over a billion-edge capture. The tick length is an
exact rational number of seconds (a 24 MHz sample rate is 1/24e6 s, not 41.67 ns).

This is the part of rtlab.model that rtlab.analysis builds on. It computes no
statistic: rtlab.analysis.stats.compute_stats(samples) (the library's `rtlab.stats`)
does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np

Edge = Literal["rising", "falling", "both"]


# A level that the instrument could not tell (e.g. after a gap of unknown state).
UNKNOWN_LEVEL = -1


_UNITS_S = {
    "s": Fraction(1),
    "ms": Fraction(1, 10**3),
    "us": Fraction(1, 10**6),
    "µs": Fraction(1, 10**6),
    "ns": Fraction(1, 10**9),
    "ps": Fraction(1, 10**12),
    "fs": Fraction(1, 10**15),
}


# SI prefixes of a frequency: case matters for m (milli) and M (mega), so "16mHz" is
# 16 millihertz and "16MHz" 16 megahertz; an all-lowercase "16mhz" says neither and is
# refused rather than guessed.
_FREQ_PREFIX = {"G": 10**9, "g": 10**9, "M": 10**6, "k": 10**3, "K": 10**3, "": 1}
_FREQ_RE = re.compile(r"^(?P<num>.*?)(?P<prefix>[GgMkKm]?)(?P<hz>[Hh][Zz])$")


_HUGE = re.compile(r"[eE][-+]?0*[0-9]{4,}")


def exact(text: str) -> Fraction:
    """Fraction(text), refusing an exponent beyond ±999 or a text over 64 characters
    first: Fraction('1e05000000') builds a 5-million-digit integer (minutes)."""
    if len(text) > 64 or _HUGE.search(text):
        raise ValueError(f"{text[:40]!r} is out of range")
    return Fraction(text)


def _fraction(text: str, whole: str) -> Fraction:
    try:
        return exact(text)
    except ValueError as exc:
        if "out of range" in str(exc):
            raise
        raise ValueError(f"not a number in {whole!r}") from None
    except ZeroDivisionError:
        raise ValueError(f"not a number in {whole!r}") from None


def parse_frequency(text: str) -> Fraction:
    """'125MHz', '125 MHz', '1.5kHz', '16mHz' (millihertz) → Hz (exact, positive)."""
    s = text.strip().replace(" ", "")
    m = _FREQ_RE.match(s)
    if m is None:
        raise ValueError(f"frequency needs a unit (Hz, kHz, MHz, GHz, mHz): {text!r}")
    prefix, hz = m.group("prefix"), m.group("hz")
    if prefix == "m":
        if hz != "Hz":  # "16mhz", "16mHZ": megahertz typed in lower case, or millihertz?
            raise ValueError(
                f"{text!r} is ambiguous: write MHz for megahertz or mHz for millihertz"
            )
        mult = Fraction(1, 1000)
    else:
        mult = Fraction(_FREQ_PREFIX[prefix])
    freq = _fraction(m.group("num"), text) * mult
    if freq <= 0:
        raise ValueError(f"frequency must be positive: {text!r}")
    return freq


# libsigrok's size strings: suffix k/m/g in either case ("24m" is 24 MHz, as sigrok-cli reads it)
_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmg]?)\s*(?:hz)?\s*$", re.IGNORECASE)
_MULT = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}


def parse_size(text: str) -> Fraction:
    """A libsigrok size string: '1 MHz', '200 kHz', '24m', '24000000' → a number (exact)."""
    m = _SIZE_RE.match(text)
    if not m:
        raise ValueError(f"not a sample rate: {text!r}")
    return Fraction(m.group(1)) * _MULT[m.group(2).lower()]


def parse_duration(text: str) -> Fraction:
    """'16ns', '8 ns', '1/125MHz', '125MHz' (one period), '0.5us' → seconds (exact).

    Units are case-sensitive as in SI (`ms` milliseconds; `mHz` millihertz, `MHz`
    megahertz); a unit that could be read two ways is an error, never a guess."""
    s = text.strip().replace(" ", "")
    if not s:
        raise ValueError("empty duration")
    if s.startswith("1/"):
        s = s[2:]
    if s.lower().endswith("hz"):
        return 1 / parse_frequency(s)
    for suffix in sorted(_UNITS_S, key=len, reverse=True):
        if s.endswith(suffix):
            value = _fraction(s[: -len(suffix)], text)
            if value <= 0:
                raise ValueError(f"duration must be positive: {text!r}")
            return value * _UNITS_S[suffix]
    raise ValueError(f"duration needs a unit (s, ms, us, ns, ps) or a frequency (MHz): {text!r}")


# The range of a tick (or a nominal period) given as an option, everywhere it is taken
# (--tick, -O tick=, a reader's tick= keyword): beyond it the figures would overflow or
# underflow a float (1e400 s) or the value is a typo.
OPTION_TICK_RANGE_S = (Fraction(1, 10**15), Fraction(1000))


# A tick a file states (Parquet metadata, a sample rate): wider than an option's (Saleae
# CSV times have up to 18 decimals), narrow enough that ticks as floats stay finite.
FILE_TICK_RANGE_S = (Fraction(1, 10**18), Fraction(10**6))


def check_tick_range(tick_s: Fraction, what: str, span: str = "1 fs to 1000 s") -> Fraction:
    """`tick_s` if it is within OPTION_TICK_RANGE_S, else ValueError naming `what`."""
    lo, hi = OPTION_TICK_RANGE_S
    if not lo <= tick_s <= hi:
        raise ValueError(f"{what} is out of range ({span})")
    return tick_s


def format_tick(tick_s: Fraction) -> str:
    """A tick length for humans: '16 ns', '41.667 ns', '1 us'."""
    ns = tick_s * 10**9
    if ns >= 1000 and (ns / 1000).denominator == 1:
        return f"{ns / 1000} us"
    if ns.denominator == 1:
        return f"{ns} ns"
    return f"{float(ns):.6g} ns"


def as_int64(values: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype != np.int64:
        arr = arr.astype(np.int64)
    return arr


@dataclass
class Samples:
    """A 1-D array of integer durations (or counts) in ticks of `tick_s` seconds."""

    values: np.ndarray
    tick_s: Fraction
    name: str = ""
    unit: str = "s"  # what one tick measures: "s" for time, "cycles", "count", ...
    resolution_s: Fraction | None = None
    # Times (ticks) at which each value ended, when it comes from edges: for trend plots.
    at: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.values = as_int64(self.values)
        if self.values.ndim != 1:
            raise ValueError("samples must be one-dimensional")

    def __len__(self) -> int:
        return int(self.values.size)

    @property
    def tick_ns(self) -> float:
        return float(self.tick_s * 10**9)

    def to_ns(self) -> np.ndarray:
        """Float ns values, for plots: the only place ticks turn into floats."""
        return self.values * self.tick_ns


def one_value_per_time(edges: np.ndarray) -> tuple[np.ndarray, int]:
    """(edges, number dropped) with one value per time step: of k edges at one time
    (a zero-width pulse) the last value wins, i.e. one edge stays when k is odd and
    none when k is even. The rule of every reader and writer (docs/formats.md)."""
    e = as_int64(edges)
    if e.size < 2 or not bool(np.any(e[1:] == e[:-1])):
        return e, 0
    starts = np.flatnonzero(np.concatenate(([True], e[1:] != e[:-1])))
    counts = np.diff(np.append(starts, e.size))
    keep = starts[counts % 2 == 1]
    return e[keep], int(e.size - keep.size)
