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
    cycles_bound (the empty bracket's largest warm internal figure: what internal may
    differ from external by), cycles_diff.NAME ("min max outside": internal - external
    over every sample, and how many samples lie beyond [-bound, bound]; the cold one is
    held to the cold bracket)

A run without markers has no cycle figure: its data records are withheld with a warn.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
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
from rtlab.lab.qemu.cycles_figures import (
    MarkerPlanError,
    Stream,
    figures,
    marked,
    one_pin_pulse,
)
from rtlab.lab.qemu.machine import QemuMachine, QemuResult
from rtlab.protocol import parse
from rtlab.protocol.encoder import encode_line, encode_series, encode_value
from rtlab.protocol.records import LINE_PREFIX
from rtlab.protocol.withhold import withhold_runs

_END = re.compile(r"^@rtl1 end (.*?\brecords=)([0-9]+)(.*?)(?: \*[0-9a-f]{8})?$")
_DATA = frozenset(("series", "s", "sd", "sb", "c", "h"))
WITHHELD = "icount_not_cycles"


def _rtype(line: str) -> str | None:
    if not line.startswith(LINE_PREFIX):
        return None
    return line[len(LINE_PREFIX) :].split(" ", 1)[0]


def _runs(text: str) -> Iterator[tuple[list[str], list[str] | None]]:
    """(lines outside runs, None) and (a run's lines with its end, run) pieces in order."""
    run: list[str] | None = None
    for raw in text.split("\n"):
        rtype = _rtype(raw.rstrip("\r"))
        if rtype == "hello":
            if run is not None:
                yield run, None
            run = [raw]
        elif run is None:
            yield [raw], None
        else:
            run.append(raw)
            if rtype == "end":
                yield run, run
                run = None
    if run is not None:
        yield run, None


def _median(v: np.ndarray) -> int:
    warm = v[1:] if v.size > 1 else v
    return int(median(warm))


def _diff(diff: np.ndarray, cost: np.ndarray) -> str:
    """internal - external of every sample: "min max outside" (outside [-bound, bound]:
    each end's timestamp lies on either side of its edge, within the bracket; the cold
    sample against the cold bracket), as rtlab.lab.qemu.cycles_check holds them."""
    bound = int(cost[1:].max()) if cost.size > 1 else int(cost[0])
    limit = np.full(diff.size, bound)
    limit[0] = int(cost[0])
    outside = int(np.count_nonzero(np.abs(diff) > limit))
    return f"{int(diff.min())} {int(diff.max())} {outside}"


def _less_bracket(pulse: np.ndarray, bracket: np.ndarray) -> np.ndarray:
    """A pulse less the empty bracket's (the cold sample less the cold bracket's, warm ones
    less its warm median): the call alone, as the STM32 study took its pin's cost off."""
    out = pulse.astype(np.int64) - _median(bracket)
    out[0] = int(pulse[0]) - int(bracket[0])
    return out


def _restate(lines: list[str], stream: Stream, m: CyclesMachine) -> list[str]:
    (run,) = parse("\n".join(lines), source="qemu-cycles")
    if run.meta.get("markers") != "on":
        return lines
    end = lines[-1].rstrip("\r")
    match = _END.match(end)
    if match is None:
        return lines
    names = marked(run)
    if not names:
        return lines
    kept = [raw for raw in lines[:-1] if _rtype(raw.rstrip("\r")) not in _DATA]
    dropped = len(lines) - 1 - len(kept)
    try:
        pulse_cost, cost = figures(run, stream, "marker_cost")
    except MarkerPlanError:
        return lines  # the port's markers are not the plugin's words: withheld below
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
        "cycles_bound": int(cost[1:].max()) if cost.size > 1 else int(cost[0]),
        "cycles_bracket_pulse": _median(pulse_cost),
        "cycles_approximations": "; ".join(APPROXIMATIONS),
    }
    added: list[str] = []
    less: list[str] = []
    for name in names:
        ext, internal = figures(run, stream, name)
        meta[f"cycles_internal.{name}"] = _median(internal)
        meta[f"cycles_diff.{name}"] = _diff(internal - ext, cost)
        if name != "marker_cost" and one_pin_pulse(run, name):
            ext = _less_bracket(ext, pulse_cost)
            less.append(name)
        added.append(encode_line("c", f"{name}.cold", str(int(ext[0])), "unit=ticks"))
        added += encode_series(name, ext[1:] if ext.size > 1 else ext, unit="ticks",
                               tick_hz=m.clock_hz)  # fmt: skip
    meta["cycles_less_bracket"] = " ".join(less)
    fields = [f"{k}={encode_value(v)}" for k, v in meta.items()]
    added.insert(0, encode_line("meta", *fields))
    count = int(match.group(2)) - dropped + len(added)
    body = f"{match.group(1)}{count}{match.group(3)}".split()
    return [*kept, *added, encode_line("end", *body)]


def to_cycles(text: str, cyc: Cycles, m: CyclesMachine) -> str:
    """`text` (one QEMU run's labelled output) with each marked run's figures in cycles
    and every other data record withheld (see above)."""
    stream = Stream(cyc)
    out: list[str] = []
    for piece, run in _runs(text):
        out += piece if run is None else _restate(run, stream, m)
    text = "\n".join(out)

    def no_markers(meta: Mapping[str, str]) -> str | None:
        if meta.get("timebase") == "qemu_cycles":
            return None
        return (
            "no marker edges of this run in the cycles plugin's capture (markers off, or the "
            "port's markers are not rtb_board_marker's words): its figures count QEMU's "
            "icount clock, not cycles"
        )

    return withhold_runs(text, no_markers, code=WITHHELD)


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
        res.output = to_cycles(res.output, cyc, self.cycles_machine)
        res.runs = parse(res.output, source=f"qemu-cycles:{Path(elf).name}")
        return res

    def describe(self) -> dict[str, object]:
        m = self.cycles_machine
        return {**super().describe(), "timebase": "qemu_cycles", "cycles_core": m.core_name,
                "cycles_model": LABEL}  # fmt: skip
