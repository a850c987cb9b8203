"""Workload kinds of an experiment spec: their parameters, argv and expected run time.

A kind checks one cell's parameters (scalars after matrix expansion; a mistake is a
ConfigError naming the parameter), turns them into the program's argv, and says roughly
how long a run takes (for the ETA and the timeout). `list_params` are parameters whose
value is itself a list (`sleeps = [1, 10]` is one value); a list of such lists expands
into the matrix.

Each kind is one module defining `WORKLOAD_KIND` (or `WORKLOAD_KINDS`), found through
the table of `KINDS`: `rtlab-latency` (latency.py, workloads/linux/rtlab-latency),
`rtbench` (rtbench.py, the POSIX port of workloads/rtbench), `command` (command.py, any
program that speaks the protocol, argv given), the GPIO kinds (gpio.py) and
`latency_measure` (Zephyr's own benchmark on the qemu target, its text turned into
records: the cross-check of rtbench's Zephyr figures).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rtlab.errors import ConfigError
from rtlab.registry import Registry


@dataclass(frozen=True)
class WorkloadKind:
    name: str
    program: str | None  # the C target to build (local) or find (remote); None: argv[0]
    list_params: frozenset[str]
    check: Callable[[Mapping[str, Any]], None]
    argv: Callable[[str, Mapping[str, Any]], list[str]]
    seconds: Callable[[Mapping[str, Any]], float]
    multi_run: bool = False  # one invocation prints several protocol runs (rtbench)
    # A program that prints its own text, not the protocol (Zephyr's latency_measure):
    # turns that text into protocol records before the runner parses it.
    output: Callable[[str], str] | None = None
    # Series of instants, not durations (rtlab-toggle's write_ts): stored with
    # kind=timestamps when the program does not declare it (docs/protocol.md), so that
    # no summary shows their quantiles as latencies.
    timestamps: tuple[str, ...] = ()


KINDS: Registry[WorkloadKind] = Registry(
    "workload kind",
    {
        "rtlab-latency": "rtlab.lab.workloads.latency",
        "rtbench": "rtlab.lab.workloads.rtbench",
        "command": "rtlab.lab.workloads.command",
        "rtlab-toggle": "rtlab.lab.workloads.gpio",
        "rtlab-toggle-rs": "rtlab.lab.workloads.gpio",
        "rtlab-toggle-kt": "rtlab.lab.workloads.gpio",
        "rtlab-gpio-events": "rtlab.lab.workloads.gpio",
        "latency_measure": "rtlab.lab.workloads.latency_measure",
        "rtlab-hrtimer": "rtlab.lab.workloads.hrtimer",
        "rtlab-timerlat": "rtlab.lab.workloads.timerlat",
    },
    attr=("WORKLOAD_KIND", "WORKLOAD_KINDS"),
)


_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)?$")


def duration_s(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    m = _DURATION.match(str(value))
    if not m:
        raise ConfigError("duration", f"duration {value!r}: expected seconds or 500ms, 5s, 2m")
    scale = {"ms": 1e-3, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]
    return float(m.group(1)) * scale


def check_ranges(p: Mapping[str, Any], ranges: Mapping[str, tuple[float, float]]) -> None:
    """Each integer parameter inside the range its program accepts (the C option's
    check, e.g. `-i 0` is refused): refused at spec load, not as a run's usage error."""
    for key, (lo, hi) in ranges.items():
        v = p.get(key)
        if isinstance(v, int | float) and not isinstance(v, bool) and not lo <= v <= hi:
            raise ConfigError(key, f"{key} = {v}: expected {int(lo)}..{int(hi)}")


OptionTable = Mapping[str, tuple[Any, str]]  # parameter -> (its type(s), the program's option)


def check_params(
    program: str,
    p: Mapping[str, Any],
    opts: OptionTable,
    choices: Mapping[str, tuple[str, ...]] | None = None,
    also: tuple[str, ...] = (),
) -> None:
    """Every parameter of `p` but those in `also` (checked by the caller, named among
    the known ones) is an option of `program`'s table, of its type (a bool never passes
    for a number), one of its `choices` where it has some, and not a negative integer."""
    for key, value in p.items():
        if key in also:
            continue
        if key not in opts:
            known = ", ".join([*opts, *also])
            raise ConfigError(key, f"unknown {program} parameter {key!r}; known: {known}")
        want = opts[key][0]
        takes_bool = want is bool or (isinstance(want, tuple) and bool in want)
        if not isinstance(value, want) or (isinstance(value, bool) and not takes_bool):
            raise ConfigError(key, f"{key} = {value!r}: wrong type")
        allowed = (choices or {}).get(key)
        if allowed is not None and value not in allowed:
            raise ConfigError(key, f"{key} = {value!r}: expected one of {', '.join(allowed)}")
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise ConfigError(key, f"{key} = {value}: must not be negative")


def options_argv(exe: str, p: Mapping[str, Any], opts: OptionTable) -> list[str]:
    """The program's command line: `exe -q` and each parameter as its option
    (option_args), in the order the spec gives them."""
    return [exe, "-q", *(a for k, v in p.items() for a in option_args(k, v, opts[k][1]))]


def check_duration(p: Mapping[str, Any]) -> None:
    """`duration`: a positive time of at least 1 ns (the programs refuse less)."""
    if "duration" in p and duration_s(p["duration"]) * 1e9 < 1:
        raise ConfigError("duration", f"duration {p['duration']!r}: must be positive")


def cpu_list(key: str, value: Any) -> None:
    """A CPU list as the programs' -a takes it: 0-3,6 (CPUs 0..1023)."""
    for part in str(value).split(","):
        a, dash, b = part.partition("-")
        ok = a.isdigit() and (not dash or b.isdigit())
        if not ok or int(a) > 1023 or (dash and not int(a) <= int(b) <= 1023):
            raise ConfigError(key, f"{key} = {value!r}: expected CPUs like 1 or 0-3,6 (0..1023)")


def option_args(key: str, value: Any, opt: str) -> list[str]:
    """One parameter as the program's option `opt`: a flag for true (nothing for false),
    a list comma-separated, a duration in ms, anything else as text."""
    if isinstance(value, bool):
        return [opt] if value else []
    if isinstance(value, list):
        return [opt, ",".join(str(v) for v in value)]
    if key == "duration":
        ms = f"{duration_s(value) * 1000:.6f}".rstrip("0").rstrip(".")
        return [opt, f"{ms}ms"]
    return [opt, str(value)]


def stderr_reason(stderr: str, program: str) -> str:
    """Why a workload failed, from its stderr: the first line the program signed
    (`rtlab-latency: -i: expected ...`, the way the C workloads and argparse report a
    mistake, before their usage text), else the last line (a traceback's exception)."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    name = program.rsplit("/", 1)[-1]
    signed = [ln for ln in lines if name and ln.startswith(f"{name}: ")]
    if signed:
        return signed[0][:500]
    rest = [ln for ln in lines if not ln.lower().startswith("usage:")]
    return (rest or lines or ["(nothing on stderr)"])[-1][:500]
