"""rtbench's section (rtlab.studies.rtbench): per invocation the primitives' table,
Thread-Metric, scalability, contention and heap charts, and a finding: the cheapest and
the dearest primitive."""

from __future__ import annotations

from typing import Any

from rtlab.catalog.study_errors import RtbenchError
from rtlab.chart import Chart
from rtlab.report.figures import bar, svg_uri
from rtlab.report.sections import Section, SectionKind
from rtlab.results import Store, multirun
from rtlab.results import query as results
from rtlab.studies import rtbench
from rtlab.words import plural


def rtbench_figures(runs: list[rtbench.Run]) -> dict[str, Any]:
    """Tables and charts of one rtbench invocation, as the studies presented them."""
    out: dict[str, Any] = {"tables": [], "charts": [], "notes": []}
    for scen in ("primitives", "irq"):
        found = rtbench.scenario_runs(runs, scen)
        if found:
            rows = rtbench.primitive_table(found[-1])
            hz = found[-1].meta.get("cpu_hz")
            note = rtbench.timebase_note(found[-1])
            title = f"{scen}: {note}" if note else scen
            out["tables"].append({"title": title, "cpu_hz": hz, "rows": rows, "note": note})
            cold = rtbench.cold_note(found[-1])
            if cold and cold not in out["notes"]:
                out["notes"].append(cold)
            out["charts"].append(
                bar(
                    [r.label for r in rows],
                    {"median": [r.median_us for r in rows]},
                    f"{scen}: median cost",
                    "µs-equivalent (icount model)" if note else "µs",
                    log=True,
                )
            )
    if rtbench.scenario_runs(runs, "threadmetric"):
        tm = rtbench.threadmetric_counts(runs)
        tests = [t for t in rtbench.TM_TESTS if any(t in v for v in tm.values())]
        groups = {
            plural(c, "core"): [tm[c][t].per_second if t in tm[c] else 0 for t in tests]
            for c in sorted(tm)
        }
        out["charts"].append(
            bar(
                [rtbench.TM_LABELS[t] for t in tests],
                groups,
                "Thread-Metric throughput",
                "iterations / s (log)",
                log=True,
            )
        )
    if rtbench.scenario_runs(runs, "scalability"):
        sc = rtbench.scalability(runs)
        cores = sorted({c for v in sc.values() for c in v})
        groups = {plural(c, "core"): [sc[p].get(c, 0) for p in sc] for c in cores}
        out["charts"].append(
            bar(
                [rtbench.PATTERNS[p] for p in sc],
                groups,
                "Scalability per core (single core = 100 %)",
                "%",
                ref=100,
            )
        )
    given = rtbench.last_given(runs, "contention")
    try:
        ct = rtbench.contention(given) if given else {}
    except RtbenchError as exc:  # not measurable on this configuration: say why
        out["notes"].append(str(exc))
        ct = {}
    if ct:
        ch = Chart(
            title="Contention",
            xlabel="stress task touches the semaphore [%]",
            ylabel="target throughput [% of 0 %]",
            size=(432, 252),
            font=10,
        )
        ch.line([float(x) for x in ct], [float(y) for y in ct.values()], marker="o")
        ch.hline(100)
        out["charts"].append(svg_uri(ch))
    peaks = rtbench.heap_peaks(runs)
    if peaks:
        out["charts"].append(
            bar(list(peaks), {"peak": [float(v) for v in peaks.values()]}, "Heap peak", "bytes")
        )
    return out


def _finding(label: str, table: dict[str, Any], per_run: list[dict[str, Any]]) -> str | None:
    """Cheapest and dearest primitive of the table shown (the last run's), with their
    run-to-run range over every ok run of the cell (`per_run`: each run's rows by
    scenario), so the sentence says what the runs column says (two runs, not "one")."""
    rows = table["rows"]
    if not rows:
        return None
    icount = bool(table["note"])
    # icount: 1 instruction = 1 ns; the mean, since the 40-instruction counter tick
    # rounds a short path's median to 0 or 40
    key = "mean_us" if icount else "median_us"

    def fig(us: float) -> str:
        return f"{us * 1000:,.0f} instructions" if icount else f"{us:,.3f} µs"

    lo = min(rows, key=lambda r: float(getattr(r, key)))
    hi = max(rows, key=lambda r: float(getattr(r, key)))
    scen = table["title"].split(":")[0]
    k = len(per_run)
    spans = []
    for row in (lo, hi):
        values = [
            float(getattr(r, key))
            for run in per_run
            for r in run.get(scen, [])
            if r.label == row.label
        ]
        spans.append((min(values, default=0.0), max(values, default=0.0)))
    if k < 2:
        ranges = "one run: no run-to-run range"
    elif all(a == b for a, b in spans):
        ranges = f"both the same in each of the {k} runs"
    else:
        (a, b), (c, d) = spans
        ranges = f"over {k} runs: cheapest {fig(a)}–{fig(b)}, dearest {fig(c)}–{fig(d)}"
    return (
        f"rtbench {label}, {scen}: cheapest {lo.label} {fig(float(getattr(lo, key)))}, "
        f"dearest {hi.label} {fig(float(getattr(hi, key)))} ({'means' if icount else 'medians'} "
        f"of {lo.n:,} and {hi.n:,} iterations; {ranges})."
    )


def _rows_by_scenario(store: Store, run_id: str) -> dict[str, Any]:
    runs = multirun.split(store, run_id)
    return {
        scen: rtbench.primitive_table(found[-1])
        for scen in ("primitives", "irq")
        if (found := rtbench.scenario_runs(runs, scen))
    }


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    benches, found, md = [], [], []
    for cr in cells.values():
        if cr.workload != "rtbench" or not cr.ok_ids:
            continue
        runs = multirun.split(store, cr.ok_ids[-1])
        figs = rtbench_figures(runs)
        rtos = runs[0].meta.get("rtos", "") if runs else ""
        benches.append({"title": cr.label, "run_id": cr.ok_ids[-1], "rtos": rtos, **figs})
        md += ["", f"## {cr.label}", "", rtbench.markdown(runs)]
        per_run = [_rows_by_scenario(store, rid) for rid in cr.ok_ids]
        found += [f for t in figs["tables"] if (f := _finding(cr.label, t, per_run))]
    if not benches:
        return None
    if sum(1 for b in benches if b["rtos"]) >= 2:
        found = []  # the RTOS comparison's findings say it across columns

    return Section(
        "rtbench", "rtbench", "sections/rtbench.html.j2", {"benches": benches}, found, md,
        shows=("stm32", "rp2040", "k4perf"), nearness=2,  # every figure, per run
    )  # fmt: skip


SECTION = SectionKind("rtbench", build, md_rank=2)
