"""One unit policy for what people read: times in ns, µs, ms or s and rates in Hz, kHz,
MHz or GHz, the unit chosen once per column (so a column's numbers line up and compare
at a glance), with as many decimals as the capture's resolution carries. Exact values
(ns, Hz) stay in --json and --csv.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

TIME_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns"))
RATE_UNITS = ((1e9, "GHz"), (1e6, "MHz"), (1e3, "kHz"), (1.0, "Hz"))


def _finite(values: Iterable[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def time_unit(values_ns: Iterable[float | None]) -> tuple[float, str]:
    """(ns per unit, unit) for a column: the largest unit its largest |value| reaches."""
    top = max((abs(v) for v in _finite(values_ns)), default=0.0)
    for scale, unit in TIME_UNITS:
        if top >= scale:
            return scale, unit
    return 1.0, "ns"


def decimals(scale: float, top: float, resolution_ns: float | None) -> int:
    """Decimals that write one tick of the resolution exactly (16 ns in µs: 3, so every
    tick shows), and at least 4 significant digits of the column's largest value; at
    most 6."""
    d = 0
    if resolution_ns and resolution_ns > 0:
        step = resolution_ns / scale  # one tick in this unit: every tick must show
        while d < 6 and abs(step * 10**d - round(step * 10**d)) > 1e-9 * max(step * 10**d, 1):
            d += 1
    if top > 0:
        d = max(d, 3 - math.floor(math.log10(top)))
    return max(0, min(d, 6))


class TimeColumn:
    """Format one column of times (ns) in its one unit."""

    def __init__(self, values_ns: Iterable[float | None], resolution_ns: float | None) -> None:
        vals = _finite(values_ns)
        self.scale, self.unit = time_unit(vals)
        top = max((abs(v) for v in vals), default=0.0) / self.scale
        self.decimals = decimals(self.scale, top, resolution_ns)

    def __call__(self, x: float | None) -> str:
        if x is None or not math.isfinite(float(x)):
            return "–"
        text = f"{x / self.scale:,.{self.decimals}f}"
        if "." in text:  # 14.000 -> 14, 2.500 -> 2.5: the digits that carry something
            text = text.rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text


def fmt_time(ns: float | None, resolution_ns: float | None = None) -> str:
    """One time with its unit: 27.808 µs, 1 ms, 16 ns."""
    if ns is None or not math.isfinite(float(ns)):
        return "–"
    col = TimeColumn([ns], resolution_ns)
    return f"{col(ns)} {col.unit}"


def fmt_rate(hz: float | None) -> str:
    """A rate as a person writes it: 6.25 MHz, 187.54 kHz, 50 Hz (6 significant digits,
    trailing zeros dropped)."""
    if hz is None or not math.isfinite(float(hz)):
        return "–"
    scale, unit = next(((s, u) for s, u in RATE_UNITS if abs(hz) >= s), RATE_UNITS[-1])
    return f"{hz / scale:.6g} {unit}"


_DURATION_UNITS = tuple(
    (Fraction(1, 10**k), u)
    for k, u in ((0, "s"), (3, "ms"), (6, "µs"), (9, "ns"), (12, "ps"), (15, "fs"))
)


def fmt_duration(seconds: Fraction) -> str:
    """An exact duration as a person writes it: 1 ms, 16 ns, 41.6667 ns, 1.5 µs."""
    for scale, unit in _DURATION_UNITS:
        if seconds >= scale or unit == "fs":
            v = seconds / scale
            if v.denominator == 1:
                return f"{v.numerator} {unit}"
            if (v * 1000).denominator == 1 or (v * 10**6).denominator == 1:
                return f"{float(v):.6f}".rstrip("0").rstrip(".") + f" {unit}"
            return f"{float(v):.6g} {unit}"
    raise AssertionError("unreachable")
