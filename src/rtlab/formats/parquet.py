"""rtlab's native capture format: one Parquet file (documented in docs/formats.md).

Rows are edges: `channel` (uint16, index into the channel list) and `time` (int64
ticks), sorted by channel then time; a row group never mixes channels, so one channel
is read without touching the others. Everything else — tick length as an exact
fraction, channel names and initial levels, gaps, window, metadata — is JSON in the
file's key-value metadata under `rtlab.capture`. DuckDB, polars or pandas read the
edge table directly: `SELECT * FROM 'run.parquet'`.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec
from rtlab.fsutil import atomic_path
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel

META_KEY = b"rtlab.capture"
FORMAT_VERSION = 1
ROW_GROUP = 1 << 22  # 4 Mi edges (32 MiB of times) per row group
_MAGIC = b"PAR1"


def write(cap: Capture, path: Path, **_: Any) -> None:
    cap.validate()
    names = list(cap.channels)
    if len(names) > 65535:
        raise ValueError("at most 65535 channels")
    meta = {
        "version": FORMAT_VERSION,
        "tick_s": str(cap.tick_s),
        "resolution_s": str(cap.resolution_s) if cap.resolution_s is not None else None,
        "t_start": cap.t_start,
        "t_end": cap.t_end,
        "gaps": cap.gaps.tolist(),
        "channels": [
            {
                "name": ch.name,
                "initial_level": ch.initial_level,
                "n_edges": len(ch),
                "gap_levels": None if ch.gap_levels is None else [int(x) for x in ch.gap_levels],
            }
            for ch in cap
        ],
        "metadata": _jsonable(cap.metadata),
    }
    schema = pa.schema(
        [("channel", pa.uint16()), ("time", pa.int64())],
        metadata={META_KEY: json.dumps(meta).encode()},
    )
    with (
        atomic_path(path) as tmp,
        pq.ParquetWriter(
            tmp,
            schema,
            compression="none",
            use_dictionary=["channel"],
            column_encoding={"time": "DELTA_BINARY_PACKED"},
            write_statistics=["time"],
        ) as writer,
    ):
        for index, ch in enumerate(cap):
            e = ch.edges
            for lo in range(0, max(len(e), 1), ROW_GROUP):
                part = e[lo : lo + ROW_GROUP]
                if part.size == 0:
                    continue
                chan = pa.array(np.full(part.size, index, dtype=np.uint16))
                writer.write_table(
                    pa.Table.from_arrays([chan, pa.array(part)], schema=schema),
                    row_group_size=ROW_GROUP,
                )


def _jsonable(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=str))


def read(path: Path, channels: list[str] | None = None, **_: Any) -> Capture:
    with open(path, "rb") as fh:
        head = fh.read(4)
    if head != _MAGIC:
        raise FormatError(path, "not a Parquet file (no PAR1 magic)", offset=0)
    try:
        pf = pq.ParquetFile(path)
        kv = pf.schema_arrow.metadata or {}
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(path, f"corrupt Parquet file: {exc}") from None
    if META_KEY not in kv:
        raise FormatError(path, "a Parquet file, but not an rtlab capture (no rtlab.capture)")
    meta = _parse_meta(path, kv[META_KEY])
    chans = meta["channels"]
    wanted = set(channels) if channels else None
    try:
        names = pf.schema_arrow.names
        if names != ["channel", "time"]:
            raise FormatError(path, f"expected columns channel,time; found {','.join(names)}")
        # The footer's row counts are checked against the declared edge counts before
        # anything is allocated, so a corrupt count cannot ask for terabytes.
        groups = [_row_group_channel(path, pf, rg, len(chans)) for rg in range(pf.num_row_groups)]
        stored = [0] * len(chans)
        for rg, index in enumerate(groups):
            stored[index] += pf.metadata.row_group(rg).num_rows
        for index, c in enumerate(chans):
            if stored[index] != c["n_edges"]:
                raise FormatError(
                    path,
                    f"channel {c['name']!r}: {stored[index]} edges stored, {c['n_edges']} declared",
                )
        out = {
            i: np.empty(c["n_edges"], dtype=np.int64)
            for i, c in enumerate(chans)
            if wanted is None or c["name"] in wanted
        }
        filled = dict.fromkeys(out, 0)
        for index in out:
            # All of a channel's row groups at once: Arrow decodes them on every core.
            rgs = [rg for rg, i in enumerate(groups) if i == index]
            if rgs:
                col = pf.read_row_groups(rgs, columns=["time"], use_threads=True).column(0)
                _fill(path, out[index], filled, index, col, rgs[0])
                del col
                pa.default_memory_pool().release_unused()
    except (pa.ArrowException, OSError) as exc:
        raise FormatError(path, f"corrupt Parquet data: {exc}") from None
    except MemoryError:
        raise FormatError(path, "declared edge counts do not fit in memory") from None
    finally:
        # Arrow's allocator keeps decoded pages for reuse; give them back (~1x the edges).
        pa.default_memory_pool().release_unused()
    cap = Capture(
        tick_s=meta["tick"],
        t_start=meta["t_start"],
        t_end=meta["t_end"],
        gaps=meta["gaps"],
        resolution_s=meta["resolution"],
        metadata=dict(meta.get("metadata") or {}),
    )
    for i, arr in out.items():
        c = chans[i]
        if filled[i] != arr.size:
            raise FormatError(
                path, f"channel {c['name']!r}: {filled[i]} edges stored, {arr.size} declared"
            )
        if arr.size > 1 and bool(np.any(arr[1:] < arr[:-1])):
            raise FormatError(path, f"channel {c['name']!r}: edge times are not sorted")
        gl = c.get("gap_levels")
        cap.add(
            Channel(
                c["name"],
                arr,
                c["initial_level"],
                None if gl is None else np.asarray(gl, dtype=np.int8),
            )
        )
    if wanted:
        missing = wanted - set(cap.channels)
        if missing:
            raise FormatError(path, f"no channel {sorted(missing)[0]!r} in capture")
    try:
        cap.validate()
    except ValueError as exc:
        raise FormatError(path, str(exc)) from None
    return cap


def _row_group_channel(path: Path, pf: pq.ParquetFile, rg: int, n_channels: int) -> int:
    stats = pf.metadata.row_group(rg).column(0).statistics
    if stats is not None and stats.has_min_max and stats.min == stats.max:
        index = int(stats.min)
    else:
        col = pf.read_row_group(rg, columns=["channel"]).column(0).to_numpy()
        if col.size == 0 or np.any(col != col[0]):
            raise FormatError(path, f"row group {rg} mixes channels")
        index = int(col[0])
    if not 0 <= index < n_channels:
        raise FormatError(path, f"row group {rg}: channel index {index} out of range")
    return index


def _fill(
    path: Path,
    dest: np.ndarray,
    filled: dict[int, int],
    index: int,
    col: pa.ChunkedArray,
    rg: int,
) -> None:
    pos = filled[index]
    for chunk in col.chunks:
        if chunk.null_count:
            raise FormatError(path, f"row group {rg}: null edge times")
        part = chunk.to_numpy(zero_copy_only=False)
        if pos + part.size > dest.size:
            raise FormatError(path, f"row group {rg}: more edges than the channel declares")
        dest[pos : pos + part.size] = part
        pos += part.size
    filled[index] = pos


def _parse_meta(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        meta = json.loads(raw)
        if meta.get("version") != FORMAT_VERSION:
            raise FormatError(path, f"unsupported rtlab capture version {meta.get('version')!r}")
        meta["tick"] = Fraction(meta["tick_s"])
        meta["resolution"] = (
            Fraction(meta["resolution_s"]) if meta.get("resolution_s") is not None else None
        )
        gaps = np.asarray(meta.get("gaps") or [], dtype=np.int64).reshape(-1, 2)
        meta["gaps"] = gaps
        for c in meta["channels"]:
            if not isinstance(c["name"], str) or c["initial_level"] not in (0, 1, UNKNOWN_LEVEL):
                raise ValueError("bad channel entry")
            n = int(c["n_edges"])
            if n < 0 or n > (1 << 40):
                raise ValueError("bad edge count")
            c["n_edges"] = n
            gl = c.get("gap_levels")
            if gl is not None and len(gl) != len(gaps):
                raise ValueError("gap_levels length differs from gaps")
        for key in ("t_start", "t_end"):
            if meta.get(key) is not None:
                meta[key] = int(meta[key])
        if meta["tick"] <= 0:
            raise ValueError("tick must be positive")
    except FormatError:
        raise
    except (ValueError, KeyError, TypeError, ZeroDivisionError, OverflowError) as exc:
        raise FormatError(path, f"bad rtlab.capture metadata: {exc}") from None
    return meta


def _sniff(head: bytes, path: Path) -> bool:
    return head[:4] == _MAGIC


FORMAT = FormatSpec(
    name="parquet",
    extensions=(".parquet", ".pq"),
    read=read,
    write=write,
    sniff=_sniff,
    description="rtlab's native capture format (Parquet)",
)
