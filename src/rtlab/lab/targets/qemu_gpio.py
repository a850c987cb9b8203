"""The `qemu_gpio` target kind: GPIO workloads in the QEMU arm64 guest, one boot per run.

    [target]
    kind = "qemu_gpio"
    # boot_timeout_s = 60       # allowance for boot and output beyond the run's timeout
    # kernel = "stock"          # or "rt" (PREEMPT_RT), or ["stock", "rt"]: every cell on
    #                           # each (its label says `kernel=rt`); Debian's arm64 kernels of
    #                           # deps/setup.d/hrtimer-guest.sh, with the rtlab_hrtimer
    #                           # module built for each, rtlab-hrtimer and rtlab-latency
    #                           # (absent: the GPIO guest's kernel, GPIO programs only)
    # icount_shift = 1          # -icount shift=1,sleep=off: the guest's clock follows its
    #                           # instruction count (a model of a ~500 MIPS CPU);
    #                           # absent: plain TCG (host time: noise on a shared host)

The guest is the one of tests/lab/workloads/gpio (gpio_guest.py): Debian's arm64 kernel on
`qemu-system-aarch64 -M virt -cpu cortex-a53` (TCG), whose PL061 is gpiochip0 under the
kernel's real gpio-pl061 driver, and a busybox initramfs holding the static aarch64
builds of rtlab-toggle, rtlab-gpio-events, rtlab-toggle-rs (when Rust is installed) and
rtlab-toggle-kt (when Kotlin/Native is set up)
as /rtlab/<program>. The initramfs is built once per target (build-initramfs.sh, as the
tests do); each run appends a script that runs the workload's argv, then QEMU boots,
the script prints the workload's stdout and stderr on the console and powers off.

Every run is labelled emulated: `meta emulated=qemu-tcg qemu_machine=virt qemu_cpu=…`
is added to each protocol run (as data, set as its `end` is read, so it overrides a
workload's own label), and the report's GPIO section says "emulated (qemu-tcg)", never a board.

Load conditions run inside the guest, where they compete with the workload for the
guest's one vCPU: `stress-ng` with profile "cpu" becomes N busy-loop shells
(`while :; do :; done`; workers = 0: one per guest CPU), started 0.5 s before the
workload and recorded as `meta guest_load=cpu:N`; profile "io" becomes N kernel-side
loops (`dd` to tmpfs and reading /proc/kallsyms: time spent in the kernel, where a
stock kernel cannot be preempted), `meta guest_load=kernel:N`. Busybox has no
stress-ng, so the other profiles are refused when the spec is loaded (its line and key
named).
"""

from __future__ import annotations

import functools
import math
import os
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab import gpio_guest as gg
from rtlab.lab import hostview
from rtlab.lab import hrtimer_guest as hg
from rtlab.lab.fingerprint import fingerprint, pitfalls
from rtlab.lab.qemu.invocation import qemu_version
from rtlab.lab.targets.base import Background, Completed, TargetBase, TargetKind
from rtlab.protocol import Labels

KIND = "qemu_gpio"
EMULATED = "qemu-tcg"  # the label tests/lab/workloads/gpio and the report's GPIO section use
GUEST_PROGRAMS = ("rtlab-toggle", "rtlab-gpio-events", "rtlab-toggle-rs", "rtlab-toggle-kt")
LOAD_SETTLE_S = 0.5  # the busy loops are running before the workload starts
KILL_GRACE_S = 5  # after SIGTERM at the timeout, SIGKILL


class GuestRunError(gg.GuestError):
    """The guest cannot run this workload (missing program, bad load condition)."""


# ------------------------------------------------------------------ spec checks


def _check(t: Mapping[str, Any]) -> None:
    v = t.get("boot_timeout_s", 60)
    if isinstance(v, bool) or not isinstance(v, int | float) or not 5 <= v <= 3600:
        raise ConfigError("boot_timeout_s", "expected seconds 5..3600")
    if "kernel" in t and t["kernel"] not in hg.FLAVOURS:
        raise ConfigError(
            "kernel", f"kernel = {t['kernel']!r}: expected one of {', '.join(hg.FLAVOURS)}"
        )
    sh = t.get("icount_shift")
    if sh is not None and (isinstance(sh, bool) or not isinstance(sh, int) or not 0 <= sh <= 10):
        raise ConfigError("icount_shift", f"icount_shift = {sh!r}: expected an integer 0..10")


def _check_condition(defn: Mapping[str, Any]) -> None:
    if defn.get("kind") == "idle":
        return
    if defn.get("profile") not in ("cpu", "io"):
        raise ConfigError(
            "profile",
            f"profile {defn.get('profile')!r} cannot run on a {KIND} target: the guest "
            'has busybox, not stress-ng; its loads are busy-loop shells (profile = "cpu") '
            'and kernel-side dd/kallsyms loops (profile = "io")',
        )


# stress-ng's first stressor option (conditions.PROFILES) -> the guest's load
_GUEST_LOADS = {"--cpu": "cpu", "--hdd": "kernel"}


def _load_of(argv: Sequence[str]) -> tuple[str, int]:
    """The guest load and worker count of a condition's stress-ng argv (conditions.py)."""
    if len(argv) >= 3 and argv[0] == "stress-ng" and argv[1] in _GUEST_LOADS:
        return _GUEST_LOADS[argv[1]], int(argv[2])
    raise GuestRunError(f"{KIND}: only cpu or io load runs in the guest, not {' '.join(argv)}")


def _load_workers(argv: Sequence[str]) -> int:
    """The worker count of a condition's stress-ng argv."""
    return _load_of(argv)[1]


# one loop of each kind; the kernel-side one spends its time in system calls
_LOAD_LOOPS = {
    "cpu": "while :; do :; done",
    "kernel": "while :; do dd if=/dev/zero of=/tmp/load.$i bs=64k count=64 2>/dev/null; "
    "cat /proc/kallsyms > /dev/null; done",
}


# ------------------------------------------------------------------ guest script


def guest_script(
    argv: Sequence[str], timeout_s: float, load_workers: int | None, load_kind: str = "cpu"
) -> str:
    """The /rtlab/run.sh of one run: optional busy loops, the workload with a watchdog
    (SIGTERM at the timeout: rtlab programs then print what they measured), then its
    stdout and stderr as @@sec sections. Every argv word is shell-quoted."""
    cmd = " ".join(shlex.quote(a) for a in argv)
    lines = ["#!/bin/sh", "# generated by rtlab.lab.targets.qemu_gpio", "loads="]
    if load_workers is not None:
        n = str(load_workers) if load_workers > 0 else "$(nproc)"
        lines += [
            f"n={n}; i=0",
            f"while [ $i -lt $n ]; do ( {_LOAD_LOOPS[load_kind]} ) & "
            'loads="$loads $!"; i=$((i+1)); done',
            f"sleep {LOAD_SETTLE_S}",
        ]
    lines += [
        f"{cmd} > /tmp/w.out 2> /tmp/w.err &",
        "wp=$!",
        f"( sleep {math.ceil(timeout_s)}; touch /tmp/w.timeout; kill -TERM $wp; "
        f"sleep {KILL_GRACE_S}; kill -KILL $wp ) > /dev/null 2>&1 &",
        "dog=$!",
        "wait $wp; rc=$?",
        "kill $dog $loads 2> /dev/null",
        '[ -e /tmp/w.timeout ] && echo "@@timeout"',
        # a section must end with a newline before its @@rc marker
        'nl() { [ -s "$1" ] && [ -n "$(tail -c 1 "$1")" ] && echo; }',
        'echo "@@sec stdout"; cat /tmp/w.out; nl /tmp/w.out; echo "@@rc stdout=$rc"',
        'echo "@@sec stderr"; cat /tmp/w.err; nl /tmp/w.err; echo "@@rc stderr=0"',
        "exit 0",
    ]
    return "\n".join(lines) + "\n"


def run_labels(labels: Mapping[str, str]) -> Labels:
    """`meta KEY=VALUE…` of every protocol run, over the workload's own (set as its `end`
    is read: a workload's own `emulated=no` does not hide the emulation)."""
    return Labels.of(over=labels)


# ------------------------------------------------------------------ the target


class _GuestLoad:
    """A load condition: applied inside the guest by the next run, until stopped."""

    def __init__(self, target: QemuGpioTarget, load: tuple[str, int]) -> None:
        self.target = target
        target.load_kind, target.load_workers = load

    def stop(self) -> None:
        self.target.load_workers = None


class QemuGpioTarget(TargetBase):
    kind = KIND

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.boot_timeout_s = float(t.get("boot_timeout_s", 60))
        self.load_workers: int | None = None
        self.load_kind = "cpu"
        self.flavour: str | None = t.get("kernel")
        self.trace_file: Path | None = None  # set by the pl061-trace instrument
        self.icount_shift: int | None = t.get("icount_shift")
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._base: Path | None = None
        self._programs: set[str] = set()

    # The build runs once, on the first program(), run() or fingerprint().
    def base(self) -> Path:
        if self._base is None:
            reason = gg.unavailable()
            if reason:
                raise gg.GuestError(f"the {KIND} target cannot boot the GPIO guest: {reason}")
            self._tmp = tempfile.TemporaryDirectory(prefix="rtlab-qemu-gpio-")
            if self.flavour is not None:
                u = hg.flavour_availability(self.flavour)
                if u is not None:
                    raise gg.GuestError(f"the {KIND} target cannot boot kernel {self.flavour}: {u}")
            base = gg.build_base(Path(self._tmp.name) / "base.cpio.gz")
            # from our private copy: another build may be remaking the shared stage
            members = gg.cpio_members(base)
            self._programs = {p for p in GUEST_PROGRAMS if f"rtlab/{p}" in members}
            if self.flavour is not None:
                layer = hg.build_layer(self.flavour, Path(self._tmp.name) / "layer.cpio.gz")
                base.write_bytes(base.read_bytes() + layer.read_bytes())
                self._programs |= set(hg.LAYER_PROGRAMS)
            self._base = base
        return self._base

    @functools.cached_property
    def qemu_version(self) -> str | None:
        return qemu_version(gg.QEMU_AARCH64)

    def _guest_kernel(self) -> str | None:
        if self.flavour is not None:
            return hg.kernel_version(self.flavour)
        f = gg.GUEST_DIR / "dl" / "kernel-version"
        return f.read_text().strip() if f.is_file() else None

    def _qemu(self) -> dict[str, Any]:
        return {
            "version": self.qemu_version,
            "machine": gg.MACHINE,
            "cpu": gg.CPU,
            "accel": "tcg",
            "smp": gg.SMP,
            "memory_mb": gg.MEMORY_MB,
            "icount_shift": self.icount_shift,
            "model_mips": hg.mips_model(self.icount_shift),
        }

    def _labels(self) -> dict[str, str]:
        """What every run of this target is labelled with (emulated, and how)."""
        labels = {"emulated": EMULATED, "qemu_machine": gg.MACHINE, "qemu_cpu": gg.CPU}
        if self.flavour is not None:
            labels["guest_kernel_flavour"] = self.flavour
        if self.icount_shift is not None:
            labels["qemu_icount_shift"] = str(self.icount_shift)
            labels["model_mips"] = f"{hg.mips_model(self.icount_shift):g}"
        return labels

    def describe(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "emulated": EMULATED,
            "guest_kernel": self._guest_kernel(),
            **{f"qemu_{k}": v for k, v in self._qemu().items()},
        }

    def program(self, name: str) -> str:
        self.base()
        if name not in self._programs:
            have = ", ".join(sorted(self._programs)) or "nothing"
            hint = {
                "rtlab-toggle-rs": " (no Rust toolchain for aarch64: `make setup`, "
                "deps/setup.d/rust-aarch64.sh)",
                "rtlab-toggle-kt": " (no Kotlin/Native: `make setup`, "
                "deps/setup.d/kotlin-native.sh)",
            }.get(name, "")
            raise GuestRunError(f"{name} is not in the GPIO guest (it has {have}){hint}")
        return f"/rtlab/{name}"

    def boot_script(self, script: str, timeout_s: float) -> gg.GuestRun:
        """One boot of this target's guest (kernel, layer, icount) running `script`."""
        return self._boot(script, timeout_s)

    def _boot(self, script: str, timeout_s: float) -> gg.GuestRun:
        base = self.base()
        assert self._tmp is not None
        with tempfile.TemporaryDirectory(dir=self._tmp.name) as tmp:
            initrd = gg.with_script(base, script, Path(tmp) / "initrd.cpio.gz")
            kernel = None if self.flavour is None else hg.kernel_path(self.flavour)
            trace = (
                []
                if self.trace_file is None
                else ["-trace", f"pl061_set_output,file={self.trace_file}", "-msg", "timestamp=on"]
            )  # the pl061-trace instrument, armed for this run (timestamp: PID@s.µs:)
            return gg.boot_initrd(
                initrd,
                timeout_s=timeout_s,
                kernel=kernel,
                qemu_args=[*hg.icount_args(self.icount_shift), *trace],
            )

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        if not argv:
            raise GuestRunError("nothing to run")
        load = self.load_workers
        limit = timeout + KILL_GRACE_S + self.boot_timeout_s
        g = self._boot(guest_script(argv, timeout, load, self.load_kind), limit)
        stdout = g.sections.get("stdout", "")
        stderr = g.sections.get("stderr", "")
        tail = _console_tail(g.log)
        if g.timed_out:
            msg = (
                f"the QEMU guest did not finish within {limit:.0f} s (boot + workload); "
                f"console: {tail}"
            )
            return Completed(None, stdout, f"{stderr}{msg}\n", timed_out=True)
        if "stdout" not in g.rcs:
            msg = (
                f"the QEMU guest did not run the workload (QEMU exit status {g.qemu_status}): "
                f"{tail}"
            )
            return Completed(None, stdout, f"{stderr}{msg}\n")
        labels = self._labels()
        if load is not None:
            labels["guest_load"] = f"{self.load_kind}:{load or 'nproc'}"
        timed_out = "@@timeout" in g.log
        if timed_out:
            stderr += (
                f"timed out: the workload ran past {math.ceil(timeout)} s in the guest (SIGTERM)\n"
            )
        return Completed(g.rcs["stdout"], stdout, stderr, timed_out, run_labels(labels))

    def start(self, argv: Sequence[str]) -> Background:
        return _GuestLoad(self, _load_of(argv))

    def fingerprint(self) -> dict[str, Any]:
        """The guest's fingerprint (hostview's dump, run in one boot), marked emulated,
        with QEMU's version and machine and the host that emulates it."""
        script = f'echo "@@sec fp"\n{hostview.SCRIPT}\necho\necho "@@rc fp=0"\n'
        g = self._boot(script, 30 + self.boot_timeout_s)
        if "fp" not in g.rcs:
            tail = _console_tail(g.log)
            raise gg.GuestError(
                f"the GPIO guest did not boot (QEMU exit status {g.qemu_status}): {tail}"
            )
        fp = fingerprint(view=hostview.SnapshotView(g.sections["fp"]))
        # nothing in the guest (no DMI, no hypervisor flag) says it is not a board
        fp["virtualization"].update({"virtual": True, "vm": "qemu", "emulated": EMULATED})
        fp["qemu"] = {**self._qemu(), "host": _host()}
        fp["emulated"] = EMULATED
        fp["warnings"] = [
            {
                "code": "emulated",
                "msg": f"QEMU {gg.MACHINE} {gg.CPU} under TCG ({EMULATED}): times are of the "
                "emulator on its host, not of a board; compare implementations by ratio only"
                if self.icount_shift is None
                else f"QEMU {gg.MACHINE} {gg.CPU} under TCG with -icount shift="
                f"{self.icount_shift} ({EMULATED}): the guest's clock counts instructions, a "
                f"model of a ≈ {hg.mips_model(self.icount_shift):g} MIPS CPU, not a board's "
                "timing; compare methods and kernels with each other only",
            },
            *pitfalls(fp, {}),
        ]
        return fp


def _console_tail(log: str) -> str:
    """What the console says went wrong: the kernel's panic line, else its last lines."""
    lines = [ln.strip() for ln in log.split("\n") if ln.strip()]
    panic = [ln for ln in lines if "Kernel panic" in ln]
    return (panic[0] if panic else " | ".join(lines[-4:]))[-400:]


def _host() -> dict[str, Any]:
    """The machine QEMU runs on: TCG's speed is its speed, and its load slows TCG."""
    u = os.uname()
    return {
        "hostname": u.nodename,
        "machine": u.machine,
        "cpus": os.cpu_count(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


TARGET_KIND = TargetKind(
    KIND,
    ("boot_timeout_s", "kernel", "icount_shift"),
    _check,
    QemuGpioTarget,
    _check_condition,
    axes=("kernel",),  # kernel = ["stock", "rt"]: both kernels in one spec
)
