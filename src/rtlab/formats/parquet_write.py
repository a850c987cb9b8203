"""Writing rtlab's native capture format (documented in docs/formats.md; read by
parquet.py): whole captures and streams, row group by row group."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from rtlab.fsutil import atomic_path
from rtlab.model import Capture, EdgeStream, one_value_per_time_stream
from rtlab.ticks import one_value_per_time

META_KEY = b"rtlab.capture"
FORMAT_VERSION = 1
ROW_GROUP = 1 << 22  # 4 Mi edges (32 MiB of times) per row group


def write(cap: Capture, path: Path, **_: Any) -> None:
    """Write `cap` (see the module doc). Edges at one time are written as one value per
    time step, the last (one_value_per_time: what every reader reads back)."""
    cap = _one_value_per_time(cap)
    cap.validate()
    write_stream(EdgeStream.from_capture(cap, ROW_GROUP), path)


def write_stream(stream: EdgeStream, path: Path, **_: Any) -> None:
    """Write a capture chunk by chunk (`rtlab convert` in bounded memory): each chunk
    becomes row groups of its channel. Nothing is at `path` unless all went well. The
    header is the stream's; when it is known only at the end (a sigrok session's window)
    or fewer edges came (a reader dropped same-time pulses) the file is rewritten."""
    cap = stream.header
    names = list(cap.channels)
    if len(names) > 65535:
        raise ValueError("at most 65535 channels")
    index = {n: i for i, n in enumerate(names)}
    meta = _meta(cap, stream.edge_counts)
    written = dict.fromkeys(names, 0)
    with atomic_path(path) as tmp:
        # one value per time step, as write() (a zero-width pulse: the last value wins)
        chunks = one_value_per_time_stream((n, e, True) for n, e in stream.chunks)
        with _writer(tmp, meta) as (writer, schema):

            def put(name: str, part: np.ndarray) -> None:
                chan = pa.array(np.full(part.size, index[name], dtype=np.uint16))
                table = pa.Table.from_arrays([chan, pa.array(part)], schema=schema)
                writer.write_table(table, row_group_size=ROW_GROUP)
                written[name] += part.size

            # small chunks (a sigrok batch, many channels interleaved) are gathered per
            # channel into row groups of ROW_GROUP edges; a chunk may be a reused buffer
            pending: dict[str, list[np.ndarray]] = {n: [] for n in names}
            for name, edges in chunks:
                pending[name].append(np.array(edges, dtype=np.int64))
                if sum(a.size for a in pending[name]) >= ROW_GROUP:
                    whole = np.concatenate(pending[name])
                    cut = whole.size - whole.size % ROW_GROUP
                    for lo in range(0, cut, ROW_GROUP):
                        put(name, whole[lo : lo + ROW_GROUP])
                    pending[name] = [whole[cut:]]
            for name, parts in pending.items():
                rest = np.concatenate(parts) if parts else np.zeros(0, np.int64)
                if rest.size:
                    put(name, rest)
        final = _meta(cap, written)
        if final != meta:
            # a header known only at the end of the stream (a sigrok session's window,
            # edge counts) or fewer edges than declared (same-time pulses dropped): the
            # header is in the file's schema, so copy the row groups under the final one
            _rewrite(tmp, final)


def _meta(cap: Capture, counts: dict[str, int]) -> dict[str, Any]:
    """The `rtlab.capture` document of a capture whose channels hold `counts` edges."""
    return {
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
                "n_edges": counts[ch.name],
                "gap_levels": None if ch.gap_levels is None else [int(x) for x in ch.gap_levels],
            }
            for ch in cap
        ],
        "metadata": _jsonable(cap.metadata),
    }


@contextlib.contextmanager
def _writer(path: Path, meta: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    schema = pa.schema(
        [("channel", pa.uint16()), ("time", pa.int64())],
        metadata={META_KEY: json.dumps(meta).encode()},
    )
    with pq.ParquetWriter(
        path,
        schema,
        compression="none",
        use_dictionary=["channel"],
        column_encoding={"time": "DELTA_BINARY_PACKED"},
        write_statistics=["channel", "time"],  # a reader finds each group's channel
    ) as writer:
        yield writer, schema


def _rewrite(path: Path, meta: dict[str, Any]) -> None:
    """Copy a native file's row groups one by one under new metadata."""
    fixed = path.with_name(path.name + ".fix")
    src = pq.ParquetFile(path)
    with _writer(fixed, meta) as (writer, schema):
        for rg in range(src.metadata.num_row_groups):
            writer.write_table(src.read_row_group(rg).cast(schema), row_group_size=ROW_GROUP)
    os.replace(fixed, path)


def _one_value_per_time(cap: Capture) -> Capture:
    """`cap` itself, or a copy whose channels hold one edge per time step."""
    fixed = {ch.name: one_value_per_time(ch.edges)[0] for ch in cap}
    if all(fixed[ch.name].size == len(ch) for ch in cap):
        return cap
    return cap.with_edges(lambda ch: fixed[ch.name])


def _jsonable(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=str))
