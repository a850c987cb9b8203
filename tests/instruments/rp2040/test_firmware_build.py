"""The firmware image: boot2 checksum, vector table, UF2 container."""

from __future__ import annotations

import struct
import sys

import pytest

from tests.instruments.rp2040 import harness as h

pytestmark = pytest.mark.usefixtures("arm_gcc")

sys.path.insert(0, str(h.FW / "tools"))
from mkboot2 import crc32_mpeg2  # noqa: E402
from uf2 import RP2040_FAMILY, to_uf2  # noqa: E402


@pytest.fixture(scope="module")
def image() -> bytes:
    return h.build_firmware().read_bytes()


def test_boot2_crc_and_size(image: bytes) -> None:
    assert crc32_mpeg2(b"123456789") == 0x0376E6E7
    assert struct.unpack_from("<I", image, 252)[0] == crc32_mpeg2(image[:252])


def test_vector_table_after_boot2(image: bytes) -> None:
    sp, reset = struct.unpack_from("<II", image, 0x100)
    assert sp == 0x20042000  # top of the scratch banks
    assert reset & 1 and 0x10000100 < reset < 0x10000000 + len(image)  # thumb, in flash


def test_uf2_blocks(image: bytes) -> None:
    uf2 = (h.FW / "build" / "rtlab-capture.uf2").read_bytes()
    assert uf2 == to_uf2(image)
    n = (len(image) + 255) // 256
    assert len(uf2) == 512 * n
    for i in range(n):
        blk = uf2[512 * i : 512 * (i + 1)]
        m0, m1, flags, addr, size, no, total, fam = struct.unpack_from("<8I", blk)
        assert (m0, m1) == (0x0A324655, 0x9E5D5157)
        assert struct.unpack_from("<I", blk, 508)[0] == 0x0AB16F30
        assert (addr, size, no, total, fam) == (0x10000000 + 256 * i, 256, i, n, RP2040_FAMILY)
        assert flags & 0x2000
        assert blk[32 : 32 + 256] == image[256 * i : 256 * (i + 1)].ljust(256, b"\0")
