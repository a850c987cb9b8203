"""What rtlab (or a test fixture) starts with die_with_parent dies with it, however it
dies: a SIGKILLed parent runs no code, the kernel sends the child SIGKILL
(PR_SET_PDEATHSIG), so no QEMU or labgrid coordinator is left running with PPID 1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PARENT = """
import subprocess, sys, time
from rtlab.procgroup import spawn
child = spawn(["sleep", "300"], die_with_parent={die})
print(child.pid, flush=True)
child.wait()
"""


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] not in ("Z", "X")


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


@pytest.mark.parametrize("die", [True, False])
def test_a_sigkilled_parent_takes_its_child_along(die: bool) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT.format(die=die)], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        assert _running(child)
        # setpriv sets the death signal and then execs the command: until the child is the
        # command, a parent killed now would leave it none (a loaded host shows that race)
        deadline = time.monotonic() + 30
        while _comm(child) != "sleep" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _comm(child) == "sleep"
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        if not die:  # without it the child lives on (300 s): the check below can fail
            time.sleep(1)
            assert _running(child)
            return
        deadline = time.monotonic() + 30  # the kernel's signal is at once; a loaded host
        while _running(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(child)
    finally:
        if _running(child):
            os.kill(child, signal.SIGKILL)
