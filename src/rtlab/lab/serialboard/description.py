"""What rtlab knows of a board it reads over a serial port: a board description.

Board descriptions are the rtbench board layers' machine files,
`workloads/rtbench/boards/<family>/machines/<name>.toml` (the keys the C build reads
are in boards/cmake/board_description.cmake), or any TOML file a spec names by path.
The serial target reads these keys, all optional but the name:

    board = "nucleo-f411re"        # what the image's `meta board=` says; default: machine
    qemu_machine = "netduinoplus2"  # an emulator that runs the image (the `qemu` flasher)
    qemu_serial = 1                # which of QEMU's -serial's the protocol UART is (USART2)
    openocd_config = "board/st_nucleo_f4.cfg"   # -f files, space-separated
    pyocd_target = "stm32f411re"
    uf2_drive = "RPI-RP2"          # the boot drive's label (RP2350 on a Pico 2)
    model = "rp2040"               # a board model that runs its images (rp2040_model flasher)
    baud = 115200

So a new board, emulated or real, is one more file, not code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtlab.catalog.machines import MACHINES, named_table
from rtlab.errors import ConfigError


@dataclass(frozen=True)
class BoardDescription:
    name: str  # the image's `meta board=`
    source: str  # the file it came from
    qemu_machine: str | None = None
    qemu_serial: int = 0
    openocd_config: tuple[str, ...] = ()
    pyocd_target: str | None = None
    uf2_drive: str | None = None
    baud: int = 115200
    model: str | None = None


def _from_toml(path: Path) -> BoardDescription:
    name, data = named_table(path, "board", "board description")
    serial = data.get("qemu_serial", 0)
    baud = data.get("baud", 115200)
    if not isinstance(serial, int) or not 0 <= serial <= 7:
        raise ConfigError("board", f"board description {path}: qemu_serial: expected 0..7")
    if not isinstance(baud, int) or baud <= 0:
        raise ConfigError("board", f"board description {path}: baud: expected a positive integer")
    qemu = data.get("qemu_machine")
    return BoardDescription(
        name=name,
        source=str(path),
        qemu_machine=qemu,
        qemu_serial=serial,
        openocd_config=tuple(str(data.get("openocd_config", "")).split()),
        pyocd_target=data.get("pyocd_target"),
        uf2_drive=data.get("uf2_drive"),
        baud=baud,
        model=data.get("model"),
    )


def known_boards() -> dict[str, Path]:
    """Every board of the rtbench board layers, by the name its images say (the machine
    registry, rtlab.catalog.machines)."""
    return {m.name: m.path for m in MACHINES.values()}


def board_description(board: str) -> BoardDescription:
    """A board by name (the board layers' files) or by the path of its TOML file."""
    if board.endswith(".toml"):
        path = Path(board)
        if not path.is_file():
            raise ConfigError("board", f"board = {board!r}: no such file")
        return _from_toml(path)
    known = known_boards()
    if board not in known:
        raise ConfigError(
            "board",
            f"board = {board!r}: no board description; known: {', '.join(known) or 'none'}"
            " (or give the path of a .toml description)",
        )
    return _from_toml(known[board])
