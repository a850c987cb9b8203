"""How a serial board run fails: one exception each, one line each. Those raised
during a run are NothingRan: the run is dropped from the store, nothing of it kept."""

from __future__ import annotations

from rtlab.errors import NothingRan


class SerialBoardError(NothingRan):
    """A serial board cannot be flashed, opened or read."""


class BoardSilent(SerialBoardError):
    """Nothing (or nothing of the protocol) came from the board in time."""


class WrongImage(SerialBoardError):
    """The board answers with another board's or firmware's protocol meta."""


class ProbeMissing(SerialBoardError):
    """The flasher finds no debug probe (or no boot drive) to flash through."""


class FlashFailed(SerialBoardError):
    """The flasher ran and failed (openocd, pyocd, a copy)."""
