"""The environment fingerprint recorded with every run: what shapes timing on this host.

    fp = fingerprint(run_meta=run.meta)        # a JSON-able dict
    with LoadMonitor() as load: ...run...      # load during the run
    fp["load"] = load.result()

Everything is read from /proc and /sys (plus systemd-detect-virt when present); what
cannot be read is None, never an exception: a fingerprint must not stop a run. The
`warnings` list names known pitfalls, with the same codes rtlab-latency uses in its own
`warn` records when they concern the workload (timer_slack, no_mlockall).
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import shutil
import struct
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

CPU_SYS = Path("/sys/devices/system/cpu")
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
DEFAULT_SLACK_NS = 50_000
DMA_LATENCY_DEFAULT_US = 2_000_000_000  # the kernel's "no constraint" value


def _read(path: str | Path) -> str | None:
    try:
        return Path(path).read_text(errors="replace").strip()
    except OSError:
        return None


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


def _kernel() -> dict[str, Any]:
    u = os.uname()
    rt = _read("/sys/kernel/realtime")
    dyn = _read("/sys/kernel/debug/sched/preempt")  # needs debugfs mounted
    return {
        "release": u.release,
        "version": u.version,
        "machine": u.machine,
        "preemption": preemption_model(u.version, rt, dyn),
        "preempt_rt": rt == "1" or "PREEMPT_RT" in u.version,
        "preempt_dynamic_mode": dyn,
        "rt_runtime_us": _int(_read("/proc/sys/kernel/sched_rt_runtime_us")),
        "rt_period_us": _int(_read("/proc/sys/kernel/sched_rt_period_us")),
        "transparent_hugepage": _bracketed(_read("/sys/kernel/mm/transparent_hugepage/enabled")),
    }


def _bracketed(text: str | None) -> str | None:
    """'always [madvise] never' → 'madvise' (the sysfs way of showing the choice)."""
    if text is None:
        return None
    m = re.search(r"\[(\S+)\]", text)
    return m.group(1) if m else text


def _cpus() -> dict[str, Any]:
    info = _read("/proc/cpuinfo") or ""
    model = re.search(r"^model name\s*:\s*(.+)$", info, re.M)
    flags = re.search(r"^flags\s*:\s*(.+)$", info, re.M)
    flagset = set(flags.group(1).split()) if flags else set()
    governors: dict[str, str | None] = {}
    for d in sorted(CPU_SYS.glob("cpu[0-9]*"), key=lambda p: int(p.name[3:])):
        governors[d.name] = _read(d / "cpufreq" / "scaling_governor")
    return {
        "model": model.group(1).strip() if model else platform.processor() or None,
        "online": _read(CPU_SYS / "online"),
        "count": os.cpu_count(),
        "isolated": _read(CPU_SYS / "isolated") or None,
        "nohz_full": _read(CPU_SYS / "nohz_full") or None,
        "smt_active": _int(_read(CPU_SYS / "smt" / "active")),
        "governors": governors,
        "constant_tsc": "constant_tsc" in flagset,
        "hypervisor_flag": "hypervisor" in flagset,
    }


def _idle() -> dict[str, Any]:
    states = []
    for s in sorted((CPU_SYS / "cpu0" / "cpuidle").glob("state*"), key=lambda p: int(p.name[5:])):
        states.append(
            {
                "name": _read(s / "name"),
                "latency_us": _int(_read(s / "latency")),
                "disabled": _read(s / "disable") == "1",
            }
        )
    dma = None
    with contextlib.suppress(OSError):
        fd = os.open("/dev/cpu_dma_latency", os.O_RDONLY)
        try:
            raw = os.read(fd, 4)
            dma = struct.unpack("=i", raw)[0] if len(raw) == 4 else None
        finally:
            os.close(fd)
    return {
        "driver": _read(CPU_SYS / "cpuidle" / "current_driver"),
        "governor": _read(CPU_SYS / "cpuidle" / "current_governor")
        or _read(CPU_SYS / "cpuidle" / "current_governor_ro"),
        "states_cpu0": states,
        "cpu_dma_latency_us": dma,
        "haltpoll_guest_halt_poll_ns": _int(
            _read("/sys/module/haltpoll/parameters/guest_halt_poll_ns")
        ),
    }


def _clocksource() -> dict[str, Any]:
    base = "/sys/devices/system/clocksource/clocksource0"
    avail = _read(f"{base}/available_clocksource")
    return {
        "current": _read(f"{base}/current_clocksource"),
        "available": avail.split() if avail else None,
    }


def _detect_virt(tool: str | None, flag: str) -> str | None:
    if tool is None:
        return None
    try:
        p = subprocess.run([tool, flag], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() or None


def _virtualization(hypervisor_flag: bool) -> dict[str, Any]:
    # --vm and --container apart: inside a container in a VM, plain detection says only
    # "docker", and it is the VM that shapes timer wake-ups.
    tool = shutil.which("systemd-detect-virt")
    vm, container = _detect_virt(tool, "--vm"), _detect_virt(tool, "--container")
    dmi = {k: _read(f"/sys/class/dmi/id/{k}") for k in ("sys_vendor", "product_name")}
    hyp = _read("/sys/hypervisor/type")
    virtual = hypervisor_flag or bool(hyp) or (vm not in (None, "none"))
    return {
        "virtual": virtual,
        "vm": vm,
        "container": container,
        "hypervisor_type": hyp,
        "cpuinfo_hypervisor_flag": hypervisor_flag,
        **{f"dmi_{k}": v for k, v in dmi.items()},
    }


def _process() -> dict[str, Any]:
    """The runner's own scheduling and memory state: what a child inherits."""
    status = _read("/proc/self/status") or ""
    vmlck = re.search(r"^VmLck:\s*(\d+)\s*kB", status, re.M)
    policy = os.sched_getscheduler(0)
    names = {
        os.SCHED_OTHER: "other",
        os.SCHED_FIFO: "fifo",
        os.SCHED_RR: "rr",
        os.SCHED_BATCH: "batch",
        os.SCHED_IDLE: "idle",
    }
    import resource

    def lim(r: int) -> int | None:
        soft = resource.getrlimit(r)[0]
        return None if soft == resource.RLIM_INFINITY else soft

    return {
        "policy": names.get(policy, str(policy)),
        "priority": os.sched_getparam(0).sched_priority,
        "timer_slack_ns": _int(_read("/proc/self/timerslack_ns")),
        "vm_locked_kb": int(vmlck.group(1)) if vmlck else None,
        "rlimit_memlock": lim(resource.RLIMIT_MEMLOCK),
        "rlimit_rtprio": lim(resource.RLIMIT_RTPRIO),
        "euid": os.geteuid(),
        "affinity": sorted(os.sched_getaffinity(0)),
    }


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _software() -> dict[str, Any]:
    from importlib import metadata

    def ver(pkg: str) -> str | None:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return None

    osr = _read("/etc/os-release") or ""
    pretty = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', osr, re.M)
    return {
        "os": pretty.group(1) if pretty else None,
        "python": sys.version.split()[0],
        "rtlab": ver("rtlab"),
        "numpy": ver("numpy"),
    }


def fingerprint(run_meta: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A JSON-able description of the environment, with `warnings` for known pitfalls.

    `run_meta` is the workload's own metadata (protocol `meta` records: policy, method,
    timer_slack_ns, mlockall), so the pitfalls of the run itself are checked too.
    """
    cpus = _cpus()
    cmdline = _read("/proc/cmdline") or ""
    fp: dict[str, Any] = {
        "time_unix": round(time.time(), 3),
        "hostname": platform.node(),
        "kernel": _kernel(),
        "cmdline": cmdline,
        "cmdline_timing": parse_cmdline(cmdline),
        "clocksource": _clocksource(),
        "cpu": cpus,
        "idle": _idle(),
        "virtualization": _virtualization(cpus["hypervisor_flag"]),
        "process": _process(),
        "loadavg": _loadavg(),
        "software": _software(),
    }
    fp["warnings"] = pitfalls(fp, run_meta or {})
    return fp


def _warn(out: list[dict[str, str]], code: str, msg: str) -> None:
    out.append({"code": code, "msg": msg})


def pitfalls(fp: Mapping[str, Any], meta: Mapping[str, str]) -> list[dict[str, str]]:
    """Known ways this environment (and this run's settings) distorts timing."""
    out: list[dict[str, str]] = []
    k, idle, virt = fp["kernel"], fp["idle"], fp["virtualization"]
    if not k["preempt_rt"]:
        _warn(
            out,
            "no_preempt_rt",
            f"kernel is {k['preemption']}, not PREEMPT_RT: worst "
            "cases of milliseconds are expected under load",
        )
    if virt["virtual"]:
        what = (
            (virt["vm"] if virt["vm"] not in (None, "none") else None)
            or virt["hypervisor_type"]
            or "a hypervisor"
        )
        _warn(
            out,
            "vm",
            f"virtual machine ({what}): an idle vCPU wakes slowly (tens of us, "
            "so idle can be worse than loaded) and host preemption adds ms outliers",
        )
    govs = {g for g in fp["cpu"]["governors"].values() if g}
    if govs - {"performance"}:
        _warn(
            out,
            "cpufreq_governor",
            f"CPU governor {', '.join(sorted(govs))}: frequency "
            "changes add latency; use performance for measurements",
        )
    deep = [
        s["name"] for s in idle["states_cpu0"] if not s["disabled"] and (s["latency_us"] or 0) > 10
    ]
    dma = idle["cpu_dma_latency_us"]
    if deep and (dma is None or dma >= DMA_LATENCY_DEFAULT_US):
        _warn(
            out,
            "idle_states",
            f"idle states with exit latency > 10 us enabled "
            f"({', '.join(map(str, deep))}) and no /dev/cpu_dma_latency request",
        )
    if k["transparent_hugepage"] == "always":
        _warn(out, "thp_always", "transparent hugepages 'always': compaction can stall")
    cs = fp["clocksource"]["current"]
    if cs and cs not in ("tsc", "arch_sys_counter", "kvm-clock"):
        _warn(out, "clocksource", f"clocksource {cs}: clock reads may be slow (not in vDSO)")
    la = fp.get("loadavg")
    if la and la[0] > 0.5 * (fp["cpu"]["count"] or 1):
        _warn(
            out,
            "busy_host",
            f"load average {la[0]} before the run on "
            f"{fp['cpu']['count']} CPUs: other work competes with the measurement",
        )
    _run_pitfalls(out, meta)
    return out


def _run_pitfalls(out: list[dict[str, str]], meta: Mapping[str, str]) -> None:
    policy = meta.get("policy")
    method = meta.get("method", "")
    slack = _int(meta.get("timer_slack_ns"))
    sleeping = method in ("clock_nanosleep", "nanosleep", "usleep")
    if policy == "other" and sleeping and (slack is None or slack > 1000):
        s = slack if slack is not None else DEFAULT_SLACK_NS
        _warn(
            out,
            "timer_slack",
            f"SCHED_OTHER + {method} with {s} ns timer slack: each "
            f"sleep may end up to {s} ns late (usleep(1) is about the slack)",
        )
    if meta.get("mlockall") == "0":
        _warn(out, "no_mlockall", "workload did not lock its memory: page faults can add latency")


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
