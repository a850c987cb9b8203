"""One run on its way into the store: RunWriter collects it in memory, then its samples
file and its rows are committed (Store.finish_run: the file first, then one transaction)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from rtlab.analysis.stats import summarize
from rtlab.fsutil import atomic_path
from rtlab.protocol import Run
from rtlab.results.schema import StoreError, to_json


@dataclass
class SeriesData:
    """One series to store: int64 values with their unit and exact tick (seconds)."""

    name: str
    values: np.ndarray
    unit: str = "ns"
    tick_s: Fraction | None = Fraction(1, 10**9)
    attrs: dict[str, str] = field(default_factory=dict)


class RunWriter:
    """Collects one run's data in memory; `Store.finish_run` commits it in one go."""

    # `store` is the Store the run belongs to (not imported: store.py imports this module).
    def __init__(self, store: Any, run_id: str) -> None:
        self.store = store
        self.run_id = run_id
        self.series: dict[str, SeriesData] = {}
        self.counters: dict[str, tuple[int, str | None]] = {}
        self.histograms: dict[str, tuple[str, list[tuple[int, int, int]]]] = {}
        self.warnings: list[tuple[str, str]] = []
        self.meta: dict[str, str] = {}
        self.problems: list[str] = []
        self.status: str = "ok"
        self.message: str | None = None
        self.load: dict[str, Any] | None = None  # LoadMonitor.result() of the run

    def add_series(
        self,
        name: str,
        values: Sequence[int] | np.ndarray,
        *,
        unit: str = "ns",
        tick_s: Fraction | None = Fraction(1, 10**9),
        attrs: Mapping[str, str] | None = None,
    ) -> None:
        if name in self.series:
            raise StoreError(f"run {self.run_id}: series {name!r} added twice")
        if tick_s is not None and max(tick_s.numerator, tick_s.denominator) >= 2**63:
            # the series table keeps it as two BIGINTs: refused here, not by DuckDB at commit
            raise StoreError(
                f"run {self.run_id}: series {name!r}: a tick of {_approx(tick_s)} s cannot "
                "be stored exactly (numerator and denominator must be below 2^63)"
            )
        self.series[name] = SeriesData(
            name, np.asarray(values, dtype=np.int64), unit, tick_s, dict(attrs or {})
        )

    def mark_timestamps(self, names: Sequence[str]) -> None:
        """Series of instants, not durations (rtlab.results.roles), that the workload
        did not declare so itself (kind=timestamps)."""
        for name in names:
            if name in self.series:
                self.series[name].attrs.setdefault("kind", "timestamps")

    def add_protocol_run(self, run: Run) -> None:
        """Everything of a parsed rtlab.protocol.Run, and its status."""
        for s in run.series.values():
            self.add_series(s.name, s.values, unit=s.unit, tick_s=s.tick_s, attrs=s.attrs)
        self.counters.update(run.counters)
        for name, buckets in run.histograms.items():
            unit = run.histogram_units.get(name, "")
            self.histograms[name] = (unit, list(buckets))
        self.warnings.extend(run.warnings)
        self.meta.update(run.meta)
        self.meta.setdefault("workload_version", run.version)
        self.problems.extend(run.problems)
        self.message = run.message
        if run.status in ("error", "interrupted"):
            self.status = run.status
        elif run.status == "truncated" or not run.complete:
            self.status = "incomplete"
        else:
            self.status = "ok"


def _approx(x: Fraction) -> str:
    """A fraction of any size as '1e+400' (float() overflows beyond 1e308)."""
    digits = len(str(x.numerator)) - len(str(x.denominator))
    return f"~1e{digits:+d}" if abs(digits) > 300 else f"{float(x):g}"


def write_samples(path: Path, w: RunWriter) -> None:
    """The run's series as one Parquet file (run_id, series, value; zstd), fsynced.
    DuckDB writes it (run_id and series dictionary-encoded: almost free), with the run
    id and each series' unit and tick in the file's key-value metadata."""
    names = list(w.series)
    lengths = [w.series[n].values.size for n in names]
    codes = np.repeat(np.arange(len(names), dtype=np.int32), lengths)
    values = (
        np.concatenate([w.series[n].values for n in names]).astype(np.int64, copy=False)
        if names
        else np.zeros(0, np.int64)
    )
    md = {
        "rtlab.run_id": w.run_id,
        "rtlab.series": json.dumps(
            {n: {"unit": s.unit, "tick_s": str(s.tick_s)} for n, s in w.series.items()}
        ),
    }
    kv = ", ".join(f"{_sql_text(k)}: {_sql_text(v)}" for k, v in md.items())
    con = duckdb.connect()
    try:
        rows = {"code": codes, "value": values}  # noqa: F841 - DuckDB scans it by name
        with atomic_path(path) as tmp:
            # run_id in every row so that queries over all files filter runs by a
            # column, with row-group statistics, not by file name
            con.execute(
                "COPY (SELECT ?::VARCHAR AS run_id, list_extract(?::VARCHAR[], code + 1) "
                "AS series, value FROM rows) "
                f"TO {_sql_text(str(tmp))} (FORMAT parquet, COMPRESSION zstd, "
                f"KV_METADATA {{{kv}}})",
                [w.run_id, names],
            )
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())  # on disk before the commit that points at it
    finally:
        con.close()


def _sql_text(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def insert_rows(db: duckdb.DuckDBPyConnection, w: RunWriter, samples_file: str | None) -> None:
    """Every row of the run and its final status, in one transaction."""
    db.execute("BEGIN TRANSACTION")
    try:
        for s in w.series.values():
            tick = s.tick_s
            db.execute(
                "INSERT INTO series VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    w.run_id,
                    s.name,
                    s.unit,
                    tick.numerator if tick else None,
                    tick.denominator if tick else None,
                    int(s.values.size),
                    to_json(s.attrs),
                ],
            )
            sm = summarize(s.values, tick)
            unit = "ns" if tick is not None and s.unit != "count" else s.unit
            db.execute(
                "INSERT INTO summaries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    w.run_id,
                    s.name,
                    unit,
                    sm["n"],
                    sm["min"],
                    sm["mean"],
                    sm["rms"],
                    sm["p50"],
                    sm["p90"],
                    sm["p99"],
                    sm["p999"],
                    sm["max"],
                ],
            )
        for name, (value, counter_unit) in w.counters.items():
            db.execute(
                "INSERT INTO counters VALUES (?, ?, ?, ?)",
                [w.run_id, name, int(value), counter_unit],
            )
        for name, (unit, buckets) in w.histograms.items():
            db.executemany(
                "INSERT INTO histograms VALUES (?, ?, ?, ?, ?, ?)",
                [[w.run_id, name, unit, lo, hi, n] for lo, hi, n in buckets],
            )
        for code, msg in w.warnings:
            db.execute("INSERT INTO warnings VALUES (?, ?, ?)", [w.run_id, code, msg])
        db.execute(
            "UPDATE runs SET status=?, message=?, problems=?, meta=?, load=?, "
            "samples_file=?, finished_at=? WHERE run_id=?",
            [
                w.status,
                w.message,
                to_json(w.problems),
                to_json(w.meta),
                to_json(w.load),
                samples_file,
                time.time(),
                w.run_id,
            ],
        )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
