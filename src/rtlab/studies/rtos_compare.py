"""RTOSes side by side: the STM32 study's table (rows = primitives, columns = RTOS ×
board) and the RP2040 study's Thread-Metric and heap figures, from several rtbench
invocations (one per RTOS × machine × configuration).

    cmp = compare([("freertos-cm3@idle", runs), ("zephyr-cm3@idle", runs2)])
    print(markdown(cmp))

A column is one invocation, named by what its runs say of themselves (`rtos`,
`rtos_version`, `qemu_machine` or `board`, `rtos_config`). Under QEMU icount a figure is
the mean guest-instruction count of a path (an instruction-count model, not time; the
mean because the counter's 40-instruction tick is coarser than the paths); on the RP2040
cycle model (`timebase = rp2040_model`, the model's machine file) the median in core
cycles (a cycle model of rp2040js, not silicon; µs at the board's clock beside it);
else the median in µs.
A figure a port does not give is None ("–"), and where a port says why (a `warn` of its
runs), the column's notes carry that sentence; nothing is filled in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from rtlab.catalog.emulation import QEMU_CYCLES as LABEL
from rtlab.catalog.machines import core_labels, model_of
from rtlab.catalog.rtoses import default_rtos, shown_version
from rtlab.catalog.rtoses import title as rtos_title
from rtlab.protocol import Run
from rtlab.studies import rtbench

# machine -> its column's core: the machine files' `core_label` (a model's file too)
CORES = core_labels()
MODEL = "rp2040_model"  # the timebase of a run on the RP2040 cycle model
MODEL_UNIT = "cycles, median (RP2040 cycle model: rp2040js, not silicon)"
QEMU_CYCLES = "qemu_cycles"  # the timebase of a run through the QEMU cycles plugin
QEMU_CYCLES_UNIT = f"cycles, median ({LABEL})"
# The primitives a finding names: the STM32 study's headline rows.
HEADLINES = ("sem_give", "preempt_sem", "isr_task")
# A port's warning code that means a row measures another path (the finding says so).
Figures = dict[str, float]  # primitive -> figure
OTHER_PATH = {
    "isr_task": {"swi_is_thread": "a signal-woken thread, not an interrupt"},
    "isr_handler": {"swi_is_thread": "a signal-woken thread, not an interrupt"},
}


@dataclass(frozen=True)
class Column:
    cell: str  # the store's cell label
    rtos: str
    version: str
    machine: str
    config: str
    icount: bool
    notes: tuple[str, ...] = ()
    model: bool = False  # the RP2040 cycle model: figures in cycles
    qemu_cycles: bool = False  # QEMU through the cycles plugin: figures in cycles
    settings: tuple[tuple[str, str], ...] = ()  # the configuration that matters (kconfig)
    codes: frozenset[str] = frozenset()  # the runs' warning codes

    def label(self, with_config: bool) -> str:
        core = CORES.get(self.machine, self.machine)
        name = f"{rtos_title(self.rtos) or '?'} {self.version}".strip()
        return f"{name} · {core}" + (f" · {self.config}" if with_config else "")


@dataclass
class Comparison:
    columns: list[Column]
    primitives: dict[str, list[float | None]]  # row label -> one figure per column (warm)
    threadmetric: dict[str, list[float | None]]  # per second, one core
    heap: dict[str, list[int | None]]
    unit: str
    resolution: float | None = None  # the coarsest counter tick, in instructions (icount)
    findings: list[str] = field(default_factory=list)
    cold: dict[str, list[float | None]] = field(default_factory=dict)  # the first call
    us_per_instruction: float | None = None  # icount: the model's clock (2^shift ns)
    ticks: dict[str, float] = field(default_factory=dict)  # machine -> its counter tick
    reference: str = ""  # the RTOS Thread-Metric is normalized to
    tm_relative: dict[str, list[float | None]] = field(default_factory=dict)  # % of it
    cold_how: set[str] = field(default_factory=set)  # the runs' meta cold

    @property
    def with_config(self) -> bool:
        return len({c.config for c in self.columns}) > 1


def _column(cell: str, runs: Sequence[Run], target: Mapping[str, object]) -> Column:
    meta = runs[0].meta
    kconfig = target.get("kconfig")
    settings: Mapping[str, object] = kconfig if isinstance(kconfig, Mapping) else {}
    # the build's record of the version (a checkout's commit) beats a firmware's placeholder
    version = shown_version(str(target.get("rtos_version") or ""), meta.get("rtos_version", ""))
    warns = sorted({f"{code}: {msg}" for r in runs for code, msg in r.warnings})
    model = meta.get("timebase") == MODEL
    on_model = model_of(meta)
    return Column(
        cell=cell,
        rtos=meta.get("rtos", ""),
        version=version,
        machine=on_model.name if on_model else meta.get("qemu_machine", meta.get("board", "")),
        config=meta.get("rtos_config", "default"),
        icount=meta.get("timebase") == "icount",
        model=model,
        qemu_cycles=meta.get("timebase") == QEMU_CYCLES,
        notes=tuple(w for w in warns if not w.startswith("icount_model")),
        settings=tuple((str(k), str(v)) for k, v in sorted(settings.items())),
        codes=frozenset(code for r in runs for code, _ in r.warnings),
    )


def _figures(runs: Sequence[Run], icount: bool, model: bool = False) -> dict[str, float]:
    """Per primitive: under icount the mean instruction count, on the cycle model the
    median in cycles (at the run's cpu_hz), else the median µs."""
    out: dict[str, float] = {}
    for scen in ("primitives", "irq"):
        found = rtbench.scenario_runs(runs, scen)
        if not found:
            continue
        run = found[-1]
        for row in rtbench.primitive_table(run):
            if not icount:
                out[row.name] = row.median_us * 1e-6 * _instr_hz(run) if model else row.median_us
                continue
            # 1 instruction = 1 ns; the counter ticks every 40 of them, and a path's start
            # drifts against that grid from one iteration to the next, so the mean of
            # many iterations resolves the count below one tick where a median cannot.
            s = run.series[row.name]
            mean_ticks = Fraction(int(s.values.sum()), int(s.values.size))
            out[row.name] = float(mean_ticks * (s.tick_s or 0) * _instr_hz(run))
    return out


def _cold_figures(runs: Sequence[Run], icount: bool) -> dict[str, float]:
    """Per primitive, its first (cold) call: rtbench's `NAME.cold` counter, one sample."""
    out: dict[str, float] = {}
    for scen in ("primitives", "irq"):
        for run in rtbench.scenario_runs(runs, scen)[-1:]:
            for row in rtbench.primitive_table(run):
                if row.cold_us is not None:
                    out[row.name] = row.cold_us * 1e-6 * _instr_hz(run) if icount else row.cold_us
    return out


def _instr_hz(run: Run) -> int:
    """Guest instructions per second of icount time: 10^9 >> shift (the run's cpu_hz)."""
    return int(run.meta.get("cpu_hz") or 10**9 >> int(run.meta.get("icount_shift", 0)))


def _ticks(found: Sequence[tuple[str, Sequence[Run]]]) -> dict[str, float]:
    """Per machine, the coarsest counter tick of its columns, in instructions (icount:
    40 on mps2's 25 MHz timer, 62.5 on the microbit's 16 MHz one)."""
    out: dict[str, float] = {}
    for _, runs in found:
        for r in rtbench.scenario_runs(runs, "primitives")[-1:]:
            for s in list(r.series.values())[:1]:
                if s.tick_s is not None:
                    m = r.meta.get("qemu_machine", r.meta.get("board", ""))
                    out[m] = max(out.get(m, 0.0), float(s.tick_s * _instr_hz(r)))
    return out


def compare(
    invocations: Sequence[tuple[str, Sequence[Run]]],
    targets: Mapping[str, Mapping[str, object]] | None = None,
) -> Comparison | None:
    """None unless two or more invocations name an RTOS (one is no comparison).
    `targets`: per cell, what its target recorded (rtos_version, kconfig)."""
    found = [(cell, runs) for cell, runs in invocations if runs and runs[0].meta.get("rtos")]
    bases = {runs[0].meta.get("timebase") for _, runs in found}
    if len(bases) > 1:
        # instruction counts, cycles and host times are no columns of one table: the
        # icount ones, else the cycle model's
        keep = "icount" if "icount" in bases else MODEL
        found = [(c, runs) for c, runs in found if runs[0].meta.get("timebase") == keep]
    if len(found) < 2:
        return None
    found.sort(key=lambda cr: (cr[1][0].meta.get("qemu_machine", ""), cr[0]))
    columns = [_column(cell, runs, (targets or {}).get(cell, {})) for cell, runs in found]
    icount = all(c.icount for c in columns)
    model = all(c.model for c in columns)
    qcycles = all(c.qemu_cycles for c in columns)
    counted = icount or model or qcycles  # figures are counts (instructions, cycles) at cpu_hz
    medians = [_figures(runs, icount, model or qcycles) for _, runs in found]
    prims = {
        label: [m.get(name) for m in medians]
        for name, label in {**rtbench.PRIMITIVES, **rtbench.IRQ}.items()
        if any(name in m for m in medians)
    }
    tm: dict[str, list[float | None]] = {}
    for t, label in rtbench.TM_LABELS.items():
        row: list[float | None] = []
        for _, runs in found:
            counts = rtbench.threadmetric_counts(runs).get(1, {}) if _has_tm(runs) else {}
            row.append(counts[t].per_second if t in counts else None)
        if any(v is not None for v in row):
            tm[label] = row
    peaks = [rtbench.heap_peaks(runs) for _, runs in found]
    heap = {k: [p.get(k) for p in peaks] for k in dict.fromkeys(k for p in peaks for k in p)}
    unit = "instructions, mean (QEMU icount model)" if icount else "µs, median"
    unit = MODEL_UNIT if model else QEMU_CYCLES_UNIT if qcycles else unit
    ticks = _ticks(found) if counted else {}
    cmp = Comparison(columns, prims, tm, heap, unit, max(ticks.values(), default=None), ticks=ticks)
    colds = [_cold_figures(runs, counted) for _, runs in found]
    cmp.cold = {
        label: [c.get(name) for c in colds]
        for name, label in {**rtbench.PRIMITIVES, **rtbench.IRQ}.items()
        if any(name in c for c in colds)
    }
    cmp.cold_how = {r.meta.get("cold", "first_call") for _, runs in found for r in runs}
    if counted:
        rates = {_instr_hz(runs[0]) for _, runs in found}
        cmp.us_per_instruction = 1e6 / rates.pop() if len(rates) == 1 else None
    cmp.reference, cmp.tm_relative = _relative_threadmetric(columns, tm)
    cmp.findings = _findings(cmp, medians)
    if model:
        cmp.findings.append(_model_says(found[0][1][0]))
    if qcycles:
        cmp.findings.append(_qemu_cycles_says(found[0][1][0]))
    return cmp


def _qemu_cycles_says(run: Run) -> str:
    """The QEMU cycles plugin's caveat, from what its runs recorded."""
    hz = _instr_hz(run)
    return (
        f"Every figure here is {LABEL}: each marked path's marker pulse in cycles of the "
        f"core's timing table, µs at the study's clock ({hz / 1e6:g} MHz); the tables "
        f"approximate: {run.meta.get('cycles_approximations', '')}."
    )


def _model_says(run: Run) -> str:
    """The cycle model's own caveat, from what its runs recorded (the flasher's meta)."""
    timing = run.meta.get("timing", "cycle model (rp2040js), not silicon")
    leaves = run.meta.get("model_leaves_out", "")
    hz = _instr_hz(run)
    return (
        f"Every figure on the RP2040 model is a {timing}: cycles of rp2040js's Cortex-M0+ "
        f"with rtlab's corrections, and µs at the board's clock ({hz / 1e6:g} MHz); "
        f"the model leaves out {leaves or 'what docs/rp2040-model.md lists'}."
    )


def _relative_threadmetric(
    columns: Sequence[Column], tm: Mapping[str, Sequence[float | None]]
) -> tuple[str, dict[str, list[float | None]]]:
    """Thread-Metric as % of a reference RTOS on the same machine (the default port,
    FreeRTOS, when brought, else the first by name), in the same configuration where it
    has one, else its default — the RP2040 study's bars, one reference per machine."""
    rtoses = sorted({c.rtos for c in columns})
    if len(rtoses) < 2 or not tm:
        return "", {}
    ref = default_rtos() if default_rtos() in rtoses else rtoses[0]

    def ref_index(c: Column) -> int | None:
        same = [i for i, r in enumerate(columns) if r.rtos == ref and r.machine == c.machine]
        exact = [i for i in same if columns[i].config == c.config]
        found = exact or same
        return found[0] if found else None

    out: dict[str, list[float | None]] = {}
    for test, values in tm.items():
        row: list[float | None] = []
        for c, v in zip(columns, values, strict=True):
            j = ref_index(c)
            base = values[j] if j is not None else None
            row.append(100.0 * v / base if v is not None and base else None)
        out[test] = row
    return ref, out


def _has_tm(runs: Sequence[Run]) -> bool:
    return bool(rtbench.scenario_runs(runs, "threadmetric"))


def figure_text(x: float | None, icount: bool, us_per: float | None = None) -> str:
    """Instructions (with their µs-equivalent on the model's clock) or µs."""
    if x is None:
        return "–"
    if not icount:
        return f"{x:,.3f}"
    return f"{x:,.0f}" + (f" ({x * us_per:,.3f} µs)" if us_per else "")


def _findings(cmp: Comparison, medians: list[dict[str, float]]) -> list[str]:
    out = []
    word = next((w for w in ("instructions", "cycles") if cmp.unit.startswith(w)), "")
    icount = bool(word)  # figures are counts: formatted as such
    labels = {**rtbench.PRIMITIVES, **rtbench.IRQ}
    for machine in dict.fromkeys(c.machine for c in cmp.columns):
        idx = [i for i, c in enumerate(cmp.columns) if c.machine == machine]
        if len(idx) < 2:
            continue
        parts = []
        for name in HEADLINES:
            have = sorted((medians[i][name], i) for i in idx if name in medians[i])
            if len(have) < 2:
                continue
            other = OTHER_PATH.get(name, {})
            figs = ", ".join(
                f"{cmp.columns[i].label(cmp.with_config).split(' · ')[0]}"
                + (f" ({cmp.columns[i].config})" if cmp.with_config else "")
                + f" {figure_text(v, icount)}"
                + "".join(
                    f" [{why}]" for code, why in other.items() if code in cmp.columns[i].codes
                )
                for v, i in have
            )
            tick = cmp.ticks.get(machine)
            if tick and have[-1][0] - have[0][0] < tick:
                figs += f" (all within one counter tick, {tick:g} {word}: not resolved)"
            elif tick and have[1][0] - have[0][0] < tick:
                figs += f" (the first two within one counter tick, {tick:g} {word})"
            parts.append(f"{labels[name].lower()}: {figs}")
        if parts:
            core = CORES.get(machine, machine)
            out.append(
                f"RTOSes on {machine} ({core}), {cmp.unit}, cheapest first — "
                + "; ".join(parts)
                + "."
            )
    return out


def path_figures(runs: Sequence[Run]) -> tuple[Figures, Figures, bool, float | None]:
    """One column of compare() for one invocation: warm and cold figure per primitive,
    icount or not, and the counter tick in instructions (reproduction_rtbench)."""
    icount = bool(runs) and runs[0].meta.get("timebase") == "icount"
    tick = max(_ticks([("", runs)]).values(), default=None) if icount else None
    return _figures(runs, icount), _cold_figures(runs, icount), icount, tick
