"""The RTOS ports as the catalog knows them: each port folder
`workloads/rtbench/ports/<rtos>/` with a `port.toml` declares its RTOS there:

    title = "FreeRTOS"   # for tables and messages
    default = 1          # the spec's RTOS when it names none (one port says so)

(rtlab.lab.rtos holds what builds it; its ports read their title and default here.)
A port folder without the file (posix, template) is no RTOS of the catalog.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

from rtlab.catalog.tree import RTBENCH_DIR
from rtlab.errors import ConfigError

PORTS_DIR = RTBENCH_DIR / "ports"
PORT_FILE = "port.toml"
# Versions a firmware reports when its kernel tree states none: NuttX's tools/version.sh
# placeholder (no git, no .version) and the port template's "0".
PLACEHOLDER_VERSIONS = frozenset({"0.0.0", "0"})


@dataclass(frozen=True)
class Rtos:
    name: str  # its port folder's name: the spec's `rtos = "…"`
    folder: Path
    title: str
    default: bool = False


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
    return Rtos(path.parent.name, path.parent, title, bool(default))


@functools.cache
def rtoses(ports_dir: Path = PORTS_DIR) -> dict[str, Rtos]:
    """name -> its declaration, for every port folder with a port.toml, by name."""
    return {p.parent.name: read_port(p) for p in sorted(ports_dir.glob(f"*/{PORT_FILE}"))}


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
