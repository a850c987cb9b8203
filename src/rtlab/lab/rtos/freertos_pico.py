"""Builds rtbench on FreeRTOS for the Raspberry Pi Pico: the board layer
workloads/rtbench/boards/rp2040 (UART0 on GP0/GP1 at 115200) against the user's pico-sdk
and FreeRTOS-Kernel, with the options built in (boards.pico.build_pico). Three
configurations (CONFIGS): the kernel's RP2040 port (portable/ThirdParty/GCC/RP2040: in
its tree up to V11.3.0 at least) on both cores (SMP, "default") or on core 0 alone
("one-core"), and the generic GCC/ARM_CM0 port on core 0 ("arm-cm0": any FreeRTOS,
V10.2.1 included, which has no RP2040 port). "arm-cm0-as-mps2" is that port compiled as
the QEMU mps2 layer compiles it (-O2, not the SDK's -O3; the kernel with one section per
function and variable; the C library's memcpy, not the SDK's wrapper into the boot
ROM's): the same instructions as the QEMU microbit image, for
the cross-check of rtlab's two cycle models (rtlab.studies.cycles_crosscheck).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rtlab.lab.boards.pico import build_pico
from rtlab.lab.build import REPO_ROOT
from rtlab.lab.rtos.base import RtosBuildError

__all__ = ["CONFIGS", "build_freertos_pico", "pico_settings", "port_missing"]

# configuration -> (the board layer's port, cores)
CONFIGS = {"default": ("rp2040", 2), "one-core": ("rp2040", 1), "arm-cm0": ("cm0", 1),
           "arm-cm0-as-mps2": ("cm0", 1)}  # fmt: skip
# configuration -> what its build changes from the SDK's (CMake cache settings)
AS_MPS2 = {
    "CMAKE_C_FLAGS_RELEASE": "-O2",
    "RTB_PICO_MEM_OPS": "compiler",
    # the mps2 layer's: one section per variable (no section anchors) changes the code
    "RTB_PICO_KERNEL_OPTIONS": "-ffunction-sections;-fdata-sections;-fno-common",
}
BUILD_SETTINGS = {"arm-cm0-as-mps2": AS_MPS2}
# The kernel's RP2040 port: in its tree, or where newer kernels may move it (a submodule).
PORT_DIRS = (
    "portable/ThirdParty/GCC/RP2040",
    "portable/ThirdParty/Community-Supported-Ports/GCC/RP2040",
)


def port_missing(kernel: Path, config: str = "default") -> str | None:
    """None when the kernel has the port `config` builds on, else one line."""
    if CONFIGS[config][0] == "cm0":
        if (kernel / "portable" / "GCC" / "ARM_CM0" / "port.c").is_file():
            return None
        return f"FREERTOS_KERNEL_PATH={kernel} has no portable/GCC/ARM_CM0/port.c"
    if any((kernel / d / "FreeRTOS_Kernel_import.cmake").is_file() for d in PORT_DIRS):
        return None
    return (
        f"FREERTOS_KERNEL_PATH={kernel} has no RP2040 SMP port ({PORT_DIRS[0]}; a kernel "
        "whose ThirdParty ports are a submodule needs `git submodule update --init`; "
        'rtos_config = "arm-cm0" builds on the generic port)'
    )


def pico_settings(config: str) -> dict[str, str]:
    """What a Pico run records of its FreeRTOS build: the port and the cores."""
    port, cores = CONFIGS.get(config, CONFIGS["default"])
    name = "ThirdParty/GCC/RP2040" if port == "rp2040" else "GCC/ARM_CM0"
    settings = {"port": name, "configNUMBER_OF_CORES": str(cores)}
    if config in BUILD_SETTINGS:  # what the cross-check's image changes from the SDK's
        settings |= {"optimization": "-O2", "memcpy": "the C library's (newlib-nano)"}
    return settings


def build_freertos_pico(
    kernel: Path, paths: Mapping[str, str], words: list[str], config: str = "default"
) -> Path:
    """The UF2 of rtbench on FreeRTOS for the Pico in `config`, running `words`; cached
    (another option set recompiles main_rp2040.c only). The ELF lies beside it."""
    why = port_missing(kernel, config)
    if why:
        raise RtosBuildError(why)
    port, cores = CONFIGS[config]
    defines: dict[str, str | Path] = {
        "RTB_PICO_RTOS": "freertos",
        "FREERTOS_KERNEL_PATH": kernel.resolve(),
        "RTB_PICO_FREERTOS_PORT": port,
        "RTB_PICO_CORES": str(cores),
        **BUILD_SETTINGS.get(config, {}),
    }
    suffix = "" if config == "default" else f"-{config}"
    out = REPO_ROOT / "build" / f"rtbench-pico-freertos{suffix}"
    return build_pico(defines, out, f"rtbench-freertos{suffix}-pico", paths, words)
