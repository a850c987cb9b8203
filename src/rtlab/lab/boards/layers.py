"""The board layers that are one CMake project of ours, cross-built, the kernels given as
CMake variables (qemu-mps2, stm32, rp2350: any machine whose file names a `build_dir`).
Everything a layer differs in is its machine files' data:

    build_dir = "rtbench-stm32"       # its builds: build/<build_dir>-<kernels>
    options_var = "RTB_RP2350_ARGS"   # baked images: the CMake variable the options go in
    chip = "rp2350"                   # baked images: the UF2 writer and boot-ROM check

so a new layer built this way is its folder and its machine files: no Python. The Pico's
rp2040 layer is the pico-sdk's project (boards.pico_sdk), Zephyr and NuttX build with their
own boards.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rtlab.catalog.machines import BOARDS_DIR, Machine
from rtlab.lab.boards.cmake_layer import (
    build_mps2,
    configure_and_build,
    layer_build,
    need_cross_tools,
)
from rtlab.lab.boards.uf2_image import baked_args, image_path, write_uf2
from rtlab.lab.c_targets import REPO_ROOT, RtosBuildError


def _build_dir(m: Machine, what: str) -> Path:
    if not m.build_dir:
        raise RtosBuildError(f"{m.name}: its machine file {m.path} names no build_dir")
    return REPO_ROOT / "build" / f"{m.build_dir}-{what}"


def build_layer(m: Machine, defines: Mapping[str, str | Path], what: str) -> Path:
    """Builds the board layer of `m` (every machine of it) with the CMake variables
    `defines` (kernel paths) into build/<build_dir>-<what>; returns that directory,
    which holds rtbench-<rtos>-<machine file stem>.elf for each machine."""
    return build_mps2(defines, out=_build_dir(m, what), board_dir=BOARDS_DIR / m.layer)


def build_image(
    m: Machine, defines: Mapping[str, str], what: str, elf_name: str, words: list[str]
) -> Path:
    """The UF2 of `elf_name` (e.g. rtbench-freertos) for the baked machine `m`, built
    with the kernel paths `defines` and the options `words` inside (the CMake variable
    its file's options_var names), into build/<build_dir>-<what>; cached per option set.
    The ELF lies beside it."""
    need_cross_tools()
    if not m.options_var or not m.chip:
        raise RtosBuildError(f"{m.name}: its machine file {m.path} names no options_var or chip")
    args = baked_args(words, m.name)
    out = _build_dir(m, what)
    options = [
        "-DCMAKE_BUILD_TYPE=Release",
        *(f"-D{k}={Path(v).resolve()}" for k, v in defines.items() if v),
        f"-D{m.options_var}={args}",
    ]
    target = f"{elf_name}-{m.stem}"
    with layer_build(BOARDS_DIR / m.layer, out, options) as cfg:
        configure_and_build(cfg, out, f"{m.layer} board", "--target", target, "-j2")
        return write_uf2(out / f"{target}.elf", image_path(out, target, args), m.chip)
