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

from rtlab.lab import uf2
from rtlab.lab.rtos.base import RtosBuildError

# rtlab's board name -> Zephyr's board, and the module its SoC layer needs
BOARDS = {
    "nucleo-l073rz": "nucleo_l073rz",
    "nucleo-f103rb": "nucleo_f103rb",
    "nucleo-f411re": "nucleo_f411re",
    "nucleo-h743zi": "nucleo_h743zi",
    "pico": "rpi_pico",
}
HAL = {"pico": "hal_rpi_pico"}  # else hal_stm32
# What marks a checkout of each module (its zephyr/module.yml names it)
_MARK = {"hal_stm32": "stm32cube", "hal_rpi_pico": "src/rp2040"}


def hal_missing(board: str, modules: str) -> str | None:
    """None when ZEPHYR_MODULES (;-separated) holds the board's HAL module, else one line."""
    hal = HAL.get(board, "hal_stm32")
    for m in (Path(p) for p in modules.split(";") if p):
        if (m / _MARK[hal]).is_dir() and (m / "zephyr" / "module.yml").is_file():
            return None
    return (
        f"Zephyr's {BOARDS[board]} needs the {hal} module: add a checkout of "
        f"github.com/zephyrproject-rtos/{hal} (the revision in $ZEPHYR_BASE/west.yml) to "
        "ZEPHYR_MODULES, ;-separated"
    )


def args_header(words: list[str]) -> str:
    """rtb_zephyr_args.h for the options `words` (no quotes or backslashes: a C string)."""
    line = " ".join(words)
    if any(c in line for c in '"\\\n'):
        raise RtosBuildError(f"options built into a Zephyr image: no quotes, backslashes ({line})")
    return f'/* written by rtlab (zephyr_boards.py) */\n#define RTB_ZEPHYR_ARGS "{line}"\n'


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
    build's own): the ELF for a probe, the UF2 for the Pico (checked bootable)."""
    built = out / "zephyr"
    elf = out / f"rtbench-zephyr-{board}-{tag}.elf"
    shutil.copy2(built / "zephyr.elf", elf)
    if board != "pico":
        return elf
    data = (built / "zephyr.uf2").read_bytes()
    try:
        uf2.check_rp2040(uf2.read(data))
    except uf2.Uf2Error as e:
        raise RtosBuildError(f"Zephyr's Pico image is not bootable: {e}") from None
    image = elf.with_suffix(".uf2")
    image.write_bytes(data)
    return image
