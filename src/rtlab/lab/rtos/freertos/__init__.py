"""FreeRTOS: the kernel checkout in FREERTOS_KERNEL_PATH (FREERTOS_SMP_KERNEL_PATH for the
multi-core machines), built by the board layer of the machine
(workloads/rtbench/ports/freertos + boards/<layer>).

    port      FreeRtos, RTOS: the variables, build, build_baked, describe
    sdk       the build on a layer that is an SDK's own project (the pico-sdk's)
    describe  what a run records: the kernel's version, the FreeRTOSConfig.h that matters
"""

from rtlab.lab.rtos.freertos.port import (
    RTOS,
    SMP_PORT,
    SMP_TESTED,
    SMP_VAR,
    TESTED,
    VAR,
    FreeRtos,
)
from rtlab.lab.rtos.freertos.sdk import (
    SdkConfig,
    build_freertos_sdk,
    port_missing,
    sdk_config,
    sdk_settings,
)

__all__ = [
    "RTOS",
    "SMP_PORT",
    "SMP_TESTED",
    "SMP_VAR",
    "TESTED",
    "VAR",
    "FreeRtos",
    "SdkConfig",
    "build_freertos_sdk",
    "port_missing",
    "sdk_config",
    "sdk_settings",
]
