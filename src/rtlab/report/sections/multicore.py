"""The multi-core section (rtlab.studies.multicore): per rtbench cell that ran on more
than one core, the RP2040 study's figures — Thread-Metric per test on 1 vs N cores,
P1–P6 per core normalized to one core, contention 0–70 % — as means with 95 % intervals
over the repetitions, the timing mode in every chart's title, the figures an icount run
cannot give named with the reason, and parallel-TCG runs on a busy host flagged."""

from __future__ import annotations

from typing import Any

from rtlab.chart import Chart
from rtlab.report.figures import bar, svg_uri
from rtlab.report.sections import Section, SectionKind
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import multicore, rtbench
from rtlab.words import plural


def _bars(
    title: str, data: dict[str, dict[int, multicore.Interval]], labels: dict[str, str], **kw: Any
) -> str:
    cores = sorted({c for row in data.values() for c in row})
    keys = list(data)
    groups = {
        plural(c, "core"): [data[k][c].mean if c in data[k] else 0.0 for k in keys] for c in cores
    }
    errors = {
        plural(c, "core"): [(data[k][c].half or 0.0) if c in data[k] else 0.0 for k in keys]
        for c in cores
    }
    return bar([labels.get(k, k) for k in keys], groups, title, errors=errors, **kw)


def _contention(title: str, ct: dict[int, multicore.Interval]) -> str:
    ch = Chart(
        title=title,
        xlabel="stress task touches the shared semaphore [%]",
        ylabel="target throughput [% of 0 %]",
        size=(432, 252),
        font=9,
        title_font=9,
    )
    xs, ys = [float(x) for x in ct], [iv.mean for iv in ct.values()]
    line = ch.line(xs, ys, marker="o")
    line.err = [iv.half or 0.0 for iv in ct.values()]
    ch.hline(100)
    return svg_uri(ch)


def block(label: str, f: multicore.MulticoreFigures) -> dict[str, Any]:
    s = f.setting
    mode = s.mode_text + (" — host too busy" if s.violations else "")
    what = f"{s.rtos} on {s.board}"
    charts = []
    if f.tm:
        charts.append(
            _bars(f"Thread-Metric, {what}\n{mode}", f.tm, rtbench.TM_LABELS,
                  ylabel="iterations / s (log)", log=True)
        )  # fmt: skip
    if any(len(row) > 1 for row in f.scaling.values()):
        charts.append(
            _bars(f"Scalability per core (1 core = 100 %), {what}\n{mode}", f.scaling,
                  rtbench.PATTERNS, ylabel="%", ref=100)
        )  # fmt: skip
    if f.contention:
        title = f"Contention on {plural(f.contention_cores, 'core')}, {what}\n{mode}"
        charts.append(_contention(title, f.contention))
    return {
        "title": label,
        "setting": s,
        "repetitions": f.repetitions,
        "withheld": f.withheld,
        "notes": f.notes,
        "charts": charts,
        "markdown": multicore.markdown(label, f),
    }


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    found = multicore.cell_figures(store, cells)
    if not found:
        return None
    blocks = [block(label, f) for label, f in found]
    findings = []
    for label, f in found:
        two = {p: row[max(row)] for p, row in f.scaling.items() if max(row) > 1}
        if two and not f.setting.violations:
            best = max(two, key=lambda p: two[p].mean)
            worst = min(two, key=lambda p: two[p].mean)
            findings.append(
                f"{label} ({f.setting.mode_text}): per-core throughput on {max(f.scaling[best])} "
                f"cores from {two[worst].text()} % ({rtbench.PATTERNS[worst]}) to "
                f"{two[best].text()} % ({rtbench.PATTERNS[best]}) of one core, "
                f"{plural(f.repetitions, 'repetition')}."
            )
    md = ["", "## Multi-core", ""] + [b["markdown"].rstrip("\n") + "\n" for b in blocks]
    both = multicore.side_by_side(found)  # the RTOSes side by side, as the RP2040 study
    md += [both.rstrip("\n") + "\n"] if both else []
    return Section(
        "multicore", "Multi-core", "sections/multicore.html.j2", {"blocks": blocks}, findings, md,
        shows=("rp2040",), nearness=1,  # the RP2040 study's two-core figures
    )  # fmt: skip


SECTION = SectionKind("multicore", build, md_rank=3)
