"""What the UF2 writers' tests share (test_uf2, test_uf2_rp2350): a small ELF assembled
by the cross compiler at a flash address, and picotool's conversion of it (when the
developer brought picotool) to compare bytes with."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.needs import brought, tool


def flash_elf(d: Path, source: str, cpu: str) -> Path:
    """`source` (GNU as) assembled for `cpu` into d/x.elf: .text at 0x10000000 (XIP
    flash), the section .table at 0x10000310 (not page-aligned: its page is part zero)."""
    cc = tool("arm-none-eabi-gcc", "deps/apt.txt")
    (d / "x.S").write_text(source)
    out = d / "x.elf"
    subprocess.run(
        [cc, "-nostdlib", f"-mcpu={cpu}", "-mthumb", "-Wl,-Ttext=0x10000000",
         "-Wl,--section-start=.table=0x10000310", "-o", str(out), str(d / "x.S")],
        check=True,
    )  # fmt: skip
    return out


def picotool_uf2(elf: Path, out: Path, *options: str) -> bytes:
    """picotool 2.1.1's `uf2 convert elf out *options` (skip without picotool_DIR)."""
    cmake_dir = brought(
        "picotool_DIR",
        "a picotool 2.1.1 install's lib/cmake/picotool (its bin/picotool runs)",
        "github.com/raspberrypi/picotool; README: bring your own kernels",
    )
    picotool = Path(cmake_dir).parents[2] / "bin" / "picotool"
    cmd = [str(picotool), "uf2", "convert", str(elf), str(out), *options]
    subprocess.run(cmd, check=True, capture_output=True)
    return out.read_bytes()


def objcopy_binary(elf: Path) -> bytes:
    """The ELF as objcopy's flat binary: from its lowest address, gaps filled with zeros."""
    bin_ = elf.with_suffix(".bin")
    subprocess.run(["arm-none-eabi-objcopy", "-O", "binary", str(elf), str(bin_)], check=True)
    return bin_.read_bytes()
