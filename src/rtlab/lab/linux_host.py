"""A Linux host as a device, apart from the transport that reaches it.

A transport turns a command for the device into the argv this host runs: `SshTransport`
through an ssh client of rtlab's own (BatchMode, each argument quoted with shlex.quote:
ssh hands the remote side one command line that its login shell splits again), or a
labgrid place's connection (rtlab.lab.targets.labgrid.place_boards: labgrid's SSHDriver holds
it). The device, `LinuxHost`, runs, starts and fingerprints through whichever transport
it is given, so the `ssh` target and a labgrid place with an ssh board are one device
reached two ways. (This machine itself is the `local` target: no transport at all.)

    host = LinuxHost(SshTransport("board", user="pi"), name="board")
    host.run(["uname", "-r"], timeout=10)
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from typing import Any, Protocol

from rtlab.errors import RtlabError
from rtlab.lab import hostview
from rtlab.lab.fingerprint import fingerprint
from rtlab.lab.process import Background, Completed, Group, run_process


class Transport(Protocol):
    def argv(self, remote: Sequence[str], tty: bool = False) -> list[str]:
        """The argv that runs `remote` on the device (tty: hang-up ends it)."""
        ...


class SshTransport:
    """rtlab's own ssh client line: BatchMode (no password prompt), the spec's port,
    user, key and `-o` options."""

    def __init__(
        self,
        host: str,
        port: int = 22,
        user: str | None = None,
        identity: str | None = None,
        options: Sequence[str] = (),
    ) -> None:
        self.host, self.port, self.user = host, port, user
        self.identity, self.options = identity, list(options)

    def argv(self, remote: Sequence[str], tty: bool = False) -> list[str]:
        argv = ["ssh", "-o", "BatchMode=yes", "-p", str(self.port)]
        if self.identity:
            argv += ["-i", os.path.expanduser(self.identity)]
        if self.user:
            argv += ["-l", str(self.user)]
        for opt in self.options:
            argv += ["-o", opt]
        if tty:
            argv.append("-tt")  # closing the connection hangs up the remote process
        return [*argv, "--", self.host, " ".join(shlex.quote(a) for a in remote)]


class LinuxHost:
    """A Linux system reached through `transport`: its commands run to completion in a
    process group of this host (a timeout or Ctrl-C stops the remote command with its
    connection), background ones hang up with theirs, and its fingerprint is the local
    one's, from one dump of its /proc and /sys (it needs only a POSIX shell)."""

    def __init__(self, transport: Transport, name: str, error: type[RtlabError] = RtlabError):
        self.transport = transport
        self.name = name  # the host as the fingerprint and messages name it
        self.error = error  # what an unreachable host raises (LabgridError on a place)

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        return run_process(self.transport.argv(argv), timeout)

    def start(self, argv: Sequence[str]) -> Background:
        return Group(self.transport.argv(argv, tty=True))

    def fingerprint(self, how: str = "ssh") -> dict[str, Any]:
        r = self.run(["sh", "-c", hostview.SCRIPT], timeout=60)
        if r.returncode != 0 or hostview.SEP not in r.stdout:
            tail = " ".join(r.stderr.strip().splitlines()[-2:])[:300]
            raise self.error(f"cannot reach {self.name} over {how} (exit {r.returncode}): {tail}")
        fp = fingerprint(view=hostview.SnapshotView(r.stdout))
        fp["ssh_host"] = self.name
        return fp
