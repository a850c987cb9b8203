"""Saleae Logic 2 digital binary export (`digital_N.bin`), versions 0 and 1.

Layout (little-endian): `<SALEAE>`, int32 version, int32 type (0 digital, 1 analog).
Version 0: uint32 initial_state, double begin_time, double end_time, uint64 n, then n
doubles (transition times in s). Version 1: uint64 chunk_count, then per chunk: uint32
initial_state, double sample_rate, double begin_time, double end_time, uint64 n, n doubles.

One file is one channel, named from the file name (`digital_0.bin` → `digital_0`) or
`name=`. A directory, or `read_files([...])`, merges the files of one export into one
capture. Times are seconds as doubles; they become integer ticks of `tick=` if given,
else one sample period when version-1 chunks state one common sample rate, else 1 ns
(every Saleae digital rate is a whole number of ns). Rounding must keep the edges
strictly increasing, or the read fails (asking for a finer tick). Holes between v1
chunks are capture gaps; the level at each chunk start is the gap's end level.
"""

from __future__ import annotations

import struct
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec, text
from rtlab.formats.textutil import tick_option
from rtlab.model import Capture, Channel

MAGIC = b"<SALEAE>"
_HEAD = struct.Struct("<8sii")
_V0 = struct.Struct("<IddQ")
_V1_CHUNK = struct.Struct("<IdddQ")
_DEFAULT_TICK = Fraction(1, 10**9)
_MAX_TICKS = 2**62


class _Chunk:
    __slots__ = ("begin", "end", "initial", "offset", "rate", "times")
    offset: int  # byte offset of the transition times in the file

    def __init__(
        self, initial: int, rate: float | None, begin: float, end: float, times: np.ndarray
    ) -> None:
        self.initial, self.rate, self.begin, self.end, self.times = (
            initial,
            rate,
            begin,
            end,
            times,
        )


def _parse(path: Path, data: bytes) -> list[_Chunk]:
    """The chunks of one file (version 0 is one chunk), every field checked."""
    if len(data) < _HEAD.size:
        what = "file is empty" if not data else f"file is {len(data)} bytes, truncated header"
        raise FormatError(path, f"{what}: expected the 16-byte <SALEAE> header", offset=0)
    magic, version, kind = _HEAD.unpack_from(data, 0)
    if magic != MAGIC:
        raise FormatError(path, "not a Saleae binary export: expected <SALEAE>", offset=0)
    if kind == 1:
        raise FormatError(path, "analog export: rtlab reads digital channels", offset=12)
    if kind != 0:
        raise FormatError(path, f"data type {kind}, expected 0 (digital)", offset=12)
    if version == 0:
        return [_chunk(path, data, _HEAD.size, has_rate=False)[0]]
    if version != 1:
        raise FormatError(path, f"binary export version {version}, expected 0 or 1", offset=8)
    pos = _HEAD.size
    if len(data) < pos + 8:
        raise FormatError(path, "truncated: expected the uint64 chunk count", offset=pos)
    (count,) = struct.unpack_from("<Q", data, pos)
    pos += 8
    if count == 0 or count > (len(data) - pos) // _V1_CHUNK.size:
        raise FormatError(path, f"chunk count {count} does not fit the file", offset=pos - 8)
    chunks = []
    for _ in range(count):
        chunk, pos = _chunk(path, data, pos, has_rate=True)
        chunks.append(chunk)
    if pos != len(data):
        raise FormatError(
            path, f"{len(data) - pos} unexpected bytes after the last chunk", offset=pos
        )
    return chunks


def _chunk(path: Path, data: bytes, pos: int, *, has_rate: bool) -> tuple[_Chunk, int]:
    st = _V1_CHUNK if has_rate else _V0
    if len(data) < pos + st.size:
        raise FormatError(path, f"truncated: expected a {st.size}-byte digital header", offset=pos)
    if has_rate:
        initial, rate, begin, end, n = st.unpack_from(data, pos)
    else:
        initial, begin, end, n = st.unpack_from(data, pos)
        rate = None
    if initial not in (0, 1):
        raise FormatError(path, f"initial state {initial}, expected 0 or 1", offset=pos)
    for label, val in (("begin time", begin), ("end time", end), ("sample rate", rate)):
        if val is not None and not np.isfinite(val):
            raise FormatError(path, f"{label} is not a finite number", offset=pos)
    if rate is not None and rate <= 0:
        raise FormatError(path, f"sample rate {rate} is not positive", offset=pos)
    if end < begin:
        raise FormatError(path, "end time before begin time", offset=pos)
    pos += st.size
    avail = (len(data) - pos) // 8
    if n > avail:
        raise FormatError(
            path,
            f"{n} transitions declared, the file holds at most {avail}: truncated",
            offset=pos - 8,
        )
    times = np.frombuffer(data, dtype="<f8", count=n, offset=pos)
    if not has_rate and pos + 8 * n != len(data):
        raise FormatError(
            path,
            f"{len(data) - pos - 8 * n} unexpected bytes after the transitions",
            offset=pos + 8 * n,
        )
    bad = np.flatnonzero(~np.isfinite(times))
    if bad.size:
        raise FormatError(
            path, "transition time is not a finite number", offset=pos + 8 * int(bad[0])
        )
    chunk = _Chunk(initial, rate, begin, end, times)
    chunk.offset = pos
    return chunk, pos + 8 * n


def _to_ticks(path: Path, x: np.ndarray | float, scale: float, what: str) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):  # huge values are caught below
        v = np.rint(np.asarray(x, dtype=np.float64) * scale)
    if np.any(np.abs(v) >= _MAX_TICKS):
        raise FormatError(path, f"{what} too large for the tick; give a coarser tick=")
    return v.astype(np.int64)


def _choose_tick(chunks: list[_Chunk], tick: Any, path: Path) -> Fraction:
    if tick is not None:
        return tick_option(path, tick, "1ns")
    rates = {c.rate for c in chunks}
    if len(rates) == 1 and None not in rates:
        rate = Fraction(rates.pop())  # type: ignore[arg-type]
        if rate.denominator == 1:
            return 1 / rate
    return _DEFAULT_TICK


def _channel(
    path: Path, chunks: list[_Chunk], tick: Fraction, name: str
) -> tuple[Channel, np.ndarray, int, int]:
    """One channel with its gaps ((k,2) ticks) and window, checked for order."""
    scale = float(1 / tick)
    edges, gaps, gap_levels = [], [], []
    level = chunks[0].initial
    t_start = int(_to_ticks(path, chunks[0].begin, scale, "begin time"))
    prev_end = t_start
    prev_edge = None
    for k, ch in enumerate(chunks):
        b = int(_to_ticks(path, ch.begin, scale, "begin time"))
        e = int(_to_ticks(path, ch.end, scale, "end time"))
        if k:
            if b < prev_end:
                raise FormatError(path, f"chunk {k} begins before chunk {k - 1} ends")
            # an edge exactly at the previous end must not fall inside the gap
            gap_start = prev_end + 1 if prev_edge == prev_end else prev_end
            if b > gap_start:
                gaps.append((gap_start, b))
                gap_levels.append(ch.initial)
            elif ch.initial != level:  # touching chunks: the level change is an edge
                if prev_edge is not None and b <= prev_edge:
                    raise FormatError(
                        path,
                        f"{name}: chunk {k} starts with a level change "
                        f"where chunk {k - 1} has an edge",
                    )
                edges.append(np.array([b], dtype=np.int64))
                prev_edge = b
        t = _to_ticks(path, ch.times, scale, "transition time")
        if t.size:
            first = int(t[0])
            if np.any(t[1:] <= t[:-1]) or (prev_edge is not None and first <= prev_edge):
                back = np.flatnonzero(t[1:] <= t[:-1]) + 1
                at = 0 if prev_edge is not None and first <= prev_edge else int(back[0])
                raise FormatError(
                    path,
                    f"{name}: transition times not strictly increasing at "
                    f"tick {float(tick) * 1e9:g} ns; give a finer tick= "
                    "(or the file is corrupt)",
                    offset=ch.offset + 8 * at,
                )
            if first < b or int(t[-1]) > e:
                raise FormatError(path, f"{name}: transition outside its chunk's time span")
            prev_edge = int(t[-1])
            edges.append(t)
        level = ch.initial ^ (t.size & 1)
        prev_end = e
    all_edges = np.concatenate(edges) if edges else np.zeros(0, dtype=np.int64)
    chan = Channel(
        name,
        all_edges,
        initial_level=chunks[0].initial,
        gap_levels=np.array(gap_levels, dtype=np.int64),
    )
    gap_arr = np.array(gaps, dtype=np.int64).reshape(-1, 2)
    return chan, gap_arr, t_start, prev_end


def _load(path: Path) -> list[_Chunk]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FormatError(path, f"cannot open: {exc.strerror or exc}") from None
    return _parse(path, data)


def read_files(
    paths: list[str | Path], *, tick: Any = None, names: list[str] | None = None
) -> Capture:
    """Merge the per-channel files of one Logic 2 export into one capture."""
    ps = [Path(p) for p in paths]
    if not ps:
        raise FormatError(".", "no Saleae binary file given")
    if names is not None and len(names) != len(ps):
        raise FormatError(ps[0], "one name per file expected")
    parsed = [_load(p) for p in ps]
    tick_s = _choose_tick([c for ch in parsed for c in ch], tick, ps[0])
    cap: Capture | None = None
    for k, (p, chunks) in enumerate(zip(ps, parsed, strict=True)):
        name = names[k] if names else p.stem
        chan, gaps, t0, t1 = _channel(p, chunks, tick_s, name)
        if cap is None:
            cap = Capture(
                tick_s=tick_s,
                gaps=gaps,
                t_start=t0,
                t_end=t1,
                metadata={"saleae_version": 0 if chunks[0].rate is None else 1},
            )
        elif not np.array_equal(gaps, cap.gaps):
            raise FormatError(
                p, "its chunks (gaps) differ from the other files': load the files separately"
            )
        else:
            cap.t_start, cap.t_end = min(cap.t_start or t0, t0), max(cap.t_end or t1, t1)
        if name in cap.channels:
            raise FormatError(p, f"two files give channel {name!r}")
        cap.add(chan)
    assert cap is not None
    return cap


def read(path: str | Path, *, tick: Any = None, name: str | None = None, **_: Any) -> Capture:
    """One `digital_N.bin` file (one channel), or a directory of them merged."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("digital_*.bin"), key=lambda f: (len(f.stem), f.stem))
        if not files:
            raise FormatError(p, "no digital_*.bin file in this directory")
        return read_files(files, tick=tick)
    return read_files([p], tick=tick, names=[name] if name else None)


def sniff(head: bytes, path: Path) -> bool:
    return head.startswith(MAGIC)


FORMAT = FormatSpec(
    name="saleae-bin",
    extensions=(".bin",),
    read=read,
    sniff=sniff,
    description="Saleae Logic 2 digital binary export (v0, v1 with gaps)",
    options={"tick": text, "name": text},
)
