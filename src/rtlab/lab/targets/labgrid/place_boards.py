"""The board behind a place: labgrid supplies the place's lock and its resources (how
it is reached, the settings its role declares); the device behind it is rtlab's own.

A labgrid environment YAML (the lab's own file) says how a role is reached; rtlab puts
the resources of the place it holds in place of the role's RemotePlace (as
`labgrid-client -p PLACE env` prints them: labgrid's public client, no client session
inside rtlab) and picks the device by the driver the role declares:

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
from rtlab.lab.targets.labgrid.places import LabgridError, place_resources
from rtlab.lab.targets.labgrid.serial_board import SerialBoardOnPlace

BOARD_DRIVERS = ("SSHDriver", "QEMUDriver", "SerialDriver")


def _driver_names(config: Mapping[str, Any]) -> list[str]:
    drivers = config.get("drivers", {}) or {}
    if isinstance(drivers, list):
        return [next(iter(d)) for d in drivers if isinstance(d, dict) and d]
    return list(drivers)


def _with_resources(config: dict[str, Any], resources: list[dict[str, Any]]) -> None:
    """The role's RemotePlace becomes the resources of the place rtlab holds (its other
    resources stay); labgrid reads either form of a `resources` table, a list of
    one-key tables or one table, so the role's is made a list."""
    res = config.get("resources") or {}
    items = res if isinstance(res, list) else [{k: v} for k, v in res.items()]
    kept = [r for r in items if not (isinstance(r, dict) and "RemotePlace" in r)]
    config["resources"] = [*resources, *kept]


def open_board(
    env_path: str, role: str, place: str, coordinator: str, spec: Mapping[str, Any] = {}
) -> Board:
    """The board of `role` in the environment, bound to `place` on `coordinator`; `spec`:
    the target table (a serial board's board description, flasher, timings)."""
    if not Path(env_path).is_file():
        raise LabgridError(f"labgrid environment {env_path}: no such file")
    from labgrid import Environment

    try:
        env = Environment(str(Path(env_path).resolve()))
    except Exception as e:  # labgrid's own config errors: one line
        raise LabgridError(f"labgrid environment {env_path}: {e}") from None
    roles = env.config.get_targets()
    if role not in roles:
        raise LabgridError(
            f"labgrid environment {env_path} has no role {role!r}; "
            f"it has {', '.join(roles) or 'none'}"
        )
    drivers = _driver_names(roles[role])
    kind = next((d for d in BOARD_DRIVERS if d in drivers), None)
    if kind is None:
        raise LabgridError(
            f"labgrid role {role!r} in {env_path} declares {', '.join(drivers) or 'no driver'};"
            f" rtlab drives a board through one of {', '.join(BOARD_DRIVERS)}"
        )
    _with_resources(roles[role], place_resources(coordinator, place))
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


class _DriverSsh:
    """The transport of an ssh board on a place: the connection labgrid's SSHDriver
    holds (its ControlMaster and options) to the place's NetworkService."""

    def __init__(self, driver: Any, ssh: str) -> None:
        self.driver = driver
        self.ssh = ssh  # the environment's `tools: ssh`, as the driver runs it
        self.service = driver.networkservice
        # the driver's user, else the NetworkService's (the driver's own rule)
        self.user = driver.username or self.service.username

    def argv(self, remote: Sequence[str], tty: bool = False) -> list[str]:
        argv = [self.ssh, "-x", *self.driver.ssh_prefix, "-p", str(self.service.port)]
        argv += ["-l", self.user, *(["-tt"] if tty else [])]
        return [*argv, "--", self.service.address, " ".join(shlex.quote(a) for a in remote)]

    def hang_up(self) -> None:
        """End the shared connection: every command running over it ends."""
        prefix = self.driver.ssh_prefix
        argv = [self.ssh, *prefix, "-O", "exit", "-p", str(self.service.port)]
        with contextlib.suppress(Exception):
            run_process([*argv, "--", self.service.address], timeout=10)


class SshBoard(Board):
    """rtlab's Linux-host device (rtlab.lab.linux_host) over the place's ssh transport:
    labgrid supplies the connection and the lock, rtlab runs and fingerprints."""

    kind = "ssh"

    def __init__(self, target: Any) -> None:
        self.target = target
        self.driver = target.get_driver("SSHDriver")  # activates: the connection is up
        self.transport = _DriverSsh(self.driver, target.env.config.get_tool("ssh"))
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
        return r.completed()

    def fingerprint(self) -> dict[str, Any]:
        return qemu_fingerprint(self.qemu, self.machine, self.icount_shift)

    def abort(self) -> None:
        self.device.abort()
