"""Start/stop capture around a workload: `rtlab run` starts the module, runs the
workload, stops it and gets the Capture. A reader thread keeps the link drained
meanwhile, so the module's buffers never fill because the host was busy."""

from __future__ import annotations

import threading
import time

from rtlab.instruments.rp2040 import wire as p
from rtlab.instruments.rp2040.driver import RP2040Module
from rtlab.instruments.rp2040.frames import CaptureDecoder, DeviceError, Status
from rtlab.model import Capture


class CaptureSession:
    """`with CaptureSession(mod, 2, 4) as s: run(); cap = s.stop()`"""

    def __init__(
        self,
        module: RP2040Module,
        base_pin: int,
        nch: int,
        *,
        selftest: tuple[int, int, int] | None = None,
        names: list[str] | None = None,
        flags: int = 0,
    ) -> None:
        self.mod = module
        self.base_pin, self.nch = base_pin, nch
        self.selftest, self.names, self.flags = selftest, names, flags
        self.decoder: CaptureDecoder | None = None
        self.status: Status | None = None
        self._error: BaseException | None = None
        self._started = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        info = self.mod.info or self.mod.hello()
        self.decoder = CaptureDecoder(info)
        st_gpio, st_div, st_top = self.selftest if self.selftest else (None, 1, 1)
        self.mod.port.write(
            p.cmd_start(self.base_pin, self.nch, st_gpio, st_div, st_top, self.flags)
        )
        self._thread = threading.Thread(target=self._read, name="rp2040-reader", daemon=True)
        self._thread.start()
        if not self._started.wait(self.mod.timeout_s):
            raise self._error if self._error else DeviceError("no STARTED from the module")

    def _read(self) -> None:
        dec = self.decoder
        assert dec is not None
        last = time.monotonic()
        try:
            while not self._done.is_set():
                data = self.mod.port.read(4096)
                if not data:
                    if time.monotonic() - last > self.mod.timeout_s:
                        raise DeviceError(f"the module went silent for {self.mod.timeout_s:g} s")
                    continue
                last = time.monotonic()
                for f in self.mod.reader.feed(data):
                    if dec.started is None and (
                        f.type not in (p.F_STARTED, p.F_ERROR) or f.payload[:1] == b"\x0b"
                    ):
                        continue
                    st = dec.handle(f)
                    if st is not None:
                        self.status = st
                    if dec.started is not None:
                        self._started.set()
                    if dec.stopped:
                        self._done.set()
        except BaseException as exc:  # handed to the caller's thread in stop()
            self._error = exc
            self._started.set()
            self._done.set()

    def stop(self) -> Capture:
        if self._thread is None or self.decoder is None:
            raise DeviceError("capture session was not started")
        if self._error is None:
            self.mod.port.write(p.encode_frame(p.C_STOP))
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self.decoder.capture(self.names)

    def __enter__(self) -> CaptureSession:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._done.set()
            self._thread.join()
