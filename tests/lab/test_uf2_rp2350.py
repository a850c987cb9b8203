"""rtlab's RP2350 UF2 writer and checker (rtlab.lab.uf2_rp2350) on a real ELF from the
cross compiler: the pages hold what objcopy's binary holds behind the RP2350-E10 block,
the bytes are picotool's (when it is brought), and every rule of the RP2350 boot ROM
the checker applies is a refusal naming what."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from rtlab.lab import uf2_format as uf2
from rtlab.lab import uf2_rp2350 as r
from tests.lab.uf2_elf import flash_elf, objcopy_binary, picotool_uf2

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

# A vector table (SP at the top of SRAM, reset in flash), the IMAGE_DEF right after it
# (as boards/rp2350 places it), code, and a table 0x300 bytes on (a part-zero page).
SOURCE = """
.syntax unified
.section .text
.global _start
vectors: .word 0x20082000, _start + 1
image_def:
.word 0xffffded3
.byte 0x42, 0x01
.hword 0x1021
.word 0x000001ff, 0, 0xab123579
_start: b _start
.fill 50, 4, 0xA5A5A5A5
.section .table, "a"
.word 0xCAFEF00D
"""


@pytest.fixture(scope="module")
def elf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return flash_elf(tmp_path_factory.mktemp("uf2_rp2350"), SOURCE, "cortex-m33")


def test_the_e10_block_then_the_pages_objcopy_holds(elf: Path) -> None:
    blocks = uf2.read(r.from_elf(elf))
    r.check_rp2350(blocks)
    e10, *image = blocks
    assert (e10.flags, e10.address, e10.number, e10.count, e10.family) == (
        0xA000, 0x10FFFF00, 0, 2, r.ABSOLUTE_FAMILY
    )  # fmt: skip
    assert e10.payload == b"\xef" * 256
    # the sector's gap is zero pages (picotool's padding)
    assert [(b.address, b.number, b.count, b.family) for b in image] == [
        (0x10000000 + 0x100 * n, n, 4, 0xE48BFF59) for n in range(4)
    ]
    flat = objcopy_binary(elf)
    assert b"".join(b.payload for b in image)[: len(flat)] == flat
    assert r.from_elf(elf, e10=False) == r.from_elf(elf)[512:]


@pytest.mark.parametrize("abs_block", [True, False], ids=["abs-block", "plain"])
def test_byte_for_byte_picotools(elf: Path, tmp_path: Path, abs_block: bool) -> None:
    """picotool 2.1.1's `uf2 convert --family rp2350-arm-s [--abs-block]`."""
    extra = ["--abs-block"] if abs_block else []
    out = picotool_uf2(elf, tmp_path / "p.uf2", "--family", "rp2350-arm-s", *extra)
    assert out == r.from_elf(elf, e10=abs_block)


def _mem(elf: Path) -> dict[int, bytes]:
    return {b.address: b.payload for b in uf2.read(r.from_elf(elf, e10=False))}


def _with(elf: Path, addr: int, *words: int) -> bytes:
    """The image with words written at addr."""
    mem = _mem(elf)
    for i, w in enumerate(words):
        a = addr + 4 * i
        page = bytearray(mem[a & ~255])
        struct.pack_into("<I", page, a % 256, w)
        mem[a & ~255] = bytes(page)
    return uf2.write(mem, r.RP2350_ARM_S_FAMILY)


def _refused(data: bytes, says: str) -> None:
    with pytest.raises(uf2.Uf2Error, match=says):
        r.check_rp2350(uf2.read(data))


def test_each_rule_is_a_refusal_naming_what(elf: Path) -> None:
    good = r.from_elf(elf)
    _refused(uf2.from_elf(elf), r"block 0 \(0x10000000\): family 0xe48bff56, not RP2350_ARM_S")
    _refused(good[:512] + good[1024:], r"block 0 .*numbered 1 of 4, expected 0 of 3")
    _refused(uf2.write({**_mem(elf), 0x30000000: bytes(256)}, 0xE48BFF59), "outside")
    _refused(_with(elf, 0x10000008, 0), r"no IMAGE_DEF block \(0xffffded3\) in flash's first 4 KiB")
    _refused(_with(elf, 0x1000000C, 0x11210142), "IMAGE_TYPE 0x1121 is not CPU Arm")
    _refused(_with(elf, 0x1000000C, 0x10110142), "IMAGE_TYPE 0x1011 is not security S")
    _refused(_with(elf, 0x1000000C, 0x00210142), "IMAGE_TYPE 0x0021 is not chip RP2350")
    _refused(_with(elf, 0x1000000C, 0x10210103), "first item 0x03, not IMAGE_TYPE")
    _refused(_with(elf, 0x10000010, 0x000002FF), "LAST item says 2 words of items, they are 1")
    _refused(_with(elf, 0x10000018, 0), r"no end marker \(0xab123579\)")
    _refused(_with(elf, 0x10000014, 0x40), "its link leads to 0x10000048, not a block")
    _refused(_with(elf, 0x10000000, 0x30000000), "initial SP 0x30000000 is not in SRAM")
    _refused(_with(elf, 0x10000004, 0x10000020), "reset 0x10000020 is not Thumb code in flash")


def test_an_sram_image_needs_no_image_def() -> None:
    r.check_rp2350(uf2.read(uf2.write({0x20000000: bytes(256)}, r.RP2350_ARM_S_FAMILY)))
