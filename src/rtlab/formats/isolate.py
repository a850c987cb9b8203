"""Run a third-party parser in a forked child, so that a crash in native code (an
abort, a Rust panic, a segfault) on a corrupt file becomes a FormatError instead of
killing the caller's process.

The child sends back a pickled ("ok", value) or ("error", message); a child killed by a
signal, or one that outlives the timeout, is reported as a corrupt file. Results that
are large go through shared memory the caller allocates before the fork (an
mmap.mmap(-1, n) is shared with the child), not through the pipe.
"""

from __future__ import annotations

import contextlib
import faulthandler
import mmap
import os
import pickle
import select
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
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


# -- streaming: a child decodes chunks into a ring of shared slots ----------------------
Emit = Callable[[Any, Any], None]


class Refusal(ValueError):
    """A problem of the file's data that the child names itself (a null where a value
    must be): its message is the error as it stands, not "corrupt …"."""


def stream_isolated(
    path: Path,
    produce: Callable[[Emit], None],
    *,
    what: str,
    slot_items: int,
    slots: int = 4,
    timeout: float = DEFAULT_TIMEOUT,
) -> Iterator[tuple[Any, Any]]:
    """Yield (key, int64 array) for each `emit(key, array)` that `produce` makes in a
    forked child, through `slots` shared buffers of `slot_items` int64 each: the child
    decodes the next chunks while the caller works on this one (two cores busy), and a
    crash in native code becomes a FormatError about `path`, raised from the iterator.
    A yielded array is valid until the next one is asked for."""
    import numpy as np

    shared = mmap.mmap(-1, slots * slot_items * 8)
    ring = np.frombuffer(shared, dtype=np.int64).reshape(slots, slot_items)
    with tempfile.TemporaryFile() as errf:
        msg_r, msg_w = os.pipe()
        free_r, free_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            os.close(msg_r)
            os.close(free_w)
            _stream_child(produce, ring, msg_w, free_r, errf.fileno())
        os.close(msg_w)
        os.close(free_r)
        finished = False
        try:
            for s in range(slots):
                os.write(free_w, bytes([s]))
            reader = _Messages(msg_r, timeout)
            while True:
                msg = reader.next()
                if msg is None or msg[0] in ("done", "error", "refused", "timeout"):
                    finished = msg is not None and msg[0] == "done"
                    _stream_end(path, what, msg, errf, timeout)
                    return
                _, slot, key, n = msg
                yield key, ring[slot, :n]
                with contextlib.suppress(BrokenPipeError):  # the child is done: its last
                    os.write(free_w, bytes([slot]))  # message says how it ended
        finally:
            os.close(msg_r)
            os.close(free_w)
            if not finished:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _stream_end(
    path: Path, what: str, msg: tuple[Any, ...] | None, errf: Any, timeout: float
) -> None:
    """The child's last message: done (return), an error, a timeout or a crash (raise)."""
    if msg is not None and msg[0] == "done":
        return
    if msg is not None and msg[0] == "error":
        raise FormatError(path, f"corrupt {what}: {msg[1]}")
    if msg is not None and msg[0] == "refused":
        raise FormatError(path, msg[1])
    if msg is not None:
        raise FormatError(path, f"reading the {what} took more than {timeout:.0f} s: gave up")
    errf.seek(0)
    stderr = errf.read(4000).decode("utf-8", "replace")
    why = next((ln.strip() for ln in stderr.splitlines() if ln.strip()), "no message")
    raise FormatError(path, f"the {what} parser crashed on this file ({why[:200]}); it is corrupt")


class _Messages:
    """Length-prefixed pickled messages from the child's pipe; None at end of file."""

    def __init__(self, fd: int, timeout: float) -> None:
        self.fd, self.timeout, self.buf = fd, timeout, b""

    def _read(self, n: int) -> bytes | None:
        while len(self.buf) < n:
            ready, _, _ = select.select([self.fd], [], [], self.timeout)
            if not ready:
                raise TimeoutError
            block = os.read(self.fd, 1 << 16)
            if not block:
                return None
            self.buf += block
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def next(self) -> tuple[Any, ...] | None:
        try:
            head = self._read(4)
            if head is None:
                return None
            body = self._read(int.from_bytes(head, "little"))
        except TimeoutError:
            return ("timeout",)
        return None if body is None else pickle.loads(body)


def _stream_child(
    produce: Callable[[Emit], None], ring: Any, msg_w: int, free_r: int, errfd: int
) -> None:
    def send(msg: tuple[Any, ...]) -> None:
        data = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
        data = len(data).to_bytes(4, "little") + data
        while data:
            data = data[os.write(msg_w, data) :]

    def emit(key: Any, array: Any) -> None:
        size = ring.shape[1]
        for lo in range(0, len(array), size):
            part = array[lo : lo + size]
            slot = os.read(free_r, 1)
            if not slot:
                os._exit(0)  # the caller stopped reading
            ring[slot[0], : len(part)] = part
            send(("chunk", slot[0], key, len(part)))

    try:
        faulthandler.disable()
        os.dup2(errfd, 2)
        os.dup2(errfd, 1)
        produce(emit)
        msg: tuple[Any, ...] = ("done",)
    except BaseException as exc:
        lines = str(exc).strip().splitlines()
        text = lines[0] if lines else ""
        if not isinstance(exc, ValueError):
            text = f"{type(exc).__name__}: {text}"
        msg = ("refused" if isinstance(exc, Refusal) else "error", text[:300])
    try:
        send(msg)
    finally:
        os._exit(0)
