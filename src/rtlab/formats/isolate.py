"""Run a third-party parser in a forked child, so that a crash in native code (an
abort, a Rust panic, a segfault) on a corrupt file becomes a FormatError instead of
killing the caller's process.

The child sends back a pickled ("ok", value) or ("error", message); a child killed by a
signal, or one that outlives the timeout, is reported as a corrupt file. Results that
are large go through shared memory the caller allocates before the fork (an
mmap.mmap(-1, n) is shared with the child), not through the pipe.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import select
import signal
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rtlab.errors import FormatError

DEFAULT_TIMEOUT = 120.0


def _child(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    wfd: int,
    errfd: int,
    setup: Callable[[], None] | None,
) -> None:
    try:
        faulthandler.disable()  # an abort here is expected, not a Python crash to report
        os.dup2(errfd, 2)  # native libraries print their complaints (panics) here: keep them
        os.dup2(errfd, 1)
        if setup is not None:
            setup()
        result: tuple[str, Any] = ("ok", fn(*args))
    except BaseException as exc:
        lines = str(exc).strip().splitlines()
        text = lines[0] if lines else ""
        if not isinstance(exc, ValueError):  # e.g. "PanicException: …" says who failed
            text = f"{type(exc).__name__}: {text}"
        result = ("error", text[:300])
    try:
        data = memoryview(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
        while data:
            data = data[os.write(wfd, data[: 1 << 20]) :]
    finally:
        os._exit(0)


def run_isolated(
    path: Path,
    fn: Callable[..., Any],
    *args: Any,
    what: str,
    timeout: float = DEFAULT_TIMEOUT,
    setup: Callable[[], None] | None = None,
    on_error: Callable[[str], FormatError] | None = None,
) -> Any:
    """fn(*args) in a forked child; its return value, or a FormatError about `path`.

    `setup` runs in the child first (e.g. a memory limit); `on_error` turns the
    message of an ordinary exception in the child into the FormatError to raise."""
    describe = on_error or (lambda msg: FormatError(path, f"corrupt {what}: {msg}"))
    if not hasattr(os, "fork"):  # no fork (Windows): in-process, exceptions only
        try:
            return fn(*args)
        except Exception as exc:
            raise describe(str(exc)) from None
    with tempfile.TemporaryFile() as errf:
        status, chunks, timed_out = _fork_and_collect(fn, args, errf.fileno(), setup, timeout)
        errf.seek(0)
        stderr = errf.read(4000).decode("utf-8", "replace")
    if timed_out:
        raise FormatError(path, f"reading the {what} took more than {timeout:.0f} s: gave up")
    if os.WIFSIGNALED(status) or not chunks:
        why = next((ln.strip() for ln in stderr.splitlines() if ln.strip()), "no message")
        raise FormatError(
            path, f"the {what} parser crashed on this file ({why[:200]}); it is corrupt"
        )
    try:
        kind, payload = pickle.loads(b"".join(chunks))
    except Exception:
        raise FormatError(path, f"the {what} parser returned no result") from None
    if kind != "ok":
        raise describe(payload)
    return payload


def _fork_and_collect(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    errfd: int,
    setup: Callable[[], None] | None,
    timeout: float,
) -> tuple[int, list[bytes], bool]:
    """Run in a forked child: (its wait status, the bytes it sent, timed out?)."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        os.close(rfd)
        _child(fn, args, wfd, errfd, setup)
    os.close(wfd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while True:
            ready, _, _ = select.select([rfd], [], [], max(deadline - time.monotonic(), 0))
            if not ready:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
            block = os.read(rfd, 1 << 20)
            if not block:
                break
            chunks.append(block)
    finally:
        os.close(rfd)
        _, status = os.waitpid(pid, 0)
    return status, chunks, timed_out
