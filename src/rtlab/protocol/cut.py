"""Protocol output of a program that may have stopped in the middle of a line: killed at
its timeout, or its port closed (an emulator that ran out of its cycle budget) as it
wrote. The cut line is no record, and the runs before it are what the program said."""

from __future__ import annotations

from rtlab.protocol.labels import NO_LABELS, Labels
from rtlab.protocol.reader import Reader
from rtlab.protocol.records import Run


def parse_cut(text: str, source: str, labels: Labels = NO_LABELS) -> list[Run]:
    """parse(text), except that a last line without its newline that is no valid record
    is dropped (the run it belonged to comes out truncated, as it was)."""
    reader = Reader(source, labels)
    reader.feed(text)
    return reader.close(cut=True)
