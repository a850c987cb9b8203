"""The environment fingerprint recorded with every run: what shapes timing on this host.

    fp = fingerprint(run_meta=run.meta)        # a JSON-able dict
    with LoadMonitor() as load: ...run...      # load during the run
    fp["load"] = load.result()

Everything is read from /proc and /sys (plus systemd-detect-virt when present), here or
on a target over ssh (hostview.py); what
cannot be read is None, never an exception: a fingerprint must not stop a run. The
`warnings` list names known pitfalls (pitfalls.py).
"""

from __future__ import annotations

import platform
import re
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from rtlab.lab.hostview import CPU, MAX_IDLE_STATES, HostView, LocalView
from rtlab.lab.pitfalls import pitfalls

# Boot parameters that change timing (isolation, tick, idle, IRQ threading, mitigations).
CMDLINE_KEYS = (
    "isolcpus",
    "nohz_full",
    "nohz",
    "rcu_nocbs",
    "irqaffinity",
    "idle",
    "threadirqs",
    "preempt",
    "processor.max_cstate",
    "intel_idle.max_cstate",
    "intel_pstate",
    "cpuidle.off",
    "nosmt",
    "mitigations",
    "skew_tick",
    "tsc",
    "clocksource",
    "nosoftlockup",
    "cpuidle_haltpoll.force",
    "haltpoll.guest_halt_poll_ns",
)


_LOCAL = LocalView()


def _read(path: str | Path) -> str | None:
    return _LOCAL.read(str(path))


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def parse_cmdline(cmdline: str) -> dict[str, str | bool]:
    """The timing-relevant boot parameters: key → value (True for bare flags)."""
    out: dict[str, str | bool] = {}
    for tok in cmdline.split():
        if tok == "--":
            break  # what follows goes to init, not the kernel
        key, eq, value = tok.partition("=")
        if key in CMDLINE_KEYS:
            out[key] = value if eq else True
    return out


def preemption_model(
    uname_version: str, realtime_flag: str | None, dynamic_mode: str | None = None
) -> str:
    """PREEMPT_RT, PREEMPT_DYNAMIC(<mode>), PREEMPT, VOLUNTARY or NONE (best guess)."""
    if realtime_flag == "1" or "PREEMPT_RT" in uname_version:
        return "PREEMPT_RT"
    if "PREEMPT_DYNAMIC" in uname_version:
        m = re.search(r"\((\w+)\)", dynamic_mode or "")
        return f"PREEMPT_DYNAMIC({m.group(1)})" if m else "PREEMPT_DYNAMIC"
    if re.search(r"\bPREEMPT\b", uname_version):
        return "PREEMPT"
    return "NONE_OR_VOLUNTARY"


def _kernel(h: HostView) -> dict[str, Any]:
    release, version, machine = h.uname()
    rt = h.read("/sys/kernel/realtime")
    dyn = h.read("/sys/kernel/debug/sched/preempt")  # needs debugfs mounted
    return {
        "release": release,
        "version": version,
        "machine": machine,
        "preemption": preemption_model(version, rt, dyn),
        "preempt_rt": rt == "1" or "PREEMPT_RT" in version,
        "preempt_dynamic_mode": dyn,
        "rt_runtime_us": _int(h.read("/proc/sys/kernel/sched_rt_runtime_us")),
        "rt_period_us": _int(h.read("/proc/sys/kernel/sched_rt_period_us")),
        "transparent_hugepage": _bracketed(h.read("/sys/kernel/mm/transparent_hugepage/enabled")),
    }


def _bracketed(text: str | None) -> str | None:
    """'always [madvise] never' → 'madvise' (the sysfs way of showing the choice)."""
    if text is None:
        return None
    m = re.search(r"\[(\S+)\]", text)
    return m.group(1) if m else text


def parse_cpulist(text: str | None) -> list[int]:
    """'0-3,6' → [0, 1, 2, 3, 6] (the kernel's CPU list format); [] when unreadable."""
    out: list[int] = []
    for part in (text or "").split(","):
        lo, dash, hi = part.strip().partition("-")
        if not lo.isdigit() or (dash and not hi.isdigit()):
            continue
        out.extend(range(int(lo), int(hi if dash else lo) + 1))
    return out


def _cpus(h: HostView) -> dict[str, Any]:
    info = h.read("/proc/cpuinfo") or ""
    model = re.search(r"^(?:model name|Model|Hardware)\s*:\s*(.+)$", info, re.M)
    flags = re.search(r"^flags\s*:\s*(.+)$", info, re.M)
    flagset = set(flags.group(1).split()) if flags else set()
    online = h.read(f"{CPU}/online")
    governors = {
        f"cpu{n}": h.read(f"{CPU}/cpu{n}/cpufreq/scaling_governor") for n in parse_cpulist(online)
    }
    return {
        "model": model.group(1).strip() if model else None,
        "online": online,
        "count": h.cpu_count(),
        "isolated": h.read(f"{CPU}/isolated") or None,
        "nohz_full": h.read(f"{CPU}/nohz_full") or None,
        "smt_active": _int(h.read(f"{CPU}/smt/active")),
        "governors": governors,
        "constant_tsc": "constant_tsc" in flagset,
        "hypervisor_flag": "hypervisor" in flagset,
    }


def _idle(h: HostView) -> dict[str, Any]:
    states = []
    for n in range(MAX_IDLE_STATES):
        base = f"{CPU}/cpu0/cpuidle/state{n}"
        name = h.read(f"{base}/name")
        if name is None:
            break
        states.append(
            {
                "name": name,
                "latency_us": _int(h.read(f"{base}/latency")),
                "disabled": h.read(f"{base}/disable") == "1",
            }
        )
    return {
        "driver": h.read(f"{CPU}/cpuidle/current_driver"),
        "governor": h.read(f"{CPU}/cpuidle/current_governor")
        or h.read(f"{CPU}/cpuidle/current_governor_ro"),
        "states_cpu0": states,
        "cpu_dma_latency_us": h.cpu_dma_latency_us(),
        "haltpoll_guest_halt_poll_ns": _int(
            h.read("/sys/module/haltpoll/parameters/guest_halt_poll_ns")
        ),
    }


def _clocksource(h: HostView) -> dict[str, Any]:
    base = "/sys/devices/system/clocksource/clocksource0"
    avail = h.read(f"{base}/available_clocksource")
    return {
        "current": h.read(f"{base}/current_clocksource"),
        "available": avail.split() if avail else None,
    }


def _virtualization(h: HostView, hypervisor_flag: bool) -> dict[str, Any]:
    # --vm and --container apart: inside a container in a VM, plain detection says only
    # "docker", and it is the VM that shapes timer wake-ups.
    vm, container = h.detect_virt("--vm"), h.detect_virt("--container")
    dmi = {k: h.read(f"/sys/class/dmi/id/{k}") for k in ("sys_vendor", "product_name")}
    hyp = h.read("/sys/hypervisor/type")
    virtual = hypervisor_flag or bool(hyp) or (vm not in (None, "none"))
    return {
        "virtual": virtual,
        "vm": vm,
        "container": container,
        "hypervisor_type": hyp,
        "cpuinfo_hypervisor_flag": hypervisor_flag,
        **{f"dmi_{k}": v for k, v in dmi.items()},
    }


_POLICIES = {0: "other", 1: "fifo", 2: "rr", 3: "batch", 5: "idle", 6: "deadline"}


def _limit(limits: str, name: str) -> int | None:
    """The soft limit of one /proc/self/limits row; None when unlimited or unknown."""
    m = re.search(rf"^{re.escape(name)}\s+(\S+)", limits, re.M)
    return int(m.group(1)) if m and m.group(1).isdigit() else None


def _process(h: HostView) -> dict[str, Any]:
    """The scheduling and memory state a process started there inherits: this process
    locally, the reading shell's children over ssh (both from /proc/self)."""
    status = h.read("/proc/self/status") or ""
    vmlck = re.search(r"^VmLck:\s*(\d+)\s*kB", status, re.M)
    uid = re.search(r"^Uid:\s*\d+\s+(\d+)", status, re.M)
    allowed = re.search(r"^Cpus_allowed_list:\s*(\S+)", status, re.M)
    # /proc/self/stat: fields after the ')' of comm; rt_priority and policy are 40, 41
    stat = (h.read("/proc/self/stat") or "").rpartition(")")[2].split()
    prio, policy = (_int(stat[37]), _int(stat[38])) if len(stat) > 38 else (None, None)
    limits = h.read("/proc/self/limits") or ""
    return {
        "policy": _POLICIES.get(policy, str(policy)) if policy is not None else None,
        "priority": prio,
        "timer_slack_ns": _int(h.read("/proc/self/timerslack_ns")),
        "vm_locked_kb": int(vmlck.group(1)) if vmlck else None,
        "rlimit_memlock": _limit(limits, "Max locked memory"),
        "rlimit_rtprio": _limit(limits, "Max realtime priority"),
        "euid": int(uid.group(1)) if uid else None,
        "affinity": parse_cpulist(allowed.group(1)) if allowed else None,
    }


def _loadavg(h: HostView = _LOCAL) -> list[float] | None:
    parts = (h.read("/proc/loadavg") or "").split()[:3]
    try:
        return [round(float(x), 2) for x in parts] if len(parts) == 3 else None
    except ValueError:
        return None


def _software(h: HostView) -> dict[str, Any]:
    """The target's OS; the Python side is always the runner's."""
    from importlib import metadata

    def ver(pkg: str) -> str | None:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return None

    osr = h.read("/etc/os-release") or ""
    pretty = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', osr, re.M)
    return {
        "os": pretty.group(1) if pretty else None,
        "python": sys.version.split()[0],
        "rtlab": ver("rtlab"),
        "numpy": ver("numpy"),
    }


def fingerprint(
    run_meta: Mapping[str, str] | None = None, view: HostView | None = None
) -> dict[str, Any]:
    """A JSON-able description of the environment, with `warnings` for known pitfalls.

    `run_meta` is the workload's own metadata (protocol `meta` records: policy, method,
    timer_slack_ns, mlockall), so the pitfalls of the run itself are checked too.
    `view` is the host to describe: this one by default, or a SnapshotView of a target
    reached over ssh.
    """
    h = view or _LOCAL
    cpus = _cpus(h)
    cmdline = h.read("/proc/cmdline") or ""
    fp: dict[str, Any] = {
        "time_unix": round(time.time(), 3),
        "hostname": h.read("/proc/sys/kernel/hostname") or (None if h.remote else platform.node()),
        "kernel": _kernel(h),
        "cmdline": cmdline,
        "cmdline_timing": parse_cmdline(cmdline),
        "clocksource": _clocksource(h),
        "cpu": cpus,
        "idle": _idle(h),
        "virtualization": _virtualization(h, cpus["hypervisor_flag"]),
        "process": _process(h),
        "loadavg": _loadavg(h),
        "software": _software(h),
    }
    fp["warnings"] = pitfalls(fp, run_meta or {})
    return fp


def loadavg() -> list[float] | None:
    """This host's load average now (1, 5, 15 min)."""
    return _loadavg()


class LoadMonitor:
    """CPU load during a run, from /proc/stat and /proc/loadavg before and after."""

    def __init__(self) -> None:
        self._start: tuple[list[int], list[float] | None, float] | None = None
        self._result: dict[str, Any] | None = None

    @staticmethod
    def _cpu_times() -> list[int]:
        line = (_read("/proc/stat") or "cpu 0").splitlines()[0]
        return [int(x) for x in line.split()[1:]]

    def __enter__(self) -> LoadMonitor:
        self._start = (self._cpu_times(), _loadavg(), time.monotonic())
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._start is not None
        t0, la0, m0 = self._start
        t1 = self._cpu_times()
        d = [b - a for a, b in zip(t0, t1, strict=False)]
        total = sum(d)
        # idle + iowait are columns 4 and 5 of the cpu line
        idle = sum(d[3:5]) if len(d) >= 5 else 0
        self._result = {
            "seconds": round(time.monotonic() - m0, 3),
            "cpu_busy": round(1 - idle / total, 4) if total > 0 else None,
            "steal": round(d[7] / total, 4) if total > 0 and len(d) > 7 else None,
            "loadavg_before": la0,
            "loadavg_after": _loadavg(),
        }

    def result(self) -> dict[str, Any]:
        if self._result is None:
            raise RuntimeError("LoadMonitor.result() before the run ended")
        return self._result
