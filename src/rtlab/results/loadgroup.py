"""The load generator a run left behind: its process group, recorded with the run at
its start (Store.note_load_group), stopped when the store recovers the run after its
writer died (kill -9). stress-ng's own --timeout would end it too, but only after the
run's length + 30 s: an immediate re-run would measure its "idle" cells under load."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any


def proc_start(pid: int) -> int | None:
    """The process's start time (clock ticks after boot, /proc/PID/stat field 22):
    with the boot id, what tells it from a later process given the same PID."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[19])


def _members(pgid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int((d / "stat").read_text().rpartition(")")[2].split()[2]) == pgid:
                out.append(int(d.name))
    return out


def stop_load_group(group: dict[str, Any] | None, grace_s: float = 2.0) -> int | None:
    """SIGTERM, then SIGKILL, the recorded group if it is still the run's; its pgid
    when something was stopped. The group is the run's when its leader is the process
    recorded (same start time), or when the leader is gone but members remain (the
    kernel gives no new process a PID still in use as a process group ID)."""
    if not group or not isinstance(group.get("pgid"), int) or group["pgid"] <= 1:
        return None
    pgid = int(group["pgid"])
    start = proc_start(pgid)
    if start is not None and start != group.get("start"):
        return None  # the PID is another process's now
    if start is None and not _members(pgid):
        return None
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, grace_s)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)
        end = time.monotonic() + wait
        while time.monotonic() < end and _members(pgid):
            time.sleep(0.05)
        if not _members(pgid):
            break
    return pgid
