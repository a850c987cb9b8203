"""Builds rtbench on FreeRTOS SMP for the Raspberry Pi Pico: the board layer
workloads/rtbench/boards/rp2040 (both cores, UART0 on GP0/GP1 at 115200) against the
user's pico-sdk and FreeRTOS-Kernel (its RP2040 SMP port,
portable/ThirdParty/GCC/RP2040: in the kernel's tree up to V11.3.0 at least), with the
options built in (pico_board.build_pico).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rtlab.lab.build import REPO_ROOT
from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.pico_board import BOARD_DIR, build_pico

__all__ = ["BOARD_DIR", "build_freertos_pico", "port_missing"]

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
    why = port_missing(kernel)
    if why:
        raise RtosBuildError(why)
    defines = {"RTB_PICO_RTOS": "freertos", "FREERTOS_KERNEL_PATH": kernel.resolve()}
    return build_pico(defines, OUT, "rtbench-freertos-pico", paths, words)
