"""Children in process groups of their own: started (spawn) so that the run that
started them can name them (recording: what a kill -9 of the runner leaves behind is
found and stopped by the next writer of the store), stopped as a whole group (a
workload's helpers, stress-ng's workers), not just the leader; and SIGTERM taken as
Ctrl-C for the length of a session (sigterm_as_interrupt)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

_observers = threading.local()


@contextlib.contextmanager
def recording(note: Callable[[int, str], None]) -> Iterator[None]:
    """Inside, every spawn() of this thread calls note(pgid, program name) as soon as the
    group exists (the runner records it with the run in progress). Per thread: runs on
    several boards at once each record their own."""
    prev = getattr(_observers, "note", None)
    _observers.note = note
    try:
        yield
    finally:
        _observers.note = prev


def spawn(
    argv: Sequence[str], *, die_with_parent: bool = False, **popen: Any
) -> subprocess.Popen[Any]:
    """subprocess.Popen(argv, **popen) as the leader of a new session and process group
    (our Ctrl-C handling decides, not the terminal's), told to the thread's recording().
    If the note fails the group is killed: a process nobody could stop never runs on.
    `die_with_parent`: on Linux the leader is SIGKILLed by the kernel when the thread that
    spawned it ends (a SIGKILLed rtlab leaves no QEMU behind); that thread must then wait
    for the process (run_process does)."""
    run = list(argv)
    if die_with_parent and sys.platform.startswith("linux") and shutil.which("setpriv"):
        # util-linux's setpriv sets PR_SET_PDEATHSIG, then execs argv (same pid, no
        # Python code in the forked child); util-linux is essential on Debian
        run = ["setpriv", "--pdeathsig", "KILL", "--", *run]
    proc: subprocess.Popen[Any] = subprocess.Popen(run, start_new_session=True, **popen)
    note = getattr(_observers, "note", None)
    if note is not None:
        try:
            note(proc.pid, os.path.basename(str(argv[0])))
        except BaseException:
            kill_group(proc, signal.SIGKILL)
            with contextlib.suppress(Exception):
                proc.wait(timeout=5)
            raise
    return proc


def spawn_held(argv: Sequence[str], **popen: Any) -> subprocess.Popen[Any]:
    """spawn(argv, die_with_parent=True) for a process whose users are other threads than
    the one asking (a model that a run's reader and port threads use; a bench that serves
    run after run, whichever worker runs them): a thread of its own starts it and waits
    for it, so the process dies with rtlab (a SIGKILL of it included), never with the
    thread that asked for it. Told to the asking thread's recording()."""
    note = getattr(_observers, "note", None)
    held: dict[str, Any] = {}
    started = threading.Event()

    def hold() -> None:
        try:
            with recording(note) if note is not None else contextlib.nullcontext():
                held["proc"] = spawn(argv, die_with_parent=True, **popen)
        except BaseException as e:  # given to the asking thread
            held["error"] = e
            return
        finally:
            started.set()
        held["proc"].wait()

    name = f"holds {os.path.basename(str(argv[0]))}"
    threading.Thread(target=hold, daemon=True, name=name).start()
    started.wait()
    if "error" in held:
        raise held["error"]
    proc: subprocess.Popen[Any] = held["proc"]
    return proc


def kill_group(proc: subprocess.Popen[Any], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def stop_group(proc: subprocess.Popen[Any], grace_s: float = 5.0) -> None:
    """SIGTERM the group, and SIGKILL it if the leader is still there after grace_s."""
    kill_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        kill_group(proc, signal.SIGKILL)
        proc.wait()


# A store write in progress (interrupts_deferred) holds Ctrl-C and SIGTERM back: raised
# inside a DuckDB query they become RuntimeError("Query interrupted") (a traceback, and
# a run left half recorded), so the handler only notes them until the write is done.
_deferring = 0
_pending = False


def _interrupt(signum: int, frame: object) -> None:
    global _pending
    if _deferring:
        _pending = True
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Inside: Ctrl-C/SIGTERM of a session (sigterm_as_interrupt) wait; at the end of the
    outermost one, KeyboardInterrupt if one came. Only the main thread's writes wait:
    Python runs signal handlers there, so another thread's query is never interrupted."""
    global _deferring, _pending
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
        if not _deferring and _pending:
            _pending = False
            raise KeyboardInterrupt


def interrupt_pending() -> bool:
    """A Ctrl-C/SIGTERM came and is held back by interrupts_deferred (raised at its end)."""
    return _pending


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM ends a session like Ctrl-C: the run in progress is marked, not lost. Both
    wait while the store writes (interrupts_deferred)."""
    try:
        old = {s: signal.signal(s, _interrupt) for s in (signal.SIGTERM, signal.SIGINT)}
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
