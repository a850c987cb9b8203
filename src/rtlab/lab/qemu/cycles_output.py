"""A QEMU run's rtbench output restated in cycles from the plugin's capture: each marked
series' samples become its external figure (the marker pulse, in cycles at the stand-in
chip's clock: the STM32 study's method, the figure of record; a one-pin pulse less the
empty bracket's pulse, so that it holds the call alone, as the study took its pin's cost
off: cycles_bracket_pulse, cycles_less_bracket name both), every other data record
is withheld (its figures count QEMU's icount clock, not cycles), and the run's meta says
what the figures are:

    timebase = qemu_cycles, clock = qemu_cycles_marker, cpu_hz = the chip's clock,
    cycles_model = "cycle-approximate: QEMU + rtlab's timing tables, not silicon",
    cycles_core, cycles_stands_for, cycles_internal.NAME (the guest's own timestamps
    around the same sample, in cycles: median warm), cycles_bracket (the empty bracket),
    cycles_bound (the empty bracket's warm median internal figure: what internal may
    differ from external by), cycles_diff.NAME ("min max outside": internal - external
    over every sample, and how many samples lie beyond [-bound, bound]; the cold one is
    held to the cold bracket)

A run without markers has no cycle figure: its figures are withheld with a warning. The
runs are restated as parsed (the QEMU run's, read once); the guest's output text stays as
it came.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np

from rtlab.analysis.stats import median
from rtlab.errors import ConfigError
from rtlab.lab.qemu.cycles import (
    APPROXIMATIONS,
    LABEL,
    Cycles,
    CyclesMachine,
    machine,
    machines,
    plugin_args,
    read_capture,
)
from rtlab.lab.qemu.cycles_check import bracket_bound, outside_bracket
from rtlab.lab.qemu.cycles_figures import (
    MarkerPlanError,
    Stream,
    figures,
    marked,
    one_pin_pulse,
)
from rtlab.lab.qemu.machine import QemuMachine, QemuResult
from rtlab.protocol import Run, Series
from rtlab.protocol.withhold import withhold, without_figures

WITHHELD = "icount_not_cycles"


def _median(v: np.ndarray) -> int:
    warm = v[1:] if v.size > 1 else v
    return int(median(warm))


def _diff(diff: np.ndarray, cost: np.ndarray) -> str:
    """internal - external of every sample: "min max outside", as rtlab.lab.qemu.
    cycles_check holds them (outside_bracket)."""
    return f"{int(diff.min())} {int(diff.max())} {outside_bracket(diff, cost)}"


def _less_bracket(pulse: np.ndarray, bracket: np.ndarray) -> np.ndarray:
    """A pulse less the empty bracket's (the cold sample less the cold bracket's, warm ones
    less its warm median): the call alone, as the STM32 study took its pin's cost off."""
    out = pulse.astype(np.int64) - _median(bracket)
    out[0] = int(pulse[0]) - int(bracket[0])
    return out


def _restate(run: Run, stream: Stream, m: CyclesMachine) -> Run:
    """A marked run's figures in cycles (see above); any other run as it was."""
    if run.status == "truncated" or run.meta.get("markers") != "on":
        return run
    names = marked(run)
    if not names:
        return run
    try:
        pulse_cost, cost = figures(run, stream, "marker_cost")
    except MarkerPlanError:
        return run  # the port's markers are not the plugin's words: withheld below
    meta: dict[str, object] = {
        "timebase": "qemu_cycles",
        "clock": "qemu_cycles_marker",
        "clock_hz": m.clock_hz,
        "cpu_hz": m.clock_hz,
        "cycles_model": LABEL,
        "cycles_core": m.core_name,
        "cycles_machine": m.name,
        "cycles_stands_for": m.stands_for,
        "cycles_bracket": _median(cost),
        "cycles_bound": bracket_bound(cost),
        "cycles_bracket_pulse": _median(pulse_cost),
        "cycles_approximations": "; ".join(APPROXIMATIONS),
    }
    tick = Fraction(1, m.clock_hz)
    counters: dict[str, tuple[int, str | None]] = {}
    series: dict[str, Series] = {}
    less: list[str] = []
    for name in names:
        ext, internal = figures(run, stream, name)
        meta[f"cycles_internal.{name}"] = _median(internal)
        meta[f"cycles_diff.{name}"] = _diff(internal - ext, cost)
        if name != "marker_cost" and one_pin_pulse(run, name):
            ext = _less_bracket(ext, pulse_cost)
            less.append(name)
        counters[f"{name}.cold"] = (int(ext[0]), "ticks")
        warm = np.asarray(ext[1:] if ext.size > 1 else ext, dtype=np.int64)
        series[name] = Series(name, "ticks", tick, values=warm)
    meta["cycles_less_bracket"] = " ".join(less)
    restated = without_figures(run, {**run.meta, **{k: str(v) for k, v in meta.items()}})
    return dataclasses.replace(restated, counters=counters, series=series)


def to_cycles(runs: list[Run], cyc: Cycles, m: CyclesMachine) -> list[Run]:
    """`runs` (one QEMU run's, parsed) with each marked run's figures in cycles and every
    other run's figures withheld (see above)."""
    stream = Stream(cyc)
    restated = [_restate(run, stream, m) for run in runs]

    def no_markers(meta: Mapping[str, str]) -> str | None:
        if meta.get("timebase") == "qemu_cycles":
            return None
        return (
            "no marker edges of this run in the cycles plugin's capture (markers off, or the "
            "port's markers are not rtb_board_marker's words): its figures count QEMU's "
            "icount clock, not cycles"
        )

    return withhold(restated, no_markers, code=WITHHELD)


def check_cycles(value: object, machine_name: str, shift: object) -> None:
    """A [target]'s `cycles` key: a boolean, on a machine with timing data, at shift 0."""
    if not isinstance(value, bool):
        raise ConfigError("cycles", "cycles: expected true or false")
    if not value:
        return
    if machine_name not in machines():
        known = ", ".join(machines())
        raise ConfigError("cycles", f"cycles: no timing data for {machine_name} (known: {known})")
    if shift != 0:
        raise ConfigError("cycles", "cycles = true runs at icount_shift = 0")


class CyclesQemuMachine(QemuMachine):
    """A QemuMachine whose runs go through the cycles plugin (icount shift 0, so the
    guest's own clocks stay deterministic) and come back restated in cycles."""

    def __init__(self, name: str, qemu: str | None = None, extra: Sequence[str] = ()) -> None:
        super().__init__(name, 0, qemu, extra)
        self.cycles_machine = machine(name)
        self.base_extra = list(extra)

    def run(
        self, elf: str | Path, append: str, timeout_s: float, meta: Mapping[str, object] = {}
    ) -> QemuResult:
        with tempfile.TemporaryDirectory(prefix="rtlab-cycles-") as tmp:
            plugin, out = plugin_args(Path(elf), self.cycles_machine, Path(tmp))
            self.extra = [*self.base_extra, *plugin]
            res = super().run(elf, append, timeout_s, meta)
            if not out.is_file():  # QEMU died (its stderr says why): no figure survives
                res.problem = res.problem or f"{Path(elf).name}: the cycles plugin wrote no capture"
                cyc = Cycles(core="")
            else:
                cyc = read_capture(out)
        res.runs = to_cycles(res.runs, cyc, self.cycles_machine)
        return res

    def describe(self) -> dict[str, object]:
        m = self.cycles_machine
        return {**super().describe(), "timebase": "qemu_cycles", "cycles_core": m.core_name,
                "cycles_model": LABEL}  # fmt: skip
