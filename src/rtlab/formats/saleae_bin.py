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

A version-0 file states no sample rate: read at 1 ns, its resolution is not 1 ns but
unknown. The greatest common divisor of the first 2^20 transition intervals of every
channel is a sample period the edges are consistent with: it becomes the resolution,
labelled as inferred (`metadata["resolution_inferred"]`), never as stated.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec, text
from rtlab.formats.textutil import tick_option
from rtlab.model import Capture, Channel, EdgeStream

MAGIC = b"<SALEAE>"
_HEAD = struct.Struct("<8sii")
_V0 = struct.Struct("<IddQ")
_V1_CHUNK = struct.Struct("<IdddQ")
_DEFAULT_TICK = Fraction(1, 10**9)
_MAX_TICKS = 2**62


class _Chunk:
    """One chunk's header; its transition times stay in the file (`offset`, `n`)."""

    __slots__ = ("begin", "end", "initial", "n", "offset", "rate")

    def __init__(
        self, initial: int, rate: float | None, begin: float, end: float, n: int, offset: int
    ) -> None:
        self.initial, self.rate, self.begin, self.end = initial, rate, begin, end
        self.n, self.offset = n, offset


class _File:
    """Reads of one export file: fixed-size headers and runs of doubles, bounds-checked."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.fh = open(path, "rb")  # noqa: SIM115 - closed by the reader's generator
            self.size = os.fstat(self.fh.fileno()).st_size
        except OSError as exc:
            raise FormatError(path, f"cannot open: {exc.strerror or exc}") from None

    def read(self, pos: int, n: int) -> bytes:
        self.fh.seek(pos)
        return self.fh.read(n)

    def doubles(self, pos: int, n: int) -> np.ndarray:
        self.fh.seek(pos)
        return np.fromfile(self.fh, dtype="<f8", count=n)


def _parse(f: _File) -> list[_Chunk]:
    """The chunks of one file (version 0 is one chunk), every header field checked."""
    path, size = f.path, f.size
    if size < _HEAD.size:
        what = "file is empty" if not size else f"file is {size} bytes, truncated header"
        raise FormatError(path, f"{what}: expected the 16-byte <SALEAE> header", offset=0)
    magic, version, kind = _HEAD.unpack(f.read(0, _HEAD.size))
    if magic != MAGIC:
        raise FormatError(path, "not a Saleae binary export: expected <SALEAE>", offset=0)
    if kind == 1:
        raise FormatError(path, "analog export: rtlab reads digital channels", offset=12)
    if kind != 0:
        raise FormatError(path, f"data type {kind}, expected 0 (digital)", offset=12)
    if version == 0:
        return [_chunk(f, _HEAD.size, has_rate=False)[0]]
    if version != 1:
        raise FormatError(path, f"binary export version {version}, expected 0 or 1", offset=8)
    pos = _HEAD.size
    if size < pos + 8:
        raise FormatError(path, "truncated: expected the uint64 chunk count", offset=pos)
    (count,) = struct.unpack("<Q", f.read(pos, 8))
    pos += 8
    if count == 0 or count > (size - pos) // _V1_CHUNK.size:
        raise FormatError(path, f"chunk count {count} does not fit the file", offset=pos - 8)
    chunks = []
    for _ in range(count):
        chunk, pos = _chunk(f, pos, has_rate=True)
        chunks.append(chunk)
    if pos != size:
        raise FormatError(path, f"{size - pos} unexpected bytes after the last chunk", offset=pos)
    return chunks


def _chunk(f: _File, pos: int, *, has_rate: bool) -> tuple[_Chunk, int]:
    path, size = f.path, f.size
    st = _V1_CHUNK if has_rate else _V0
    if size < pos + st.size:
        raise FormatError(path, f"truncated: expected a {st.size}-byte digital header", offset=pos)
    if has_rate:
        initial, rate, begin, end, n = st.unpack(f.read(pos, st.size))
    else:
        initial, begin, end, n = st.unpack(f.read(pos, st.size))
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
    avail = (size - pos) // 8
    if n > avail:
        raise FormatError(
            path,
            f"{n} transitions declared, the file holds at most {avail}: truncated",
            offset=pos - 8,
        )
    if not has_rate and pos + 8 * n != size:
        raise FormatError(
            path,
            f"{size - pos - 8 * n} unexpected bytes after the transitions",
            offset=pos + 8 * n,
        )
    return _Chunk(initial, rate, begin, end, n, pos), pos + 8 * n


def _to_ticks(path: Path, x: np.ndarray | float, scale: float, what: str) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):  # huge values are caught below
        v = np.rint(np.asarray(x, dtype=np.float64) * scale)
    if np.any(np.abs(v) >= _MAX_TICKS):
        raise FormatError(
            path, f"{what} too large for the tick; give a coarser tick, e.g. --tick 1us"
        )
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


_BLOCK = 1 << 20  # transition times read at a time (8 MiB)


class _Plan:
    """One channel's header, from its chunks' headers and first and last times: gaps,
    their end levels, window, edges, and the level changes at touching chunks."""

    def __init__(self) -> None:
        self.gaps: list[tuple[int, int]] = []
        self.gap_levels: list[int] = []
        self.t_start = self.t_end = 0
        self.extra: dict[int, int] = {}  # chunk k → an edge at its begin, before its times
        self.n_edges = 0


def _time_at(f: _File, pos: int, scale: float) -> int:
    x = f.doubles(pos, 1)
    if x.size != 1 or not np.isfinite(x[0]):
        raise FormatError(f.path, "transition time is not a finite number", offset=pos)
    return int(_to_ticks(f.path, float(x[0]), scale, "transition time"))


def _plan(f: _File, chunks: list[_Chunk], tick: Fraction, name: str) -> _Plan:
    """The checks of the chunks' order and spans, before any edge is handed out."""
    path, scale, plan = f.path, float(1 / tick), _Plan()
    level = chunks[0].initial
    plan.t_start = int(_to_ticks(path, chunks[0].begin, scale, "begin time"))
    prev_end, prev_edge = plan.t_start, None
    for k, ch in enumerate(chunks):
        b = int(_to_ticks(path, ch.begin, scale, "begin time"))
        e = int(_to_ticks(path, ch.end, scale, "end time"))
        if k:
            if b < prev_end:
                raise FormatError(path, f"chunk {k} begins before chunk {k - 1} ends")
            # an edge exactly at the previous end must not fall inside the gap
            gap_start = prev_end + 1 if prev_edge == prev_end else prev_end
            if b > gap_start:
                plan.gaps.append((gap_start, b))
                plan.gap_levels.append(ch.initial)
            elif ch.initial != level:  # touching chunks: the level change is an edge
                if prev_edge is not None and b <= prev_edge:
                    raise FormatError(
                        path,
                        f"{name}: chunk {k} starts with a level change "
                        f"where chunk {k - 1} has an edge",
                    )
                plan.extra[k] = b
                prev_edge = b
        if ch.n:
            first = _time_at(f, ch.offset, scale)
            last = _time_at(f, ch.offset + 8 * (ch.n - 1), scale)
            if prev_edge is not None and first <= prev_edge:
                raise _not_increasing(path, name, tick, ch.offset)
            if first < b or last > e:
                raise FormatError(path, f"{name}: transition outside its chunk's time span")
            prev_edge = last
        level = ch.initial ^ (ch.n & 1)
        prev_end = e
    plan.t_end = prev_end
    plan.n_edges = sum(ch.n for ch in chunks) + len(plan.extra)
    return plan


def _not_increasing(path: Path, name: str, tick: Fraction, offset: int) -> FormatError:
    return FormatError(
        path,
        f"{name}: transition times not strictly increasing at "
        f"tick {float(tick) * 1e9:g} ns; give a finer tick, e.g. --tick 1ns "
        "(or the file is corrupt)",
        offset=offset,
    )


def _edges(
    f: _File, chunks: list[_Chunk], tick: Fraction, name: str, plan: _Plan
) -> Iterator[np.ndarray]:
    """The channel's edge ticks, block by block, each block's times checked: finite,
    within the tick range, strictly increasing (FormatError naming the byte offset)."""
    scale = float(1 / tick)
    for k, ch in enumerate(chunks):
        if k in plan.extra:
            yield np.array([plan.extra[k]], dtype=np.int64)
        prev = None
        for lo in range(0, ch.n, _BLOCK):
            x = f.doubles(ch.offset + 8 * lo, min(_BLOCK, ch.n - lo))
            bad = np.flatnonzero(~np.isfinite(x))
            if bad.size:
                at = ch.offset + 8 * (lo + int(bad[0]))
                raise FormatError(f.path, "transition time is not a finite number", offset=at)
            t = _to_ticks(f.path, x, scale, "transition time")
            back = np.flatnonzero(t[1:] <= t[:-1]) + 1
            if prev is not None and t.size and int(t[0]) <= prev:
                back = np.concatenate(([0], back))
            if back.size:
                raise _not_increasing(f.path, name, tick, ch.offset + 8 * (lo + int(back[0])))
            if t.size:
                prev = int(t[-1])
                yield t


def _inferred_period(f: _File, chunks: list[_Chunk], tick: Fraction) -> int:
    """The gcd of the first block's transition intervals in ticks (0 for < 2 edges)."""
    ch = chunks[0]
    x = f.doubles(ch.offset, min(_BLOCK, ch.n))
    if x.size < 2 or not np.all(np.isfinite(x)):
        return 0  # the edges' own checks report a bad time
    t = _to_ticks(f.path, x, float(1 / tick), "transition time")
    return int(np.gcd.reduce(np.abs(np.diff(t))))


def _paths(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(path.glob("digital_*.bin"), key=lambda f: (len(f.stem), f.stem))
        if not files:
            raise FormatError(path, "no digital_*.bin file in this directory")
        return files
    return [path]


def stream_files(
    paths: list[str | Path], *, tick: Any = None, names: list[str] | None = None
) -> EdgeStream:
    """The per-channel files of one Logic 2 export as one capture, chunk by chunk
    (EdgeStream): every header, gap and chunk span is checked before the first edge,
    the times block by block as they are read (FormatError from the iterator)."""
    ps = [Path(p) for p in paths]
    if not ps:
        raise FormatError(".", "no Saleae binary file given")
    if names is not None and len(names) != len(ps):
        raise FormatError(ps[0], "one name per file expected")
    files = [_File(p) for p in ps]
    try:
        parsed = [_parse(f) for f in files]
        tick_s = _choose_tick([c for ch in parsed for c in ch], tick, ps[0])
        cap: Capture | None = None
        plans = []
        for k, (f, chunks) in enumerate(zip(files, parsed, strict=True)):
            name = names[k] if names else f.path.stem
            plan = _plan(f, chunks, tick_s, name)
            plans.append((name, plan))
            gaps = np.array(plan.gaps, dtype=np.int64).reshape(-1, 2)
            t0, t1 = plan.t_start, plan.t_end
            if cap is None:
                version = 0 if chunks[0].rate is None else 1
                cap = Capture(tick_s=tick_s, gaps=gaps, t_start=t0, t_end=t1,
                              metadata={"saleae_version": version})  # fmt: skip
            elif not np.array_equal(gaps, cap.gaps):
                raise FormatError(
                    f.path,
                    "its chunks (gaps) differ from the other files': load the files separately",
                )
            else:
                cap.t_start, cap.t_end = min(cap.t_start or t0, t0), max(cap.t_end or t1, t1)
            if name in cap.channels:
                raise FormatError(f.path, f"two files give channel {name!r}")
            levels = np.array(plan.gap_levels, dtype=np.int64)
            cap.add(Channel(name, np.zeros(0, np.int64), chunks[0].initial, levels))
    except BaseException:
        for f in files:
            f.fh.close()
        raise
    assert cap is not None
    if tick is None and parsed[0][0].rate is None:  # version 0: no rate stated
        periods = [_inferred_period(f, c, tick_s) for f, c in zip(files, parsed, strict=True)]
        period = int(np.gcd.reduce(periods))
        cap.metadata["time_unit"] = "s (float64), read to the nearest ns"
        if period > 0:
            cap.resolution_s = period * tick_s
            cap.metadata["resolution_inferred"] = True

    def chunks() -> Iterator[tuple[str, np.ndarray]]:
        try:
            for f, parts, (name, plan) in zip(files, parsed, plans, strict=True):
                for edges in _edges(f, parts, tick_s, name, plan):
                    yield name, edges
        finally:
            for f in files:
                f.fh.close()

    return EdgeStream(cap, {name: plan.n_edges for name, plan in plans}, chunks())


def read_files(
    paths: list[str | Path], *, tick: Any = None, names: list[str] | None = None
) -> Capture:
    """Merge the per-channel files of one Logic 2 export into one capture (the stream,
    gathered)."""
    stream = stream_files(paths, tick=tick, names=names)
    parts: dict[str, list[np.ndarray]] = {n: [] for n in stream.header.channels}
    for name, edges in stream.chunks:
        parts[name].append(edges)
    cap = stream.header
    for ch in list(cap):
        edges = np.concatenate(parts[ch.name]) if parts[ch.name] else np.zeros(0, np.int64)
        del cap.channels[ch.name]
        cap.add(Channel(ch.name, edges, ch.initial_level, ch.gap_levels))
    return cap


def read(path: str | Path, *, tick: Any = None, name: str | None = None, **_: Any) -> Capture:
    """One `digital_N.bin` file (one channel), or a directory of them merged."""
    p = Path(path)
    return read_files(_paths(p), tick=tick, names=[name] if name and not p.is_dir() else None)


def read_stream(
    path: str | Path, *, tick: Any = None, name: str | None = None, **_: Any
) -> EdgeStream:
    """read() chunk by chunk: block by block of transition times (bounded memory)."""
    p = Path(path)
    return stream_files(_paths(p), tick=tick, names=[name] if name and not p.is_dir() else None)


def sniff(head: bytes, path: Path) -> bool:
    return head.startswith(MAGIC)


FORMAT = FormatSpec.of(
    globals(), "saleae-bin", (".bin",),
    "Saleae Logic 2 digital binary export (v0, v1 with gaps)", {"tick": text, "name": text},
)  # fmt: skip
