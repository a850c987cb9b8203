"""The `qemu` target kind: rtbench (or an ELF of your own) on a QEMU machine of this host,
the QEMU-machine device of rtlab.lab.qemu.machine (run_qemu, re-exported here):

    res = run_qemu("build/rtbench-qemu/rtbench-freertos-an385.elf",
                   append="--scenarios primitives --iterations 200")

Also the `qemu` target kind of `rtlab run` (`TARGET_KIND`, see targets/base.py):

    [target]
    kind = "qemu"
    machine = "mps2-an385"     # a machine file's name with target = "qemu" (default = 1:
                               # this one): workloads/rtbench/boards/*/machines/*.toml
    icount_shift = 0           # -1: no icount (host time; parallel TCG on 2 cores);
                               # [0, -1]: every cell in both modes
    rtos = "freertos"          # a port of rtlab.lab.rtos (RTOSES): builds the rtbench ELF
    # rtos_config = "lean"     # one of the port's documented configurations
    # rtos_paths = {FREERTOS_KERNEL_PATH = "…"}   # else taken from the environment
    # elf = "path.elf"         # a firmware of your own instead
    # cycles = true            # through rtlab's QEMU cycles plugin: marked paths in
                               # cycle-approximate cycles (rtlab.lab.qemu.cycles_output)

A workload's argv[0] is the ELF, the rest becomes the guest's command line (semihosting
`arg=`s after a fixed program name, read by the firmware through SYS_GET_CMDLINE).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.catalog.machines import default_machine, qemu_machines
from rtlab.errors import ConfigError
from rtlab.lab.qemu.cycles_output import CyclesQemuMachine, check_cycles
from rtlab.lab.qemu.invocation import qemu_fingerprint
from rtlab.lab.qemu.machine import (
    QEMU,
    QemuError,
    QemuMachine,
    QemuResult,
    cores_of,
    default_qemu,
    output_labels,
    qemu_argv,
    run_qemu,
)
from rtlab.lab.qemu.timing import timing_mode
from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.firmware import KEYS as FIRMWARE_KEYS
from rtlab.lab.rtos.firmware import RtosFirmware, check_firmware
from rtlab.lab.targets.base import Background, Completed, Group, TargetBase, TargetKind

__all__ = [
    "QEMU",
    "TARGET_KIND",
    "QemuError",
    "QemuResult",
    "QemuTarget",
    "default_qemu",
    "output_labels",
    "qemu_argv",
    "run_qemu",
]

# ------------------------------------------------------------------ the `qemu` target kind


def _check_qemu(t: Mapping[str, Any]) -> None:
    machine = t.get("machine", default_machine())
    if machine not in qemu_machines():
        raise ConfigError(
            "machine", f"machine = {machine!r}: expected one of {', '.join(qemu_machines())}"
        )
    shift = t.get("icount_shift", 0)
    if isinstance(shift, bool) or not isinstance(shift, int) or not -1 <= shift <= 10:
        raise ConfigError("icount_shift", "expected 0..10, or -1 for no icount (host time)")
    if "qemu" in t and not isinstance(t["qemu"], str):
        raise ConfigError("qemu", "qemu: expected a string")
    check_firmware(t, str(machine))
    extra = t.get("extra", [])
    if not isinstance(extra, list) or not all(isinstance(a, str) for a in extra):
        raise ConfigError("extra", "extra: expected a list of QEMU arguments")
    if "cycles" in t:
        check_cycles(t["cycles"], str(machine), shift)


class QemuTarget(TargetBase):
    kind = "qemu"

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.machine = str(t.get("machine", default_machine()))
        shift = int(t.get("icount_shift", 0))
        self.icount_shift: int | None = None if shift < 0 else shift
        self.qemu = str(t.get("qemu", default_qemu(self.machine)))
        self.firmware = RtosFirmware(t, self.machine)
        self.extra = [str(a) for a in t.get("extra", [])]
        self.cycles = bool(t.get("cycles", False))
        if self.cycles:
            self.device: QemuMachine = CyclesQemuMachine(self.machine, self.qemu, self.extra)
        else:
            self.device = QemuMachine(self.machine, self.icount_shift, self.qemu, self.extra)

    def describe(self) -> dict[str, Any]:
        mode = timing_mode(cores_of(self.machine), self.icount_shift)
        return {"kind": "qemu", **self.device.describe(), "timing_mode": mode,
                **self.firmware.describe()}  # fmt: skip

    def program(self, name: str) -> str:
        """The ELF for a workload program (rtlab.lab.rtos.firmware: programs, elf, or
        rtbench built on the target's RTOS)."""
        try:
            return self.firmware.program(name)
        except RtosBuildError as e:
            raise QemuError(str(e)) from None

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        if not argv:
            raise QemuError("nothing to run")
        r = self.device.run(argv[0], " ".join(argv[1:]), timeout, self.firmware.labels())
        return r.completed()

    def start(self, argv: Sequence[str]) -> Background:
        # Load generators run on the host; under icount they cannot move a figure.
        return Group(argv)

    def fingerprint(self) -> dict[str, Any]:
        return qemu_fingerprint(self.qemu, self.machine, self.icount_shift)

    def abort(self) -> None:
        self.device.abort()


def _identity(t: Mapping[str, Any]) -> dict[str, str]:
    """The RTOS build's sources and compiler (a firmware of the user's own: nothing)."""
    return RtosFirmware(t, str(t.get("machine", default_machine()))).identity()


TARGET_KIND = TargetKind(
    "qemu",
    ("machine", "icount_shift", "qemu", "extra", "cycles", *FIRMWARE_KEYS),
    _check_qemu,
    QemuTarget,
    identity=_identity,
    # icount_shift = [0, -1]: both timing modes; rtos = ["zephyr", "nuttx"]: both kernels
    # on one machine, in one spec.
    axes=("rtos", "icount_shift"),
)
