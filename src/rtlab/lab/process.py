"""Running a device's commands on this host: to completion in a process group of their
own (`run_process`), or in the background until stopped (`Group`). The targets and the
devices (rtlab.lab.linux_host, rtlab.lab.qemu.machine) share them."""

from __future__ import annotations

import contextlib
import signal
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rtlab.procgroup import kill_group, spawn, stop_group
from rtlab.protocol import NO_LABELS, Labels, Run
from rtlab.protocol.cut import parse_cut


@dataclass
class Completed:
    """A finished run of a workload. `labels`: what the target says of every protocol run
    in stdout (merged into each run's meta as it is read); `runs`: the runs when the
    target read them as they came (a serial board), else None: stdout is read after."""

    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    labels: Labels = NO_LABELS
    runs: list[Run] | None = None

    def read_runs(self, source: str, convert: Callable[[str], str] | None = None) -> list[Run]:
        """The protocol runs: the target's, else stdout's (through `convert`, a workload
        kind's own output → protocol, which the target's runs have not been through),
        labelled. A last line cut short by a kill is no record (parse_cut)."""
        if self.runs is not None and convert is None:
            return self.runs
        text = convert(self.stdout) if convert else self.stdout
        return parse_cut(text, source, self.labels)


class Background(Protocol):
    def stop(self) -> None: ...


def run_process(
    argv: Sequence[str],
    timeout: float,
    started: Callable[[subprocess.Popen[str]], None] | None = None,
    die_with_parent: bool = False,
) -> Completed:
    """Run to completion in its own process group (spawn: a run records it). Ctrl-C
    (KeyboardInterrupt) or a timeout stop the whole group; the interrupt is re-raised
    once it is gone. `started` gets the process (to stop it from another thread);
    `die_with_parent`: the kernel kills it if this process dies first (spawn)."""
    proc = spawn(
        argv,
        die_with_parent=die_with_parent,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    if started is not None:
        started(proc)
    try:
        out, err = proc.communicate(timeout=timeout)
        return Completed(proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        kill_group(proc, signal.SIGKILL)
        out, err = proc.communicate()
        return Completed(proc.returncode, out, err, timed_out=True)
    except BaseException:
        kill_group(proc, signal.SIGKILL)
        with contextlib.suppress(Exception):
            proc.communicate(timeout=5)
        raise


class Group:
    """A background process group: SIGTERM on stop, SIGKILL if it lingers."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.proc = spawn(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def stop(self) -> None:
        stop_group(self.proc)
