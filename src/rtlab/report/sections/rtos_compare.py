"""RTOSes side by side (rtlab.studies.rtos_compare): the primitives, Thread-Metric and
heap tables with one column per RTOS × machine × configuration, and a finding per
machine naming the cheapest RTOS for the headline primitives."""

from __future__ import annotations

from rtlab.catalog.rtoses import title as rtos_title
from rtlab.report import figures
from rtlab.report.sections import Section, SectionKind
from rtlab.results import Store, multirun
from rtlab.results import query as results
from rtlab.studies import rtos_compare, rtos_compare_tables


def comparison(store: Store, cells: dict[str, results.CellRuns]) -> rtos_compare.Comparison | None:
    chosen = [cr for cr in cells.values() if cr.workload == "rtbench" and cr.ok_ids]
    invocations = [(cr.label, multirun.split(store, cr.ok_ids[-1])) for cr in chosen]
    targets = {cr.label: cr.ok_target for cr in chosen}
    return rtos_compare.compare(invocations, targets)


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    cmp = comparison(store, cells)
    if cmp is None:
        return None
    head = [c.label(cmp.with_config) for c in cmp.columns]
    tables = rtos_compare_tables.formatted_tables(cmp)
    data = {
        "machines": _per_machine(cmp, tables),
        "rank_charts": _rank_charts(cmp),
        "legend": list(zip(_rtoses(cmp), figures.RANK_COLOURS, strict=False)),
        "head": head,
        "icount": cmp.unit.startswith("instructions"),
        "model": cmp.unit == rtos_compare.MODEL_UNIT,
        "tables": tables,
        "notes": [(head[i], n) for i, c in enumerate(cmp.columns) for n in c.notes],
        "cells": [(head[i], c.cell) for i, c in enumerate(cmp.columns)],
        "settings": [(head[i], c.settings) for i, c in enumerate(cmp.columns) if c.settings],
        "charts": _relative_charts(cmp, head),
    }
    return Section(
        "rtos-compare",
        "RTOSes compared",
        "sections/rtos_compare.html.j2",
        data,
        cmp.findings,
        markdown=["", "## RTOSes compared", "", rtos_compare_tables.markdown(cmp).rstrip("\n")],
        json={"rtos_compare": rtos_compare_tables.to_dict(cmp)},
        shows=("stm32", "rp2040", "k4perf"),  # the studies' RTOS comparisons: nearest
    )


SECTION = SectionKind("rtos_compare", build, md_rank=1)


def _relative_charts(cmp: rtos_compare.Comparison, head: list[str]) -> list[str]:
    """The RP2040 study's bars: per machine, each Thread-Metric test as % of the
    reference RTOS (the dashed line at 100 %); a test a column lacks is no bar."""
    if not cmp.tm_relative:
        return []
    ref = rtos_title(cmp.reference)
    tests = list(cmp.tm_relative)
    charts = []
    for machine in dict.fromkeys(c.machine for c in cmp.columns):
        idx = [i for i, c in enumerate(cmp.columns) if c.machine == machine]
        groups = {
            head[i]: [float("nan") if (v := cmp.tm_relative[t][i]) is None else v for t in tests]
            for i in idx
            if any(cmp.tm_relative[t][i] is not None for t in tests)
        }
        if len(groups) > 1:
            title = f"Thread-Metric on {machine}, % of {ref}"
            unit = "% of reference" + (
                " (cycle model)" if cmp.unit == rtos_compare.MODEL_UNIT
                else " (icount model)" if cmp.resolution else ""
            )  # fmt: skip
            charts.append(
                figures.bar([t.split(" ")[0] for t in tests], groups, title, unit, ref=100)
            )
    return charts


def _per_machine(
    cmp: rtos_compare.Comparison, tables: list[tuple[str, str, dict[str, list[str]]]]
) -> list[dict[str, object]]:
    """One table per machine: its columns (RTOS × configuration), every table's rows as
    a group (the group's title carries the unit); rows with no figure there left out."""
    out: list[dict[str, object]] = []
    for machine in dict.fromkeys(c.machine for c in cmp.columns):
        idx = [i for i, c in enumerate(cmp.columns) if c.machine == machine]
        head = []
        for i in idx:
            c = cmp.columns[i]
            name = f"{rtos_title(c.rtos)} {c.version}".strip()
            head.append(name + (f" · {c.config}" if cmp.with_config else ""))
        groups = []
        for title, what, rows in tables:
            mine = {k: [vs[i] for i in idx] for k, vs in rows.items()}
            mine = {k: vs for k, vs in mine.items() if any(v != "–" for v in vs)}
            if mine:
                groups.append((title, what, mine))
        core = rtos_compare.CORES.get(machine, machine)
        out.append({"machine": f"{machine} ({core})", "head": head, "groups": groups})
    return out


def _rtoses(cmp: rtos_compare.Comparison) -> list[str]:
    return sorted({rtos_title(c.rtos) for c in cmp.columns})


def _rank_charts(cmp: rtos_compare.Comparison) -> list[tuple[str, str]]:
    """Per primitive, the RTOSes' rank (1 = fewest instructions / µs) on each machine,
    default configuration of each (else its first); (primitive, SVG URI)."""
    machines = list(dict.fromkeys(c.machine for c in cmp.columns))
    cores = [rtos_compare.CORES.get(m, m) for m in machines]
    names = _rtoses(cmp)
    charts = []
    for label, values in cmp.primitives.items():
        ranks: dict[str, dict[str, int]] = {n: {} for n in names}
        for m, core in zip(machines, cores, strict=True):
            best: dict[str, float] = {}
            for c, v in sorted(
                zip(cmp.columns, values, strict=True), key=lambda cv: cv[0].config != "default"
            ):
                name = rtos_title(c.rtos)
                if c.machine == m and v is not None and name not in best:
                    best[name] = v
            order = sorted(best.values())
            for name, v in best.items():
                ranks[name][core] = order.index(v) + 1
        if sum(len(r) for r in ranks.values()) > 1:
            charts.append((label, figures.rank_lines(label, cores, ranks, len(names))))
    return charts
