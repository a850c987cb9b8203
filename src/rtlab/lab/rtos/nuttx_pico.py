"""Builds rtbench on NuttX SMP for the Raspberry Pi Pico: NuttX's own raspberrypi-pico
board (both cores, UART0 console), the rtbench app with the options built in (a real
board has no command line), and the UF2 written by rtlab.lab.uf2. The Pico 2 the same
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

from rtlab.fsutil import atomic_path
from rtlab.lab import uf2, uf2_rp2350
from rtlab.lab.boards.pico_sdk import sdk_path
from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.nuttx_build import (
    BUILD_ROOT,
    Trees,
    _configure,
    _copy_trees,
    _drop_objects,
    _make,
    _sync_app,
    fragments,
    git_head,
    kernel_identity,
    need_host_tools,
)

# The SDK folders boot2/Make.defs reads (pico_platform: SDK < 2.2.0, _common: >= 2.2.0).
SDK_PARTS = (
    "src/rp2040/boot_stage2",
    "src/rp2040/hardware_regs/include",
    "src/rp2_common/hardware_base/include",
    "src/common/pico_base_headers/include",
    "src/boards/include",
    "src/rp2040/pico_platform/include",
    "src/rp2_common/pico_platform_common/include",
    "src/rp2_common/pico_platform_compiler/include",
    "src/rp2_common/pico_platform_sections/include",
    "src/rp2_common/pico_platform_panic/include",
)
# NuttX before 10.3 (the STM32 study's 10.1.0) reads pico-sdk 1.x's layout: the same
# folders under their old names (several of 2.x's merged into one).
SDK_1X_NAMES = {
    "src/rp2_common/boot_stage2": ("src/rp2040/boot_stage2",),
    "src/common/pico_base/include": ("src/common/pico_base_headers/include",),
    "src/rp2_common/pico_platform/include": (
        "src/rp2040/pico_platform/include",
        "src/rp2_common/pico_platform_common/include",
        "src/rp2_common/pico_platform_compiler/include",
        "src/rp2_common/pico_platform_sections/include",
        "src/rp2_common/pico_platform_panic/include",
    ),
}


def args_header(words: list[str]) -> str:
    line = " ".join(words)
    if any(c in line for c in '"\\\n'):
        raise RtosBuildError(f"options for the Pico image: no quotes or backslashes ({line})")
    head = "/* written by rtlab (nuttx_pico.py): the options this image runs */\n"
    return f'{head}#define RTB_PICO_ARGS "{line}"\n'


def build_nuttx_pico(
    config: str, trees: Trees, paths: dict[str, str], words: list[str], board: str = "pico"
) -> Path:
    """The UF2 of rtbench on NuttX for the Pico (SMP) or the Pico 2 (`board`), running
    `words`; cached (an option change relinks the app only). The ELF lies beside it."""
    for f in fragments(board, config):
        if not f.is_file():
            raise RtosBuildError(f"NuttX configuration {config!r}/{board}: no {f.name}")
    need_host_tools()
    sdk = sdk_path(paths) if board == "pico" else None  # stage 2: the RP2040 only
    h = hashlib.sha256(
        (kernel_identity(trees) + (f" {sdk}@{git_head(sdk)}" if sdk else "")).encode()
    )
    for f in fragments(board, config):
        h.update(f.read_bytes())
    out = BUILD_ROOT / f"{config}-{board}-{h.hexdigest()[:10]}"
    out.mkdir(parents=True, exist_ok=True)
    tag = hashlib.sha256(" ".join(words).encode()).hexdigest()[:8]
    image = out / f"rtbench-nuttx-{board}-{tag}.uf2"
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests wait for one build
        _copy_trees(trees, out)
        make = ["-j2", "CROSSDEV=arm-none-eabi-"]
        if sdk:
            _copy_sdk(sdk, out / "pico-sdk")
            make.append(f"PICO_SDK_PATH={out / 'pico-sdk'}")
        changed = _sync_app(out / "apps")
        header = out / "apps" / "external" / "rtbench" / "rtb_pico_args.h"
        text = args_header(words)
        if changed or not header.is_file() or header.read_text() != text:
            header.write_text(text)
            _drop_objects(out / "apps" / "external")
        _configure(board, config, out)  # NuttX's own board (nuttx_build.OWN_BOARD)
        _make(out / "nuttx", make, "build")
        elf = image.with_suffix(".elf")
        with atomic_path(elf) as part:  # renamed in: a parallel run may be loading it
            shutil.copy2(out / "nuttx" / "nuttx", part)
        with atomic_path(image) as part:
            part.write_bytes(_bootable_uf2(elf, board))
    return image


def _bootable_uf2(elf: Path, board: str) -> bytes:
    """The UF2 of the ELF, checked as the board's boot ROM would."""
    rp2040 = board == "pico"
    data = uf2.from_elf(elf) if rp2040 else uf2_rp2350.from_elf(elf)
    try:
        (uf2.check_rp2040 if rp2040 else uf2_rp2350.check_rp2350)(uf2.read(data))
    except uf2.Uf2Error as e:
        title = "Pico" if rp2040 else "Pico 2"
        raise RtosBuildError(f"NuttX's {title} image is not bootable: {e}") from None
    return data


def _copy_sdk(sdk: Path, dst: Path) -> None:
    if (dst / ".copied").is_file():
        return
    shutil.rmtree(dst, ignore_errors=True)
    for part in SDK_PARTS:
        if (sdk / part).is_dir():
            shutil.copytree(sdk / part, dst / part, symlinks=True)
    for old, parts in SDK_1X_NAMES.items():
        for part in parts:
            if not (sdk / old).exists() and (sdk / part).is_dir():
                shutil.copytree(sdk / part, dst / old, symlinks=True, dirs_exist_ok=True)
    old_base = dst / "src/common/pico_base/include/pico"
    if not (sdk / "src/common/pico_base").exists() and old_base.is_dir():
        for name in ("version.h", "config_autogen.h"):  # what newer NuttX touches itself
            (old_base / name).touch()
    (dst / ".copied").write_text(f"{sdk}\n")
