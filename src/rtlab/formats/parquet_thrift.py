"""Thrift's compact protocol, the encoding of Parquet's footer and page headers.

Only what rtlab's Parquet code needs, without Arrow: `read_struct` decodes any struct
into {field id: value} (lists as lists, binary as bytes, nested structs as dicts), with
every length checked against the bytes left, so a corrupt footer is a ValueError naming
the byte offset, never a huge allocation or a crash; `Struct` encodes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BOOL_TRUE, BOOL_FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(1, 13)
_MAX_DEPTH = 16


class Reader:
    """Compact-protocol values from `buf`, starting at byte `pos`."""

    def __init__(self, buf: bytes | memoryview, pos: int = 0) -> None:
        self.buf = memoryview(buf)
        self.pos = pos

    def fail(self, what: str) -> ValueError:
        return ValueError(f"{what} at byte {self.pos} of the Parquet footer")

    def byte(self) -> int:
        if self.pos >= len(self.buf):
            raise self.fail("unexpected end of data")
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def uvarint(self) -> int:
        out, shift = 0, 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7
            if shift > 63:
                raise self.fail("varint too long")

    def zigzag(self) -> int:
        v = self.uvarint()
        return (v >> 1) ^ -(v & 1)

    def take(self, n: int) -> bytes:
        if n < 0 or n > len(self.buf) - self.pos:
            raise self.fail("a length runs past the end")
        out = bytes(self.buf[self.pos : self.pos + n])
        self.pos += n
        return out

    def value(self, t: int, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise self.fail("thrift nesting too deep")
        if t in (BOOL_TRUE, BOOL_FALSE):  # a list element: one byte
            return self.byte() == BOOL_TRUE
        if t == BYTE:
            return self.byte()
        if t in (I16, I32, I64):
            return self.zigzag()
        if t == DOUBLE:
            return self.take(8)
        if t == BINARY:
            return self.take(self.uvarint())
        if t in (LIST, SET):
            head = self.byte()
            n = head >> 4
            if n == 15:
                n = self.uvarint()
            if n > len(self.buf) - self.pos:  # every element takes at least a byte
                raise self.fail("a list longer than the data")
            return [self.value(head & 15, depth + 1) for _ in range(n)]
        if t == STRUCT:
            return self.struct(depth + 1)
        raise self.fail(f"unsupported thrift type {t}")

    def struct(self, depth: int = 0) -> dict[int, Any]:
        """One struct: {field id: value} (a bool field's value is in its header)."""
        out: dict[int, Any] = {}
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return out
            t, delta = head & 15, head >> 4
            last = last + delta if delta else self.zigzag()
            if t in (BOOL_TRUE, BOOL_FALSE):
                out[last] = t == BOOL_TRUE
            else:
                out[last] = self.value(t, depth)


def read_struct(buf: bytes | memoryview, pos: int = 0) -> tuple[dict[int, Any], int]:
    """(the struct at `pos`, the byte after it); ValueError on anything malformed."""
    r = Reader(buf, pos)
    return r.struct(), r.pos


def _uvarint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag_bytes(v: int) -> bytes:
    return _uvarint((v << 1) ^ (v >> 63))


@dataclass
class Struct:
    """A struct to encode: fields added in increasing id order."""

    fields: list[tuple[int, int, Any]] = field(default_factory=list)

    def add(self, fid: int, t: int, value: Any) -> Struct:
        if value is not None:
            self.fields.append((fid, t, value))
        return self

    def encode(self) -> bytes:
        out = bytearray()
        last = 0
        for fid, t, value in self.fields:
            wire = (BOOL_TRUE if value else BOOL_FALSE) if t == BOOL_TRUE else t
            if 0 < fid - last <= 15:
                out.append((fid - last) << 4 | wire)
            else:
                out.append(wire)
                out += zigzag_bytes(fid)
            last = fid
            if t != BOOL_TRUE:
                out += _encode(t, value)
        out.append(0)
        return bytes(out)


def _encode(t: int, value: Any) -> bytes:
    if t in (I16, I32, I64):
        return zigzag_bytes(int(value))
    if t == BYTE:
        return bytes([value & 0xFF])
    if t == BINARY:
        data = value.encode() if isinstance(value, str) else bytes(value)
        return _uvarint(len(data)) + data
    if t == STRUCT:
        return bytes(value.encode())
    if t == LIST:
        elem, items = value
        head = (
            bytes([len(items) << 4 | elem])
            if len(items) < 15
            else bytes([0xF0 | elem]) + _uvarint(len(items))
        )
        return head + b"".join(_encode(elem, x) for x in items)
    raise ValueError(f"cannot encode thrift type {t}")
