"""Encoding rtlab's native Parquet layout without Arrow (numpy only).

A row group holds one channel's edges: column `channel` (INT32, UINT_16) as a one-entry
dictionary page and one RLE run; column `time` (INT64) as uncompressed
DELTA_BINARY_PACKED data pages of up to PAGE_VALUES values, the layout that
`rtlab_native.decode_delta_chunk` reads (docs/formats.md). Both columns are required
(no definition levels) and carry min/max statistics, so a reader finds a row group's
channel in the footer. DuckDB, pyarrow and polars read these files.
"""

from __future__ import annotations

import numpy as np

from rtlab.formats.parquet_thrift import BINARY, I32, I64, LIST, STRUCT, Struct, zigzag_bytes

PAGE_VALUES = 1 << 20
BLOCK, MINIS = 128, 4  # DELTA_BINARY_PACKED: 128 values per block, 4 miniblocks of 32
PER_MINI = BLOCK // MINIS
# Parquet's enums (parquet.thrift)
INT32, INT64 = 1, 2
PLAIN, RLE, RLE_DICTIONARY, DELTA_BINARY_PACKED = 0, 3, 8, 5
DATA_PAGE, DICTIONARY_PAGE = 0, 2
UNCOMPRESSED = 0


def _bit_length(x: np.ndarray) -> np.ndarray:
    """Bits needed by each uint64 value (0 for 0), exactly."""
    y = x.copy()
    w = np.zeros(x.shape, dtype=np.int64)
    for s in (32, 16, 8, 4, 2, 1):
        big = (y >> np.uint64(s)) != 0
        w[big] += s
        y[big] >>= np.uint64(s)
    bits: np.ndarray = w + (y != 0)
    return bits


def _varints(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ULEB128 of each uint64: (bytes as a (n, 10) uint8 array, length of each)."""
    lens = np.maximum((_bit_length(u) + 6) // 7, 1)
    parts = np.empty((u.size, 10), dtype=np.uint8)
    for j in range(10):
        b = (u >> np.uint64(7 * j)) & np.uint64(0x7F)
        parts[:, j] = b.astype(np.uint8) | np.where(j < lens - 1, 0x80, 0).astype(np.uint8)
    return parts, lens


def encode_delta(values: np.ndarray) -> bytes:
    """One DELTA_BINARY_PACKED stream of sorted int64 values (deltas >= 0)."""
    n = int(values.size)
    head = _uleb(BLOCK) + _uleb(MINIS) + _uleb(n) + zigzag_bytes(int(values[0]) if n else 0)
    if n <= 1:
        return head
    d = np.diff(values).astype(np.uint64)
    m = d.size
    nb = -(-m // BLOCK)
    big = np.full(nb * BLOCK, np.iinfo(np.uint64).max, dtype=np.uint64)
    big[:m] = d
    blocks = big.reshape(nb, BLOCK)
    mins = blocks.min(axis=1)
    rel = blocks - mins[:, None]
    rel.reshape(-1)[m:] = 0  # padding: zero bits
    minis = rel.reshape(nb * MINIS, PER_MINI)
    widths = _bit_length(minis.max(axis=1))
    used = np.arange(nb * MINIS) * PER_MINI < m  # miniblocks holding at least one delta
    widths[~used] = 0
    mz, mlen = _varints(mins.astype(np.int64).astype(np.uint64) << np.uint64(1))
    body = widths * (PER_MINI // 8)  # bytes of each miniblock
    block_len = mlen + MINIS + body.reshape(nb, MINIS).sum(axis=1)
    starts = np.concatenate(([0], np.cumsum(block_len)[:-1]))
    out = np.zeros(int(block_len.sum()), dtype=np.uint8)
    for j in range(10):  # each block's min delta, then its four widths
        sel = j < mlen
        out[starts[sel] + j] = mz[sel, j]
    wpos = starts + mlen
    for k in range(MINIS):
        out[wpos + k] = widths.reshape(nb, MINIS)[:, k]
    mini_start = (wpos + MINIS)[:, None] + np.concatenate(
        (np.zeros((nb, 1), np.int64), np.cumsum(body.reshape(nb, MINIS), axis=1)[:, :-1]), axis=1
    )
    mini_start = mini_start.reshape(-1)
    for w in np.unique(widths[used]):
        if w == 0:
            continue
        at = np.flatnonzero(used & (widths == w))
        vals = minis[at]
        bits = ((vals[:, :, None] >> np.arange(w, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)
        packed = np.packbits(bits.reshape(at.size, PER_MINI * int(w)), axis=1, bitorder="little")
        idx = mini_start[at][:, None] + np.arange(packed.shape[1])
        out[idx] = packed
    return head + out.tobytes()


def _uleb(v: int) -> bytes:
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _page(kind: int, body: bytes, n: int, encoding: int) -> bytes:
    h = Struct().add(1, I32, kind).add(2, I32, len(body)).add(3, I32, len(body))
    if kind == DICTIONARY_PAGE:
        h.add(7, STRUCT, Struct().add(1, I32, n).add(2, I32, encoding))
    else:
        sub = Struct().add(1, I32, n).add(2, I32, encoding).add(3, I32, RLE).add(4, I32, RLE)
        h.add(5, STRUCT, sub)
    return h.encode() + body


def _stats(lo: bytes, hi: bytes) -> Struct:
    return (
        Struct()
        .add(1, BINARY, hi)
        .add(2, BINARY, lo)
        .add(3, I64, 0)
        .add(5, BINARY, hi)
        .add(6, BINARY, lo)
    )


def column_chunks(index: int, times: np.ndarray, offset: int) -> tuple[bytes, Struct, int]:
    """The two column chunks of one row group (channel `index`, sorted `times`) to be
    written at file offset `offset`: (their bytes, the RowGroup struct, rows)."""
    n = int(times.size)
    one = np.int32(index).tobytes()
    dict_page = _page(DICTIONARY_PAGE, one, 1, PLAIN)
    # RLE_DICTIONARY data: bit width 1, one RLE run of n zeros (header n << 1, value 0)
    chan_data = _page(DATA_PAGE, bytes([1]) + _uleb(n << 1) + b"\x00", n, RLE_DICTIONARY)
    chan = dict_page + chan_data
    pages = [
        _page(DATA_PAGE, encode_delta(times[lo : lo + PAGE_VALUES]), min(PAGE_VALUES, n - lo),
              DELTA_BINARY_PACKED)
        for lo in range(0, n, PAGE_VALUES)
    ]  # fmt: skip
    time_bytes = b"".join(pages)
    t_off = offset + len(chan)
    lo_t, hi_t = times[:1].tobytes(), times[-1:].tobytes()
    chan_meta = (
        Struct()
        .add(1, I32, INT32)
        .add(2, LIST, (I32, [PLAIN, RLE, RLE_DICTIONARY]))
        .add(3, LIST, (BINARY, ["channel"]))
        .add(4, I32, UNCOMPRESSED)
        .add(5, I64, n)
        .add(6, I64, len(chan))
        .add(7, I64, len(chan))
        .add(9, I64, offset + len(dict_page))
        .add(11, I64, offset)
        .add(12, STRUCT, _stats(one, one))
    )
    time_meta = (
        Struct()
        .add(1, I32, INT64)
        .add(2, LIST, (I32, [RLE, DELTA_BINARY_PACKED]))
        .add(3, LIST, (BINARY, ["time"]))
        .add(4, I32, UNCOMPRESSED)
        .add(5, I64, n)
        .add(6, I64, len(time_bytes))
        .add(7, I64, len(time_bytes))
        .add(9, I64, t_off)
        .add(12, STRUCT, _stats(lo_t, hi_t))
    )
    total = len(chan) + len(time_bytes)
    cols = [
        Struct().add(2, I64, offset).add(3, STRUCT, chan_meta),
        Struct().add(2, I64, t_off).add(3, STRUCT, time_meta),
    ]
    rg = (
        Struct()
        .add(1, LIST, (STRUCT, cols))
        .add(2, I64, total)
        .add(3, I64, n)
        .add(5, I64, offset)
        .add(6, I64, total)
    )
    return chan + time_bytes, rg, n


def footer(row_groups: list[Struct], rows: int, key: bytes, value: bytes) -> bytes:
    """FileMetaData (schema channel: INT32 UINT_16, time: INT64, both required), its
    length and the closing magic."""
    root = Struct().add(4, BINARY, "schema").add(5, I32, 2)
    int16 = Struct().add(10, STRUCT, Struct().add(1, 3, 16).add(2, 1, False))  # IntType
    chan = Struct().add(1, I32, INT32).add(3, I32, 0).add(4, BINARY, "channel").add(6, I32, 12)
    chan.add(10, STRUCT, int16)
    time = Struct().add(1, I32, INT64).add(3, I32, 0).add(4, BINARY, "time")
    kv = Struct().add(1, BINARY, key).add(2, BINARY, value)
    meta = (
        Struct()
        .add(1, I32, 1)
        .add(2, LIST, (STRUCT, [root, chan, time]))
        .add(3, I64, rows)
        .add(4, LIST, (STRUCT, row_groups))
        .add(5, LIST, (STRUCT, [kv]))
        .add(6, BINARY, "rtlab")
        # TypeDefinedOrder for each column: readers then trust min_value/max_value
        .add(7, LIST, (STRUCT, [Struct().add(1, STRUCT, Struct()) for _ in range(2)]))
    )
    data = meta.encode()
    return data + len(data).to_bytes(4, "little") + b"PAR1"
