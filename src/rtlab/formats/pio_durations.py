"""The RP2040 PIO duration CSV of the GPIO study: one integer per line, alternating
durations of the high and low levels of one signal, in instrument ticks (the study:
2 PIO cycles at 125 MHz = 16 ns).

Options: tick (default '16ns'), first_level (1: the first value is a high level),
channel (the channel's name, default 'D0').
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec, integer, text
from rtlab.formats.textutil import line_blocks, line_of, tick_option
from rtlab.model import Capture, Channel, EdgeStream

_BAD_BYTE = re.compile(rb"[^0-9\r\n \t]")
_LINE_OK = re.compile(rb"^[ \t]*[0-9]+[ \t]*\r?$|^[ \t]*\r?$")
_TWO_ON_A_LINE = re.compile(rb"[0-9][ \t]+[0-9]")
_TOO_LONG = re.compile(rb"[0-9]{16}")  # > 10^15 ticks: a corrupt line, not a level


_BLOCK = 16 << 20  # bytes read at a time, cut at a line end


def _blocks(path: Path) -> Iterator[tuple[bytes, int, int]]:
    """(block, byte offset, line number of its first byte): the file in blocks that end
    at a line end (the last one may not)."""
    with open(path, "rb") as fh:
        yield from line_blocks(fh, _BLOCK)


def _check(path: Path, data: bytes, at: int, line0: int) -> None:
    """The checks of one block's text (its lines whole)."""
    bad = _BAD_BYTE.search(data)
    if bad is not None:
        what = (
            "a negative duration: a level lasts at least one tick"
            if bad.group() == b"-"
            else f"unexpected byte {bad.group()!r}: expected one non-negative integer per line"
        )
        raise FormatError(
            path, what, line=line0 - 1 + line_of(data, bad.start()), offset=at + bad.start()
        )
    two = _TWO_ON_A_LINE.search(data)
    if two is not None:
        raise FormatError(
            path,
            "two values on one line: expected one integer per line",
            line=line0 - 1 + line_of(data, two.start()),
        )
    big = _TOO_LONG.search(data)
    if big is not None:
        raise FormatError(path, "duration too large", line=line0 - 1 + line_of(data, big.start()))


def _count(path: Path) -> int:
    """The number of values, every block's text checked, in read()'s order of checks
    (empty, cut last line, then the first bad line): a first pass at memory speed, so
    that the stream's header holds the edge count."""
    values, newlines, text, last, error = 0, 0, False, b"", None
    for data, at, line0 in _blocks(path):
        if error is None:
            try:
                _check(path, data, at, line0)
            except FormatError as exc:
                error = exc
        arr = np.frombuffer(data, dtype=np.uint8)
        digit = (arr >= 48) & (arr <= 57)
        values += int(np.count_nonzero(digit[1:] & ~digit[:-1])) + int(digit[:1].sum())
        text = text or bool(data.strip())
        newlines += data.count(b"\n")
        last = data[-1:]
    if not text:
        raise FormatError(path, "file is empty: expected one integer duration per line", offset=0)
    if last != b"\n":  # the host ends each value's line: this file was cut
        raise FormatError(
            path,
            "the file ends in the middle of a line: truncated (the last value may be cut)",
            line=newlines + 1,
        )
    if error is not None:
        raise error
    return values


def read_stream(
    path: Path, tick: Any = None, first_level: int = 1, channel: str = "D0", **_: Any
) -> EdgeStream:
    """The capture block by block (EdgeStream): every line is checked by a first pass,
    the durations are summed as they are read (an error from the iterator names the
    line of a zero duration or of a sum beyond a 64-bit tick counter); the window's end
    is in the header once the stream is read."""
    tick_s = tick_option(path, tick, "16ns")
    if first_level not in (0, 1):
        raise FormatError(path, f"first_level must be 0 or 1, got {first_level!r}")
    n = _count(path)
    cap = Capture(tick_s=tick_s, t_start=0)
    # The first edge starts the first measured level; before it the level was the other.
    cap.add(Channel(channel, np.zeros(0, np.int64), initial_level=1 - first_level))
    cap.metadata["instrument"] = "rp2040-pio-durations"

    def chunks() -> Iterator[tuple[str, np.ndarray]]:
        t, total = 0, 0.0
        yield channel, np.zeros(1, dtype=np.int64)
        for data, _, line0 in _blocks(path):
            durations = np.array(data.split(), dtype=np.int64)
            if durations.size == 0:
                continue
            total += float(durations.sum(dtype=np.float64))
            if total >= 2.0**62:
                raise FormatError(path, "durations add up to more than a 64-bit tick counter holds")
            zero = np.flatnonzero(durations <= 0)
            if zero.size:
                raise FormatError(
                    path,
                    "duration 0: a level lasts at least one tick",
                    line=line0 - 1 + _line_of_token(data, int(zero[0])),
                )
            durations[0] += t
            edges = np.cumsum(durations, out=durations)
            t = int(edges[-1])
            cap.t_end = t
            yield channel, edges

    return EdgeStream(cap, {channel: n + 1}, chunks())


def read(
    path: Path,
    tick: Any = None,
    first_level: int = 1,
    channel: str = "D0",
    **_: Any,
) -> Capture:
    """The whole capture: read_stream gathered (one set of checks and figures)."""
    return read_stream(path, tick, first_level, channel).gather(fresh=True)


def _line_of_token(data: bytes, index: int) -> int:
    count = -1
    for i, ln in enumerate(data.split(b"\n"), 1):
        if ln.strip():
            count += 1
            if count == index:
                return i
    return 0


def _sniff(head: bytes, path: Path) -> bool:
    if path.suffix.lower() not in (".csv", ".txt", ".dat"):
        return False
    lines = [ln for ln in head.split(b"\n")[:20] if ln.strip()]
    # the last line may be cut (or be the bad line the reader will name), but a one-line
    # file must itself be a duration: `1234567890123456789,a,1` is no pio file
    return bool(lines) and all(_LINE_OK.match(ln) for ln in (lines[:-1] or lines))


FORMAT = FormatSpec.of(
    globals(), "pio-durations", (".pio.csv",),
    "RP2040 PIO level durations, one integer per line (the GPIO study's CSV)",
    {"tick": text, "first_level": integer, "channel": text},
)  # fmt: skip
