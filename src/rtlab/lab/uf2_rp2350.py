"""UF2 for the RP2350 (Raspberry Pi Pico 2), Arm cores in the Secure state: written
from an ELF as picotool 2.1.1's `uf2 convert --family rp2350-arm-s --abs-block` writes
it (byte for byte), and checked before it is copied onto a board.

The pages are rtlab.lab.uf2_format's (family RP2350_ARM_S 0xE48BFF59). In front goes the
RP2350-E10 block the pico-sdk adds for A2 chips (its PICO_RP2350_A2_SUPPORTED): one page
of 0xEF for 0x10FFFF00, family ABSOLUTE 0xE48BFF57, numbered 0 of 2 on its own, tagged
"ignore this block" (RP2_IGNORE_BLOCK); an A2 boot ROM then writes the image at its
absolute addresses whatever partition table the flash holds, a later ROM skips it.

The check: what the RP2350 boot ROM needs to run a flash image: an IMAGE_DEF block
(marker 0xFFFFDED3, items, LAST, link, 0xAB123579) within the first 4 KiB, its
IMAGE_TYPE item an Arm executable for the RP2350, Secure, the block loop closed, and
the vector table it falls back on (no VECTOR_TABLE item) sane.

    data = uf2_rp2350.from_elf(Path("rtbench-freertos-pico2.elf"))
    uf2_rp2350.check_rp2350(uf2.read(data))   # Uf2Error naming what, else None
"""

from __future__ import annotations

import struct
from pathlib import Path

from rtlab.lab import uf2_format as uf2
from rtlab.lab.uf2_format import PAGE, Block, Uf2Error

RP2350_ARM_S_FAMILY = 0xE48BFF59
ABSOLUTE_FAMILY = 0xE48BFF57
FLAG_EXTENSION_TAGS = 0x8000
E10_ADDRESS = 0x10FFFF00
RP2_IGNORE_BLOCK = 0x9957E3  # extension tag: the boot ROM writes nothing of this block
FLASH = (0x10000000, 0x11000000)  # XIP window of flash device 0 (16 MiB)
SRAM = (0x20000000, 0x20082000)  # 520 KiB
BLOCK_START, BLOCK_END = 0xFFFFDED3, 0xAB123579
ITEM_IMAGE_TYPE, ITEM_VECTOR_TABLE, ITEM_LAST = 0x42, 0x03, 0xFF
SEARCH = 4096  # the boot ROM looks for the first block in flash's first 4 KiB


def e10_block() -> bytes:
    """picotool's absolute block for RP2350-E10, exactly as it writes it."""
    head = struct.pack(
        "<8I",
        uf2.MAGIC0,
        uf2.MAGIC1,
        uf2.FLAG_FAMILY | FLAG_EXTENSION_TAGS,
        E10_ADDRESS,
        PAGE,
        0,
        2,
        ABSOLUTE_FAMILY,
    )
    tag = struct.pack("<I", 4 | RP2_IGNORE_BLOCK << 8)  # 4 bytes long, then a 0 word ends
    return head + (b"\xef" * PAGE + tag).ljust(476, b"\0") + struct.pack("<I", uf2.MAGIC_END)


def from_elf(elf: Path, e10: bool = True) -> bytes:
    """The UF2 of an RP2350 ELF: the E10 block (unless e10=False), then its pages."""
    return (e10_block() if e10 else b"") + uf2.from_elf(elf, RP2350_ARM_S_FAMILY)


def _is_e10(b: Block) -> bool:
    return b.family == ABSOLUTE_FAMILY and b.address == E10_ADDRESS


def check_rp2350(blocks: list[Block]) -> None:
    """What the RP2350 boot ROM takes: an optional E10 block first, then family
    RP2350_ARM_S pages numbered 0..n-1 of n, in flash or SRAM, each once; a flash image
    holds a well-formed IMAGE_DEF in its first 4 KiB. Uf2Error naming what, else None."""
    image = blocks[1:] if blocks and _is_e10(blocks[0]) else blocks
    if not image:
        raise Uf2Error("UF2 with no image blocks")
    uf2.check(image)
    mem: dict[int, bytes] = {}
    for n, b in enumerate(image):
        where = f"UF2 block {n} (0x{b.address:08x})"
        if not b.flags & uf2.FLAG_FAMILY or b.family != RP2350_ARM_S_FAMILY:
            raise Uf2Error(
                f"{where}: family 0x{b.family:08x}, not RP2350_ARM_S (0x{RP2350_ARM_S_FAMILY:08x})"
            )
        if len(b.payload) != PAGE or b.address % PAGE:
            raise Uf2Error(f"{where}: not one aligned 256-byte page")
        if not any(lo <= b.address and b.address + PAGE <= hi for lo, hi in (FLASH, SRAM)):
            raise Uf2Error(f"{where}: outside the RP2350's flash and SRAM")
        if b.address in mem:
            raise Uf2Error(f"{where}: the page is written twice")
        mem[b.address] = b.payload
    if min(mem) < FLASH[1]:
        check_image_def(mem)


def _word(mem: dict[int, bytes], addr: int) -> int | None:
    page = mem.get(addr & ~(PAGE - 1))
    return None if page is None else struct.unpack_from("<I", page, addr % PAGE)[0]


def check_image_def(mem: dict[int, bytes]) -> None:
    """The first block in flash's first 4 KiB is an IMAGE_DEF the boot ROM runs."""
    base = FLASH[0]
    first = next((a for a in range(base, base + SEARCH, 4) if _word(mem, a) == BLOCK_START), None)
    if first is None:
        raise Uf2Error(
            "no IMAGE_DEF block (0xffffded3) in flash's first 4 KiB: the RP2350 boot ROM "
            "would not run the image"
        )
    items, link = _block(mem, first)
    kind, value = items[0]
    if kind != ITEM_IMAGE_TYPE:
        raise Uf2Error(f"block at 0x{first:08x}: first item 0x{kind:02x}, not IMAGE_TYPE (0x42)")
    flags = value >> 16
    want = {"type EXE": (flags & 0xF, 1), "security S": (flags >> 4 & 3, 2),
            "CPU Arm": (flags >> 8 & 7, 0), "chip RP2350": (flags >> 12 & 7, 1)}  # fmt: skip
    for what, (got, expected) in want.items():
        if got != expected:
            raise Uf2Error(
                f"IMAGE_DEF at 0x{first:08x}: IMAGE_TYPE 0x{flags:04x} is not {what}: "
                "not an image for this board's Secure Arm cores"
            )
    at, hops = first + link, 0
    while at != first:  # the loop of blocks must come back to the first
        hops += 1
        if hops > 16 or _word(mem, at) != BLOCK_START:
            raise Uf2Error(f"block at 0x{first:08x}: its link leads to 0x{at:08x}, not a block")
        _, link = _block(mem, at)
        at += link
    if not any(k == ITEM_VECTOR_TABLE for k, _ in items):
        _check_vectors(mem)


def _block(mem: dict[int, bytes], start: int) -> tuple[list[tuple[int, int]], int]:
    """A block's items (type, first word) and its link; Uf2Error if malformed."""
    items: list[tuple[int, int]] = []
    at, total = start + 4, 0
    for _ in range(64):
        w = _word(mem, at)
        if w is None:
            raise Uf2Error(f"block at 0x{start:08x}: runs past the image at 0x{at:08x}")
        kind = w & 0xFF
        if kind == ITEM_LAST:
            if (w >> 8) & 0xFFFF != total:
                raise Uf2Error(
                    f"block at 0x{start:08x}: LAST item says {(w >> 8) & 0xFFFF} words of "
                    f"items, they are {total}"
                )
            link, end = _word(mem, at + 4), _word(mem, at + 8)
            if link is None or end != BLOCK_END:
                raise Uf2Error(f"block at 0x{start:08x}: no end marker (0xab123579)")
            if not items:
                raise Uf2Error(f"block at 0x{start:08x}: no items")
            return items, link - (1 << 32) if link & 0x80000000 else link
        size = (w >> 8) & 0xFFFF if kind & 0x80 else (w >> 8) & 0xFF
        if size == 0:
            raise Uf2Error(f"block at 0x{start:08x}: item 0x{kind:02x} of size 0")
        items.append((kind, w))
        at, total = at + 4 * size, total + size
    raise Uf2Error(f"block at 0x{start:08x}: no LAST item")


def _check_vectors(mem: dict[int, bytes]) -> None:
    """The table at the image's start: the boot ROM loads SP and jumps to reset."""
    sp, reset = _word(mem, FLASH[0]), _word(mem, FLASH[0] + 4)
    if sp is None or reset is None:
        raise Uf2Error(f"no vector table at 0x{FLASH[0]:08x}: the boot ROM would not start")
    if not SRAM[0] < sp <= SRAM[1]:
        raise Uf2Error(f"vector table at 0x{FLASH[0]:08x}: initial SP 0x{sp:08x} is not in SRAM")
    if not reset & 1 or not FLASH[0] <= reset < FLASH[1]:
        raise Uf2Error(
            f"vector table at 0x{FLASH[0]:08x}: reset 0x{reset:08x} is not Thumb code in flash"
        )
