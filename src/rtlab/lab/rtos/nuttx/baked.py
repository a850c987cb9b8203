"""Builds rtbench on NuttX SMP for the Raspberry Pi Pico: NuttX's own raspberrypi-pico
board (both cores, UART0 console), the rtbench app with the options built in (a real
board has no command line), and the UF2 written by rtlab.lab.uf2_format. The Pico 2 the same
way on NuttX's raspberrypi-pico-2 board (rp23xx, one core), which needs no pico-sdk
(its linker script carries the IMAGE_DEF): its UF2 by rtlab.lab.uf2_rp2350.

What NuttX takes from the pico-sdk (PICO_SDK_PATH): only boot stage 2, assembled from
src/rp2040/boot_stage2/boot2_w25q080.S with the SDK's register and platform headers
(arch/arm/src/rp2040/boot2/Make.defs); without the SDK NuttX silently links a flash
image with no stage 2, which the boot ROM does not run. That build touches and deletes
files inside the SDK (pico/version.h, pico/config_autogen.h), so it gets a copy of those
folders in its build tree, never the user's SDK. NuttX's own UF2 step needs picotool on
PATH (or builds it from the SDK over the network): it is off, rtlab writes the UF2.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
from pathlib import Path

from rtlab.catalog.machines import MACHINES
from rtlab.fsutil import atomic_path
from rtlab.lab import uf2_format as uf2
from rtlab.lab.boards.pico_sdk import copy_boot_stage2, sdk_path
from rtlab.lab.boards.uf2_image import WRITERS
from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.nuttx.build import (
    BUILD_ROOT,
    Core,
    Trees,
    configure,
    copy_trees,
    drop_objects,
    fragments,
    git_head,
    kernel_identity,
    need_host_tools,
    run_make,
    sync_app,
)

SDK_COPY = "pico-sdk"  # the build tree's copy of the SDK's stage 2 sources


def args_header(words: list[str]) -> str:
    line = " ".join(words)
    if any(c in line for c in '"\\\n'):
        raise RtosBuildError(f"options for the Pico image: no quotes or backslashes ({line})")
    head = "/* written by rtlab (nuttx/baked.py): the options this image runs */\n"
    return f'{head}#define RTB_PICO_ARGS "{line}"\n'


def build_nuttx_baked(
    core: Core, config: str, trees: Trees, paths: dict[str, str], words: list[str], board: str
) -> Path:
    """The UF2 of rtbench on NuttX for a baked board (`board`, on NuttX's own board for
    it: `core`), running `words`; cached (an option change relinks the app only). The
    ELF lies beside it. A board whose images are built on the pico-sdk (its machine
    file's pico_sdk) takes boot stage 2 from it."""
    for f in fragments(core, config):
        if not f.is_file():
            raise RtosBuildError(f"NuttX configuration {config!r}/{board}: no {f.name}")
    need_host_tools()
    m = MACHINES.get(board)
    sdk = sdk_path(paths) if m.pico_sdk else None
    h = hashlib.sha256(
        (kernel_identity(trees) + (f" {sdk}@{git_head(sdk)}" if sdk else "")).encode()
    )
    for f in fragments(core, config):
        h.update(f.read_bytes())
    out = BUILD_ROOT / f"{config}-{board}-{h.hexdigest()[:10]}"
    out.mkdir(parents=True, exist_ok=True)
    tag = hashlib.sha256(" ".join(words).encode()).hexdigest()[:8]
    image = out / f"rtbench-nuttx-{board}-{tag}.uf2"
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests wait for one build
        copy_trees(trees, out)
        make = ["-j2", "CROSSDEV=arm-none-eabi-"]
        if sdk:
            copy_boot_stage2(sdk, out / SDK_COPY)
            make.append(f"PICO_SDK_PATH={out / SDK_COPY}")
        changed = sync_app(out / "apps")
        header = out / "apps" / "external" / "rtbench" / "rtb_pico_args.h"
        text = args_header(words)
        if changed or not header.is_file() or header.read_text() != text:
            header.write_text(text)
            drop_objects(out / "apps" / "external")
        configure(core, config, out)  # NuttX's own board (the overlay's nuttx_own_board)
        run_make(out / "nuttx", make, "build")
        elf = image.with_suffix(".elf")
        with atomic_path(elf) as part:  # renamed in: a parallel run may be loading it
            shutil.copy2(out / "nuttx" / "nuttx", part)
        with atomic_path(image) as part:
            part.write_bytes(_bootable_uf2(elf, board, m.chip))
    return image


def _bootable_uf2(elf: Path, board: str, chip: str) -> bytes:
    """The UF2 of the ELF, checked as the board's boot ROM (its machine file's chip) would."""
    from_elf, check = WRITERS[chip]
    data = from_elf(elf)
    try:
        check(uf2.read(data))
    except uf2.Uf2Error as e:
        raise RtosBuildError(f"NuttX's {board} image is not bootable: {e}") from None
    return data
