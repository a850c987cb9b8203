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
`captures/<run_id>.parquet`, written before the commit the same way), and stops every
process group such a run left running (its workload, its load: rtlab.results.orphans).
Ctrl-C inside `run()` marks the run `interrupted` at once; one held back by the commit
(store writes wait for it: rtlab.procgroup.interrupts_deferred) stops the session after
it, the committed run kept. Statuses: running, ok, incomplete (the workload's output had
losses), error, interrupted.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import socket
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import duckdb
import numpy as np

from rtlab.errors import NothingRan
from rtlab.procgroup import interrupts_deferred
from rtlab.results import orphans
from rtlab.results.run_writer import RunWriter, insert_rows, write_samples
from rtlab.results.schema import SCHEMA, STATUSES, StoreError, to_json
from rtlab.results.snapshot import open_snapshot, publish, withdraw


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def new_run_id() -> str:
    """Sortable by start time, unique: 20261124T013419-019d8a8858."""
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:10]


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _uninterrupted(method: _Method) -> _Method:
    """Ctrl-C or SIGTERM of a session waits until the write is done (see
    rtlab.procgroup.interrupts_deferred), then raises KeyboardInterrupt."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with interrupts_deferred():
            return method(*args, **kwargs)

    return cast(_Method, wrapper)  # functools.wraps keeps the signature


class Store:
    """A DuckDB file plus `samples/` beside it. One process writes at a time (DuckDB
    locks the file); readers in other processes open it with read_only=True, and get
    the writer's last published snapshot while it writes."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.root = self.path.parent
        self.samples_dir = self.root / "samples"
        # Instrument captures of runs (rtlab Parquet capture files, not sample tables:
        # kept out of samples/, whose files the `samples` view reads as one schema).
        self.captures_dir = self.root / "captures"
        self.read_only = read_only
        # The pid of the process writing the store when this reader got its snapshot.
        self.snapshot_of: int | None = None
        if read_only and not self.path.exists():
            raise StoreError(f"{self.path}: no such store")
        self.root.mkdir(parents=True, exist_ok=True)
        self.db = self._connect()
        if not read_only:
            self.db.execute(SCHEMA)
            self.samples_dir.mkdir(exist_ok=True)
            self.recovered = self.recover()
            self.publish()

    def _connect(self) -> duckdb.DuckDBPyConnection:
        """Open the file; while another process writes it, a reader gets the writer's
        published snapshot (rtlab.results.snapshot) and a writer waits a little (a
        reader may hold the file for a moment), then gives up with one line."""
        deadline = time.monotonic() + (1.0 if self.read_only else 5.0)
        while True:
            try:
                return duckdb.connect(str(self.path), read_only=self.read_only)
            except duckdb.Error as e:
                held = re.search(r"Conflicting lock is held in .*?\(PID ([0-9]+)\)", str(e))
                if not held:
                    raise StoreError(f"{self.path}: cannot open the store ({e})") from None
                snap = open_snapshot(self.path) if self.read_only else None
                if snap is not None:
                    self.snapshot_of = int(held.group(1))
                    return snap
                if time.monotonic() > deadline:  # DuckDB: one writer, no reader beside it
                    raise StoreError(
                        f"{self.path}: the store is in use by process {held.group(1)} (an "
                        "`rtlab run` still writing to it?); try again when it has finished, "
                        "or give another store with --store"
                    ) from None
                time.sleep(0.1)

    def publish(self) -> None:
        """Let readers in other processes see the store as it is now (a snapshot)."""
        publish(self.db, self.path)

    # -- lifecycle ----------------------------------------------------------------
    def close(self) -> None:
        self.db.close()
        if not self.read_only:
            withdraw(self.path)

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
        for rid, _pid, host, boot in rows:
            if rid not in stale:
                continue
            note = "the writing process ended before the run was complete"
            if (host, boot) == me[:2]:  # its workload and load may outlive it: stop them
                note += orphans.stop_all(self._groups(rid))
            self.db.execute(
                "UPDATE runs SET status='interrupted', finished_at=?, message=coalesce("
                "message, ?) WHERE run_id=?",
                [time.time(), note, rid],
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

    @_uninterrupted
    def note_group(self, run_id: str, pgid: int, program: str) -> None:
        """Record a process group a `running` run started (committed at once), so that
        recovery after a crash of the writer can stop it; the run's final `load`
        replaces the record."""
        groups = orphans.recorded(self._groups(run_id), pgid, program)
        self.db.execute(
            "UPDATE runs SET load=? WHERE run_id=?", [to_json({"groups": groups}), run_id]
        )

    def _groups(self, run_id: str) -> list[dict[str, Any]]:
        row = self.db.execute("SELECT load FROM runs WHERE run_id=?", [run_id]).fetchone()
        try:
            return orphans.in_record(json.loads(row[0]) if row and row[0] else None)
        except ValueError:
            return []

    def capture_path(self, run_id: str) -> Path:
        """Where a run's instrument capture goes; it is dropped with the run if the run
        is abandoned or found interrupted, like its samples file."""
        return self.captures_dir / f"{run_id}.parquet"

    # -- writing --------------------------------------------------------------------
    @_uninterrupted
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
        run_id: str | None = None,
    ) -> str:
        run_id = run_id or new_run_id()
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
                to_json(spec),
                to_json(params),
                to_json(target),
                to_json(fingerprint),
                time.time(),
                os.getpid(),
                socket.gethostname(),
                _boot_id(),
            ],
        )
        self.publish()
        return run_id

    @_uninterrupted
    def finish_run(self, w: RunWriter) -> None:
        """Samples file first (atomic rename), then every row and the status in one
        transaction: a crash in between leaves the run `running`, recovered later."""
        if w.status not in STATUSES or w.status == "running":
            raise StoreError(f"bad final status {w.status!r}")
        rel = None
        if w.series:
            rel = f"samples/{w.run_id}.parquet"
            self._write_samples(self.root / rel, w)
        insert_rows(self.db, w, rel)
        self.publish()

    @_uninterrupted
    def mark(self, run_id: str, status: str, message: str | None = None) -> None:
        """End a run without data (interrupted, error) in one committed update."""
        if status not in STATUSES:
            raise StoreError(f"unknown status {status!r}")
        self.db.execute(
            "UPDATE runs SET status=?, message=?, finished_at=? WHERE run_id=?",
            [status, message, time.time(), run_id],
        )
        self.publish()

    @contextlib.contextmanager
    def run(self, **begin: Any) -> Iterator[RunWriter]:
        """begin_run, yield a RunWriter, finish_run; Ctrl-C → interrupted, error → error."""
        run_id = new_run_id()  # known before the row: a Ctrl-C held back by the write
        try:  # comes right after it, and the run is then marked, not left `running`
            self.begin_run(**begin, run_id=run_id)
            w = RunWriter(self, run_id)
            yield w
            self.finish_run(w)  # inside: Ctrl-C while storing also marks the run
        except KeyboardInterrupt:
            self._abandon(run_id, "interrupted", "interrupted by the user (Ctrl-C)")
            raise
        except NothingRan:
            self.discard(run_id)
            raise
        except BaseException as e:
            self._abandon(run_id, "error", f"{type(e).__name__}: {e}"[:2000])
            raise

    @_uninterrupted
    def discard(self, run_id: str) -> None:
        """Drop a run that wrote nothing (its target could not run it: NothingRan)."""
        self.db.execute("DELETE FROM runs WHERE run_id=?", [run_id])
        self.publish()

    @_uninterrupted
    def _abandon(self, run_id: str, status: str, message: str) -> None:
        """Mark a run that did not finish; its samples file (if written) goes. A run
        whose commit is done (finish_run) keeps its status and files: a Ctrl-C held
        back by the commit, or an error after it, comes too late to undo it."""
        row = self.db.execute("SELECT status FROM runs WHERE run_id=?", [run_id]).fetchone()
        if row is not None and row[0] != "running":
            return
        self.mark(run_id, status, message)
        with contextlib.suppress(FileNotFoundError):
            (self.samples_dir / f"{run_id}.parquet").unlink()
        with contextlib.suppress(FileNotFoundError):
            self.capture_path(run_id).unlink()

    def _write_samples(self, path: Path, w: RunWriter) -> None:
        write_samples(path, w)

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
        path = self.root / row[0]
        if not path.is_file():  # deleted or moved by hand: say which run lost what
            raise StoreError(
                f"run {run_id}: its samples file {path} is missing (deleted or moved?); "
                "its figures cannot be read"
            )
        values = (
            self.db.execute(
                "SELECT value FROM read_parquet(?) WHERE series::VARCHAR = ?", [str(path), series]
            )
            .fetchnumpy()["value"]
            .astype(np.int64, copy=False)
        )
        if values.size == 0 and not self._has_series(run_id, series):
            raise StoreError(f"run {run_id} has no series {series!r}")
        return values

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
