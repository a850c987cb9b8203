"""A serial port opened by URL and read by a thread of its own.

    link = SerialLink.open("socket://127.0.0.1:5555", 115200)   # or /dev/ttyACM0,
    chunk = link.read(timeout=0.5)    # b"" nothing yet; None: the port closed (EOF)

URLs are pyserial's (`serial_for_url`): a device path, `socket://host:port` (raw TCP),
`rfc2217://host:port` (a ser2net or labgrid exporter). The thread drains the port as
fast as bytes come, so a writer never waits on a full buffer: an emulated UART that
finds its socket full waits for it with an interrupt at a host-timed moment, and under
icount that would change the instruction counts.
"""

from __future__ import annotations

import contextlib
import functools
import re
import select
import threading
import time
from typing import Any

from rtlab.lab.serialboard.errors import SerialBoardError


class SerialLink:
    def __init__(self, port: Any, name: str) -> None:
        """`port`: an open pyserial port (our own, or a labgrid SerialDriver's)."""
        self.port = port
        self.name = name
        self._buf = bytearray()
        self._more = threading.Condition()
        self._closed = False
        self._eof = False
        self._thread = threading.Thread(target=self._drain, daemon=True, name=f"read {name}")
        self._thread.start()

    @classmethod
    def open(cls, url: str, baud: int) -> SerialLink:
        import serial

        try:
            if url.startswith("socket://"):
                port = _keeping_socket(url, baud)
            else:  # pyserial empties the input at open: what came before is not this run's
                port = serial.serial_for_url(url, baudrate=baud, timeout=0)
        except (serial.SerialException, OSError, ValueError) as e:
            raise SerialBoardError(f"cannot open serial port {url}: {_why(e)}") from None
        return cls(port, url)

    def _drain(self) -> None:
        import serial

        self.port.timeout = 0  # each read takes what is there: one recv/read call
        fileno = getattr(self.port, "fileno", None)
        while not self._closed:
            try:
                if fileno is not None:  # a tty, socket://: wait until readable
                    select.select([fileno()], [], [], 0.05)
                else:  # rfc2217: its own reader thread fills a buffer
                    time.sleep(0.005)
                # Large reads: a socket whose bytes came one per packet (an emulated
                # UART) is emptied in one call, before its receive window closes.
                data = self.port.read(1 << 16)
            except (serial.SerialException, OSError, TypeError, AttributeError, ValueError):
                break  # the other end closed (an emulator exited) or we did
            if data:
                with self._more:
                    self._buf += data
                    self._more.notify()
        with self._more:
            self._eof = True
            self._more.notify()

    def read(self, timeout: float) -> bytes | None:
        """What came since the last read (b"" when nothing within timeout), or None once
        the port has closed and everything before that was read."""
        with self._more:
            if not self._buf and not self._eof:
                self._more.wait(timeout)
            if self._buf:
                data = bytes(self._buf)
                self._buf.clear()
                return data
            return None if self._eof else b""

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(Exception):
            self.port.close()
        self._thread.join(timeout=2)


def _keeping_socket(url: str, baud: int) -> Any:
    port = unflushed_socket_port()
    port.baudrate, port.timeout, port.port = baud, 0, url
    port.open()
    return port


def unflushed_socket_port() -> Any:
    """pyserial's socket:// port, not yet open, without the input flush its open() does:
    an emulator listening with wait=on starts its guest when we connect, so under load its
    first bytes (the hello) can come before that flush and be thrown away. Bytes older
    than this run's hello are harmless: the reader skips all before `@rtl1 hello`. Ours
    (SerialLink.open) and the one a labgrid SerialDriver opens for a raw
    NetworkSerialPort (rtlab.lab.targets.labgrid.serial_board) are both this."""
    return _unflushed_socket_class()()


@functools.cache
def _unflushed_socket_class() -> type:
    from serial.urlhandler.protocol_socket import Serial as SocketSerial

    class UnflushedSocket(SocketSerial):
        opening = False

        def open(self) -> None:
            self.opening = True
            try:
                super().open()
            finally:
                self.opening = False

        def reset_input_buffer(self) -> None:
            if not self.opening:
                super().reset_input_buffer()

    return UnflushedSocket


def _why(e: BaseException) -> str:
    text = (str(e).strip() or type(e).__name__).splitlines()[-1]
    return re.sub(r"^could not open port \S+: ", "", text, flags=re.I)[:200]
