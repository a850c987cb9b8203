"""Axis limits and readable ticks: 1-2-5 steps on a linear axis, decades (or 1-2-5 within
decades when the axis spans few) on a log axis, labels in plain numbers."""

from __future__ import annotations

import math
from collections.abc import Iterable

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def data_range(values: Iterable[float], log: bool) -> tuple[float, float] | None:
    """(min, max) of the finite values (the positive ones on a log axis), or None."""
    vs = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
    return (min(vs), max(vs)) if vs else None


def padded(lo: float, hi: float, log: bool, margin: float = 0.05) -> tuple[float, float]:
    """The limits of an axis showing [lo, hi] with a margin on each side (a unit-wide
    range around a single value)."""
    if log:
        if hi <= lo:
            return lo / 2, hi * 2
        k = (hi / lo) ** margin
        return lo / k, hi * k
    if hi <= lo:
        return lo - 1, hi + 1
    pad = (hi - lo) * margin
    return lo - pad, hi + pad


def linear_ticks(lo: float, hi: float, target: int = 6) -> list[float]:
    """Ticks inside [lo, hi] at the 1, 2 or 5 × 10^k step giving closest to `target`."""
    lo, hi = min(lo, hi), max(lo, hi)
    raw = (hi - lo) / max(1, target)
    if raw <= 0 or not math.isfinite(raw):
        return [lo]
    mag = 10 ** math.floor(math.log10(raw))
    span = (hi - lo) / mag
    step = mag * min((1, 2, 5, 10), key=lambda m: abs(span / m - target))
    first = math.ceil(lo / step - 1e-9)
    ticks = []
    i = first
    while i * step <= hi + step * 1e-9:
        ticks.append(round(i * step, 12) + 0.0)
        i += 1
    return ticks


def log_ticks(lo: float, hi: float, room: int = 12) -> tuple[list[float], list[float]]:
    """(labelled ticks, minor ticks) inside [lo, hi] of a log axis: every decade (every
    second or more over many decades), 1-2-5 within each decade when it spans less than
    2.7 decades and `room` (the labels the axis has room for) holds them, 1-2-5 steps
    of a linear axis when it spans less than one."""
    lo, hi = min(lo, hi), max(lo, hi)
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    inside = lambda v: lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)  # noqa: E731
    minor = [m * 10.0**k for k in range(k0, k1 + 1) for m in range(2, 10) if inside(m * 10.0**k)]
    decades = hi / lo
    if decades < 10**0.8:
        major = [v for v in linear_ticks(lo, hi, 4) if v > 0]
        return major, [v for v in minor if v not in major]
    subs = (1, 2, 5) if decades < 10**2.7 and 3 * math.log10(decades) + 1 <= room else (1,)
    every = max(1, math.ceil((k1 - k0) / 9))
    major = [
        m * 10.0**k
        for k in range(k0, k1 + 1)
        if k % every == 0
        for m in subs
        if inside(m * 10.0**k)
    ]
    return major, [v for v in minor if v not in major]


def log_labels(major: list[float]) -> list[str]:
    """Labels of a log axis's ticks: plain numbers, or every decade as 10ⁿ when some
    tick is beyond 10^6 or below 10^-3 (so that one axis reads one way)."""
    if any(v >= 1e7 or v < 1e-3 for v in major):
        return [label(v, power=True) for v in major]
    return [label(v) for v in major]


def label(v: float, step: float | None = None, power: bool = False) -> str:
    """A tick label: plain digits with thousands separators (10, 0.05, 1,000); powers
    of ten beyond 10^6 or below 10^-4 (any with `power`) as 10⁻⁵. `step` (a linear axis's) fixes the
    decimals so that 0.10, 0.15, 0.20 line up."""
    if v == 0:
        return "0"
    exp = math.log10(abs(v))
    if (power or exp >= 7 or exp <= -4) and abs(exp - round(exp)) < 1e-9:
        return ("−" if v < 0 else "") + "10" + str(round(exp)).translate(_SUPERSCRIPT)
    if power or abs(v) >= 1e7 or abs(v) < 1e-4:
        k = math.floor(exp)
        return f"{v / 10**k:.3g}×10{str(k).translate(_SUPERSCRIPT)}".replace("-", "−")
    if step is not None and step > 0:
        decimals = max(0, -math.floor(math.log10(step) + 1e-9))
        return f"{v:,.{decimals}f}".replace("-", "−")
    return f"{v:,.12g}".replace("-", "−")
