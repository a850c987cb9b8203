"""A fast VCD writer: value changes formatted by numpy in blocks, no Python loop per edge."""

from __future__ import annotations

import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats.vcd.roundtrip import ROOT, to_units
from rtlab.fsutil import atomic_path
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel

_UNITS = ((0, "s"), (-3, "ms"), (-6, "us"), (-9, "ns"), (-12, "ps"), (-15, "fs"))


def _choose_timescale(tick: Fraction) -> tuple[str, Fraction]:
    """(timescale text, tick / timescale): the largest decimal unit that divides the
    tick; a tick that is no whole number of fs (1/24 MHz) gets 1 ps (or 1 fs below
    1 ns) and rounded times, which read() turns back into exact ticks."""
    for exp, unit in _UNITS:
        for factor in (100, 10, 1):
            ts = Fraction(factor) * Fraction(10) ** exp
            if (tick / ts).denominator == 1:
                return f"{factor}{unit}", tick / ts
    if tick >= Fraction(1, 10**9):
        return "1ps", tick * 10**12
    return "1fs", tick * 10**15


def _ident(k: int) -> str:
    chars = []
    k += 1
    while k:
        k, r = divmod(k - 1, 94)
        chars.append(chr(33 + r))
    return "".join(chars)


def _safe(name: str) -> str:
    return re.sub(r"\s", "_", name) or "_"


def write(cap: Capture, path: str | Path, **_: Any) -> None:
    """Write a Capture as VCD (opens in GTKWave, PulseView, Surfer).

    Each channel is a 1-bit wire under a top scope `rtlab` (dots in a name make
    sub-scopes). The timescale is the largest decimal unit that divides the tick; the
    exact tick and window go in a header comment that read() uses, so a capture
    round-trips exactly (also for ticks like 1/24 MHz, written rounded to 1 ps).
    Gaps are not written (VCD has no notion of them)."""
    timescale, ratio = _choose_timescale(cap.tick_s)
    chans = list(cap)
    ids = [_ident(k) for k in range(len(chans))]
    t0, t1 = cap.window()
    if any(len(c) and (c.edges[0] < t0 or c.edges[-1] > t1) for c in chans):
        raise FormatError(path, "cannot write VCD: an edge lies outside the capture window")
    if (t1 - t0) * 2 * ratio.numerator >= 2**62:
        raise FormatError(path, "cannot write VCD: the capture is too long for the timescale")
    header = [
        "$date rtlab $end",
        "$version rtlab $end",
        f"$comment rtlab tick_s={cap.tick_s.numerator}/{cap.tick_s.denominator} "
        f"t_start={t0} t_end={t1} $end",
        f"$timescale {timescale} $end",
        *_scopes(chans, ids),
        "$enddefinitions $end",
        "#0",
        "$dumpvars",
    ]
    for ch, ident in zip(chans, ids, strict=True):
        lv = ch.initial_level
        header.append(("x" if lv == UNKNOWN_LEVEL else str(lv)) + ident)
    header.append("$end")
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(("\n".join(header) + "\n").encode())
        for block in _body_blocks(chans, ids, ratio, t0):
            fh.write(block)
        fh.write(f"#{int(to_units(np.array([t1 - t0]), ratio)[0])}\n".encode())


def _scopes(chans: list[Channel], ids: list[str]) -> list[str]:
    lines = [f"$scope module {ROOT} $end"]
    open_: list[str] = []
    for ch, ident in zip(chans, ids, strict=True):  # capture order; scopes reopen if needed
        parts = [_safe(s) for s in ch.name.split(".")]
        path, leaf = parts[:-1], parts[-1]
        common = 0
        while common < min(len(open_), len(path)) and open_[common] == path[common]:
            common += 1
        lines += ["$upscope $end"] * (len(open_) - common)
        lines += [f"$scope module {s} $end" for s in path[common:]]
        open_ = path
        lines.append(f"$var wire 1 {ident} {leaf} $end")
    lines += ["$upscope $end"] * (len(open_) + 1)
    return lines


_BLOCK = 1 << 20  # value changes formatted per numpy pass


def _events(chans: list[Channel]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(time, channel index, new level) of every edge, time-ordered."""
    times = np.concatenate([c.edges for c in chans])
    who = np.concatenate([np.full(len(c), k, dtype=np.int64) for k, c in enumerate(chans)])
    level = np.concatenate(
        [(np.arange(len(c)) + (1 if c.initial_level == 0 else 0)) % 2 for c in chans]
    ).astype(np.uint8)
    order = np.lexsort((who, times))
    return times[order], who[order], level[order]


def _format_block(
    times: np.ndarray,
    new: np.ndarray,
    who: np.ndarray,
    level: np.ndarray,
    id_mat: np.ndarray,
    id_len: np.ndarray,
) -> bytes:
    """VCD text for a block of changes: '#t' lines (where `new`) and '<v><id>' lines.

    Each event is one row of a byte matrix with a mask of the bytes in use, so the
    text comes out of one boolean gather instead of a Python loop."""
    n = times.size
    nd = np.ones(n, dtype=np.int64)
    big = 10
    while True:  # digits of each time
        more = times >= big
        if not more.any():
            break
        nd += more
        big *= 10
    d = int(nd.max())
    w_id = id_mat.shape[1]
    width = 1 + d + 1 + 1 + w_id + 1
    m = np.zeros((n, width), dtype=np.uint8)
    use = np.zeros((n, width), dtype=bool)
    m[:, 0] = ord("#")
    use[:, 0] = new
    pos = np.arange(d)
    p10 = 10 ** (d - 1 - pos).astype(np.int64)
    m[:, 1 : 1 + d] = (times[:, None] // p10[None, :]) % 10 + ord("0")
    use[:, 1 : 1 + d] = new[:, None] & (pos[None, :] >= (d - nd)[:, None])
    m[:, 1 + d] = ord("\n")
    use[:, 1 + d] = new
    c = 2 + d
    m[:, c] = level + ord("0")
    use[:, c] = True
    m[:, c + 1 : c + 1 + w_id] = id_mat[who]
    use[:, c + 1 : c + 1 + w_id] = np.arange(w_id)[None, :] < id_len[who][:, None]
    # the newline right after each id: shift it into the first unused id byte
    m[np.arange(n), c + 1 + id_len[who]] = ord("\n")
    use[np.arange(n), c + 1 + id_len[who]] = True
    return m[use].tobytes()


def _body_blocks(chans: list[Channel], ids: list[str], ratio: Fraction, t0: int) -> Iterator[bytes]:
    """The value-change section in blocks of bytes, times relative to t0."""
    if not chans or not sum(len(c) for c in chans):
        return
    times, who, level = _events(chans)
    rel = to_units(times - t0, ratio)
    new = np.ones(rel.size, dtype=bool)
    new[1:] = rel[1:] != rel[:-1]
    new &= rel != 0  # changes at t_start follow the $dumpvars block directly
    w_id = max(len(i) for i in ids) + 1
    id_mat = np.zeros((len(ids), w_id), dtype=np.uint8)
    id_len = np.array([len(i) for i in ids], dtype=np.int64)
    for k, ident in enumerate(ids):
        id_mat[k, : len(ident)] = np.frombuffer(ident.encode(), dtype=np.uint8)
    for lo in range(0, rel.size, _BLOCK):
        sl = slice(lo, lo + _BLOCK)
        yield _format_block(rel[sl], new[sl], who[sl], level[sl], id_mat, id_len)
