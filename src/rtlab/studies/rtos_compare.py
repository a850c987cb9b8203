"""RTOSes side by side: the STM32 study's table (rows = primitives, columns = RTOS ×
board) and the RP2040 study's Thread-Metric and heap figures, from several rtbench
invocations (one per RTOS × machine × configuration).

    cmp = compare([("freertos-cm3@idle", runs), ("zephyr-cm3@idle", runs2)])
    print(markdown(cmp))

A column is one invocation, named by what its runs say of themselves (`rtos`,
`rtos_version`, `qemu_machine` or `board`, `rtos_config`). Under QEMU icount a figure is
the mean guest-instruction count of a path (an instruction-count model, not time; the
mean because the counter's 40-instruction tick is coarser than the paths), else the
median in µs.
A figure a port does not give is None ("–"), and where a port says why (a `warn` of its
runs), the column's notes carry that sentence; nothing is filled in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from rtlab.protocol import Run
from rtlab.studies import rtbench

TITLES = {"freertos": "FreeRTOS", "zephyr": "Zephyr", "nuttx": "NuttX", "ucos3": "µC/OS-III"}
CORES = {"mps2-an385": "M3", "mps2-an386": "M4F", "mps2-an500": "M7", "microbit": "M0"}
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
    settings: tuple[tuple[str, str], ...] = ()  # the configuration that matters (kconfig)
    codes: frozenset[str] = frozenset()  # the runs' warning codes

    def label(self, with_config: bool) -> str:
        core = CORES.get(self.machine, self.machine)
        name = f"{TITLES.get(self.rtos, self.rtos or '?')} {self.version}".strip()
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
    settings: Mapping[str, object] = target.get("kconfig") or {}  # type: ignore[assignment]
    # the build's record of the version (a checkout's commit) beats a firmware's placeholder
    version = str(target.get("rtos_version") or meta.get("rtos_version", ""))
    warns = sorted({f"{code}: {msg}" for r in runs for code, msg in r.warnings})
    return Column(
        cell=cell,
        rtos=meta.get("rtos", ""),
        version=version,
        machine=meta.get("qemu_machine", meta.get("board", "")),
        config=meta.get("rtos_config", "default"),
        icount=meta.get("timebase") == "icount",
        notes=tuple(w for w in warns if not w.startswith("icount_model")),
        settings=tuple((str(k), str(v)) for k, v in sorted(settings.items())),
        codes=frozenset(code for r in runs for code, _ in r.warnings),
    )


def _figures(runs: Sequence[Run], icount: bool) -> dict[str, float]:
    """Per primitive: under icount the mean instruction count, else the median µs."""
    out: dict[str, float] = {}
    for scen in ("primitives", "irq"):
        found = rtbench.scenario_runs(runs, scen)
        if not found:
            continue
        run = found[-1]
        for row in rtbench.primitive_table(run):
            if not icount:
                out[row.name] = row.median_us
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


def _cold_how(cmp: Comparison, icount: bool) -> str:
    """On silicon, what each column emptied before its cold sample (the same for all or not)."""
    if icount or cmp.cold_how <= {"first_call"}:
        return ""
    means = rtbench.COLD_MEANINGS
    how = sorted(means.get(h, h).removeprefix("the first call ") for h in cmp.cold_how)
    return f" ({'; '.join(how)})" if len(how) == 1 else f" (not alike: {'; '.join(how)})"


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
    if len({runs[0].meta.get("timebase") for _, runs in found}) > 1:
        # instruction counts and host times are no columns of one table: the icount ones
        found = [(c, runs) for c, runs in found if runs[0].meta.get("timebase") == "icount"]
    if len(found) < 2:
        return None
    found.sort(key=lambda cr: (cr[1][0].meta.get("qemu_machine", ""), cr[0]))
    columns = [_column(cell, runs, (targets or {}).get(cell, {})) for cell, runs in found]
    icount = all(c.icount for c in columns)
    medians = [_figures(runs, icount) for _, runs in found]
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
    ticks = _ticks(found) if icount else {}
    cmp = Comparison(columns, prims, tm, heap, unit, max(ticks.values(), default=None), ticks=ticks)
    colds = [_cold_figures(runs, icount) for _, runs in found]
    cmp.cold = {
        label: [c.get(name) for c in colds]
        for name, label in {**rtbench.PRIMITIVES, **rtbench.IRQ}.items()
        if any(name in c for c in colds)
    }
    cmp.cold_how = {r.meta.get("cold", "first_call") for _, runs in found for r in runs}
    if icount:
        rates = {_instr_hz(runs[0]) for _, runs in found}
        cmp.us_per_instruction = 1e6 / rates.pop() if len(rates) == 1 else None
    cmp.reference, cmp.tm_relative = _relative_threadmetric(columns, tm)
    cmp.findings = _findings(cmp, medians)
    return cmp


def _relative_threadmetric(
    columns: Sequence[Column], tm: Mapping[str, Sequence[float | None]]
) -> tuple[str, dict[str, list[float | None]]]:
    """Thread-Metric as % of a reference RTOS on the same machine (FreeRTOS when brought,
    else the first by name), in the same configuration where it has one, else its default
    — the RP2040 study's bars, one reference per machine."""
    rtoses = sorted({c.rtos for c in columns})
    if len(rtoses) < 2 or not tm:
        return "", {}
    ref = "freertos" if "freertos" in rtoses else rtoses[0]

    def ref_index(c: Column) -> int | None:
        same = [i for i, r in enumerate(columns) if r.rtos == ref and r.machine == c.machine]
        exact = [i for i in same if columns[i].config == c.config]
        return (exact or same or [None])[0]

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


def _fmt(x: float | None, icount: bool, us_per: float | None = None) -> str:
    """Instructions (with their µs-equivalent on the model's clock) or µs."""
    if x is None:
        return "–"
    if not icount:
        return f"{x:,.3f}"
    return f"{x:,.0f}" + (f" ({x * us_per:,.3f} µs)" if us_per else "")


def _findings(cmp: Comparison, medians: list[dict[str, float]]) -> list[str]:
    out = []
    icount = cmp.unit.startswith("instructions")
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
                + f" {_fmt(v, icount)}"
                + "".join(
                    f" [{why}]" for code, why in other.items() if code in cmp.columns[i].codes
                )
                for v, i in have
            )
            tick = cmp.ticks.get(machine)
            if tick and have[-1][0] - have[0][0] < tick:
                figs += f" (all within one counter tick, {tick:g} instructions: not resolved)"
            elif tick and have[1][0] - have[0][0] < tick:
                figs += f" (the first two within one counter tick, {tick:g} instructions)"
            parts.append(f"{labels[name].lower()}: {figs}")
        if parts:
            core = CORES.get(machine, machine)
            out.append(
                f"RTOSes on {machine} ({core}), {cmp.unit}, cheapest first — "
                + "; ".join(parts)
                + "."
            )
    return out


def formatted_tables(cmp: Comparison) -> list[tuple[str, str, dict[str, list[str]]]]:
    """(title, what a row is, {row label: one formatted figure per column}), non-empty."""
    icount = cmp.unit.startswith("instructions")

    def count(v: float | None) -> str:
        return "–" if v is None else f"{v:,.0f}"

    def pct(v: float | None) -> str:
        return "–" if v is None else f"{v:.0f} %"

    us = cmp.us_per_instruction
    clock = f"; µs on the model's clock, {1 / us:,.0f} instructions per µs" if us else ""
    tm_title = "Thread-Metric, one core (iterations per second" + (
        " of the icount model)" if icount else ")"
    )
    tick = ""
    if cmp.ticks:
        each = sorted({f"{t:g}" for t in cmp.ticks.values()}, key=float)
        on = ", ".join(f"{t:g} on {m}" for m, t in cmp.ticks.items()) if len(each) > 1 else each[0]
        tick = f", ± one counter tick ({on} instructions)"
    tables = [
        (
            f"Primitives, warm: {cmp.unit}{clock}",
            "primitive",
            {k: [_fmt(v, icount, us) for v in vs] for k, vs in cmp.primitives.items()},
        ),
        (
            f"Primitives, cold: the first call of each path, one sample{tick}"
            + (" (QEMU models no cache: cold − warm is first-call work only)" if icount else "")
            + _cold_how(cmp, icount),
            "primitive",
            {k: [_fmt(v, icount, us) for v in vs] for k, vs in cmp.cold.items()},
        ),
        (tm_title, "test", {k: [count(v) for v in vs] for k, vs in cmp.threadmetric.items()}),
        (
            f"Thread-Metric relative to {TITLES.get(cmp.reference, cmp.reference)} on the "
            "same machine (%)",
            "test",
            {k: [pct(v) for v in vs] for k, vs in cmp.tm_relative.items()},
        ),
        (
            "Heap peak (bytes)",
            "where",
            {k: [count(v) for v in vs] for k, vs in cmp.heap.items()},
        ),
    ]
    return [t for t in tables if t[2]]


def markdown(cmp: Comparison) -> str:
    """The tables one machine at a time (its columns: RTOS × configuration), then the
    ports' notes, the configurations and the cells."""
    head = [c.label(cmp.with_config) for c in cmp.columns]
    lines: list[str] = []
    for machine in dict.fromkeys(c.machine for c in cmp.columns):
        idx = [i for i, c in enumerate(cmp.columns) if c.machine == machine]
        where = f"{machine} ({CORES.get(machine, machine)})"
        for title, what, rows in formatted_tables(cmp):
            mine = {k: [vs[i] for i in idx] for k, vs in rows.items()}
            mine = {k: vs for k, vs in mine.items() if any(v != "–" for v in vs)}
            if not mine:
                continue
            cols = " | ".join(head[i] for i in idx)
            lines += [f"### {title} — {where}", "", f"| {what} | {cols} |"]
            lines.append("| --- |" + " ---: |" * len(idx))
            lines += [f"| {k} | " + " | ".join(vs) + " |" for k, vs in mine.items()]
            lines.append("")
    notes = [(head[i], n) for i, c in enumerate(cmp.columns) for n in c.notes]
    if notes:
        lines += ["What a port says of its figures:", ""]
        lines += [f"- **{label}**: {n}" for label, n in notes]
        lines.append("")
    configured = [(head[i], c.settings) for i, c in enumerate(cmp.columns) if c.settings]
    if configured:
        lines += ["Configuration of each column (what its target recorded):", ""]
        lines += [f"- **{h}**: " + ", ".join(f"`{k}={v}`" for k, v in kv) for h, kv in configured]
        lines.append("")
    cells = ", ".join(f"{head[i]} = `{c.cell}`" for i, c in enumerate(cmp.columns))
    lines += [f"Columns: {cells}.", ""]
    return "\n".join(lines)


def to_dict(cmp: Comparison) -> dict[str, object]:
    head = [c.label(cmp.with_config) for c in cmp.columns]
    return {
        "unit": cmp.unit,
        "columns": [
            {
                "label": h,
                "cell": c.cell,
                "rtos": c.rtos,
                "rtos_version": c.version,
                "machine": c.machine,
                "rtos_config": c.config,
                "notes": list(c.notes),
            }
            for h, c in zip(head, cmp.columns, strict=True)
        ],
        "primitives": cmp.primitives,
        "primitives_cold": cmp.cold,
        "us_per_instruction": cmp.us_per_instruction,
        "threadmetric": cmp.threadmetric,
        "threadmetric_reference": cmp.reference,
        "threadmetric_relative_percent": cmp.tm_relative,
        "heap_peak": cmp.heap,
        "findings": cmp.findings,
    }


def path_figures(runs: Sequence[Run]) -> tuple[Figures, Figures, bool, float | None]:
    """One column of compare() for one invocation: warm and cold figure per primitive,
    icount or not, and the counter tick in instructions (reproduction_rtbench)."""
    icount = bool(runs) and runs[0].meta.get("timebase") == "icount"
    tick = max(_ticks([("", runs)]).values(), default=None) if icount else None
    return _figures(runs, icount), _cold_figures(runs, icount), icount, tick
