"""An emulated board's first bytes survive the opening of its socket:// port, through
rtlab's own link and through a labgrid SerialDriver alike. QEMU (server=on,wait=on) starts
the guest when the port connects; pyserial's socket port empties its input at the end of
open(), so on a loaded machine the hello came before that flush and was thrown away
("no @rtl1 hello before the port closed"; seen beside stress-ng through labgrid)."""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from serial.urlhandler.protocol_socket import Serial as PyserialSocket

from rtlab.lab.serialboard.link import SerialLink, unflushed_socket_port
from rtlab.lab.targets.labgrid.serial_board import SerialBoardOnPlace

HELLO = b"@rtl1 hello board=mps2-an385\n"


@pytest.fixture
def board_port() -> Iterator[int]:
    """A TCP server that, like QEMU with wait=on, sends the hello as soon as a client
    connects."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    conns: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return  # closed by the fixture
            conn.sendall(HELLO)
            conns.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield port
    server.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close alone does not)
    server.close()
    for c in conns:
        c.close()
    thread.join(timeout=5)


def _late_open(cls: type) -> type:
    """cls, whose open() goes on only once the board's bytes have come: what a loaded
    machine does at random, every time."""

    class Late(cls):  # type: ignore[misc, valid-type]
        def _reconfigure_port(self, *a: Any, **kw: Any) -> None:
            if not self.is_open:  # in open() (a later timeout change calls it too)
                select.select([self._socket], [], [], 5)
                time.sleep(0.05)  # the whole of the hello, not its first segment only
            super()._reconfigure_port(*a, **kw)

    return Late


def _read_all(port: Any) -> bytes:
    port.timeout = 0.5
    return bytes(port.read(len(HELLO)))


def test_pyserials_own_socket_port_loses_what_came_at_connect(board_port: int) -> None:
    """Why the ports below are not pyserial's: the failure, made to happen."""
    port = _late_open(PyserialSocket)(None)
    port.port = f"socket://127.0.0.1:{board_port}"
    port.open()
    try:
        assert _read_all(port) == b""
    finally:
        port.close()


def test_rtlabs_socket_port_keeps_what_came_at_connect(board_port: int) -> None:
    port = _late_open(type(unflushed_socket_port()))(None)
    port.port = f"socket://127.0.0.1:{board_port}"
    port.open()
    try:
        assert _read_all(port) == HELLO
    finally:
        port.close()


def test_a_labgrid_serial_driver_opens_rtlabs_socket_port(board_port: int) -> None:
    """A place whose board is on a raw NetworkSerialPort (an emulated board's QEMU): its
    SerialDriver's port is swapped for the one that keeps the first bytes, and the link
    over it reads the hello."""
    import labgrid
    from labgrid.driver import SerialDriver
    from labgrid.resource import NetworkSerialPort

    target = labgrid.Target("mps2")
    NetworkSerialPort(target, None, host="127.0.0.1", port=board_port, protocol="raw")
    driver = SerialDriver(target, None)
    board = SerialBoardOnPlace(
        target, {"board": "mps2-an385", "flasher": "none"}, ["SerialDriver"], "mps2-1"
    )
    assert type(driver.serial) is type(unflushed_socket_port())
    link: SerialLink = board._open_link(f"socket://127.0.0.1:{board_port}")
    try:
        got = b""
        deadline = time.monotonic() + 10
        while len(got) < len(HELLO) and time.monotonic() < deadline:
            got += link.read(0.5) or b""
        assert got == HELLO
    finally:
        link.close()
        board.close()
