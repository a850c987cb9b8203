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
_LONG_INT = re.compile(r"^[-+]?[0-9]+$")
_LONG_DEC = re.compile(r"^[-+]?[0-9]*\.?[0-9]*([eE][-+]?[0-9]+)?$")
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


def _is_header(row: tuple[int, str, str, str]) -> bool:
    """The first row is a header when its timestamp field is a word ("timestamp",
    "time [ns]"), not something meant as a number: `1O0`, `nan` or `inf` are data, and
    refused as bad timestamps at line 1 rather than skipped as a header."""
    ts = row[1].strip().strip('"').lower()
    if not ts or not ts[0].isalpha():
        return False
    try:
        float(ts)
    except ValueError:
        return True
    return False  # nan, inf, infinity: a number word, meant as a time


class _Steps:
    """One channel's edges, one value per time step: of several rows at one time the
    last wins (a zero-width pulse is no edge pair), as the VCD reader and sigrok do."""

    def __init__(self, t: int, level: int) -> None:
        self.times = [t]
        self.initial = 1 - level  # the first row is an edge into its level
        self.step, self.level = t, level
        self.overridden = 0

    def add(self, t: int, level: int) -> bool:
        """False when the row repeats the level before its time step (a lost edge)."""
        if t == self.step:
            if level != self.level:
                self.overridden += 1
                if self.times and self.times[-1] == t:
                    self.times.pop()  # back to the level before the step
                else:
                    self.times.append(t)
                self.level = level
            return True
        self.step = t
        if level == self.level:
            return False
        self.times.append(t)
        self.level = level
        return True


def read(
    path: Path,
    tick: Any = None,
    allow_repeats: bool = False,
    unit: str | None = None,
    **_: Any,
) -> Capture:
    lines = read_text_lines(path)
    rows = list(_rows(path, lines))
    if rows and _is_header(rows[0]):
        rows = rows[1:]  # a header: "timestamp,channel,level" or similar
    if not rows:
        raise FormatError(path, "no edge rows: expected lines of timestamp,channel,level")
    decimal = _decimal_unit(path, rows, unit)
    tick_s = _choose_tick(path, rows, tick, decimal)
    chans: dict[str, _Steps] = {}
    last_t: dict[str, int] = {}
    repeats = 0
    for lineno, ts, name, lv in rows:
        t = _to_ticks(path, lineno, ts, tick_s, decimal)
        level = _LEVELS.get(lv.lower())
        if level is None:
            raise FormatError(path, f"level must be 0 or 1, found {lv!r}", line=lineno)
        if not name:
            raise FormatError(path, "empty channel name", line=lineno)
        steps = chans.get(name)
        if steps is None:
            chans[name], last_t[name] = _Steps(t, level), t
            continue
        if t < last_t[name]:
            raise FormatError(
                path,
                f"time goes backwards on channel {name!r} ({t} < {last_t[name]})",
                line=lineno,
            )
        last_t[name] = t
        if not steps.add(t, level):
            if not allow_repeats:
                raise FormatError(
                    path,
                    f"level {level} repeats the previous level of channel {name!r}: "
                    "an edge is missing (allow_repeats=True skips such rows)",
                    line=lineno,
                )
            repeats += 1
    cap = Capture(tick_s=tick_s)
    for name, steps in chans.items():
        cap.add(Channel(name, np.array(steps.times, dtype=np.int64), steps.initial))
    cap.metadata["repeated_levels_skipped"] = repeats
    same = {n: s.overridden for n, s in chans.items() if s.overridden}
    if same:
        cap.metadata["same_time_changes"] = same
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
            if _LONG_DEC.match(ts):
                raise FormatError(
                    path,
                    f"timestamp {ts} has too many digits (at most 18 before "
                    "and 15 after the point)",
                    line=lineno,
                )
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
            if _LONG_INT.match(ts):
                raise FormatError(
                    path,
                    f"timestamp {ts} out of range: at most 18 digits (below 10^18 ticks)",
                    line=lineno,
                )
            raise FormatError(path, f"bad timestamp {ts!r}: expected an integer", line=lineno)
        result = int(ts)
    if abs(result) >= 1 << 62:
        raise FormatError(path, f"timestamp {ts} out of range", line=lineno)
    return result


def _sniff(head: bytes, path: Path) -> bool:
    first = head.split(b"\n", 1)[0].strip().lower().replace(b" ", b"")
    return first in (b"timestamp,channel,level", b"time,channel,level")


FORMAT = FormatSpec.of(
    globals(), "edges-csv", (".edges.csv", ".csv"), "generic edge list: timestamp,channel,level",
    {"tick": text, "allow_repeats": boolean, "unit": choice("ticks", "s")},
)  # fmt: skip
