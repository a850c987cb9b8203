"""The FreeRTOS port: the kernel's variables, the build of a machine's image by its board
layer (our CMake layers through rtlab.lab.boards.layers; a layer that is an SDK's project
through sdk), and what a run records of it (describe)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from rtlab.catalog.machines import MACHINES
from rtlab.catalog.rtoses import setting
from rtlab.lab.boards.layers import build_image, build_layer
from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.rtos.base import PortBase, RtosBuildError, check_buildable
from rtlab.lab.rtos.freertos.describe import commit, config_that_matters, version
from rtlab.lab.rtos.freertos.sdk import build_freertos_sdk, sdk_settings

VAR = "FREERTOS_KERNEL_PATH"
SMP_VAR = "FREERTOS_SMP_KERNEL_PATH"  # multi-core machines' kernel (Armv8-M SMP)
PORT_DIR = REPO_ROOT / "workloads" / "rtbench" / "ports" / "freertos"
TESTED = "V11.3.0 from github.com/FreeRTOS/FreeRTOS-Kernel"
# mps2-an521 runs FreeRTOS SMP on its two Cortex-M33s: the Armv8-M SMP port came after
# V11.3.0 (the kernel's portmacrocommon.h then knows configWAKE_SECONDARY_CORES).
SMP_TESTED = "tested: main at commit 4269c69a1, 2026-07-23; README: bring your own kernels"
SMP_PORT = Path("portable/GCC/ARM_CM33_NTZ/non_secure/portmacrocommon.h")


class FreeRtos(PortBase):
    """Its machines and boards: its overlays (ports/freertos/machines/); each built by its
    board layer (one CMake project of ours each, or the SDK's project: the machine
    file's pico_sdk)."""

    name = "freertos"
    variables = (VAR, SMP_VAR)
    configs = ("default",)
    # a qemu target's older spelling of the kernel's variable
    spec_keys: ClassVar[dict[str, str]] = {"freertos_kernel_path": VAR}

    def missing(self, paths: Mapping[str, str]) -> str | None:
        kernel = paths.get(VAR, "")
        if not kernel:
            return (
                f"set {VAR} to a FreeRTOS-Kernel checkout "
                f"({TESTED}; README: bring your own kernels)"
            )
        if not (Path(kernel) / "tasks.c").is_file():
            return f"{VAR}={kernel} has no tasks.c: not a FreeRTOS-Kernel checkout"
        return None

    def build(self, machine: str, config: str, paths: Mapping[str, str]) -> Path:
        check_buildable(self, machine, config, paths)
        m = MACHINES.get(machine)
        if m.baked:
            return self.build_baked(machine, config, paths, [])
        kernel, what = paths[VAR], "freertos"
        if m.cores > 1:
            kernel = paths.get(SMP_VAR) or kernel
            _need_smp_kernel(Path(kernel), machine)
            if kernel != paths[VAR]:  # a build tree of its own: no rebuild back and forth
                what = "freertos-smp"
        return build_layer(m, {VAR: kernel}, what) / f"rtbench-freertos-{m.stem}.elf"

    def build_baked(
        self, machine: str, config: str, paths: Mapping[str, str], words: list[str]
    ) -> Path:
        """A baked board's image (UF2) with the options `words` built in."""
        check_buildable(self, machine, config, paths)
        m = MACHINES.get(machine)
        if not m.pico_sdk:  # a baked image of one of our CMake layers
            return build_image(m, {VAR: paths[VAR]}, "freertos", "rtbench-freertos", words)
        return build_freertos_sdk(Path(paths[VAR]), machine, paths, words, config)

    def describe(self, config: str, paths: Mapping[str, str], machine: str = "") -> dict[str, Any]:
        smp: dict[str, str] = {}
        if paths.get(SMP_VAR):
            kernel = Path(paths[SMP_VAR])
            smp = {"rtos_smp_version": version(kernel), "rtos_smp_commit": commit(kernel)}
        # the FreeRTOSConfig.h of the machine's build, and what more of it matters there
        config_dir = str(setting(self.name, machine, "config_dir"))
        more = str(setting(self.name, machine, "config_names", "")).split()
        on_sdk = machine in MACHINES and MACHINES.get(machine).pico_sdk
        kernel = Path(paths.get(VAR, ""))
        if machine in self.machines and MACHINES.get(machine).cores > 1 and paths.get(SMP_VAR):
            kernel = Path(paths[SMP_VAR])  # the kernel this machine's image is built from
        return {
            "rtos": self.name,
            "rtos_config": config,
            "rtos_version": version(kernel),
            **({"rtos_commit": commit(kernel)} if commit(kernel) else {}),
            **smp,
            "kconfig": config_that_matters(
                PORT_DIR / config_dir / "FreeRTOSConfig.h",
                PORT_DIR / "FreeRTOSConfig_rtbench.h",
                more=more,
            )
            | (sdk_settings(machine, config) if on_sdk else {}),
        }


def _need_smp_kernel(kernel: Path, machine: str) -> None:
    try:
        smp = "configWAKE_SECONDARY_CORES" in (kernel / SMP_PORT).read_text(errors="replace")
    except OSError:
        smp = False
    if not smp:
        raise RtosBuildError(
            f"{machine} runs FreeRTOS SMP on Armv8-M, which {kernel} does not have: "
            f"set {SMP_VAR} to a FreeRTOS-Kernel after V11.3.0 ({SMP_TESTED})"
        )


RTOS = FreeRtos()
