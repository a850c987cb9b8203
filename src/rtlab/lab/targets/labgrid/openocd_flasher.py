"""labgrid's OpenOCDDriver as a serial board's flasher: OpenOCD on the exporter's debug
probe (a USBDebugger resource: an ST-LINK, a CMSIS-DAP probe), run by labgrid as a lab's
own tools run it. The steps are the `openocd` flasher's (program + verify, the core left
halted; `reset run` once the port is open); a probe the exporter does not have, or one
OpenOCD cannot open, is ProbeMissing at open, before any run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rtlab.lab.serialboard.errors import FlashFailed, ProbeMissing
from rtlab.lab.serialboard.flashers.base import ProbeFlasher, last_error
from rtlab.lab.serialboard.flashers.openocd import NO_PROBE


class LabgridOpenOcdFlasher(ProbeFlasher):
    name = "openocd"

    def __init__(self, target: Any, place: str) -> None:
        # no board description needed: the OpenOCDDriver's own configuration says it all
        self.target = target
        self.place = place
        self.driver = target.get_driver("OpenOCDDriver", activate=False)
        self._said = ""

    def _run(self, what: str, step: Any) -> None:
        from labgrid.util.helper import ExecutionError

        try:
            step()
        except ExecutionError as e:
            said = "\n".join([*(e.stdout or []), *(e.stderr or [])]) or str(e)
            self._said = said
            if NO_PROBE.search(said):
                raise ProbeMissing(
                    f"labgrid place {self.place}: openocd finds no debug probe "
                    f"({last_error(said)}); is the board plugged in at the exporter?"
                ) from None
            raise FlashFailed(f"labgrid place {self.place}: {what}: {last_error(said)}") from None

    def check(self) -> None:
        try:
            self.target.activate(self.driver)
        except Exception as e:  # labgrid: the exporter has no such probe now
            missing = getattr(e, "filter", None) or ()
            what = ", ".join(sorted(f"{type(r).__name__} {r.name}" for r in missing))
            raise ProbeMissing(
                f"labgrid place {self.place}: its debug probe is not available at the "
                f"exporter ({what or type(e).__name__} for the OpenOCDDriver); is the "
                "board plugged in?"
            ) from None
        self._run("openocd", lambda: self.driver.execute(["init", "shutdown"]))

    def flash(self, image: Path, words: Sequence[str]) -> None:
        self.driver.load_commands = ["init", "program {filename} verify", "shutdown"]
        self._run("flashing", lambda: self.driver.load(str(image)))

    def reset(self) -> None:
        self._run("reset", lambda: self.driver.execute(["init", "reset run", "shutdown"]))

    def describe(self) -> dict[str, Any]:
        return {"flasher": "openocd", "via": "labgrid OpenOCDDriver"}
