"""The model's one-line errors: a boot2 whose CRC fails, an image calling a ROM function
rtlab's ROM does not provide, an unreadable image."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

from tests.models.rp2040 import model

# Looks up ROM function 'ZZ' (no such function) and calls it, as an image calls rom_func_lookup.
CALL_MISSING = """
    .syntax unified
    .thumb
    .global _start
    .thumb_func
_start:
    movs r0, #0x14
    ldrh r0, [r0]          @ the function table
    movs r3, #0x18
    ldrh r3, [r3]          @ rom_table_lookup
    ldr r1, =0x5a5a        @ 'Z' | 'Z' << 8
    blx r3
    blx r0
    b .
    .ltorg
"""


def _smoke_bin(tmp: Path) -> bytearray:
    model.build()
    elf = model.BARE / "build" / "rp2040-smoke.bin"
    return bytearray(elf.read_bytes())


def test_boot2_crc_mismatch_is_one_line(tmp_path: Path) -> None:
    img = _smoke_bin(tmp_path)
    img[10] ^= 0xFF
    bad = tmp_path / "bad.bin"
    bad.write_bytes(img)
    res = model.run(bad, tmp_path)
    assert res.returncode == 2
    assert res.stdout == b""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "offset 252: boot stage 2 CRC" in lines[0] and str(bad) in lines[0]


def test_missing_rom_function_names_it(tmp_path: Path) -> None:
    img = _smoke_bin(tmp_path)
    src = tmp_path / "call.S"
    src.write_text(CALL_MISSING)
    elf = tmp_path / "call.elf"
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m0plus", "-nostdlib", "-Wl,-Ttext=0x10010000",
                    "-o", str(elf), str(src)], check=True)
    code = tmp_path / "call.raw"
    subprocess.run(["arm-none-eabi-objcopy", "-O", "binary", str(elf), str(code)], check=True)
    img.extend(b"\xff" * (0x10000 - len(img)))
    img.extend(code.read_bytes())
    img[0x104:0x108] = struct.pack("<I", 0x10010001)  # the reset vector after boot2
    image = tmp_path / "call.bin"
    image.write_bytes(img)
    res = model.run(image, tmp_path)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "ROM function 'ZZ'" in lines[0] and "does not provide" in lines[0]


def test_unreadable_image(tmp_path: Path) -> None:
    model.build()
    res = model.run(tmp_path / "none.uf2", tmp_path)
    assert res.returncode == 2
    assert res.stderr.strip() == f"rp2040-model: {tmp_path / 'none.uf2'}: cannot read the image (ENOENT)"
