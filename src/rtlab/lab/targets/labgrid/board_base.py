"""What rtlab asks of the board behind a place, whichever labgrid driver reaches it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.lab.targets.base import Background, Completed, Group


class Board:
    kind = ""

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
