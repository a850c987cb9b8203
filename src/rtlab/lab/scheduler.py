"""Which boards a spec's cells run on, and running them on several boards at once.

`open_targets` makes the spec's target, or one per board when its kind expands (labgrid
`tags`: every matching place). A board held by someone else (TargetBusy) is waited for
with `wait`, else the run stops before any cell; with several boards the free ones are
enough. `close_targets` releases them on every way out.

`run_parallel` gives each board a worker thread that takes the next (cell, repetition)
from one queue, so a board runs one cell at a time and no pair runs twice. The store has
one writer: every store call of the workers goes through one lock (`SerialStore`), in
this process, on the store's one DuckDB connection; the workload itself runs outside
the lock. Ctrl-C (in the main thread) stops the run in progress on every board; each is
stored `interrupted`, and the runs already finished stay.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rtlab.errors import NothingRan
from rtlab.lab.spec import Cell, Spec
from rtlab.lab.targets.base import Completed, Target, TargetBusy, make_target, target_kind
from rtlab.results import RunWriter, Store
from rtlab.results.store import new_run_id

WAIT_POLL_S = 1.0


def open_targets(
    spec: Spec, wait: bool = False, say: Callable[[str], None] = print
) -> list[Target]:
    kind = target_kind(str(spec.target.get("kind", "local")))
    if kind.expand is None:
        return [make_target(spec.target)]
    tables = kind.expand(spec.target)
    opened: list[Target] = []
    told: set[str] = set()
    pending = list(tables)
    try:
        while True:
            busy: list[TargetBusy] = []
            for tab in list(pending):
                try:
                    opened.append(make_target(tab))
                    pending.remove(tab)
                except TargetBusy as e:
                    busy.append(e)
            if not busy or (opened and len(tables) > 1):
                for e in busy:  # several boards: the free ones are enough
                    say(f"skipped: {e}")
                return opened
            if not wait:
                raise busy[0]
            for e in busy:
                if str(e) not in told:
                    told.add(str(e))
                    say(f"waiting: {e}")
            time.sleep(WAIT_POLL_S)
    except BaseException:
        close_targets(opened)
        raise


def close_targets(targets: Sequence[Target]) -> None:
    """Close every target that can be closed, even when one of them fails."""
    errors: list[BaseException] = []
    for t in targets:
        try:
            t.close()
        except BaseException as e:
            errors.append(e)
    if errors:
        raise errors[0]


class SerialStore:
    """What the runner uses of a Store, each write under one lock: one writer."""

    def __init__(self, store: Store, lock: threading.Lock) -> None:
        self.store = store
        self.lock = lock
        self.root = store.root
        self.captures_dir = store.captures_dir

    def capture_path(self, run_id: str) -> Any:
        return self.store.capture_path(run_id)

    def note_group(self, run_id: str, pgid: int, program: str) -> None:
        with self.lock:
            self.store.note_group(run_id, pgid, program)

    @contextlib.contextmanager
    def run(self, **begin: Any) -> Iterator[RunWriter]:
        """Store.run's contract (begin, yield, finish; Ctrl-C → interrupted, error →
        error), with the lock held only while the store is written."""
        run_id = new_run_id()
        try:
            with self.lock:
                self.store.begin_run(**begin, run_id=run_id)
            w = RunWriter(self.store, run_id)
            yield w
            with self.lock:
                self.store.finish_run(w)
        except KeyboardInterrupt:
            with self.lock:
                self.store._abandon(run_id, "interrupted", "interrupted by the user (Ctrl-C)")
            raise
        except NothingRan:
            with self.lock:
                self.store.discard(run_id)
            raise
        except BaseException as e:
            with self.lock:
                self.store._abandon(run_id, "error", f"{type(e).__name__}: {e}"[:2000])
            raise


class _Stoppable:
    """A target whose run, once the session is stopping, ends as a Ctrl-C would; the
    rest of Target is the target's own."""

    def __init__(self, target: Target, stopping: threading.Event) -> None:
        self.target = target
        self.stopping = stopping
        self.kind = target.kind
        self.place = target.place
        self.describe = target.describe
        self.program = target.program
        self.start = target.start
        self.fingerprint = target.fingerprint
        self.place_instrument = target.place_instrument
        self.abort = target.abort
        self.close = target.close

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        if self.stopping.is_set():
            raise KeyboardInterrupt
        done = self.target.run(argv, timeout)
        if self.stopping.is_set():
            raise KeyboardInterrupt
        return done


def run_parallel(
    targets: Sequence[Target],
    todo: Sequence[tuple[Cell, int]],
    run_cell: Callable[[Target, Any, Cell, int], Any],
    store: Store,
    on_result: Callable[[Any], None],
) -> bool:
    """Run every pair of `todo` on the first free target. `run_cell(target, store, cell,
    rep)` runs one pair (a Runner's, given the SerialStore); on_result is called in
    this thread, in the order runs finish. Returns False when Ctrl-C stopped it."""
    pairs: queue.SimpleQueue[tuple[Cell, int]] = queue.SimpleQueue()
    for p in todo:
        pairs.put(p)
    results: queue.SimpleQueue[Any] = queue.SimpleQueue()
    stopping = threading.Event()
    serial = SerialStore(store, threading.Lock())

    def work(target: Target) -> None:
        guarded = _Stoppable(target, stopping)
        try:
            while not stopping.is_set():
                try:
                    cell, rep = pairs.get_nowait()
                except queue.Empty:
                    return
                results.put(run_cell(guarded, serial, cell, rep))
        except KeyboardInterrupt:
            return
        except BaseException as e:  # an error of rtlab itself: the session stops
            stopping.set()
            results.put(e)

    threads = [threading.Thread(target=work, args=(t,), daemon=True) for t in targets]
    for t in threads:
        t.start()
    try:
        while any(t.is_alive() for t in threads) or not results.empty():
            try:
                res = results.get(timeout=0.2)
            except queue.Empty:
                continue
            if isinstance(res, BaseException):
                raise res
            on_result(res)
        return True
    except BaseException:
        stopping.set()
        for t in targets:
            t.abort()
        for t in threads:
            t.join()
        while not results.empty():
            res = results.get()
            if not isinstance(res, BaseException):
                on_result(res)
        raise
