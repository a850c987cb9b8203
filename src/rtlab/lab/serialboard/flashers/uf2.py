"""The `uf2` flasher: the Raspberry Pi Pico's boot ROM. The user holds BOOTSEL while
plugging the Pico in; its boot drive mounts (label `RPI-RP2`, `RP2350` on a Pico 2: the
description's `uf2_drive`); copying a .uf2 image onto it writes flash and reboots the
Pico into the image, so the copy is both flash and reset.

The drive is looked for at /media/*/LABEL, /run/media/*/LABEL, /media/LABEL and
/mnt/LABEL (a mount point of your own: `uf2_drive = "/path"` in the spec). The Pico
leaves BOOTSEL when it reboots, so every run needs it put back (picotool reboots a Pico
into BOOTSEL only through an image's USB interface, which rtbench's images do not have);
its image waits two seconds before printing, time for the port to open.

The image is checked before the copy (rtlab.lab.uf2_format, uf2_rp2350): a malformed one, or
one the board's boot ROM would not run (the description's drive says which: RPI-RP2,
the RP2040's family, addresses and stage-2 CRC; RP2350, the Pico 2's family, addresses
and IMAGE_DEF), is one error naming the block, and nothing reaches the board.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import Machine
from rtlab.errors import ConfigError
from rtlab.lab import uf2_format as uf2
from rtlab.lab import uf2_rp2350
from rtlab.lab.serialboard.errors import FlashFailed, ProbeMissing, SerialBoardError
from rtlab.lab.serialboard.flashers.base import ProbeFlasher, described

# The boot ROM's rules by the drive's label (the board description's uf2_drive).
CHECKS = {"RPI-RP2": uf2.check_rp2040, "RP2350": uf2_rp2350.check_rp2350}
MOUNTS = ("/media/*/{label}", "/run/media/*/{label}", "/media/{label}", "/mnt/{label}")


class Uf2Flasher(ProbeFlasher):
    name = "uf2"
    keys = ("uf2_drive",)

    def __init__(self, board: Machine, spec: Mapping[str, Any]) -> None:
        given = spec.get("uf2_drive")
        if given is not None and (not isinstance(given, str) or not given):
            raise ConfigError("uf2_drive", "uf2_drive: expected the boot drive's mount point")
        if given is None:
            described(board, board.uf2_drive, "uf2_drive", "RPI-RP2")  # the drive's label
        super().__init__(board, spec)
        self.given = given
        self.label = board.uf2_drive or Path(str(given)).name

    def drive(self) -> Path:
        candidates = [self.given] if self.given else []
        for pattern in MOUNTS:
            candidates += sorted(glob.glob(pattern.format(label=self.label)))
        for c in candidates:
            if c and (Path(c) / "INFO_UF2.TXT").is_file():
                return Path(c)
        raise ProbeMissing(
            f"no {self.label} boot drive mounted for board {self.board.board}: hold BOOTSEL "
            f"while plugging it in (it mounts at /media/$USER/{self.label}), or set "
            "uf2_drive to its mount point"
        )

    def check(self) -> None:
        self.drive()

    def flash(self, image: Path, words: Sequence[str]) -> None:
        if image.suffix.lower() != ".uf2":
            raise SerialBoardError(
                f"the uf2 flasher copies a .uf2 image, not {image.name} (the Pico build "
                "writes one beside its ELF)"
            )
        try:
            blocks = uf2.read(image.read_bytes())
            CHECKS.get(self.board.uf2_drive or self.label, uf2.check)(blocks)
        except (OSError, uf2.Uf2Error) as e:
            what = f"{image.name} is not an image for board {self.board.board}"
            raise SerialBoardError(f"{what}: {e}") from None
        target = self.drive() / image.name
        try:
            shutil.copyfile(image, target)
            os.sync()  # the boot ROM reboots when the last block lands
        except OSError as e:
            raise FlashFailed(f"copying {image.name} to {target.parent}: {e}") from None

    # reset: the copy rebooted the Pico into the image

    def describe(self) -> dict[str, Any]:
        return {"flasher": "uf2", "uf2_drive": self.label}


FLASHER = Uf2Flasher
