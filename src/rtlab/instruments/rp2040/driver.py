"""Host driver of the rtlab RP2040 capture module: the serial conversation (HELLO, a
capture's start, its frames until STOPPED); frames.py turns the frames into a Capture."""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction
from typing import Protocol

from rtlab.errors import RtlabError
from rtlab.instruments.rp2040 import wire as p
from rtlab.instruments.rp2040.frames import (
    CaptureDecoder,
    DeviceError,
    DeviceInfo,
    Status,
    parse_hello,
)
from rtlab.model import Capture


class Port(Protocol):
    def read(self, size: int = 1) -> bytes: ...
    def write(self, data: bytes) -> int | None: ...


class RP2040Module:
    """A connected capture module: handshake, start, stream, stop."""

    def __init__(self, port: Port, *, timeout_s: float = 5.0) -> None:
        self.port = port
        self.reader = p.FrameReader()
        self.timeout_s = timeout_s
        self.info: DeviceInfo | None = None

    def _frames(self, deadline: float):
        while time.monotonic() < deadline:
            data = self.port.read(4096)
            if data:
                yield from self.reader.feed(data)
            else:
                yield None

    def hello(self) -> DeviceInfo:
        """Handshake. A capture a previous host left running is stopped first: its STOP
        is answered by ERROR 11 (nothing ran) or, after draining, by STOPPED."""
        self.port.write(p.encode_frame(p.C_STOP))
        self.port.write(p.encode_frame(p.C_HELLO))
        stop_done = False
        for f in self._frames(time.monotonic() + self.timeout_s):
            if f is None:
                continue
            if f.type == p.F_STOPPED or (f.type == p.F_ERROR and f.payload[:1] == b"\x0b"):
                stop_done = True
            elif f.type == p.F_HELLO:
                self.info = parse_hello(f.payload)
            if stop_done and self.info is not None:
                return self.info
        raise DeviceError(f"no HELLO from the module within {self.timeout_s:g} s")

    def capture(
        self,
        base_pin: int,
        nch: int,
        duration_s: Fraction,
        *,
        selftest: tuple[int, int, int] | None = None,
        on_status: Callable[[Status, CaptureDecoder], None] | None = None,
        names: list[str] | None = None,
        flags: int = 0,
    ) -> Capture:
        """Capture `nch` pins from `base_pin` for `duration_s` of device time."""
        info = self.info or self.hello()
        st_gpio, st_div, st_top = selftest if selftest else (None, 1, 1)
        self.port.write(p.cmd_start(base_pin, nch, st_gpio, st_div, st_top, flags))
        dec = CaptureDecoder(info)
        want_k = int(duration_s / info.tick_s)
        stop_sent = False
        deadline = time.monotonic() + self.timeout_s
        for f in self._frames(float("inf")):
            if f is None:
                if time.monotonic() > deadline:
                    raise DeviceError(f"the module went silent for {self.timeout_s:g} s")
                continue
            deadline = time.monotonic() + self.timeout_s
            if f.type == p.F_HELLO:
                continue  # the reply to our hello or a boot banner
            if dec.started is None and (
                f.type not in (p.F_STARTED, p.F_ERROR) or f.payload[:1] == b"\x0b"
            ):
                continue  # leftovers from before our START (incl. the reply to hello's STOP)
            status = dec.handle(f)
            if status is not None:
                if on_status:
                    on_status(status, dec)
                if not stop_sent and status.k >= want_k:
                    self.port.write(p.encode_frame(p.C_STOP))
                    stop_sent = True
            if dec.stopped:
                break
        cap = dec.capture(names)
        cap.metadata["link"] = {
            "crc_errors": self.reader.crc_errors,
            "bad_bytes": self.reader.bad_bytes,
            "seq_gaps": self.reader.seq_gaps,
        }
        return cap


def selftest_params(period_cycles: int) -> tuple[int, int]:
    """(divider 1..255, top) so that divider * (top + 1) == period exactly."""
    for div in range(1, 256):
        if period_cycles % div == 0 and 2 <= period_cycles // div <= 65536:
            return div, period_cycles // div - 1
    raise RtlabError(
        f"self-test period of {period_cycles} cycles is not div*(top+1) "
        "with div <= 255 and top < 65536"
    )
