"""The sigrok session file's zip container: bounded member reads, and the logic stream's
thousands of small members inflated straight from a memory map (formats/sigrok.py reads
what they hold)."""

from __future__ import annotations

import mmap
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from rtlab.errors import FormatError

BATCH_BYTES = 4 << 20  # decode this much sample data per numpy pass
_READ_BYTES = 1 << 20
_ONE_SHOT_BYTES = 4 << 10  # compressed members up to this inflate in one call


def open_zip(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise FormatError(
            path, f"not a zip archive, as a sigrok session file must be ({exc})", offset=0
        ) from None
    except (OSError, ValueError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise FormatError(path, f"cannot read the zip archive: {exc}", offset=0) from None


def read_member(zf: zipfile.ZipFile, path: Path, name: str, limit: int) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise FormatError(path, f"missing member {name!r}: not a sigrok session file") from None
    if info.file_size > limit:
        raise FormatError(
            path, f"member is {info.file_size} bytes, expected at most {limit}", member=name
        )
    check_method(path, info)
    try:
        with zf.open(info) as fh:
            data = fh.read(limit + 1)
    except Exception as exc:  # zlib.error, BadZipFile (CRC), EOFError, …
        raise FormatError(path, f"corrupt zip member: {exc}", member=name) from None
    if len(data) > limit:
        raise FormatError(path, f"member holds more than {limit} bytes", member=name)
    return data


def check_method(path: Path, info: zipfile.ZipInfo) -> None:
    """sigrok stores or deflates; deflate expands at most ~1000x, so a small file
    cannot unpack into endless data (bzip2 or lzma could)."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise FormatError(
            path,
            f"compression method {info.compress_type}, expected stored "
            "or deflated as sigrok writes",
            member=info.filename,
        )


def logic_members(zf: zipfile.ZipFile, path: Path, capturefile: str) -> list[str]:
    """Members of the logic stream in order: `logic-1` (old files) then `logic-1-N`."""
    prefix = capturefile + "-"
    found: list[tuple[int, str]] = []
    for name in zf.namelist():  # string tests, not a regex: sessions hold 1000s of members
        if name == capturefile:
            found.append((0, name))
        elif name.startswith(prefix):
            num = name[len(prefix) :]
            if 0 < len(num) <= 9 and num.isascii() and num.isdigit():
                found.append((int(num), name))
    if not found:
        raise FormatError(
            path, f"no logic data: no member {capturefile!r} or {capturefile + '-1'!r}"
        )
    found.sort()
    numbered = [n for n, _ in found if n]
    for k, n in enumerate(numbered, 1):  # numbered from 1, none missing
        if n != k:
            raise FormatError(path, f"logic chunk {capturefile}-{k} is missing")
    return [name for _, name in found]


def inflate(path: Path, view: mmap.mmap, info: zipfile.ZipInfo) -> bytes:
    """One small member straight from the mapped archive: sigrok writes thousands of
    4 KiB members, and zipfile's per-member open costs more than inflating them."""
    off = info.header_offset
    head = view[off : off + 30]
    if len(head) != 30 or head[:4] != b"PK\x03\x04":
        raise FormatError(path, "bad local zip header", member=info.filename, offset=off)
    name_len, extra_len = struct.unpack_from("<HH", head, 26)
    start = off + 30 + name_len + extra_len
    comp = view[start : start + info.compress_size]
    if len(comp) != info.compress_size:
        raise FormatError(path, "zip member is truncated", member=info.filename, offset=start)
    if info.compress_type == zipfile.ZIP_DEFLATED:
        try:
            if len(comp) <= _ONE_SHOT_BYTES:
                # one call, no inflater object: 2x faster on 4 KiB members, and
                # deflate's ~1032x limit bounds the output at a few MB
                data = zlib.decompress(comp, -15, info.file_size or 1)
            else:  # stop at file_size + 1: a lying directory cannot make us inflate more
                data = zlib.decompressobj(-15).decompress(comp, info.file_size + 1)
        except zlib.error as exc:
            raise FormatError(
                path, f"corrupt zip member: {exc}", member=info.filename, offset=start
            ) from None
    else:
        data = comp
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise FormatError(
            path,
            "corrupt zip member: size or CRC-32 differs from the zip directory",
            member=info.filename,
            offset=start,
        )
    return data


def streamed(zf: zipfile.ZipFile, path: Path, name: str) -> Iterator[bytes]:
    """A large member (old single `logic-1` files) in blocks, never whole in memory."""
    try:
        with zf.open(name) as fh:
            while block := fh.read(_READ_BYTES):
                yield block
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,
        RuntimeError,
    ) as exc:
        raise FormatError(path, f"corrupt zip member: {exc}", member=name) from None


def batches(zf: zipfile.ZipFile, path: Path, members: list[str]) -> Iterator[bytes]:
    """The concatenated sample bytes, in batches of about BATCH_BYTES."""
    buf: list[bytes] = []
    size = 0
    with open(path, "rb") as raw:
        try:
            mapped = mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise FormatError(path, f"cannot map the file: {exc}") from None
        with mapped:  # slices of an mmap are copies: no buffer outlives it
            for name in members:
                info = zf.getinfo(name)
                check_method(path, info)
                if info.compress_size <= _READ_BYTES and info.file_size <= _READ_BYTES:
                    blocks: Iterator[bytes] | tuple[bytes] = (inflate(path, mapped, info),)
                else:
                    blocks = streamed(zf, path, name)
                for block in blocks:
                    buf.append(block)
                    size += len(block)
                    if size >= BATCH_BYTES:
                        yield b"".join(buf)
                        buf, size = [], 0
                del blocks
                # reads through the map move no file position: set it to the member's
                # end, so that a progress bar (cli/progress.py) sees how far the read is
                raw.seek(info.header_offset + info.compress_size)
    if buf:
        yield b"".join(buf)
