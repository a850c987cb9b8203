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
import mmap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec, name_list, parquet_direct
from rtlab.formats.isolate import Emit, run_isolated, stream_isolated
from rtlab.formats.parquet_write import FORMAT_VERSION, META_KEY, ROW_GROUP, write, write_stream
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel, EdgeStream, one_value_per_time_stream
from rtlab.ticks import FILE_TICK_RANGE_S, exact, one_value_per_time

_MAGIC = b"PAR1"


def _plan(
    path: Path, channels: list[str] | None
) -> tuple[dict[str, Any], list[int], list[int], dict[str, Any]]:
    """The checked footer: (metadata, channel index of each row group, wanted channels,
    the footer as the child reported it)."""
    with open(path, "rb") as fh:
        head = fh.read(4)
    if head != _MAGIC:
        raise FormatError(path, "not a Parquet file (no PAR1 magic)", offset=0)
    plan = run_isolated(path, _footer, str(path), what="Parquet footer")
    if plan["meta"] is None:
        raise FormatError(path, "a Parquet file, but not an rtlab capture (no rtlab.capture)")
    if plan["names"] != ["channel", "time"]:
        found = ",".join(map(str, plan["names"]))
        raise FormatError(path, f"expected columns channel,time; found {found}")
    meta = _parse_meta(path, plan["meta"])
    chans = meta["channels"]
    groups = _check_groups(path, plan["groups"], chans)
    if channels:
        missing = set(channels) - {c["name"] for c in chans}
        if missing:
            raise FormatError(path, f"no channel {sorted(missing)[0]!r} in capture")
    wanted = [i for i, c in enumerate(chans) if not channels or c["name"] in set(channels)]
    return meta, groups, wanted, plan


def _header(meta: dict[str, Any]) -> Capture:
    return Capture(
        tick_s=meta["tick"],
        t_start=meta["t_start"],
        t_end=meta["t_end"],
        gaps=meta["gaps"],
        resolution_s=meta["resolution"],
        metadata=dict(meta.get("metadata") or {}),
    )


def _channel(c: dict[str, Any], edges: np.ndarray) -> Channel:
    gl = c.get("gap_levels")
    gap_levels = None if gl is None else np.asarray(gl, dtype=np.int8)
    return Channel(c["name"], edges, c["initial_level"], gap_levels)


def read(path: Path, channels: list[str] | None = None, **_: Any) -> Capture:
    """Read a capture. The Parquet library runs in forked children (see isolate.py):
    on some corrupt files it aborts the process, which must not take the caller's
    program down. The first child reports the footer, the second decodes the edges
    straight into shared memory that becomes the channels' arrays."""
    meta, groups, wanted, _ = _plan(path, channels)
    chans = meta["channels"]
    # The footer's row counts matched the declared edge counts before this allocation,
    # so a corrupt count cannot ask for terabytes.
    total = sum(chans[i]["n_edges"] for i in wanted)
    try:
        shared = mmap.mmap(-1, max(total, 1) * 8)
    except (OSError, OverflowError, MemoryError):
        raise FormatError(path, "declared edge counts do not fit in memory") from None
    slots: dict[int, tuple[int, int]] = {}
    pos = 0
    for i in wanted:
        slots[i] = (pos, chans[i]["n_edges"])
        pos += chans[i]["n_edges"]
    jobs = [
        (off, n, [rg for rg, c in enumerate(groups) if c == i]) for i, (off, n) in slots.items()
    ]
    run_isolated(path, _decode, str(path), jobs, shared, what="Parquet data")
    everything = np.frombuffer(shared, dtype=np.int64, count=total)
    cap = _header(meta)
    same: dict[str, int] = {}
    for i, (off, n) in slots.items():
        c = chans[i]
        arr = everything[off : off + n]
        if arr.size > 1 and bool(np.any(arr[1:] < arr[:-1])):
            raise FormatError(path, f"channel {c['name']!r}: edge times are not sorted")
        arr, dropped = one_value_per_time(arr)  # rtlab's writer once wrote such pulses
        if dropped:
            same[c["name"]] = dropped
        cap.add(_channel(c, arr))
    if same:
        cap.metadata["same_time_changes"] = same
    try:
        cap.validate()
    except ValueError as exc:
        raise FormatError(path, str(exc)) from None
    return cap


def read_stream(path: Path, channels: list[str] | None = None, **_: Any) -> EdgeStream:
    """The capture as a stream of row groups (EdgeStream): a forked child decodes the
    next row groups into shared memory while the caller works on this one, and checks
    each channel's order and edge count as it goes (FormatError from the iterator)."""
    meta, groups, wanted, plan = _plan(path, channels)
    chans = meta["channels"]
    header = _header(meta)
    for i in wanted:
        header.add(_channel(chans[i], np.zeros(0, np.int64)))
    try:
        header.validate()
    except ValueError as exc:
        raise FormatError(path, str(exc)) from None
    jobs = [(i, [rg for rg, c in enumerate(groups) if c == i]) for i in wanted]
    names = {i: chans[i]["name"] for i in wanted}
    counts = {chans[i]["name"]: chans[i]["n_edges"] for i in wanted}
    locations = plan.get("locations") or [None] * len(groups)
    if parquet_direct.usable(locations, [rg for _, rgs in jobs for rg in rgs]):
        direct = parquet_direct.iter_direct(path, jobs, locations, names, plan["nullable"])
        return EdgeStream(header, counts, one_value_per_time_stream(direct))

    def produce(emit: Emit) -> None:
        pf = pq.ParquetFile(str(path))
        for i, rgs in jobs:
            last, seen = None, 0
            for rg in rgs:
                col = pf.read_row_group(rg, columns=["time"], use_threads=False).column(0)
                for chunk in col.chunks:
                    if chunk.null_count:
                        raise ValueError(f"row group {rg}: null edge times")
                    part = chunk.to_numpy(zero_copy_only=False)
                    if part.size and (
                        (last is not None and part[0] < last) or bool(np.any(part[1:] < part[:-1]))
                    ):
                        raise ValueError(f"channel {names[i]!r}: edge times are not sorted")
                    if part.size:
                        last = int(part[-1])
                        seen += part.size
                        emit(i, part)
            if seen != chans[i]["n_edges"]:
                raise ValueError(f"{seen} edges stored where {chans[i]['n_edges']} were declared")

    def chunks() -> Iterator[tuple[str, np.ndarray, bool]]:
        for i, arr in stream_isolated(path, produce, what="Parquet data", slot_items=ROW_GROUP):
            yield names[i], arr, bool(arr.size > 1 and np.any(arr[1:] == arr[:-1]))

    # rtlab's writer once wrote zero-width pulses: one value per time step, as read() does
    return EdgeStream(header, counts, one_value_per_time_stream(chunks()))


def _footer(path: str) -> dict[str, Any]:
    """In the child: column names, rtlab metadata, and (channel, rows) per row group."""
    pf = pq.ParquetFile(path)
    kv = pf.schema_arrow.metadata or {}
    names = list(pf.schema_arrow.names)
    raw = kv.get(META_KEY)
    meta = None if raw is None else raw.decode("utf-8", "replace")
    if names != ["channel", "time"]:
        return {"names": names, "meta": meta, "groups": []}
    md = pf.metadata
    groups = []
    for rg in range(md.num_row_groups):
        col = md.row_group(rg).column(0)
        stats = col.statistics
        if stats is not None and stats.has_min_max and stats.min == stats.max:
            index = int(stats.min)
        else:
            values = pf.read_row_group(rg, columns=["channel"]).column(0).to_numpy()
            same = values.size > 0 and bool(np.all(values == values[0]))
            index = int(values[0]) if same else -1  # -1: the group mixes channels
        groups.append((index, md.row_group(rg).num_rows))
    locations = [parquet_direct.time_chunk(md, rg) for rg in range(md.num_row_groups)]
    nullable = pf.schema.column(1).max_definition_level > 0
    return {
        "names": names,
        "meta": meta,
        "groups": groups,
        "locations": locations,
        "nullable": nullable,
    }


def _decode(path: str, jobs: list[tuple[int, int, list[int]]], shared: mmap.mmap) -> None:
    """In the child: decode each channel's row groups into its slot of shared memory."""
    pf = pq.ParquetFile(path)
    dest_all = np.frombuffer(shared, dtype=np.int64)
    for off, n, rgs in jobs:
        dest = dest_all[off : off + n]
        pos = 0
        if rgs:
            # All of a channel's row groups at once: Arrow decodes them on every core.
            col = pf.read_row_groups(rgs, columns=["time"], use_threads=True).column(0)
            for chunk in col.chunks:
                if chunk.null_count:
                    raise ValueError("null edge times")
                part = chunk.to_numpy(zero_copy_only=False)
                if pos + part.size > n:
                    raise ValueError("more edges than the channel declares")
                dest[pos : pos + part.size] = part
                pos += part.size
        if pos != n:
            raise ValueError(f"{pos} edges stored where {n} were declared")


def _check_groups(path: Path, groups: list, chans: list[dict[str, Any]]) -> list[int]:
    stored = [0] * len(chans)
    out = []
    for rg, (index, rows) in enumerate(groups):
        if index == -1:
            raise FormatError(path, f"row group {rg} mixes channels")
        if not 0 <= index < len(chans):
            raise FormatError(path, f"row group {rg}: channel index {index} out of range")
        stored[index] += rows
        out.append(index)
    for index, c in enumerate(chans):
        if stored[index] != c["n_edges"]:
            raise FormatError(
                path,
                f"channel {c['name']!r}: {stored[index]} edges stored, {c['n_edges']} declared",
            )
    return out


def _parse_meta(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        meta = json.loads(raw)
        if not isinstance(meta, dict) or not isinstance(meta.get("channels"), list):
            raise ValueError("expected an object with a channels list")
        if meta.get("version") != FORMAT_VERSION:
            raise FormatError(path, f"unsupported rtlab capture version {meta.get('version')!r}")
        meta["tick"] = exact(str(meta["tick_s"]))
        meta["resolution"] = (
            exact(str(meta["resolution_s"])) if meta.get("resolution_s") is not None else None
        )
        gaps = np.asarray(meta.get("gaps") or [], dtype=np.int64).reshape(-1, 2)
        meta["gaps"] = gaps
        for c in meta["channels"]:
            if (
                not isinstance(c, dict)
                or not isinstance(c["name"], str)
                or c["initial_level"] not in (0, 1, UNKNOWN_LEVEL)
            ):
                raise ValueError("bad channel entry")
            n = int(c["n_edges"])
            if n < 0 or n > (1 << 40):
                raise ValueError("bad edge count")
            c["n_edges"] = n
            gl = c.get("gap_levels")
            if gl is not None and len(gl) != len(gaps):
                raise ValueError("gap_levels length differs from gaps")
        for key in ("t_start", "t_end"):
            value = meta.get(key)
            meta[key] = None if value is None else int(value)
        if not isinstance(meta.get("metadata") or {}, dict):
            raise ValueError("metadata must be an object")
        for key in ("tick", "resolution"):
            lo, hi = FILE_TICK_RANGE_S
            if meta[key] is not None and not lo <= meta[key] <= hi:
                raise ValueError(f"{key}_s {meta[key + '_s']!r} is out of range (1e-18 to 1e6 s)")
    except FormatError:
        raise
    except (
        ValueError,
        KeyError,
        TypeError,
        ZeroDivisionError,
        OverflowError,
        AttributeError,
    ) as exc:
        raise FormatError(path, f"bad rtlab.capture metadata: {exc}") from None
    return meta


def _sniff(head: bytes, path: Path) -> bool:
    return head[:4] == _MAGIC


FORMAT = FormatSpec(
    name="parquet",
    extensions=(".parquet", ".pq"),
    read=read,
    write=write,
    stream=read_stream,
    write_stream=write_stream,
    sniff=_sniff,
    description="rtlab's native capture format (Parquet)",
    options={"channels": name_list},
)
