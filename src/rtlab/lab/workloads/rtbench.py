"""The `rtbench` workload kind: the POSIX port of workloads/rtbench (docs/rtbench.md).

`params_from_mapping` checks a [[workload]] table of kind "rtbench" (RtbenchError, a
ConfigError naming the parameter), `posix_argv` turns it into `rtbench-posix` options
and `run_posix` builds, runs and parses. The study's tables of the results are in
rtlab.studies.rtbench.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from rtlab.catalog.study_errors import RtbenchError
from rtlab.lab.workloads.base import WorkloadKind
from rtlab.protocol import Run, parse

SCENARIOS = ("primitives", "irq", "threadmetric", "scalability", "contention")
CLOCKS = ("monotonic_raw", "tsc")


@dataclass(frozen=True)
class RtbenchParams:
    """rtbench-posix options; None leaves the program's default (docs/rtbench.md)."""

    scenarios: tuple[str, ...] = ("all",)
    iterations: int | None = None
    window_ms: int | None = None
    period_us: int | None = None
    cores: tuple[int, ...] | None = None
    levels: tuple[int, ...] | None = None
    tests: tuple[int, ...] | None = None
    shared: bool = False
    crc: bool = False
    markers: bool = False  # marker pins around every measured path (off: comparable figures)
    irq_ext: bool = False  # the irq scenario's external (GPIO edge) interrupt pass
    clock: str | None = None
    seed: int | None = None
    start_delay_ms: int | None = None  # a board's wait before its first scenario (Pico: 2 s)


def _ints(key: str, value: object, lo: int, hi: int) -> tuple[int, ...]:
    items = value if isinstance(value, list | tuple) else [value]
    out = []
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise RtbenchError(f"rtbench.{key}: expected integers in {lo}..{hi}, got {v!r}", key)
        out.append(v)
    if not out:
        raise RtbenchError(f"rtbench.{key}: empty list", key)
    return tuple(out)


def params_from_mapping(spec: Mapping[str, object]) -> RtbenchParams:
    """Checks an experiment spec's rtbench table; one clear message per mistake."""
    known = {f.name for f in fields(RtbenchParams)}
    unknown = sorted(set(spec) - known)
    if unknown:
        raise RtbenchError(
            f"rtbench: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}",
            unknown[0],
        )
    kw: dict[str, object] = {}
    if "scenarios" in spec:
        sc = spec["scenarios"]
        # a spec value (object): a list of names, each checked below
        names = (sc,) if isinstance(sc, str) else tuple(sc)  # type: ignore[arg-type]
        for n in names:
            if n != "all" and n not in SCENARIOS:
                raise RtbenchError(
                    f"rtbench.scenarios: {n!r} is not one of {', '.join(SCENARIOS)} or all",
                    "scenarios",
                )
        kw["scenarios"] = names
    limits = {
        "iterations": (2, 10**7),
        "window_ms": (1, 600_000),
        "period_us": (1, 10**7),
        "seed": (0, 2**32 - 1),
        "start_delay_ms": (0, 600_000),
    }
    for key, (lo, hi) in limits.items():
        if key in spec:
            kw[key] = _ints(key, spec[key], lo, hi)[0]
    for key, (lo, hi) in {"cores": (1, 255), "levels": (0, 100), "tests": (1, 8)}.items():
        if key in spec:
            kw[key] = _ints(key, spec[key], lo, hi)
    for key in ("shared", "crc", "markers", "irq_ext"):
        if key in spec:
            if not isinstance(spec[key], bool):
                raise RtbenchError(f"rtbench.{key}: expected true or false", key)
            kw[key] = spec[key]
    if "clock" in spec:
        if spec["clock"] not in CLOCKS:
            raise RtbenchError(f"rtbench.clock: expected one of {', '.join(CLOCKS)}", "clock")
        kw["clock"] = spec["clock"]
    # kw: RtbenchParams' fields, each checked above (its type is the field's)
    return RtbenchParams(**kw)  # type: ignore[arg-type]


def posix_argv(p: RtbenchParams) -> list[str]:
    """The rtbench-posix options for p (without the program path)."""
    argv = ["--scenarios", ",".join(p.scenarios)]
    for opt, val in (
        ("--iterations", p.iterations),
        ("--window-ms", p.window_ms),
        ("--period-us", p.period_us),
        ("--seed", p.seed),
        ("--start-delay-ms", p.start_delay_ms),
    ):
        if val is not None:
            argv += [opt, str(val)]
    for opt, vals in (("--cores", p.cores), ("--levels", p.levels), ("--tests", p.tests)):
        if vals is not None:
            argv += [opt, ",".join(map(str, vals))]
    if p.clock is not None:
        argv += ["--clock", p.clock]
    argv += ["--shared"] * p.shared + ["--crc"] * p.crc
    return argv + ["--markers"] * p.markers + ["--irq-ext"] * p.irq_ext


def run_posix(p: RtbenchParams, exe: Path | None = None, timeout: float = 600) -> list[Run]:
    """Builds rtbench (once) unless exe is given, runs it with p, parses its output."""
    if exe is None:
        from rtlab.lab.c_targets import build_c_target

        exe = build_c_target("rtbench") / "rtbench-posix"
    proc = subprocess.run(
        [str(exe), *posix_argv(p)], capture_output=True, text=True, timeout=timeout, check=False
    )
    if proc.returncode == 2:
        raise RtbenchError(f"rtbench-posix rejected its options: {proc.stderr.strip()}")
    return parse(proc.stdout, source=str(exe))


def _check_rtbench(p: Mapping[str, Any]) -> None:
    params_from_mapping(p)  # RtbenchError names the parameter


def _rtbench_seconds(p: Mapping[str, Any]) -> float:
    # A rough guess for the ETA: every scenario is a few windows.
    sc = p.get("scenarios", ["all"])
    n = 5 if "all" in sc or sc == "all" else len(sc if isinstance(sc, list) else [sc])
    return n * max(1.0, 4 * p.get("window_ms", 200) / 1000)


WORKLOAD_KIND = WorkloadKind(
    "rtbench",
    "rtbench-posix",
    frozenset({"scenarios", "cores", "levels", "tests"}),
    _check_rtbench,
    lambda exe, p: [exe, *posix_argv(params_from_mapping(p))],
    _rtbench_seconds,
    multi_run=True,
)
