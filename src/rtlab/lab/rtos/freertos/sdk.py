"""Builds rtbench on FreeRTOS with a board layer that is an SDK's own project (the
pico-sdk's: boards.pico_sdk.build_on_sdk, with ports/freertos/rp2040.cmake) against the user's
SDK and FreeRTOS-Kernel, with the options built in. What each configuration builds
there is the machine's overlay (ports/freertos/machines/<machine>.toml):

    sdk_<configuration> = "<kernel port> <cores> [KEY=value ...]"   # "-" as "_"
    sdk_port_<kernel port> = "<portable/ dir> [<where newer kernels move it>]"

the kernel port and cores the layer's CMake builds (its variables RTB_PICO_FREERTOS_PORT
and RTB_PICO_CORES), then CMake cache settings the configuration changes from the SDK's
(the cycle models' cross-check builds the generic port as the QEMU mps2 layer does:
-O2, one section per function and variable, the C library's memcpy).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rtlab.catalog.machines import MACHINES
from rtlab.catalog.rtoses import overlay
from rtlab.lab.boards.pico_sdk import build_on_sdk
from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.rtos.base import RtosBuildError

__all__ = ["SdkConfig", "build_freertos_sdk", "port_missing", "sdk_config", "sdk_settings"]

# What a run records of a setting a configuration changes from the SDK's.
_RECORDED = {"CMAKE_C_FLAGS_RELEASE": "optimization", "RTB_PICO_MEM_OPS": "memcpy"}
_MEMCPY = {"compiler": "the C library's (newlib-nano)"}


@dataclass(frozen=True)
class SdkConfig:
    """One configuration's build on the SDK's project, from the machine's overlay."""

    port: str  # the layer's kernel port (RTB_PICO_FREERTOS_PORT)
    cores: int
    dirs: tuple[str, ...]  # where the kernel has that port (portable/…), first the usual
    settings: dict[str, str]  # CMake cache settings it changes from the SDK's


def sdk_config(machine: str, config: str) -> SdkConfig:
    own = overlay("freertos", machine)
    words = str(own.get(f"sdk_{config.replace('-', '_')}", "")).split()
    if len(words) < 2:
        raise RtosBuildError(f"FreeRTOS's overlay of {machine} has no sdk_ line for {config!r}")
    port, cores, *rest = words
    dirs = tuple(str(own.get(f"sdk_port_{port}", "")).split())
    return SdkConfig(port, int(cores), dirs, dict(w.split("=", 1) for w in rest))


def port_missing(kernel: Path, machine: str, config: str) -> str | None:
    """None when the kernel has the port `config` builds on, else one line naming the
    configurations whose port it has."""
    c = sdk_config(machine, config)
    if any((kernel / "portable" / d / "port.c").is_file() for d in c.dirs):
        return None
    others = [
        o for o in str(overlay("freertos", machine).get("configs", "")).split()
        if any((kernel / "portable" / d / "port.c").is_file() for d in sdk_config(machine, o).dirs)
    ]  # fmt: skip
    instead = f'; rtos_config = "{others[0]}" builds on a port it has' if others else ""
    return (
        f"FREERTOS_KERNEL_PATH={kernel} has no portable/{c.dirs[0]}/port.c (a kernel whose "
        f"ThirdParty ports are a submodule needs `git submodule update --init`{instead})"
    )


def sdk_settings(machine: str, config: str) -> dict[str, str]:
    """What a run records of its FreeRTOS build on the SDK's project: the port, the
    cores, and the settings changed from the SDK's."""
    c = sdk_config(machine, config)
    found = {"port": c.dirs[0], "configNUMBER_OF_CORES": str(c.cores)}
    for key, value in c.settings.items():
        if key in _RECORDED:
            found[_RECORDED[key]] = _MEMCPY.get(value, value)
    return found


def build_freertos_sdk(
    kernel: Path, machine: str, paths: Mapping[str, str], words: list[str], config: str
) -> Path:
    """The UF2 of rtbench on FreeRTOS for `machine` in `config`, running `words`; cached
    (another option set recompiles the board's main only). The ELF lies beside it."""
    why = port_missing(kernel, machine, config)
    if why:
        raise RtosBuildError(why)
    c = sdk_config(machine, config)
    defines: dict[str, str | Path] = {
        "RTB_PICO_RTOS": "freertos",
        "FREERTOS_KERNEL_PATH": kernel.resolve(),
        "RTB_PICO_FREERTOS_PORT": c.port,
        "RTB_PICO_CORES": str(c.cores),
        **c.settings,
    }
    stem = MACHINES.get(machine).stem
    suffix = "" if config == "default" else f"-{config}"
    out = REPO_ROOT / "build" / f"rtbench-{stem}-freertos{suffix}"
    return build_on_sdk(defines, out, f"rtbench-freertos{suffix}-{stem}", paths, words)
