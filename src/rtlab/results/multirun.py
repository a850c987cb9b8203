"""One stored run for a workload invocation that prints several protocol runs.

rtbench prints one protocol run per scenario and core count. They are stored as ONE
store run (a cell repetition stays atomic: all of it is committed or none), with every
series, counter and meta key prefixed by its part, `threadmetric@2/t1`, and the part
names in the run's meta (`parts`, a JSON list): which runs are multi-part, and where a
name's part ends, is recorded, never guessed from a `/` (a single run's series may be
named `irq/lat`). `split` turns a stored run back into the protocol runs the rtbench
tables are computed from.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from rtlab.protocol import Run, Series
from rtlab.results import RunWriter, Store

SEP = "/"
PARTS = "parts"  # the run meta key: JSON list of a multi-part run's part names
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
    names: list[str] = []
    status = "ok"
    for run in runs:
        part = _part_name(run, taken)
        names.append(part)
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
    w.meta[PARTS] = json.dumps(names)


Splitter = Callable[[str], tuple[str, str] | None]


def splitter(meta: Mapping[str, Any] | None, workload: str | None) -> Splitter | None:
    """For a multi-part run (its meta and workload as stored): name → (part, name in the
    part), None for a name of no part; None for a single run. A run stored before the
    parts were recorded is multi-part if it is rtbench's, its part ending at the first /."""
    meta = meta or {}
    if PARTS not in meta:
        if workload != "rtbench":
            return None

        def split(name: str) -> tuple[str, str] | None:
            part, sep, rest = name.partition(SEP)
            return (part, rest) if sep else None

        return split
    try:
        parts = sorted(map(str, json.loads(meta[PARTS])), key=len, reverse=True)
    except (ValueError, TypeError):
        parts = []

    def split_name(name: str) -> tuple[str, str] | None:
        for p in parts:  # the longest first: part `a/b` before part `a`
            if name.startswith(p + SEP):
                return p, name[len(p) + 1 :]
        return None

    return split_name


def split(store: Store, run_id: str) -> list[Run]:
    """The protocol runs of a stored multi-part run (values read from its Parquet)."""
    info = store.run_info(run_id)
    meta: dict[str, Any] = info.get("meta") or {}
    part_of = splitter(meta, info["workload"]) or (lambda _name: None)
    parts: dict[str, Run] = {}

    def part(name: str) -> Run:
        if name not in parts:
            parts[name] = Run(workload=info["workload"], version="", status="ok", complete=True)
        return parts[name]

    for key, value in meta.items():
        if (pk := part_of(key)) is not None:
            part(pk[0]).meta[pk[1]] = value
    rows = store.sql(
        "SELECT name, unit, tick_num, tick_den FROM series WHERE run_id=? ORDER BY name",
        [run_id],
    )
    for name, unit, num, den in rows:
        if (ps := part_of(name)) is None:
            continue
        p, s = ps
        tick = Fraction(num, den) if num is not None else None
        values = store.samples(run_id, name)
        part(p).series[s] = Series(s, unit, tick, {}, np.asarray(values, np.int64))
    for name, value, unit in store.sql(
        "SELECT name, value, unit FROM counters WHERE run_id=?", [run_id]
    ):
        if (pc := part_of(name)) is not None:
            part(pc[0]).counters[pc[1]] = (int(value), unit)
    # warnings are stored per run, not per part: each part carries them all, once
    warned = store.sql("SELECT DISTINCT code, msg FROM warnings WHERE run_id=?", [run_id])
    for r in parts.values():
        r.warnings.extend((str(code), str(msg)) for code, msg in sorted(warned))
    return list(parts.values())
