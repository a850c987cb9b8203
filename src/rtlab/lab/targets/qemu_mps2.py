"""QEMU Cortex-M targets: run an ELF on `mps2-an385`/`mps2-an386` deterministically.

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
    machine = "mps2-an385"     # or mps2-an386
    icount_shift = 0           # -1: no icount (host time, not deterministic)
    # elf = "path.elf"         # else built from workloads/rtbench/boards/qemu-mps2
    #                          # against $FREERTOS_KERNEL_PATH

A workload's argv[0] is the ELF, the rest becomes the guest's command line (semihosting
`arg=`s after a fixed program name, read by the firmware through SYS_GET_CMDLINE).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.build import REPO_ROOT, BuildError, forget_other_source
from rtlab.lab.qemu import qemu_version
from rtlab.lab.targets.base import (
    Background,
    Completed,
    Group,
    TargetKind,
    run_process,
)
from rtlab.protocol import Run, label_after_hello, parse

MACHINES = {"mps2-an385": "an385", "mps2-an386": "an386"}
QEMU = "qemu-system-arm"
BOARD_DIR = REPO_ROOT / "workloads" / "rtbench" / "boards" / "qemu-mps2"
TOOLCHAIN = REPO_ROOT / "workloads" / "rtbench" / "boards" / "cmake" / "arm-none-eabi.cmake"


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


def qemu_argv(
    elf: str | Path,
    machine: str = "mps2-an385",
    icount_shift: int | None = 0,
    extra: Sequence[str] = (),
    append: str = "",
    qemu: str = QEMU,
) -> list[str]:
    """The known-good command line: no display or monitor, UART0 on stdout,
    semihosting for the exit status and the command line, icount when asked."""
    if machine not in MACHINES:
        raise QemuError(f"machine {machine!r}: expected one of {', '.join(MACHINES)}")
    argv = [qemu, "-M", machine, "-display", "none", "-monitor", "none", "-serial", "stdio"]
    # The guest's command line as semihosting args, not -kernel's path + -append: with the
    # path in it, the firmware's parse (and so every icount figure after it) would shift
    # with where the checkout lives, and a long path would overflow the guest's buffer.
    words = ["rtbench", *append.split()]
    args = "".join(f",arg={w.replace(',', ',,')}" for w in words)
    argv += ["-semihosting-config", "enable=on,target=native" + args]
    if icount_shift is not None:
        if not 0 <= icount_shift <= 10:
            raise QemuError(f"icount_shift {icount_shift}: expected 0..10")
        argv += ["-icount", f"shift={icount_shift},align=off,sleep=off"]
    return [*argv, "-kernel", str(elf), *extra]


def label_output(text: str, machine: str, icount_shift: int | None) -> str:
    """Adds `meta timebase=... icount_shift=... qemu_machine=...` after every `hello`
    and counts it in that run's `end` (with a fresh CRC where the run uses CRCs), so
    stored results say they are an instruction-count model."""
    timebase = "icount" if icount_shift is not None else "host"
    meta: dict[str, object] = {"timebase": timebase, "qemu_machine": machine}
    if icount_shift is not None:
        meta["icount_shift"] = icount_shift
    return label_after_hello(text, meta)


def run_qemu(
    elf: str | Path,
    machine: str = "mps2-an385",
    icount_shift: int | None = 0,
    timeout_s: float = 120.0,
    extra: Sequence[str] = (),
    append: str = "",
    qemu: str = QEMU,
) -> QemuResult:
    """Runs elf to its semihosting exit (or the timeout) and parses its output."""
    if shutil.which(qemu) is None:
        raise QemuError(f"{qemu} not found: install qemu-system-arm (deps/apt.txt)")
    if not Path(elf).is_file():
        raise QemuError(f"no such ELF: {elf}")
    argv = qemu_argv(elf, machine, icount_shift, extra, append, qemu)
    done = run_process(argv, timeout_s)  # own process group, stdin /dev/null
    output = label_output(done.stdout, machine, icount_shift)
    res = QemuResult(done.returncode, output, done.timed_out, argv, done.stderr)
    if done.timed_out:
        res.exit_status = None
    res.runs = parse(output, source=f"qemu:{Path(elf).name}")
    return res


# ------------------------------------------------------------------ building


def build_mps2(
    kernel: str | Path | None = None, out: Path | None = None, build_type: str = "Release"
) -> Path:
    """Configures (once) and builds the mps2 board layer into build/rtbench-qemu (or
    out): the smoke test always, rtbench-freertos-*.elf when a FreeRTOS kernel is given
    (argument or $FREERTOS_KERNEL_PATH). Returns the build directory."""
    for tool in ("cmake", "arm-none-eabi-gcc"):
        if shutil.which(tool) is None:
            raise QemuError(
                f"{tool} not found: install cmake gcc-arm-none-eabi "
                "libnewlib-arm-none-eabi (deps/apt.txt)"
            )
    kernel = kernel or os.environ.get("FREERTOS_KERNEL_PATH") or None
    out = out or REPO_ROOT / "build" / ("rtbench-qemu" if kernel else "rtbench-qemu-nokernel")
    out.mkdir(parents=True, exist_ok=True)
    cfg = [
        "cmake",
        "-S",
        str(BOARD_DIR),
        "-B",
        str(out),
        f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN}",
        f"-DCMAKE_BUILD_TYPE={build_type}",
        f"-DFREERTOS_KERNEL_PATH={Path(kernel).resolve() if kernel else ''}",
    ]
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests wait for one build
        forget_other_source(out, BOARD_DIR)
        for cmd, what in ((cfg, "configure"), (["cmake", "--build", str(out)], "build")):
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
                raise QemuError(f"mps2 board {what} failed (exit {proc.returncode})\n{tail}")
    return out


# ------------------------------------------------------------------ the `qemu` target kind


def _check_qemu(t: Mapping[str, Any]) -> None:
    machine = t.get("machine", "mps2-an385")
    if machine not in MACHINES:
        raise ConfigError(
            "machine", f"machine = {machine!r}: expected one of {', '.join(MACHINES)}"
        )
    shift = t.get("icount_shift", 0)
    if isinstance(shift, bool) or not isinstance(shift, int) or not -1 <= shift <= 10:
        raise ConfigError("icount_shift", "expected 0..10, or -1 for no icount (host time)")
    for key in ("elf", "qemu", "freertos_kernel_path"):
        if key in t and not isinstance(t[key], str):
            raise ConfigError(key, f"{key}: expected a path")
    extra = t.get("extra", [])
    if not isinstance(extra, list) or not all(isinstance(a, str) for a in extra):
        raise ConfigError("extra", "extra: expected a list of QEMU arguments")
    progs = t.get("programs", {})
    if not isinstance(progs, dict) or not all(isinstance(v, str) for v in progs.values()):
        raise ConfigError("programs", 'expected a table: program name = "path.elf"')


class QemuTarget:
    kind = "qemu"

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.machine = str(t.get("machine", "mps2-an385"))
        shift = int(t.get("icount_shift", 0))
        self.icount_shift: int | None = None if shift < 0 else shift
        self.elf = t.get("elf")
        self.qemu = str(t.get("qemu", QEMU))
        self.kernel = t.get("freertos_kernel_path")
        self.extra = [str(a) for a in t.get("extra", [])]
        self.programs = dict(t.get("programs", {}))

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "qemu",
            "machine": self.machine,
            "icount_shift": self.icount_shift,
            "timebase": "icount" if self.icount_shift is not None else "host",
            "qemu_version": qemu_version(self.qemu),
        }

    def program(self, name: str) -> str:
        """The ELF for a workload program: programs.<name>, elf, or the FreeRTOS
        rtbench build (the `rtbench` workload asks for rtbench-posix: same options)."""
        if name in self.programs:
            return str(self.programs[name])
        if self.elf:
            return str(self.elf)
        if name in ("rtbench-posix", "rtbench", "rtbench-freertos"):
            kernel = self.kernel or os.environ.get("FREERTOS_KERNEL_PATH")
            if not kernel:
                raise QemuError(
                    "the qemu target builds rtbench on FreeRTOS: set FREERTOS_KERNEL_PATH "
                    "(or freertos_kernel_path, or elf, in [target])"
                )
            out = build_mps2(kernel)
            return str(out / f"rtbench-freertos-{MACHINES[self.machine]}.elf")
        return name

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
        )
        return Completed(r.exit_status, r.output, r.stderr, r.timed_out)

    def start(self, argv: Sequence[str]) -> Background:
        # Load generators run on the host; under icount they cannot move a figure.
        return Group(argv)

    def fingerprint(self) -> dict[str, Any]:
        return {
            "hostname": os.uname().nodename,
            "qemu": {"version": qemu_version(self.qemu), "machine": self.machine},
            "icount_shift": self.icount_shift,
            "warnings": [],
        }


TARGET_KIND = TargetKind(
    "qemu",
    ("machine", "icount_shift", "elf", "qemu", "extra", "programs", "freertos_kernel_path"),
    _check_qemu,
    QemuTarget,
)
