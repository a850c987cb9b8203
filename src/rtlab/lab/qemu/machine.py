"""A QEMU machine as a device: an ELF run on one of the machine files' `qemu` machines
(rtlab.catalog.machines), deterministically under icount, its output labelled and
parsed. The `qemu` target runs it on this host; a labgrid place with a QEMU board runs
it too (labgrid supplies the place's lock and the machine's settings, not the run).

    res = run_qemu("build/rtbench-qemu/rtbench-freertos-an385.elf",
                   append="--scenarios primitives --iterations 200")
    res.exit_status, res.runs[0].meta["timebase"]        # 0, "icount"

With `-icount shift=N,align=off,sleep=off` QEMU's clocks follow the instruction count
(2^N ns per instruction), so a guest's timer readings repeat exactly run after run:
the figures are an **instruction-count model**, never time on silicon. Every parsed
run is labelled `meta timebase=icount` (or `host` without icount) and `icount_shift`.
The guest ends with semihosting SYS_EXIT_EXTENDED: QEMU's exit status is the guest's.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rtlab.catalog.machines import DEFAULT_QEMU, default_machine, qemu_machines
from rtlab.lab.c_targets import BuildError
from rtlab.lab.process import Completed, run_process
from rtlab.lab.qemu.invocation import icount_args, icount_labels, qemu_version, semihosting_args
from rtlab.lab.qemu.timing import (
    icount_firmware_args,
    parallel_args,
    timing_labels,
    withhold_cross_core,
)
from rtlab.procgroup import kill_group
from rtlab.protocol import Labels, ProtocolError, Run, parse

QEMU = DEFAULT_QEMU  # the Cortex-M machines' binary (a machine file may name another)


def cores_of(machine: str) -> int:
    """The cores a `qemu` machine runs its RTOS on (rtlab.lab.qemu.timing: what each
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
    output: str  # the guest's serial output, as it came
    timed_out: bool
    argv: list[str]
    stderr: str = ""
    # the output's runs, labelled, with what the machine cannot measure withheld and the
    # runs it did not get to added (withhold_cross_core): the runs a target hands on
    runs: list[Run] = field(default_factory=list)
    problem: str = ""  # the output did not parse (the runner stores the run as an error)
    labels: Labels = field(default_factory=Labels)  # every run's (see output_labels)
    parsed: bool = False  # `runs` are the output's (else the runner reads it, and fails)

    def completed(self) -> Completed:
        """The run as a target returns it: its runs as read here, or, when the output did
        not parse, the output for the runner to read (and store the protocol error)."""
        runs = self.runs if self.parsed else None
        return Completed(self.exit_status, self.output, self.stderr, self.timed_out,
                         self.labels, runs)  # fmt: skip


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
    argv += semihosting_args(append.split(), icount_shift)
    argv += icount_args(icount_shift)
    argv += parallel_args(m.cores, icount_shift)
    return [*argv, "-kernel", str(elf), *extra]


def output_labels(
    machine: str, icount_shift: int | None, extra: Mapping[str, object] = {}
) -> Labels:
    """`meta timebase=... icount_shift=... qemu_machine=...` (and `extra`) for every run
    (under the workload's own meta), so stored results say they are an instruction-count
    model."""
    return Labels.of(under=icount_labels(machine, icount_shift, extra))


def run_qemu(
    elf: str | Path,
    machine: str = "",
    icount_shift: int | None = 0,
    timeout_s: float = 120.0,
    extra: Sequence[str] = (),
    append: str = "",
    qemu: str | None = None,
    meta: Mapping[str, object] = {},
    started: Callable[[subprocess.Popen[str]], None] | None = None,
) -> QemuResult:
    """Runs elf to its semihosting exit (or the timeout) and parses its output; `meta`
    labels every run (see output_labels); `started` is given QEMU's process (QemuMachine
    keeps it to abort the run)."""
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
    # own process group, stdin /dev/null; killed by the kernel if rtlab is SIGKILLed
    done = run_process(argv, timeout_s, started, die_with_parent=True)
    text = done.stdout
    if done.timed_out:  # a killed guest's last line stops mid-record: not a record
        text = text[: text.rfind("\n") + 1]
    labels = output_labels(machine, icount_shift, {**timing, **meta})
    res = QemuResult(done.returncode, text, done.timed_out, argv, done.stderr, labels=labels)
    if done.timed_out:
        res.exit_status = None
    try:  # read once: what the machine cannot measure is withheld from the parsed runs
        runs = parse(text, source=f"qemu:{Path(elf).name}", labels=labels)
        res.runs, res.parsed = withhold_cross_core(runs, cores, icount_shift), True
    except ProtocolError as e:  # torn lines (a guest's racing console): said, not raised
        res.problem = str(e)
    return res


class QemuMachine:
    """One QEMU machine of the registry, its timing mode, binary and extra arguments
    fixed: runs ELFs one at a time; abort() (another thread) kills the run in progress."""

    def __init__(
        self,
        machine: str,
        icount_shift: int | None = 0,
        qemu: str | None = None,
        extra: Sequence[str] = (),
    ) -> None:
        self.machine = machine or default_machine()
        self.icount_shift = icount_shift
        self.qemu = qemu or default_qemu(self.machine)
        self.extra = list(extra)
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def run(
        self, elf: str | Path, append: str, timeout_s: float, meta: Mapping[str, object] = {}
    ) -> QemuResult:
        def keep(proc: subprocess.Popen[str]) -> None:
            with self._lock:
                self._proc = proc

        try:
            return run_qemu(
                elf, self.machine, self.icount_shift, timeout_s, self.extra, append,
                self.qemu, meta, keep,
            )  # fmt: skip
        finally:
            with self._lock:
                self._proc = None

    def describe(self) -> dict[str, object]:
        """What a run records of the machine: its name, timing mode and QEMU's version."""
        return {
            "machine": self.machine,
            "icount_shift": self.icount_shift,
            "timebase": "icount" if self.icount_shift is not None else "host",
            "qemu_version": qemu_version(self.qemu),
        }

    def abort(self) -> None:
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                kill_group(self._proc, signal.SIGKILL)
