"""The `pyocd` flasher: pyOCD (PyPI: `pip install pyocd`, not a dependency of rtlab)
through a CMSIS-DAP, ST-LINK or J-Link probe. The board description names the target
(`pyocd_target = "stm32f411re"`; `pyocd pack install` brings targets pyOCD lacks).

flash = `pyocd load --no-reset` (pyOCD 0.35 or later), reset = `pyocd reset` once the
port is open. A probe that is not there is found at open: `pyocd list` lists none.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import Machine
from rtlab.lab.serialboard.errors import FlashFailed, ProbeMissing
from rtlab.lab.serialboard.flashers.base import (
    ProbeFlasher,
    described,
    last_error,
    need_tool,
    run_tool,
)


class PyOcdFlasher(ProbeFlasher):
    name = "pyocd"

    def __init__(self, board: Machine, spec: Mapping[str, Any]) -> None:
        super().__init__(board, spec)
        self.target = described(board, board.pyocd_target, "pyocd_target", "stm32f411re")

    def check(self) -> None:
        need_tool("pyocd", "pip install pyocd (PyPI; not installed with rtlab)")
        try:
            proc = subprocess.run(
                ["pyocd", "list", "--probes"],
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise FlashFailed("pyocd list did not finish in 60 s") from None
        said = proc.stdout + proc.stderr
        if proc.returncode != 0:
            raise FlashFailed(f"pyocd list failed: {last_error(said)}")
        if "no available debug probes" in said.lower():
            raise ProbeMissing(
                f"pyocd finds no debug probe for board {self.board.board}: is it plugged in, "
                "and may this user open it (pyOCD's udev rules)?"
            )

    def flash(self, image: Path, words: Sequence[str]) -> None:
        argv = ["pyocd", "load", "-t", self.target, "--no-reset", str(image)]
        self._said = run_tool(argv, "flashing")

    def reset(self) -> None:
        self._said = run_tool(["pyocd", "reset", "-t", self.target], "reset")

    def describe(self) -> dict[str, Any]:
        return {"flasher": "pyocd", "pyocd_target": self.target}


FLASHER = PyOcdFlasher
