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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec, name_list, parquet_direct
from rtlab.formats.isolate import Emit, Refusal, run_isolated, stream_isolated
from rtlab.formats.parquet_footer import Plan, read_plan
from rtlab.formats.parquet_write import FORMAT_VERSION, META_KEY, ROW_GROUP, write, write_stream
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel, EdgeStream, one_value_per_time_stream
from rtlab.ticks import FILE_TICK_RANGE_S, exact

_MAGIC = b"PAR1"


def _plan(
    path: Path, channels: list[str] | None
) -> tuple[dict[str, Any], list[int], list[int], Plan]:
    """The checked footer: (metadata, channel index of each row group, wanted channels,
    the footer)."""
    plan = read_plan(path, META_KEY)
    if plan.meta is None:
        raise FormatError(path, "a Parquet file, but not an rtlab capture (no rtlab.capture)")
    if plan.names != ["channel", "time"]:
        found = ",".join(map(str, plan.names))
        raise FormatError(path, f"expected columns channel,time; found {found}")
    if plan.time_problem is not None:
        raise FormatError(path, plan.time_problem)
    meta = _parse_meta(path, plan.meta)
    chans = meta["channels"]
    if any(index is None for index, _ in plan.groups):
        plan.groups = run_isolated(path, _channels_of_groups, str(path), plan.groups,
                                   what="Parquet channel column")  # fmt: skip
    groups = _check_groups(path, plan.groups, chans)
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
    """Read a capture: read_stream's row groups gathered into one array per channel
    (the declared edge counts were checked against the footer's row counts, so a
    corrupt count cannot ask for terabytes). Edges at one time step read as one
    (one_value_per_time: rtlab's writer once wrote such pulses); how many were dropped
    is in metadata["same_time_changes"]."""
    stream = read_stream(path, channels)
    cap = stream.header
    try:
        arrays = {n: np.empty(k, dtype=np.int64) for n, k in stream.edge_counts.items()}
    except (MemoryError, ValueError):
        raise FormatError(path, "declared edge counts do not fit in memory") from None
    filled = dict.fromkeys(arrays, 0)
    for name, part in stream.chunks:
        at = filled[name]
        arrays[name][at : at + part.size] = part
        filled[name] = at + part.size
    same = {n: k - filled[n] for n, k in stream.edge_counts.items() if filled[n] < k}
    for ch in list(cap):
        del cap.channels[ch.name]
        edges = arrays[ch.name][: filled[ch.name]]
        cap.add(Channel(ch.name, edges, ch.initial_level, ch.gap_levels))
    if same:
        cap.metadata["same_time_changes"] = same
    try:
        cap.validate()
    except ValueError as exc:
        raise FormatError(path, str(exc)) from None
    return cap


def read_stream(path: Path, channels: list[str] | None = None, **_: Any) -> EdgeStream:
    """The capture as a stream of row groups (EdgeStream), each channel's order and edge
    count checked on the way (FormatError from the iterator). rtlab's own layout is
    decoded by the compiled decoder (parquet_direct) in this process; any other layout,
    or any file without the compiled decoder, by DuckDB in a forked child (isolate.py:
    a crash on a corrupt file is a FormatError), row group by row group."""
    meta, groups, wanted, plan = _plan(path, channels)
    chans = meta["channels"]
    header = _header(meta)
    try:
        for i in wanted:
            header.add(_channel(chans[i], np.zeros(0, np.int64)))  # two names alike: refused
        header.validate()
    except ValueError as exc:
        raise FormatError(path, str(exc)) from None
    jobs = [(i, [rg for rg, c in enumerate(groups) if c == i]) for i in wanted]
    names = {i: chans[i]["name"] for i in wanted}
    counts = {chans[i]["name"]: chans[i]["n_edges"] for i in wanted}
    locations = plan.locations or [None] * len(groups)
    if parquet_direct.usable(locations, [rg for _, rgs in jobs for rg in rgs]):
        direct = parquet_direct.iter_direct(path, jobs, locations, names, plan.nullable)
        return EdgeStream(header, counts, one_value_per_time_stream(direct))
    starts = np.concatenate(([0], np.cumsum([rows for _, rows in plan.groups]))).tolist()

    def produce(emit: Emit) -> None:
        con = _duckdb()
        for i, rgs in jobs:
            last, seen = None, 0
            for rg in rgs:
                part = _rows(con, str(path), "time", starts[rg], starts[rg + 1])
                if part.size and (
                    (last is not None and part[0] < last) or bool(np.any(part[1:] < part[:-1]))
                ):
                    raise ValueError(f"channel {names[i]!r}: edge times are not sorted")
                for lo in range(0, part.size, ROW_GROUP):
                    emit(i, part[lo : lo + ROW_GROUP])
                if part.size:
                    last = int(part[-1])
                    seen += part.size
            if seen != chans[i]["n_edges"]:
                raise ValueError(f"{seen} edges stored where {chans[i]['n_edges']} were declared")

    def chunks() -> Iterator[tuple[str, np.ndarray, bool]]:
        for i, arr in stream_isolated(path, produce, what="Parquet data", slot_items=ROW_GROUP):
            yield names[i], arr, bool(arr.size > 1 and np.any(arr[1:] == arr[:-1]))

    # rtlab's writer once wrote zero-width pulses: one value per time step, as read() does
    return EdgeStream(header, counts, one_value_per_time_stream(chunks()))


def _duckdb() -> Any:
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads TO 1")
    return con


def _rows(con: Any, path: str, column: str, lo: int, hi: int) -> np.ndarray:
    """Rows [lo, hi) of one column (DuckDB skips the row groups outside the range)."""
    sql = (
        f"SELECT {column} FROM read_parquet(?, file_row_number=true) "
        "WHERE file_row_number >= ? AND file_row_number < ? ORDER BY file_row_number"
    )
    got = con.execute(sql, [path, lo, hi]).fetchnumpy()[column]
    if np.ma.isMaskedArray(got) and bool(np.ma.getmaskarray(got).any()):
        row = lo + int(np.flatnonzero(np.ma.getmaskarray(got))[0])
        raise Refusal(f"row {row}: the {column} is null (every edge needs a {column})")
    got = np.asarray(got)
    if got.dtype.kind not in "iu":  # the footer was checked: this is what DuckDB made of it
        raise Refusal(f"the {column} column reads as {got.dtype}, not as integers")
    if got.dtype == np.uint64 and got.size and int(got.max()) > 2**63 - 1:
        row = lo + int(np.argmax(got > np.uint64(2**63 - 1)))
        raise Refusal(
            f"row {row}: {column} {int(got[row - lo])} is above 2^63 - 1 ticks "
            "(a uint64 value that no int64 tick holds)"
        )
    out = got.astype(np.int64)
    if out.size != hi - lo:
        raise ValueError(f"{out.size} values in rows {lo} to {hi}")
    return out


def _channels_of_groups(path: str, groups: list[tuple[int | None, int]]) -> list[tuple[int, int]]:
    """In a child: the channel of each row group whose statistics do not say it (a file
    written before rtlab stored them): -1 when the group mixes channels."""
    con = _duckdb()
    out, start = [], 0
    for index, rows in groups:
        if index is None and rows:
            values = _rows(con, path, "channel", start, start + rows)
            index = int(values[0]) if bool(np.all(values == values[0])) else -1
        out.append((0 if index is None else index, rows))  # an empty group: any channel
        start += rows
    return out


def _check_groups(path: Path, groups: list[Any], chans: list[dict[str, Any]]) -> list[int]:
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


def _parse_meta(path: Path, raw: str) -> dict[str, Any]:
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


FORMAT = FormatSpec.of(
    globals(), "parquet", (".parquet", ".pq"), "rtlab's native capture format (Parquet)",
    {"channels": name_list}, write=write, write_stream=write_stream,
)  # fmt: skip
