"""The results store: one DuckDB file, raw samples as Parquet beside it.

    with Store("results/rtlab.duckdb") as st:
        with st.run(workload="rtlab-latency", spec_name="host", cell_key="abs/fifo/idle",
                    params={...}, target={...}, fingerprint=fp) as r:
            r.add_protocol_run(parsed_run)     # series, counters, warnings, meta, status
        st.runs(); st.samples(run_id, "latency"); st.summaries()

Crash safety: a run's row is committed as `running` when it starts. Its samples go to
`samples/<run_id>.parquet` through a temporary file renamed into place, and only then
one transaction adds the series, summaries, counters and warnings and sets the final
status. So at any moment a run is either complete (status set, every row and file in
place) or still `running`; opening the store turns `running` rows of dead processes into
`interrupted` and deletes their orphan sample files (and instrument captures,
`captures/<run_id>.parquet`, written before the commit the same way). Ctrl-C inside
`run()` marks the run `interrupted` at once. Statuses: running, ok, incomplete (the
workload's output had losses), error, interrupted.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from rtlab.errors import RtlabError
from rtlab.fsutil import atomic_path

STATUSES = ("running", "ok", "incomplete", "error", "interrupted")
SUMMARY_QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p999": 0.999}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id VARCHAR PRIMARY KEY,
    spec_name VARCHAR,
    cell_key VARCHAR,          -- the matrix cell (workload x params x condition) for resume
    repetition INTEGER,
    workload VARCHAR,
    status VARCHAR NOT NULL,
    message VARCHAR,
    problems VARCHAR,          -- JSON list: what the protocol parser found missing
    spec VARCHAR,              -- JSON: the spec (or its text) that produced the run
    params VARCHAR,            -- JSON
    target VARCHAR,            -- JSON
    fingerprint VARCHAR,       -- JSON: rtlab.lab.fingerprint
    load VARCHAR,              -- JSON: rtlab.lab.fingerprint.LoadMonitor during the run
    meta VARCHAR,              -- JSON: the workload's own metadata
    samples_file VARCHAR,      -- relative to the store directory, NULL without samples
    started_at DOUBLE,         -- unix seconds
    finished_at DOUBLE,
    owner_pid INTEGER,
    owner_host VARCHAR,
    owner_boot VARCHAR
);
CREATE TABLE IF NOT EXISTS series (
    run_id VARCHAR, name VARCHAR, unit VARCHAR,
    tick_num BIGINT, tick_den BIGINT,   -- exact tick length in seconds, NULL for counts
    n BIGINT, attrs VARCHAR,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS summaries (
    run_id VARCHAR, series VARCHAR, unit VARCHAR, n BIGINT,
    min DOUBLE, mean DOUBLE, rms DOUBLE, p50 DOUBLE, p90 DOUBLE, p99 DOUBLE, p999 DOUBLE,
    max DOUBLE,
    PRIMARY KEY (run_id, series)
);
CREATE TABLE IF NOT EXISTS counters (
    run_id VARCHAR, name VARCHAR, value BIGINT, unit VARCHAR, PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS histograms (
    run_id VARCHAR, name VARCHAR, unit VARCHAR, lo BIGINT, hi BIGINT, count BIGINT
);
CREATE TABLE IF NOT EXISTS warnings (run_id VARCHAR, code VARCHAR, msg VARCHAR);
"""


class StoreError(RtlabError):
    """The store cannot be opened or a request names something it does not hold."""


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, default=str)


@dataclass
class SeriesData:
    """One series to store: int64 values with their unit and exact tick (seconds)."""

    name: str
    values: np.ndarray
    unit: str = "ns"
    tick_s: Fraction | None = Fraction(1, 10**9)
    attrs: dict[str, str] = field(default_factory=dict)


def summarize(values: np.ndarray, tick_s: Fraction | None) -> dict[str, float | int | None]:
    """n, min, mean, rms, quantiles (inverted CDF: measured values), max; in ns for time."""
    v = np.asarray(values, dtype=np.int64)
    out: dict[str, float | int | None] = {"n": int(v.size)}
    keys = ("min", "mean", "rms", *SUMMARY_QUANTILES, "max")
    if v.size == 0:
        return out | dict.fromkeys(keys)
    scale = float(tick_s * 10**9) if tick_s is not None else 1.0
    qs = np.quantile(v, list(SUMMARY_QUANTILES.values()), method="inverted_cdf")
    mean = float(v.mean(dtype=np.float64))
    out.update(
        min=float(v.min()) * scale,
        mean=mean * scale,
        rms=float(v.std(dtype=np.float64)) * scale,
        max=float(v.max()) * scale,
    )
    for k, q in zip(SUMMARY_QUANTILES, qs, strict=True):
        out[k] = float(q) * scale
    return out


class RunWriter:
    """Collects one run's data in memory; `Store.finish_run` commits it in one go."""

    def __init__(self, store: Store, run_id: str) -> None:
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
        self.series[name] = SeriesData(
            name, np.asarray(values, dtype=np.int64), unit, tick_s, dict(attrs or {})
        )

    def add_protocol_run(self, run: Any) -> None:
        """Everything of a parsed rtlab.protocol.Run, and its status."""
        for s in run.series.values():
            self.add_series(s.name, s.values, unit=s.unit, tick_s=s.tick_s, attrs=s.attrs)
        self.counters.update(run.counters)
        for name, buckets in run.histograms.items():
            unit = getattr(run, "histogram_units", {}).get(name, "")
            self.histograms[name] = (unit, list(buckets))
        self.warnings.extend(run.warnings)
        self.meta.update(run.meta)
        self.meta.setdefault("workload_version", run.version)
        self.problems.extend(run.problems)
        self.message = getattr(run, "message", None)
        if run.status in ("error", "interrupted"):
            self.status = run.status
        elif run.status == "truncated" or not run.complete:
            self.status = "incomplete"
        else:
            self.status = "ok"


class Store:
    """A DuckDB file plus `samples/` beside it. One process writes at a time (DuckDB
    locks the file); readers in other processes open it with read_only=True."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.root = self.path.parent
        self.samples_dir = self.root / "samples"
        # Instrument captures of runs (rtlab Parquet capture files, not sample tables:
        # kept out of samples/, whose files the `samples` view reads as one schema).
        self.captures_dir = self.root / "captures"
        self.read_only = read_only
        if read_only and not self.path.exists():
            raise StoreError(f"{self.path}: no such store")
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            self.db = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.Error as e:
            held = re.search(r"Conflicting lock is held in .*?\(PID ([0-9]+)\)", str(e))
            if held:  # DuckDB allows one writer and no reader beside it
                raise StoreError(
                    f"{self.path}: the store is in use by process {held.group(1)} (an "
                    "`rtlab run` still writing to it?); try again when it has finished, "
                    "or give another store with --store"
                ) from None
            raise StoreError(f"{self.path}: cannot open the store ({e})") from None
        if not read_only:
            self.db.execute(_SCHEMA)
            self.samples_dir.mkdir(exist_ok=True)
            self.recovered = self.recover()

    # -- lifecycle ----------------------------------------------------------------
    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def recover(self) -> list[str]:
        """Mark `running` runs of dead processes `interrupted`; remove orphan files."""
        rows = self.db.execute(
            "SELECT run_id, owner_pid, owner_host, owner_boot FROM runs WHERE status='running'"
        ).fetchall()
        # DuckDB lets one process at a time open the file for writing, so a `running` row
        # of another process is a run whose writer is gone (crashed, killed, or it closed
        # the store mid-run, which writers must not do).
        me = (socket.gethostname(), _boot_id(), os.getpid())
        stale = [rid for rid, pid, host, boot in rows if (host, boot, pid) != me]
        for rid in stale:
            self.db.execute(
                "UPDATE runs SET status='interrupted', finished_at=?, message=coalesce("
                "message, 'the writing process ended before the run was complete') "
                "WHERE run_id=?",
                [time.time(), rid],
            )
            with contextlib.suppress(FileNotFoundError):
                (self.samples_dir / f"{rid}.parquet").unlink()
            with contextlib.suppress(FileNotFoundError):
                self.capture_path(rid).unlink()
        # Temporary files of writes cut short (fsutil.atomic_path names them .*.part;
        # an instrument's raw capture is .*.part too, plus its writer's own temporaries).
        for tmp in (*self.samples_dir.glob(".*.part"), *self.captures_dir.glob(".*.part*")):
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        return stale

    def capture_path(self, run_id: str) -> Path:
        """Where a run's instrument capture goes; it is dropped with the run if the run
        is abandoned or found interrupted, like its samples file."""
        return self.captures_dir / f"{run_id}.parquet"

    # -- writing --------------------------------------------------------------------
    def begin_run(
        self,
        *,
        workload: str,
        spec_name: str | None = None,
        cell_key: str | None = None,
        repetition: int = 0,
        spec: Any = None,
        params: Any = None,
        target: Any = None,
        fingerprint: Any = None,
    ) -> str:
        run_id = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:10]
        self.db.execute(
            "INSERT INTO runs (run_id, spec_name, cell_key, repetition, workload, status, "
            "spec, params, target, fingerprint, started_at, owner_pid, owner_host, owner_boot)"
            " VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                run_id,
                spec_name,
                cell_key,
                repetition,
                workload,
                _json(spec),
                _json(params),
                _json(target),
                _json(fingerprint),
                time.time(),
                os.getpid(),
                socket.gethostname(),
                _boot_id(),
            ],
        )
        return run_id

    def finish_run(self, w: RunWriter) -> None:
        """Samples file first (atomic rename), then every row and the status in one
        transaction: a crash in between leaves the run `running`, recovered later."""
        if w.status not in STATUSES or w.status == "running":
            raise StoreError(f"bad final status {w.status!r}")
        rel = None
        if w.series:
            rel = f"samples/{w.run_id}.parquet"
            self._write_samples(self.root / rel, w)
        db = self.db
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
                        _json(s.attrs),
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
            for name, (value, unit) in w.counters.items():
                db.execute(
                    "INSERT INTO counters VALUES (?, ?, ?, ?)", [w.run_id, name, int(value), unit]
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
                    _json(w.problems),
                    _json(w.meta),
                    _json(w.load),
                    rel,
                    time.time(),
                    w.run_id,
                ],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def mark(self, run_id: str, status: str, message: str | None = None) -> None:
        """End a run without data (interrupted, error) in one committed update."""
        if status not in STATUSES:
            raise StoreError(f"unknown status {status!r}")
        self.db.execute(
            "UPDATE runs SET status=?, message=?, finished_at=? WHERE run_id=?",
            [status, message, time.time(), run_id],
        )

    @contextlib.contextmanager
    def run(self, **begin: Any) -> Iterator[RunWriter]:
        """begin_run, yield a RunWriter, finish_run; Ctrl-C → interrupted, error → error."""
        run_id = self.begin_run(**begin)
        w = RunWriter(self, run_id)
        try:
            yield w
            self.finish_run(w)  # inside: Ctrl-C while storing also marks the run
        except KeyboardInterrupt:
            self._abandon(run_id, "interrupted", "interrupted by the user (Ctrl-C)")
            raise
        except BaseException as e:
            self._abandon(run_id, "error", f"{type(e).__name__}: {e}"[:2000])
            raise

    def _abandon(self, run_id: str, status: str, message: str) -> None:
        """Mark a run that did not finish; its samples file (if written) goes."""
        self.mark(run_id, status, message)
        with contextlib.suppress(FileNotFoundError):
            (self.samples_dir / f"{run_id}.parquet").unlink()
        with contextlib.suppress(FileNotFoundError):
            self.capture_path(run_id).unlink()

    def _write_samples(self, path: Path, w: RunWriter) -> None:
        names = list(w.series)
        lengths = [w.series[n].values.size for n in names]
        codes = np.repeat(np.arange(len(names), dtype=np.int32), lengths)
        n = int(codes.size)
        table = pa.table(
            {
                # run_id in every row (dictionary: almost free) so that queries over all
                # files filter runs by a column, with row-group statistics, not by file name.
                "run_id": pa.DictionaryArray.from_arrays(
                    pa.array(np.zeros(n, np.int32)), pa.array([w.run_id])
                ),
                "series": pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(names)),
                "value": pa.array(
                    np.concatenate([w.series[n].values for n in names])
                    if names
                    else np.zeros(0, np.int64)
                ),
            }
        )
        md = {
            b"rtlab.run_id": w.run_id.encode(),
            b"rtlab.series": json.dumps(
                {n: {"unit": s.unit, "tick_s": str(s.tick_s)} for n, s in w.series.items()}
            ).encode(),
        }
        table = table.replace_schema_metadata(md)
        with atomic_path(path) as tmp:
            pq.write_table(table, tmp, compression="zstd")
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())  # on disk before the commit that points at it

    # -- reading ----------------------------------------------------------------------
    def runs(
        self, *, spec_name: str | None = None, status: str | None = None
    ) -> list[dict[str, Any]]:
        sql = "SELECT * FROM runs WHERE 1=1"
        args: list[Any] = []
        if spec_name is not None:
            sql += " AND spec_name=?"
            args.append(spec_name)
        if status is not None:
            sql += " AND status=?"
            args.append(status)
        cur = self.db.execute(sql + " ORDER BY started_at, run_id", args)
        cols = [d[0] for d in cur.description]
        out = []
        for row in cur.fetchall():
            d = dict(zip(cols, row, strict=True))
            for k in ("problems", "spec", "params", "target", "fingerprint", "meta", "load"):
                if d[k] is not None:
                    d[k] = json.loads(d[k])
            out.append(d)
        return out

    def run_info(self, run_id: str) -> dict[str, Any]:
        for r in self.runs():
            if r["run_id"] == run_id:
                return r
        raise StoreError(f"no run {run_id!r} in {self.path}")

    def samples(self, run_id: str, series: str) -> np.ndarray:
        """The int64 values of one series of one run (read from its Parquet file)."""
        row = self.db.execute("SELECT samples_file FROM runs WHERE run_id=?", [run_id]).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id!r} in {self.path}")
        if row[0] is None:
            raise StoreError(f"run {run_id} has no samples")
        table = pq.read_table(
            self.root / row[0], filters=[("series", "==", series)], columns=["value"]
        )
        if table.num_rows == 0 and not self._has_series(run_id, series):
            raise StoreError(f"run {run_id} has no series {series!r}")
        return table.column("value").to_numpy().astype(np.int64, copy=False)

    def _has_series(self, run_id: str, series: str) -> bool:
        return (
            self.db.execute(
                "SELECT 1 FROM series WHERE run_id=? AND name=?", [run_id, series]
            ).fetchone()
            is not None
        )

    def summaries(self, run_ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM summaries"
        args: list[Any] = []
        if run_ids is not None:
            sql += f" WHERE run_id IN ({', '.join('?' * len(run_ids)) or 'NULL'})"
            args = list(run_ids)
        cur = self.db.execute(sql + " ORDER BY run_id, series", args)
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    def completed_cells(self, spec_name: str) -> dict[str, int]:
        """cell_key → number of `ok` runs: what a resumed spec need not run again."""
        rows = self.db.execute(
            "SELECT cell_key, count(*) FROM runs WHERE spec_name=? AND status='ok' "
            "GROUP BY cell_key",
            [spec_name],
        ).fetchall()
        return {k: int(n) for k, n in rows}

    def sql(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Any query; `samples` is a view over every committed run's Parquet file
        (run_id, series, value)."""
        self._samples_view()
        return self.db.execute(query, list(params)).fetchall()

    def _samples_view(self) -> None:
        pattern = str(self.samples_dir / "*.parquet").replace("'", "''")
        if not any(self.samples_dir.glob("*.parquet")):
            self.db.execute(
                "CREATE OR REPLACE TEMP VIEW samples AS SELECT "
                "NULL::VARCHAR AS run_id, NULL::VARCHAR AS series, "
                "NULL::BIGINT AS value WHERE false"
            )
            return
        # Only rows of committed runs: a file of a run cut short is never visible.
        self.db.execute(
            "CREATE OR REPLACE TEMP VIEW samples AS SELECT p.run_id::VARCHAR AS run_id, "
            f"p.series::VARCHAR AS series, p.value FROM read_parquet('{pattern}') p "
            "WHERE p.run_id IN (SELECT run_id FROM runs WHERE samples_file IS NOT NULL)"
        )
