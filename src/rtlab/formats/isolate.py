"""Run a third-party parser in a forked child, so that a crash in native code (an
abort, a Rust panic, a segfault) on a corrupt file becomes a FormatError instead of
killing the caller's process.

The child sends back a pickled ("ok", value) or ("error", message); a child killed by a
signal, or one that outlives the timeout, is reported as a corrupt file. Results that
are large go through shared memory the caller allocates before the fork (an
mmap.mmap(-1, n) is shared with the child), not through the pipe.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rtlab.errors import FormatError

DEFAULT_TIMEOUT = 120.0


def _child(fn: Callable[..., Any], args: tuple[Any, ...], wfd: int) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # native libraries print their complaints here
        result: tuple[str, Any] = ("ok", fn(*args))
    except BaseException as exc:
        lines = str(exc).strip().splitlines()
        result = ("error", (lines[0] if lines else type(exc).__name__)[:300])
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
) -> Any:
    """fn(*args) in a forked child; its return value, or a FormatError about `path`."""
    if not hasattr(os, "fork"):  # no fork (Windows): in-process, exceptions only
        try:
            return fn(*args)
        except Exception as exc:
            raise FormatError(path, f"corrupt {what}: {exc}") from None
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        os.close(rfd)
        _child(fn, args, wfd)
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
    if timed_out:
        raise FormatError(path, f"reading the {what} took more than {timeout:.0f} s: gave up")
    if os.WIFSIGNALED(status) or not chunks:
        raise FormatError(path, f"corrupt {what} (the parser crashed on it)")
    kind, payload = pickle.loads(b"".join(chunks))
    if kind != "ok":
        raise FormatError(path, f"corrupt {what}: {payload}")
    return payload
