"""Helpers shared by the text readers: exact decimals, line numbers of byte offsets,
blocks of whole lines."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

from rtlab.errors import FormatError
from rtlab.ticks import check_tick_range, parse_duration


def line_of(data: bytes, offset: int) -> int:
    """1-based line number of a byte offset."""
    return data.count(b"\n", 0, offset) + 1


def split_lines(text: str) -> list[str]:
    """The lines of a text, broken at `\n` only (a `\r` before it is dropped): not at
    the other characters str.splitlines() breaks at (form feed, \x1c-\x1e, \x85,
    U+2028, U+2029), which are characters of a line, so line numbers stay those of `\n`
    and a name may hold them."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the end of the last line, not a line
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def line_blocks(fh: IO[bytes], size: int, line: int | None = 1) -> Iterator[tuple[bytes, int, Any]]:
    """(block, byte offset from where `fh` stood, line number of its first byte): the
    rest of `fh` in blocks of about `size` bytes that end at a line end (the last one
    may not; a line longer than a block makes a longer block). `line=None`: no line
    numbers (None each), for a caller that never names a line (no count of them)."""
    at, rest = 0, b""
    while True:
        data = fh.read(size)
        whole = rest + data
        cut = whole.rfind(b"\n") + 1 if data else len(whole)
        if cut == 0 and data:
            rest = whole
            continue
        if cut:
            yield whole[:cut], at, line
            if line is not None:
                line += whole.count(b"\n", 0, cut)
            at += cut
        rest = whole[cut:]
        if not data:
            return


def read_text_lines(path: Path, max_line: int = 1 << 16) -> list[str]:
    """The file's lines as text, with a FormatError for binary or non-UTF-8 content."""
    data = path.read_bytes()
    if not data.strip():
        raise FormatError(path, "file is empty", offset=0)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FormatError(path, "binary data where text was expected", line=line_of(data, nul))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(
            path, "not UTF-8 text", line=line_of(data, exc.start), offset=exc.start
        ) from None
    lines = split_lines(text)
    for i, ln in enumerate(lines, 1):
        if len(ln) > max_line:
            raise FormatError(path, f"line longer than {max_line} characters", line=i)
    return lines


def tick_option(path: Path, tick: Any, default: str) -> Fraction:
    """The `tick=` option as exact seconds: '16ns', a Fraction, or a number of seconds;
    within 1 fs .. 1000 s (the same range as the CLI's --tick), else a FormatError."""
    if tick is None:
        tick = default
    try:
        if isinstance(tick, Fraction):
            value = tick
        elif isinstance(tick, int | float) and not isinstance(tick, bool):
            value = Fraction(tick)
        else:
            value = parse_duration(str(tick))
    except (ValueError, ZeroDivisionError, OverflowError) as exc:
        raise FormatError(path, f"bad tick {tick!r}: {exc}") from None
    if value <= 0:
        raise FormatError(path, f"tick must be positive, got {tick!r}")
    try:
        return check_tick_range(value, f"tick {tick!r}")
    except ValueError as exc:
        raise FormatError(path, str(exc)) from None
