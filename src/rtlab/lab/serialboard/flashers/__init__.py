"""Ways of putting an image on a board and starting it, one module each (like labgrid's
drivers): `openocd`, `pyocd`, `uf2`, `qemu` (an emulator: flashing it = starting it
with the image), `rp2040_model` (rtlab's RP2040 cycle model, models/rp2040) and `none`
(the board already runs the image; rtlab only reads).

A flasher is a class with the members of base.Flasher, named in its module's `FLASHER`;
adding one is a module plus one line in FLASHERS' table.
"""

from __future__ import annotations

from rtlab.lab.serialboard.flashers.base import Flasher
from rtlab.registry import Registry

FLASHERS: Registry[type[Flasher]] = Registry(
    "flasher",
    {
        "none": "rtlab.lab.serialboard.flashers.none",
        "qemu": "rtlab.lab.serialboard.flashers.qemu",
        "openocd": "rtlab.lab.serialboard.flashers.openocd",
        "pyocd": "rtlab.lab.serialboard.flashers.pyocd",
        "uf2": "rtlab.lab.serialboard.flashers.uf2",
        "rp2040_model": "rtlab.lab.serialboard.flashers.rp2040_model",
    },
    attr="FLASHER",
)

__all__ = ["FLASHERS", "Flasher"]
