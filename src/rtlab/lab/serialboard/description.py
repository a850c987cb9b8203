"""The board a serial target reads: a machine (rtlab.catalog.machines.Machine), one of
the rtbench board layers' machine files by name, or any TOML file a spec names by path
read the same way (the keys and their defaults are the machine registry's: how the
serial target reaches a board is `qemu_machine`, `qemu_serial`, `openocd_config`,
`pyocd_target`, `uf2_drive`, `model` and `baud`). So a new board, emulated or real, is
one more file, not code.
"""

from __future__ import annotations

from pathlib import Path

from rtlab.catalog.machines import MACHINES, Machine, read_machine
from rtlab.errors import ConfigError


def known_boards() -> dict[str, Path]:
    """Every board of the rtbench board layers, by the name its images say (the machine
    registry's machines but the models, which run another board's images)."""
    return {m.name: m.path for m in MACHINES.values() if m.board == m.name}


def board_description(board: str) -> Machine:
    """A board by name (the board layers' files) or by the path of its TOML file."""
    if board.endswith(".toml"):
        path = Path(board)
        if not path.is_file():
            raise ConfigError("board", f"board = {board!r}: no such file")
        return read_machine(path, "board", "board description")
    known = known_boards()
    if board not in known:
        raise ConfigError(
            "board",
            f"board = {board!r}: no board description; known: {', '.join(known) or 'none'}"
            " (or give the path of a .toml description)",
        )
    return MACHINES.get(board)
