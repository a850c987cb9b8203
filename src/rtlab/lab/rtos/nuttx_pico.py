"""Builds rtbench on NuttX SMP for the Raspberry Pi Pico: NuttX's own raspberrypi-pico
board (both cores, UART0 console), the rtbench app with the options built in (a real
board has no command line), and the UF2 written by rtlab.lab.uf2.

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

from rtlab.lab import uf2
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
from rtlab.lab.rtos.pico_sdk import sdk_path

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


def args_header(words: list[str]) -> str:
    line = " ".join(words)
    if any(c in line for c in '"\\\n'):
        raise RtosBuildError(f"options for the Pico image: no quotes or backslashes ({line})")
    head = "/* written by rtlab (nuttx_pico.py): the options this image runs */\n"
    return f'{head}#define RTB_PICO_ARGS "{line}"\n'


def build_nuttx_pico(config: str, trees: Trees, paths: dict[str, str], words: list[str]) -> Path:
    """The UF2 of rtbench on NuttX SMP for the Pico, running `words`; cached (an option
    change relinks the app only). The ELF lies beside it."""
    for f in fragments("pico", config):
        if not f.is_file():
            raise RtosBuildError(f"NuttX configuration {config!r}/pico: no {f.name}")
    need_host_tools()
    sdk = sdk_path(paths)
    h = hashlib.sha256((kernel_identity(trees) + f" {sdk}@{git_head(sdk)}").encode())
    for f in fragments("pico", config):
        h.update(f.read_bytes())
    out = BUILD_ROOT / f"{config}-pico-{h.hexdigest()[:10]}"
    out.mkdir(parents=True, exist_ok=True)
    tag = hashlib.sha256(" ".join(words).encode()).hexdigest()[:8]
    image = out / f"rtbench-nuttx-pico-{tag}.uf2"
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests wait for one build
        _copy_trees(trees, out)
        _copy_sdk(sdk, out / "pico-sdk")
        changed = _sync_app(out / "apps")
        header = out / "apps" / "external" / "rtbench" / "rtb_pico_args.h"
        text = args_header(words)
        if changed or not header.is_file() or header.read_text() != text:
            header.write_text(text)
            _drop_objects(out / "apps" / "external")
        _configure("pico", config, out)  # NuttX's own board (nuttx_build.OWN_BOARD)
        sdk_var = f"PICO_SDK_PATH={out / 'pico-sdk'}"
        _make(out / "nuttx", ["-j2", "CROSSDEV=arm-none-eabi-", sdk_var], "build")
        elf = image.with_suffix(".elf")
        shutil.copy2(out / "nuttx" / "nuttx", elf)
        data = uf2.from_elf(elf)
        try:
            uf2.check_rp2040(uf2.read(data))
        except uf2.Uf2Error as e:
            raise RtosBuildError(f"NuttX's Pico image is not bootable: {e}") from None
        image.write_bytes(data)
    return image


def _copy_sdk(sdk: Path, dst: Path) -> None:
    if (dst / ".copied").is_file():
        return
    shutil.rmtree(dst, ignore_errors=True)
    for part in SDK_PARTS:
        if (sdk / part).is_dir():
            shutil.copytree(sdk / part, dst / part, symlinks=True)
    (dst / ".copied").write_text(f"{sdk}\n")
