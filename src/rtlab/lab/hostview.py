"""What the fingerprint reads of a host: its /proc and /sys files, uname, the CPU count
and systemd-detect-virt — on this machine (LocalView) or on a remote one, from one dump
taken over ssh (SnapshotView). One set of parsers in fingerprint.py serves both.

The dump is one `sh -c SCRIPT` run on the target: SCRIPT is a constant of this module
(no spec value is ever part of it) and prints each readable file after a record
separator line, so a board without Python still gets the full fingerprint.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Protocol

CPU = "/sys/devices/system/cpu"
MAX_IDLE_STATES = 16
# Files every fingerprint reads; per-CPU and per-idle-state files are globbed below.
FILES = (
    "/proc/cmdline",
    "/proc/cpuinfo",
    "/proc/loadavg",
    "/proc/stat",
    "/proc/sys/kernel/hostname",
    "/proc/sys/kernel/sched_rt_runtime_us",
    "/proc/sys/kernel/sched_rt_period_us",
    "/proc/self/status",
    "/proc/self/stat",
    "/proc/self/limits",
    "/proc/self/timerslack_ns",
    "/sys/kernel/realtime",
    "/sys/kernel/debug/sched/preempt",
    "/sys/kernel/mm/transparent_hugepage/enabled",
    "/sys/module/haltpoll/parameters/guest_halt_poll_ns",
    "/sys/hypervisor/type",
    "/sys/class/dmi/id/sys_vendor",
    "/sys/class/dmi/id/product_name",
    "/sys/devices/system/clocksource/clocksource0/current_clocksource",
    "/sys/devices/system/clocksource/clocksource0/available_clocksource",
    "/etc/os-release",
    f"{CPU}/online",
    f"{CPU}/isolated",
    f"{CPU}/nohz_full",
    f"{CPU}/smt/active",
    f"{CPU}/cpuidle/current_driver",
    f"{CPU}/cpuidle/current_governor",
    f"{CPU}/cpuidle/current_governor_ro",
)
GLOBS = (
    f"{CPU}/cpu[0-9]*/cpufreq/scaling_governor",
    f"{CPU}/cpu0/cpuidle/state[0-9]*/name",
    f"{CPU}/cpu0/cpuidle/state[0-9]*/latency",
    f"{CPU}/cpu0/cpuidle/state[0-9]*/disable",
)
SEP = "\x1e"  # ASCII record separator: cannot occur in the files read
SCRIPT = (
    f"for f in {' '.join(FILES)} {' '.join(GLOBS)}; do "
    f'if [ -r "$f" ]; then printf \'{SEP}%s\\n\' "$f"; cat "$f" 2>/dev/null; fi; done; '
    f"printf '{SEP}uname\\n'; uname -r; uname -v; uname -m; "
    f"printf '{SEP}nproc\\n'; nproc --all 2>/dev/null || getconf _NPROCESSORS_CONF; "
    f"printf '{SEP}virt --vm\\n'; systemd-detect-virt --vm 2>/dev/null; "
    f"printf '{SEP}virt --container\\n'; systemd-detect-virt --container 2>/dev/null; "
    f"printf '{SEP}cpu_dma_latency\\n'; od -An -td4 -N4 /dev/cpu_dma_latency 2>/dev/null; "
    "true"
)


class HostView(Protocol):
    remote: bool

    def read(self, path: str) -> str | None:
        """The file's text, stripped; None when it cannot be read."""

    def uname(self) -> tuple[str, str, str]:
        """(release, version, machine)"""

    def cpu_count(self) -> int | None: ...

    def detect_virt(self, flag: str) -> str | None:
        """systemd-detect-virt's answer to --vm or --container; None without it."""

    def cpu_dma_latency_us(self) -> int | None:
        """The /dev/cpu_dma_latency request in force (reading it makes no request)."""


class LocalView:
    remote = False

    def read(self, path: str) -> str | None:
        try:
            return Path(path).read_text(errors="replace").strip()
        except OSError:
            return None

    def uname(self) -> tuple[str, str, str]:
        u = os.uname()
        return u.release, u.version, u.machine

    def cpu_count(self) -> int | None:
        return os.cpu_count()

    def detect_virt(self, flag: str) -> str | None:
        tool = shutil.which("systemd-detect-virt")
        if tool is None:
            return None
        try:
            p = subprocess.run([tool, flag], capture_output=True, text=True, timeout=5)
        except (OSError, subprocess.SubprocessError):
            return None
        return p.stdout.strip() or None

    def cpu_dma_latency_us(self) -> int | None:
        with contextlib.suppress(OSError):
            fd = os.open("/dev/cpu_dma_latency", os.O_RDONLY)
            try:
                raw = os.read(fd, 4)
                return struct.unpack("=i", raw)[0] if len(raw) == 4 else None
            finally:
                os.close(fd)
        return None


class SnapshotView:
    """The files one run of SCRIPT printed on a remote host."""

    remote = True

    def __init__(self, dump: str) -> None:
        self.records: dict[str, str] = {}
        for rec in dump.split(SEP)[1:]:
            key, _, body = rec.partition("\n")
            self.records[key] = body.strip()

    def read(self, path: str) -> str | None:
        return self.records.get(path)

    def uname(self) -> tuple[str, str, str]:
        lines = [*(self.records.get("uname") or "").splitlines(), "", "", ""]
        return lines[0], lines[1], lines[2]

    def cpu_count(self) -> int | None:
        try:
            return int(self.records.get("nproc", ""))
        except ValueError:
            return None

    def detect_virt(self, flag: str) -> str | None:
        return self.records.get(f"virt {flag}") or None

    def cpu_dma_latency_us(self) -> int | None:
        try:
            return int(self.records.get("cpu_dma_latency", ""))
        except ValueError:
            return None
