"""One stored run for a workload invocation that prints several protocol runs.

rtbench prints one protocol run per scenario and core count. They are stored as ONE
store run (a cell repetition stays atomic: all of it is committed or none), with every
series, counter and meta key prefixed by its part, `threadmetric@2/t1`. `split` turns a
stored run back into the protocol runs the rtbench tables are computed from.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from rtlab.protocol import Run, Series
from rtlab.results import RunWriter, Store

SEP = "/"
_SEVERITY = {"ok": 0, "incomplete": 1, "interrupted": 2, "error": 3}


def _part_name(run: Run, taken: set[str]) -> str:
    base = run.meta.get("scenario") or run.workload or "run"
    if "cores" in run.meta:
        base += f"@{run.meta['cores']}"
    name, i = base, 2
    while name in taken:
        name, i = f"{base}#{i}", i + 1
    taken.add(name)
    return name


def merge_into(w: RunWriter, runs: Sequence[Run]) -> None:
    """Every run into one writer, prefixed by its part; the worst status wins."""
    taken: set[str] = set()
    status = "ok"
    for run in runs:
        part = _part_name(run, taken)
        for s in run.series.values():
            w.add_series(
                f"{part}{SEP}{s.name}", s.values, unit=s.unit, tick_s=s.tick_s, attrs=s.attrs
            )
        for name, value in run.counters.items():
            w.counters[f"{part}{SEP}{name}"] = value
        for name, buckets in run.histograms.items():
            unit = run.histogram_units.get(name, "")
            w.histograms[f"{part}{SEP}{name}"] = (unit, list(buckets))
        for k, v in run.meta.items():
            w.meta[f"{part}{SEP}{k}"] = v
        w.meta.setdefault("workload_version", run.version)
        w.warnings.extend(run.warnings)
        w.problems.extend(f"{part}: {p}" for p in run.problems)
        if run.status in ("error", "interrupted"):
            s_ = run.status
        elif run.status == "truncated" or not run.complete:
            s_ = "incomplete"
        else:
            s_ = "ok"
        if _SEVERITY[s_] > _SEVERITY[status]:
            status = s_
            w.message = run.message or w.message
    w.status = status


def split(store: Store, run_id: str) -> list[Run]:
    """The protocol runs of a stored multi-part run (values read from its Parquet)."""
    info = store.run_info(run_id)
    meta: dict[str, Any] = info.get("meta") or {}
    parts: dict[str, Run] = {}

    def part(name: str) -> Run:
        if name not in parts:
            parts[name] = Run(workload=info["workload"], version="", status="ok", complete=True)
        return parts[name]

    for key, value in meta.items():
        if SEP in key:
            p, k = key.split(SEP, 1)
            part(p).meta[k] = value
    rows = store.sql(
        "SELECT name, unit, tick_num, tick_den FROM series WHERE run_id=? ORDER BY name",
        [run_id],
    )
    for name, unit, num, den in rows:
        if SEP not in name:
            continue
        p, s = name.split(SEP, 1)
        tick = Fraction(num, den) if num is not None else None
        values = store.samples(run_id, name)
        part(p).series[s] = Series(s, unit, tick, {}, np.asarray(values, np.int64))
    for name, value, unit in store.sql(
        "SELECT name, value, unit FROM counters WHERE run_id=?", [run_id]
    ):
        if SEP in name:
            p, c = name.split(SEP, 1)
            part(p).counters[c] = (int(value), unit)
    # warnings are stored per run, not per part: each part carries them all, once
    warned = store.sql("SELECT DISTINCT code, msg FROM warnings WHERE run_id=?", [run_id])
    for r in parts.values():
        r.warnings.extend((str(code), str(msg)) for code, msg in sorted(warned))
    return list(parts.values())
