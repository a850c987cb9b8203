"""What an RTOS port offers the `qemu` target: where its kernel comes from, what it
builds for, how to build the rtbench firmware, and what of its configuration matters.

The user brings each kernel as a checkout named by environment variables (the way the
pico-sdk is brought); a spec may name them too (`[target] rtos_paths = {VAR = "…"}`).
`paths` below is that merged view: variable -> value, unset variables absent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from rtlab.lab.build import BuildError


class RtosBuildError(BuildError):
    """The RTOS is not brought, or its firmware does not build: one line (+ build tail)."""


class RtosPort(Protocol):
    name: str  # the spec's `rtos = "…"`
    title: str  # for tables: "FreeRTOS"
    variables: tuple[str, ...]  # environment variables the user sets
    machines: tuple[str, ...]  # QEMU machines it builds for (targets/qemu_mps2 MACHINES)
    configs: tuple[str, ...]  # documented configurations; the first is the default

    def missing(self, paths: Mapping[str, str]) -> str | None:
        """None when brought, else one line: what to set, to what (README's table)."""
        ...

    def build(self, machine: str, config: str, paths: Mapping[str, str]) -> Path:
        """The rtbench ELF for machine and config, built on first use and cached."""
        ...

    def describe(self, config: str, paths: Mapping[str, str], machine: str = "") -> dict[str, Any]:
        """What a run must record: rtos_version, the configuration that matters (of
        that machine's build: "" for the port's first)."""
        ...


def merged_paths(spec: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment's values overlaid by the spec's `rtos_paths`."""
    paths = {k: v for k, v in os.environ.items() if v}
    paths.update({k: str(v) for k, v in (spec or {}).items() if v})
    return paths


def runs_on(port: RtosPort) -> tuple[str, ...]:
    """Its QEMU machines and the serial-target boards it builds for (`boards`, if any)."""
    return (*port.machines, *getattr(port, "boards", ()))


def configs_on(port: RtosPort, machine: str) -> tuple[str, ...]:
    """The configurations the port builds for `machine`, its default first: the port's
    `machine_configs` where it names the machine (the Pico's one-core images), else
    `configs`."""
    per: Mapping[str, tuple[str, ...]] = getattr(port, "machine_configs", {})
    return tuple(per.get(machine, port.configs))


def one_core_configs(port: RtosPort, machine: str) -> tuple[str, ...]:
    """configs_on without the multi-core ones (the port's `multicore_configs` for that
    machine): what a one-core machine model can run."""
    multi: Mapping[str, tuple[str, ...]] = getattr(port, "multicore_configs", {})
    return tuple(c for c in configs_on(port, machine) if c not in multi.get(machine, ()))


def check_choice(port: RtosPort, machine: str, config: str) -> None:
    if machine not in runs_on(port):
        raise RtosBuildError(f"{port.title} runs on {', '.join(runs_on(port))} here, not {machine}")
    ours = configs_on(port, machine)
    if config not in ours:
        raise RtosBuildError(
            f"{port.title} configuration {config!r} on {machine}: expected one of {', '.join(ours)}"
        )


def check_buildable(port: RtosPort, machine: str, config: str, paths: Mapping[str, str]) -> None:
    """A port's build may go on: the machine and configuration are its, the kernel is
    brought (else one RtosBuildError saying what to set)."""
    check_choice(port, machine, config)
    why = port.missing(paths)
    if why:
        raise RtosBuildError(why)
