"""rtlab's UF2 writer and checker (rtlab.lab.uf2_format) on a real ELF from the cross compiler:
the pages hold exactly what objcopy's binary holds, and every rule the RP2040 boot ROM
applies is a refusal naming the block."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from rtlab.lab import uf2_format as uf2
from tests.lab.uf2_elf import flash_elf, objcopy_binary, picotool_uf2

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

# Two segments in flash with a gap: code at the start, a table 0x300 bytes further on
# (not page-aligned, so its page is part zero).
SOURCE = """
.section .text
.global _start
_start: .word 0x11111111, 0x22222222
.fill 61, 4, 0xA5A5A5A5
.section .table, "a"
.word 0xCAFEF00D, 0x0BADBEEF
"""


@pytest.fixture(scope="module")
def elf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return flash_elf(tmp_path_factory.mktemp("uf2"), SOURCE, "cortex-m0plus")


def test_pages_hold_what_objcopy_holds(elf: Path) -> None:
    flat = objcopy_binary(elf)  # from 0x10000000, the gap filled with zeros
    blocks = uf2.read(uf2.from_elf(elf))
    # picotool's zero pages fill the sector's gap (0x100, 0x200) up to the last page
    assert [b.address for b in blocks] == [0x10000000, 0x10000100, 0x10000200, 0x10000300]
    assert [(b.number, b.count, b.family, b.flags) for b in blocks] == [
        (n, 4, uf2.RP2040_FAMILY, uf2.FLAG_FAMILY) for n in range(4)
    ]
    assert not any(blocks[1].payload + blocks[2].payload)
    rebuilt = bytearray(0x400)  # the pages at their offsets; what no page holds is zero
    for b in blocks:
        rebuilt[b.address - 0x10000000 : b.address - 0x10000000 + 256] = b.payload
    assert len(flat) == 0x318 and bytes(rebuilt[: len(flat)]) == flat
    assert struct.unpack_from("<2I", blocks[3].payload, 0x10) == (0xCAFEF00D, 0x0BADBEEF)
    assert not any(blocks[3].payload[0x18:])


def test_byte_for_byte_picotools(elf: Path, tmp_path: Path) -> None:
    """picotool 2.1.1's `uf2 convert --family rp2040`, padding included."""
    out = picotool_uf2(elf, tmp_path / "p.uf2", "--family", "rp2040")
    assert out == uf2.from_elf(elf)


def test_boot2_crc_is_the_boot_roms() -> None:
    assert uf2.crc32_mpeg2(b"123456789") == 0x0376E6E7  # CRC-32/MPEG-2's check value


def _valid() -> dict[int, bytes]:
    code = bytes(range(252))
    boot2 = code + struct.pack("<I", uf2.crc32_mpeg2(code))
    return {0x10000000: boot2, 0x10000100: b"\x01" * 256}


def test_a_flash_image_with_its_stage_2_passes() -> None:
    uf2.check_rp2040(uf2.read(uf2.write(_valid())))
    uf2.check_rp2040(uf2.read(uf2.write({0x20000000: bytes(256)})))  # SRAM: no stage 2


def _refused(data: bytes, says: str) -> None:
    with pytest.raises(uf2.Uf2Error, match=says):
        uf2.check_rp2040(uf2.read(data))


def test_each_rule_is_a_refusal_naming_the_block() -> None:
    good = uf2.write(_valid())
    _refused(good[:700], "not a whole number of 512-byte blocks")
    _refused(good[:512] + b"\0" * 512, "block 1: bad magic")
    _refused(uf2.write(_valid(), family=0xE48BFF59), r"block 0 .*not RP2040")
    _refused(good[512:], r"block 0 .*numbered 1 of 2, expected 0 of 1")
    _refused(uf2.write({0x10000000: _valid()[0x10000000], 0x30000000: bytes(256)}), "outside")
    bad = dict(_valid())
    bad[0x10000000] = b"\xff" + bad[0x10000000][1:]
    _refused(uf2.write(bad), "stage 2 at 0x10000000: CRC .* would not run it")
    _refused(uf2.write({0x10000100: bytes(256)}), "no stage 2 at 0x10000000")


def test_not_an_elf(tmp_path: Path) -> None:
    (tmp_path / "x.elf").write_bytes(b"UF2\n" * 10)
    with pytest.raises(uf2.Uf2Error, match="not a 32-bit little-endian ELF"):
        uf2.from_elf(tmp_path / "x.elf")
