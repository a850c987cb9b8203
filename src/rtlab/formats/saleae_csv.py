"""Saleae digital CSV export (Logic 2, and Logic 1.x `Time[s]`): a header
`Time [s],Channel 0,Channel 1,…` then one row per time at which any channel changes,
with `0`, `1` or `X` (no data: channel off or a gap) per channel.

A file whose last row lacks its newline is taken as truncated and refused.

Times are decimal text, read exactly (no float): one tick is 10^-d s where d is the
largest number of decimals in the file (9 in Logic 2 exports: 1 ns), or `tick=`
(every time must then be a whole number of ticks). Parsing is vectorized: the rows
become a byte matrix and each field is read by position.

X spans become capture gaps: the union over channels of the spans where a channel has
no data (a channel that is X throughout is left out). A channel's edges inside a gap
are dropped (counted in `metadata["edges_in_gaps"]`) and its level at each gap's end is
kept in `gap_levels`. The window runs from the first row to the last row (Logic 2 ends
with a row of X at the end of the capture).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec, text
from rtlab.formats.textutil import tick_option
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel

_MAX_DIGITS = 18  # int64 holds 18 decimal digits safely
_MAX_CHANNELS = 4096
_MAX_TIME_CHARS = 40  # sign, 18 digits, a dot and some zeros to spare


def _header(path: Path, line: bytes) -> list[str]:
    try:
        text = line.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(path, "header is not UTF-8 text", line=1, offset=exc.start) from None
    cols = [c.strip().strip('"').strip() for c in text.split(",")]
    first = cols[0].replace(" ", "").lower()
    if first == "trigger[s]":
        raise FormatError(path, "analog waveform CSV: rtlab reads digital exports", line=1)
    if first.startswith("time[") and first != "time[s]":
        raise FormatError(
            path,
            f"time column {cols[0]!r}: rtlab reads Saleae digital exports with times in "
            "seconds ('Time [s]'); export again with seconds",
            line=1,
        )
    if first != "time[s]":
        raise FormatError(
            path,
            f"expected a Saleae digital CSV header 'Time [s],Channel 0,…', got {text[:60]!r}",
            line=1,
        )
    names = cols[1:]
    if not names or len(names) > _MAX_CHANNELS:
        raise FormatError(path, f"expected 1 to {_MAX_CHANNELS} channel columns", line=1)
    if any(not n for n in names) or len(set(names)) != len(names):
        raise FormatError(path, "channel names must be non-empty and distinct", line=1)
    return names


def _fail(
    path: Path, rows: list[bytes], bad: np.ndarray, what: str, first_line: int = 2
) -> FormatError:
    """The error for the first row flagged in `bad` (rows[0] is on `first_line`)."""
    i = int(np.flatnonzero(bad)[0])
    text = rows[i].decode("utf-8", "replace")[:60]
    return FormatError(path, f"{what}, got {text!r}", line=i + first_line)


def _matrix(path: Path, rows: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Rows as a zero-padded (n, width) uint8 matrix, and each row's length."""
    lens = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    if not lens.all():
        raise FormatError(path, "empty line, expected a data row", line=int(np.argmin(lens)) + 2)
    arr = np.array(rows, dtype=bytes)
    mat = arr.view(np.uint8).reshape(len(rows), arr.dtype.itemsize)
    return mat, lens


def _states(
    path: Path, rows: list[bytes], mat: np.ndarray, lens: np.ndarray, nch: int
) -> np.ndarray:
    """(n, nch) int8 levels (-1 for X) from the last 2*nch bytes of each row."""
    n = len(rows)
    tail = lens - 2 * nch
    bad = tail < 1
    if bad.any():
        raise _fail(path, rows, bad, f"expected a time and {nch} values")
    idx = np.arange(n)[:, None]
    pos = tail[:, None] + 2 * np.arange(nch)[None, :]
    commas = mat[idx, pos]
    vals = mat[idx, pos + 1]
    bad = ~np.all(commas == ord(","), axis=1)
    bad |= ~np.all(np.isin(vals, np.frombuffer(b"01Xx", dtype=np.uint8)), axis=1)
    if bad.any():
        raise _fail(path, rows, bad, f"expected a time then {nch} values of 0, 1 or X")
    out: np.ndarray = (vals == ord("1")).astype(np.int8)
    out[(vals == ord("X")) | (vals == ord("x"))] = -1
    return out


def _times(
    path: Path, rows: list[bytes], mat: np.ndarray, tlen: np.ndarray
) -> tuple[np.ndarray, int]:
    """Exact times: (integer values in units of 10^-d s, d)."""
    width = mat.shape[1]
    col = np.arange(width)[None, :]
    inside = col < tlen[:, None]
    neg = mat[:, 0] == ord("-")
    start = neg.astype(np.int64)
    digit = inside & (mat >= ord("0")) & (mat <= ord("9"))
    dot = inside & (mat == ord("."))
    ndot = dot.sum(axis=1)
    ok = (digit | dot | (col < start[:, None])).sum(axis=1) == tlen
    ok &= (ndot <= 1) & (digit.sum(axis=1) >= 1)
    dpos = np.where(ndot == 1, np.argmax(dot, axis=1), tlen)
    ok &= dpos > start
    frac = np.where(ndot == 1, tlen - dpos - 1, 0)
    ok &= digit.sum(axis=1) <= _MAX_DIGITS
    if not ok.all():
        raise _fail(path, rows, ~ok, "expected a decimal time in seconds")
    d = int(frac.max())
    if d > _MAX_DIGITS:
        raise _fail(path, rows, frac == d, f"more than {_MAX_DIGITS} decimals")
    too_big = (dpos - start) + d > _MAX_DIGITS
    if too_big.any():
        raise _fail(path, rows, too_big, "time too large for the number of decimals")
    # Horner over the columns (digits only), then shift each row to d decimals
    vals = np.zeros(len(rows), dtype=np.int64)
    for c in range(width):
        m = digit[:, c]
        if m.any():
            vals = np.where(m, vals * 10 + (mat[:, c].astype(np.int64) - ord("0")), vals)
    vals *= (10 ** np.arange(_MAX_DIGITS + 1, dtype=np.int64))[d - frac]
    return np.where(neg, -vals, vals), d


def _gaps(t: np.ndarray, st: np.ndarray, t_end: int) -> np.ndarray:
    """Union of the spans [first X row, next known row) over channels, merged."""
    spans = []
    n = t.size
    nxt = np.append(t[1:], t_end)
    for c in range(st.shape[1]):
        x = st[:, c] < 0
        if not x.any():
            continue
        # starts of X runs and their ends (the time of the next known row)
        starts = np.flatnonzero(x & ~np.concatenate(([False], x[:-1])))
        ends = np.flatnonzero(x & ~np.concatenate((x[1:], [False])))
        for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
            lo, hi = int(t[a]), int(nxt[b]) if b < n - 1 else t_end
            if hi > lo:
                spans.append((lo, hi))
    spans.sort()
    merged: list[list[int]] = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return np.array(merged, dtype=np.int64).reshape(-1, 2)


def _channel(name: str, t: np.ndarray, v: np.ndarray, gaps: np.ndarray) -> tuple[Channel, int]:
    known = v >= 0
    prev_known = np.concatenate(([False], known[:-1]))
    prev_v = np.concatenate(([v[0]], v[:-1]))
    is_edge = known & prev_known & (v != prev_v)
    edges = t[is_edge]
    dropped = 0
    levels = []
    if gaps.size:
        g = np.searchsorted(gaps[:, 0], edges, side="right") - 1
        inside = (g >= 0) & (edges <= gaps[np.maximum(g, 0), 1])
        dropped = int(inside.sum())
        edges = edges[~inside]
        # level at each gap end: the last row at or before it
        row = np.searchsorted(t, gaps[:, 1], side="right") - 1
        levels = [int(v[r]) if r >= 0 and v[r] >= 0 else UNKNOWN_LEVEL for r in row.tolist()]
    first = int(v[np.argmax(known)])
    return Channel(
        name, edges, initial_level=first, gap_levels=np.array(levels, dtype=np.int64)
    ), dropped


def read(path: str | Path, *, tick: Any = None, **_: Any) -> Capture:
    """Read a Saleae digital CSV export (see the module doc)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise FormatError(p, f"cannot open: {exc.strerror or exc}") from None
    if not data.strip():
        raise FormatError(p, "file is empty, expected a Saleae CSV header", offset=0)
    if not data.endswith(b"\n"):  # exports end their last row: this one was cut
        raise FormatError(
            p, "the file ends in the middle of a row: truncated", line=data.count(b"\n") + 1
        )
    data = data.replace(b"\r\n", b"\n")
    head, _nl, body = data.partition(b"\n")  # `_` is the keyword arguments
    names = _header(p, head.rstrip(b"\r"))
    rows = body.replace(b" ", b"").replace(b"\t", b"").split(b"\n")
    if rows and rows[-1] == b"":
        rows.pop()
    if not rows:
        raise FormatError(p, "no data rows after the header", line=2)
    if any(b"\x00" in r for r in rows[:1]) or b"\x00" in body:
        raise FormatError(p, "NUL byte in the data: not a text CSV", offset=data.index(b"\x00"))
    longest = 2 * len(names) + _MAX_TIME_CHARS
    too_long = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows)) > longest
    if too_long.any():  # also bounds the byte matrix: n rows x a short width
        raise _fail(p, rows, too_long, f"row longer than {longest} bytes")
    mat, lens = _matrix(p, rows)
    states = _states(p, rows, mat, lens, len(names))
    tlen = lens - 2 * len(names)
    raw, d = _times(p, rows, mat[:, : max(int(tlen.max()), 1)], tlen)
    bad = raw[1:] < raw[:-1]
    if bad.any():
        raise _fail(p, rows[1:], bad, "times must not go backwards from row to row", 3)
    raw, states, overridden = _last_row_per_time(raw, states)
    tick_s, t = _scale(p, rows, raw, d, tick)
    t_end = int(t[-1])
    live = [c for c in range(len(names)) if np.any(states[:, c] >= 0)]
    if not live:
        raise FormatError(p, "every channel is X (no data) throughout", line=2)
    gaps = _gaps(t, states[:, live], t_end)
    cap = Capture(
        tick_s=tick_s,
        gaps=gaps,
        t_start=int(t[0]),
        t_end=t_end,
        metadata={
            "edges_in_gaps": 0,
            "empty_channels": [names[c] for c in range(len(names)) if c not in live],
        },
    )
    if overridden:
        cap.metadata["same_time_rows"] = overridden
    for c in live:
        chan, dropped = _channel(names[c], t, states[:, c], gaps)
        cap.metadata["edges_in_gaps"] += dropped
        cap.add(chan)
    return cap


def _last_row_per_time(raw: np.ndarray, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """One row per time: of rows with equal times the last wins (as in every reader,
    docs/formats.md), so a zero-width pulse is never an edge pair."""
    last = np.ones(raw.size, dtype=bool)
    last[:-1] = raw[1:] != raw[:-1]
    if last.all():
        return raw, states, 0
    return raw[last], states[last], int(raw.size - np.count_nonzero(last))


def _scale(
    path: Path, rows: list[bytes], raw: np.ndarray, d: int, tick: Any
) -> tuple[Fraction, np.ndarray]:
    unit = Fraction(1, 10**d)
    if tick is None:
        return unit, raw
    tick_s = tick_option(path, tick, "1ns")
    ratio = tick_s / unit
    if ratio.numerator > 10**_MAX_DIGITS:
        raise FormatError(path, f"tick {tick} too coarse")
    if ratio.denominator != 1:  # tick finer than the decimals: scale up
        up = ratio.denominator if ratio.numerator == 1 else None
        if up is None or up > 2**62 or np.any(np.abs(raw) > 2**62 // up):
            raise FormatError(path, f"tick {tick} does not divide 10^-{d} s")
        return tick_s, raw * up
    k = ratio.numerator
    off = raw % k != 0
    if off.any():
        raise _fail(path, rows, off, f"time is not a whole number of ticks of {tick}")
    return tick_s, raw // k


def sniff(head: bytes, path: Path) -> bool:
    first = head.split(b"\n", 1)[0].lstrip(b"\xef\xbb\xbf").replace(b" ", b"").lower()
    return first.startswith(b"time[") and b"]," in first  # other units: refused by name


# .csv is ambiguous: a Saleae CSV is found by its header only (no extension)
FORMAT = FormatSpec.of(
    globals(), "saleae-csv", (), "Saleae Logic digital CSV export (Time [s],Channel 0,…)",
    {"tick": text},
)  # fmt: skip
