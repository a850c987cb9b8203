"""UF2, the image format of the Raspberry Pi Pico's boot drive (github.com/microsoft/uf2):
written from an ELF, and checked before it is copied onto a board.

Each 512-byte block carries 256 bytes for one flash page: magic 0x0A324655 and
0x9E5D5157, flags, target address, payload size, block number, block count, the family
ID (flag 0x2000: RP2040 = 0xE48BFF56), the payload, end magic 0x0AB16F30. The loaded
segments are cut into 256-byte pages at their physical (load) addresses, as picotool's
`uf2 convert` does; a gap inside a page is zero, and so is a page missing from a 4 KiB
flash sector the image writes (picotool's padding; not after the last page).

    data = uf2.from_elf(Path("rtbench-nuttx-pico.elf"))
    uf2.check_rp2040(uf2.read(data))          # Uf2Error naming the block, else None
    uf2.check(uf2.read(data))                 # numbering only (any family)
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

MAGIC0, MAGIC1, MAGIC_END = 0x0A324655, 0x9E5D5157, 0x0AB16F30
FLAG_NOT_MAIN_FLASH, FLAG_FAMILY = 0x0001, 0x2000
RP2040_FAMILY = 0xE48BFF56
PAGE = 256
SECTOR = 4096  # flash erase sector
BLOCK = 512
_HEAD = struct.Struct("<8I")  # magic0, magic1, flags, addr, size, block_no, num_blocks, family
# Where an RP2040 image may load: XIP flash (16 MiB window) or SRAM (264 KiB).
RP2040_FLASH = (0x10000000, 0x11000000)
RP2040_SRAM = (0x20000000, 0x20042000)
RP2040_AREAS = (RP2040_FLASH, RP2040_SRAM)
BOOT2_SIZE = 256  # stage 2 at the start of flash: 252 bytes of code + its CRC


class Uf2Error(ValueError):
    """A malformed ELF or UF2: one line naming what and where."""


@dataclass(frozen=True)
class Block:
    flags: int
    address: int
    payload: bytes
    number: int
    count: int
    family: int


def elf_segments(elf: Path) -> list[tuple[int, bytes]]:
    """The ELF's loaded bytes as (physical address, data): 32-bit little-endian ARM."""
    data = elf.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise Uf2Error(f"{elf}: not a 32-bit little-endian ELF")
    (phoff,) = struct.unpack_from("<I", data, 28)
    phentsize, phnum = struct.unpack_from("<HH", data, 42)
    out = []
    for i in range(phnum):
        p_type, offset, _vaddr, paddr, filesz = struct.unpack_from(
            "<5I", data, phoff + i * phentsize
        )
        if p_type == 1 and filesz:  # PT_LOAD with bytes in the file
            if offset + filesz > len(data):
                raise Uf2Error(f"{elf}: segment {i} runs past the end of the file")
            out.append((paddr, data[offset : offset + filesz]))
    if not out:
        raise Uf2Error(f"{elf}: no loadable segment")
    return sorted(out)


def from_elf(elf: Path, family: int = RP2040_FAMILY) -> bytes:
    """The UF2 image of an ELF's loaded segments, page by page in address order."""
    pages: dict[int, bytearray] = {}
    for addr, chunk in elf_segments(elf):
        for i, byte_ in enumerate(chunk):
            a = addr + i
            pages.setdefault(a & ~(PAGE - 1), bytearray(PAGE))[a % PAGE] = byte_
    if min(pages) < RP2040_SRAM[0]:  # a flash image (XIP: 0x10000000 on both chips)
        _pad_sectors(pages)
    return write({a: bytes(p) for a, p in pages.items()}, family)


def _pad_sectors(pages: dict[int, bytearray]) -> None:
    """picotool's zero pages in every gap of a 4 KiB flash sector the image touches (up
    to its last page): the boot ROM works out which sector to erase from the block
    number, so a sector must not be left part-written."""
    last = max(pages)
    for sector in {a // SECTOR for a in pages}:
        for a in range(sector * SECTOR, min((sector + 1) * SECTOR, last), PAGE):
            pages.setdefault(a, bytearray(PAGE))


def write(pages: dict[int, bytes], family: int = RP2040_FAMILY) -> bytes:
    """UF2 blocks for 256-byte pages (address -> data)."""
    out = bytearray()
    for n, addr in enumerate(sorted(pages)):
        head = _HEAD.pack(MAGIC0, MAGIC1, FLAG_FAMILY, addr, PAGE, n, len(pages), family)
        out += head + pages[addr].ljust(476, b"\0") + struct.pack("<I", MAGIC_END)
    return bytes(out)


def read(data: bytes) -> list[Block]:
    """The blocks of a UF2 image; Uf2Error naming the first malformed one."""
    if not data or len(data) % BLOCK:
        raise Uf2Error(f"UF2 of {len(data)} bytes: not a whole number of 512-byte blocks")
    blocks = []
    for n in range(len(data) // BLOCK):
        raw = data[n * BLOCK : (n + 1) * BLOCK]
        m0, m1, flags, addr, size, number, count, family = _HEAD.unpack_from(raw)
        (end,) = struct.unpack_from("<I", raw, BLOCK - 4)
        if (m0, m1, end) != (MAGIC0, MAGIC1, MAGIC_END):
            raise Uf2Error(f"UF2 block {n}: bad magic")
        if size > 476:
            raise Uf2Error(f"UF2 block {n}: payload of {size} bytes (at most 476)")
        blocks.append(Block(flags, addr, raw[32 : 32 + size], number, count, family))
    return blocks


def check(blocks: list[Block]) -> None:
    """What every UF2 boot loader needs: blocks numbered 0..n-1 of n."""
    for n, b in enumerate(blocks):
        if b.number != n or b.count != len(blocks):
            raise Uf2Error(
                f"UF2 block {n} (0x{b.address:08x}): numbered {b.number} of {b.count}, "
                f"expected {n} of {len(blocks)}"
            )


def check_rp2040(blocks: list[Block]) -> None:
    """What the RP2040 boot ROM takes: family ID, 256-byte pages in flash or SRAM,
    blocks numbered 0..n-1 of n, each page once; a flash image starts with a stage 2
    whose CRC holds (the boot ROM refuses to run it otherwise)."""
    check(blocks)
    seen: set[int] = set()
    for n, b in enumerate(blocks):
        where = f"UF2 block {n} (0x{b.address:08x})"
        if not b.flags & FLAG_FAMILY or b.family != RP2040_FAMILY:
            raise Uf2Error(f"{where}: family 0x{b.family:08x}, not RP2040 (0x{RP2040_FAMILY:08x})")
        if len(b.payload) != PAGE or b.address % PAGE:
            raise Uf2Error(f"{where}: not one aligned 256-byte page")
        inside = (lo <= b.address and b.address + PAGE <= hi for lo, hi in RP2040_AREAS)
        if not any(inside):
            raise Uf2Error(f"{where}: outside the RP2040's flash and SRAM")
        if b.address in seen:
            raise Uf2Error(f"{where}: the page is written twice")
        seen.add(b.address)
    first = min(blocks, key=lambda b: b.address)
    if first.address >= RP2040_FLASH[1]:
        return  # an SRAM image: no stage 2
    if first.address != RP2040_FLASH[0]:
        raise Uf2Error(f"flash image starts at 0x{first.address:08x}: no stage 2 at 0x10000000")
    code, crc = first.payload[:252], struct.unpack_from("<I", first.payload, 252)[0]
    if crc32_mpeg2(code) != crc:
        raise Uf2Error(
            f"stage 2 at 0x10000000: CRC 0x{crc:08x} does not match its code "
            f"(0x{crc32_mpeg2(code):08x}): the boot ROM would not run it"
        )


def crc32_mpeg2(data: bytes) -> int:
    """CRC-32/MPEG-2 (poly 0x04C11DB7, init 0xFFFFFFFF, no reflection, no final xor):
    the boot ROM's check of stage 2."""
    crc = 0xFFFFFFFF
    for byte_ in data:
        crc ^= byte_ << 24
        for _ in range(8):
            crc = (crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1
            crc &= 0xFFFFFFFF
    return crc
