"""Protocol output of a program that may have stopped in the middle of a line: killed at
its timeout, or its port closed (an emulator that ran out of its cycle budget) as it
wrote. The cut line is no record, and the runs before it are what the program said."""

from __future__ import annotations

from rtlab.protocol.parser import parse
from rtlab.protocol.records import ProtocolError, Run


def parse_cut(text: str, source: str) -> list[Run]:
    """parse(text), except that a last line without its newline that is no valid record
    is dropped (the run it belonged to comes out truncated, as it was)."""
    try:
        return parse(text, source=source)
    except ProtocolError:
        whole = text.rfind("\n") + 1
        if whole == len(text):
            raise  # the bad line is a whole one: the output is malformed
        return parse(text[:whole], source=source)
