"""The host latency study (rtlab-latency: wake methods × policy × idle/load): its
findings, the conditions compared side by side, and a histogram of every other cell.
Histograms are OSADL style: log counts over log-spaced bins, so the body (tens of µs) and
the tail (tens of ms) show on one axis."""

from __future__ import annotations

from typing import Any

from rtlab.analysis.stats import summarize
from rtlab.report import plots
from rtlab.report.figures import svg_uri
from rtlab.report.sections import Section, SectionKind, range_text
from rtlab.results import Store
from rtlab.results import query as results

SERIES = "latency"  # the series the findings rank cells by


def _us(ns: float) -> str:
    return f"{ns / 1000:,.1f} µs" if ns < 1e7 else f"{ns / 1e6:,.1f} ms"


def _cell_figures(store: Store, cr: results.CellRuns) -> list[dict[str, str]]:
    figs = []
    for name, _unit, tick in results.main_series(store, cr.ok_ids):
        s = results.pooled(store, cr.ok_ids, name, tick)
        if not len(s):
            continue
        hist = plots.histogram([(name, s)], f"{name} histogram", log_y=True, log_x=True)
        figs.append({"title": f"{cr.label}: {name}", "hist": svg_uri(hist)})
    return figs


def condition_comparisons(store: Store, cells: dict[str, results.CellRuns]) -> list[dict[str, Any]]:
    """Cells that differ only by condition: p50/p99/max side by side and one tail plot."""
    groups: dict[str, list[results.CellRuns]] = {}
    for cr in cells.values():
        groups.setdefault(results.sans_condition(cr), []).append(cr)
    out = []
    for crs in groups.values():
        base = crs[0].stored_label.rsplit("@", 1)[0]
        base += f" ({crs[0].differs})" if crs[0].differs else ""
        if len(crs) < 2:
            continue
        for name, _unit, tick in results.main_series(store, crs[0].ok_ids):
            series: list[Any] = []
            rows: list[dict[str, Any]] = []
            for cr in crs:
                s = results.pooled(store, cr.ok_ids, name, tick)
                if not len(s):
                    continue
                series.append((cr.condition or cr.label, s))
                st = summarize(s.values, tick)
                rows.append({"condition": cr.condition or cr.label, **st})
            if len(series) < 2:
                continue
            ref = rows[0]
            for r in rows:
                for k in ("p50", "p99", "max"):
                    r[f"{k}_pct"] = (
                        (r[k] / ref[k] - 1) * 100 if ref.get(k) and r.get(k) is not None else None
                    )
            cdf = plots.cdf(series, f"{base}: {name}, 1 − CDF", tail=True, log_x=True)
            hist = plots.histogram(series, f"{base}: {name}", log_y=True, log_x=True)
            out.append(
                {
                    "title": f"{base}: {name}",
                    "cells": [cr.label for cr in crs],
                    "rows": rows,
                    "cdf": svg_uri(cdf),
                    "hist": svg_uri(hist),
                }
            )
    return out


def findings(store: Store, rows: list[dict[str, Any]], cells: dict[str, Any]) -> list[str]:
    """Per condition: the cell with the lowest pooled p99.9 of `latency` (with the range of
    its runs' own p99.9), the worst one, and the largest share of missed periods."""
    by_cond: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        cr = cells.get(r["cell"])
        if r["series"] == SERIES and r["n"] and cr is not None:
            by_cond.setdefault(cr.condition, []).append(r)
    out = []
    for cond, rs in by_cond.items():
        best = min(rs, key=lambda r: r["p999"])
        cr = cells[best["cell"]]
        per_run: list[float] = []
        for rid in cr.ok_ids:
            s = results.pooled(store, [rid], SERIES, None)
            if len(s):
                per_run.append(float(summarize(s.values, s.tick_s)["p999"] or 0))
        where = f"Under {cond}" if cond else "Over all runs"
        text = (
            f"{where}, {_name(cr)} holds p99.9 ≤ {_us(best['p999'])} "
            f"[{range_text(per_run, _us, len(per_run))}; max {_us(best['max'])}]"
        )
        worst = max(rs, key=lambda r: r["p999"])
        if worst is not best:
            text += f"; worst p99.9: {_name(cells[worst['cell']])} {_us(worst['p999'])}"
        missed = max(rs, key=lambda r: r.get("overruns_pct") or 0)
        if missed.get("overruns_pct"):
            text += (
                f"; {_name(cells[missed['cell']])} misses {missed['overruns_pct']:.1f} % "
                f"of periods ({missed['overruns']:,} of {missed['n'] + missed['overruns']:,})"
            )
        out.append(text + ".")
    return out


def _name(cr: results.CellRuns) -> str:
    return cr.label.rsplit("@", 1)[0] if cr.condition else cr.label


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    cells = {k: cr for k, cr in cells.items() if cr.workload != "rtbench"}
    rows = [r for r in results.summary_rows(store, cells) if r["n"]]
    if not rows:
        return None
    comparisons = condition_comparisons(store, cells)
    compared = {label for c in comparisons for label in c["cells"]}  # histograms there
    figures = [
        f for cr in cells.values() if cr.label not in compared for f in _cell_figures(store, cr)
    ]
    return Section(
        "latency",
        "Latency distributions",
        "sections/latency.html.j2",
        {"comparisons": comparisons, "figures": figures},
        findings(store, rows, cells),
    )


SECTION = SectionKind("latency", build)  # its figures are the summary table's (no Markdown)
