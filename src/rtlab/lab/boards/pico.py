"""The project's Pico board layer (workloads/rtbench/boards/rp2040) built on the user's
pico-sdk, for one RTOS (RTB_PICO_RTOS: FreeRTOS SMP or µC/OS-III), with the options
built in (a real board has no command line). The SDK makes the ELF; rtlab writes the
UF2 (rtlab.lab.uf2), so picotool is not needed."""

from __future__ import annotations

import fcntl
from collections.abc import Mapping
from pathlib import Path

from rtlab.lab.boards.mps2 import configure_and_build, need_cross_tools
from rtlab.lab.boards.pico_sdk import sdk_path
from rtlab.lab.boards.uf2_image import baked_args, image_path, write_uf2
from rtlab.lab.build import REPO_ROOT, forget_other_source

BOARD_DIR = REPO_ROOT / "workloads" / "rtbench" / "boards" / "rp2040"


def build_pico(
    defines: Mapping[str, str | Path], out: Path, stem: str, paths: Mapping[str, str],
    words: list[str],
) -> Path:  # fmt: skip
    """The UF2 <out>/<stem>-<hash of words>.uf2 running `words`, the board layer
    configured with `defines` (the RTOS and its kernel); cached (another option set
    recompiles main_rp2040.c only). The ELF lies beside it."""
    need_cross_tools()
    sdk = sdk_path(paths)
    args = baked_args(words, "Pico")
    out.mkdir(parents=True, exist_ok=True)
    cfg = [
        "cmake",
        "-S",
        str(BOARD_DIR),
        "-B",
        str(out),
        f"-DPICO_SDK_PATH={sdk}",
        *(f"-D{k}={v}" for k, v in defines.items()),
        "-DRTB_PICO_UF2=OFF",
        f"-DRTB_PICO_ARGS={args}",
    ]
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests wait for one build
        forget_other_source(out, BOARD_DIR)
        configure_and_build(cfg, out, "Pico board", "-j2")
        return write_uf2(out / "rtbench-pico.elf", image_path(out, stem, args), "rp2040")
