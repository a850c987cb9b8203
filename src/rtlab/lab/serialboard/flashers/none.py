"""The `none` flasher: the board already runs its image (flashed by hand, or by another
tool); rtlab opens the port and reads. It cannot reset the board, so the image must
start its output when the port is open (the board layers wait two seconds at start-up,
or press reset after `rtlab run` starts)."""

from __future__ import annotations

from rtlab.lab.serialboard.flashers.base import ProbeFlasher


class NoFlasher(ProbeFlasher):
    name = "none"


FLASHER = NoFlasher
