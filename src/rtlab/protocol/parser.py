"""The `@rtl1` parser: lines → Runs, with loss and corruption recorded, not raised.

Malformed lines raise ProtocolError (source and line number); lost chunks, bad CRCs and
a missing `end` mark the run incomplete and say so in `problems`. Sample chunks are
only checked here (C-level string operations per line); decoder.py turns them into
numbers in bulk at the end of the run.
"""

from __future__ import annotations

import binascii
import re
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from urllib.parse import unquote

from rtlab.protocol.decoder import I64_MAX, I64_MIN, INT_RE, Chunk, decode_chunks
from rtlab.protocol.records import END_STATUSES, PREFIX, UNITS, VERSION, ProtocolError, Run, Series

_CRC_RE = re.compile(r"[0-9a-f]{8}")
# Deleting these characters must leave nothing of a valid comma-separated integer list.
_CSV_CHARS = str.maketrans("", "", "0123456789,-")


@dataclass
class _SeriesAcc:
    series: Series
    next_seq: int = 0
    chunks: list[Chunk] = field(default_factory=list)


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
            acc.series.values = decode_chunks(self.src, name, acc.chunks)
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
    if not INT_RE.fullmatch(text):
        raise b.err(line, f"{what}: expected an integer, got {text!r}")
    v = int(text)
    if not I64_MIN <= v <= I64_MAX:
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


_HUGE_EXPONENT = re.compile(r"[eE][-+]?0*[0-9]{3,}")  # 1e05000000: Fraction would take minutes


def _positive_fraction(b: _RunBuilder, line: int, key: str, text: str) -> Fraction:
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


def _tick(b: _RunBuilder, line: int, key: str, text: str) -> Fraction:
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
    for key in ("tick_ns", "tick_hz"):
        if key in kv:
            tick = _tick(b, line, key, kv.pop(key))
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
        acc.chunks.append(Chunk("s", line, fields[2], count))


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
        acc.chunks.append(Chunk("sd", line, payload, count))


def _sb(b: _RunBuilder, line: int, fields: list[str]) -> None:
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
