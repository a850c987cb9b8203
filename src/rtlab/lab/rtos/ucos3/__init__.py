"""µC/OS-III: the user's uC-OS3, uC-CPU and uC-LIB checkouts (UCOS3_PATH, UCCPU_PATH,
UCLIB_PATH, or UCOS3_PATH alone naming one folder that holds all three), built with the
project's board layers and configuration headers (workloads/rtbench/ports/ucos3).

Two configurations: "default" (µC/OS-III's template: argument/object checks on, plus
timestamps) and "lean" (those checks and timestamps off). The ARMv7-M port on the M3/M4/M7
machines and boards, the ARMv6-M one on the Cortex-M0 microbit and the M0+ nucleo-l073rz;
the boards with 16-20 KiB of RAM take the small pools and stacks (is_small).

    port      UcOs3, RTOS: the checkouts, build, build_baked, describe
    describe  what a run records: the kernel's version, the configuration that matters
"""

from rtlab.lab.rtos.ucos3.describe import SMALL_RAM, config_that_matters, is_small
from rtlab.lab.rtos.ucos3.port import (
    RTOS,
    TESTED,
    VAR_CPU,
    VAR_LIB,
    VAR_OS,
    UcOs3,
    checkouts,
    elf_name,
)

__all__ = [
    "RTOS",
    "SMALL_RAM",
    "TESTED",
    "VAR_CPU",
    "VAR_LIB",
    "VAR_OS",
    "UcOs3",
    "checkouts",
    "config_that_matters",
    "elf_name",
    "is_small",
]
