"""`analyze --extremes N` as rows: each extreme value with when its event starts (and
its sample number in a sample-based capture), for the table, Markdown and CSV."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from rtlab.analysis.summary import Analysis, is_sample_based


def rows(an: Analysis) -> Iterator[tuple[str, str, str, int, int, int]]:
    """(channel or pair, metric, 'max 1'/'min 1'..., rank, value ticks, start tick)."""
    for key, per_metric in an.extremes.items():
        for metric, ext in per_metric.items():
            for side, label in ((ext.largest, "max"), (ext.smallest, "min")):
                for rank, (value, start) in enumerate(side, 1):
                    yield key, metric, label, rank, value, start


def table_cells(
    an: Analysis, fmt_time: Callable[[float], str]
) -> tuple[list[str], list[list[str]]]:
    """Head and rows of the extremes table: value and start formatted by `fmt_time`
    (a function of ns), plus the sample number where one tick is one sample."""
    samples = is_sample_based(an.capture)
    tick_ns = an.capture.tick_ns
    head = ["channel", "metric", "rank", "value", "starts at"] + (["sample"] if samples else [])
    out = []
    for key, metric, label, rank, value, start in rows(an):
        cells = [key, metric, f"{label} {rank}"]
        cells += [fmt_time(value * tick_ns), fmt_time(start * tick_ns)]
        if samples:
            cells.append(str(start))
        out.append(cells)
    return head, out


def csv_columns(an: Analysis) -> list[str]:
    """The CSV's extra columns: per rank, the value, its start (ns), and the sample."""
    n = max((e.n for per in an.extremes.values() for e in per.values()), default=0)
    samples = is_sample_based(an.capture)
    cols = []
    for side in ("max", "min"):
        for rank in range(1, n + 1):
            cols += [f"{side}{rank}_ns", f"{side}{rank}_at_ns"]
            if samples:
                cols.append(f"{side}{rank}_sample")
    return cols


def csv_cells(an: Analysis, key: str, metric: str) -> list[str]:
    n = max((e.n for per in an.extremes.values() for e in per.values()), default=0)
    samples = is_sample_based(an.capture)
    ext = an.extremes.get(key, {}).get(metric)
    tick_ns = an.capture.tick_ns
    out: list[str] = []
    for side in ("largest", "smallest"):
        found = getattr(ext, side) if ext is not None else []
        for rank in range(n):
            if rank < len(found):
                value, start = found[rank]
                out += [repr(value * tick_ns), repr(start * tick_ns)]
                out += [str(start)] if samples else []
            else:
                out += [""] * (3 if samples else 2)
    return out
