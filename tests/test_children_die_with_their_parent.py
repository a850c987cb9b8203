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


def _wait_until_it_runs(child: int, command: str) -> None:
    """setpriv sets the death signal and then execs the command: until the child is the
    command, a parent killed now would leave it none (a loaded host shows that race)."""
    deadline = time.monotonic() + 30
    while _comm(child) != command and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _comm(child) == command


def _gone(child: int) -> bool:
    """The child ended within 30 s (the kernel's signal is at once; a loaded host)."""
    deadline = time.monotonic() + 30
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _running(child)


@pytest.mark.parametrize("die", [True, False])
def test_a_sigkilled_parent_takes_its_child_along(die: bool) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT.format(die=die)], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        assert _running(child)
        _wait_until_it_runs(child, "sleep")
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        if not die:  # without it the child lives on (300 s): the check below can fail
            time.sleep(1)
            assert _running(child)
            return
        assert _gone(child)
    finally:
        if _running(child):
            os.kill(child, signal.SIGKILL)


# The RP2040 model's two processes: a run's model, and the bench that serves run after
# run (the capture module's firmware beside the board's image). Each is started by the
# flasher the serial target uses; the parent prints the node process's pid.
MODEL_PARENT = """
from pathlib import Path
from rtlab.lab.serialboard.description import board_description
from rtlab.lab.serialboard.model_bench import ModelBench
from rtlab.lab.serialboard.flashers.rp2040_model import Rp2040ModelFlasher
if {bench}:
    proc = ModelBench(Path({capture!r})).proc
else:
    flasher = Rp2040ModelFlasher(board_description("pico"), {{}})
    flasher.flash(Path({image!r}), [])
    flasher.reset()
    proc = flasher.proc
print(proc.pid, flush=True)
proc.wait()
"""


@pytest.mark.parametrize("bench", [False, True], ids=["model", "bench"])
def test_a_sigkilled_rtlab_takes_the_rp2040_model_along(bench: bool) -> None:
    """The node process is stopped (SIGSTOP) before its parent is SIGKILLed: it cannot end
    by itself meanwhile, so only the death signal the kernel sends removes it."""
    from tests.instruments.rp2040.harness import build_firmware
    from tests.models.rp2040 import model

    model.build()
    script = MODEL_PARENT.format(
        bench=bench, image=str(model.bare_image("smoke")), capture=str(build_firmware())
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        _wait_until_it_runs(child, "node")
        os.kill(child, signal.SIGSTOP)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert _gone(child)
    finally:
        if _running(child):
            os.kill(child, signal.SIGKILL)
