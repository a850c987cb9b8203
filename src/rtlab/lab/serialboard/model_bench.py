"""The instrument bench on the model: models/rp2040/bench.js, one node
process holding the rtlab capture module's firmware on an RP2040 model, wired to the
board model that runs each image, both on one clock (docs/instrument-pair.md).

    bench = ModelBench(capture_image)      # the module boots; its UART is a pty
    bench.module_port                      # what the host driver opens (the instrument)
    master, port = bench.board_pty()       # a board run's UART0, as a USB-serial port
    bench.run_board(image, max_cycles, xip_cache, master)
    status, notes = bench.wait_board(timeout_s)
    bench.close()

The module keeps running between boards, as a module on a real bench stays plugged in:
the instrument arms it before the board is flashed and drains it after the board ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import queue
import signal
import subprocess
import termios
import threading
import time
import tty
from pathlib import Path
from typing import Any

from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.serialboard.errors import SerialBoardError
from rtlab.procgroup import kill_group, spawn_held

MODEL_DIR = REPO_ROOT / "models" / "rp2040"
CAPTURE_IMAGE = REPO_ROOT / "firmware" / "rp2040-capture" / "build" / "rtlab-capture.bin"
STATUS = {"done": 0, "error": 2, "budget": 3, "aborted": None}
READY_S = 30.0


def _raw_pty() -> tuple[int, int]:
    master, slave = os.openpty()
    tty.setraw(slave)  # bytes as they are: no echo, no CR/LF translation
    return master, slave


def close_when_read(
    pty: tuple[int, int], drain_s: float, over: threading.Event | None = None
) -> None:
    """Closes a pty (master, slave) once its reader has read what is in it, after drain_s,
    or once `over` is set (nobody reads any more): closing the master hangs the port up,
    and a hang-up drops the bytes its reader has not read yet."""
    end = time.monotonic() + drain_s
    with contextlib.suppress(OSError):
        while time.monotonic() < end and not (over is not None and over.is_set()):
            pending = fcntl.ioctl(pty[1], termios.FIONREAD, b"\0\0\0\0")
            if int.from_bytes(pending, "little") == 0:
                break
            time.sleep(0.01)
    for fd in pty:
        with contextlib.suppress(OSError):
            os.close(fd)


class ModelBench:
    """One bench process; every method but close is called by one thread at a time."""

    def __init__(self, capture_image: Path = CAPTURE_IMAGE) -> None:
        if not capture_image.is_file():
            raise SerialBoardError(
                f"no capture module image {capture_image}: build it with "
                "`make -C firmware/rp2040-capture`"
            )
        self._mod_master, self._mod_slave = _raw_pty()
        self.module_port = os.ttyname(self._mod_slave)
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._uart: tuple[int, int] | None = None  # the running board's pty: master, slave
        self._stderr: list[str] = []
        argv = ["node", str(MODEL_DIR / "bench.js"), "--module", str(capture_image)]
        self.proc = spawn_held(  # serves run after run; a killed rtlab leaves none
            [*argv, "--module-fd", str(self._mod_master)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(self._mod_master,),
        )
        self._threads = [
            threading.Thread(target=self._read_events, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for t in self._threads:
            t.start()
        ev = self._next_event(READY_S)
        if ev.get("event") != "ready":
            self.close()
            raise SerialBoardError(f"the bench did not start: {ev.get('message') or ev}")

    # ---------------------------------------------------------------- the process

    def _read_events(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            msg = json.loads(raw)
            if "uart" in msg:
                pty = self._uart
                if pty is not None:
                    with contextlib.suppress(OSError):
                        os.write(pty[0], msg["uart"].encode("latin1"))
                continue
            if msg.get("event") == "ended" and msg.get("reason") != "done":
                self._close_uart()  # the reader sees the port end (no done line to end on)
            self._events.put(msg)
        self._events.put({"event": "exit", "message": " ".join(self._stderr[-2:])})

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self._stderr.append(raw.decode("utf-8", "replace").strip())

    def _next_event(self, timeout_s: float) -> dict[str, Any]:
        try:
            return self._events.get(timeout=timeout_s)
        except queue.Empty:
            return {"event": "timeout", "message": f"no answer from the bench in {timeout_s:g} s"}

    def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            raise SerialBoardError(f"the bench has ended: {self.notes()}") from None

    def _close_uart(self, drain_s: float = 2.0) -> None:
        pty, self._uart = self._uart, None
        if pty is not None:
            close_when_read(pty, drain_s)

    # ---------------------------------------------------------------- a board run

    @staticmethod
    def board_pty() -> tuple[int, int, str]:
        """A new pseudo-terminal for one board run: (master, slave, the slave's path)."""
        master, slave = _raw_pty()
        return master, slave, os.ttyname(slave)

    def run_board(
        self, image: Path, max_cycles: int, xip_cache: str, uart: tuple[int, int]
    ) -> None:
        """Powers the board on with `image`; its UART0 goes to the pty `uart` (master,
        slave: owned by the bench now, closed when the board ends or the next starts)."""
        self._close_uart(0)
        self._uart = uart
        self._send({"cmd": "run", "image": str(image), "max_cycles": max_cycles,
                    "xip_cache": xip_cache})  # fmt: skip

    def wait_board(self, timeout_s: float) -> tuple[int | None, dict[str, Any]]:
        """The board's exit status (as run.js's: 0 done, 2 error, 3 budget; None when
        aborted) and its end event; aborts a board that outlasts timeout_s."""
        while True:
            ev = self._next_event(timeout_s)
            if ev.get("event") == "ended":
                return STATUS.get(str(ev.get("reason")), 2), ev
            if ev.get("event") in ("exit", "timeout"):
                self.abort_board()
                return 2, ev

    def abort_board(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(SerialBoardError):
                self._send({"cmd": "abort"})
        self._close_uart(0)

    def end_uart(self) -> None:
        """The run is over: its port closes (what its reader left unread is dropped)."""
        self._close_uart(0)

    def notes(self) -> str:
        return " ".join(self._stderr[-2:])[:300]

    def close(self) -> None:
        """Ends the bench (and its module): stdin closed, then killed if it lingers."""
        proc = self.proc
        with contextlib.suppress(OSError):
            if proc.stdin is not None:
                proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            kill_group(proc, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        self._close_uart(0)
        for fd in (self._mod_master, self._mod_slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class BenchRuns:
    """The rp2040_model flasher's runs when a capture module is attached: each board run
    on the one bench (started at the first use, ended by close)."""

    def __init__(self, capture_image: Path) -> None:
        self.capture_image = capture_image
        self.bench: ModelBench | None = None
        self._pty: tuple[int, int, str] | None = None  # this run's: master, slave, path
        self._image: Path | None = None
        self._ended: dict[str, Any] = {}

    def started(self) -> ModelBench:
        if self.bench is None:
            self.bench = ModelBench(self.capture_image)
        return self.bench

    def module_port(self) -> str:
        return self.started().module_port

    def flash(self, image: Path) -> None:
        self.finish_pty()
        self._image = image
        self._pty = ModelBench.board_pty()
        self._ended = {}

    def port(self) -> str:
        assert self._pty is not None, "flash() first"
        return self._pty[2]

    def reset(self, max_cycles: int, xip_cache: str) -> None:
        assert self._pty is not None and self._image is not None, "flash() first"
        master, slave, _ = self._pty
        self._pty = None
        self.started().run_board(self._image, max_cycles, xip_cache, (master, slave))

    def finish(self, timeout_s: float = 60.0) -> int | None:
        """The board's status (0 done, 2 error, 3 budget, None aborted); the module runs on."""
        self.finish_pty()
        if self.bench is None or self._image is None:
            return None
        self._image = None
        status, self._ended = self.bench.wait_board(timeout_s)
        self.bench.end_uart()
        return status

    def finish_pty(self) -> None:
        pty, self._pty = self._pty, None
        for fd in pty[:2] if pty else ():
            with contextlib.suppress(OSError):
                os.close(fd)

    def notes(self) -> str:
        msg = self._ended.get("message")
        if msg:
            return str(msg)[:300]
        return self.bench.notes() if self.bench is not None else ""

    def abort(self) -> None:
        if self.bench is not None:
            self.bench.abort_board()

    def close(self) -> None:
        self.finish_pty()
        bench, self.bench = self.bench, None
        if bench is not None:
            bench.close()
