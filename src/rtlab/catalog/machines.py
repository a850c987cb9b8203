"""The machine registry: every `workloads/rtbench/boards/<layer>/machines/<stem>.toml`,
read once, one `Machine` per file, in one `Registry` (rtlab.registry).

The files are the C build's too (boards/cmake/board_description.cmake reads them), so
their values are `key = "text"` or `key = number` only; a list is a space-separated
string. The keys rtlab reads besides the C build's (all optional but the name):

    machine = "mps2-an385"        # or board = "pico": the name images print (meta board)
    target = "qemu"               # the `qemu` target runs it; else a serial-target board
    title = "Cortex-M3"           # for tables and messages
    cores = 1                     # cores the RTOS runs on
    core = "cm3"                  # the RTOS comparison's short core name (cell labels)
    core_label = "M3"             # ... and its column heading
    qemu = "qemu-system-arm"      # the `qemu` target's binary (default for target = "qemu")
    qemu_args = "-M mps2-an385"   # what selects and shapes the machine (default: -M <name>)
    compiler = "arm-none-eabi-gcc"  # the build identity's compiler (default)
    baked = 1                     # no command line: the options are built into the image
    pico_sdk = 1                  # its images are built on the pico-sdk (PICO_SDK_PATH)
    default = 1                   # the `qemu` target's machine when a spec names none
    by_name = 1                   # the RTOS study runs it only where a study names it
    build_dir = "rtbench-qemu"    # our CMake board layer builds it (rtlab.lab.boards.layers):
                                  # into build/<build_dir>-<kernels>
    options_var = "RTB_RP2350_ARGS"  # baked: the CMake variable its options go into
    chip = "rp2350"               # its chip (baked: which UF2 writer and boot-ROM check)

A machine file describes the hardware only: which RTOSes run on a machine, and their own
names of it, are each RTOS's overlays in its port folder (rtlab.catalog.rtoses).
"""

from __future__ import annotations

import functools
import shlex
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.catalog.tree import RTBENCH_DIR
from rtlab.errors import ConfigError
from rtlab.registry import Registry

BOARDS_DIR = RTBENCH_DIR / "boards"
DEFAULT_COMPILER = "arm-none-eabi-gcc"
DEFAULT_QEMU = "qemu-system-arm"


@dataclass(frozen=True)
class Machine:
    name: str  # what its images print (meta board); the spec's machine/board
    layer: str  # the board layer's folder under workloads/rtbench/boards
    path: Path  # its machine file
    target: str = "serial"  # "qemu": the `qemu` target runs it; else the serial target's
    title: str = ""
    cores: int = 1
    core: str = ""
    core_label: str = ""
    qemu: str = ""  # the `qemu` target's binary ("" for a serial-target board)
    qemu_args: tuple[str, ...] = ()
    compiler: str = DEFAULT_COMPILER
    baked: bool = False
    pico_sdk: bool = False
    default: bool = False
    by_name: bool = False  # the RTOS study's matrix takes it only where named
    build_dir: str = ""  # our CMake board layer builds it, into build/<build_dir>-<kernels>
    options_var: str = ""  # baked: the CMake variable the options go into
    chip: str = ""  # its chip (baked: which UF2 writer); the C build's too
    facts: Mapping[str, Any] = field(default_factory=dict)  # every key of the file

    @property
    def stem(self) -> str:
        """The file's stem: the C build's name for it (rtbench-<rtos>-<stem>.elf)."""
        return self.path.stem

    def get(self, key: str, default: Any = None) -> Any:
        """Any key of its file (a board layer's own: ram_size, heap_size)."""
        return self.facts.get(key, default)


def _text(data: Mapping[str, Any], key: str, path: Path, default: str = "") -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ConfigError("machine", f"machine file {path}: {key}: expected a string")
    return value


def _number(data: Mapping[str, Any], key: str, path: Path, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError("machine", f"machine file {path}: {key}: expected a number >= 0")
    return value


def named_table(
    path: Path, key: str = "machine", what: str = "machine file"
) -> tuple[str, dict[str, Any]]:
    """A machine file's name (`board`, else `machine`) and every key: one ConfigError
    (`key`, naming `what` and the file) when unreadable, not TOML, or nameless. The
    serial target reads board descriptions, any such file a spec names, through it."""
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(key, f"{what} {path}: {e}") from None
    name = data.get("board", data.get("machine"))
    if not isinstance(name, str) or not name:
        raise ConfigError(
            key, f'{what} {path}: no {"board" if key == "board" else "machine"} = "name"'
        )
    return name, data


def read_machine(path: Path) -> Machine:
    """One machine file; a bad one is one ConfigError naming the file and the key."""
    name, data = named_table(path)
    target = _text(data, "target", path, "serial")
    if target not in ("qemu", "serial"):
        raise ConfigError("machine", f'machine file {path}: target: "qemu" or "serial"')
    qemu = _text(data, "qemu", path, DEFAULT_QEMU if target == "qemu" else "")
    args = _text(data, "qemu_args", path, f"-M {data.get('qemu_machine', name)}")
    return Machine(
        name=name,
        layer=path.parent.parent.name,
        path=path,
        target=target,
        title=_text(data, "title", path),
        cores=_number(data, "cores", path, 1) or 1,
        core=_text(data, "core", path),
        core_label=_text(data, "core_label", path),
        qemu=qemu,
        qemu_args=tuple(shlex.split(args)),
        compiler=_text(data, "compiler", path, DEFAULT_COMPILER),
        baked=bool(_number(data, "baked", path, 0)),
        pico_sdk=bool(_number(data, "pico_sdk", path, 0)),
        default=bool(_number(data, "default", path, 0)),
        by_name=bool(_number(data, "by_name", path, 0)),
        build_dir=_text(data, "build_dir", path),
        options_var=_text(data, "options_var", path),
        chip=_text(data, "chip", path),
        facts=data,
    )


def _unknown(name: object, known: list[str]) -> Exception:
    return ConfigError("machine", f"machine {name!r}: expected one of {', '.join(known)}")


@functools.cache
def machines_in(root: Path) -> Registry[Machine]:
    """Every machine file of the board layers under `root` (a boards/ folder), read once."""
    reg: Registry[Machine] = Registry("machine", {}, unknown=_unknown)
    for path in sorted(root.glob("*/machines/*.toml")):
        m = read_machine(path)
        if m.name in reg:
            other = reg[m.name].path
            raise ConfigError("machine", f"machine file {path}: {m.name} is also {other}")
        reg.register(m)
    return reg


class _Machines:
    """The registry of the repository's board layers, read on first use."""

    def _reg(self) -> Registry[Machine]:
        return machines_in(BOARDS_DIR)

    def get(self, name: object) -> Machine:
        """The machine by name; an unknown one is a ConfigError listing the known ones."""
        return self._reg().get(name)

    __getitem__ = get

    def __contains__(self, name: object) -> bool:
        return name in self._reg()

    def __iter__(self) -> Iterator[str]:
        return iter(self._reg().names())

    def values(self) -> list[Machine]:
        return [self.get(n) for n in self]


MACHINES = _Machines()


def qemu_machines() -> dict[str, Machine]:
    """The `qemu` target's machines, by name, in the registry's order."""
    return {m.name: m for m in MACHINES.values() if m.target == "qemu"}


def default_machine() -> str:
    """The `qemu` target's machine when a spec names none (the file with default = 1)."""
    found = [m.name for m in qemu_machines().values() if m.default]
    if len(found) != 1:
        raise ConfigError("machine", f"the board layers name {len(found)} default machines")
    return found[0]


def layer_of(name: str) -> str:
    """The board layer a machine belongs to ("" for a name no file describes)."""
    return MACHINES.get(name).layer if name in MACHINES else ""


def core_names() -> dict[str, str]:
    """machine -> the RTOS comparison's short core name (its file's `core`: "cm3")."""
    return {m.name: m.core for m in MACHINES.values() if m.core}


def core_labels() -> dict[str, str]:
    """machine -> the RTOS comparison's column heading of its core (`core_label`: "M3")."""
    return {m.name: m.core_label for m in MACHINES.values() if m.core_label}
