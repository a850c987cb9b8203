"""The footer of a Parquet file, read without Arrow (parquet_thrift, pure Python).

`read_plan` gives what rtlab's reader needs: the column names, the `rtlab.capture`
metadata, each row group's channel (from its statistics: rtlab's writers store them)
and row count, and where each row group's `time` column chunk lies when the compiled
decoder can read it (uncompressed, DELTA_BINARY_PACKED, INT64). Everything is checked
against the file's size: a corrupt footer is a FormatError naming what is wrong.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.errors import FormatError
from rtlab.formats.parquet_thrift import read_struct

MAGIC = b"PAR1"
_DECODABLE = {3, 4, 5}  # RLE, BIT_PACKED (levels), DELTA_BINARY_PACKED
_INT32, _INT64 = 1, 2
MAX_FOOTER = 1 << 28
# A row group the footer says is larger than this is read the slow way (no huge buffer).
MAX_ROWS = 1 << 24


@dataclass
class Plan:
    """The footer as rtlab reads it (see the module doc)."""

    names: list[str]
    meta: str | None
    # (channel index or None when the statistics do not say, rows) per row group
    groups: list[tuple[int | None, int]] = field(default_factory=list)
    # (offset, size, rows) of each row group's time column chunk, or None
    locations: list[tuple[int, int, int] | None] = field(default_factory=list)
    nullable: bool = False
    # why the time column cannot hold int64 ticks exactly (a float, a timestamp), or None
    time_problem: str | None = None
    unsigned: bool = False  # a uint64 time column: a value of 2^63 or more is refused


_PHYSICAL = {0: "boolean", 1: "int32", 2: "int64", 3: "int96", 4: "float", 5: "double",
             6: "byte array", 7: "fixed-length byte array"}  # fmt: skip
# converted types of plain integers: UINT_8 .. UINT_64 (11-14), INT_8 .. INT_64 (15-18)
_UNSIGNED_CONVERTED = {11, 12, 13, 14}
_SIGNED_CONVERTED = {15, 16, 17, 18}
_INTEGER_LOGICAL = 10  # LogicalType's INTEGER member: IntType(bitWidth, isSigned)


def _time_type(leaf: dict[int, Any]) -> tuple[str | None, bool]:
    """(why the time column is not integer ticks or None, whether it is uint64)."""
    physical, converted, logical = leaf.get(1), leaf.get(6), leaf.get(10) or {}
    name = _PHYSICAL.get(physical, f"physical type {physical}")
    if physical not in (_INT32, _INT64):
        return f"the time column is {name}: times must be integer ticks (int64)", False
    unsigned = converted in _UNSIGNED_CONVERTED
    if _INTEGER_LOGICAL in logical:
        unsigned = not logical[_INTEGER_LOGICAL].get(2, True)
    elif logical or converted not in (None, *_SIGNED_CONVERTED, *_UNSIGNED_CONVERTED):
        kind = next(iter(logical), converted)
        return (
            f"the time column is {name} with a logical type ({kind}: a timestamp, time or "
            "decimal): times must be plain integer ticks (int64)"
        ), False
    return None, unsigned and physical == _INT64
def read_plan(path: Path, meta_key: bytes) -> Plan:
    """The footer of `path` (FormatError when it is not a readable Parquet footer)."""
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        if size < 12 or fh.read(4) != MAGIC:
            raise FormatError(path, "not a Parquet file (no PAR1 magic)", offset=0)
        fh.seek(size - 8)
        tail = fh.read(8)
        n = int.from_bytes(tail[:4], "little")
        if tail[4:] != MAGIC:
            raise FormatError(path, "truncated Parquet file (no closing PAR1)", offset=size - 4)
        if n <= 0 or n > min(size - 12, MAX_FOOTER):
            raise FormatError(path, f"bad Parquet footer length {n}", offset=size - 8)
        fh.seek(size - 8 - n)
        raw = fh.read(n)
    try:
        md, _ = read_struct(raw)
        return _plan(md, meta_key, size - 8 - n)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        # a field of the wrong type or missing: the footer is not what Parquet says
        raise FormatError(path, f"bad Parquet footer: {type(exc).__name__}: {exc}") from None


def _plan(md: dict[int, Any], meta_key: bytes, data_end: int) -> Plan:
    schema = md[2]
    leaves = [s for s in schema[1:] if not s.get(5)]
    names = [s[4].decode("utf-8", "replace") for s in leaves]
    meta = None
    for kv in md.get(5) or []:
        if kv.get(1) == meta_key and kv.get(2) is not None:
            meta = kv[2].decode("utf-8", "replace")
    plan = Plan(names, meta)
    if names != ["channel", "time"] or len(schema) != 3:
        return plan
    plan.nullable = leaves[1].get(3, 0) != 0
    plan.time_problem, plan.unsigned = _time_type(leaves[1])
    for rg in md.get(4) or []:
        cols = rg[1]
        if len(cols) != 2:
            raise ValueError("a row group without two columns")
        rows = int(rg[3])
        chan, time = cols[0][3], cols[1][3]
        plan.groups.append((_channel_of(chan), rows))
        # a uint64 column goes through DuckDB, which reads it unsigned (and checked)
        plan.locations.append(None if plan.unsigned else _time_chunk(time, rows, data_end))
    return plan


def _channel_of(col: dict[int, Any]) -> int | None:
    """The one channel index of a row group, from its `channel` statistics."""
    st = col.get(12) or {}
    lo, hi = st.get(6, st.get(2)), st.get(5, st.get(1))
    if col.get(1) != _INT32 or lo is None or hi is None or len(lo) != 4:
        return None  # the reader looks at the column itself
    if lo != hi:
        return -1  # the group mixes channels
    return int.from_bytes(lo, "little", signed=True)


def _time_chunk(col: dict[int, Any], rows: int, data_end: int) -> tuple[int, int, int] | None:
    """(offset, size, rows) of a time column chunk the compiled decoder reads, or None."""
    off, size = int(col.get(9, -1)), int(col.get(7, -1))
    if (
        col.get(4) != 0  # compressed
        or col.get(11) is not None  # dictionary page
        or not set(col.get(2) or []) <= _DECODABLE
        or col.get(1) != _INT64
        or rows > MAX_ROWS
        or off < 4
        or size < 0
        or off + size > data_end
    ):
        return None
    return off, size, int(col.get(5, rows))
