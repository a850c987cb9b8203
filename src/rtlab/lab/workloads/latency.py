"""The `rtlab-latency` workload kind: workloads/linux/rtlab-latency (cyclic, sleep and
search modes), its parameters as the program's options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.workloads.base import (
    WorkloadKind,
    check_duration,
    check_params,
    check_ranges,
    cpu_list,
    duration_s,
    options_argv,
)

_LAT_OPTS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "mode": (str, "--mode"),
    "method": (str, "-w"),
    "policy": (str, "--policy"),
    "priority": (int, "-p"),
    "interval_us": (int, "-i"),
    "duration": ((str, int, float), "-D"),
    "loops": (int, "-l"),
    "affinity": ((str, int), "-a"),
    "mlockall": (bool, "-m"),
    "slack_ns": (int, "--slack"),
    "latency_us": (int, "--latency"),
    "sleeps": (list, "--sleeps"),
    "periods": (list, "--periods"),
    "bound_us": (int, "--bound"),
    "bound_pct": ((int, float), "--bound-pct"),
    "quantile": (float, "--quantile"),
    "search_time_ms": (int, "--search-time"),
    "histogram": (bool, "-h"),
    "binary": (bool, "--binary"),
    "crc": (bool, "--crc"),
    "strict": (bool, "--strict"),
}
_CHOICES = {
    "mode": ("cyclic", "sleep", "search"),
    "method": ("abs", "clock_nanosleep", "rel", "nanosleep", "usleep", "timerfd", "busy"),
    "policy": ("other", "fifo", "rr"),
}
# What rtlab-latency's option parser accepts (src/main.c parse_args): outside, the
# program exits with its usage text, so the spec is refused at load instead.
_RANGES: dict[str, tuple[float, float]] = {
    "interval_us": (1, 60_000_000),
    "loops": (1, 64_000_000),
    "priority": (0, 99),
    "slack_ns": (1, 1_000_000_000),
    "latency_us": (0, 1_000_000_000),
    "bound_us": (0, 1_000_000_000),
    "search_time_ms": (1, 3_600_000),
}
_MAX_LIST = 32


def _check_combination(p: Mapping[str, Any]) -> None:
    """The program's checks that concern two parameters together."""
    for key, hi in (("bound_pct", 1000.0), ("quantile", 1.0)):
        if key in p and not 0 < p[key] <= hi:
            raise ConfigError(key, f"{key} = {p[key]}: expected a number in (0, {hi:g}]")
    for key in ("sleeps", "periods"):
        if key in p and (not p[key] or len(p[key]) > _MAX_LIST or max(p[key]) > 10**9):
            raise ConfigError(key, f"{key}: 1..{_MAX_LIST} values of at most 10^9 us")
    if "affinity" in p:
        cpu_list("affinity", p["affinity"])
    if p.get("policy") == "other" and p.get("priority", 0) > 0:
        raise ConfigError("priority", f"priority = {p['priority']} needs policy fifo or rr")
    mode = p.get("mode", "cyclic")
    if mode == "cyclic" and p.get("method") == "usleep" and p.get("interval_us", 0) > 999_999:
        raise ConfigError("interval_us", "method usleep takes at most 999999 us")


def _check_latency(p: Mapping[str, Any]) -> None:
    check_params("rtlab-latency", p, _LAT_OPTS, _CHOICES)
    for key in ("sleeps", "periods"):
        if key in p and not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in p[key]
        ):
            raise ConfigError(key, f"{key}: expected a list of positive integers (us)")
    check_duration(p)
    check_ranges(p, _RANGES)
    _check_combination(p)
    if p.get("mode", "cyclic") == "cyclic" and "duration" not in p and "loops" not in p:
        raise ConfigError("method", "rtlab-latency in cyclic mode needs duration or loops")


def _latency_argv(exe: str, p: Mapping[str, Any]) -> list[str]:
    return options_argv(exe, p, _LAT_OPTS)


def _latency_seconds(p: Mapping[str, Any]) -> float:
    interval = p.get("interval_us", 1000) * 1e-6
    mode = p.get("mode", "cyclic")
    if mode == "sleep":
        sleeps = p.get("sleeps", [1, 10, 100, 1000])
        return p.get("loops", 1000) * sum(s * 1e-6 + 60e-6 for s in sleeps)
    if mode == "search":
        return len(p.get("periods", [1000, 500, 200, 100, 50, 20, 10])) * (
            p.get("search_time_ms", 300) / 1000
        )
    if "duration" in p:
        return duration_s(p["duration"])
    return p.get("loops", 1000) * interval


WORKLOAD_KIND = WorkloadKind(
    "rtlab-latency",
    "rtlab-latency",
    frozenset({"sleeps", "periods"}),
    _check_latency,
    _latency_argv,
    _latency_seconds,
)
