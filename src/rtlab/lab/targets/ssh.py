"""The `ssh` target kind: workloads run on a board over ssh (BatchMode, no password):
the Linux-host device over rtlab's ssh transport (rtlab.lab.linux_host).

Host, user and options are checked so that none can be read by ssh as an option of its
own; each argument is quoted (the transport).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.linux_host import LinuxHost, SshTransport
from rtlab.lab.targets.base import (
    Background,
    Completed,
    TargetBase,
    TargetKind,
    check_programs,
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


class SshTarget(TargetBase):
    """A Linux host (rtlab.lab.linux_host) reached through rtlab's own ssh client."""

    kind = "ssh"

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.host = str(t["host"])
        self.user = t.get("user")
        self.port = int(t.get("port", 22))
        self.programs = dict(t.get("programs", {}))
        self.transport = SshTransport(
            self.host, self.port, self.user, t.get("identity"), t.get("ssh_options", [])
        )
        self.device = LinuxHost(self.transport, self.host)

    def ssh_argv(self, remote: Sequence[str], tty: bool = False) -> list[str]:
        return self.transport.argv(remote, tty)

    def describe(self) -> dict[str, Any]:
        return {"kind": "ssh", "host": self.host, "user": self.user, "port": self.port}

    def program(self, name: str) -> str:
        return str(self.programs.get(name, name))  # else found on the remote PATH

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        return self.device.run(argv, timeout)

    def start(self, argv: Sequence[str]) -> Background:
        return self.device.start(argv)

    def fingerprint(self) -> dict[str, Any]:
        """The same fingerprint as a local run's, taken over this connection."""
        return self.device.fingerprint()


TARGET_KIND = TargetKind(
    "ssh",
    ("host", "user", "port", "identity", "ssh_options", "programs"),
    _check_ssh,
    SshTarget,
)
