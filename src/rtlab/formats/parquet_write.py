"""Writing rtlab's native capture format (documented in docs/formats.md; read by
parquet.py): whole captures and streams, row group by row group, without Arrow
(parquet_encode.py writes the pages and the footer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.formats.parquet_encode import column_chunks, footer
from rtlab.formats.parquet_thrift import Struct
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
    header is the stream's, written in the footer at the end: a header known only at
    the end of the stream (a sigrok session's window) and the edge counts written (a
    reader dropped same-time pulses) are the final ones."""
    cap = stream.header
    names = list(cap.channels)
    if len(names) > 65535:
        raise ValueError("at most 65535 channels")
    index = {n: i for i, n in enumerate(names)}
    written = dict.fromkeys(names, 0)
    groups: list[Struct] = []
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(b"PAR1")
        # one value per time step, as write() (a zero-width pulse: the last value wins)
        chunks = one_value_per_time_stream((n, e, True) for n, e in stream.chunks)

        def put(name: str, part: np.ndarray) -> None:
            data, rg, rows = column_chunks(index[name], part, fh.tell())
            fh.write(data)
            groups.append(rg)
            written[name] += rows

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
        meta = json.dumps(_meta(cap, written)).encode()
        fh.write(footer(groups, sum(written.values()), META_KEY, meta))


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


def _one_value_per_time(cap: Capture) -> Capture:
    """`cap` itself, or a copy whose channels hold one edge per time step."""
    fixed = {ch.name: one_value_per_time(ch.edges)[0] for ch in cap}
    if all(fixed[ch.name].size == len(ch) for ch in cap):
        return cap
    return cap.with_edges(lambda ch: fixed[ch.name])


def _jsonable(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=str))
