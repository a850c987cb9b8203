"""The `@rtl1` reader: bytes in as they come (a serial port, a pipe, a file), runs out.

    reader = Reader(source="uart0", labels=Labels.of(under={"board": "pico"}))
    for line in reader.feed(chunk):        # any split: a byte, a line, a whole file
        if line.rtype == "end": ...        # each whole line, as it completes
    runs = reader.close()                  # the last line even without its newline

Lines without the prefix are log lines (returned with rtype None, otherwise ignored).
Malformed lines raise ProtocolError naming the source, the line and its byte offset; the
reader is then spent (the output is malformed, not worth reading on). Loss is not an
error: a run whose records were lost, corrupt (a bad CRC, named with its line and byte
offset) or cut short comes out with complete=False and its problems. `labels` are merged
into every run's meta (protocol/labels.py): they travel as data, the text stays as sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

from rtlab.protocol import run_builder as b
from rtlab.protocol.labels import NO_LABELS, Labels
from rtlab.protocol.records import PREFIX, VERSION, ProtocolError, Run


@dataclass(frozen=True)
class Line:
    """One whole line: `rtype` is its record type if it is a record the run kept (None: a
    log line, or a record dropped for its CRC); `fields` follow the type, CRC removed."""

    number: int
    offset: int  # of its first byte in everything fed
    text: str  # without its line ending
    rtype: str | None = None
    fields: tuple[str, ...] = ()

    def pairs(self) -> dict[str, str]:
        """A hello's or meta's key=value fields, decoded (the first value of a key)."""
        out: dict[str, str] = {}
        for f in self.fields:
            key, eq, value = f.partition("=")
            if eq:
                out.setdefault(key, unquote(value))
        return out


class Reader:
    def __init__(self, source: str = "<input>", labels: Labels = NO_LABELS) -> None:
        self.source = source
        self.labels = labels
        self.runs: list[Run] = []  # the runs ended so far
        self._cur: b.RunBuilder | None = None
        self._pending = bytearray()  # a line not ended yet
        self._lines = 0
        self._offset = 0  # bytes before the pending line
        self._closed = False
        self._by_lines = False  # fed whole lines: no unfinished one is left at the end

    @property
    def current(self) -> Run | None:
        """The run being read (its meta so far; its series are filled as it ends)."""
        return self._cur.run if self._cur is not None else None

    def feed(self, data: bytes | str) -> list[Line]:
        """Reads `data` on from where the last feed stopped; returns its whole lines."""
        if self._closed:
            raise ValueError("feed() after close()")
        chunk = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        parts = chunk.split(b"\n")
        if len(parts) == 1:
            self._pending += chunk
            return []
        parts[0] = bytes(self._pending) + parts[0]
        self._pending = bytearray(parts.pop())
        return [self._line(raw, len(raw) + 1) for raw in parts]

    def feed_line(self, line: str | bytes) -> Line:
        """One whole line (with or without its newline): for callers that split lines."""
        raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
        if self._pending:
            raise ValueError("feed_line() after a feed() that left a line unfinished")
        self._by_lines = True
        return self._line(raw.rstrip(b"\n"), len(raw) if raw.endswith(b"\n") else len(raw) + 1)

    def close(self, cut: bool = False) -> list[Run]:
        """Reads what is left (the last line, even without its newline) and returns every
        run. `cut`: the output may have stopped mid-line (a program killed at its
        timeout, a port closed): a last unfinished line that is no valid record is no
        record, and its run comes out truncated, as it was."""
        if self._closed:
            return self.runs
        self._closed = True
        tail = bytes(self._pending)
        self._pending.clear()
        started = self._cur is not None
        try:
            if tail or not self._by_lines:  # text ending in "\n": an empty last line
                self._line(tail, len(tail))
        except ProtocolError:
            if not cut or not tail:
                raise
            if not started:  # the cut line began a run (records without a hello): none
                self._cur = None
        if self._cur is not None:
            self._cur.run.problems.append(
                f"no end record: output truncated after line {self._lines}"
            )
            self.runs.append(self._cur.finish(self._lines))
            self._cur = None
        return self.runs

    def _line(self, raw: bytes, size: int) -> Line:
        self._lines += 1
        lineno, offset = self._lines, self._offset
        self._offset += size
        text = raw.decode("utf-8", "replace")
        if not text.startswith(PREFIX):
            return Line(lineno, offset, text.rstrip("\r"))
        text = text.rstrip("\r\n")
        sp = text.find(" ")
        ver = text[len(PREFIX) : sp if sp >= 0 else len(text)]
        if not ver.isdigit():
            return Line(lineno, offset, text)  # "@rtlab..." in a log is not ours
        src = self.source
        if int(ver) != VERSION:
            raise ProtocolError(
                src,
                f"protocol version {ver} not supported (this parser reads 1)",
                line=lineno,
                offset=offset,
            )
        body, crc_ok, has_crc = b.check_crc(src, lineno, offset, text)
        fields = body.split(" ")[1:]
        if "" in fields:
            raise ProtocolError(
                src,
                "empty field (fields are separated by single spaces)",
                line=lineno,
                offset=offset,
            )
        rtype = fields[0] if fields else ""
        if rtype == "hello" and crc_ok:
            self._hello(lineno, offset, fields, has_crc)
            return Line(lineno, offset, text, rtype, tuple(fields[1:]))
        cur = self._cur
        if cur is None:
            cur = self._cur = b.RunBuilder(src, lineno)
            cur.run.problems.append(
                f"line {lineno}: records without a hello (the start of the run is missing)"
            )
        cur.offset = offset
        if not crc_ok or (cur.crc_required and not has_crc):
            # It was sent; its content is lost. A run whose hello has a CRC has it on
            # every line: a line without one lost its tail (a split or cut line).
            cur.records += 1
            what = "bad CRC" if not crc_ok else "CRC missing"
            cur.run.problems.append(f"line {lineno} (byte {offset}): {what}, record dropped")
            return Line(lineno, offset, text)
        if rtype == "end":
            cur.run.meta.update(self.labels.over)
            b.end(cur, lineno, fields[1:])
            self.runs.append(cur.finish(lineno))
            self._cur = None
            return Line(lineno, offset, text, rtype, tuple(fields[1:]))
        handler = b.HANDLERS.get(rtype)
        if handler is None:
            what = f"unknown record type {rtype!r}" if rtype else "no record type"
            raise cur.err(lineno, f"{what} (expected one of: {', '.join(b.RECORD_TYPES)})")
        handler(cur, lineno, fields[1:])
        cur.records += 1
        return Line(lineno, offset, text, rtype, tuple(fields[1:]))

    def _hello(self, lineno: int, offset: int, fields: list[str], has_crc: bool) -> None:
        new = b.RunBuilder(self.source, lineno)
        new.offset = offset
        new.crc_required = has_crc
        b.hello(new, lineno, fields[1:])  # checked before the run it ends is finished
        new.run.meta.update(self.labels.under)
        new.records = 1
        if self._cur is not None:
            self._cur.run.problems.append(f"line {lineno}: new hello before this run's end")
            self.runs.append(self._cur.finish(lineno - 1))
        self._cur = new
