"""The `none` flasher: the board already runs its image (flashed by hand, or by another
tool); rtlab opens the port and reads. It cannot reset the board, so the image must
start its output when the port is open (the board layers wait two seconds at start-up,
or press reset after `rtlab run` starts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rtlab.lab.serialboard.description import BoardDescription


class NoFlasher:
    name = "none"
    passes_args = False
    gives_port = False
    keys: tuple[str, ...] = ()

    def __init__(self, board: BoardDescription, spec: Mapping[str, Any]) -> None:
        self.board = board

    def check(self) -> None:
        pass

    def flash(self, image: Path, words: Sequence[str]) -> None:
        pass

    def port(self) -> str | None:
        return None

    def reset(self) -> None:
        pass

    def finish(self) -> int | None:
        return None

    def labels(self, extra: Mapping[str, object]) -> dict[str, object]:
        return dict(extra)

    def notes(self) -> str:
        return ""

    def describe(self) -> dict[str, Any]:
        return {"flasher": "none"}

    def abort(self) -> None:
        pass


FLASHER = NoFlasher
