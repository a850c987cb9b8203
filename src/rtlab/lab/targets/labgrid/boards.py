"""The board behind a place, reached through labgrid's own drivers.

A labgrid environment YAML (the lab's own file) says how a role is reached; rtlab
points its RemotePlace at the place it holds and picks the board by the driver the
role declares:

- `SSHDriver`: a Linux board. Commands go through the driver's ssh connection (its
  ControlMaster and options); rtlab runs the ssh client itself so that a timeout or
  Ctrl-C stops the remote command's process group like the `ssh` target does.
- `SerialDriver`: an RTOS board printing the protocol on the place's serial port,
  flashed by the role's OpenOCDDriver (rtlab.lab.targets.labgrid.serial_board).
- `QEMUDriver`: an emulated Cortex-M board (mps2). Each run boots the firmware under
  the driver (its QMP start, its command line) with the workload's command line as
  semihosting arguments and UART0 in a file (see QemuBoard.run), waits for QEMU to exit
  with the guest's semihosting exit status, and labels the output as the `qemu` target
  does.
"""

from __future__ import annotations

import contextlib
import shlex
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rtlab.errors import RtlabError
from rtlab.lab import hostview
from rtlab.lab.fingerprint import fingerprint
from rtlab.lab.qemu import icount_labels, qemu_fingerprint, qemu_version, semihosting_args
from rtlab.lab.targets.base import Background, Completed, Group, run_process
from rtlab.lab.targets.labgrid.board_base import Board, firmware_program
from rtlab.lab.targets.labgrid.places import LabgridError
from rtlab.lab.targets.labgrid.serial_board import SerialBoardOnPlace
from rtlab.protocol import label_after_hello

BOARD_DRIVERS = ("SSHDriver", "QEMUDriver", "SerialDriver")
_FIRMWARE_KEY = "rtlab-firmware"  # the images key rtlab gives the ELF of a run
# labgrid's RemotePlaceManager is one per process: boards are opened one at a time.
_OPENING = threading.Lock()


def _driver_names(config: Mapping[str, Any]) -> list[str]:
    drivers = config.get("drivers", {}) or {}
    if isinstance(drivers, list):
        return [next(iter(d)) for d in drivers if isinstance(d, dict) and d]
    return list(drivers)


def _with_place(config: dict[str, Any], place: str) -> None:
    """The role's RemotePlace becomes the place rtlab holds (added if absent)."""
    res = config.get("resources") or {}
    if isinstance(res, list):
        res = [r for r in res if not (isinstance(r, dict) and "RemotePlace" in r)]
        config["resources"] = [{"RemotePlace": {"name": place}}, *res]
    else:
        config["resources"] = {"RemotePlace": {"name": place}, **res}


def open_board(
    env_path: str, role: str, place: str, coordinator: str, spec: Mapping[str, Any] = {}
) -> Board:
    """The board of `role` in the environment, bound to `place` on `coordinator`; `spec`:
    the target table (a serial board's board description, flasher, timings)."""
    if not Path(env_path).is_file():
        raise LabgridError(f"labgrid environment {env_path}: no such file")
    from labgrid import Environment

    with _OPENING:
        try:
            env = Environment(str(Path(env_path).resolve()))
        except Exception as e:  # labgrid's own config errors: one line
            raise LabgridError(f"labgrid environment {env_path}: {e}") from None
        env.config.set_option("coordinator_address", coordinator)
        roles = env.config.get_targets()
        if role not in roles:
            raise LabgridError(
                f"labgrid environment {env_path} has no role {role!r}; "
                f"it has {', '.join(roles) or 'none'}"
            )
        drivers = _driver_names(roles[role])
        _with_place(roles[role], place)
        kind = next((d for d in BOARD_DRIVERS if d in drivers), None)
        if kind is None:
            raise LabgridError(
                f"labgrid role {role!r} in {env_path} declares {', '.join(drivers) or 'no driver'};"
                f" rtlab drives a board through one of {', '.join(BOARD_DRIVERS)}"
            )
        _see_acquired(place)
        try:
            target = env.get_target(role)
            board: Board
            if kind == "SerialDriver":
                board = SerialBoardOnPlace(target, spec, drivers, place)
            else:
                board = SshBoard(target) if kind == "SSHDriver" else QemuBoard(target)
        except (LabgridError, RtlabError):
            raise
        except Exception as e:
            raise LabgridError(f"labgrid place {place}, role {role}: {e}") from None
    return board


def _see_acquired(place: str, timeout: float = 10.0) -> None:
    """labgrid's one client session per process learns of a place acquired after it
    started (by rtlab's next lease) only while its event loop runs: let it run until the
    session sees the place as acquired, or labgrid would call it not acquired."""
    import asyncio

    from labgrid.resource.remote import RemotePlaceManager

    mgr: Any = RemotePlaceManager.get()
    if mgr.session is None:
        return  # the session starts now, with the places as they are
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        known = mgr.session.places.get(place)
        if known is not None and known.acquired:
            return
        mgr.loop.run_until_complete(asyncio.sleep(0.05))


class SshBoard(Board):
    kind = "ssh"

    def __init__(self, target: Any) -> None:
        self.target = target
        self.driver = target.get_driver("SSHDriver")  # activates: the connection is up
        self.service = self.driver.networkservice

    def _argv(self, remote: Sequence[str], tty: bool = False) -> list[str]:
        d = self.driver
        argv = [d._ssh, "-x", *d.ssh_prefix, "-p", str(self.service.port)]
        argv += ["-l", d._get_username(), *(["-tt"] if tty else [])]
        return [*argv, "--", self.service.address, " ".join(shlex.quote(a) for a in remote)]

    def describe(self) -> dict[str, Any]:
        return {"board": "ssh", "host": self.service.address, "port": self.service.port}

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        return run_process(self._argv(argv), timeout)

    def start(self, argv: Sequence[str]) -> Background:
        return Group(self._argv(argv, tty=True))

    def fingerprint(self) -> dict[str, Any]:
        r = self.run(["sh", "-c", hostview.SCRIPT], timeout=60)
        if r.returncode != 0 or hostview.SEP not in r.stdout:
            tail = " ".join(r.stderr.strip().splitlines()[-2:])[:300]
            raise LabgridError(f"cannot reach {self.service.address} over labgrid ssh: {tail}")
        fp = fingerprint(view=hostview.SnapshotView(r.stdout))
        fp["ssh_host"] = self.service.address
        return fp

    def abort(self) -> None:
        """End the driver's shared connection: every command running over it ends."""
        d = self.driver
        argv = [d._ssh, *d.ssh_prefix, "-O", "exit", "-p", str(self.service.port)]
        with contextlib.suppress(Exception):
            run_process([*argv, "--", self.service.address], timeout=10)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.target.deactivate(self.driver)


def _icount_shift(extra: Sequence[str]) -> int | None:
    for i, a in enumerate(extra[:-1]):
        if a == "-icount":
            for part in extra[i + 1].split(","):
                if part.startswith("shift="):
                    return int(part.removeprefix("shift="))
    return None


class QemuBoard(Board):
    kind = "qemu"

    def __init__(self, target: Any) -> None:
        from labgrid.driver import QEMUDriver

        self.target = target
        self.driver = target.get_driver(QEMUDriver, activate=False)
        self.base_extra = shlex.split(self.driver.extra_args or "")
        if "-semihosting-config" in self.base_extra:
            raise LabgridError(
                "QEMUDriver extra_args: leave -semihosting-config out; rtlab passes each "
                "run's command line through it"
            )
        self.machine = str(self.driver.machine)
        self.icount_shift = _icount_shift(self.base_extra)
        self.qemu = target.env.config.get_tool(self.driver.qemu_bin) or self.driver.qemu_bin
        self._lock = threading.Lock()
        self._aborted = False

    def describe(self) -> dict[str, Any]:
        return {
            "board": "qemu",
            "machine": self.machine,
            "icount_shift": self.icount_shift,
            "timebase": "icount" if self.icount_shift is not None else "host",
            "qemu_version": qemu_version(self.qemu),
        }

    def program(self, name: str, programs: Mapping[str, str], elf: str | None) -> str:
        return firmware_program(name, programs, elf)

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        if not argv:
            raise LabgridError("nothing to run")
        elf = Path(argv[0]).resolve()
        if not elf.is_file():
            raise LabgridError(f"no such ELF: {argv[0]}")
        words = " ".join(argv[1:]).split()
        d = self.driver
        with tempfile.TemporaryDirectory(prefix="rtlab-lg-") as tmp:
            # UART0 into a file, ahead of the driver's socket console (which becomes
            # UART1): a socket console lets host timing into the icount figures (the
            # UART waits on a busy socket; measured: 2 of 12 runs of the smoke firmware
            # differed), a file is written at once, as the qemu target's stdio pipe.
            uart0 = Path(tmp) / "uart0"
            d.target.env.config.data.setdefault("images", {})[_FIRMWARE_KEY] = str(elf)
            d.kernel = _FIRMWARE_KEY
            d.extra_args = shlex.join(
                [*self.base_extra, *semihosting_args(words), "-serial", f"file:{uart0}"]
            )
            self.target.activate(d)
            try:
                try:
                    d.on()
                except Exception as e:
                    # the guest can exit (semihosting) before QMP answers `cont`: QEMU is
                    # gone or going, and its output counts
                    if not self._exits(d):
                        raise LabgridError(f"labgrid QEMUDriver: QEMU did not start: {e}") from None
                try:
                    status = d._child.wait(timeout=timeout)
                    timed_out = False
                except subprocess.TimeoutExpired:
                    status, timed_out = None, True
                if self._aborted:
                    status = None
            finally:
                self._stop(d)
            out = uart0.read_bytes() if uart0.exists() else b""
        labels = icount_labels(self.machine, self.icount_shift)
        text = label_after_hello(out.decode("utf-8", "replace"), labels)
        return Completed(status, text, "", timed_out)

    @staticmethod
    def _exits(d: Any) -> bool:
        if d._child is None:
            return False
        try:
            d._child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return False
        return True

    def _stop(self, d: Any) -> None:
        child = d._child
        if child is not None and child.poll() is None:
            child.kill()
        if child is not None:
            with contextlib.suppress(Exception):
                child.communicate(timeout=5)
        d._child, d.status = None, 0  # QEMU has exited: nothing for off() to quit
        with contextlib.suppress(Exception):
            self.target.deactivate(d)

    def fingerprint(self) -> dict[str, Any]:
        return qemu_fingerprint(self.qemu, self.machine, self.icount_shift)

    def abort(self) -> None:
        self._aborted = True
        d = self.driver
        child = d._child
        if child is not None and child.poll() is None:
            child.kill()
        # QEMU killed before it reached the driver's console socket: wake the accept()
        listening = d._socket
        if listening is not None:
            with contextlib.suppress(OSError):
                listening.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.target.deactivate(self.driver)
