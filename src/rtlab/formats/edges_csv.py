"""Generic edge CSV: `timestamp,channel,level`, one row per edge (as Grace and many
scripts write). A header row is optional. Timestamps are integers in ticks (option
tick=, default 1 ns) or decimal seconds (then read exactly; the tick is the finest
decimal place used, or tick=). The unit is decided once: by the option unit=ticks|s,
else by the first data row (a decimal point or exponent: seconds; else ticks); a later
row in the other convention is an error naming its line, never a switch of the file.
Level is 0/1 (also low/high, L/H). Channels are any names; rows of different channels
may interleave, but each channel's times must not go backwards, and a level that
repeats the channel's previous one means an edge was lost: an error, unless
allow_repeats=true (then the repeat is skipped and counted).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec, boolean, choice, text
from rtlab.formats.textutil import read_text_lines, tick_option
from rtlab.model import Capture, Channel

_LEVELS = {"0": 0, "1": 1, "low": 0, "high": 1, "l": 0, "h": 1, "false": 0, "true": 1}
_INT = re.compile(r"^-?[0-9]{1,18}$")
_DEC = re.compile(
    r"^-?[0-9]{0,18}\.[0-9]{1,15}$|^-?[0-9]{1,18}(\.[0-9]{0,15})?[eE][-+]?[0-9]{1,2}$"
)
_HEADER_WORDS = ("time", "timestamp", "channel", "level", "value", "state")


def _rows(path: Path, lines: list[str]) -> Iterator[tuple[int, str, str, str]]:
    for lineno, raw in enumerate(lines, 1):
        ln = raw.strip()
        if not ln or ln.startswith("#"):
            continue
        parts = [p.strip() for p in ln.split(",")]
        if len(parts) != 3:
            if lineno == 1 and any(w in ln.lower() for w in _HEADER_WORDS):
                continue
            raise FormatError(
                path,
                f"expected 3 fields (timestamp,channel,level), found {len(parts)}",
                line=lineno,
            )
        yield lineno, parts[0], parts[1], parts[2]


def read(
    path: Path,
    tick: Any = None,
    allow_repeats: bool = False,
    unit: str | None = None,
    **_: Any,
) -> Capture:
    lines = read_text_lines(path)
    rows = list(_rows(path, lines))
    if rows and not _is_number(rows[0][1]):
        rows = rows[1:]  # a header: "timestamp,channel,level" or similar
    if not rows:
        raise FormatError(path, "no edge rows: expected lines of timestamp,channel,level")
    decimal = _decimal_unit(path, rows, unit)
    tick_s = _choose_tick(path, rows, tick, decimal)
    times: dict[str, list[int]] = {}
    first_level: dict[str, int] = {}
    last: dict[str, tuple[int, int]] = {}
    repeats = 0
    for lineno, ts, name, lv in rows:
        t = _to_ticks(path, lineno, ts, tick_s, decimal)
        level = _LEVELS.get(lv.lower())
        if level is None:
            raise FormatError(path, f"level must be 0 or 1, found {lv!r}", line=lineno)
        if not name:
            raise FormatError(path, "empty channel name", line=lineno)
        prev = last.get(name)
        if prev is None:
            first_level[name] = level
            times[name] = []
        else:
            if t < prev[0]:
                raise FormatError(
                    path,
                    f"time goes backwards on channel {name!r} ({t} < {prev[0]})",
                    line=lineno,
                )
            if level == prev[1]:
                if not allow_repeats:
                    raise FormatError(
                        path,
                        f"level {level} repeats the previous level of channel {name!r}: "
                        "an edge is missing (allow_repeats=True skips such rows)",
                        line=lineno,
                    )
                repeats += 1
                continue
        times[name].append(t)
        last[name] = (t, level)
    cap = Capture(tick_s=tick_s)
    for name, ts_list in times.items():
        cap.add(Channel(name, np.array(ts_list, dtype=np.int64), 1 - first_level[name]))
    cap.metadata["repeated_levels_skipped"] = repeats
    return cap


def _is_decimal(ts: str) -> bool:
    return "." in ts or "e" in ts.lower()


def _decimal_unit(path: Path, rows: list, unit: str | None) -> bool:
    """True for decimal seconds: unit= says, else the first row does, and every row
    must agree (one `300.5` among integer ticks must not turn them all into seconds)."""
    if unit is not None:
        if unit not in ("ticks", "s"):
            raise FormatError(path, f"unit must be 'ticks' or 's', got {unit!r}")
        return unit == "s"
    line0, ts0 = rows[0][0], rows[0][1]
    decimal = _is_decimal(ts0)
    for lineno, ts, _, _ in rows:
        if _is_decimal(ts) != decimal:
            first = "decimal seconds" if decimal else "integer ticks"
            raise FormatError(
                path,
                f"timestamp {ts!r} mixes units: line {line0} ({ts0!r}) made this file's "
                f"timestamps {first}; give unit=s or unit=ticks (-O unit=...) or write "
                "every timestamp the same way",
                line=lineno,
            )
    return decimal


def _is_number(text: str) -> bool:
    return bool(_INT.match(text) or _DEC.match(text))


def _choose_tick(path: Path, rows: list, tick: Any, decimal: bool) -> Fraction:
    if tick is not None or not decimal:
        return tick_option(path, tick, "1ns")
    places = 0
    for _, ts, _, _ in rows:
        if "." in ts and "e" not in ts.lower():
            places = max(places, len(ts.split(".", 1)[1]))
    return Fraction(1, 10 ** max(places, 9))  # at least 1 ns


def _to_ticks(path: Path, lineno: int, ts: str, tick_s: Fraction, decimal: bool) -> int:
    if decimal:
        if not _DEC.match(ts) and not _INT.match(ts):
            raise FormatError(path, f"bad timestamp {ts!r}: expected a number", line=lineno)
        value = Fraction(ts) / tick_s
        if value.denominator != 1:
            raise FormatError(
                path,
                f"timestamp {ts} s is not a whole number of ticks ({tick_s} s)",
                line=lineno,
            )
        result = int(value)
    else:
        if not _INT.match(ts):
            raise FormatError(path, f"bad timestamp {ts!r}: expected an integer", line=lineno)
        result = int(ts)
    if abs(result) >= 1 << 62:
        raise FormatError(path, f"timestamp {ts} out of range", line=lineno)
    return result


def _sniff(head: bytes, path: Path) -> bool:
    first = head.split(b"\n", 1)[0].strip().lower().replace(b" ", b"")
    return first in (b"timestamp,channel,level", b"time,channel,level")


FORMAT = FormatSpec(
    name="edges-csv",
    extensions=(".edges.csv", ".csv"),
    read=read,
    sniff=_sniff,
    description="generic edge list: timestamp,channel,level",
    options={"tick": text, "allow_repeats": boolean, "unit": choice("ticks", "s")},
)
