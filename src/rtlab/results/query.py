"""Stored runs grouped by matrix cell: selection, pooled samples, summary rows.

A selector names runs the way a user does: a run id (or its unique tail), a spec name
(every run of it), or a cell (its key `label#hash` or its label). Repetitions of one
cell are pooled: a cell's distribution is all its `ok` runs' samples together.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd
from typing import Any

import numpy as np

from rtlab.analysis.stats import summarize
from rtlab.model import Samples
from rtlab.results import Store, StoreError


@dataclass
class CellRuns:
    label: str
    key: str | None
    spec: str | None
    workload: str
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok_ids(self) -> list[str]:
        return [r["run_id"] for r in self.runs if r["status"] == "ok"]

    @property
    def condition(self) -> str:
        return ((self.runs[0].get("params") or {}).get("condition") or {}).get("name", "")


def cell_label(run: dict[str, Any]) -> str:
    params = run.get("params") or {}
    if "label" in params:
        return str(params["label"])
    return str(run.get("cell_key") or run["run_id"])


def group(runs: Iterable[dict[str, Any]]) -> dict[str, CellRuns]:
    """Runs by cell label, in the order the cells first ran."""
    out: dict[str, CellRuns] = {}
    for r in runs:
        label = cell_label(r)
        if label not in out:
            out[label] = CellRuns(label, r.get("cell_key"), r.get("spec_name"), r["workload"])
        out[label].runs.append(r)
    return out


def select(store: Store, selector: str) -> dict[str, CellRuns]:
    """What a selector names (run id or tail, spec name, cell key or label)."""
    runs = store.runs()
    hits = [r for r in runs if r["run_id"] == selector]
    hits = hits or [r for r in runs if r["spec_name"] == selector]
    hits = hits or [r for r in runs if r["cell_key"] == selector or cell_label(r) == selector]
    if not hits and len(selector) >= 4:
        tail = [r for r in runs if r["run_id"].endswith(selector)]
        if len({r["run_id"] for r in tail}) > 1:
            raise StoreError(f"{selector!r} matches several runs; give more of the id")
        hits = tail
    if not hits:
        raise StoreError(
            f"{selector!r} is no run id, spec name or cell in {store.path} (see `rtlab runs`)"
        )
    return group(hits)


def select_many(store: Store, run_ids: Sequence[str], spec: str | None) -> dict[str, CellRuns]:
    if spec is not None:
        runs = store.runs(spec_name=spec)
        if not runs:
            raise StoreError(f"no runs of spec {spec!r} in {store.path}")
        return group(runs)
    if not run_ids:
        return group(store.runs())
    out: dict[str, CellRuns] = {}
    for sel in run_ids:
        for label, cr in select(store, sel).items():
            if label in out:
                seen = {r["run_id"] for r in out[label].runs}
                out[label].runs += [r for r in cr.runs if r["run_id"] not in seen]
            else:
                out[label] = cr
    return out


def series_of(store: Store, run_ids: Sequence[str]) -> list[tuple[str, str, Fraction | None]]:
    """(name, unit, tick) of the series of these runs, first appearance order."""
    if not run_ids:
        return []
    rows = store.sql(
        "SELECT name, unit, tick_num, tick_den, min(run_id) FROM series "
        f"WHERE run_id IN ({', '.join('?' * len(run_ids))}) "
        "GROUP BY name, unit, tick_num, tick_den ORDER BY min(run_id), name",
        list(run_ids),
    )
    found = [(n, u, Fraction(a, b) if a is not None else None) for n, u, a, b, _ in rows]
    return sorted(found, key=lambda s: _natural(s[0]))


def _natural(name: str) -> list[Any]:
    """actual_1us < actual_10us < actual_100us (numbers compared as numbers)."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def main_series(store: Store, run_ids: Sequence[str]) -> list[tuple[str, str, Fraction | None]]:
    """Timing series (not multi-part, not counts): what summary tables and plots show."""
    return [s for s in series_of(store, run_ids) if "/" not in s[0] and s[1] != "count"]


def series_ticks(store: Store, run_ids: Sequence[str], name: str) -> dict[str, Fraction | None]:
    """The runs among `run_ids` that have series `name`, with its tick (None: counts)."""
    if not run_ids:
        return {}
    rows = store.sql(
        "SELECT run_id, tick_num, tick_den FROM series WHERE name = ? "
        f"AND run_id IN ({', '.join('?' * len(run_ids))})",
        [name, *run_ids],
    )
    return {rid: Fraction(a, b) if a is not None else None for rid, a, b in rows}


def _common_tick(ticks: Sequence[Fraction]) -> Fraction:
    """The largest tick every given tick is an integer multiple of (exact)."""
    num = 0
    den = 1
    for t in ticks:
        num = gcd(num, t.numerator)
        den = den * t.denominator // gcd(den, t.denominator)
    return Fraction(num, den)


def pool(
    store: Store, run_ids: Sequence[str], names: Sequence[str], *, diff: bool = False
) -> tuple[Samples | None, int]:
    """The named series of these runs as one Samples, and how many runs had them (None
    when none did). Time series are pooled exactly in a tick common to all of them;
    count series only when no run has the name as a time series. diff=True pools each
    run's differences instead (intervals of a timestamp series, never across runs).
    Runs contribute in the order of `run_ids`, then of `names`."""
    timed: list[tuple[np.ndarray, Fraction]] = []
    counts: list[np.ndarray] = []
    runs = set()
    for name in names:
        ticks = series_ticks(store, run_ids, name)
        for rid in run_ids:
            if rid not in ticks:
                continue
            v = store.samples(rid, name)
            v = np.diff(v) if diff else v
            tick = ticks[rid]
            if tick is None:
                counts.append(v)
            else:
                timed.append((v, tick))
            runs.add(rid)
    if timed:
        tick = _common_tick([t for _, t in timed])
        values = np.concatenate([v * int(t / tick) if t != tick else v for v, t in timed])
        return Samples(values, tick, name=names[0], unit="s"), len(runs)
    if counts:
        return Samples(np.concatenate(counts), Fraction(1), name=names[0], unit="count"), len(runs)
    return None, 0


def pooled(store: Store, run_ids: Sequence[str], name: str, tick: Fraction | None) -> Samples:
    """One series of these runs pooled (see pool); empty in `tick` when none has it."""
    s, _ = pool(store, run_ids, [name])
    if s is not None:
        return s
    if tick is None:
        return Samples(np.zeros(0, np.int64), Fraction(1), name=name, unit="count")
    return Samples(np.zeros(0, np.int64), tick, name=name, unit="s")


def summary_rows(store: Store, cells: dict[str, CellRuns]) -> list[dict[str, Any]]:
    """One row per (cell, timing series), pooled over the cell's ok runs; in ns."""
    rows = []
    for cr in cells.values():
        statuses: dict[str, int] = {}
        for r in cr.runs:
            statuses[r["status"]] = statuses.get(r["status"], 0) + 1
        ids = cr.ok_ids
        series = main_series(store, ids)
        if not series:
            rows.append({"cell": cr.label, "series": "", "runs": statuses, "n": 0})
            continue
        for name, _unit, tick in series:
            s = pooled(store, ids, name, tick)
            st = summarize(s.values, tick)
            rows.append(
                {
                    "cell": cr.label,
                    "series": name,
                    "runs": statuses,
                    **st,
                    **overrun_fields(store, ids, name, st["n"]),
                }
            )
    return rows


def _overrun_counter(series: str) -> str | None:
    """The counter of missed periods that goes with a series: rtlab-latency's `overruns`
    with its `latency`, `overruns_<P>us` with `period_<P>us` (search mode)."""
    if series == "latency":
        return "overruns"
    if series.startswith("period_"):
        return "overruns_" + series.removeprefix("period_")
    return None


def overrun_fields(store: Store, run_ids: Sequence[str], series: str, n: int) -> dict[str, Any]:
    """`overruns` (summed over the runs) and `overruns_pct` (of the periods: samples plus
    overruns) for a series whose runs count missed periods; {} for any other."""
    counter = _overrun_counter(series)
    if counter is None or not run_ids:
        return {}
    [(found, total)] = store.sql(
        "SELECT count(*), sum(value) FROM counters WHERE name = ? "
        f"AND run_id IN ({', '.join('?' * len(run_ids))})",
        [counter, *run_ids],
    )
    if not found:
        return {}
    total = int(total)
    return {"overruns": total, "overruns_pct": 100 * total / (n + total) if n + total else None}


def overrun_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Lines `cell series: overruns N of M periods (x %)` for rows that count overruns."""
    out = []
    for r in rows:
        if "overruns" in r:
            pct = r["overruns_pct"]
            share = "" if pct is None else f" ({pct:.2f} %)"
            out.append(
                f"{r['cell']} {r['series']}: overruns {r['overruns']:,} of "
                f"{r['n'] + r['overruns']:,} periods{share}"
            )
    return out
