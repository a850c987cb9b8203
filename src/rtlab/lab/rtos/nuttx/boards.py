"""rtbench on NuttX for an upstream board of the NuttX tree (the STM32 study's Nucleos,
docs/boards.md): the board's own `nsh` defconfig (its clock tree, console UART, memory)
with rtbench's settings appended (ports/nuttx/defconfig/board-stm32.defconfig), built in
a copy of the user's trees as nuttx.build does for the project's mps2 board. Build only:
no emulator runs these images here.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
from pathlib import Path

from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.nuttx.build import (
    BUILD_ROOT,
    PORT_DIR,
    Trees,
    check_config,
    copy_trees,
    drop_objects,
    kernel_identity,
    need_host_tools,
    run_make,
    sync_app,
)


def board_fragments(own: str, config: str) -> list[Path]:
    """rtbench's settings on an upstream board: its overlay's nuttx_board_fragment (in
    ports/nuttx/defconfig), then the configuration's."""
    d = PORT_DIR / "defconfig"
    return [d / own, d / f"config-{config}.defconfig"]


def build_nuttx_board(board: str, where: str, own: str, config: str, trees: Trees) -> Path:
    """The rtbench ELF for an upstream board (`where`: its overlay's nuttx_board,
    the NuttX tree's boards/arm/<chip>/<board>; `own`: its overlay's
    nuttx_board_fragment) and configuration; cached."""
    upstream = trees.nuttx / "boards" / "arm" / where
    defconfig = upstream / "configs" / "nsh" / "defconfig"
    if not defconfig.is_file():
        raise RtosBuildError(f"NuttX at {trees.nuttx} has no {where}:nsh board")
    need_host_tools()
    text = defconfig.read_text() + "".join(f.read_text() for f in board_fragments(own, config))
    text += 'CONFIG_APPS_DIR="../apps"\n'
    digest = hashlib.sha256((kernel_identity(trees) + text).encode()).hexdigest()[:10]
    out = BUILD_ROOT / f"{config}-{board}-{digest}"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests wait for one build
        copy_trees(trees, out)
        if sync_app(out / "apps"):
            drop_objects(out / "apps" / "external")
        _configure(out, upstream.relative_to(trees.nuttx), text, own)
        run_make(out / "nuttx", ["-j2", "CROSSDEV=arm-none-eabi-"], "build")
        elf = out / f"rtbench-nuttx-{board}.elf"
        shutil.copy2(out / "nuttx" / "nuttx", elf)
    return elf


def _configure(out: Path, board_dir: Path, text: str, own: str) -> None:
    stamp = out / ".defconfig"
    nuttx = out / "nuttx"
    if stamp.is_file() and stamp.read_text() == text and (nuttx / ".config").is_file():
        return
    make_defs = nuttx / "Make.defs"
    if make_defs.is_symlink() or make_defs.exists():
        make_defs.unlink()
    make_defs.symlink_to(nuttx / board_dir / "scripts" / "Make.defs")
    (nuttx / ".config").write_text(text)
    run_make(nuttx, ["olddefconfig"], "configure")
    check_config(nuttx / ".config", "".join(f.read_text() for f in board_fragments(own, "default")))
    stamp.write_text(text)
