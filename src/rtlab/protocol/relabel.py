"""Labels added to `@rtl1` runs after the fact: a `meta` record, counted in the `end`.

The QEMU targets use these so that stored runs say they were emulated. The added
record is counted in its run's `end` and carries a fresh CRC where the run's lines
carry one, so the relabelled run still parses complete.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rtlab.protocol.encoder import encode_line
from rtlab.protocol.records import LINE_PREFIX

_CRC_TAIL = re.compile(r" \*[0-9a-f]{8}$")
_END = re.compile(r"^@rtl1 end (.*?)\brecords=([0-9]+)(.*?)(?: \*[0-9a-f]{8})?$")
# The same, on a line whose "\r" (a serial console's) was stripped before matching.
_END_CR = re.compile(r"^@rtl1 end (.*?\brecords=)([0-9]+)(.*?)(?: \*[0-9a-f]{8})?\r?$")


def _meta_fields(labels: Mapping[str, object]) -> list[str]:
    # As given, not percent-encoded: the labels are the targets' own plain words.
    return [f"{k}={v}" for k, v in labels.items()]


def label_before_end(text: str, labels: Mapping[str, object]) -> str:
    """Adds `meta KEY=VALUE…` before the `end` of every run in `text` (after the
    workload's own meta, so it overrides a workload's own label)."""
    meta = _meta_fields(labels)
    out: list[str] = []
    for line in text.split("\n"):
        m = _END.match(line) if line.startswith(LINE_PREFIX + "end ") else None
        if m is None:
            out.append(line)
            continue
        crc = bool(_CRC_TAIL.search(line))
        out.append(encode_line("meta", *meta, crc=crc))
        body = f"{m.group(1)}records={int(m.group(2)) + 1}{m.group(3)}".split()
        out.append(encode_line("end", *body, crc=crc))
    return "\n".join(out)


def label_after_hello(text: str, labels: Mapping[str, object]) -> str:
    """Adds `meta KEY=VALUE…` right after every run's `hello` in `text`; lines may end
    in "\\r" (kept on the lines not rewritten)."""
    meta = " ".join(_meta_fields(labels))
    out: list[str] = []
    in_run = False
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        if line.startswith(LINE_PREFIX + "hello"):
            crc = bool(_CRC_TAIL.search(line))
            out += [raw, encode_line("meta", meta, crc=crc)]
            in_run = True
            continue
        m = _END_CR.match(line) if in_run else None
        if m:
            crc = bool(_CRC_TAIL.search(line))
            body = f"{m.group(1)}{int(m.group(2)) + 1}{m.group(3)}"
            out.append(encode_line("end", body, crc=crc))
            in_run = False
            continue
        out.append(raw)
    return "\n".join(out)
