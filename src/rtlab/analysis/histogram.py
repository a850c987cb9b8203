"""An exact histogram of int64 values, filled chunk by chunk.

Periods, widths and intervals are integers in the capture's tick, so their exact
distribution is a count per distinct value: its size is the number of distinct values,
not the number of samples. Counts live in a dense window (an int64 array indexed from
`base`, which the compiled kernel increments directly) that grows to cover new values up
to DENSE_CAP entries; values outside it (a rare long pause among 1 µs periods) are kept
as sorted (value, count) pairs. Nothing is ever rounded or dropped: the statistics of
the histogram (stats.histogram_raw_stats) are those of the whole sample array.
"""

from __future__ import annotations

import numpy as np

# 2^22 counts = 32 MiB per histogram: five metrics of a channel stay under 160 MiB.
DENSE_CAP = 1 << 22
_MIN_DENSE = 1 << 10
# Sparse (value, count) pieces are merged once this many are waiting.
_MERGE_PIECES = 64
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


def _within_int64(base: int, size: int) -> int:
    """The window's base moved so that base .. base + size - 1 are all int64 values:
    the compiled kernel indexes it by v - base, which must not wrap."""
    return max(_I64_MIN, min(base, _I64_MAX + 1 - size))


def _pow2_at_least(x: int) -> int:
    return 1 << max(int(x) - 1, 1).bit_length()


class ExactHistogram:
    """Exact counts of int64 values: `counts[i]` is how often `base + i` occurred."""

    def __init__(self) -> None:
        self.counts = np.zeros(0, dtype=np.int64)
        self.base = 0
        self._pieces: list[tuple[np.ndarray, np.ndarray]] = []  # sorted distinct, counts

    # -- filling ----------------------------------------------------------------------
    def add(self, values: np.ndarray) -> None:
        """Count every value of an int64 array."""
        if values.size == 0:
            return
        lo, hi = int(values.min()), int(values.max())
        self._cover(lo, hi)
        base, size = self.base, self.counts.size
        if base <= lo and hi < base + size:
            self._add_dense(values, lo, hi)
            return
        inside = (values >= base) & (values <= base + size - 1)  # (an int64 bound)
        if inside.any():
            v = values[inside]
            self._add_dense(v, int(v.min()), int(v.max()))
        self._add_sparse(values[~inside])

    def _add_dense(self, values: np.ndarray, lo: int, hi: int) -> None:
        """Count values within the window: O(values + their span), not O(window)."""
        off = lo - self.base
        self.counts[off : off + hi - lo + 1] += np.bincount(values - lo, minlength=hi - lo + 1)

    def _cover(self, lo: int, hi: int) -> None:
        """Grow the dense window to take [lo, hi] when it stays within DENSE_CAP."""
        size = self.counts.size
        if size == 0:
            width = hi - lo + 1
            if width > DENSE_CAP:
                return
            new = min(max(_pow2_at_least(2 * width), _MIN_DENSE), DENSE_CAP)
            self.base = _within_int64(lo - (new - width) // 2, new)
            self.counts = np.zeros(new, dtype=np.int64)
            return
        lo_w, hi_w = min(self.base, lo), max(self.base + size, hi + 1)
        width = hi_w - lo_w
        if (lo >= self.base and hi < self.base + size) or width > DENSE_CAP:
            return
        new = min(max(_pow2_at_least(width), 2 * size), DENSE_CAP)
        base = _within_int64(lo_w if lo >= self.base else hi_w - new, new)
        grown = np.zeros(new, dtype=np.int64)
        grown[self.base - base : self.base - base + size] = self.counts
        self.counts, self.base = grown, base

    def _add_sparse(self, values: np.ndarray) -> None:
        if values.size == 0:
            return
        v, c = np.unique(values, return_counts=True)
        self._pieces.append((v.astype(np.int64), c.astype(np.int64)))
        if len(self._pieces) >= _MERGE_PIECES:
            self._pieces = [self._merged_sparse()]

    def _merged_sparse(self) -> tuple[np.ndarray, np.ndarray]:
        return merge_counts(self._pieces)

    # -- reading ------------------------------------------------------------------------
    def distinct(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted distinct values, their counts), dense window and sparse rest together."""
        present = np.flatnonzero(self.counts)
        dv = (present.astype(np.uint64) + np.uint64(self.base % 2**64)).view(np.int64)
        dc = self.counts[present]
        sv, sc = self._merged_sparse()
        self._pieces = [(sv, sc)] if sv.size else []
        if sv.size == 0:
            return dv, dc
        # a value counted sparse before the window grew over it is in both: merged
        return merge_counts([(dv, dc), (sv, sc)])

    def __len__(self) -> int:
        """The number of values counted."""
        return int(self.counts.sum()) + sum(int(p[1].sum()) for p in self._pieces)


def merge_counts(
    pieces: list[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and summed counts of several (values, counts) pieces."""
    pieces = [p for p in pieces if p[0].size]
    if not pieces:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if len(pieces) == 1:
        return pieces[0]
    v = np.concatenate([p[0] for p in pieces])
    c = np.concatenate([p[1] for p in pieces])
    order = np.argsort(v, kind="stable")
    v, c = v[order], c[order]
    starts = np.flatnonzero(np.concatenate(([True], v[1:] != v[:-1])))
    return v[starts], np.add.reduceat(c, starts)
