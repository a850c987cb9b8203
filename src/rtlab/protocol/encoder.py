"""The `@rtl1` encoder: lines for tests and Python workloads."""

from __future__ import annotations

import base64
import zlib
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any
from urllib.parse import quote

import numpy as np

from rtlab.protocol.records import MAX_CHUNK, PREFIX, UNITS, VERSION

# Printable ASCII except the protocol's separators: kept as-is in encoded values.
_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "=*%")


def encode_value(value: object) -> str:
    """A metadata value as one field: separators and non-ASCII percent-encoded."""
    return quote(str(value), safe=_SAFE)


def encode_line(rtype: str, *fields: str, crc: bool = False) -> str:
    line = " ".join((f"{PREFIX}{VERSION}", rtype, *fields))
    if crc:
        line += f" *{zlib.crc32(line.encode()):08x}"
    return line


def _kv_fields(kv: dict[str, object]) -> list[str]:
    return [f"{k}={encode_value(v)}" for k, v in kv.items() if v is not None]


def zigzag_leb128(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Zigzag + unsigned LEB128 of each int64; returns (bytes uint8, bytes per value)."""
    v = np.asarray(values, dtype=np.int64)
    z = ((v << 1) ^ (v >> 63)).view(np.uint64)
    nbytes = np.ones(v.size, dtype=np.int64)
    for k in range(1, 10):
        nbytes += z >= np.uint64(1 << (7 * k))
    offs = np.cumsum(nbytes) - nbytes
    out = np.zeros(int(nbytes.sum()), dtype=np.uint8)
    for k in range(10):
        sel = nbytes > k
        if not sel.any():
            break
        byte = (z[sel] >> np.uint64(7 * k)) & np.uint64(0x7F)
        more = (nbytes[sel] > k + 1).astype(np.uint64) << np.uint64(7)
        out[offs[sel] + k] = (byte | more).astype(np.uint8)
    return out, nbytes


def encode_series(
    name: str,
    values: Sequence[int] | np.ndarray,
    *,
    unit: str = "ns",
    encoding: str = "sd",
    chunk: int = MAX_CHUNK,
    tick_ns: int | str | Fraction | None = None,
    tick_hz: int | str | Fraction | None = None,
    crc: bool = False,
    declare: bool = True,
    **attrs: object,
) -> list[str]:
    """Protocol lines for one series: its declaration and its chunks (s, sd or sb)."""
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}")
    if encoding not in ("s", "sd", "sb"):
        raise ValueError("encoding must be 's', 'sd' or 'sb'")
    v = np.asarray(values, dtype=np.int64)
    lines: list[str] = []
    if declare:
        kv: dict[str, object] = {"unit": unit, "tick_ns": tick_ns, "tick_hz": tick_hz, **attrs}
        lines.append(encode_line("series", name, *_kv_fields(kv), crc=crc))
    n = int(v.size)
    if encoding == "sb":
        deltas = np.diff(v, prepend=np.int64(0))
        deltas[::chunk] = v[::chunk]  # each chunk starts from 0 so it decodes alone
        raw, nbytes = zigzag_leb128(deltas)
        byte_ends = np.cumsum(nbytes)
        data = raw.tobytes()
        for seq, i in enumerate(range(0, n, chunk)):
            j = min(i + chunk, n)
            lo = int(byte_ends[i - 1]) if i else 0
            b64 = base64.b64encode(data[lo : int(byte_ends[j - 1])]).decode().rstrip("=")
            lines.append(encode_line("sb", name, str(seq), str(j - i), b64, crc=crc))
        return lines
    for seq, i in enumerate(range(0, n, chunk)):
        part = v[i : i + chunk]
        if encoding == "s":
            lines.append(
                encode_line("s", name, str(seq), ",".join(map(str, part.tolist())), crc=crc)
            )
        else:
            fields = [str(int(part[0]))]
            if part.size > 1:
                fields.append(",".join(map(str, np.diff(part).tolist())))
            lines.append(encode_line("sd", name, str(seq), *fields, crc=crc))
    return lines


class Writer:
    """Writes one run, counting records for its `end`; for tests and Python workloads.

    `write` receives each line without newline; without it lines collect in `.lines`.
    """

    def __init__(self, write: Callable[[str], object] | None = None, *, crc: bool = False):
        self.lines: list[str] = []
        self._write = write or self.lines.append
        self.crc = crc
        self.records = 0
        self.crc_required = False

    def _emit(self, rtype: str, *fields: str) -> None:
        self._write(encode_line(rtype, *fields, crc=self.crc))
        self.records += 1

    def hello(self, workload: str, version: str, **meta: object) -> None:
        self._emit("hello", *_kv_fields({"workload": workload, "version": version, **meta}))

    def meta(self, **kv: object) -> None:
        self._emit("meta", *_kv_fields(kv))

    def series(self, name: str, values: Sequence[int] | np.ndarray, **kw: Any) -> None:
        for line in encode_series(name, values, crc=self.crc, **kw):
            self._write(line)
            self.records += 1

    def counter(self, name: str, value: int, unit: str | None = None) -> None:
        self._emit("c", name, str(int(value)), *_kv_fields({"unit": unit}))

    def histogram(
        self, name: str, buckets: Iterable[tuple[int, int, int]], unit: str = "ns"
    ) -> None:
        for lo, hi, n in buckets:
            self._emit("h", name, *_kv_fields({"unit": unit, "lo": lo, "hi": hi, "count": n}))

    def warn(self, code: str, msg: str) -> None:
        self._emit("warn", *_kv_fields({"code": code, "msg": msg}))

    def end(self, status: str = "ok", msg: str | None = None) -> None:
        self._write(
            encode_line(
                "end",
                *_kv_fields({"records": self.records, "status": status, "msg": msg}),
                crc=self.crc,
            )
        )

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"
