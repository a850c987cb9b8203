"""Processes the test session started that outlived it: QEMU and labgrid (coordinators,
exporters, a lease's reaper). Other jobs on this host run QEMU too, so a process is
ours only if it carries this session's token in its environment (set by the session
fixture, inherited by every process a test starts, however deep and whatever its parent
is now), never by its name alone.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from pathlib import Path

TOKEN_VAR = "RTLAB_TEST_SESSION"


def start_session() -> bytes:
    """A token of this pytest process (an xdist worker has its own), in os.environ so
    that every process started from here on inherits it."""
    token = f"{os.getpid()}-{secrets.token_hex(8)}"
    os.environ[TOKEN_VAR] = token
    return f"{TOKEN_VAR}={token}".encode()


def _watched(pid: int) -> str | None:
    """What the process is if it is QEMU or labgrid (its command line), else None."""
    proc = Path("/proc", str(pid))
    try:
        stat = (proc / "stat").read_text()
        cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None
    comm = stat[stat.index("(") + 1 : stat.rindex(")")]
    state = stat[stat.rindex(")") + 2 :].split()[0]
    if state in ("Z", "X"):  # exited, not yet reaped: it runs nothing
        return None
    if comm.startswith("qemu-system") or "labgrid" in cmdline:
        return cmdline.strip()
    return None


def leftovers(entry: bytes) -> dict[int, str]:
    """pid -> command line of every QEMU or labgrid process carrying `entry`."""
    found = {}
    me = os.getpid()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == me:
            continue
        try:
            environ = (d / "environ").read_bytes()
        except OSError:
            continue
        if entry in environ.split(b"\0") and (what := _watched(int(d.name))) is not None:
            found[int(d.name)] = what
    return found


def wait_for_none(entry: bytes, grace_s: float = 15.0) -> dict[int, str]:
    """The leftovers still there after `grace_s` (a process being stopped may take a
    moment); those are then killed (ours by the token) and returned."""
    deadline = time.monotonic() + grace_s
    while (left := leftovers(entry)) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return left
