"""Reading a store while `rtlab run` writes it.

DuckDB lets one process open a file for writing and no other process open it at all
while it does. So a writer publishes a read-only copy beside the store,
`.<store name>.snapshot`, after every change of a run's state (run started, run
finished or marked): DuckDB copies the committed tables into a new file, which is then
renamed into place. A reader that finds the
store locked opens that copy instead: it sees every run as of the writer's last
change, finished runs complete and the one in progress `running`. The samples files
are the store's own (a run's file is in place before its row is committed).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import duckdb


def snapshot_path(store: Path) -> Path:
    return store.with_name(f".{store.name}.snapshot")


def publish(db: duckdb.DuckDBPyConnection, store: Path) -> None:
    """Replace the snapshot with a copy of what `db` (the store's writing connection) has
    committed. DuckDB makes the copy: opening the store file a second time in this
    process and closing it would drop the process's lock on it (POSIX record locks)."""
    snap = snapshot_path(store)
    part = snap.with_name(snap.name + ".part")
    for p in (part, part.with_name(part.name + ".wal")):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
    (name,) = db.execute("SELECT current_database()").fetchone() or ("",)
    quoted = str(part).replace("'", "''")
    db.execute(f"ATTACH '{quoted}' AS rtlab_snapshot")
    try:
        db.execute(f'COPY FROM DATABASE "{name}" TO rtlab_snapshot')
    finally:
        db.execute("DETACH rtlab_snapshot")
    os.replace(part, snap)


def withdraw(store: Path) -> None:
    """The writer closed the store: readers open the store itself again."""
    snap = snapshot_path(store)
    for p in (snap, snap.with_name(snap.name + ".part")):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


def open_snapshot(store: Path) -> duckdb.DuckDBPyConnection | None:
    """A read-only connection to the writer's last published copy, or None without one."""
    try:
        return duckdb.connect(str(snapshot_path(store)), read_only=True)
    except duckdb.Error:
        return None
