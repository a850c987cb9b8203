"""The `command` workload kind: any program that speaks the protocol, `argv` given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.workloads.base import WorkloadKind


def _check_command(p: Mapping[str, Any]) -> None:
    for key in p:
        if key not in ("argv", "seconds"):
            raise ConfigError(key, f"unknown command parameter {key!r}; known: argv, seconds")
    argv = p.get("argv")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise ConfigError("argv", "command needs argv = a non-empty list of strings")


WORKLOAD_KIND = WorkloadKind(
    "command",
    None,
    frozenset({"argv"}),
    _check_command,
    lambda exe, p: list(p["argv"]),
    lambda p: float(p.get("seconds", 5)),
)
