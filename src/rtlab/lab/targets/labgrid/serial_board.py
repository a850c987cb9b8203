"""An RTOS board on a place, read through labgrid's SerialDriver: the place's serial port
(a NetworkSerialPort, or the USBSerialPort an exporter serves) carries the image's `@rtl1`
output. It is flashed by labgrid's OpenOCDDriver when the role declares one (a real MCU
on a debug probe), else by the spec's `flasher`: `qemu` for an emulated serial board
(QEMU listens where the place's NetworkSerialPort points: the exporter publishes it
like any serial server) or `none`. The run itself is the serial target's
(rtlab.lab.serialboard.board): the same wrong-image, silent-board and probe errors.
"""

from __future__ import annotations

import contextlib
import platform
from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.lab.serialboard.board import SerialBoard
from rtlab.lab.serialboard.description import board_description
from rtlab.lab.serialboard.errors import SerialBoardError
from rtlab.lab.serialboard.flashers import FLASHERS
from rtlab.lab.serialboard.flashers.base import Flasher
from rtlab.lab.serialboard.link import SerialLink, unflushed_socket_port
from rtlab.lab.serialboard.options import reading_options
from rtlab.lab.targets.base import Completed
from rtlab.lab.targets.labgrid.board_base import Board, firmware_program
from rtlab.lab.targets.labgrid.openocd_flasher import LabgridOpenOcdFlasher
from rtlab.lab.targets.labgrid.places import LabgridError

FLASHING_DRIVERS = ("OpenOCDDriver",)


class SerialBoardOnPlace(Board):
    kind = "serial"

    def __init__(self, target: Any, spec: Mapping[str, Any], drivers: list[str], place: str):
        from labgrid.driver import SerialDriver

        if not isinstance(spec.get("board"), str):
            raise LabgridError(
                f'labgrid place {place}: a role with SerialDriver needs board = "name" in '
                "[target] (its board description: what the image must say it runs on)"
            )
        self.desc = board_description(spec["board"])
        self.target = target
        self.place = place
        # the board's port: the role's SerialDriver that is not the capture module's
        # (a SerialDriver named `instrument`: rtlab.lab.targets.labgrid.instruments)
        ports = [d for d in target.drivers if isinstance(d, SerialDriver)]
        ports = [d for d in ports if d.name != "instrument"]
        if len(ports) != 1:
            raise LabgridError(
                f"labgrid place {place}: the role has {len(ports)} SerialDrivers for the "
                "board; name the capture module's `instrument` and keep one for the board"
            )
        self.serial = ports[0]
        if type(self.serial.port).__name__ == "NetworkSerialPort" and (
            self.serial.port.protocol == "raw"
        ):  # labgrid opens pyserial's socket:// port, which empties what came at connect
            self.serial.serial = unflushed_socket_port()
        self.flasher = self._flasher(spec, drivers)
        self.flasher.check()
        self.board = SerialBoard(
            self.desc,
            self.flasher,
            f"labgrid place {place}'s {type(self.serial.port).__name__}",
            self._open_link,
            {"board": self.desc.board},
            **reading_options(spec),
        )

    def _flasher(self, spec: Mapping[str, Any], drivers: list[str]) -> Flasher:
        wanted = spec.get("flasher")
        if "OpenOCDDriver" in drivers:
            if wanted not in (None, "openocd"):
                raise LabgridError(
                    f"labgrid place {self.place}: the role flashes with OpenOCDDriver, "
                    f"not flasher = {wanted!r}"
                )
            return LabgridOpenOcdFlasher(self.target, self.place)
        if wanted == "qemu":
            from labgrid.util.proxy import proxymanager

            res = self.serial.port
            if type(res).__name__ != "NetworkSerialPort" or res.protocol != "raw":
                raise LabgridError(
                    f"labgrid place {self.place}: the qemu flasher listens on a "
                    "NetworkSerialPort with protocol raw (QEMU's socket)"
                )
            host, port = proxymanager.get_host_and_port(res)
            qemu = FLASHERS.get("qemu")  # the serial target's own, listening where labgrid says
            keys = {k: spec[k] for k in qemu.keys if k in spec}
            return qemu(self.desc, {**keys, "port": f"socket://{host}:{port}"})
        if wanted in (None, "none"):
            return FLASHERS.get("none")(self.desc, spec)
        raise LabgridError(
            f"labgrid place {self.place}: flasher = {wanted!r}: with labgrid a board is "
            f"flashed by the role's {' or '.join(FLASHING_DRIVERS)}, or is `qemu` or `none`"
        )

    def _open_link(self, url: str) -> SerialLink:
        try:
            self.target.activate(self.serial)
        except Exception as e:
            raise SerialBoardError(
                f"labgrid place {self.place}: cannot open its serial port: {e}"
            ) from None
        return SerialLink(self.serial.serial, url)

    def describe(self) -> dict[str, Any]:
        return {
            "board": self.desc.board,
            "serial": "labgrid SerialDriver",
            **self.flasher.describe(),
        }

    def program(self, name: str, programs: Mapping[str, str], elf: str | None) -> str:
        return firmware_program(name, programs, elf)

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        try:
            reading, status, labels = self.board.run(argv, timeout)
        finally:
            with contextlib.suppress(Exception):
                self.target.deactivate(self.serial)
        return Completed(
            status, reading.text, self.flasher.notes(), reading.timed_out, labels, reading.runs
        )

    def fingerprint(self) -> dict[str, Any]:
        return {
            "hostname": platform.node(),
            "board": self.desc.board,
            "board_description": self.desc.source,
            "flasher": self.flasher.describe(),
            "warnings": [],
        }

    def abort(self) -> None:
        self.board.abort()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.target.deactivate(self.serial)
        if isinstance(self.flasher, LabgridOpenOcdFlasher):
            with contextlib.suppress(Exception):
                self.target.deactivate(self.flasher.driver)
