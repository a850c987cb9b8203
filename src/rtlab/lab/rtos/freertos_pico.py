"""Builds rtbench on FreeRTOS SMP for the Raspberry Pi Pico: the board layer
workloads/rtbench/boards/rp2040 (both cores, UART0 on GP0/GP1 at 115200) against the
user's pico-sdk and FreeRTOS-Kernel (its RP2040 SMP port,
portable/ThirdParty/GCC/RP2040: in the kernel's tree up to V11.3.0 at least), with the
options built in (a real board has no command line). The SDK makes the ELF; rtlab
writes the UF2 (rtlab.lab.uf2), so picotool is not needed.
"""

from __future__ import annotations

import fcntl
import hashlib
from collections.abc import Mapping
from pathlib import Path

from rtlab.lab import uf2
from rtlab.lab.build import REPO_ROOT, forget_other_source
from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.mps2_board import configure_and_build, need_cross_tools
from rtlab.lab.rtos.pico_sdk import sdk_path

BOARD_DIR = REPO_ROOT / "workloads" / "rtbench" / "boards" / "rp2040"
OUT = REPO_ROOT / "build" / "rtbench-pico-freertos"
# The kernel's RP2040 port: in its tree, or where newer kernels may move it (a submodule).
PORT_DIRS = (
    "portable/ThirdParty/GCC/RP2040",
    "portable/ThirdParty/Community-Supported-Ports/GCC/RP2040",
)


def port_missing(kernel: Path) -> str | None:
    if any((kernel / d / "FreeRTOS_Kernel_import.cmake").is_file() for d in PORT_DIRS):
        return None
    return (
        f"FREERTOS_KERNEL_PATH={kernel} has no RP2040 SMP port ({PORT_DIRS[0]}; a kernel "
        "whose ThirdParty ports are a submodule needs `git submodule update --init`)"
    )


def build_freertos_pico(kernel: Path, paths: Mapping[str, str], words: list[str]) -> Path:
    """The UF2 of rtbench on FreeRTOS SMP for the Pico, running `words`; cached (another
    option set recompiles main_rp2040.c only). The ELF lies beside it."""
    need_cross_tools()
    sdk = sdk_path(paths)
    why = port_missing(kernel)
    if why:
        raise RtosBuildError(why)
    args = " ".join(words)
    if any(c in args for c in '"\\;\n'):
        raise RtosBuildError(f"options for the Pico image: no quotes, ; or backslashes ({args})")
    OUT.mkdir(parents=True, exist_ok=True)
    cfg = [
        "cmake",
        "-S",
        str(BOARD_DIR),
        "-B",
        str(OUT),
        f"-DPICO_SDK_PATH={sdk}",
        f"-DFREERTOS_KERNEL_PATH={kernel.resolve()}",
        "-DRTB_PICO_UF2=OFF",
        f"-DRTB_PICO_ARGS={args}",
    ]
    tag = hashlib.sha256(args.encode()).hexdigest()[:8]
    image = OUT / f"rtbench-freertos-pico-{tag}.uf2"
    with open(OUT / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests wait for one build
        forget_other_source(OUT, BOARD_DIR)
        configure_and_build(cfg, OUT, "Pico board", "-j2")
        elf = image.with_suffix(".elf")
        elf.write_bytes((OUT / "rtbench-pico.elf").read_bytes())
        data = uf2.from_elf(elf)
        try:
            uf2.check_rp2040(uf2.read(data))
        except uf2.Uf2Error as e:
            raise RtosBuildError(f"the FreeRTOS Pico image is not bootable: {e}") from None
        image.write_bytes(data)
    return image
