"""The hot loop of streaming analysis: one segment's edges into five histograms.

Two implementations of one contract (native/src/lib.rs states it): the compiled
`rtlab_native.accumulate` (Rust, built by maturin; `make setup` installs it) when it is
importable, and `accumulate_numpy`, its vectorized twin, otherwise. Both read and write
the same state vector, so a chunk boundary may fall anywhere (inside a pulse too), and
count the same values; tests/analysis/test_stream.py runs both on the same edges.

An interval whose level is known is counted once, as a high or a low width: the
intervals are their union (ChannelStream merges them); `interval` holds only the
intervals of unknown level.

State (int64[8]): level before the next edge (0, 1, -1 unknown), have_prev, prev edge,
have_sel, prev chosen edge, have_period, prev period, mode (0 rising, 1 falling, 2 both).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rtlab.analysis.histogram import ExactHistogram

METRICS = ("interval", "high", "low", "period", "c2c")
MODES = {"rising": 0, "falling": 1, "both": 2}
_OVERFLOW = 1 << 16  # (metric, value) pairs the compiled pass may set aside per call

try:  # the compiled hot loop (native/); absent from a pure-Python install
    from rtlab_native import accumulate as _native
except ImportError:  # pragma: no cover - depends on the install
    _native = None


def new_state(initial_level: int, edge: str) -> np.ndarray:
    """The state before a channel's first edge."""
    return np.array([initial_level, 0, 0, 0, 0, 0, 0, MODES[edge]], dtype=np.int64)


def reset_state(state: np.ndarray, level: int) -> None:
    """After a gap: nothing spans it; the channel resumes at `level` (or unknown)."""
    state[0] = level
    state[1] = state[3] = state[5] = 0


def native_available() -> bool:
    return _native is not None


def accumulate(
    edges: np.ndarray,
    state: np.ndarray,
    hists: Sequence[ExactHistogram],
    use_native: bool | None = None,
) -> None:
    """Count the intervals of one segment's sorted edges (int64, contiguous) into
    `hists` (in METRICS order), carrying `state` from the previous chunk."""
    if edges.size == 0:
        return
    if use_native is None:
        use_native = _native is not None
    if not use_native or _native is None:
        accumulate_numpy(edges, state, hists)
        return
    overflow = np.empty((_OVERFLOW, 2), dtype=np.int64)
    bases = np.empty(5, dtype=np.int64)
    pos = 0
    while pos < edges.size:
        for i, h in enumerate(hists):
            bases[i] = h.base
        pos, n_over = _native(edges, pos, state, *(h.counts for h in hists), bases, overflow)
        if n_over:
            spill = overflow[:n_over]
            for m, h in enumerate(hists):
                h.add(spill[spill[:, 0] == m, 1])


def accumulate_numpy(
    edges: np.ndarray, state: np.ndarray, hists: Sequence[ExactHistogram]
) -> None:
    """The vectorized twin of the compiled pass: the same values, the same state."""
    lvl, have_prev, prev = int(state[0]), bool(state[1]), int(state[2])
    have_sel, prev_sel, have_p, prev_p = bool(state[3]), int(state[4]), bool(state[5]), int(
        state[6]
    )
    mode, n = int(state[7]), edges.size
    h_int, h_high, h_low, h_per, h_c2c = hists
    x = np.concatenate(([prev], edges)) if have_prev else edges
    d = np.diff(x)
    if lvl < 0:
        h_int.add(d)
    elif d.size:
        first = 0 if have_prev else 1  # the edge that ends d[0]
        level0 = lvl ^ (first & 1)  # level before that edge: the level d[0] measures
        (h_high if level0 == 1 else h_low).add(d[0::2])
        (h_low if level0 == 1 else h_high).add(d[1::2])
    if mode == 2:
        chosen = edges
    elif lvl >= 0:
        chosen = edges[(0 if lvl == mode else 1) :: 2]
    else:
        chosen = edges[:0]
    if chosen.size:
        t = np.concatenate(([prev_sel], chosen)) if have_sel else chosen
        p = np.diff(t)
        h_per.add(p)
        if p.size:
            h_c2c.add(np.diff(np.concatenate(([prev_p], p)) if have_p else p))
            prev_p, have_p = int(p[-1]), True
        prev_sel, have_sel = int(chosen[-1]), True
    state[0] = lvl ^ (n & 1) if lvl >= 0 else lvl
    state[1], state[2] = 1, int(edges[-1])
    state[3], state[4], state[5], state[6] = int(have_sel), prev_sel, int(have_p), prev_p
