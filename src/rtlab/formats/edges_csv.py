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
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import FormatSpec, boolean, choice, text
from rtlab.formats.textutil import line_blocks, line_of, split_lines, tick_option
from rtlab.model import Capture, Channel, EdgeStream

_LEVELS = {"0": 0, "1": 1, "low": 0, "high": 1, "l": 0, "h": 1, "false": 0, "true": 1}
_INT = re.compile(r"^-?[0-9]{1,18}$")
_DEC = re.compile(
    r"^-?[0-9]{0,18}\.[0-9]{1,15}$|^-?[0-9]{1,18}(\.[0-9]{0,15})?[eE][-+]?[0-9]{1,2}$"
)
_LONG_INT = re.compile(r"^[-+]?[0-9]+$")
_LONG_DEC = re.compile(r"^[-+]?[0-9]*\.?[0-9]*([eE][-+]?[0-9]+)?$")
_HEADER_WORDS = ("time", "timestamp", "channel", "level", "value", "state")


def _rows(path: Path, lines: list[str], first: int = 1) -> Iterator[tuple[int, str, str, str]]:
    for lineno, raw in enumerate(lines, first):
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


_BLOCK = 4 << 20  # bytes of whole lines at a time
_MAX_LINE = 1 << 16


def _text_blocks(path: Path) -> Iterator[tuple[list[str], int, int]]:
    """(lines, line number of the first, byte offset) block by block, with the checks
    of textutil.read_text_lines raised as that function orders them (empty file, then
    the first NUL byte, then the first bad UTF-8, then the first long line): each kind
    is looked for in every block before any is raised, so a caller that reads the
    blocks to their end meets the error read_text_lines would raise."""
    found: dict[str, FormatError] = {}
    text, line = False, 1
    with open(path, "rb") as fh:
        for data, at, _ in line_blocks(fh, _BLOCK):
            text = text or bool(data.strip())
            nul = data.find(b"\x00")
            if nul >= 0:
                found.setdefault("nul", FormatError(
                    path, "binary data where text was expected", line=line - 1 + line_of(data, nul)
                ))  # fmt: skip
            try:
                lines = split_lines(data.decode("utf-8-sig" if at == 0 else "utf-8"))
            except UnicodeDecodeError as exc:
                found.setdefault("utf8", FormatError(
                    path, "not UTF-8 text", line=line - 1 + line_of(data, exc.start),
                    offset=at + exc.start,
                ))  # fmt: skip
                lines = split_lines(data.decode("utf-8", "replace"))
            long = next((k for k, ln in enumerate(lines) if len(ln) > _MAX_LINE), None)
            if long is not None:
                found.setdefault("long", FormatError(
                    path, f"line longer than {_MAX_LINE} characters", line=line + long
                ))  # fmt: skip
            if not found:
                yield lines, line, at
            line += len(lines)
    if not text:
        raise FormatError(path, "file is empty", offset=0)
    for kind in ("nul", "utf8", "long"):
        if kind in found:
            raise found[kind]


def _row_blocks(path: Path) -> Iterator[list[tuple[int, str, str, str]]]:
    """The data rows (the header row skipped) block by block."""
    first = True
    for lines, line, _ in _text_blocks(path):
        rows = list(_rows(path, lines, line))
        if first and rows:
            first = False
            if _is_header(rows[0]):
                rows = rows[1:]
        yield rows


def _row(
    path: Path,
    row: tuple[int, str, str, str],
    plan: _Plan,
    chans: dict[str, _Steps],
    last_t: dict[str, int],
    allow_repeats: bool,
    metadata: dict[str, Any],
) -> None:
    """One data row into its channel's steps, or its error (at its line)."""
    lineno, ts, name, lv = row
    t = _to_ticks(path, lineno, ts, plan.tick_s, plan.decimal)
    level = _LEVELS.get(lv.lower())
    if level is None:
        raise FormatError(path, f"level must be 0 or 1, found {lv!r}", line=lineno)
    if not name:
        raise FormatError(path, "empty channel name", line=lineno)
    steps = chans.get(name)
    if steps is None:
        chans[name], last_t[name] = _Steps(t, level), t
        return
    if t < last_t[name]:
        raise FormatError(
            path, f"time goes backwards on channel {name!r} ({t} < {last_t[name]})", line=lineno
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
        metadata["repeated_levels_skipped"] += 1


@dataclass
class _Plan:
    """What a first pass over the rows knows: the unit, the tick, every channel's
    first level (in order of first appearance) and the row count."""

    decimal: bool = False
    tick_s: Fraction = Fraction(1, 10**9)
    first_levels: dict[str, int] = field(default_factory=dict)
    n_rows: int = 0


def _first_pass(path: Path, tick: Any, unit: str | None) -> _Plan:
    """The checks read() makes of the whole file before its first edge (text, fields,
    units) and the plan; the errors of single rows are the second pass's."""
    plan, first, mixed, places = _Plan(), None, None, 0
    try:
        for rows in _row_blocks(path):
            for row in rows:
                _, ts, name, lv = row
                plan.n_rows += 1
                if first is None:
                    first = row
                    plan.decimal = unit == "s" if unit is not None else _is_decimal(ts)
                if unit is None and mixed is None and _is_decimal(ts) != plan.decimal:
                    mixed = row
                if "." in ts and "e" not in ts.lower():
                    places = max(places, len(ts.split(".", 1)[1]))
                level = _LEVELS.get(lv.lower())
                if name and level is not None and name not in plan.first_levels:
                    plan.first_levels[name] = level
    except FormatError:  # a row of the wrong shape: unless the text itself is bad
        for _ in _text_blocks(path):
            pass
        raise
    if first is None:
        raise FormatError(path, "no edge rows: expected lines of timestamp,channel,level")
    if unit is not None and unit not in ("ticks", "s"):
        raise FormatError(path, f"unit must be 'ticks' or 's', got {unit!r}")
    if mixed is not None:
        kind = "decimal seconds" if plan.decimal else "integer ticks"
        raise FormatError(
            path,
            f"timestamp {mixed[1]!r} mixes units: line {first[0]} ({first[1]!r}) made this "
            f"file's timestamps {kind}; give -O unit=s or -O unit=ticks or write "
            "every timestamp the same way",
            line=mixed[0],
        )
    if tick is not None or not plan.decimal:
        plan.tick_s = tick_option(path, tick, "1ns")
    else:
        plan.tick_s = Fraction(1, 10 ** max(places, 9))  # at least 1 ns
    return plan


def read_stream(
    path: Path, tick: Any = None, allow_repeats: bool = False, unit: str | None = None, **_: Any
) -> EdgeStream:
    """The file as a stream: a first pass checks it and finds the unit, the tick and
    each channel's initial level; the second converts the rows block by block (a row's
    error is raised from the iterator, at its line). Memory: a block of lines and one
    held-back edge per channel (a later row at its time may take it back)."""
    plan = _first_pass(path, tick, unit)
    cap = Capture(tick_s=plan.tick_s)
    for name, level in plan.first_levels.items():
        cap.add(Channel(name, np.zeros(0, np.int64), 1 - level))
    cap.metadata["repeated_levels_skipped"] = 0

    def chunks() -> Iterator[tuple[str, np.ndarray]]:
        chans: dict[str, _Steps] = {}
        last_t: dict[str, int] = {}
        for rows in _row_blocks(path):
            for row in rows:
                _row(path, row, plan, chans, last_t, allow_repeats, cap.metadata)
            for name, steps in chans.items():  # the last edge may still be taken back
                if len(steps.times) > 1:
                    yield name, np.array(steps.times[:-1], dtype=np.int64)
                    del steps.times[:-1]
        for name, steps in chans.items():
            if steps.times:
                yield name, np.array(steps.times, dtype=np.int64)
        same = {n: s.overridden for n, s in chans.items() if s.overridden}
        if same:
            cap.metadata["same_time_changes"] = same

    # edges are known once the rows are read (a row may repeat a level or be taken back)
    return EdgeStream(cap, dict.fromkeys(plan.first_levels, 0), chunks())


def read(
    path: Path, tick: Any = None, allow_repeats: bool = False, unit: str | None = None, **_: Any
) -> Capture:
    """The whole file: read_stream gathered (one set of checks and figures)."""
    return read_stream(path, tick, allow_repeats, unit).gather(fresh=True)


def _is_decimal(ts: str) -> bool:
    return "." in ts or "e" in ts.lower()


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
