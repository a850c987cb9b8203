"""Exact arithmetic for the statistics of integer samples: ranks, sums and roots.

Samples are int64 ticks, so their sums, sums of squares and quantile ranks have exact
values; these helpers compute them with Python integers (from numpy passes over 16-bit
limbs, which never overflow int64) and round to a float once, at the end.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np

_LIMB = 16
_MASK = np.uint64((1 << _LIMB) - 1)
# products of two limbs are < 2^32: a chunk of 2^22 of them sums below 2^54
_CHUNK = 1 << 22
_SUM_MAX = 1 << 41  # values below it: a chunk sums below 2^63 without limbs


def quantile_fraction(q: float) -> Fraction:
    """The quantile as the exact decimal it is written as (0.55 is 55/100, not the
    binary float nearest to it)."""
    return Fraction(Decimal(repr(float(q))))


def rank(q: float, n: int) -> int:
    """0-based index of the inverted-CDF q-quantile in n sorted samples: the smallest
    k with k + 1 >= q * n, exact (a float q * n can land one rank off at n >= 5e7)."""
    return min(max(math.ceil(quantile_fraction(q) * n) - 1, 0), n - 1)


def offsets(values: np.ndarray, lo: int) -> np.ndarray:
    """values - lo as uint64, exact for int64 values >= lo (the span may pass 2^63)."""
    v = np.ascontiguousarray(values, dtype=np.int64).view(np.uint64)
    return v - np.uint64(lo % (1 << 64))


def _limbs(x: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """(shift, 16-bit limb as int64) of a uint64 array, the limbs that are not all 0."""
    top = int(x.max()) if x.size else 0
    out = []
    for shift in range(0, max(top.bit_length(), 1), _LIMB):
        limb = ((x >> np.uint64(shift)) & _MASK).astype(np.int64)
        if limb.any():
            out.append((shift, limb))
    return out


def dot(a: np.ndarray, b: np.ndarray | None = None) -> int:
    """Σ a·b (Σ a when b is None) of uint64 arrays, exact."""
    total = 0
    for lo in range(0, a.size, _CHUNK):
        part = a[lo : lo + _CHUNK]
        if b is None and int(part.max()) < _SUM_MAX:
            total += int(part.sum(dtype=np.uint64))
            continue
        la = _limbs(part)
        if b is None:
            total += sum(int(x.sum()) << s for s, x in la)
            continue
        lb = _limbs(b[lo : lo + _CHUNK])
        total += sum(int(np.dot(x, y)) << (s + t) for s, x in la for t, y in lb)
    return total


def dot_square(a: np.ndarray, c: np.ndarray | None = None) -> int:
    """Σ c·a² (Σ a² when c is None) of uint64 arrays, exact."""
    total = 0
    for lo in range(0, a.size, _CHUNK):
        la = _limbs(a[lo : lo + _CHUNK])
        part = c[lo : lo + _CHUNK] if c is not None else None
        for i, (s, x) in enumerate(la):
            for t, y in la[i:]:
                twice = 1 if s == t else 2
                xy = (x * y).view(np.uint64)  # < 2^32
                got = int(xy.sum()) if part is None else dot(xy, part)
                total += (twice * got) << (s + t)
    return total


def to_float(x: Fraction | int) -> float:
    """x rounded to the nearest float, once (int / int is correctly rounded)."""
    x = Fraction(x)
    return x.numerator / x.denominator


def sqrt_float(x: Fraction) -> float:
    """√x rounded to the nearest float, once (x >= 0)."""
    if x <= 0:
        return 0.0
    p, q = x.numerator, x.denominator
    # scale by 4^k so that the integer root has at least 64 bits
    k = max(0, (130 - (p.bit_length() - q.bit_length())) // 2)
    num = p << (2 * k)
    r = math.isqrt(num // q)
    exact = r * r * q == num
    # r + 1/2 stands for an inexact root: it lies strictly between r and r + 1 as the
    # root does, and no float of 53 bits has a rounding boundary inside (r, r + 1)
    return to_float(Fraction(2 * r + (0 if exact else 1), 1 << (k + 1)))
