"""Every reader on empty, truncated, wrong-type and garbage input: a FormatError that
names the file and a place in it, never another exception, never a partial capture.
A short in-test mutation fuzz complements the atheris runs."""

from __future__ import annotations

import io
import os
import random
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from rtlab.errors import FormatError
from rtlab.formats import saleae_bin, saleae_csv, sigrok, vcd
from tests.formats.test_saleae import bin_v1, square_rows, write_csv

READERS: dict[str, Callable[..., object]] = {
    "sigrok": sigrok.read,
    "saleae-bin": saleae_bin.read,
    "saleae-csv": saleae_csv.read,
    "vcd": vcd.read,
}


def png() -> bytes:
    """A real 1x1 PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00\x00"))
        + chunk(b"IEND", b"")
    )


def other_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("readme.txt", "not a capture\n")
    return buf.getvalue()


@pytest.fixture(scope="module")
def good_files(
    tmp_path_factory: pytest.TempPathFactory, demo_sr: Path, sim_dumps: dict[str, Path]
) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("good")
    rows, _ = square_rows(1, 200)
    return {
        "sigrok": demo_sr,
        "saleae-bin": bin_v1(
            d / "v1.bin",
            [
                (0, 1e8, 0.0, 1e-3, np.arange(1, 60) * 1e-6),
                (1, 1e8, 2e-3, 3e-3, 2e-3 + np.arange(1, 60) * 1e-6),
            ],
        ),
        "saleae-csv": write_csv(d / "s.csv", ["A", "B"], rows),
        "vcd": sim_dumps["vcd"],
        "fst": sim_dumps["fst"],
    }


def reader_of(kind: str) -> Callable[..., object]:
    return READERS["vcd" if kind == "fst" else kind]


def expect_format_error(kind: str, path: Path) -> FormatError:
    with pytest.raises(FormatError) as exc:
        reader_of(kind)(path)
    err = exc.value
    assert str(err).startswith(str(path)), str(err)
    return err


def located(err: FormatError) -> bool:
    return err.line is not None or err.offset is not None or err.member is not None


KINDS = ["sigrok", "saleae-bin", "saleae-csv", "vcd", "fst"]


@pytest.mark.parametrize("kind", KINDS)
def test_empty_file(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "empty"
    path.write_bytes(b"")
    err = expect_format_error(kind, path)
    assert located(err)


@pytest.mark.parametrize("kind", KINDS)
def test_wrong_type_png(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "picture.png"
    path.write_bytes(png())
    err = expect_format_error(kind, path)
    if kind != "fst":  # a binary non-FST gets no place: the FST parser reports none
        assert located(err), str(err)


@pytest.mark.parametrize("kind", KINDS)
def test_wrong_type_zip_of_something_else(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "other.zip"
    path.write_bytes(other_zip())
    err = expect_format_error(kind, path)
    if kind == "sigrok":
        assert "missing member 'version'" in str(err)
    elif kind != "fst":
        assert located(err), str(err)


@pytest.mark.parametrize("kind", KINDS)
def test_truncated(good_files: dict[str, Path], tmp_path: Path, kind: str) -> None:
    data = good_files[kind].read_bytes()
    for cut in (len(data) // 2, len(data) - 1, 20):
        # a text file cut right after a newline is a valid shorter file (VCD has no end
        # marker): cut inside a line, as a crash or a full disk does
        while kind in ("vcd", "saleae-csv") and data[cut - 1 : cut] == b"\n":
            cut -= 1
        path = tmp_path / f"cut{cut}"
        path.write_bytes(data[:cut])
        err = expect_format_error(kind, path)
        if kind != "fst":
            assert located(err), str(err)


def test_truncated_messages_say_where(good_files: dict[str, Path], tmp_path: Path) -> None:
    data = good_files["sigrok"].read_bytes()
    (tmp_path / "a.sr").write_bytes(data[: len(data) // 2])
    err = expect_format_error("sigrok", tmp_path / "a.sr")
    assert "not a zip archive" in str(err) and err.offset == 0
    data = good_files["saleae-bin"].read_bytes()
    (tmp_path / "a.bin").write_bytes(data[:-3])
    err = expect_format_error("saleae-bin", tmp_path / "a.bin")
    assert "truncated" in str(err) and err.offset is not None
    text = good_files["vcd"].read_bytes()
    (tmp_path / "a.vcd").write_bytes(text[:-2])
    err = expect_format_error("vcd", tmp_path / "a.vcd")
    assert "truncated" in str(err) and err.line == text.count(b"\n")


@pytest.mark.parametrize("kind", KINDS)
def test_garbage(tmp_path: Path, kind: str) -> None:
    rng = random.Random(kind)
    for k in range(4):
        path = tmp_path / f"garbage{k}"
        path.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))))
        expect_format_error(kind, path)


def test_corrupt_zip_member_is_named(good_files: dict[str, Path], tmp_path: Path) -> None:
    """A flipped byte inside a deflated chunk: the member's CRC or inflate fails."""
    data = bytearray(good_files["sigrok"].read_bytes())
    with zipfile.ZipFile(good_files["sigrok"]) as zf:
        info = zf.getinfo("logic-1-3")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start + info.compress_size // 2] ^= 0xFF
    path = tmp_path / "flip.sr"
    path.write_bytes(bytes(data))
    err = expect_format_error("sigrok", path)
    assert err.member == "logic-1-3"


def mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    op = rng.randrange(4)
    if op == 0:
        return bytes(b[: rng.randrange(len(b))])
    if op == 1:
        for _ in range(rng.randrange(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif op == 2:  # plant a huge number where a count or length may live
        pos = rng.randrange(max(1, len(b) - 8))
        b[pos : pos + 8] = struct.pack("<Q", rng.choice([2**63 - 1, 2**32, 2**40]))
    else:
        pos = rng.randrange(len(b))
        b[pos:pos] = os.urandom(rng.randrange(1, 64))
    return bytes(b)


@pytest.mark.parametrize(
    ("kind", "runs"),
    [("sigrok", 150), ("saleae-bin", 300), ("saleae-csv", 300), ("vcd", 40), ("fst", 40)],
)
def test_mutation_fuzz_only_format_errors(
    good_files: dict[str, Path], tmp_path: Path, kind: str, runs: int
) -> None:
    data = good_files[kind].read_bytes()
    rng = random.Random(f"fuzz-{kind}")
    path = tmp_path / "m"
    read = reader_of(kind)
    for _ in range(runs):
        path.write_bytes(mutate(data, rng))
        try:
            cap = read(path)
        except FormatError as err:
            assert str(err).startswith(str(path))
            continue
        cap.validate()  # accepted input still yields a consistent capture
