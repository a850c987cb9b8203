"""Bulk decoding of a series' sample chunks, once its run has ended.

The parser only checks each chunk cheaply (character set, counts) and keeps its text or
bytes; here every chunk of a series becomes int64 values in a few numpy passes, so 10^6
samples decode in a fraction of a second. Values that might not fit 64 bits take an
exact slow path.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from rtlab.protocol.records import ProtocolError

I64_MAX = np.iinfo(np.int64).max
I64_MIN = np.iinfo(np.int64).min
INT_RE = re.compile(r"-?[0-9]+")


@dataclass
class Chunk:
    kind: str  # "s", "sd" or "sb"
    line: int
    payload: Any  # s: "v1,v2"; sd: "first,d1,d2"; sb: raw varint bytes
    count: int


def decode_chunks(src: str, name: str, chunks: list[Chunk]) -> np.ndarray:
    if not chunks:
        return np.zeros(0, dtype=np.int64)
    kinds = {c.kind for c in chunks}
    if len(kinds) == 1:
        return _decode_kind(src, name, chunks[0].kind, chunks)
    # Mixed encodings in one series (legal, rare): decode each kind, then restore order.
    parts: dict[int, np.ndarray] = {}
    for kind in kinds:
        sel = [i for i, c in enumerate(chunks) if c.kind == kind]
        arr = _decode_kind(src, name, kind, [chunks[i] for i in sel])
        bounds = np.cumsum([chunks[i].count for i in sel])[:-1]
        for i, piece in zip(sel, np.split(arr, bounds), strict=True):
            parts[i] = piece
    return np.concatenate([parts[i] for i in range(len(chunks))])


def _decode_kind(src: str, name: str, kind: str, chunks: list[Chunk]) -> np.ndarray:
    counts = np.fromiter((c.count for c in chunks), dtype=np.int64, count=len(chunks))
    if kind == "s":
        return _csv_ints(src, chunks, int(counts.sum()))
    if kind == "sd":
        return _chunk_cumsum(_csv_ints(src, chunks, int(counts.sum())), counts)
    return _chunk_cumsum(_unzigzag(_leb128(src, chunks)), counts)


def _csv_ints(src: str, chunks: list[Chunk], total: int) -> np.ndarray:
    text = ",".join(c.payload for c in chunks)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # numpy warns (not raises) on unmatched data
            arr = np.fromstring(text, dtype=np.int64, sep=",")
    except (ValueError, DeprecationWarning):
        arr = None
    except (AttributeError, TypeError):  # a numpy without text-mode fromstring
        try:
            arr = np.array(text.split(","), dtype=np.int64)
        except (ValueError, OverflowError):
            arr = None
    # fromstring saturates on overflow: any extreme value gets the exact slow check.
    if (
        arr is None
        or arr.size != total
        or (arr.size and (arr.max() == I64_MAX or arr.min() == I64_MIN))
    ):
        return _csv_ints_slow(src, chunks)
    return arr


def _csv_ints_slow(src: str, chunks: list[Chunk]) -> np.ndarray:
    out: list[int] = []
    for c in chunks:
        for tok in c.payload.split(","):
            if not INT_RE.fullmatch(tok):
                raise ProtocolError(src, f"expected an integer, got {tok!r}", line=c.line)
            v = int(tok)
            if not I64_MIN <= v <= I64_MAX:
                raise ProtocolError(src, f"{tok} does not fit in 64 bits", line=c.line)
            out.append(v)
    return np.array(out, dtype=np.int64)


def _chunk_cumsum(arr: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Running sums restarting at every chunk (each chunk decodes on its own)."""
    c = np.cumsum(arr)  # int64 wrap-around cancels out in the subtraction below
    if counts.size == 1:
        return c
    starts = np.cumsum(counts)[:-1]
    base = np.zeros(counts.size, dtype=np.int64)
    base[1:] = c[starts - 1]
    return c - np.repeat(base, counts)


def _leb128(src: str, chunks: list[Chunk]) -> np.ndarray:
    b = np.frombuffer(b"".join(c.payload for c in chunks), dtype=np.uint8)
    ends = np.flatnonzero(b < 0x80)
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lengths = ends - starts + 1
    if lengths.max() > 10:  # a 64-bit value needs at most 10 varint bytes
        bad = int(starts[np.argmax(lengths > 10)])
        pos = np.cumsum([len(c.payload) for c in chunks])
        c = chunks[int(np.searchsorted(pos, bad, side="right"))]
        raise ProtocolError(src, "varint longer than 10 bytes", line=c.line)
    shift = (np.arange(b.size, dtype=np.int64) - np.repeat(starts, lengths)) * 7
    parts = (b & 0x7F).astype(np.uint64) << shift.astype(np.uint64)
    return np.add.reduceat(parts, starts)  # the 7-bit groups do not overlap: sum == or


def _unzigzag(u: np.ndarray) -> np.ndarray:
    return (u >> np.uint64(1)).view(np.int64) ^ -(u & np.uint64(1)).view(np.int64)
