"""Multi-core figures of one rtbench cell across its repetitions (the RP2040 study's
section 4.4: Thread-Metric on 1 vs N cores, scalability P1–P6 normalized to one core,
contention 0–70 %), with the timing mode they were taken in and what it allows.

    figs = figures([multirun.split(store, rid) for rid in cell.ok_ids])
    figs.scaling["p1"][2]          # Interval: mean %, 95 % CI over the repetitions
    figs.withheld                  # {"scalability@2": "QEMU icount runs … in turns …"}
    figs.setting.violations        # parallel TCG on a host without an idle CPU per vCPU

A repetition is the parts of one stored rtbench run (rtlab.results.multirun.split). A
part withheld by the target (meta `withheld=…`, rtlab.lab.qemu.timing) has no figure:
its reason is kept instead. Intervals are Student-t 95 % intervals of the mean over the
repetitions; one repetition has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rtlab.analysis.runchange import MeanInterval, mean_interval
from rtlab.catalog.machines import timing_modes
from rtlab.catalog.rtoses import shown_version
from rtlab.catalog.rtoses import title as rtos_title
from rtlab.catalog.study_errors import RtbenchError
from rtlab.protocol import Run
from rtlab.results import Store, multirun
from rtlab.results import query as results
from rtlab.studies import memo, rtbench
from rtlab.words import plural

# meta timing_mode -> what it is: QEMU's and the host's, and each machine model's (its
# machine file's `timing_mode` and `timing`)
MODES = {
    "icount": "QEMU icount (deterministic instruction-count model)",
    "parallel-tcg": "QEMU parallel TCG (host threads, host time)",
    "host": "host time",
    **timing_modes(),
}


Interval = MeanInterval  # mean %, ± half of the 95 % interval over the repetitions


@dataclass
class Setting:
    """Where and how the cell's runs were taken."""

    rtos: str
    rtos_version: str
    board: str
    mode: str  # icount | parallel-tcg | host
    cores_online: int
    host_cpus: int | None = None
    host_loads: list[float] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    @property
    def mode_text(self) -> str:
        return MODES.get(self.mode, self.mode)


@dataclass
class MulticoreFigures:
    setting: Setting
    repetitions: int
    tm: dict[str, dict[int, Interval]]  # test -> cores -> iterations per second
    scaling: dict[str, dict[int, Interval]]  # pattern -> cores -> % of one core, per core
    contention: dict[int, Interval]  # stress level % -> target throughput % of level 0
    contention_cores: int
    withheld: dict[str, str]  # "scenario@cores" -> why there is no figure
    notes: list[str] = field(default_factory=list)


def _setting(parts: Sequence[Run], recorded_version: str) -> Setting:
    meta = parts[0].meta
    mode = meta.get("timing_mode") or ("icount" if meta.get("timebase") == "icount" else "host")
    cpus = meta.get("host_cpus")
    return Setting(
        rtos=meta.get("rtos", "") or meta.get("port", ""),
        rtos_version=shown_version(recorded_version, meta.get("rtos_version", "")),
        board=meta.get("qemu_machine") or meta.get("board", ""),
        mode=mode,
        cores_online=int(meta.get("cores_online", 1)),
        host_cpus=int(cpus) if cpus else None,
    )


def _check_host(s: Setting, reps: Sequence[Sequence[Run]]) -> None:
    """Parallel TCG is meaningful only with an idle host CPU per guest core."""
    guest = max(int(p.meta.get("qemu_cores", 1)) for parts in reps for p in parts)
    for parts in reps:
        load = parts[0].meta.get("host_load1")
        if load is not None:
            s.host_loads.append(float(load))
    if s.mode != "parallel-tcg" or s.host_cpus is None:
        return
    if s.host_cpus < guest:
        s.violations.append(f"the host has {s.host_cpus} CPUs for {guest} guest cores")
    worst = max(s.host_loads, default=0.0)
    if s.host_cpus - worst < guest:
        s.violations.append(
            f"the host's 1-minute load reached {worst:.2f} on {s.host_cpus} CPUs: "
            f"{max(0.0, s.host_cpus - worst):.2f} idle for {guest} guest cores"
        )


def _withheld(parts: Sequence[Run]) -> dict[str, str]:
    out = {}
    for p in parts:
        code = p.meta.get("withheld")
        if code:
            out[f"{p.meta.get('scenario', '?')}@{p.meta.get('cores', '?')}"] = rtbench.withheld_why(
                p
            )
    return out


def _collect(per_rep: list[dict[str, dict[int, float]]]) -> dict[str, dict[int, Interval]]:
    keys = {k: None for rep in per_rep for k in rep}
    out: dict[str, dict[int, Interval]] = {}
    for k in keys:
        cores = sorted({c for rep in per_rep for c in rep.get(k, {})})
        row = {
            c: iv
            for c in cores
            if (iv := mean_interval([r[k][c] for r in per_rep if c in r.get(k, {})]))
        }
        if row:
            out[k] = row
    return out


def figures(reps: Sequence[Sequence[Run]], recorded_version: str = "") -> MulticoreFigures | None:
    """None when no repetition has a multi-core part (figure or withheld);
    `recorded_version`: the kernel version the build recorded (the target's), which beats
    the firmware's own (NuttX's images say 0.0.0)."""
    reps = [list(p) for p in reps if p]
    multi = any(
        int(p.meta.get("cores", 1)) > 1 or p.meta.get("withheld") for parts in reps for p in parts
    )
    if not reps or not multi:
        return None
    setting = _setting(reps[-1], recorded_version)
    _check_host(setting, reps)
    withheld: dict[str, str] = {}
    tm, sc, ct = [], [], []
    notes: list[str] = []
    ct_cores = 1
    for parts in reps:
        withheld.update(_withheld(parts))
        if rtbench.scenario_runs(parts, "threadmetric"):
            counts = rtbench.threadmetric_counts(parts)
            tm.append(
                {
                    t: {c: v[t].per_second for c, v in counts.items() if t in v}
                    for t in rtbench.TM_TESTS
                }
            )
        if rtbench.scenario_runs(parts, "scalability"):
            try:
                sc.append(rtbench.scalability(parts))
            except RtbenchError as exc:
                notes.append(str(exc))
        for run in rtbench.scenario_runs(parts, "contention"):
            if run.meta.get("withheld"):
                continue
            ct_cores = int(run.meta.get("cores", 1))
            try:
                ct.append({"c": rtbench.contention(run)})
            except RtbenchError as exc:
                notes.append(str(exc))
    return MulticoreFigures(
        setting=setting,
        repetitions=len(reps),
        tm=_collect(tm),
        scaling=_collect(sc),
        contention=_collect(ct).get("c", {}),
        contention_cores=ct_cores,
        withheld=withheld,
        notes=sorted(set(notes)),
    )


def markdown(label: str, f: MulticoreFigures) -> str:
    """The cell's multi-core tables (mean ± 95 % CI over the repetitions)."""
    s = f.setting
    rtos = f"{s.rtos} {s.rtos_version}".strip()
    out = [f"### {label}: {rtos} on {s.board}, {plural(s.cores_online, 'core')}", ""]
    host = ""
    if s.host_cpus is not None:
        loads = ", ".join(f"{x:.2f}" for x in s.host_loads)
        host = f"; host {s.host_cpus} CPUs, 1-minute load at each start {loads}"
    out += [f"Timing: {s.mode_text}; {plural(f.repetitions, 'repetition')}{host}.", ""]
    out += [f"- **host too busy for parallel TCG:** {v}" for v in s.violations]
    out += [
        f"- **{k.replace('@', ' on ')} cores: unsupported on icount** — {v}"
        for k, v in f.withheld.items()
    ]
    out += [f"- {n}" for n in f.notes]
    if s.violations or f.withheld or f.notes:
        out.append("")
    tables = (
        ("Thread-Metric (iterations per second)", "test", f.tm, rtbench.TM_LABELS, "{:.0f}"),
        (
            "Scalability (per core, one core = 100 %)",
            "pattern",
            f.scaling,
            rtbench.PATTERNS,
            "{:.1f}",
        ),
    )
    for title, what, data, labels, fmt in tables:
        if not data:
            continue
        cores = sorted({c for row in data.values() for c in row})
        out += [
            f"#### {title}",
            "",
            f"| {what} | " + " | ".join(plural(c, "core") for c in cores) + " |",
        ]
        out.append("| --- |" + " ---: |" * len(cores))
        for key, row in data.items():
            cells = [row[c].text(fmt) if c in row else "–" for c in cores]
            out.append(f"| {labels.get(key, key)} | " + " | ".join(cells) + " |")
        out.append("")
    if f.contention:
        out += [f"#### Contention ({plural(f.contention_cores, 'core')}; level 0 % = 100 %)", ""]
        out += ["| stress % | throughput % |", "| ---: | ---: |"]
        out += [f"| {lv} | {iv.text()} |" for lv, iv in f.contention.items()]
        out.append("")
    return "\n".join(out)


def side_by_side(multi: Sequence[tuple[str, MulticoreFigures]]) -> str:
    """The RTOSes' multi-core figures in one table each, the RP2040 study's way (Figs.
    16–18: every RTOS beside the others), for the cells taken on one board in one timing
    mode; "" when fewer than two such cells. Means over each cell's repetitions."""
    groups: dict[tuple[str, str], list[tuple[str, MulticoreFigures]]] = {}
    for label, f in multi:
        groups.setdefault((f.setting.board, f.setting.mode), []).append((label, f))
    out: list[str] = []
    for (board, mode), cells in groups.items():
        if len(cells) < 2:
            continue
        names = [_title(f.setting) for _, f in cells]
        figs = [f for _, f in cells]
        out += [f"### Side by side on {board}: {MODES.get(mode, mode)}", ""]
        out += _tm_side(names, figs) + _scaling_side(names, figs) + _contention_side(names, figs)
    return "\n".join(out)


def _title(s: Setting) -> str:
    name = rtos_title(s.rtos)
    return name if s.rtos_version.startswith("unknown") else f"{name} {s.rtos_version}".strip()


def _row(label: str, vals: Sequence[Interval | None], fmt: str) -> str:
    return f"| {label} | " + " | ".join(v.text(fmt) if v else "–" for v in vals) + " |"


def _tm_side(names: Sequence[str], figs: Sequence[MulticoreFigures]) -> list[str]:
    tests = [t for t in rtbench.TM_TESTS if any(t in f.tm for f in figs)]
    if not tests:
        return []
    head = [f"{n}, {plural(c, 'core')}" for n in names for c in (1, 2)]
    head += [f"{n}, 2 ÷ 1" for n in names]
    out = ["#### Thread-Metric T1–T8, 1 and 2 cores (iterations per second; 2 ÷ 1: the ratio)"]
    out += ["", "| test | " + " | ".join(head) + " |", "| --- |" + " ---: |" * len(head)]
    for t in tests:
        rows = [f.tm.get(t, {}) for f in figs]
        vals = [row.get(c) for row in rows for c in (1, 2)]
        ratios = [
            Interval(row[2].mean / row[1].mean, None, 1) if 1 in row and 2 in row and row[1].mean
            else None
            for row in rows
        ]  # fmt: skip
        cells = [v.text("{:.0f}") if v else "–" for v in vals]
        cells += [r.text("{:.3f}") if r else "–" for r in ratios]
        out.append(f"| {rtbench.TM_LABELS.get(t, t)} | " + " | ".join(cells) + " |")
    return [*out, ""]


def _scaling_side(names: Sequence[str], figs: Sequence[MulticoreFigures]) -> list[str]:
    patterns = list(dict.fromkeys(p for f in figs for p in f.scaling))
    if not patterns:
        return []
    out = ["#### Scalability P1–P6 (per core on 2 cores, % of one core)", ""]
    out += ["| pattern | " + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    for p in patterns:
        two = [f.scaling.get(p, {}).get(2) for f in figs]
        out.append(_row(rtbench.PATTERNS.get(p, p), two, "{:.1f}"))
    return [*out, ""]


def _contention_side(names: Sequence[str], figs: Sequence[MulticoreFigures]) -> list[str]:
    levels = sorted({lv for f in figs for lv in f.contention})
    if not levels:
        return []
    out = ["#### Contention 0–70 % (throughput of the target task, % of level 0)", ""]
    out += ["| stress % | " + " | ".join(names) + " |", "| ---: |" + " ---: |" * len(names)]
    out += [_row(str(lv), [f.contention.get(lv) for f in figs], "{:.1f}") for lv in levels]
    return [*out, ""]


@memo.per_report
def cell_figures(
    store: Store, cells: dict[str, results.CellRuns]
) -> list[tuple[str, MulticoreFigures]]:
    """(cell label, figures) for every rtbench cell of `cells` with a multi-core part."""
    out = []
    for cr in cells.values():
        if cr.workload == "rtbench" and cr.ok_ids:
            reps = [multirun.split(store, rid) for rid in cr.ok_ids]
            figs = figures(reps, str(cr.ok_target.get("rtos_version") or ""))
            if figs is not None:
                out.append((cr.label, figs))
    return out
