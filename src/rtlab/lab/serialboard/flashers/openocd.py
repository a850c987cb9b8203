"""The `openocd` flasher: OpenOCD (the Debian package) through the board's debug probe
(an ST-LINK on a Nucleo, a CMSIS-DAP probe, a Picoprobe). The board description names
the configuration (`openocd_config = "board/st_nucleo_f4.cfg"`, -f files).

flash = `program IMAGE verify` (the core is left halted after its reset init), reset =
`reset run` once rtlab's port is open, so the first byte of the run is read. A probe that
is not there is found at open, before any run: OpenOCD starts and says it cannot open
the adapter, which becomes one ProbeMissing line.
"""

from __future__ import annotations

import re
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

# What OpenOCD 0.12 says when the adapter is not plugged in (ST-LINK, CMSIS-DAP, J-Link,
# FTDI): "Error: open failed", "unable to find a matching CMSIS-DAP device", ...
NO_PROBE = re.compile(
    r"open failed|unable to (?:open|find a matching)|no device found|"
    r"No J-Link|can't find|not found.*(?:adapter|probe)|LIBUSB_ERROR_(?:NO_DEVICE|ACCESS)",
    re.I,
)


class OpenOcdFlasher(ProbeFlasher):
    name = "openocd"

    def __init__(self, board: Machine, spec: Mapping[str, Any]) -> None:
        super().__init__(board, spec)
        described(board, " ".join(board.openocd_config), "openocd_config", "board/st_nucleo_f4.cfg")

    def argv(self, *commands: str) -> list[str]:
        files = [a for cfg in self.board.openocd_config for a in ("-f", cfg)]
        return ["openocd", *files, *(a for c in commands for a in ("-c", c))]

    def check(self) -> None:
        need_tool("openocd", "apt-get install openocd (deps/apt.txt)")
        try:
            proc = subprocess.run(
                self.argv("init", "shutdown"),
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise FlashFailed(f"openocd did not reach board {self.board.board} in 60 s") from None
        said = proc.stdout + proc.stderr
        if proc.returncode == 0:
            return
        cfg = " ".join(self.board.openocd_config)
        if NO_PROBE.search(said):
            raise ProbeMissing(
                f"openocd finds no debug probe for board {self.board.board} ({cfg}): "
                f"{last_error(said)}; is the board plugged in, and may this user open it "
                "(the openocd package's udev rules)?"
            )
        raise FlashFailed(
            f"openocd cannot reach board {self.board.board} ({cfg}): {last_error(said)}"
        )

    def flash(self, image: Path, words: Sequence[str]) -> None:
        self._said = run_tool(self.argv(f"program {image} verify", "shutdown"), "flashing")

    def reset(self) -> None:
        self._said = run_tool(self.argv("init", "reset run", "shutdown"), "reset")

    def describe(self) -> dict[str, Any]:
        return {"flasher": "openocd", "openocd_config": list(self.board.openocd_config)}


FLASHER = OpenOcdFlasher
