"""The `@rtl1` parser: a whole output (text, bytes, lines or a file) → Runs, through the
one reader (reader.py), with loss and corruption recorded, not raised.

Malformed lines raise ProtocolError (source, line number and byte offset); lost chunks,
bad CRCs and a missing `end` mark the run incomplete and say so in `problems`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rtlab.protocol.labels import NO_LABELS, Labels
from rtlab.protocol.reader import Reader
from rtlab.protocol.records import ProtocolError, Run

Data = str | bytes | Iterable[str | bytes] | Path


def parse(data: Data, source: str = "<input>", labels: Labels = NO_LABELS) -> list[Run]:
    """Parse protocol v1 records out of `data` (text, bytes, lines, or a file path).

    Lines without the prefix are ignored (interleaved logs). Returns every run found,
    in order; a run cut short is returned with complete=False and its problems.
    `labels` go into every run's meta (protocol/labels.py).
    """
    if isinstance(data, Path):
        source = source if source != "<input>" else str(data)
        data = data.read_bytes()
    reader = Reader(source, labels)
    if isinstance(data, str | bytes):
        reader.feed(data)
    else:
        for line in data:
            reader.feed_line(line)
    return reader.close()


def parse_one(data: Data, source: str = "<input>") -> Run:
    """Exactly one run expected (one workload invocation)."""
    runs = parse(data, source)
    if len(runs) != 1:
        raise ProtocolError(source, f"expected one run, found {len(runs)}")
    return runs[0]
