"""The process groups a run in progress started (its workload, its load generator, an
instrument's sigrok-cli, a QEMU), recorded with the run as each starts (Store.note_group,
fed by rtlab.procgroup.recording), and stopped when the store recovers the run after its
writer died (kill -9): a resumed run measures alone. Without this the workload of the
killed run (rtlab-latency) measured on beside the resumed one, and stress-ng's own
--timeout ends it only after the run's length + 30 s.

A group is recorded with its leader's start time (and the store's recovery checks the
host and boot): a PID reused by a later process is never signalled.
"""

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


def stop_group(group: dict[str, Any] | None, grace_s: float = 2.0) -> int | None:
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
            # a stopped group (Ctrl-Z, a debugger) acts on SIGTERM only once continued
            os.killpg(pgid, signal.SIGCONT)
        end = time.monotonic() + wait
        while time.monotonic() < end and _members(pgid):
            time.sleep(0.05)
        if not _members(pgid):
            break
    return pgid


def recorded(groups: list[dict[str, Any]], pgid: int, program: str) -> list[dict[str, Any]]:
    """The in-progress record of a run with one more group: `{"groups": [...]}`."""
    return [*groups, {"pgid": pgid, "start": proc_start(pgid), "program": program}]


def in_record(record: Any) -> list[dict[str, Any]]:
    """The groups of an in-progress record (the runs table's `load` while `running`);
    `{"group": {...}}` is how rtlab recorded the load generator alone before."""
    if not isinstance(record, dict):
        return []
    groups = record.get("groups", [record["group"]] if "group" in record else [])
    return [g for g in groups if isinstance(g, dict)] if isinstance(groups, list) else []


def stop_all(groups: list[dict[str, Any]]) -> str:
    """Stop every recorded group still there; what was stopped, for the run's message:
    "; its processes were stopped: stress-ng (process group 812), ..." or ""."""
    stopped = []
    for g in groups:
        pgid = stop_group(g)
        if pgid is not None:
            stopped.append(f"{g.get('program') or 'load'} (process group {pgid})")
    if not stopped:
        return ""
    verb = "was" if len(stopped) == 1 else "were"
    return f"; {', '.join(stopped)} {verb} stopped"
