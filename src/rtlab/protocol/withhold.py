"""Runs whose figures the method cannot give: their data records are withheld and a
`warn` says why, so a stored run holds the reason, never a number that looks valid.

    text = withhold_runs(text, lambda meta: "why" if meta.get("cores") == "2" else None,
                         code="unsupported_on_icount")

`decide` sees the run's `meta` fields (the last value of each key, decoded as text) and
returns a reason or None. A withheld run keeps its `hello`, `meta` and `warn` records;
its `series`, sample chunks, counters and histogram buckets are dropped; `meta
withheld=CODE` and the `warn` are added before the `end`, whose count (and CRC, where
the run carries CRCs) is rewritten, so the run still parses complete.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from urllib.parse import unquote

from rtlab.protocol.encoder import encode_line, encode_value
from rtlab.protocol.records import LINE_PREFIX

_CRC_TAIL = re.compile(r" \*[0-9a-f]{8}$")
_END = re.compile(r"^@rtl1 end (.*?\brecords=)([0-9]+)(.*?)(?: \*[0-9a-f]{8})?$")
_DATA = frozenset(("series", "s", "sd", "sb", "c", "h"))

Decide = Callable[[Mapping[str, str]], "str | None"]


def _rtype(line: str) -> str | None:
    if not line.startswith(LINE_PREFIX):
        return None
    return line[len(LINE_PREFIX) :].split(" ", 1)[0]


def _meta(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in lines:
        if _rtype(line) != "meta":
            continue
        for field in _CRC_TAIL.sub("", line).split()[2:]:
            key, eq, value = field.partition("=")
            if eq:
                found[key] = unquote(value)
    return found


def _withheld(run: list[str], end: str, reason: str, code: str) -> list[str]:
    line = end.rstrip("\r")
    m = _END.match(line)
    if m is None:  # not a well-formed end: leave the run for the parser to judge
        return [*run, end]
    kept = [raw for raw in run if _rtype(raw.rstrip("\r")) not in _DATA]
    dropped = sum(1 for raw in run if _rtype(raw.rstrip("\r")) in _DATA)
    crc = bool(_CRC_TAIL.search(line))
    # the meta marks the part itself: a store keeps warnings per invocation, meta per part
    mark = encode_line("meta", f"withheld={code}", crc=crc)
    warn = encode_line("warn", f"code={code}", f"msg={encode_value(reason)}", crc=crc)
    count = int(m.group(2)) - dropped + 2
    body = f"{m.group(1)}{count}{m.group(3)}".split()
    return [*kept, mark, warn, encode_line("end", *body, crc=crc)]


def withhold_runs(text: str, decide: Decide, code: str) -> str:
    """`text` with every run that `decide` gives a reason for withheld (see above);
    other lines and runs unchanged, byte for byte."""
    out: list[str] = []
    run: list[str] | None = None
    for raw in text.split("\n"):
        rtype = _rtype(raw.rstrip("\r"))
        if rtype == "hello":
            if run is not None:  # a run without end: passed through as it was
                out += run
            run = [raw]
        elif run is None:
            out.append(raw)
        elif rtype == "end":
            reason = decide(_meta(run))
            out += _withheld(run, raw, reason, code) if reason else [*run, raw]
            run = None
        else:
            run.append(raw)
    if run is not None:
        out += run
    return "\n".join(out)
