"""What an RTOS port offers the `qemu` target: where its kernel comes from, what it
builds for, how to build the rtbench firmware, and what of its configuration matters.

The user brings each kernel as a checkout named by environment variables (the way the
pico-sdk is brought); a spec may name them too (`[target] rtos_paths = {VAR = "…"}`).
`paths` below is that merged view: variable -> value, unset variables absent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Protocol

from rtlab.catalog import rtoses
from rtlab.catalog.machines import MACHINES
from rtlab.catalog.rtoses import machines_for
from rtlab.lab.c_targets import RtosBuildError


class RtosPort(Protocol):
    """An RTOS port: every capability declared (a field, empty when the port has none),
    none probed. PortBase gives the defaults; a port overrides what it has."""

    # Read-only: a port declares each as a class attribute or computes it (PortBase).
    @property  # the spec's `rtos = "…"`
    def name(self) -> str: ...
    @property  # for tables: "FreeRTOS"
    def title(self) -> str: ...
    @property  # environment variables the user sets
    def variables(self) -> tuple[str, ...]: ...
    @property  # the `qemu` target's machines it builds for
    def machines(self) -> tuple[str, ...]: ...
    @property  # the serial target's boards it builds for
    def boards(self) -> tuple[str, ...]: ...
    @property  # documented configurations; the first is the default
    def configs(self) -> tuple[str, ...]: ...
    @property  # machine -> its own configurations
    def machine_configs(self) -> Mapping[str, tuple[str, ...]]: ...
    @property  # machine -> those needing every core
    def multicore_configs(self) -> Mapping[str, tuple[str, ...]]: ...
    @property  # machine -> configurations a study runs only when it names them (--config)
    def asked_configs(self) -> Mapping[str, tuple[str, ...]]: ...
    @property  # no command line: build_baked puts the options inside
    def baked_machines(self) -> tuple[str, ...]: ...
    @property  # built on the pico-sdk (its version is recorded)
    def pico_sdk_machines(self) -> tuple[str, ...]: ...
    @property  # more firmware for the qemu target (build_program)
    def programs(self) -> tuple[str, ...]: ...
    @property  # the spec's RTOS when it names none (one port says so)
    def default(self) -> bool: ...
    @property  # a spec key of the target -> the variable it sets
    def spec_keys(self) -> Mapping[str, str]: ...

    def missing(self, paths: Mapping[str, str]) -> str | None:
        """None when brought, else one line: what to set, to what (README's table)."""
        ...

    def build(self, machine: str, config: str, paths: Mapping[str, str]) -> Path:
        """The rtbench ELF for machine and config, built on first use and cached."""
        ...

    def build_baked(
        self, machine: str, config: str, paths: Mapping[str, str], words: list[str]
    ) -> Path:
        """The image of a baked machine with the options `words` built in."""
        ...

    def build_program(self, name: str, machine: str, config: str, paths: Mapping[str, str]) -> Path:
        """Other firmware of `programs` for the qemu target."""
        ...

    def describe(self, config: str, paths: Mapping[str, str], machine: str = "") -> dict[str, Any]:
        """What a run must record: rtos_version, the configuration that matters (of
        that machine's build: "" for the port's first)."""
        ...


class PortBase:
    """The defaults of RtosPort's capabilities: its machines and boards are those its port
    folder has an overlay of (workloads/rtbench/ports/<rtos>/machines/<machine>.toml,
    rtlab.catalog.rtoses); no per-machine configurations, no baked images, no programs.
    A port subclasses it and sets name, variables, configs and its methods; its title
    and default are its port folder's port.toml, its per-machine configurations its
    overlays' (rtlab.catalog.rtoses)."""

    name: ClassVar[str] = ""
    variables: ClassVar[tuple[str, ...]] = ()
    configs: ClassVar[tuple[str, ...]] = ("default",)
    programs: ClassVar[tuple[str, ...]] = ()
    spec_keys: ClassVar[Mapping[str, str]] = {}

    @property
    def machine_configs(self) -> Mapping[str, tuple[str, ...]]:
        """machine -> its own configurations: an overlay's `configs` (space-separated,
        the default first), where the machine's build differs (the Pico's one-core images)."""
        return self._overlay_words("configs")

    @property
    def multicore_configs(self) -> Mapping[str, tuple[str, ...]]:
        """machine -> those of its configurations that need every core (an overlay's
        `multicore_configs`): a one-core machine model runs the others only."""
        return self._overlay_words("multicore_configs")

    @property
    def asked_configs(self) -> Mapping[str, tuple[str, ...]]:
        """machine -> configurations a study runs only when it names them (an overlay's
        `asked_configs`: a build for a cross-check, not a configuration of its own)."""
        return self._overlay_words("asked_configs")

    def _overlay_words(self, key: str) -> dict[str, tuple[str, ...]]:
        found = rtoses.overlays(self.name)
        return {m: tuple(str(o[key]).split()) for m, o in found.items() if key in o}

    @property
    def title(self) -> str:
        """As its port folder's port.toml declares it (rtlab.catalog.rtoses)."""
        return rtoses.title(self.name)

    @property
    def default(self) -> bool:
        """Its port.toml's `default = 1`: the spec's RTOS when it names none."""
        found = rtoses.rtoses().get(self.name)
        return found is not None and found.default

    @property
    def machines(self) -> tuple[str, ...]:
        return machines_for(self.name, "qemu")

    @property
    def boards(self) -> tuple[str, ...]:
        return machines_for(self.name, "serial")

    @property
    def baked_machines(self) -> tuple[str, ...]:
        """Its boards whose files say `baked = 1` (no command line: the Picos)."""
        return tuple(b for b in self.boards if MACHINES.get(b).baked)

    @property
    def pico_sdk_machines(self) -> tuple[str, ...]:
        """Its boards whose files say `pico_sdk = 1` (the Pico's boot stage 2)."""
        return tuple(b for b in self.boards if MACHINES.get(b).pico_sdk)

    def build_baked(
        self, machine: str, config: str, paths: Mapping[str, str], words: list[str]
    ) -> Path:
        raise RtosBuildError(f"{self.title} builds no image with the options inside for {machine}")

    def build_program(self, name: str, machine: str, config: str, paths: Mapping[str, str]) -> Path:
        raise RtosBuildError(f"{self.title} builds no program {name} here")


def merged_paths(spec: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment's values overlaid by the spec's `rtos_paths`."""
    paths = {k: v for k, v in os.environ.items() if v}
    paths.update({k: str(v) for k, v in (spec or {}).items() if v})
    return paths


def runs_on(port: RtosPort) -> tuple[str, ...]:
    """Its QEMU machines and the serial-target boards it builds for."""
    return (*port.machines, *port.boards)


def configs_on(port: RtosPort, machine: str) -> tuple[str, ...]:
    """The configurations the port builds for `machine`, its default first: the port's
    `machine_configs` where it names the machine (the Pico's one-core images), else
    `configs`."""
    return tuple(port.machine_configs.get(machine, port.configs))


def one_core_configs(port: RtosPort, machine: str) -> tuple[str, ...]:
    """configs_on without the multi-core ones (the port's `multicore_configs` for that
    machine): what a one-core machine model can run."""
    multi = port.multicore_configs.get(machine, ())
    return tuple(c for c in configs_on(port, machine) if c not in multi)


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


def header_match(header: Path, pattern: str) -> str:
    """The first group of `pattern` (a regex) in a kernel header, "" when the header is
    unreadable or says nothing of it (a version a kernel tree states, e.g.)."""
    try:
        text = header.read_text(errors="replace")
    except OSError:
        return ""
    m = re.search(pattern, text)
    return m.group(1) if m else ""
