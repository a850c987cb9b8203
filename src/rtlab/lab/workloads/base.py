"""Workload kinds of an experiment spec: their parameters, argv and expected run time.

A kind checks one cell's parameters (scalars after matrix expansion), turns them into
the program's argv, and says roughly how long a run takes (for the ETA and the timeout).
`LIST_PARAMS` are parameters whose value is itself a list (`sleeps = [1, 10]` is one
value); a list of such lists expands into the matrix.

Kinds: `rtlab-latency` (workloads/linux/rtlab-latency), `rtbench` (the POSIX port of
workloads/rtbench) and `command` (any program that speaks the protocol, argv given).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rtlab.studies.rtbench import RtbenchError, params_from_mapping, posix_argv


class ParamError(ValueError):
    """A bad parameter: `key` names it so the spec error can point at its line."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class WorkloadKind:
    name: str
    program: str | None  # the C target to build (local) or find (remote); None: argv[0]
    list_params: frozenset[str]
    check: Callable[[Mapping[str, Any]], None]
    argv: Callable[[str, Mapping[str, Any]], list[str]]
    seconds: Callable[[Mapping[str, Any]], float]
    multi_run: bool = False  # one invocation prints several protocol runs (rtbench)


# ------------------------------------------------------------------ rtlab-latency

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
_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)?$")


def duration_s(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    m = _DURATION.match(str(value))
    if not m:
        raise ParamError("duration", f"duration {value!r}: expected seconds or 500ms, 5s, 2m")
    scale = {"ms": 1e-3, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]
    return float(m.group(1)) * scale


def _check_latency(p: Mapping[str, Any]) -> None:
    for key, value in p.items():
        if key not in _LAT_OPTS:
            raise ParamError(
                key, f"unknown rtlab-latency parameter {key!r}; known: {', '.join(_LAT_OPTS)}"
            )
        want = _LAT_OPTS[key][0]
        ok = isinstance(value, want) and not (isinstance(value, bool) and want is not bool)
        if not ok:
            raise ParamError(key, f"{key} = {value!r}: wrong type")
        if key in _CHOICES and value not in _CHOICES[key]:
            raise ParamError(key, f"{key} = {value!r}: expected one of {', '.join(_CHOICES[key])}")
        if key in ("sleeps", "periods") and not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value
        ):
            raise ParamError(key, f"{key}: expected a list of positive integers (us)")
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise ParamError(key, f"{key} = {value}: must not be negative")
    if "duration" in p:
        duration_s(p["duration"])
    if p.get("mode", "cyclic") == "cyclic" and "duration" not in p and "loops" not in p:
        raise ParamError("method", "rtlab-latency in cyclic mode needs duration or loops")


def _latency_argv(exe: str, p: Mapping[str, Any]) -> list[str]:
    argv = [exe, "-q"]
    for key, value in p.items():
        opt = _LAT_OPTS[key][1]
        if isinstance(value, bool):
            argv += [opt] if value else []
        elif isinstance(value, list):
            argv += [opt, ",".join(str(v) for v in value)]
        elif key == "duration":
            argv += [opt, f"{duration_s(value) * 1000:.0f}ms"]
        else:
            argv += [opt, str(value)]
    return argv


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


# ------------------------------------------------------------------ rtbench


def _check_rtbench(p: Mapping[str, Any]) -> None:
    try:
        params_from_mapping(p)
    except RtbenchError as e:
        m = re.search(r"rtbench\.(\w+)|unknown key\(s\) (\w+)", str(e))
        raise ParamError((m.group(1) or m.group(2)) if m else "kind", str(e)) from None


def _rtbench_seconds(p: Mapping[str, Any]) -> float:
    # A rough guess for the ETA: every scenario is a few windows.
    sc = p.get("scenarios", ["all"])
    n = 5 if "all" in sc or sc == "all" else len(sc if isinstance(sc, list) else [sc])
    return n * max(1.0, 4 * p.get("window_ms", 200) / 1000)


# ------------------------------------------------------------------ command


def _check_command(p: Mapping[str, Any]) -> None:
    for key in p:
        if key not in ("argv", "seconds"):
            raise ParamError(key, f"unknown command parameter {key!r}; known: argv, seconds")
    argv = p.get("argv")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise ParamError("argv", "command needs argv = a non-empty list of strings")


KINDS: dict[str, WorkloadKind] = {
    "rtlab-latency": WorkloadKind(
        "rtlab-latency",
        "rtlab-latency",
        frozenset({"sleeps", "periods"}),
        _check_latency,
        _latency_argv,
        _latency_seconds,
    ),
    "rtbench": WorkloadKind(
        "rtbench",
        "rtbench-posix",
        frozenset({"scenarios", "cores", "levels", "tests"}),
        _check_rtbench,
        lambda exe, p: [exe, *posix_argv(params_from_mapping(p))],
        _rtbench_seconds,
        multi_run=True,
    ),
    "command": WorkloadKind(
        "command",
        None,
        frozenset({"argv"}),
        _check_command,
        lambda exe, p: list(p["argv"]),
        lambda p: float(p.get("seconds", 5)),
    ),
}

# GPIO workload kinds (rtlab-toggle, rtlab-toggle-rs, rtlab-gpio-events) live in their own
# module; imported last because it builds on the names above.
from rtlab.lab.workloads.gpio import GPIO_KINDS  # noqa: E402

KINDS.update(GPIO_KINDS)
