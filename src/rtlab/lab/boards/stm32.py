"""The project's STM32 board layer (workloads/rtbench/boards/stm32): the study's Nucleo
boards and QEMU's netduinoplus2, one description each in machines/<board>.toml, built
the way the mps2 layer is (one CMake project, the kernels as CMake variables). These are
serial-target boards (docs/boards.md), not machines of the `qemu` target."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rtlab.lab.boards.mps2 import build_mps2
from rtlab.lab.build import REPO_ROOT

STM32_DIR = REPO_ROOT / "workloads" / "rtbench" / "boards" / "stm32"

# Every description; a file's stem is its board name (what its images print).
BOARDS = tuple(sorted(p.stem for p in (STM32_DIR / "machines").glob("*.toml")))


def build_stm32(defines: Mapping[str, str | Path], what: str) -> Path:
    """Builds every board's images with the given kernels into build/rtbench-stm32-<what>;
    returns the build directory."""
    out = REPO_ROOT / "build" / f"rtbench-stm32-{what}"
    return build_mps2(defines, out=out, board_dir=STM32_DIR)
