"""Stopping a child started with start_new_session=True: signal its whole process
group (a workload's helpers, stress-ng's workers), not just the leader."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
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
