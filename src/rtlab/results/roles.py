"""What a stored series is, read from what the run recorded, never from its name: a part
of a multi-part run (rtlab.results.multirun), a timestamp series (instants, not
durations), or one of the run's timing series, which summary tables and compare show.

A series is timestamps when it was declared with `kind=timestamps` (docs/protocol.md:
a workload's own timestamps, e.g. rtlab-toggle's `write_ts`, whose quantiles would read
as latencies of a million µs); its differences are what a study uses.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rtlab.results import Store
from rtlab.results.multirun import splitter

TIMESTAMPS = "timestamps"  # the `kind` attribute of a series of instants
# A multi-part cell's summary row: a report shows its per-part tables below the summary.
PARTS_NOTE = "several parts (scenarios): figures in the part tables below"


def _attrs(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def is_timestamps(attrs: dict[str, Any]) -> bool:
    return attrs.get("kind") == TIMESTAMPS


def _rows(store: Store, run_ids: Sequence[str]) -> list[tuple[Any, ...]]:
    if not run_ids:
        return []
    return store.sql(
        "SELECT s.name, s.unit, s.attrs, r.meta, r.workload, r.run_id FROM series s "
        "JOIN runs r ON r.run_id = s.run_id "
        f"WHERE s.run_id IN ({', '.join('?' * len(run_ids))})",
        list(run_ids),
    )


def timing_names(store: Store, run_ids: Sequence[str]) -> set[str]:
    """Names that are a timing series (not a part, not timestamps) in some of the runs."""
    out: set[str] = set()
    split: dict[str, Any] = {}
    for name, _unit, attrs, meta, workload, rid in _rows(store, run_ids):
        if rid not in split:
            split[rid] = splitter(_attrs(meta), workload)
        part_of = split[rid]
        if part_of is not None and part_of(name) is not None:
            continue
        if not is_timestamps(_attrs(attrs)):
            out.add(str(name))
    return out


def why_no_timing_series(store: Store, run_ids: Sequence[str]) -> str:
    """One line for a cell without a timing series to summarize (its row says this
    instead of n = 0, which would read as "measured nothing")."""
    if not run_ids:
        return "no ok run"
    rows = _rows(store, run_ids)
    if not rows:
        return "the runs stored no series"
    if any(
        (sp := splitter(_attrs(meta), workload)) is not None and sp(name) is not None
        for name, _u, _a, meta, workload, _rid in rows
    ):
        return PARTS_NOTE
    kinds = {
        "timestamps" if is_timestamps(_attrs(attrs)) else "counts" for _n, _u, attrs, *_ in rows
    }
    return f"only {' and '.join(sorted(kinds))}: no durations to summarize"
