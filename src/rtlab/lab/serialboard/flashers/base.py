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
from typing import Any, Protocol

from rtlab.lab.serialboard.description import BoardDescription
from rtlab.lab.serialboard.errors import FlashFailed, SerialBoardError


class Flasher(Protocol):
    name: str
    # an emulator gives the image a command line (semihosting); a probe cannot: the image
    # runs the options built into it
    passes_args: bool
    gives_port: bool  # the port is the flasher's own (an emulator's socket): port()
    keys: tuple[str, ...]  # the spec keys it reads

    def __init__(self, board: BoardDescription, spec: Mapping[str, Any]) -> None: ...
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
