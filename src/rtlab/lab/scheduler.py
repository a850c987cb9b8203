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
stored `interrupted`, and the runs already finished stay. run_parallel returns or
raises only when no worker is left, so the caller may close the store then.
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
from rtlab.procgroup import interrupt_pending, interrupts_deferred
from rtlab.results import RunWriter, Store
from rtlab.results.store import new_run_id

WAIT_POLL_S = 1.0
WORKER_NAME = "rtlab board"  # the workers' thread names: `rtlab board 1`, ...
ABORT_AGAIN_S = 0.5  # a stopping session looks this often for a further Ctrl-C
_ENDED = object()  # a worker's last word on the results queue


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
                for held in busy:  # several boards: the free ones are enough
                    say(f"skipped: {held}")
                return opened
            if not wait:
                raise busy[0]
            for held in busy:
                if str(held) not in told:
                    told.add(str(held))
                    say(f"waiting: {held}")
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
    this thread, in the order runs finish. Returns True when every pair has run.

    Ctrl-C (KeyboardInterrupt, in this thread: the caller holds sigterm_as_interrupt)
    or a worker's error is re-raised only once every worker has ended, so the caller
    may close the store then: one still inside a DuckDB call made the close fail
    ("connection is busy with another call") and the process abort at exit. Workers
    are counted out by the word each leaves last on the results queue, not by
    Thread.is_alive()/join(): on Python 3.11 an interrupt landing inside those marks a
    running thread stopped (threading.py releases the lock the thread holds)."""
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
        finally:
            results.put(_ENDED)  # nothing of this worker touches the store after it

    threads = [
        threading.Thread(target=work, args=(t,), daemon=True, name=f"{WORKER_NAME} {i}")
        for i, t in enumerate(targets, 1)
    ]
    started: list[threading.Thread] = []
    running = 0  # started, and their last word not in yet
    try:
        with interrupts_deferred():  # a Ctrl-C now comes once every started one counts
            for t in threads:
                t.start()
                started.append(t)
                running += 1
        while running:
            res = results.get()
            if res is _ENDED:
                running -= 1
            elif isinstance(res, BaseException):
                raise res
            else:
                on_result(res)
        with interrupts_deferred():
            for t in started:  # in their last lines
                t.join()
        return True
    except BaseException:
        _wind_down(targets, started, running, stopping, results, on_result)
        raise


def _wind_down(
    targets: Sequence[Target],
    started: Sequence[threading.Thread],
    running: int,
    stopping: threading.Event,
    results: queue.SimpleQueue[Any],
    on_result: Callable[[Any], None],
) -> None:
    """Stop the session: every board aborts its run, and this waits until the `running`
    workers have left their last word (_ENDED) on `results`, reporting the runs that
    finish meanwhile. A further Ctrl-C waits too (interrupts_deferred) and has every
    board abort again: a run started just as the session was stopping ends then."""

    def abort_all() -> None:
        for t in targets:
            with contextlib.suppress(Exception):  # one board's failure stops no wait
                t.abort()

    came: list[Any] = []
    with interrupts_deferred():
        stopping.set()
        abort_all()
        while running:
            try:
                res = results.get(timeout=ABORT_AGAIN_S)
            except queue.Empty:
                if interrupt_pending():
                    abort_all()
                continue
            if res is _ENDED:
                running -= 1
            elif not isinstance(res, BaseException):
                came.append(res)
        for th in started:  # ended or in their last lines: no interrupt cuts this short
            th.join()
        for res in came:
            on_result(res)
