"""The RP2040 PIO duration CSV of the GPIO study: one integer per line, alternating
durations of the high and low levels of one signal, in instrument ticks (the study:
2 PIO cycles at 125 MHz = 16 ns).

Options: tick (default '16ns'), first_level (1: the first value is a high level),
channel (the channel's name, default 'D0').
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec, integer, text
from rtlab.formats.textutil import line_of, tick_option
from rtlab.model import Capture, Channel

_BAD_BYTE = re.compile(rb"[^0-9\r\n \t]")
_LINE_OK = re.compile(rb"^[ \t]*[0-9]+[ \t]*\r?$|^[ \t]*\r?$")
_TWO_ON_A_LINE = re.compile(rb"[0-9][ \t]+[0-9]")
_TOO_LONG = re.compile(rb"[0-9]{16}")  # > 10^15 ticks: a corrupt line, not a level


def read(
    path: Path,
    tick: Any = None,
    first_level: int = 1,
    channel: str = "D0",
    **_: Any,
) -> Capture:
    tick_s = tick_option(path, tick, "16ns")
    if first_level not in (0, 1):
        raise FormatError(path, f"first_level must be 0 or 1, got {first_level!r}")
    data = path.read_bytes()
    if not data.strip():
        raise FormatError(path, "file is empty: expected one integer duration per line", offset=0)
    if not data.endswith(b"\n"):  # the host ends each value's line: this file was cut
        raise FormatError(
            path,
            "the file ends in the middle of a line: truncated (the last value may be cut)",
            line=data.count(b"\n") + 1,
        )
    bad = _BAD_BYTE.search(data)
    if bad is not None:
        what = (
            "a negative duration: a level lasts at least one tick"
            if bad.group() == b"-"
            else f"unexpected byte {bad.group()!r}: expected one non-negative integer per line"
        )
        raise FormatError(
            path,
            what,
            line=line_of(data, bad.start()),
            offset=bad.start(),
        )
    two = _TWO_ON_A_LINE.search(data)
    if two is not None:
        raise FormatError(
            path,
            "two values on one line: expected one integer per line",
            line=line_of(data, two.start()),
        )
    big = _TOO_LONG.search(data)
    if big is not None:
        raise FormatError(path, "duration too large", line=line_of(data, big.start()))
    durations = np.array(data.split(), dtype=np.int64)
    if float(durations.sum(dtype=np.float64)) >= 2.0**62:
        raise FormatError(path, "durations add up to more than a 64-bit tick counter holds")
    zero = np.flatnonzero(durations <= 0)
    if zero.size:
        raise FormatError(
            path,
            "duration 0: a level lasts at least one tick",
            line=_line_of_token(data, int(zero[0])),
        )
    edges = np.empty(durations.size + 1, dtype=np.int64)
    edges[0] = 0
    np.cumsum(durations, out=edges[1:])
    cap = Capture(tick_s=tick_s, t_start=0, t_end=int(edges[-1]))
    # The first edge starts the first measured level; before it the level was the other.
    cap.add(Channel(channel, edges, initial_level=1 - first_level))
    cap.metadata["instrument"] = "rp2040-pio-durations"
    return cap


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


FORMAT = FormatSpec(
    name="pio-durations",
    extensions=(".pio.csv",),
    read=read,
    sniff=_sniff,
    description="RP2040 PIO level durations, one integer per line (the GPIO study's CSV)",
    options={"tick": text, "first_level": integer, "channel": text},
)
