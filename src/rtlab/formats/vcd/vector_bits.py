"""`-O vectors=bits`: a VCD's multi-bit variables read as one channel per bit, named as
newer sigrok and PulseView name them (`bus[3]` … `bus[0]`, or the declared range:
`data [7:4]` gives `data[7]` … `data[4]`).

The file is rewritten, line by line into a temporary copy, into the VCD every reader
path already reads: each vector variable becomes one 1-bit `$var` per bit, and each
`bVALUE id` change a scalar change per bit (the value left-extended as VCD says: with 0,
or with x/z when it starts with one). Real and string variables are left as they are
(skipped by the readers). Lines keep their order; the times are untouched.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

_RANGE = re.compile(rb"^\[(-?\d+):(-?\d+)\]$")
_VECTOR_TYPES = set(
    b"wire reg logic integer tri wand wor bit int shortint longint byte supply0 supply1 "
    b"tri0 tri1 triand trior trireg uwire parameter".split()
)


def _bits(args: list[bytes]) -> list[bytes] | None:
    """The bit names (MSB first) of a vector `$var` (args between $var and $end)."""
    if len(args) < 4 or args[0] not in _VECTOR_TYPES or not args[1].isdigit():
        return None
    size = int(args[1])
    if size < 2:
        return None
    name = args[3]
    hi, lo = size - 1, 0
    if len(args) >= 5:
        m = _RANGE.match(args[4])
        if m is not None and abs(int(m[1]) - int(m[2])) + 1 == size:
            hi, lo = int(m[1]), int(m[2])
    step = -1 if hi >= lo else 1
    return [name + b"[%d]" % i for i in range(hi, lo + step, step)]


def split_vectors(src: Path) -> Path:
    """A temporary copy of `src` with every vector split into bits (the caller removes
    it)."""
    vectors: dict[bytes, list[bytes]] = {}  # id -> the new ids of its bits, MSB first
    fd, name = tempfile.mkstemp(suffix=".vcd", prefix="rtlab-bits-")
    counter = 0
    in_defs = True
    with os.fdopen(fd, "wb") as out, open(src, "rb") as fh:
        pending = b""
        for line in fh:
            if in_defs:
                pending += line
                if b"$end" not in line:
                    continue
                text, pending = pending, b""
                if b"$enddefinitions" in text:
                    in_defs = False
                m = re.match(rb"^(\s*)\$var\s(.*?)\$end(.*)$", text, re.S)
                if m is None:
                    out.write(text)
                    continue
                args = m[2].split()
                names = _bits(args)
                if names is None:
                    out.write(text)
                    continue
                ids = []
                for bit_name in names:
                    counter += 1
                    ident = b"rtlab_bit_%d" % counter
                    ids.append(ident)
                    out.write(b"$var wire 1 " + ident + b" " + bit_name + b" $end\n")
                vectors[args[2]] = ids
                continue
            s = line.strip()
            if s[:1] in (b"b", b"B") and b" " in s:
                value, _, ident = s[1:].partition(b" ")
                bits = vectors.get(ident.strip())
                if bits is not None:
                    out.write(_scalar_changes(value, bits))
                    continue
            out.write(line)
        out.write(pending)
    return Path(name)


def _scalar_changes(value: bytes, ids: list[bytes]) -> bytes:
    n = len(ids)
    fill = value[:1] if value[:1] in (b"x", b"X", b"z", b"Z") else b"0"
    v = value[-n:].rjust(n, fill)
    return b"".join(v[i : i + 1].lower() + ids[i] + b"\n" for i in range(n))
