"""The machine registry: every `workloads/rtbench/boards/<layer>/machines/<stem>.toml`,
read once, one `Machine` per file, in one `Registry` (rtlab.registry). The serial target
reads the same type (a board it flashes and reads, rtlab.lab.serialboard.description),
so a machine's defaults are here only.

The files are the C build's too (boards/cmake/board_description.cmake reads them), so
their values are `key = "text"` or `key = number` only; a list is a space-separated
string. The keys rtlab reads besides the C build's (all optional but the name):

    machine = "mps2-an385"        # or board = "pico": its name (the spec's machine/board)
    board = "pico"                # the board whose images it runs (their meta board):
                                  # its own name but for a machine model (below)
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
    ext_wire = 1                  # an external GPIO edge reaches it (rtbench's irq_ext)
    build_dir = "rtbench-qemu"    # our CMake board layer builds it (rtlab.lab.boards.layers):
                                  # into build/<build_dir>-<kernels>
    options_var = "RTB_RP2350_ARGS"  # baked: the CMake variable its options go into
    chip = "rp2350"               # its chip (baked: which UF2 writer and boot-ROM check)

How the serial target reaches a board (rtlab.lab.targets.serial and its flashers):

    qemu_machine = "netduinoplus2"  # an emulator that runs the image (the `qemu` flasher)
    qemu_serial = 1               # which of QEMU's -serial's the protocol UART is (USART2)
    openocd_config = "board/st_nucleo_f4.cfg"   # -f files, space-separated
    pyocd_target = "stm32f411re"
    uf2_drive = "RPI-RP2"         # the boot drive's label (RP2350 on a Pico 2)
    model = "rp2040"              # a board model that runs its images (rp2040_model flasher)
    baud = 115200

A machine model (the RP2040 cycle model) is a machine of its own that runs another
board's images (`board`) through a serial-target flasher:

    flasher = "rp2040_model"      # the flasher that runs it
    answer_s = 300                # seconds from reset to its first byte (when it is slow)
    study_keys = "xip_cache ..."  # the [target] keys a study spec may set for it
    timebase = "rp2040_model"     # what its runs' meta timebase says
    timing_mode = "..."           # ... and their meta timing_mode; `timing` says what it is

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
DEFAULT_BAUD = 115200


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
    board: str = ""  # the board whose images it runs (meta board): its name but for a model
    # how the serial target reaches it (its flashers read these)
    qemu_machine: str = ""
    qemu_serial: int = 0
    openocd_config: tuple[str, ...] = ()
    pyocd_target: str = ""
    uf2_drive: str = ""
    baud: int = DEFAULT_BAUD
    model: str = ""  # a board model that runs its images
    # a machine model: the flasher that runs it, and what a study and its runs say of it
    flasher: str = ""
    answer_s: int = 0  # seconds from reset to its first byte, where longer than a board's
    study_keys: tuple[str, ...] = ()
    timebase: str = ""
    facts: Mapping[str, Any] = field(default_factory=dict)  # every key of the file

    @property
    def source(self) -> str:
        """The file it was read from (messages name it; runs record it)."""
        return str(self.path)

    @property
    def is_model(self) -> bool:
        """A machine model: another board's images, run by a flasher of the serial target."""
        return bool(self.flasher)

    @property
    def stem(self) -> str:
        """The file's stem: the C build's name for it (rtbench-<rtos>-<stem>.elf)."""
        return self.path.stem

    def get(self, key: str, default: Any = None) -> Any:
        """Any key of its file (a board layer's own: ram_size, heap_size)."""
        return self.facts.get(key, default)


@dataclass(frozen=True)
class _File:
    """One machine file's keys, each bad one a ConfigError (`error_key`) naming the file
    as its reader calls it (`what`: "machine file", or the serial target's "board
    description")."""

    path: Path
    data: Mapping[str, Any]
    error_key: str = "machine"
    what: str = "machine file"

    def error(self, key: str, expected: str) -> ConfigError:
        return ConfigError(self.error_key, f"{self.what} {self.path}: {key}: expected {expected}")

    def text(self, key: str, default: str = "") -> str:
        value = self.data.get(key, default)
        if not isinstance(value, str):
            raise self.error(key, "a string")
        return value

    def number(self, key: str, default: int, low: int = 0, high: int | None = None) -> int:
        value = self.data.get(key, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < low
            or (high is not None and value > high)
        ):
            if high is not None:
                raise self.error(key, f"{low}..{high}")
            raise self.error(key, "a positive integer" if low else "a number >= 0")
        return value

    def flag(self, key: str) -> bool:
        return bool(self.number(key, 0))

    def words(self, key: str) -> tuple[str, ...]:
        return tuple(self.text(key).split())


def named_table(
    path: Path, key: str = "machine", what: str = "machine file"
) -> tuple[str, dict[str, Any]]:
    """A machine file's name (`machine`, else `board`) and every key: one ConfigError
    (`key`, naming `what` and the file) when unreadable, not TOML, or nameless. The
    serial target reads board descriptions, any such file a spec names, through it."""
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(key, f"{what} {path}: {e}") from None
    name = data.get("machine", data.get("board"))
    if not isinstance(name, str) or not name:
        raise ConfigError(
            key, f'{what} {path}: no {"board" if key == "board" else "machine"} = "name"'
        )
    return name, data


def read_machine(path: Path, key: str = "machine", what: str = "machine file") -> Machine:
    """One machine file; a bad one is one ConfigError (`key`) naming `what`, the file and
    the key (the serial target reads a board description a spec names by path as
    key "board", what "board description")."""
    name, data = named_table(path, key, what)
    f = _File(path, data, key, what)
    target = f.text("target", "serial")
    if target not in ("qemu", "serial"):
        raise f.error("target", '"qemu" or "serial"')
    flasher = f.text("flasher")
    if flasher and target != "serial":
        raise f.error("flasher", 'a machine model of the serial target (target = "serial")')
    args = f.text("qemu_args", f"-M {data.get('qemu_machine', name)}")
    return Machine(
        name=name,
        layer=path.parent.parent.name,
        path=path,
        target=target,
        title=f.text("title"),
        cores=f.number("cores", 1) or 1,
        core=f.text("core"),
        core_label=f.text("core_label"),
        qemu=f.text("qemu", DEFAULT_QEMU if target == "qemu" else ""),
        qemu_args=tuple(shlex.split(args)),
        compiler=f.text("compiler", DEFAULT_COMPILER),
        baked=f.flag("baked"),
        pico_sdk=f.flag("pico_sdk"),
        default=f.flag("default"),
        by_name=f.flag("by_name"),
        build_dir=f.text("build_dir"),
        options_var=f.text("options_var"),
        chip=f.text("chip"),
        board=f.text("board", name),
        qemu_machine=f.text("qemu_machine"),
        qemu_serial=f.number("qemu_serial", 0, 0, 7),
        openocd_config=f.words("openocd_config"),
        pyocd_target=f.text("pyocd_target"),
        uf2_drive=f.text("uf2_drive"),
        baud=f.number("baud", DEFAULT_BAUD, 1),
        model=f.text("model"),
        flasher=flasher,
        answer_s=f.number("answer_s", 0),
        study_keys=f.words("study_keys"),
        timebase=f.text("timebase"),
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
    for _, m in reg.items():
        if m.board not in reg:
            raise ConfigError(
                "machine", f"machine file {m.path}: board = {m.board!r}: no machine file of it"
            )
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


def models() -> dict[str, Machine]:
    """The machine models (files with a `flasher`), by name, in the registry's order."""
    return {m.name: m for m in MACHINES.values() if m.is_model}


def model_of(meta: Mapping[str, Any]) -> Machine | None:
    """The machine model a stored run was taken on: the one whose timebase and board its
    meta says (the RP2040 model's runs say board = "pico"); None for any other run."""
    for m in models().values():
        if meta.get("timebase") == m.timebase and meta.get("board") == m.board:
            return m
    return None


def timing_modes() -> dict[str, str]:
    """A multi-core timing mode a model's runs record (meta timing_mode) -> what it is."""
    return {str(m.get("timing_mode")): str(m.get("timing")) for m in models().values()
            if m.get("timing_mode")}  # fmt: skip
