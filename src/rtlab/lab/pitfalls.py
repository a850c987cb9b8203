"""Known timing pitfalls, named from a fingerprint and a run's own metadata.

The codes are the ones rtlab-latency uses in its own `warn` records when they concern
the workload (timer_slack, no_mlockall); the runner stores them with each run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEFAULT_SLACK_NS = 50_000
DMA_LATENCY_DEFAULT_US = 2_000_000_000  # the kernel's "no constraint" value


def _warn(out: list[dict[str, str]], code: str, msg: str) -> None:
    out.append({"code": code, "msg": msg})


def pitfalls(
    fp: Mapping[str, Any],
    meta: Mapping[str, str],
    loadavg: list[float] | bool | None = True,
) -> list[dict[str, str]]:
    """Known ways this environment (and this run's settings) distorts timing.
    `loadavg`: the host's load average read just before this run (its own figure, not
    the fingerprint's, which one `rtlab run` takes once); True: the fingerprint's (the
    environment itself); None or False: no reading for this run, no busy_host."""
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
    la = fp.get("loadavg") if loadavg is True else loadavg or None
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
    try:
        slack = int(meta["timer_slack_ns"]) if meta.get("timer_slack_ns") is not None else None
    except ValueError:
        slack = None
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
