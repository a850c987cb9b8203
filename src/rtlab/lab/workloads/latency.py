"""The `rtlab-latency` workload kind: workloads/linux/rtlab-latency (cyclic, sleep and
search modes), its parameters as the program's options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.workloads.base import WorkloadKind, duration_s, option_args

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
def _check_latency(p: Mapping[str, Any]) -> None:
    for key, value in p.items():
        if key not in _LAT_OPTS:
            raise ConfigError(
                key, f"unknown rtlab-latency parameter {key!r}; known: {', '.join(_LAT_OPTS)}"
            )
        want = _LAT_OPTS[key][0]
        ok = isinstance(value, want) and not (isinstance(value, bool) and want is not bool)
        if not ok:
            raise ConfigError(key, f"{key} = {value!r}: wrong type")
        if key in _CHOICES and value not in _CHOICES[key]:
            raise ConfigError(key, f"{key} = {value!r}: expected one of {', '.join(_CHOICES[key])}")
        if key in ("sleeps", "periods") and not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value
        ):
            raise ConfigError(key, f"{key}: expected a list of positive integers (us)")
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise ConfigError(key, f"{key} = {value}: must not be negative")
    if "duration" in p:
        duration_s(p["duration"])
    if p.get("mode", "cyclic") == "cyclic" and "duration" not in p and "loops" not in p:
        raise ConfigError("method", "rtlab-latency in cyclic mode needs duration or loops")


def _latency_argv(exe: str, p: Mapping[str, Any]) -> list[str]:
    return [exe, "-q", *(a for k, v in p.items() for a in option_args(k, v, _LAT_OPTS[k][1]))]


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
