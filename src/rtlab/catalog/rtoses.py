"""The RTOS ports as the catalog knows them: each port folder
`workloads/rtbench/ports/<rtos>/` with a `port.toml` declares its RTOS there:

    title = "FreeRTOS"   # for tables and messages
    default = 1          # the spec's RTOS when it names none (one port says so)
    <key> = ...          # the port's own value of an overlay key where an overlay has none

and where it runs: one overlay `machines/<machine>.toml` per machine (as Zephyr's apps
keep boards/<board>.conf), holding what the RTOS itself calls that machine (its CPU
port, its board name: `freertos_port`, `zephyr_board`, ...), read by the RTOS's module
and image rules. "RTOS X runs on machine Y" means that file exists; the machine files
name no RTOS. (rtlab.lab.rtos holds what builds it; its ports read their title, default
and machines here.) A port folder without port.toml (posix, template) is no RTOS here.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import machines_in
from rtlab.catalog.tree import RTBENCH_DIR
from rtlab.errors import ConfigError

PORT_FILE = "port.toml"
OVERLAYS = "machines"  # a port folder's overlays: machines/<machine>.toml
# Versions a firmware reports when its kernel tree states none: NuttX's tools/version.sh
# placeholder (no git, no .version) and the port template's "0".
PLACEHOLDER_VERSIONS = frozenset({"0.0.0", "0"})


@dataclass(frozen=True)
class Rtos:
    name: str  # its port folder's name: the spec's `rtos = "…"`
    folder: Path
    title: str
    default: bool = False
    facts: Mapping[str, Any] = field(default_factory=dict)  # every key of its port.toml


def read_port(path: Path) -> Rtos:
    """One port.toml; a bad one is one ConfigError naming the file and the key."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError("rtos", f"port file {path}: {e}") from None
    title, default = data.get("title"), data.get("default", 0)
    if not isinstance(title, str) or not title:
        raise ConfigError("rtos", f'port file {path}: title: expected title = "text"')
    if default not in (0, 1):
        raise ConfigError("rtos", f"port file {path}: default: expected 0 or 1")
    return Rtos(path.parent.name, path.parent, title, bool(default), data)


@functools.cache
def rtoses(rtbench: Path = RTBENCH_DIR) -> dict[str, Rtos]:
    """name -> its declaration, for every port folder with a port.toml, by name (the
    repository's workloads/rtbench, or a copy of it)."""
    ports = rtbench / "ports"
    return {p.parent.name: read_port(p) for p in sorted(ports.glob(f"*/{PORT_FILE}"))}


def title(name: str) -> str:
    """An RTOS's title for tables ("µC/OS-III"); a name no port declares, as it is."""
    found = rtoses().get(name)
    return found.title if found else name


def default_rtos() -> str:
    """The RTOS of a spec that names none: the port that says it is the default (else
    the first by name)."""
    known = rtoses()
    names = [name for name, r in known.items() if r.default]
    return (names or list(known))[0]


def shown_version(recorded: str, reported: str) -> str:
    """The version to show of a run's RTOS: what the build recorded of the tree (the
    target's rtos_version) beats what the firmware reports (meta rtos_version); a
    reported placeholder is "unknown version", never a number (runs stored before the
    build said "unknown version" itself)."""
    if recorded:
        return recorded
    return "unknown version" if reported in PLACEHOLDER_VERSIONS else reported


@functools.cache
def overlays(rtos: str, rtbench: Path = RTBENCH_DIR) -> dict[str, dict[str, Any]]:
    """machine -> the RTOS's overlay of it (its own keys), for every machine it runs on;
    an overlay of a machine no file describes is one ConfigError naming it."""
    known = machines_in(rtbench / "boards")
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((rtbench / "ports" / rtos / OVERLAYS).glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ConfigError("rtos", f"overlay {path}: {e}") from None
        if path.stem not in known:
            names = ", ".join(known.names())
            raise ConfigError("rtos", f"overlay {path}: no machine {path.stem} (known: {names})")
        out[path.stem] = data
    return out


def overlay(rtos: str, machine: str) -> dict[str, Any]:
    """The RTOS's own keys for a machine ({} where it does not run there)."""
    return overlays(rtos).get(machine, {})


def setting(rtos: str, machine: str, key: str, default: Any = None) -> Any:
    """The RTOS's own value of `key` on a machine: its overlay's, else its port.toml's
    (the port's value wherever an overlay says nothing), else `default`."""
    own = overlay(rtos, machine)
    if key in own:
        return own[key]
    found = rtoses().get(rtos)
    return found.facts.get(key, default) if found else default


def machines_for(
    rtos: str, target: str | None = None, rtbench: Path = RTBENCH_DIR
) -> tuple[str, ...]:
    """The machines the RTOS runs on (its overlays), of one target kind if given
    ("qemu", "serial"), in the machine registry's order."""
    found = overlays(rtos, rtbench)
    machines = machines_in(rtbench / "boards")
    return tuple(
        name for name in machines.names()
        if name in found and target in (None, machines[name].target)
    )  # fmt: skip
