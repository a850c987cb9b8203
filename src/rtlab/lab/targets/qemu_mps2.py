"""QEMU machine targets: run an ELF on a QEMU machine (`mps2-an385`, ...) deterministically.

    res = run_qemu("build/rtbench-qemu/rtbench-freertos-an385.elf",
                   append="--scenarios primitives --iterations 200")
    res.exit_status, res.runs[0].meta["timebase"]        # 0, "icount"

With `-icount shift=N,align=off,sleep=off` QEMU's clocks follow the instruction count
(2^N ns per instruction), so a guest's timer readings repeat exactly run after run:
the figures are an **instruction-count model**, never time on silicon. Every parsed
run is labelled `meta timebase=icount` (or `host` without icount) and `icount_shift`.
The guest ends with semihosting SYS_EXIT_EXTENDED: QEMU's exit status is the guest's.

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

A workload's argv[0] is the ELF, the rest becomes the guest's command line (semihosting
`arg=`s after a fixed program name, read by the firmware through SYS_GET_CMDLINE).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.boards.machines import DEFAULT_QEMU, default_machine, qemu_machines
from rtlab.lab.build import BuildError
from rtlab.lab.qemu import (
    icount_args,
    icount_labels,
    qemu_fingerprint,
    qemu_version,
    semihosting_args,
)
from rtlab.lab.qemu_timing import (
    icount_firmware_args,
    parallel_args,
    timing_labels,
    timing_mode,
    withhold_cross_core,
)
from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.firmware import KEYS as FIRMWARE_KEYS
from rtlab.lab.rtos.firmware import RtosFirmware, check_firmware
from rtlab.lab.targets.base import (
    Background,
    Completed,
    Group,
    TargetKind,
    run_process,
)
from rtlab.protocol import ProtocolError, Run, label_after_hello, parse

QEMU = DEFAULT_QEMU  # the Cortex-M machines' binary (a machine file may name another)


def cores_of(machine: str) -> int:
    """The cores a `qemu` machine runs its RTOS on (rtlab.lab.qemu_timing: what each
    timing mode gives); 1 for a name no machine file has."""
    m = qemu_machines().get(machine)
    return m.cores if m else 1


def default_qemu(machine: str) -> str:
    """The QEMU binary that emulates machine (its file's `qemu`: qemu-system-aarch64 for
    virt-a53)."""
    m = qemu_machines().get(machine)
    return m.qemu if m else QEMU


class QemuError(BuildError):
    """QEMU or the cross toolchain is missing, or the firmware cannot be built."""


@dataclass
class QemuResult:
    exit_status: int | None  # the guest's semihosting exit status; None if killed
    output: str  # the guest's serial output, labelled (see label_output)
    timed_out: bool
    argv: list[str]
    stderr: str = ""
    runs: list[Run] = field(default_factory=list)
    problem: str = ""  # the output did not parse (the runner stores the run as an error)


def qemu_argv(
    elf: str | Path,
    machine: str = "",
    icount_shift: int | None = 0,
    extra: Sequence[str] = (),
    append: str = "",
    qemu: str | None = None,
) -> list[str]:
    """The known-good command line: the machine file's QEMU and qemu_args, no display or
    monitor, the console UART on stdout, semihosting for the exit status and the command
    line, icount when asked (else one host thread per core)."""
    machines = qemu_machines()
    machine = machine or default_machine()
    if machine not in machines:
        raise QemuError(f"machine {machine!r}: expected one of {', '.join(machines)}")
    if icount_shift is not None and not 0 <= icount_shift <= 10:
        raise QemuError(f"icount_shift {icount_shift}: expected 0..10")
    m = machines[machine]
    argv = [qemu or m.qemu, *m.qemu_args]
    argv += ["-display", "none", "-monitor", "none", "-serial", "stdio"]
    argv += semihosting_args(append.split())
    argv += icount_args(icount_shift)
    argv += parallel_args(m.cores, icount_shift)
    return [*argv, "-kernel", str(elf), *extra]


def label_output(
    text: str, machine: str, icount_shift: int | None, extra: Mapping[str, object] = {}
) -> str:
    """Adds `meta timebase=... icount_shift=... qemu_machine=...` (and `extra`) after
    every `hello` and counts it in that run's `end` (with a fresh CRC where the run uses
    CRCs), so stored results say they are an instruction-count model."""
    meta = icount_labels(machine, icount_shift, extra)
    return label_after_hello(text, meta)


def run_qemu(
    elf: str | Path,
    machine: str = "",
    icount_shift: int | None = 0,
    timeout_s: float = 120.0,
    extra: Sequence[str] = (),
    append: str = "",
    qemu: str | None = None,
    meta: Mapping[str, object] = {},
) -> QemuResult:
    """Runs elf to its semihosting exit (or the timeout) and parses its output; `meta`
    labels every run (see label_output)."""
    machine = machine or default_machine()
    qemu = qemu or default_qemu(machine)
    if shutil.which(qemu) is None:
        raise QemuError(f"{qemu} not found: install qemu-system-arm (deps/apt.txt)")
    if not Path(elf).is_file():
        raise QemuError(f"no such ELF: {elf}")
    cores = cores_of(machine)
    # rtbench's options, not a smoke test's: rtbench-*.elf, or Zephyr's build of it
    # (build/rtbench-zephyr/rtbench-<machine>-<config>/zephyr/zephyr.elf).
    if any(part.startswith("rtbench") for part in Path(elf).parts[-3:]):
        append = " ".join([append, *icount_firmware_args(cores, icount_shift)]).strip()
    argv = qemu_argv(elf, machine, icount_shift, extra, append, qemu)
    timing = timing_labels(cores, icount_shift)  # the host's load before QEMU adds its own
    done = run_process(argv, timeout_s)  # own process group, stdin /dev/null
    text = done.stdout
    if done.timed_out:  # a killed guest's last line stops mid-record: not a record
        text = text[: text.rfind("\n") + 1]
    output = label_output(text, machine, icount_shift, {**timing, **meta})
    output = withhold_cross_core(output, cores, icount_shift)
    res = QemuResult(done.returncode, output, done.timed_out, argv, done.stderr)
    if done.timed_out:
        res.exit_status = None
    try:
        res.runs = parse(output, source=f"qemu:{Path(elf).name}")
    except ProtocolError as e:  # torn lines (a guest's racing console): said, not raised
        res.problem = str(e)
    return res


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


class QemuTarget:
    kind = "qemu"

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.machine = str(t.get("machine", default_machine()))
        shift = int(t.get("icount_shift", 0))
        self.icount_shift: int | None = None if shift < 0 else shift
        self.qemu = str(t.get("qemu", default_qemu(self.machine)))
        self.firmware = RtosFirmware(t, self.machine)
        self.extra = [str(a) for a in t.get("extra", [])]

    def describe(self) -> dict[str, Any]:
        d = {
            "kind": "qemu",
            "machine": self.machine,
            "icount_shift": self.icount_shift,
            "timebase": "icount" if self.icount_shift is not None else "host",
            "timing_mode": timing_mode(cores_of(self.machine), self.icount_shift),
            "qemu_version": qemu_version(self.qemu),
        }
        d.update(self.firmware.describe())
        return d

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
        r = run_qemu(
            argv[0],
            self.machine,
            self.icount_shift,
            timeout,
            self.extra,
            " ".join(argv[1:]),
            self.qemu,
            self.firmware.labels(),
        )
        return Completed(r.exit_status, r.output, r.stderr, r.timed_out)

    def start(self, argv: Sequence[str]) -> Background:
        # Load generators run on the host; under icount they cannot move a figure.
        return Group(argv)

    def fingerprint(self) -> dict[str, Any]:
        return qemu_fingerprint(self.qemu, self.machine, self.icount_shift)


def _identity(t: Mapping[str, Any]) -> dict[str, str]:
    """The RTOS build's sources and compiler (a firmware of the user's own: nothing)."""
    return RtosFirmware(t, str(t.get("machine", default_machine()))).identity()


TARGET_KIND = TargetKind(
    "qemu",
    ("machine", "icount_shift", "qemu", "extra", *FIRMWARE_KEYS),
    _check_qemu,
    QemuTarget,
    identity=_identity,
    # icount_shift = [0, -1]: both timing modes; rtos = ["zephyr", "nuttx"]: both kernels
    # on one machine, in one spec.
    axes=("rtos", "icount_shift"),
)
