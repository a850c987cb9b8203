"""The project's RP2350 board layer (workloads/rtbench/boards/rp2350): rtbench for the
Raspberry Pi Pico 2 on the mps2 layer's Cortex-M glue, one CMake project built the way
the mps2 and STM32 layers are (the kernels as CMake variables), with the options built
in (a Pico 2 has no command line). rtlab writes the UF2 (rtlab.lab.boards.uf2_image) and
checks it as the boot ROM would; no pico-sdk or picotool is needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rtlab.lab.boards.machines import MACHINES
from rtlab.lab.boards.mps2 import configure_and_build, layer_build, need_cross_tools
from rtlab.lab.boards.uf2_image import baked_args, image_path, write_uf2
from rtlab.lab.build import REPO_ROOT

RP2350_DIR = REPO_ROOT / "workloads" / "rtbench" / "boards" / "rp2350"
BOARDS = tuple(sorted(p.stem for p in (RP2350_DIR / "machines").glob("*.toml")))


def build_rp2350(
    defines: Mapping[str, str], what: str, board: str, elf_name: str, words: list[str]
) -> Path:
    """The UF2 of `elf_name` (e.g. rtbench-freertos) for `board`, built with the kernel
    paths `defines` and the options `words` inside, into build/rtbench-rp2350-<what>;
    cached per option set (another one recompiles rp2350_args.c only). The ELF lies
    beside it."""
    need_cross_tools()
    args = baked_args(words, board)
    out = REPO_ROOT / "build" / f"rtbench-rp2350-{what}"
    options = [
        "-DCMAKE_BUILD_TYPE=Release",
        *(f"-D{k}={Path(v).resolve()}" for k, v in defines.items() if v),
        f"-DRTB_RP2350_ARGS={args}",
    ]
    chip = MACHINES.get(board).get("chip", "rp2350")
    with layer_build(RP2350_DIR, out, options) as cfg:
        configure_and_build(cfg, out, "RP2350 board", "--target", f"{elf_name}-{board}", "-j2")
        built = out / f"{elf_name}-{board}.elf"
        return write_uf2(built, image_path(out, f"{elf_name}-{board}", args), chip)
