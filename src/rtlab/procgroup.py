"""Stopping a child started with start_new_session=True: signal its whole process
group (a workload's helpers, stress-ng's workers), not just the leader; and SIGTERM
taken as Ctrl-C for the length of a session (sigterm_as_interrupt)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from typing import Any


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


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM ends a session like Ctrl-C: the run in progress is marked, not lost."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)
