"""Stored runs grouped by matrix cell: selection, pooled samples, summary rows.

A selector names runs the way a user does: a run id (or its unique tail), a spec name
(every run of it), or a cell (its key `label#hash` or its label, of any spec; or
`SPEC/KEY`, `SPEC/LABEL` for one spec's). A cell is one spec's
cell key: its repetitions are pooled (a cell's distribution is all its `ok` runs'
samples together), two cells never are, even when they share a label (a parameter
edited between two runs of a spec, or two specs with the same matrix); their labels
then say what differs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from rtlab.analysis.pool import pool as pool_samples
from rtlab.analysis.stats import summarize
from rtlab.model import Samples
from rtlab.results import Store, StoreError, roles


@dataclass
class CellRuns:
    """The runs of one cell of one spec. `label` is what tables show: the stored label,
    plus, when other cells of the selection share it, what differs (see disambiguate)."""

    label: str
    key: str | None
    spec: str | None
    workload: str
    runs: list[dict[str, Any]] = field(default_factory=list)
    stored_label: str = ""  # the label the spec gave (cell_label of its runs)
    differs: str = ""  # "duration=1s" / "spec=B": what tells it from same-labelled cells

    @property
    def ok_ids(self) -> list[str]:
        return [r["run_id"] for r in self.runs if r["status"] == "ok"]

    @property
    def ok_target(self) -> dict[str, Any]:
        """What the last ok run's target recorded (rtos_version, kconfig); {} if none."""
        run: dict[str, Any] = next((r for r in reversed(self.runs) if r["status"] == "ok"), {})
        return dict(run.get("target") or {})

    @property
    def condition(self) -> str:
        return ((self.runs[0].get("params") or {}).get("condition") or {}).get("name", "")


def cell_label(run: dict[str, Any]) -> str:
    params = run.get("params") or {}
    if "label" in params:
        return str(params["label"])
    return str(run.get("cell_key") or run["run_id"])


def _identity(run: dict[str, Any]) -> tuple[str | None, str]:
    if run.get("cell_key"):
        return (run.get("spec_name"), run["cell_key"])
    # a run stored without a key (not by `rtlab run`): its label and recorded definition
    params = run.get("params") or {}
    what = {k: params.get(k) for k in ("label", "params", "condition", "instrument")}
    return (run.get("spec_name"), json.dumps([run["workload"], what], sort_keys=True, default=str))


def definition(cr: CellRuns) -> dict[str, str]:
    """The cell's definition flattened (spec, parameters, condition, instrument), as the
    differences between same-labelled cells are named."""
    params = cr.runs[0].get("params") or {}
    out = {"spec": str(cr.spec)}
    for k, v in (params.get("params") or {}).items():
        out[k] = ",".join(map(str, v)) if isinstance(v, list) else str(v)
    for part in ("condition", "instrument"):
        for k, v in (params.get(part) or {}).items():
            out[f"{part}.{k}"] = json.dumps(v, sort_keys=True) if not isinstance(v, str) else v
    return out


def disambiguate(cells: Iterable[CellRuns]) -> dict[str, CellRuns]:
    """Cells by a label unique in the selection: cells that share a stored label get
    what differs between them appended, `wake@idle (duration=1s)`, or `(spec=B)` for
    two specs, or the key's hash when their records say nothing else. Never pooled."""
    by_label: dict[str, list[CellRuns]] = {}
    for cr in cells:
        by_label.setdefault(cr.stored_label, []).append(cr)
    for same in by_label.values():
        if len(same) < 2:
            continue
        defs = [definition(cr) for cr in same]
        names = list(dict.fromkeys(k for d in defs for k in d if k != "spec"))
        # two specs: the spec tells them apart; within one spec, the parameters that
        # differ between its versions
        specs = list(dict.fromkeys(d["spec"] for d in defs))
        varying = ["spec"] if len(specs) > 1 else []
        varying += [
            k
            for k in names
            if any(len({d.get(k, "–") for d in defs if d["spec"] == sp}) > 1 for sp in specs)
        ]
        for cr, d in zip(same, defs, strict=True):
            parts = [f"{k}={d.get(k, '–')}" for k in varying]
            key = f"#{cr.key.rpartition('#')[2]}" if cr.key else f"run {cr.runs[0]['run_id']}"
            cr.differs = ", ".join(parts) or key
    out: dict[str, CellRuns] = {}
    for same in by_label.values():
        for cr in same:
            cr.label = f"{cr.stored_label} ({cr.differs})" if cr.differs else cr.stored_label
            if cr.label in out:  # what differs is not recorded (a spec's target table)
                cr.label = f"{cr.label} #{len(out)}"
            out[cr.label] = cr
    return {cr.label: cr for cr in sorted(out.values(), key=lambda c: _order(c))}


def sans_condition(cr: CellRuns) -> str:
    """What cells that differ only by condition have in common (the condition
    comparisons of a report put them side by side): spec, label base, definition."""
    params = dict(cr.runs[0].get("params") or {})
    for k in ("label", "condition", "argv", "load_argv", "timeout_s"):
        params.pop(k, None)
    base = cr.stored_label.rsplit("@", 1)[0]
    return json.dumps([cr.spec, base, params], sort_keys=True, default=str)


def _order(cr: CellRuns) -> tuple[float, str]:
    return (cr.runs[0].get("started_at") or 0.0, cr.runs[0]["run_id"])


def _cells(runs: Iterable[dict[str, Any]]) -> list[CellRuns]:
    out: dict[tuple[str | None, str], CellRuns] = {}
    for r in runs:
        ident = _identity(r)
        if ident not in out:
            label = cell_label(r)
            out[ident] = CellRuns(
                label, r.get("cell_key"), r.get("spec_name"), r["workload"], stored_label=label
            )
        out[ident].runs.append(r)
    return list(out.values())


def group(runs: Iterable[dict[str, Any]]) -> dict[str, CellRuns]:
    """Runs by cell (spec and cell key), in the order the cells first ran, keyed by a
    label unique among them (disambiguate)."""
    return disambiguate(_cells(runs))


def run_labels(runs: Sequence[dict[str, Any]]) -> dict[str, str]:
    """run_id → the label of its cell, unique among the cells of `runs`."""
    return {r["run_id"]: cr.label for cr in group(runs).values() for r in cr.runs}


def _select_runs(store: Store, selector: str) -> list[dict[str, Any]]:
    runs = store.runs()
    hits = [r for r in runs if r["run_id"] == selector]
    hits = hits or [r for r in runs if r["spec_name"] == selector]
    hits = hits or [r for r in runs if r["cell_key"] == selector or cell_label(r) == selector]
    spec, slash, cell = selector.partition("/")  # SPEC/CELL: that spec's cell only
    if not hits and slash:
        hits = [
            r for r in runs if r["spec_name"] == spec and cell in (r["cell_key"], cell_label(r))
        ]
    if not hits and len(selector) >= 4:
        tail = [r for r in runs if r["run_id"].endswith(selector)]
        if len({r["run_id"] for r in tail}) > 1:
            raise StoreError(f"{selector!r} matches several runs; give more of the id")
        hits = tail
    if not hits:
        raise StoreError(
            f"{selector!r} is no run id, spec name or cell in {store.path} (see `rtlab runs`)"
        )
    return hits


def select(store: Store, selector: str) -> dict[str, CellRuns]:
    """What a selector names (run id or tail, spec name, cell key or label), by cell."""
    return group(_select_runs(store, selector))


def select_many(store: Store, run_ids: Sequence[str], spec: str | None) -> dict[str, CellRuns]:
    """The cells of a spec, of several selectors (a run named twice counts once), or of
    the whole store; cells of different specs or keys stay apart."""
    if spec is not None:
        runs = store.runs(spec_name=spec)
        if not runs:
            raise StoreError(f"no runs of spec {spec!r} in {store.path}")
        return group(runs)
    if not run_ids:
        return group(store.runs())
    picked: dict[str, dict[str, Any]] = {}
    for sel in run_ids:
        for r in _select_runs(store, sel):
            picked.setdefault(r["run_id"], r)
    return group(sorted(picked.values(), key=lambda r: (r["started_at"] or 0.0, r["run_id"])))


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
    """Timing series: what summary tables, plots and compare show. Not counts, not the
    parts of a multi-part run (rtbench's: its own tables show them), not timestamps
    (rtlab.results.roles); any other name, `irq/lat` included."""
    timing = roles.timing_names(store, run_ids)
    return [s for s in series_of(store, run_ids) if s[0] in timing and s[1] != "count"]


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


def pool(
    store: Store, run_ids: Sequence[str], names: Sequence[str], *, diff: bool = False
) -> tuple[Samples | None, int]:
    """The named series of these runs as one Samples (rtlab.analysis.pool: exactly, in
    a tick common to all of them), and how many runs had them (None when none did).
    Count series only when no run has the name as a time series. diff=True pools each
    run's differences instead (intervals of a timestamp series, never across runs).
    Runs contribute in the order of `run_ids`, then of `names`."""
    timed: list[Samples] = []
    counts: list[Samples] = []
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
                counts.append(Samples(v, Fraction(1), name=names[0], unit="count"))
            else:
                timed.append(Samples(v, tick, name=names[0], unit="s"))
            runs.add(rid)
    return pool_samples(timed or counts, names[0]), len(runs)


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
    rows: list[dict[str, Any]] = []
    for cr in cells.values():
        statuses: dict[str, int] = {}
        for r in cr.runs:
            statuses[r["status"]] = statuses.get(r["status"], 0) + 1
        ids = cr.ok_ids
        ident = {"cell_key": cr.key, "spec": cr.spec}
        series = main_series(store, ids)
        if not series:  # no n = 0 row as if nothing was measured: say why there is none
            note = roles.why_no_timing_series(store, ids)
            rows.append(
                {"cell": cr.label, **ident, "series": "", "runs": statuses, "n": None, "note": note}
            )
            continue
        for name, _unit, tick in series:
            s = pooled(store, ids, name, tick)
            st = summarize(s.values, tick)
            rows.append(
                {
                    "cell": cr.label,
                    **ident,
                    "series": name,
                    "runs": statuses,
                    **st,
                    **overrun_fields(store, ids, name, int(st["n"] or 0)),
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


def every_sample(store: Store) -> list[tuple[str, list[tuple[str, int]]]]:
    """(cell key, every (series, value) of its run in written order) for every run with
    samples, by cell key: what two runs of a deterministic study must share exactly."""
    rows = store.sql(
        "SELECT cell_key, samples_file FROM runs WHERE samples_file IS NOT NULL "
        "ORDER BY cell_key, repetition"
    )
    out = []
    for cell, rel in rows:
        values = store.sql(
            "SELECT series::VARCHAR, value FROM read_parquet(?)", [str(store.root / rel)]
        )
        out.append((str(cell), [(str(s), int(v)) for s, v in values]))
    return out
