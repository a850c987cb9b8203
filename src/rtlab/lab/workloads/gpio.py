"""Workload kinds of the GPIO workloads (docs/gpio-workloads.md):

- `rtlab-toggle`      workloads/linux/rtlab-toggle (C, GPIO uAPI v2)
- `rtlab-toggle-rs`   workloads/linux/rtlab-toggle-rs (Rust, same options and output)
- `rtlab-toggle-kt`   workloads/linux/rtlab-toggle-kt (Kotlin/Native, same options and output)
- `rtlab-gpio-events` workloads/linux/rtlab-toggle (edge events with kernel timestamps)

`WORKLOAD_KINDS` lists them for the registry (`base.KINDS`); locally the programs are
built on first use like the other C targets (the Rust one through its CMake wrapper,
which runs cargo; rtlab-gpio-events is the second executable of the rtlab-toggle
C target, see rtlab.lab.c_targets.PROGRAMS).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rtlab.catalog.gpio_kinds import EVENTS_KIND, TOGGLE_KINDS
from rtlab.errors import ConfigError
from rtlab.lab.workloads.base import (
    WorkloadKind,
    check_duration,
    check_params,
    check_ranges,
    duration_s,
    option_args,
)

_INT = (int,)
_TOGGLE_OPTS: dict[str, tuple[tuple[type, ...], str]] = {
    "chip": ((str, int), "-c"),
    "lines": ((str, int, list), "-l"),
    "mode": ((str,), "-w"),
    "interval_ns": (_INT, "-i"),
    "count": (_INT, "-n"),
    "duration": ((str, int, float), "-D"),
    "timestamps": ((bool,), "-t"),
    "max_samples": (_INT, "--max-samples"),
    "verify": ((bool,), "--verify"),
    "policy": ((str,), "--policy"),
    "priority": (_INT, "-p"),
    "affinity": (_INT, "-a"),
    "mlockall": ((bool,), "-m"),
    "binary": ((bool,), "--binary"),
    "crc": ((bool,), "--crc"),
}
_EVENT_OPTS: dict[str, tuple[tuple[type, ...], str]] = {
    "chip": ((str, int), "-c"),
    "lines": ((str, int, list), "-l"),
    "edge": ((str,), "-e"),
    "count": (_INT, "-n"),
    "duration": ((str, int, float), "-D"),
    "realtime": ((bool,), "--realtime"),
    "bias": ((str,), "--bias"),
    "buffer": (_INT, "--buffer"),
    "binary": ((bool,), "--binary"),
    "crc": ((bool,), "--crc"),
}
_CHOICES = {
    "mode": ("fast", "busy", "abs", "usleep"),
    "policy": ("other", "fifo", "rr"),
    "edge": ("rising", "falling", "both"),
    "bias": ("pull-up", "pull-down", "disabled"),
}
# What the programs' option parsers accept (rtlab-toggle/src/toggle.c, gpio_events.c;
# the Rust port checks the same): refused at spec load, not as a run's usage error.
_RANGES: dict[str, tuple[float, float]] = {
    "interval_ns": (1, 60 * 10**9),
    "max_samples": (2, 1 << 28),
    "priority": (0, 99),
    "affinity": (0, 1023),
    "buffer": (1, 1 << 20),
}
_COUNT_MAX = {"rtlab-gpio-events": 1 << 28}  # the toggles: 1 << 40
_MAX_LINES, _MAX_META = 64, 16


def _check_lines(value: Any) -> None:
    offsets: list[int] = []
    for part in value if isinstance(value, list) else str(value).split(","):
        a, dash, b = str(part).partition("-")
        if not a.isdigit() or (dash and not b.isdigit()) or int(b or a) < int(a):
            raise ConfigError("lines", f"lines = {value!r}: expected offsets like 0, 0,3 or 0-3")
        offsets += range(int(a), int(b or a) + 1)
    if not offsets or max(offsets) > 0xFFFF or len(offsets) > _MAX_LINES:
        raise ConfigError("lines", f"lines = {value!r}: 1..{_MAX_LINES} offsets of 0..65535")
    if len(set(offsets)) != len(offsets):
        raise ConfigError("lines", f"lines = {value!r}: a line given twice")


def _check_together(kind: str, p: Mapping[str, Any]) -> None:
    check_duration(p)
    check_ranges(p, {**_RANGES, "count": (1, _COUNT_MAX.get(kind, 1 << 40))})
    if "lines" in p:
        _check_lines(p["lines"])
    if p.get("chip") == "":
        raise ConfigError("chip", "chip: empty")
    meta = p.get("meta", {})
    if len(meta) > _MAX_META or any(not str(k) or "=" in str(k) for k in meta):
        raise ConfigError("meta", f"meta: at most {_MAX_META} labels, keys without '='")
    policy, prio = p.get("policy", "other"), p.get("priority")
    if policy == "other" and (prio or 0) > 0:
        raise ConfigError("priority", f"priority = {prio} needs policy fifo or rr")
    if policy != "other" and prio == 0:
        raise ConfigError("priority", f"policy {policy} needs a priority in 1..99")
    if p.get("mode") == "usleep" and p.get("interval_ns", 100_000) < 1000:
        raise ConfigError("interval_ns", "mode usleep: interval_ns must be >= 1000")


# Extra keys every GPIO kind takes: `seconds` (expected run time, for the timeout when
# it cannot be derived) and `meta` (a table of labels passed as --meta KEY=VALUE).
_COMMON = ("seconds", "meta")


def _checker(kind: str, opts: Mapping[str, tuple[tuple[type, ...], str]]) -> Any:
    def check(p: Mapping[str, Any]) -> None:
        for key in _COMMON:
            value = p.get(key)
            if value is None:
                continue
            ok = isinstance(value, dict) if key == "meta" else isinstance(value, int | float)
            if not ok or isinstance(value, bool):
                raise ConfigError(key, f"{key} = {value!r}: wrong type")
        check_params(kind, p, opts, _CHOICES, also=_COMMON)
        lines = p.get("lines")
        if isinstance(lines, list) and not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in lines
        ):
            raise ConfigError("lines", "lines: expected a list of line offsets")
        if "count" in p and "duration" in p:
            raise ConfigError("count", f"{kind}: give count or duration, not both")
        _check_together(kind, p)

    return check


def _argv(opts: Mapping[str, tuple[tuple[type, ...], str]]) -> Any:
    def argv(exe: str, p: Mapping[str, Any]) -> list[str]:
        out = [exe, "-q"]
        for key, value in p.items():
            if key == "meta":
                out += [a for k, v in value.items() for a in ("--meta", f"{k}={v}")]
            elif key != "seconds":
                out += option_args(key, value, opts[key][1])
        return out

    return argv


def _toggle_seconds(p: Mapping[str, Any]) -> float:
    if "seconds" in p:
        return float(p["seconds"])
    if "duration" in p:
        return duration_s(p["duration"])
    count = p.get("count", 1000)
    if p.get("mode", "fast") == "fast":
        return count * 5e-6  # a few us per write on a board; more in an emulator
    return count * p.get("interval_ns", 100_000) * 1e-9


def _events_seconds(p: Mapping[str, Any]) -> float:
    if "seconds" in p:
        return float(p["seconds"])
    if "duration" in p:
        return duration_s(p["duration"])
    return 10.0  # waits for edges from outside: say `seconds` or `duration`


WORKLOAD_KINDS = [
    *(
        WorkloadKind(
            name,
            name,
            frozenset({"lines"}),
            _checker(name, _TOGGLE_OPTS),
            _argv(_TOGGLE_OPTS),
            _toggle_seconds,
            timestamps=("write_ts",),
        )
        for name in TOGGLE_KINDS
    ),
    WorkloadKind(
        EVENTS_KIND,
        EVENTS_KIND,
        frozenset({"lines"}),
        _checker(EVENTS_KIND, _EVENT_OPTS),
        _argv(_EVENT_OPTS),
        _events_seconds,
        timestamps=("edge_ts",),
    ),
]
