"""The `serial` target kind: an RTOS board (an MCU) that prints the `@rtl1` protocol on
a serial port, flashed and reset by a flasher (docs/serial-target.md).

    [target]
    kind = "serial"
    board = "nucleo-f411re"        # a board description (rtlab.lab.serialboard.description)
    port = "/dev/ttyACM0"          # or socket://host:port, rfc2217://host:port
    # baud = 115200                # default: the description's
    flasher = "openocd"            # openocd, pyocd, uf2, qemu (an emulator), rp2040_model, none
    rtos = "freertos"              # rtbench built by an RTOS port for the board, or:
    # image = "build/x.elf"        # an image of your own (programs = {...} as elsewhere)
    # answer_s = 10                # the board must say hello this soon after reset
    # quiet_s = 5                  # silence after an `end` record ends the output
    # builtin_args = true          # a probe cannot pass options: run the image as built

Each run flashes the image the workload names, opens the port, resets the board and
reads until the output is done (rtlab.lab.serialboard.board_output). The image must name the
spec's board in its protocol meta (and the RTOS, when rtlab built it): another one is a
wrong image, one error, nothing of it stored. A missing probe or port stops `rtlab run`
before any cell (check at open).
"""

from __future__ import annotations

import dataclasses
import platform
from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.firmware import RtosFirmware, check_firmware
from rtlab.lab.serialboard.board import SerialBoard
from rtlab.lab.serialboard.description import board_description
from rtlab.lab.serialboard.errors import SerialBoardError
from rtlab.lab.serialboard.flashers import FLASHERS
from rtlab.lab.serialboard.link import SerialLink
from rtlab.lab.serialboard.options import KEYS as READING_KEYS
from rtlab.lab.serialboard.options import check_reading, reading_options
from rtlab.lab.targets.base import Background, Completed, Group, TargetBase, TargetKind

FIRMWARE_KEYS = ("image", "programs", "rtos", "rtos_config", "rtos_paths")
OWN_KEYS = ("board", "port", "baud", "flasher", "variants", *READING_KEYS)
FLASHER_KEYS = (
    "icount_shift", "qemu", "uf2_drive", "xip_cache", "layout_shift_kib", "arbitration_ties",
    "max_cycles", "capture_module",
)  # fmt: skip
PLACE = "place"  # [instrument] port: the capture module wired to this target's board


def _firmware_table(t: Mapping[str, Any]) -> dict[str, Any]:
    """The firmware keys as rtlab.lab.rtos.firmware reads them (`image` is its `elf`)."""
    fw = {k: v for k, v in t.items() if k in FIRMWARE_KEYS and k != "image"}
    if "image" in t:
        fw["elf"] = t["image"]
    return fw


def _check(t: Mapping[str, Any]) -> None:
    if not isinstance(t.get("board"), str) or not t["board"]:
        raise ConfigError("board", 'a serial target needs board = "name" (or a .toml path)')
    board = board_description(t["board"])
    flasher_name = t.get("flasher", "none")
    if not isinstance(flasher_name, str):
        raise ConfigError("flasher", "flasher: expected a string")
    flasher_cls = FLASHERS.get(flasher_name)
    for key in FLASHER_KEYS:
        if key in t and key not in flasher_cls.keys:
            raise ConfigError(key, f"{key}: only for a flasher that reads it, not {flasher_name}")
    flasher_cls(board, t)  # its own keys and the description's data for it
    if "port" in t and (not isinstance(t["port"], str) or not t["port"]):
        raise ConfigError("port", "port: expected a device path or a URL")
    if "port" not in t and not flasher_cls.gives_port:
        raise ConfigError("port", 'the board\'s serial port: port = "/dev/ttyACM0" (or a URL)')
    baud = t.get("baud", board.baud)
    if isinstance(baud, bool) or not isinstance(baud, int) or baud <= 0:
        raise ConfigError("baud", "baud: expected a positive integer")
    check_reading(t)
    check_firmware(_firmware_table(t), board.board, where="board")


def _check_condition(defn: Mapping[str, Any]) -> None:
    # rtlab's loads run on the host; an MCU would have to load itself (a firmware's own
    # interfering task), so a label saying "under load" would not be true of the board
    if defn.get("kind") != "idle":
        raise ConfigError(
            "profile",
            "a serial board runs its image alone: rtlab's load conditions load this host, "
            'not the board (use conditions = ["idle"]; rtbench\'s contention scenario '
            "loads the board from inside)",
        )


class SerialTarget(TargetBase):
    kind = "serial"

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.desc = board_description(str(t["board"]))
        self.flasher = FLASHERS.get(str(t.get("flasher", "none")))(self.desc, t)
        self.port = t.get("port")
        self.baud = int(t.get("baud", self.desc.baud))
        self.firmware = RtosFirmware(_firmware_table(t), self.desc.board)
        expect = {"board": self.desc.board}
        if "image" not in t or "rtos" in t:
            expect["rtos"] = self.firmware.port.name
        # a missing tool, probe or port stops `rtlab run` before any cell
        self.flasher.check()
        if not self.flasher.gives_port:
            SerialLink.open(str(self.port), self.baud).close()
        self.board = SerialBoard(
            self.desc,
            self.flasher,
            self.port,
            lambda url: SerialLink.open(url, self.baud),
            expect,
            self.firmware.labels(),
            **reading_options(t),
        )

    def describe(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": "serial", "board": self.desc.board, **self.flasher.describe()}
        return {**d, **self.firmware.describe()}

    def program(self, name: str) -> str:
        try:
            return self.firmware.program(name)
        except RtosBuildError as e:
            raise SerialBoardError(str(e)) from None

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        if len(argv) > 1 and not self.flasher.passes_args:
            try:  # a board without a command line: the options built into the image
                baked = self.firmware.baked(argv[0], argv[1:])
            except RtosBuildError as e:
                raise SerialBoardError(str(e)) from None
            argv = [baked] if baked else argv
        reading, status, labels = self.board.run(argv, timeout)
        return Completed(
            status, reading.text, self.flasher.notes(), reading.timed_out, labels, reading.runs
        )

    def start(self, argv: Sequence[str]) -> Background:
        return Group(argv)  # not reached: only the idle condition (_check_condition)

    def fingerprint(self) -> dict[str, Any]:
        return {
            "hostname": platform.node(),
            "board": self.desc.board,
            "board_description": self.desc.source,
            "serial": {"port": self.port, "baud": self.baud},
            "flasher": self.flasher.describe(),
            "warnings": [],
        }

    def abort(self) -> None:
        self.board.abort()

    def place_instrument(self, spec: Any) -> Any:
        """`[instrument] port = "place"`: the capture module the flasher wires to the board
        (rp2040_model's capture_module; a labgrid place's is the labgrid target's)."""
        if spec.from_target != PLACE:  # only rp2040's port names the place's module
            return spec
        module_port = self.flasher.module_port()
        if module_port is None:
            raise ConfigError(
                "port",
                f'[instrument] port = "{PLACE}": this target has no capture module of its '
                'own (flasher = "rp2040_model" with capture_module = true, or a labgrid '
                "place); name the module's serial port instead",
            )
        return dataclasses.replace(spec, port=module_port)

    def close(self) -> None:
        self.flasher.close()


def _identity(t: Mapping[str, Any]) -> dict[str, str]:
    """The cell key's share of the RTOS build (rtlab.lab.rtos.identity)."""
    return RtosFirmware(_firmware_table(t), board_description(str(t["board"])).board).identity()


TARGET_KIND = TargetKind(
    "serial",
    (*OWN_KEYS, *FIRMWARE_KEYS, *FLASHER_KEYS),
    _check,
    SerialTarget,
    _check_condition,
    identity=_identity,
    # rtos = ["freertos", "nuttx"]: both kernels on one board, in one spec
    # (examples/rp2040-model-smp.toml); xip_cache = ["fully-associative", "two-way"]: the
    # model under each of its cache modes, whose verdicts the report holds to each other
    axes=("rtos", "xip_cache", "layout_shift_kib", "arbitration_ties"),
)
