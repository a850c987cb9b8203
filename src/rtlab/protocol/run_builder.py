"""One `@rtl1` run being read, and what each record type does to it.

reader.py hands every whole protocol line here: its CRC is checked (check_crc), then its
record's handler (HANDLERS) checks its fields and adds it to the RunBuilder. Malformed
fields raise ProtocolError (source, line number and byte offset). Sample chunks are only
checked here (C-level string operations per line); decoder.py turns them into numbers in
bulk when the run finishes.
"""

from __future__ import annotations

import binascii
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from urllib.parse import unquote

from rtlab.protocol.decoder import I64_MAX, I64_MIN, INT_RE, Chunk, decode_chunks
from rtlab.protocol.records import END_STATUSES, UNITS, ProtocolError, Run, Series

_CRC_RE = re.compile(r"[0-9a-f]{8}")
# Deleting these characters must leave nothing of a valid comma-separated integer list.
_CSV_CHARS = str.maketrans("", "", "0123456789,-")


@dataclass
class _SeriesAcc:
    series: Series
    next_seq: int = 0
    chunks: list[Chunk] = field(default_factory=list)


class RunBuilder:
    """A run from its first record on: `offset` is the byte offset of the line being read
    (the reader sets it), for the errors that line raises."""

    def __init__(self, src: str, line: int, workload: str = "", version: str = "") -> None:
        self.src = src
        self.run = Run(workload=workload, version=version, first_line=line, last_line=line)
        self.acc: dict[str, _SeriesAcc] = {}
        self.records = 0
        self.crc_required = False
        self.offset: int | None = None

    def err(self, line: int, msg: str) -> ProtocolError:
        return ProtocolError(self.src, msg, line=line, offset=self.offset)

    def finish(self, line: int) -> Run:
        run = self.run
        run.last_line = line
        for name, acc in self.acc.items():
            acc.series.values = decode_chunks(self.src, name, acc.chunks)
            run.series[name] = acc.series
        return run


def check_crc(src: str, lineno: int, offset: int, line: str) -> tuple[str, bool, bool]:
    """The line without its CRC field, whether the CRC (if any) matches, and if any."""
    star = line.rfind(" *")
    if star < 0:
        if "*" in line:
            raise ProtocolError(src, "'*' outside a CRC field", line=lineno, offset=offset)
        return line, True, False
    crc = line[star + 2 :]
    body = line[:star]
    if not _CRC_RE.fullmatch(crc) or "*" in body:
        raise ProtocolError(
            src,
            f"bad CRC field {crc!r} (expected 8 lowercase hex digits)",
            line=lineno,
            offset=offset,
        )
    return body, zlib.crc32(body.encode("utf-8", "surrogateescape")) == int(crc, 16), True


def _int(b: RunBuilder, line: int, text: str, what: str) -> int:
    if not INT_RE.fullmatch(text):
        raise b.err(line, f"{what}: expected an integer, got {text!r}")
    v = int(text)
    if not I64_MIN <= v <= I64_MAX:
        raise b.err(line, f"{what}: {text} does not fit in 64 bits")
    return v


def _kv(b: RunBuilder, line: int, fields: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for f in fields:
        key, eq, value = f.partition("=")
        if not eq or not key or "=" in value:
            raise b.err(line, f"expected key=value, got {f!r}")
        if key in out:
            raise b.err(line, f"key {key!r} given twice")
        out[key] = unquote(value) if "%" in value else value
    return out


def _need(b: RunBuilder, line: int, fields: Sequence[str], lo: int, hi: int, form: str) -> None:
    if not lo <= len(fields) <= hi or any(not f for f in fields):
        raise b.err(line, f"expected {form}, got {len(fields)} field(s): {' '.join(fields)!r}")


def hello(b: RunBuilder, line: int, fields: list[str]) -> None:
    kv = _kv(b, line, fields)
    for key in ("workload", "version"):
        if key not in kv:
            raise b.err(line, f"hello without {key}=")
    b.run.workload = kv.pop("workload")
    b.run.version = kv.pop("version")
    b.run.meta.update(kv)


def _meta(b: RunBuilder, line: int, fields: list[str]) -> None:
    b.run.meta.update(_kv(b, line, fields))


_HUGE_EXPONENT = re.compile(r"[eE][-+]?0*[0-9]{3,}")  # 1e05000000: Fraction would take minutes


def _positive_fraction(b: RunBuilder, line: int, key: str, text: str) -> Fraction:
    if len(text) > 64 or _HUGE_EXPONENT.search(text):
        raise b.err(
            line, f"{key}: {text[:40]} is out of range (an exponent of three digits or more)"
        )
    try:
        v = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise b.err(line, f"{key}: expected a decimal or a/b, got {text!r}") from None
    if v <= 0:
        raise b.err(line, f"{key} must be positive, got {text!r}")
    return v


def _tick(b: RunBuilder, line: int, key: str, text: str) -> Fraction:
    """The tick in seconds from tick_ns=T or tick_hz=F, exact. The store keeps it as a
    fraction of two 64-bit integers (numerator and denominator < 2^63): a tick beyond
    that (1e400 ns, 1e-400 ns) is refused here, at its line, not by the store later."""
    v = _positive_fraction(b, line, key, text)
    tick = v / 10**9 if key == "tick_ns" else 1 / v
    if tick.numerator > I64_MAX or tick.denominator > I64_MAX:
        raise b.err(
            line,
            f"{key}: {text} is out of range (the tick in seconds must be a fraction whose "
            "numerator and denominator are below 2^63: 1e-18 s .. 9.2e18 s)",
        )
    return tick


def _series(b: RunBuilder, line: int, fields: list[str]) -> None:
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
    for key in ("tick_ns", "tick_hz"):
        if key in kv:
            tick = _tick(b, line, key, kv.pop(key))
    if unit == "ns":
        tick = Fraction(1, 10**9)
    elif unit == "count":
        tick = None
    b.acc[name] = _SeriesAcc(Series(name=name, unit=unit, tick_s=tick, attrs=kv))


def _chunk_target(b: RunBuilder, line: int, name: str, seq_text: str) -> _SeriesAcc | None:
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


def _csv_count(b: RunBuilder, line: int, text: str, what: str) -> int:
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


def _s(b: RunBuilder, line: int, fields: list[str]) -> None:
    _need(b, line, fields, 3, 3, "s NAME SEQ v1,v2,...")
    count = _csv_count(b, line, fields[2], "sample values")
    acc = _chunk_target(b, line, fields[0], fields[1])
    if acc is not None:
        acc.chunks.append(Chunk("s", line, fields[2], count))


def _sd(b: RunBuilder, line: int, fields: list[str]) -> None:
    _need(b, line, fields, 3, 4, "sd NAME SEQ FIRST [d1,d2,...]")
    _int(b, line, fields[2], "first value")
    payload = fields[2]
    count = 1
    if len(fields) == 4:
        count += _csv_count(b, line, fields[3], "deltas")
        payload = f"{fields[2]},{fields[3]}"
    acc = _chunk_target(b, line, fields[0], fields[1])
    if acc is not None:
        acc.chunks.append(Chunk("sd", line, payload, count))


def _sb(b: RunBuilder, line: int, fields: list[str]) -> None:
    _need(b, line, fields, 4, 4, "sb NAME SEQ COUNT BASE64")
    count = _int(b, line, fields[2], "value count")
    if count < 1:
        raise b.err(line, f"value count must be >= 1, got {count}")
    text = fields[3]
    try:
        raw = binascii.a2b_base64(text + "=" * (-len(text) % 4), strict_mode=True)
    except (binascii.Error, ValueError) as e:  # ValueError: a non-ASCII character
        raise b.err(line, f"bad base64 ({e}): {_clip(text)!r}") from None
    # Varint bytes below 0x80 end a value: their number is the value count.
    ends = len(raw) - len(raw.translate(None, bytes(range(0x80))))
    if not raw or raw[-1] >= 0x80 or ends != count:
        raise b.err(line, f"binary chunk holds {ends} complete varint(s), COUNT says {count}")
    acc = _chunk_target(b, line, fields[0], fields[1])
    if acc is not None:
        acc.chunks.append(Chunk("sb", line, raw, count))


def _c(b: RunBuilder, line: int, fields: list[str]) -> None:
    _need(b, line, fields, 2, 3, "c NAME VALUE [unit=U]")
    value = _int(b, line, fields[1], f"counter {fields[0]}")
    unit = None
    if len(fields) == 3:
        kv = _kv(b, line, fields[2:])
        if "unit" not in kv:
            raise b.err(line, f"expected unit=U, got {fields[2]!r}")
        unit = kv["unit"]
    b.run.counters[fields[0]] = (value, unit)


def _h(b: RunBuilder, line: int, fields: list[str]) -> None:
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


def _warn(b: RunBuilder, line: int, fields: list[str]) -> None:
    kv = _kv(b, line, fields)
    if "code" not in kv or "msg" not in kv:
        raise b.err(line, "warn needs code= and msg=")
    b.run.warnings.append((kv["code"], kv["msg"]))


def end(b: RunBuilder, line: int, fields: list[str]) -> None:
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


HANDLERS: dict[str, Callable[[RunBuilder, int, list[str]], None]] = {
    "meta": _meta,
    "series": _series,
    "s": _s,
    "sd": _sd,
    "sb": _sb,
    "c": _c,
    "h": _h,
    "warn": _warn,
}
RECORD_TYPES = ("hello", *HANDLERS, "end")


def _clip(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n] + "..."
