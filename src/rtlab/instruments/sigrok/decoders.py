"""sigrok's protocol decoders (libsigrokdecode, through `sigrok-cli -P`) as events: the
sample numbers of the annotations a decoder gives on a session file. The decoders run
as sigrok-cli runs them: the `-P` text is the user's, passed unchanged; nothing of a
decoder is rewritten here.

An event spec names a decoder, one of its annotation classes and optionally a value:
`uart:rx-data=0x55` (or `uart:rx:data=0x55`: the class's parts may be joined by `:`),
`spi:mosi-data=0xA5`, `i2c:data-write=0x3C`. A value given as a number matches an
annotation whose last word is that number in hex or decimal (sigrok's default format
is hex: "55", "Data write: 3C"); any other value must equal the annotation's text.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rtlab.errors import RtlabError

_LINE = re.compile(r"^(\d+)-(\d+) (\S+?)-\d+: (.*)$")


@dataclass(frozen=True)
class DecoderEvent:
    """`DECODER:CLASS[=VALUE]` (see the module doc)."""

    text: str
    decoder: str
    ann_class: str
    value: str | None = None

    @classmethod
    def parse(cls, text: str) -> DecoderEvent:
        body, eq, value = text.partition("=")
        parts = [p for p in body.split(":") if p]
        if len(parts) < 2 or not re.fullmatch(r"[A-Za-z0-9_]+", parts[0]):
            raise RtlabError(
                f"decoder event {text!r}: write DECODER:CLASS[=VALUE], e.g. uart:rx-data=0x55"
            )
        return cls(text, parts[0], "-".join(parts[1:]), value if eq else None)

    def matches(self, annotation: str) -> bool:
        if self.value is None:
            return True
        want = _number(self.value)
        if want is None:
            return annotation.strip() == self.value
        words = annotation.split()
        if not words:
            return False
        last = words[-1]
        got = _number("0x" + last) if re.fullmatch(r"[0-9A-Fa-f]+", last) else _number(last)
        return got == want


def _number(text: str) -> int | None:
    try:
        return int(text, 0)
    except ValueError:
        return None


def sigrok_cli() -> str:
    exe = shutil.which("sigrok-cli")
    if exe is None:
        raise RtlabError("sigrok's decoders run through sigrok-cli: apt-get install sigrok-cli")
    return exe


def decoder_arg(event: DecoderEvent, decoders: list[str]) -> str:
    """The -P text for the event's decoder: the user's --decoder whose id is the event's
    (`uart:rx=D0:baudrate=115200`), else the bare id (sigrok-cli then maps the
    decoder's pins to channels of the same names)."""
    for d in decoders:
        if d.split(":", 1)[0] == event.decoder:
            return d
    return event.decoder


def annotation_spans(
    session: Path, event: DecoderEvent, decoders: list[str]
) -> list[tuple[int, int]]:
    """(start sample, end sample) of every annotation of the event's class whose text
    matches its value, in the session file `session`."""
    cmd = [
        sigrok_cli(), "-i", str(session), "-P", decoder_arg(event, decoders),
        "-A", f"{event.decoder}={event.ann_class}", "--protocol-decoder-samplenum",
    ]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0 or "rror" in res.stderr:
        why = (res.stderr.strip().splitlines() or ["no output"])[-1]
        raise RtlabError(f"sigrok-cli -P {decoder_arg(event, decoders)}: {why}")
    out = []
    for line in res.stdout.splitlines():
        m = _LINE.match(line)
        if m is None or m[3] != event.decoder:
            continue
        if event.matches(m[4]):
            out.append((int(m[1]), int(m[2])))
    return out
