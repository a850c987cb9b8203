"""`rtlab events`: every period, width, interval or latency of a capture with its start
time, written as CSV or Parquet while the capture streams by (memory bounded by one
chunk of edges, not by the capture).

Columns: channel, metric, start_ns, value_ns (floats: ticks × tick length), start_tick,
value_ticks (exact integers), and `sample` (= start_tick) in a sample-based capture.
Parquet is written by DuckDB from the CSV (no Arrow needed), in one streaming COPY.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from rtlab.analysis.events import METRICS, ChannelEvents
from rtlab.analysis.summary import is_sample_based
from rtlab.errors import RtlabError
from rtlab.fsutil import atomic_path
from rtlab.model import Capture, Edge, EdgeStream

Progress = Callable[[int, int], None]
SUFFIXES = (".csv", ".parquet")


def check_output(path: Path) -> str:
    kind = path.suffix.lower()
    if kind not in SUFFIXES:
        raise RtlabError(f"-o {path}: write .csv or .parquet, not {kind or 'no suffix'!r}")
    return kind


def check_metrics(metrics: Sequence[str]) -> list[str]:
    bad = [m for m in metrics if m not in METRICS]
    if bad:
        raise RtlabError(f"unknown metric {bad[0]!r}; one of {', '.join(METRICS)}")
    return list(dict.fromkeys(metrics))


def stream_rows(
    stream: EdgeStream,
    channels: Sequence[str] | None,
    metrics: Sequence[str],
    edge: Edge,
    progress: Progress | None = None,
) -> Iterable[tuple[str, str, np.ndarray, np.ndarray]]:
    """(channel, metric, start ticks, values) blocks, chunk by chunk."""
    cap = stream.header
    names = [cap[n].name for n in channels] if channels else list(cap.channels)
    walks = {n: ChannelEvents(cap[n], cap.gaps, edge) for n in names}
    total = sum(stream.edge_counts.get(n, 0) for n in names)
    done = 0
    for name, edges in stream.chunks:
        walk = walks.get(name)
        if walk is None:
            continue
        for events in walk.feed(edges):
            for m in metrics:
                starts, values = events[m]
                if values.size:
                    yield name, m, starts, values
        done += int(edges.size)
        if progress is not None:
            progress(done, total)


def write_events(
    blocks: Iterable[tuple[str, str, np.ndarray, np.ndarray]], cap: Capture, path: Path
) -> int:
    """Write the blocks to `path` (.csv or .parquet); the number of rows written.
    Nothing is at `path` unless all went well."""
    kind = check_output(path)
    samples = is_sample_based(cap)
    tick_ns = cap.tick_ns
    head = ["channel", "metric", "start_ns", "value_ns", "start_tick", "value_ticks"]
    head += ["sample"] if samples else []
    n = 0
    with atomic_path(path) as tmp:
        csv_path = tmp if kind == ".csv" else tmp.with_name(tmp.name + ".csv")
        try:
            with open(csv_path, "w", newline="") as fh:
                csv.writer(fh, lineterminator="\n").writerow(head)
                for name, metric, starts, values in blocks:
                    fh.write(_block(name, metric, starts, values, tick_ns, samples))
                    n += int(values.size)
            if kind == ".parquet":
                _csv_to_parquet(csv_path, tmp, samples)
        finally:
            if csv_path != tmp:
                csv_path.unlink(missing_ok=True)
    return n


def _block(
    name: str, metric: str, starts: np.ndarray, values: np.ndarray, tick_ns: float, samples: bool
) -> str:
    """The rows of one block, by one %-format per row (csv.writer is 3x slower); a
    name that CSV must quote is quoted once for the whole block."""
    key = _csv_field(name) + "," + metric + ","
    fmt = key + "%r,%r,%d,%d" + (",%d\n" if samples else "\n")
    start_ns = (starts * tick_ns).tolist()
    value_ns = (values * tick_ns).tolist()
    s_list, v_list = starts.tolist(), values.tolist()
    if samples:
        rows = zip(start_ns, value_ns, s_list, v_list, s_list, strict=True)
    else:
        # four columns, not five: fmt has four fields when there is no samples column
        rows = zip(start_ns, value_ns, s_list, v_list, strict=True)  # type: ignore[assignment]
    return "".join([fmt % r for r in rows])


def _csv_field(text: str) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow([text])
    return buf.getvalue().replace("%", "%%")


def _csv_to_parquet(src: Path, dst: Path, samples: bool) -> None:
    import duckdb

    cols = {
        "channel": "VARCHAR",
        "metric": "VARCHAR",
        "start_ns": "DOUBLE",
        "value_ns": "DOUBLE",
        "start_tick": "BIGINT",
        "value_ticks": "BIGINT",
    }
    if samples:
        cols["sample"] = "BIGINT"
    spec = ", ".join(f"'{k}': '{v}'" for k, v in cols.items())
    con = duckdb.connect()
    try:
        con.execute(
            f"COPY (SELECT * FROM read_csv({_sql_text(src)}, header = true, "
            f"columns = {{{spec}}})) TO {_sql_text(dst)} (FORMAT parquet)"
        )
    finally:
        con.close()


def _sql_text(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"
