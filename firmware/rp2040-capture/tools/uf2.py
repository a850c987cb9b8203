#!/usr/bin/env python3
"""Convert a flat flash image to UF2 (the Pico's drag-and-drop format).

Each 512-byte block carries 256 bytes of payload for one flash address:
magic0, magic1, flags, address, size, block number, block count, family id,
data (476 bytes, zero padded), magic end. Family 0xE48BFF56 is the RP2040.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

MAGIC0, MAGIC1, MAGIC_END = 0x0A324655, 0x9E5D5157, 0x0AB16F30
FLAG_FAMILY_ID = 0x00002000
RP2040_FAMILY = 0xE48BFF56
PAYLOAD = 256


def to_uf2(image: bytes, base: int = 0x10000000) -> bytes:
    chunks = [image[i : i + PAYLOAD] for i in range(0, len(image), PAYLOAD)]
    out = bytearray()
    for n, chunk in enumerate(chunks):
        header = struct.pack(
            "<IIIIIIII", MAGIC0, MAGIC1, FLAG_FAMILY_ID, base + n * PAYLOAD, PAYLOAD,
            n, len(chunks), RP2040_FAMILY,
        )
        data = chunk.ljust(476, b"\0")
        out += header + data + struct.pack("<I", MAGIC_END)
    return bytes(out)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: uf2.py image.bin image.uf2", file=sys.stderr)
        return 2
    Path(argv[2]).write_bytes(to_uf2(Path(argv[1]).read_bytes()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
