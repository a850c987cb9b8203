"""What every flasher offers the serial board (rtlab.lab.serialboard.board).

A run goes: `flash(image, words)` (write the image; a probe leaves the core halted, an
emulator waits for its port to be opened), the port is opened, `reset()` (run from reset
now that every byte will be read), the output is read, `finish()` (an emulator's exit
status; whatever the flasher started is stopped).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

from rtlab.catalog.machines import Machine
from rtlab.errors import ConfigError
from rtlab.lab.serialboard.errors import FlashFailed, SerialBoardError


class Flasher(Protocol):
    name: ClassVar[str]  # the FLASHERS registry holds the classes
    # an emulator gives the image a command line (semihosting); a probe cannot: the image
    # runs the options built into it
    passes_args: bool
    gives_port: bool  # the port is the flasher's own (an emulator's socket): port()
    keys: tuple[str, ...]  # the spec keys it reads

    def __init__(self, board: Machine, spec: Mapping[str, Any]) -> None: ...
    def check(self) -> None:
        """At target open, before any run: the tool and the probe (or drive) are there."""

    def flash(self, image: Path, words: Sequence[str]) -> None: ...
    def port(self) -> str | None:
        """The serial URL this flasher provides (an emulator's socket), else None."""

    def reset(self) -> None: ...
    def finish(self) -> int | None: ...
    def labels(self, extra: Mapping[str, object]) -> dict[str, object]:
        """The meta every run's output gets (an emulator: its icount model)."""

    def notes(self) -> str:
        """What the flasher's tool said last (for an error message), or ""."""

    def describe(self) -> dict[str, Any]: ...
    def abort(self) -> None: ...
    def module_port(self) -> str | None:
        """The serial URL of the capture module it wires to the board (rp2040_model's
        capture_module: `[instrument] port = "place"`), else None."""

    def close(self) -> None:
        """At target close: stop what outlives a run (an emulator kept between runs)."""


class ProbeFlasher:
    """What a flasher of a real board does unless it says otherwise: no command line for
    the image, no port of its own, nothing to reset or stop, no labels; `_said` keeps
    what its tool said last (for an error message)."""

    name: ClassVar[str] = ""
    passes_args = False
    gives_port = False
    keys: tuple[str, ...] = ()

    def __init__(self, board: Machine, spec: Mapping[str, Any]) -> None:
        self.board = board
        self._said = ""

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

    def module_port(self) -> str | None:
        return None

    def close(self) -> None:
        pass

    def notes(self) -> str:
        return last_error(self._said) if self._said else ""

    def describe(self) -> dict[str, Any]:
        return {"flasher": self.name}

    def abort(self) -> None:
        pass


def described(board: Machine, value: str | None, key: str, example: str) -> str:
    """A value the flasher needs from the board description, or one ConfigError."""
    if not value:
        raise ConfigError(
            "flasher",
            f"board {board.board}: its description ({board.source}) names no {key} "
            f"(e.g. {key} = {example!r})",
        )
    return value


def need_tool(tool: str, install: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise SerialBoardError(f"{tool} not found: {install}")
    return path


def run_tool(argv: Sequence[str], what: str, timeout: float = 120) -> str:
    """Runs a flashing tool to completion; FlashFailed with its last error line."""
    try:
        proc = subprocess.run(
            list(argv), capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        raise FlashFailed(f"{what}: {argv[0]} did not finish within {timeout:.0f} s") from None
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise FlashFailed(f"{what}: {Path(argv[0]).name} failed: {last_error(out)}")
    return out


def last_error(output: str) -> str:
    """The tool's last line saying Error (else its last line)."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()]
    return ((errors or lines or ["no output"])[-1])[:300]
