"""Workload kinds of an experiment spec: their parameters, argv and expected run time.

A kind checks one cell's parameters (scalars after matrix expansion; a mistake is a
ConfigError naming the parameter), turns them into the program's argv, and says roughly
how long a run takes (for the ETA and the timeout). `list_params` are parameters whose
value is itself a list (`sleeps = [1, 10]` is one value); a list of such lists expands
into the matrix.

Each kind is one module defining `WORKLOAD_KIND` (or `WORKLOAD_KINDS`), found through
the table of `KINDS`: `rtlab-latency` (latency.py, workloads/linux/rtlab-latency),
`rtbench` (rtbench.py, the POSIX port of workloads/rtbench), `command` (command.py, any
program that speaks the protocol, argv given) and the GPIO kinds (gpio.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rtlab.errors import ConfigError
from rtlab.registry import Registry


@dataclass(frozen=True)
class WorkloadKind:
    name: str
    program: str | None  # the C target to build (local) or find (remote); None: argv[0]
    list_params: frozenset[str]
    check: Callable[[Mapping[str, Any]], None]
    argv: Callable[[str, Mapping[str, Any]], list[str]]
    seconds: Callable[[Mapping[str, Any]], float]
    multi_run: bool = False  # one invocation prints several protocol runs (rtbench)


KINDS: Registry[WorkloadKind] = Registry(
    "workload kind",
    {
        "rtlab-latency": "rtlab.lab.workloads.latency",
        "rtbench": "rtlab.lab.workloads.rtbench",
        "command": "rtlab.lab.workloads.command",
        "rtlab-toggle": "rtlab.lab.workloads.gpio",
        "rtlab-toggle-rs": "rtlab.lab.workloads.gpio",
        "rtlab-gpio-events": "rtlab.lab.workloads.gpio",
    },
    attr=("WORKLOAD_KIND", "WORKLOAD_KINDS"),
)


_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)?$")


def duration_s(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    m = _DURATION.match(str(value))
    if not m:
        raise ConfigError("duration", f"duration {value!r}: expected seconds or 500ms, 5s, 2m")
    scale = {"ms": 1e-3, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]
    return float(m.group(1)) * scale


def option_args(key: str, value: Any, opt: str) -> list[str]:
    """One parameter as the program's option `opt`: a flag for true (nothing for false),
    a list comma-separated, a duration in ms, anything else as text."""
    if isinstance(value, bool):
        return [opt] if value else []
    if isinstance(value, list):
        return [opt, ",".join(str(v) for v in value)]
    if key == "duration":
        return [opt, f"{duration_s(value) * 1000:.0f}ms"]
    return [opt, str(value)]
