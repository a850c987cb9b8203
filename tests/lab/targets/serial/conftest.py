"""The serial target without hardware: an emulated serial board (QEMU mps2 under icount,
its UART0 on a TCP socket, started by the `qemu` flasher), and small TCP servers that
stand where a board's serial port would be: one that accepts and says nothing (a board
that does not answer), one that says something else than the protocol."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rtlab.lab.boards.cmake_layer import build_mps2
from rtlab.lab.targets import qemu as tq
from tests.needs import missing_tool
from tests.paths import REPO_ROOT


@pytest.fixture(scope="package")
def smoke_dir() -> Path:
    """The bare-metal smoke firmware (no kernel): build/rtbench-qemu-nokernel."""
    missing_tool("deps/apt.txt", "cmake", "arm-none-eabi-gcc", tq.QEMU)
    out = build_mps2()
    assert out == REPO_ROOT / "build" / "rtbench-qemu-nokernel"
    return out


class PortServer:
    """A TCP port on 127.0.0.1 that accepts every connection and sends `says` (then
    keeps it open until stopped), as a serial server with a board behind it would."""

    def __init__(self, says: bytes) -> None:
        self.says = says
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = int(self.sock.getsockname()[1])
        self.conns: list[socket.socket] = []
        self._stop = False
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"socket://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            if self.says:  # a moment after the port opened, as a board after its reset
                threading.Timer(0.2, conn.sendall, (self.says,)).start()

    def stop(self) -> None:
        self._stop = True
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.fixture
def silent_port() -> Iterator[PortServer]:
    server = PortServer(b"")
    yield server
    server.stop()


@pytest.fixture
def noisy_port() -> Iterator[PortServer]:
    server = PortServer(b"\x00\xff boot v1.2\r\n\x13\x37 garbage at the wrong baud rate")
    yield server
    server.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def assert_fails_without_its_probe(spec: Path, tmp_path: Path, says: str) -> None:
    """`rtlab run` of a real board's example spec here, where no probe is plugged in: exit
    2, one line that `says` (the board and its OpenOCD configuration), nothing stored."""
    from rtlab.results import Store
    from tests.conftest import rtlab

    store = tmp_path / "st.duckdb"
    proc = rtlab("run", str(spec), "--store", str(store))
    err = proc.stderr.strip()
    assert proc.returncode == 2, proc.stdout + err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert says in err
    if store.exists():
        with Store(store) as st:
            assert st.runs() == []
