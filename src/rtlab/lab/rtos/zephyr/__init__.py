"""Zephyr: the user's tree in ZEPHYR_BASE (+ the cmsis module in ZEPHYR_MODULES), built
with Zephyr's own build system as an out-of-tree application
(workloads/rtbench/ports/zephyr) for a QEMU mps2 board, toolchain `gnuarmemb` on
Debian's arm-none-eabi-gcc, or for Zephyr's qemu_cortex_a53_smp (rtlab machine virt-a53,
two cores, SMP) with Debian's aarch64-linux-gnu-gcc (toolchain: its shim),
or for Zephyr's own Nucleo and Pico boards, serial-target boards (boards).
Two documented configurations: "default" (Zephyr's defaults + what the suite needs,
prj.conf) and "lean" (+ lean.conf: time slicing off, asserts off, -O2). The Kconfig
that shapes a figure is read back from the build's .config.

    port       Zephyr, RTOS: missing, build, build_baked, build_program (latency_measure)
    build      an application built for a machine in a configuration (CMake, out of tree)
    toolchain  Debian's aarch64-linux-gnu-gcc as Zephyr's cross-compile toolchain (a shim)
    boards     the MCU boards: their HAL module, the options built in, the checked image
    describe   what a run records: the tree's version, the Kconfig that matters
"""

from rtlab.lab.rtos.zephyr.boards import hal_missing
from rtlab.lab.rtos.zephyr.build import CONF_FILES, MODULES_VAR, VAR
from rtlab.lab.rtos.zephyr.describe import kconfig_that_matters, version
from rtlab.lab.rtos.zephyr.port import (
    LATENCY_MEASURE,
    LATENCY_MEASURE_UNVALIDATED,
    RTOS,
    TESTED,
    Zephyr,
    program_kconfig,
)

__all__ = [
    "CONF_FILES",
    "LATENCY_MEASURE",
    "LATENCY_MEASURE_UNVALIDATED",
    "MODULES_VAR",
    "RTOS",
    "TESTED",
    "VAR",
    "Zephyr",
    "hal_missing",
    "kconfig_that_matters",
    "program_kconfig",
    "version",
]
