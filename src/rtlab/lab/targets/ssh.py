"""The `ssh` target kind: workloads run on a board over ssh (BatchMode, no password).

Each argument is quoted with shlex.quote: ssh hands the remote side one command line
that its login shell splits again. Host, user and options are checked so that none can
be read by ssh as an option of its own.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.errors import ConfigError, RtlabError
from rtlab.lab import hostview
from rtlab.lab.fingerprint import fingerprint
from rtlab.lab.targets.base import (
    Background,
    Completed,
    Group,
    TargetKind,
    check_programs,
    run_process,
)

_SAFE_NAME = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.:@%-]*")
# ssh -o Key=Value: a keyword, then a value without a leading '-' or a newline
_SSH_OPTION = re.compile(r"[A-Za-z]+=[^\s-][^\n]*")


def _check_ssh(t: Mapping[str, Any]) -> None:
    check_programs(t)
    for key in ("host", "user"):
        v = t.get(key)
        if key == "host" and v is None:
            raise ConfigError("host", 'an ssh target needs host = "name or address"')
        # a leading '-' would be read by ssh as an option
        if v is not None and (not isinstance(v, str) or not _SAFE_NAME.fullmatch(v)):
            raise ConfigError(key, f"{key} = {v!r}: not a host or user name")
    port = t.get("port", 22)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ConfigError("port", "expected a port number 1..65535")
    if "identity" in t and not isinstance(t["identity"], str):
        raise ConfigError("identity", "expected the path of a private key")
    opts = t.get("ssh_options", [])
    if not isinstance(opts, list) or not all(
        isinstance(o, str) and _SSH_OPTION.fullmatch(o) for o in opts
    ):
        raise ConfigError(
            "ssh_options", 'expected a list of ssh -o options, e.g. ["ConnectTimeout=5"]'
        )


class SshTarget:
    kind = "ssh"

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.host = str(t["host"])
        self.user = t.get("user")
        self.port = int(t.get("port", 22))
        self.identity = t.get("identity")
        self.options = list(t.get("ssh_options", []))
        self.programs = dict(t.get("programs", {}))

    def ssh_argv(self, remote: Sequence[str], tty: bool = False) -> list[str]:
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

    def describe(self) -> dict[str, Any]:
        return {"kind": "ssh", "host": self.host, "user": self.user, "port": self.port}

    def program(self, name: str) -> str:
        return str(self.programs.get(name, name))  # else found on the remote PATH

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        return run_process(self.ssh_argv(argv), timeout)

    def start(self, argv: Sequence[str]) -> Background:
        return Group(self.ssh_argv(argv, tty=True))

    def fingerprint(self) -> dict[str, Any]:
        """The same fingerprint as a local run's, from one dump of the target's /proc
        and /sys taken over this connection (the board needs only a POSIX shell)."""
        r = self.run(["sh", "-c", hostview.SCRIPT], timeout=60)
        if r.returncode != 0 or hostview.SEP not in r.stdout:
            tail = " ".join(r.stderr.strip().splitlines()[-2:])[:300]
            raise RtlabError(f"cannot reach {self.host} over ssh (exit {r.returncode}): {tail}")
        fp = fingerprint(view=hostview.SnapshotView(r.stdout))
        fp["ssh_host"] = self.host
        return fp


TARGET_KIND = TargetKind(
    "ssh",
    ("host", "user", "port", "identity", "ssh_options", "programs"),
    _check_ssh,
    SshTarget,
)
