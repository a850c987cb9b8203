"""A board layer that is one CMake project of ours, configured and built (every layer
boards.layers builds; by default the mps2 layer, workloads/rtbench/boards/qemu-mps2):
it builds the bare-metal smoke test always, and rtbench on each RTOS whose CMake
variable it is given (FREERTOS_KERNEL_PATH, …). RTOSes with a build system of their own
(Zephyr, NuttX) do not use it.
"""

from __future__ import annotations

import contextlib
import fcntl
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from rtlab.lab.c_targets import REPO_ROOT, RtosBuildError, forget_other_source

BOARD_DIR = REPO_ROOT / "workloads" / "rtbench" / "boards" / "qemu-mps2"
TOOLCHAIN = REPO_ROOT / "workloads" / "rtbench" / "boards" / "cmake" / "arm-none-eabi.cmake"
CROSS_TOOLS = ("cmake", "arm-none-eabi-gcc")


def need_cross_tools() -> None:
    for tool in CROSS_TOOLS:
        if shutil.which(tool) is None:
            raise RtosBuildError(
                f"{tool} not found: install cmake gcc-arm-none-eabi "
                "libnewlib-arm-none-eabi (deps/apt.txt)"
            )


def build_mps2(
    defines: Mapping[str, str | Path] | None = None,
    out: Path | None = None,
    build_type: str = "Release",
    board_dir: Path = BOARD_DIR,
) -> Path:
    """Configures and builds the board layer into out (default build/rtbench-qemu-<what>)
    with the given CMake variables (kernel paths); returns the build directory. Another
    layer built the same way (boards/stm32) names its board_dir."""
    need_cross_tools()
    defines = {k: Path(v).resolve() for k, v in (defines or {}).items() if v}
    if out is None:
        what = "-".join(k.split("_")[0].lower() for k in sorted(defines)) or "nokernel"
        out = REPO_ROOT / "build" / f"rtbench-qemu-{what}"
    options = [f"-DCMAKE_BUILD_TYPE={build_type}", *(f"-D{k}={v}" for k, v in defines.items())]
    with layer_build(board_dir, out, options) as cfg:
        configure_and_build(cfg, out, f"{board_dir.name} board", "-j2")
    return out


@contextlib.contextmanager
def layer_build(board_dir: Path, out: Path, options: Sequence[str]) -> Iterator[list[str]]:
    """Holds the build directory `out` of a CMake board layer (parallel tests wait for
    one build; a tree configured from another source is forgotten) and gives its
    configure line: the cross toolchain and `options` (-D…)."""
    out.mkdir(parents=True, exist_ok=True)
    # Kernels from `options` only, not the environment: a build directory named for
    # FreeRTOS builds no µC/OS-III, and every caller naming FreeRTOS shares it.
    tree = ["-S", str(board_dir), "-B", str(out)]
    cfg = ["cmake", *tree, f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN}", "-DRTB_PATHS_FROM_ENV=OFF"]
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        forget_other_source(out, board_dir)
        yield [*cfg, *options]


def configure_and_build(cfg: list[str], out: Path, name: str, *build_args: str) -> None:
    """Runs a CMake configure line, then the build of `out` (the caller holds its lock);
    a failure is one RtosBuildError naming the step, with the output's last 30 lines."""
    for cmd, what in ((cfg, "configure"), (["cmake", "--build", str(out), *build_args], "build")):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
            raise RtosBuildError(f"{name} {what} failed (exit {proc.returncode})\n{tail}")
