"""rtbench on Zephyr's own MCU boards, for the serial target: the STM32 study's Nucleos
(hal_stm32) and the Raspberry Pi Pico (hal_rpi_pico), each module a checkout the user
brings in ZEPHYR_MODULES beside cmsis. The board's devicetree sets the clock tree and
the console UART; ports/zephyr/upstream adds the counter, the software-interrupt lines
and the marker pin. A probe passes no command line, so the options are built into the
image (rtb_zephyr_args.h, rewritten per option set: one source recompiles).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from rtlab.catalog.machines import MACHINES
from rtlab.catalog.rtoses import overlay, setting
from rtlab.fsutil import atomic_path
from rtlab.lab import uf2_format as uf2
from rtlab.lab.boards.uf2_image import WRITERS
from rtlab.lab.rtos.base import RtosBuildError


def hal_missing(board: str, modules: str) -> str | None:
    """None when ZEPHYR_MODULES (;-separated) holds the HAL module the board's SoC layer
    needs (its overlay's zephyr_hal, else the port.toml's), else one line. A checkout
    is known by its zephyr/module.yml and the folder its zephyr_hal_mark names."""
    hal = setting("zephyr", board, "zephyr_hal")
    mark = setting("zephyr", board, "zephyr_hal_mark")
    zboard = overlay("zephyr", board).get("zephyr_board", board)
    for checkout in (Path(p) for p in modules.split(";") if p):
        if (checkout / mark).is_dir() and (checkout / "zephyr" / "module.yml").is_file():
            return None
    return (
        f"Zephyr's {zboard} needs the {hal} module: add a checkout of "
        f"github.com/zephyrproject-rtos/{hal} (the revision in $ZEPHYR_BASE/west.yml) to "
        "ZEPHYR_MODULES, ;-separated"
    )


def args_header(words: list[str]) -> str:
    """rtb_zephyr_args.h for the options `words` (no quotes or backslashes: a C string)."""
    line = " ".join(words)
    if any(c in line for c in '"\\\n'):
        raise RtosBuildError(f"options built into a Zephyr image: no quotes, backslashes ({line})")
    return f'/* written by rtlab (zephyr/boards.py) */\n#define RTB_ZEPHYR_ARGS "{line}"\n'


def write_args(out: Path, words: list[str]) -> str:
    """Writes the header into the build (only when it changes: ninja then recompiles one
    source) and returns the option set's tag."""
    text = args_header(words)
    header = out / "rtb_args" / "rtb_zephyr_args.h"
    header.parent.mkdir(parents=True, exist_ok=True)
    if not header.is_file() or header.read_text() != text:
        header.write_text(text)
    return hashlib.sha256(" ".join(words).encode()).hexdigest()[:8]


def image_of(out: Path, board: str, tag: str) -> Path:
    """A copy of the build's image for this option set (the next build overwrites the
    build's own): the ELF for a probe, the UF2 for a board that takes UF2 images (its
    machine file's uf2_drive), checked as its chip's boot ROM would."""
    built = out / "zephyr"
    elf = out / f"rtbench-zephyr-{board}-{tag}.elf"
    with atomic_path(elf) as part:  # renamed in: a parallel run may be loading it
        shutil.copy2(built / "zephyr.elf", part)
    m = MACHINES.get(board)
    if not m.get("uf2_drive"):
        return elf
    data = (built / "zephyr.uf2").read_bytes()
    try:
        WRITERS[m.chip][1](uf2.read(data))
    except uf2.Uf2Error as e:
        raise RtosBuildError(f"Zephyr's {board} image is not bootable: {e}") from None
    image = elf.with_suffix(".uf2")
    with atomic_path(image) as part:
        part.write_bytes(data)
    return image
