"""What rtlab asks of the board behind a place, whichever labgrid driver reaches it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.lab.targets.base import Background, Completed, Group


class Board:
    kind = ""
    target: Any = None  # labgrid's Target of the role (its drivers and resources)

    def describe(self) -> dict[str, Any]:
        raise NotImplementedError

    def program(self, name: str, programs: Mapping[str, str], elf: str | None) -> str:
        return str(programs.get(name, name))

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        raise NotImplementedError

    def start(self, argv: Sequence[str]) -> Background:
        return Group(argv)

    def fingerprint(self) -> dict[str, Any]:
        raise NotImplementedError

    def abort(self) -> None:
        """Stop the run in progress (another thread asks: Ctrl-C in a parallel run)."""

    def close(self) -> None:
        """Leave the board as labgrid expects it (drivers deactivated)."""


def firmware_program(name: str, programs: Mapping[str, str], elf: str | None) -> str:
    """An MCU's (or emulated board's) image for a workload program: programs.<name>,
    else the spec's elf, else the workload's own argv[0]."""
    if name in programs:
        return str(programs[name])
    return str(elf) if elf else name
