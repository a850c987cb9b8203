"""The board behind a place: labgrid supplies the place's lock and its resources (how
it is reached, the settings its role declares); the device behind it is rtlab's own.

A labgrid environment YAML (the lab's own file) says how a role is reached; rtlab
points its RemotePlace at the place it holds and picks the device by the driver the
role declares:

- `SSHDriver`: a Linux host (rtlab.lab.linux_host, the `ssh` target's device) over the
  driver's ssh connection (its ControlMaster and options: the transport); rtlab runs
  the ssh client itself so that a timeout or Ctrl-C stops the remote command's process
  group like the `ssh` target does.
- `SerialDriver`: an RTOS board printing the protocol on the place's serial port,
  flashed by the role's OpenOCDDriver (rtlab.lab.targets.labgrid.serial_board: the
  serial target's SerialBoard on the place's port).
- `QEMUDriver`: a QEMU machine (rtlab.lab.qemu.machine, the `qemu` target's device)
  with the driver's machine, qemu_bin and extra_args (its -icount shift): the place's
  runs are the direct target's, byte for byte.
"""

from __future__ import annotations

import contextlib
import shlex
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import qemu_machines
from rtlab.errors import RtlabError
from rtlab.lab.linux_host import LinuxHost
from rtlab.lab.qemu.invocation import qemu_fingerprint
from rtlab.lab.qemu.machine import QemuError, QemuMachine
from rtlab.lab.targets.base import Background, Completed, run_process
from rtlab.lab.targets.labgrid.board_base import Board, firmware_program
from rtlab.lab.targets.labgrid.places import LabgridError
from rtlab.lab.targets.labgrid.serial_board import SerialBoardOnPlace

BOARD_DRIVERS = ("SSHDriver", "QEMUDriver", "SerialDriver")
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


class _DriverSsh:
    """The transport of an ssh board on a place: the connection labgrid's SSHDriver
    holds (its ControlMaster and options) to the place's NetworkService."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.service = driver.networkservice

    def argv(self, remote: Sequence[str], tty: bool = False) -> list[str]:
        d = self.driver
        argv = [d._ssh, "-x", *d.ssh_prefix, "-p", str(self.service.port)]
        argv += ["-l", d._get_username(), *(["-tt"] if tty else [])]
        return [*argv, "--", self.service.address, " ".join(shlex.quote(a) for a in remote)]

    def hang_up(self) -> None:
        """End the shared connection: every command running over it ends."""
        d = self.driver
        argv = [d._ssh, *d.ssh_prefix, "-O", "exit", "-p", str(self.service.port)]
        with contextlib.suppress(Exception):
            run_process([*argv, "--", self.service.address], timeout=10)


class SshBoard(Board):
    """rtlab's Linux-host device (rtlab.lab.linux_host) over the place's ssh transport:
    labgrid supplies the connection and the lock, rtlab runs and fingerprints."""

    kind = "ssh"

    def __init__(self, target: Any) -> None:
        self.target = target
        self.driver = target.get_driver("SSHDriver")  # activates: the connection is up
        self.transport = _DriverSsh(self.driver)
        self.service = self.transport.service
        self.device = LinuxHost(self.transport, self.service.address, LabgridError)

    def describe(self) -> dict[str, Any]:
        return {"board": "ssh", "host": self.service.address, "port": self.service.port}

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        return self.device.run(argv, timeout)

    def start(self, argv: Sequence[str]) -> Background:
        return self.device.start(argv)

    def fingerprint(self) -> dict[str, Any]:
        return self.device.fingerprint("labgrid ssh")

    def abort(self) -> None:
        self.transport.hang_up()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.target.deactivate(self.driver)


def _icount_split(extra: Sequence[str]) -> tuple[int | None, list[str]]:
    """The QEMUDriver's extra_args: the icount shift they ask for (None: host time), and
    the other arguments (the device adds -icount itself)."""
    shift, rest, skip = None, [], False
    for i, a in enumerate(extra):
        if skip:
            skip = False
            continue
        if a == "-icount" and i + 1 < len(extra):
            for part in extra[i + 1].split(","):
                if part.startswith("shift="):
                    shift = int(part.removeprefix("shift="))
            skip = True
            continue
        rest.append(a)
    return shift, rest


class QemuBoard(Board):
    """rtlab's QEMU-machine device (rtlab.lab.qemu.machine) for a place whose role
    declares a QEMUDriver: labgrid supplies the lock and the machine's settings (machine,
    qemu_bin, extra_args with the icount shift); rtlab runs QEMU as the `qemu` target
    does, so a place's runs are the direct target's, byte for byte."""

    kind = "qemu"

    def __init__(self, target: Any) -> None:
        from labgrid.driver import QEMUDriver

        self.target = target
        driver = target.get_driver(QEMUDriver, activate=False)
        base_extra = shlex.split(driver.extra_args or "")
        if "-semihosting-config" in base_extra:
            raise LabgridError(
                "QEMUDriver extra_args: leave -semihosting-config out; rtlab passes each "
                "run's command line through it"
            )
        self.icount_shift, extra = _icount_split(base_extra)
        self.machine = str(driver.machine)
        if self.machine not in qemu_machines():
            known = ", ".join(qemu_machines())
            raise LabgridError(f"QEMUDriver machine {self.machine!r}: rtlab runs {known}")
        qemu = target.env.config.get_tool(driver.qemu_bin) or driver.qemu_bin
        self.device = QemuMachine(self.machine, self.icount_shift, qemu, extra)
        self.qemu = self.device.qemu

    def describe(self) -> dict[str, Any]:
        return {"board": "qemu", **self.device.describe()}

    def program(self, name: str, programs: Mapping[str, str], elf: str | None) -> str:
        return firmware_program(name, programs, elf)

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        if not argv:
            raise LabgridError("nothing to run")
        try:
            r = self.device.run(Path(argv[0]).resolve(), " ".join(argv[1:]), timeout)
        except QemuError as e:
            raise LabgridError(str(e)) from None
        return Completed(r.exit_status, r.output, r.stderr, r.timed_out, r.labels)

    def fingerprint(self) -> dict[str, Any]:
        return qemu_fingerprint(self.qemu, self.machine, self.icount_shift)

    def abort(self) -> None:
        self.device.abort()
