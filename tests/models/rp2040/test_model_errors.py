"""The model's one-line errors: a boot2 whose CRC fails, an image calling a ROM function
rtlab's ROM does not provide, an unreadable image."""

from __future__ import annotations

from pathlib import Path

from tests.models.rp2040 import model


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
    res = model.run(model.missing_rom_call_image(tmp_path), tmp_path)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "ROM function 'ZZ'" in lines[0] and "does not provide" in lines[0]


def test_unreadable_image(tmp_path: Path) -> None:
    model.build()
    res = model.run(tmp_path / "none.uf2", tmp_path)
    assert res.returncode == 2
    assert (
        res.stderr.strip()
        == f"rp2040-model: {tmp_path / 'none.uf2'}: cannot read the image (ENOENT)"
    )


def test_a_return_through_no_exc_return_value_stops_the_model(tmp_path: Path) -> None:
    """NuttX SMP's context-switch race sent a core through a frame read from ROM; the
    model says so at that instruction rather than running on in an unreachable state."""
    res = model.run(model.bad_exc_return_image(tmp_path), tmp_path)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "core 0 returned from exception 11 through 0xf882f000" in lines[0]
    assert "not an EXC_RETURN value" in lines[0]
