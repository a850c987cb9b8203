"""The `qemu` flasher: an emulated serial board. Flashing an emulator is starting it with
the image: QEMU runs the board description's `qemu_machine` with the image, the protocol
UART (`qemu_serial`: which of QEMU's -serial's) on a TCP socket QEMU listens on, and
`-icount` (deterministic: the figures are an instruction-count model, and say so).

QEMU waits for the serial target to connect before the guest runs its first
instruction (`server=on,wait=on`), so no byte is lost; the guest's semihosting exit ends
QEMU, which closes the socket: that is the end of the output, and QEMU's exit status is
the guest's. This is the serial target's test path on a machine without boards
(docs/serial-target.md); a real board's flasher writes flash instead.

    [target]
    kind = "serial"
    board = "mps2-an385"      # its description names qemu_machine and qemu_serial
    flasher = "qemu"
    # port = "socket://127.0.0.1:5555"   # where QEMU listens (a labgrid NetworkSerialPort
    #                                    # names it); default: a free port
    # icount_shift = 0                   # -1: no icount (host time, not deterministic)
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from rtlab.catalog.machines import Machine
from rtlab.errors import ConfigError
from rtlab.lab.qemu.invocation import icount_args, icount_labels, qemu_version, semihosting_args
from rtlab.lab.serialboard.errors import FlashFailed, SerialBoardError
from rtlab.procgroup import kill_group, spawn

QEMU = "qemu-system-arm"
_WAITING = "waiting for connection"  # QEMU's line once it listens (server=on,wait=on)


def listen_address(url: str | None) -> tuple[str, int] | None:
    """host, port of a `socket://host:port` URL (where QEMU should listen)."""
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.scheme != "socket" or not parts.hostname or not parts.port:
        raise ConfigError("port", f"port = {url!r}: the qemu flasher listens on socket://host:port")
    return parts.hostname, parts.port


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class QemuFlasher:
    name: ClassVar[str] = "qemu"
    passes_args = True
    gives_port = True
    keys: tuple[str, ...] = ("icount_shift", "qemu")

    def __init__(self, board: Machine, spec: Mapping[str, Any]) -> None:
        if not board.qemu_machine:
            raise ConfigError(
                "flasher",
                f"board {board.board}: its description ({board.source}) names no qemu_machine,"
                " so no emulator runs it",
            )
        shift = spec.get("icount_shift", 0)
        if isinstance(shift, bool) or not isinstance(shift, int) or not -1 <= shift <= 10:
            raise ConfigError("icount_shift", "expected 0..10, or -1 for no icount (host time)")
        self.machine = board.qemu_machine
        self.serial_index = board.qemu_serial
        self.icount_shift: int | None = None if shift < 0 else shift
        self.qemu = str(spec.get("qemu", QEMU))
        self.fixed = listen_address(spec.get("port"))
        self.address: tuple[str, int] | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self._stderr: list[str] = []

    def check(self) -> None:
        if shutil.which(self.qemu) is None:
            raise SerialBoardError(f"{self.qemu} not found: install qemu-system-arm (deps/apt.txt)")

    def argv(self, image: Path, words: Sequence[str], host: str, port: int) -> list[str]:
        serials = ["-serial", "null"] * self.serial_index  # the UARTs before the protocol's
        serials += ["-serial", f"tcp:{host}:{port},server=on,wait=on"]
        return [
            self.qemu, "-M", self.machine, "-display", "none", "-monitor", "none", *serials,
            *semihosting_args(words, self.icount_shift), *icount_args(self.icount_shift),
            "-kernel", str(image),
        ]  # fmt: skip

    def flash(self, image: Path, words: Sequence[str]) -> None:
        host, port = self.fixed or ("127.0.0.1", _free_port("127.0.0.1"))
        self.address = (host, port)
        self._stderr = []
        self.proc = spawn(  # stopped by finish() in this thread; killed if rtlab is
            self.argv(image, words, host, port),
            die_with_parent=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        listening = threading.Event()
        threading.Thread(target=self._drain_stderr, args=(listening,), daemon=True).start()
        deadline = time.monotonic() + 20
        while not listening.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                why = self.notes() or f"exit status {self.proc.poll()}"
                self.finish()
                raise FlashFailed(f"QEMU ({self.machine}) did not start listening on "
                                  f"{host}:{port}: {why}")  # fmt: skip

    def _drain_stderr(self, listening: threading.Event) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").strip()
            if _WAITING in line:
                listening.set()
            else:
                self._stderr.append(line)

    def port(self) -> str | None:
        assert self.address is not None, "flash() first"
        return f"socket://{self.address[0]}:{self.address[1]}"

    def reset(self) -> None:
        pass  # the guest starts when the port is opened

    def finish(self) -> int | None:
        """QEMU's exit status (the guest's semihosting one); QEMU is stopped if it still
        runs (a timeout, a wrong image)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        try:
            return proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            kill_group(proc, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            return None

    def labels(self, extra: Mapping[str, object]) -> dict[str, object]:
        return icount_labels(self.machine, self.icount_shift, extra)

    def notes(self) -> str:
        return " ".join(self._stderr[-3:])[:300]

    def describe(self) -> dict[str, Any]:
        return {
            "flasher": "qemu",
            "machine": self.machine,
            "icount_shift": self.icount_shift,
            "timebase": "icount" if self.icount_shift is not None else "host",
            "qemu_version": qemu_version(self.qemu),
        }

    def module_port(self) -> str | None:
        return None  # no capture module beside QEMU's board

    def close(self) -> None:
        pass  # nothing outlives a run: finish or abort ends its QEMU

    def abort(self) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            kill_group(proc, signal.SIGKILL)


FLASHER = QemuFlasher
