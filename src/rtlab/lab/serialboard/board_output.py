"""Reading a board's protocol output until it is done, and checking it is the image
the spec asked for.

The output is done when (whichever comes first):
- the port closes (an emulator exited: its last byte is in);
- a line `rtbench: done errors=N` comes (what the board layers print after the last
  run; N becomes the run's exit status);
- `quiet_s` (when given) passes without a byte after an `end` record;
- the run's timeout passes (the output so far is kept, marked timed out).

NUL bytes at the start of a line are dropped: a UART sends one as its transmitter comes
out of reset (Zephyr's RP2040 image does, before its first line), and it is no part of
what the board says.
A board that says nothing of the protocol (no `@rtl1 hello`) within `answer_s` of its
reset raises BoardSilent; one whose first run names another board or RTOS in its `meta`
raises WrongImage, at once (nothing of it is stored).

The bytes go through the protocol's reader (rtlab.protocol.Reader) as they come: its
records tell when a run starts and ends and what the image says it is, and the runs it
reads (labelled with the target's labels) are the ones stored.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rtlab.lab.serialboard.errors import BoardSilent, WrongImage
from rtlab.lab.serialboard.link import SerialLink
from rtlab.protocol import NO_LABELS, Labels, Line, ProtocolError, Reader, Run

DONE = re.compile(r"^rtbench: done errors=(\d+)\s*$")
POLL_S = 0.1


@dataclass
class Reading:
    text: str
    ended_by: str  # "eof", "done", "quiet", "timeout", "stopped"
    exit_status: int | None = None
    # The protocol runs, read as the bytes came (labelled); None when a line was
    # malformed: the text is then read again by the runner, which says where.
    runs: list[Run] | None = None

    @property
    def timed_out(self) -> bool:
        return self.ended_by == "timeout"


class OutputReader:
    """Reads one run of a board: `expect` is the meta the image must say (board=…,
    rtos=…), `where` names the board and port in messages, `labels` go into every
    run's meta."""

    def __init__(
        self,
        link: SerialLink,
        expect: Mapping[str, str],
        where: str,
        labels: Labels = NO_LABELS,
    ) -> None:
        self.link = link
        self.expect = dict(expect)
        self.where = where
        self._protocol: Reader | None = Reader(where, labels)
        self._seen: dict[str, str] = {}
        self._checked = False
        self._hello = False
        self._end_at: float | None = None
        self._at_line_start = True
        self._log = b""  # an unfinished line, once the protocol reader gave up

    def read(
        self,
        timeout: float,
        answer_s: float,
        quiet_s: float | None = None,
        stopped: Callable[[], bool] = lambda: False,
    ) -> Reading:
        start = last = time.monotonic()
        out = bytearray()
        while True:
            now = time.monotonic()
            if stopped():
                return self._reading(out, "stopped")
            if now - start >= timeout:
                return self._reading(out, "timeout")
            if not self._hello and now - start >= answer_s:
                raise self._silent(out, f"within {answer_s:g} s of reset")
            if quiet_s is not None and self._end_at is not None and now - last >= quiet_s:
                return self._reading(out, "quiet")
            data = self.link.read(POLL_S)
            if data is None:
                if not self._hello:
                    raise self._silent(out, "before the port closed")
                self._check_at_end()
                return self._reading(out, "eof")
            if not data:
                continue
            last = time.monotonic()
            out += data
            for line in self._lines(self._without_reset_nuls(data)):
                status = self._line(line, last)
                if status is not None:
                    return self._reading(out, "done", status)

    def _without_reset_nuls(self, data: bytes) -> bytes:
        """`data` without the NULs at the start of a line (a UART's at its reset)."""
        if self._at_line_start:
            data = data.lstrip(b"\0")
        data = _NUL_AFTER_NEWLINE.sub(b"\n", data)
        if data:
            self._at_line_start = data.endswith(b"\n")
        return data

    def _lines(self, data: bytes) -> list[Line]:
        if self._protocol is not None:
            try:
                return self._protocol.feed(data)
            except ProtocolError:
                self._protocol = None  # malformed: only the done line is looked for
        *whole, self._log = (self._log + data).split(b"\n")
        return [Line(0, 0, raw.decode("utf-8", "replace").rstrip("\r")) for raw in whole]

    def _reading(self, out: bytearray, ended_by: str, status: int | None = None) -> Reading:
        runs = None
        if self._protocol is not None:
            # malformed: runs stays None, the runner reads the text and says what is wrong
            with contextlib.suppress(ProtocolError):
                runs = self._protocol.close(cut=True)
        return Reading(_text(out), ended_by, status, runs)

    def _line(self, line: Line, now: float) -> int | None:
        if line.rtype == "hello":
            self._hello, self._end_at = True, None
        elif line.rtype == "meta" and self._hello and not self._checked:
            for key, value in line.pairs().items():
                self._seen.setdefault(key, value)
            self._check(final=False)
        elif line.rtype == "end":
            self._end_at = now
            self._check_at_end()
        done = DONE.match(line.text) if line.rtype is None else None
        return int(done.group(1)) if done else None

    def _check_at_end(self) -> None:
        if self._hello and not self._checked:
            self._check(final=True)

    def _check(self, final: bool) -> None:
        """The first run's meta against `expect`: another value is a wrong image at
        once; a key the first run never said is one at its end."""
        for key, want in self.expect.items():
            got = self._seen.get(key)
            if got is not None and got != want:
                raise WrongImage(
                    f"wrong image on {self.where}: it says {key}={got}, the spec expects "
                    f"{key}={want}; flash the image built for {want}"
                )
            if got is None and final:
                raise WrongImage(
                    f"wrong image on {self.where}: its protocol output names no {key} "
                    f"(the spec expects {key}={want}); flash an rtlab image built for it"
                )
        if all(k in self._seen for k in self.expect):
            self._checked = True

    def _silent(self, out: bytearray, when: str) -> BoardSilent:
        if not out:
            return BoardSilent(f"{self.where} does not answer: nothing received {when}")
        head = _text(out[:60]).encode("unicode_escape").decode("ascii")
        return BoardSilent(
            f"{self.where} does not speak the protocol: {len(out)} bytes but no @rtl1 hello "
            f"{when} (wrong image or baud rate?); first bytes: {head}"
        )


_NUL_AFTER_NEWLINE = re.compile(rb"\n\x00+")
_LEADING_NUL = re.compile(r"(?m)^\x00+")


def _text(data: bytes | bytearray) -> str:
    """The output as text, without the NULs a UART sends at reset before a line."""
    return _LEADING_NUL.sub("", bytes(data).decode("utf-8", "replace"))
