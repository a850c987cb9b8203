"""Host side of the rtlab output protocol v1 (docs/protocol.md): parser and encoder.

Every workload kind (Linux programs, RTOS firmware over UART, QEMU guests) speaks it:

    runs = parse(text_or_lines, source="uart0")
    for run in runs:
        if not run.complete:
            print(run.problems)          # lost chunks, bad CRC, missing end, ...
        lat = run.series["latency"].samples()

Malformed lines raise ProtocolError (source and line number); loss and truncation are
not exceptions: the run is marked incomplete and `problems` says what is missing, so
the caller decides whether a partial run is still worth keeping.

Sample chunks are decoded in bulk with numpy at the end of a run: per line only cheap
C-level checks (character set, counts), so 10^6 samples parse in a fraction of a second.
"""

from __future__ import annotations

import base64
import binascii
import re
import warnings
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import numpy as np

from rtlab.errors import FormatError
from rtlab.model import Samples

PREFIX = "@rtl"
VERSION = 1
LINE_PREFIX = f"{PREFIX}{VERSION} "
UNITS = ("ns", "ticks", "cycles", "count")
END_STATUSES = ("ok", "error", "interrupted")
MAX_CHUNK = 256  # values per chunk a writer should not exceed (small firmware buffers)
MAX_LINE = 4096

_I64_MAX = np.iinfo(np.int64).max
_I64_MIN = np.iinfo(np.int64).min
_INT_RE = re.compile(r"-?[0-9]+")
_CRC_RE = re.compile(r"[0-9a-f]{8}")
# Deleting these characters must leave nothing of a valid comma-separated integer list.
_CSV_CHARS = str.maketrans("", "", "0123456789,-")
# Printable ASCII except the protocol's separators: kept as-is in encoded values.
_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "=*%")


class ProtocolError(FormatError):
    """A malformed protocol line: names the source and the line number."""


@dataclass
class Series:
    name: str
    unit: str
    tick_s: Fraction | None  # None: a count, or ticks whose length was not declared
    attrs: dict[str, str] = field(default_factory=dict)
    values: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return int(self.values.size)

    def samples(self) -> Samples:
        """The values as rtlab.model.Samples: time series get unit "s" and their tick."""
        if self.unit == "count":
            return Samples(self.values, Fraction(1), name=self.name, unit="count")
        if self.unit == "cycles" and self.tick_s is None:
            return Samples(self.values, Fraction(1), name=self.name, unit="cycles")
        if self.tick_s is None:
            raise ValueError(f"series {self.name!r} in {self.unit} has no tick length")
        return Samples(self.values, self.tick_s, name=self.name, unit="s")


@dataclass
class Run:
    workload: str
    version: str
    meta: dict[str, str] = field(default_factory=dict)
    series: dict[str, Series] = field(default_factory=dict)
    counters: dict[str, tuple[int, str | None]] = field(default_factory=dict)
    histograms: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    status: str = "truncated"  # ok | error | interrupted (from `end`) | truncated (no end)
    complete: bool = False  # `end` seen, record count right, nothing lost or corrupt
    problems: list[str] = field(default_factory=list)
    # Beyond the core API: histogram units, the end message, and where the run was.
    histogram_units: dict[str, str] = field(default_factory=dict)
    message: str | None = None
    first_line: int = 0
    last_line: int = 0


# ----------------------------------------------------------------------------- parsing


@dataclass
class _Chunk:
    kind: str  # "s", "sd" or "sb"
    line: int
    payload: Any  # s: "v1,v2"; sd: "first,d1,d2"; sb: raw varint bytes
    count: int


@dataclass
class _SeriesAcc:
    series: Series
    next_seq: int = 0
    chunks: list[_Chunk] = field(default_factory=list)


class _RunBuilder:
    def __init__(self, src: str, line: int, workload: str = "", version: str = "") -> None:
        self.src = src
        self.run = Run(workload=workload, version=version, first_line=line, last_line=line)
        self.acc: dict[str, _SeriesAcc] = {}
        self.records = 0
        self.crc_required = False

    def err(self, line: int, msg: str) -> ProtocolError:
        return ProtocolError(self.src, msg, line=line)

    def finish(self, line: int) -> Run:
        run = self.run
        run.last_line = line
        for name, acc in self.acc.items():
            acc.series.values = _decode_chunks(self.src, name, acc.chunks)
            run.series[name] = acc.series
        return run


def parse(data: str | bytes | Iterable[str | bytes] | Path, source: str = "<input>") -> list[Run]:
    """Parse protocol v1 records out of `data` (text, bytes, lines, or a file path).

    Lines without the prefix are ignored (interleaved logs). Returns every run found,
    in order; a run cut short is returned with complete=False and its problems.
    """
    if isinstance(data, Path):
        source = source if source != "<input>" else str(data)
        data = data.read_bytes()
    if isinstance(data, bytes):
        data = data.decode("utf-8", "replace")
    lines: Iterable[str | bytes] = data.split("\n") if isinstance(data, str) else data

    runs: list[Run] = []
    cur: _RunBuilder | None = None
    lineno = 0
    for lineno, raw in enumerate(lines, 1):
        line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        if not line.startswith(PREFIX):
            continue
        line = line.rstrip("\r\n")
        sp = line.find(" ")
        ver = line[len(PREFIX) : sp if sp >= 0 else len(line)]
        if not ver.isdigit():
            continue  # "@rtlab..." in a log is not ours
        if int(ver) != VERSION:
            raise ProtocolError(
                source, f"protocol version {ver} not supported (this parser reads 1)", line=lineno
            )
        body, crc_ok, has_crc = _check_crc(source, lineno, line)
        fields = body.split(" ")[1:]
        if "" in fields:
            raise ProtocolError(
                source, "empty field (fields are separated by single spaces)", line=lineno
            )
        rtype = fields[0] if fields else ""
        if rtype == "hello" and crc_ok:
            if cur is not None:
                cur.run.problems.append(f"line {lineno}: new hello before this run's end")
                runs.append(cur.finish(lineno - 1))
            cur = _RunBuilder(source, lineno)
            cur.crc_required = has_crc
            _hello(cur, lineno, fields[1:])
            cur.records = 1
            continue
        if cur is None:
            cur = _RunBuilder(source, lineno)
            cur.run.problems.append(
                f"line {lineno}: records without a hello (the start of the run is missing)"
            )
        if not crc_ok or (cur.crc_required and not has_crc):
            # It was sent; its content is lost. A run whose hello has a CRC has it on
            # every line: a line without one lost its tail (a split or cut line).
            cur.records += 1
            what = "bad CRC" if not crc_ok else "CRC missing"
            cur.run.problems.append(f"line {lineno}: {what}, record dropped")
            continue
        if rtype == "end":
            _end(cur, lineno, fields[1:])
            runs.append(cur.finish(lineno))
            cur = None
            continue
        handler = _HANDLERS.get(rtype)
        if handler is None:
            what = f"unknown record type {rtype!r}" if rtype else "no record type"
            raise cur.err(lineno, f"{what} (expected one of: {', '.join(_RECORD_TYPES)})")
        handler(cur, lineno, fields[1:])
        cur.records += 1
    if cur is not None:
        cur.run.problems.append(f"no end record: output truncated after line {lineno}")
        runs.append(cur.finish(lineno))
    return runs


def parse_one(data: str | bytes | Iterable[str | bytes] | Path, source: str = "<input>") -> Run:
    """Exactly one run expected (one workload invocation)."""
    runs = parse(data, source)
    if len(runs) != 1:
        raise ProtocolError(source, f"expected one run, found {len(runs)}")
    return runs[0]


def _check_crc(src: str, lineno: int, line: str) -> tuple[str, bool, bool]:
    """The line without its CRC field, whether the CRC (if any) matches, and if any."""
    star = line.rfind(" *")
    if star < 0:
        if "*" in line:
            raise ProtocolError(src, "'*' outside a CRC field", line=lineno)
        return line, True, False
    crc = line[star + 2 :]
    body = line[:star]
    if not _CRC_RE.fullmatch(crc) or "*" in body:
        raise ProtocolError(
            src, f"bad CRC field {crc!r} (expected 8 lowercase hex digits)", line=lineno
        )
    return body, zlib.crc32(body.encode("utf-8", "surrogateescape")) == int(crc, 16), True


def _int(b: _RunBuilder, line: int, text: str, what: str) -> int:
    if not _INT_RE.fullmatch(text):
        raise b.err(line, f"{what}: expected an integer, got {text!r}")
    v = int(text)
    if not _I64_MIN <= v <= _I64_MAX:
        raise b.err(line, f"{what}: {text} does not fit in 64 bits")
    return v


def _kv(b: _RunBuilder, line: int, fields: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for f in fields:
        key, eq, value = f.partition("=")
        if not eq or not key or "=" in value:
            raise b.err(line, f"expected key=value, got {f!r}")
        if key in out:
            raise b.err(line, f"key {key!r} given twice")
        out[key] = unquote(value) if "%" in value else value
    return out


def _need(b: _RunBuilder, line: int, fields: Sequence[str], lo: int, hi: int, form: str) -> None:
    if not lo <= len(fields) <= hi or any(not f for f in fields):
        raise b.err(line, f"expected {form}, got {len(fields)} field(s): {' '.join(fields)!r}")


def _hello(b: _RunBuilder, line: int, fields: list[str]) -> None:
    kv = _kv(b, line, fields)
    for key in ("workload", "version"):
        if key not in kv:
            raise b.err(line, f"hello without {key}=")
    b.run.workload = kv.pop("workload")
    b.run.version = kv.pop("version")
    b.run.meta.update(kv)


def _meta(b: _RunBuilder, line: int, fields: list[str]) -> None:
    b.run.meta.update(_kv(b, line, fields))


def _positive_fraction(b: _RunBuilder, line: int, key: str, text: str) -> Fraction:
    try:
        v = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise b.err(line, f"{key}: expected a decimal or a/b, got {text!r}") from None
    if v <= 0:
        raise b.err(line, f"{key} must be positive, got {text!r}")
    return v


def _series(b: _RunBuilder, line: int, fields: list[str]) -> None:
    _need(b, line, fields[:1], 1, 1, "series NAME unit=U [tick_ns=T|tick_hz=F] [key=value...]")
    name = fields[0]
    if "=" in name:
        raise b.err(line, f"series name expected before key=value fields, got {name!r}")
    kv = _kv(b, line, fields[1:])
    if name in b.acc:
        raise b.err(line, f"series {name!r} declared twice")
    unit = kv.pop("unit", None)
    if unit not in UNITS:
        raise b.err(line, f"series {name}: unit must be one of {', '.join(UNITS)}, got {unit!r}")
    if "tick_ns" in kv and "tick_hz" in kv:
        raise b.err(line, f"series {name}: give tick_ns or tick_hz, not both")
    tick: Fraction | None = None
    if "tick_ns" in kv:
        tick = _positive_fraction(b, line, "tick_ns", kv.pop("tick_ns")) / 10**9
    elif "tick_hz" in kv:
        tick = 1 / _positive_fraction(b, line, "tick_hz", kv.pop("tick_hz"))
    if unit == "ns":
        tick = Fraction(1, 10**9)
    elif unit == "count":
        tick = None
    b.acc[name] = _SeriesAcc(Series(name=name, unit=unit, tick_s=tick, attrs=kv))


def _chunk_target(b: _RunBuilder, line: int, name: str, seq_text: str) -> _SeriesAcc | None:
    seq = _int(b, line, seq_text, "chunk sequence number")
    if seq < 0:
        raise b.err(line, f"chunk sequence number must be >= 0, got {seq}")
    acc = b.acc.get(name)
    if acc is None:
        b.run.problems.append(f"line {line}: chunk of undeclared series {name!r} dropped")
        return None
    if seq > acc.next_seq:
        lost = f"{acc.next_seq}" if seq == acc.next_seq + 1 else f"{acc.next_seq}..{seq - 1}"
        b.run.problems.append(f"line {line}: series {name}: chunk(s) {lost} lost")
    elif seq < acc.next_seq:
        b.run.problems.append(
            f"line {line}: series {name}: chunk {seq} out of order (expected {acc.next_seq})"
        )
    acc.next_seq = seq + 1
    return acc


def _csv_count(b: _RunBuilder, line: int, text: str, what: str) -> int:
    """Cheap C-level checks of 'v1,v2,...'; the numbers are converted later in bulk."""
    if (
        not text
        or text.translate(_CSV_CHARS)
        or text[0] == ","
        or text[-1] in ",-"
        or ",," in text
        or "-," in text
    ):
        raise b.err(line, f"{what}: expected comma-separated integers, got {_clip(text)!r}")
    return text.count(",") + 1


def _s(b: _RunBuilder, line: int, fields: list[str]) -> None:
    _need(b, line, fields, 3, 3, "s NAME SEQ v1,v2,...")
    count = _csv_count(b, line, fields[2], "sample values")
    acc = _chunk_target(b, line, fields[0], fields[1])
    if acc is not None:
        acc.chunks.append(_Chunk("s", line, fields[2], count))


def _sd(b: _RunBuilder, line: int, fields: list[str]) -> None:
    _need(b, line, fields, 3, 4, "sd NAME SEQ FIRST [d1,d2,...]")
    _int(b, line, fields[2], "first value")
    payload = fields[2]
    count = 1
    if len(fields) == 4:
        count += _csv_count(b, line, fields[3], "deltas")
        payload = f"{fields[2]},{fields[3]}"
    acc = _chunk_target(b, line, fields[0], fields[1])
    if acc is not None:
        acc.chunks.append(_Chunk("sd", line, payload, count))


def _sb(b: _RunBuilder, line: int, fields: list[str]) -> None:
    _need(b, line, fields, 4, 4, "sb NAME SEQ COUNT BASE64")
    count = _int(b, line, fields[2], "value count")
    if count < 1:
        raise b.err(line, f"value count must be >= 1, got {count}")
    text = fields[3]
    try:
        raw = binascii.a2b_base64(text + "=" * (-len(text) % 4), strict_mode=True)
    except binascii.Error as e:
        raise b.err(line, f"bad base64 ({e}): {_clip(text)!r}") from None
    # Varint bytes below 0x80 end a value: their number is the value count.
    ends = len(raw) - len(raw.translate(None, bytes(range(0x80))))
    if not raw or raw[-1] >= 0x80 or ends != count:
        raise b.err(line, f"binary chunk holds {ends} complete varint(s), COUNT says {count}")
    acc = _chunk_target(b, line, fields[0], fields[1])
    if acc is not None:
        acc.chunks.append(_Chunk("sb", line, raw, count))


def _c(b: _RunBuilder, line: int, fields: list[str]) -> None:
    _need(b, line, fields, 2, 3, "c NAME VALUE [unit=U]")
    value = _int(b, line, fields[1], f"counter {fields[0]}")
    unit = None
    if len(fields) == 3:
        kv = _kv(b, line, fields[2:])
        if "unit" not in kv:
            raise b.err(line, f"expected unit=U, got {fields[2]!r}")
        unit = kv["unit"]
    b.run.counters[fields[0]] = (value, unit)


def _h(b: _RunBuilder, line: int, fields: list[str]) -> None:
    _need(b, line, fields, 5, 5, "h NAME unit=U lo=L hi=H count=N")
    name = fields[0]
    kv = _kv(b, line, fields[1:])
    if set(kv) != {"unit", "lo", "hi", "count"}:
        raise b.err(line, f"histogram bucket needs unit, lo, hi, count; got {sorted(kv)}")
    lo = _int(b, line, kv["lo"], "lo")
    hi = _int(b, line, kv["hi"], "hi")
    n = _int(b, line, kv["count"], "count")
    if hi <= lo or n < 0:
        raise b.err(line, f"bad bucket [{lo}, {hi}) count {n}")
    unit = b.run.histogram_units.setdefault(name, kv["unit"])
    if unit != kv["unit"]:
        raise b.err(line, f"histogram {name}: unit {kv['unit']!r} after {unit!r}")
    b.run.histograms.setdefault(name, []).append((lo, hi, n))


def _warn(b: _RunBuilder, line: int, fields: list[str]) -> None:
    kv = _kv(b, line, fields)
    if "code" not in kv or "msg" not in kv:
        raise b.err(line, "warn needs code= and msg=")
    b.run.warnings.append((kv["code"], kv["msg"]))


def _end(b: _RunBuilder, line: int, fields: list[str]) -> None:
    kv = _kv(b, line, fields)
    if "records" not in kv or "status" not in kv:
        raise b.err(line, "end needs records= and status=")
    n = _int(b, line, kv["records"], "records")
    status = kv["status"]
    if status not in END_STATUSES:
        raise b.err(line, f"end status must be one of {', '.join(END_STATUSES)}, got {status!r}")
    run = b.run
    run.status = status
    run.message = kv.get("msg")
    if n != b.records:
        run.problems.append(
            f"line {line}: end says {n} records, {b.records} seen: records were lost"
            if n > b.records
            else f"line {line}: end says {n} records, {b.records} seen"
        )
    run.complete = not run.problems


_HANDLERS: dict[str, Callable[[_RunBuilder, int, list[str]], None]] = {
    "meta": _meta,
    "series": _series,
    "s": _s,
    "sd": _sd,
    "sb": _sb,
    "c": _c,
    "h": _h,
    "warn": _warn,
}
_RECORD_TYPES = ("hello", *_HANDLERS, "end")


def _clip(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n] + "..."


# ------------------------------------------------------------------ bulk chunk decoding


def _decode_chunks(src: str, name: str, chunks: list[_Chunk]) -> np.ndarray:
    if not chunks:
        return np.zeros(0, dtype=np.int64)
    kinds = {c.kind for c in chunks}
    if len(kinds) == 1:
        return _decode_kind(src, name, chunks[0].kind, chunks)
    # Mixed encodings in one series (legal, rare): decode each kind, then restore order.
    parts: dict[int, np.ndarray] = {}
    for kind in kinds:
        sel = [i for i, c in enumerate(chunks) if c.kind == kind]
        arr = _decode_kind(src, name, kind, [chunks[i] for i in sel])
        bounds = np.cumsum([chunks[i].count for i in sel])[:-1]
        for i, piece in zip(sel, np.split(arr, bounds), strict=True):
            parts[i] = piece
    return np.concatenate([parts[i] for i in range(len(chunks))])


def _decode_kind(src: str, name: str, kind: str, chunks: list[_Chunk]) -> np.ndarray:
    counts = np.fromiter((c.count for c in chunks), dtype=np.int64, count=len(chunks))
    if kind == "s":
        return _csv_ints(src, chunks, int(counts.sum()))
    if kind == "sd":
        return _chunk_cumsum(_csv_ints(src, chunks, int(counts.sum())), counts)
    return _chunk_cumsum(_unzigzag(_leb128(src, chunks)), counts)


def _csv_ints(src: str, chunks: list[_Chunk], total: int) -> np.ndarray:
    text = ",".join(c.payload for c in chunks)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # numpy warns (not raises) on unmatched data
            arr = np.fromstring(text, dtype=np.int64, sep=",")
    except (ValueError, DeprecationWarning):
        arr = None
    except (AttributeError, TypeError):  # a numpy without text-mode fromstring
        try:
            arr = np.array(text.split(","), dtype=np.int64)
        except (ValueError, OverflowError):
            arr = None
    # fromstring saturates on overflow: any extreme value gets the exact slow check.
    if (
        arr is None
        or arr.size != total
        or (arr.size and (arr.max() == _I64_MAX or arr.min() == _I64_MIN))
    ):
        return _csv_ints_slow(src, chunks)
    return arr


def _csv_ints_slow(src: str, chunks: list[_Chunk]) -> np.ndarray:
    out: list[int] = []
    for c in chunks:
        for tok in c.payload.split(","):
            if not _INT_RE.fullmatch(tok):
                raise ProtocolError(src, f"expected an integer, got {tok!r}", line=c.line)
            v = int(tok)
            if not _I64_MIN <= v <= _I64_MAX:
                raise ProtocolError(src, f"{tok} does not fit in 64 bits", line=c.line)
            out.append(v)
    return np.array(out, dtype=np.int64)


def _chunk_cumsum(arr: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Running sums restarting at every chunk (each chunk decodes on its own)."""
    c = np.cumsum(arr)  # int64 wrap-around cancels out in the subtraction below
    if counts.size == 1:
        return c
    starts = np.cumsum(counts)[:-1]
    base = np.zeros(counts.size, dtype=np.int64)
    base[1:] = c[starts - 1]
    return c - np.repeat(base, counts)


def _leb128(src: str, chunks: list[_Chunk]) -> np.ndarray:
    b = np.frombuffer(b"".join(c.payload for c in chunks), dtype=np.uint8)
    ends = np.flatnonzero(b < 0x80)
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lengths = ends - starts + 1
    if lengths.max() > 10:  # a 64-bit value needs at most 10 varint bytes
        bad = int(starts[np.argmax(lengths > 10)])
        pos = np.cumsum([len(c.payload) for c in chunks])
        c = chunks[int(np.searchsorted(pos, bad, side="right"))]
        raise ProtocolError(src, "varint longer than 10 bytes", line=c.line)
    shift = (np.arange(b.size, dtype=np.int64) - np.repeat(starts, lengths)) * 7
    parts = (b & 0x7F).astype(np.uint64) << shift.astype(np.uint64)
    return np.add.reduceat(parts, starts)  # the 7-bit groups do not overlap: sum == or


def _unzigzag(u: np.ndarray) -> np.ndarray:
    return (u >> np.uint64(1)).view(np.int64) ^ -(u & np.uint64(1)).view(np.int64)


# ----------------------------------------------------------------------------- encoding


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
