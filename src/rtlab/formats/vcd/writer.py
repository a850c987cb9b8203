"""A fast VCD writer: value changes formatted by numpy in blocks, no Python loop per edge."""

from __future__ import annotations

import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats.vcd.roundtrip import ROOT, check_tick, encode_names, fits_units, to_units
from rtlab.fsutil import atomic_path
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel
from rtlab.ticks import one_value_per_time

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


_BIT_SELECT = re.compile(r"[^\[\]]+\[[0-9]{1,9}\]")


def _safe(part: str) -> str:
    """A scope or variable name that every VCD reader reads back as written: white
    space becomes `_`, and so do a leading `$` or `\\` (a command, an escaped name) and
    brackets that are not one bit-select `data[3]`."""
    part = re.sub(r"\s", "_", part) or "_"
    if part[0] in "$\\":
        part = "_" + part[1:]
    if ("[" in part or "]" in part) and not _BIT_SELECT.fullmatch(part):
        part = part.replace("[", "_").replace("]", "_")
    return part


def _spelled(chans: list[Channel]) -> list[list[str]]:
    """Each channel's name as VCD scopes and a variable (dots make scopes), made safe
    and distinct: a second `a_b` (from `a b` and `a_b`) becomes `a_b_2`."""
    out: list[list[str]] = []
    taken: set[tuple[str, ...]] = set()
    for ch in chans:
        parts = [_safe(s) for s in ch.name.split(".")]
        leaf, k = parts[-1], 1
        while tuple(parts) in taken:
            k += 1
            parts[-1] = f"{leaf}_{k}"
        taken.add(tuple(parts))
        out.append(parts)
    return out


def _zero(cap: Capture, chans: list[Channel]) -> int:
    """The tick of `#0`: the window's start, or one tick before it when an edge lies
    there (the initial levels are the values at `#0`; an edge needs a later time step)."""
    t0, _ = cap.window()
    return t0 - 1 if any(len(c) and int(c.edges[0]) == t0 for c in chans) else t0


def _problem(cap: Capture, chans: list[Channel], ratio: Fraction) -> str | None:
    """Why `cap` cannot be written so that read() gives it back, or None."""
    t0, t1 = cap.window()
    bad_tick = check_tick(cap.tick_s)
    if bad_tick is not None:
        return bad_tick
    if ratio < 1:
        return f"tick {cap.tick_s} s is finer than 1 fs and no whole number of fs"
    if any(len(c) and (c.edges[0] < t0 or c.edges[-1] > t1) for c in chans):
        return "an edge lies outside the capture window"
    if abs(t0) >= 2**63 or not fits_units(t1 - _zero(cap, chans), ratio):
        return (
            f"the capture ({t1 - t0} ticks of {cap.tick_s} s) is too long for VCD's 64-bit "
            "times in this timescale"
        )
    g = cap.gaps
    if len(g) and (int(g[:, 0].min()) < t0 or int(g[:, 1].max()) > t1):
        return "a gap lies outside the capture window"
    for c in chans:
        at_end = np.flatnonzero(_among(g[:, 1], c.edges)) if len(g) else []
        if len(at_end):
            k = int(at_end[0])
            return (
                f"channel {c.name!r} has an edge at the end of gap {k} (tick {int(g[k, 1])}): "
                "VCD's $dumpon value is the level on resuming, not an edge"
            )
    return None


def _among(x: np.ndarray, sorted_edges: np.ndarray) -> np.ndarray:
    """x's elements found in the sorted edge times (np.isin hashes every edge)."""
    if sorted_edges.size == 0:
        return np.zeros(len(x), dtype=bool)
    i = np.searchsorted(sorted_edges, x)
    return (i < sorted_edges.size) & (sorted_edges[np.minimum(i, sorted_edges.size - 1)] == x)


def write(cap: Capture, path: str | Path, **_: Any) -> None:
    """Write a Capture as VCD (opens in GTKWave, PulseView, Surfer).

    Each channel is a 1-bit wire under a top scope `rtlab` (dots in a name make
    sub-scopes). The timescale is the largest decimal unit that divides the tick; the
    exact tick and window go in a header comment that read() uses, so a capture
    round-trips exactly (also for ticks like 1/24 MHz, written rounded to 1 ps). Gaps
    are `$dumpoff` (every channel x) … `$dumpon` (each channel's level on resuming).
    Several edges of a channel at one time are written as one value per time step,
    the last (what every reader reads). A capture that VCD cannot give back (an edge at
    a gap's end, a window beyond 64-bit times) is refused with one FormatError."""
    timescale, ratio = _choose_timescale(cap.tick_s)
    chans = [
        Channel(c.name, one_value_per_time(c.edges)[0], c.initial_level, c.gap_levels) for c in cap
    ]
    ids = [_ident(k) for k in range(len(chans))]
    t0, t1 = cap.window()
    problem = _problem(cap, chans, ratio)
    if problem is not None:
        raise FormatError(path, f"cannot write VCD: {problem}")
    zero = _zero(cap, chans)
    spelled = _spelled(chans)
    header = [
        "$date rtlab $end",
        "$version rtlab $end",
        f"$comment rtlab tick_s={cap.tick_s.numerator}/{cap.tick_s.denominator} "
        f"t_start={t0} t_end={t1}" + (f" t_zero={zero}" if zero != t0 else "") + " $end",
        *(
            [encode_names([c.name for c in chans])]
            if any(".".join(p) != c.name for p, c in zip(spelled, chans, strict=True))
            else []
        ),
        f"$timescale {timescale} $end",
        *_scopes(spelled, ids),
        "$enddefinitions $end",
        "#0",
        "$dumpvars",
    ]
    for ch, ident in zip(chans, ids, strict=True):
        lv = ch.initial_level
        header.append(("x" if lv == UNKNOWN_LEVEL else str(lv)) + ident)
    header.append("$end")
    # an empty gap holds nothing: not written
    gaps = [(k, g0, g1) for k, (g0, g1) in enumerate(cap.gaps.tolist()) if g1 > g0]
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(("\n".join(header) + "\n").encode())
        for block in _body_blocks(chans, ids, ratio, zero, cap.gaps, gaps):
            fh.write(block)
        fh.write(f"#{int(to_units(np.array([t1 - zero]), ratio)[0])}\n".encode())


def _pause_text(
    chans: list[Channel], ids: list[str], gap: int, units: np.ndarray, written: int
) -> bytes:
    """`#g0 $dumpoff x… $end #g1 $dumpon <levels> $end` for gap number `gap`."""
    off = " ".join(f"x{i}" for i in ids)
    levels = []
    for ch, ident in zip(chans, ids, strict=True):
        lv = UNKNOWN_LEVEL if ch.gap_levels is None else int(ch.gap_levels[gap])
        levels.append(("x" if lv == UNKNOWN_LEVEL else str(lv)) + ident)
    at_off = "" if int(units[0]) == written else f"#{int(units[0])}\n"
    text = f"{at_off}$dumpoff {off} $end\n#{int(units[1])}\n$dumpon {' '.join(levels)} $end\n"
    return text.encode()


def _scopes(spelled: list[list[str]], ids: list[str]) -> list[str]:
    lines = [f"$scope module {ROOT} $end"]
    open_: list[str] = []
    for parts, ident in zip(spelled, ids, strict=True):  # capture order; scopes reopen
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


def _levels_after(ch: Channel, all_gaps: np.ndarray) -> np.ndarray:
    """The level after each edge: edges flip the level, which restarts at each gap's
    end from the channel's gap level (an unknown level alternates from 0)."""
    e = ch.edges
    if len(all_gaps) == 0:
        start = np.zeros(e.size, dtype=np.int64) + max(ch.initial_level, 0)
        first = np.zeros(e.size, dtype=np.int64)
    else:
        gl = ch.gap_levels if ch.gap_levels is not None else np.full(len(all_gaps), -1)
        seg_level = np.maximum(np.concatenate(([ch.initial_level], np.asarray(gl))), 0)
        seg_first = np.concatenate(([0], np.searchsorted(e, all_gaps[:, 1], side="left")))
        seg = np.searchsorted(all_gaps[:, 0], e, side="right")
        start, first = seg_level[seg], seg_first[seg]
    return ((np.arange(e.size) - first + 1) % 2 ^ start).astype(np.uint8)


def _events(
    chans: list[Channel], all_gaps: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(time, channel index, new level) of every edge, time-ordered."""
    times = np.concatenate([c.edges for c in chans])
    who = np.concatenate([np.full(len(c), k, dtype=np.int64) for k, c in enumerate(chans)])
    level = np.concatenate([_levels_after(c, all_gaps) for c in chans]).astype(np.uint8)
    order = np.lexsort((who, times))
    return times[order], who[order], level[order]


def _format_block(
    times: np.ndarray,
    new: np.ndarray,
    who: np.ndarray,
    level: np.ndarray,
    id_mat: np.ndarray,
    id_len: np.ndarray,
) -> tuple[bytes, np.ndarray]:
    """VCD text for a block of changes: '#t' lines (where `new`) and '<v><id>' lines,
    and the byte offset at which each change's text ends.

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
    return m[use].tobytes(), np.cumsum(use.sum(axis=1))


def _body_blocks(
    chans: list[Channel],
    ids: list[str],
    ratio: Fraction,
    t0: int,
    all_gaps: np.ndarray,
    gaps: list[tuple[int, int, int]],
) -> Iterator[bytes]:
    """The value-change section in blocks of bytes, times relative to t0; each gap is a
    $dumpoff … $dumpon pause between the changes before and after it."""
    n = sum(len(c) for c in chans)
    times, who, level = (
        _events(chans, all_gaps) if n else (np.zeros(0, np.int64),) * 2 + (np.zeros(0, np.uint8),)
    )
    rel = to_units(times - t0, ratio)
    w_id = max((len(i) for i in ids), default=1) + 1
    id_mat = np.zeros((len(ids), w_id), dtype=np.uint8)
    id_len = np.array([len(i) for i in ids], dtype=np.int64)
    for k, ident in enumerate(ids):
        id_mat[k, : len(ident)] = np.frombuffer(ident.encode(), dtype=np.uint8)
    new = np.ones(rel.size, dtype=bool)  # a `#t` line before the change
    new[1:] = rel[1:] != rel[:-1]
    new &= rel != 0  # changes at t_start follow the $dumpvars block directly
    # where each gap's pause goes: before the first change after it
    at = np.searchsorted(times, [g[2] for g in gaps], side="left").astype(np.int64)
    k = 0  # next gap
    for lo in range(0, max(rel.size, 1), _BLOCK):
        sl = slice(lo, lo + _BLOCK)
        text, ends = (
            _format_block(rel[sl], new[sl], who[sl], level[sl], id_mat, id_len)
            if rel.size
            else (b"", np.zeros(0, np.int64))
        )
        pos = 0
        last = rel.size if lo + _BLOCK >= rel.size else lo + _BLOCK
        while k < len(gaps) and at[k] <= last and (at[k] < last or last == rel.size):
            cut = int(ends[at[k] - lo - 1]) if at[k] > lo else 0
            yield text[pos:cut]
            pos = cut
            written = int(rel[at[k] - 1]) if at[k] > 0 else 0
            units = to_units(np.array(gaps[k][1:], dtype=np.int64) - t0, ratio)
            yield _pause_text(chans, ids, gaps[k][0], units, written)
            k += 1
        yield text[pos:]
