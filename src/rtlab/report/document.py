"""One report, built once, rendered many ways: the sections of the selected cells
(rtlab.report.sections, each built once), their findings and the summary rows, as one
object that the HTML page (rtlab.report.html) and the Markdown, CSV and JSON texts
(here) are all rendered from.

    rep = build(store, results.select_many(store, [], "host"), "host")
    rep.markdown(); rep.json(); rep.csv()          # html.render_html(rep) for the page
"""

from __future__ import annotations

import csv
import html as _html
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import rtlab
from rtlab.report import sections
from rtlab.report.sections import Section, SectionKind
from rtlab.results import Store
from rtlab.results import query as results

SUMMARY_COLS = ("n", "min", "mean", "rms", "p50", "p90", "p99", "p999", "max")


def us(x: Any) -> str:
    """ns → µs as the summary tables print it ("–" for none)."""
    return "–" if x is None else f"{x / 1000:,.2f}"


@dataclass
class Report:
    """What every rendering of a report shows: `built` pairs each section with its
    kind, in the HTML report's order; `summary` is one row per (cell, series)."""

    store: Store
    cells: dict[str, results.CellRuns]
    title: str
    skipped: list[str]
    summary: list[dict[str, Any]]
    built: list[tuple[SectionKind, Section]]

    @property
    def sections(self) -> list[Section]:
        return [sec for _, sec in self.built]

    @property
    def runs(self) -> list[dict[str, Any]]:
        return [r for cr in self.cells.values() for r in cr.runs]

    def findings(self) -> list[str]:
        """One sentence per study answer (each section's), or why there is none."""
        runs = self.runs
        if not any(r["status"] == "ok" for r in runs):
            return [f"No run finished successfully ({len(runs)} selected): no figures to report."]
        return [f for sec in self.sections for f in sec.findings]

    def _by_md_rank(self) -> list[tuple[SectionKind, Section]]:
        return sorted(self.built, key=lambda ks: ks[0].md_rank)

    def json(self) -> str:
        """The findings, the summary rows (ns), each section's part of the document
        (what a section kind always has, when absent), and `skipped` when given."""
        doc: dict[str, Any] = {
            "findings": self.findings(),
            "cells": self.summary,
            "rtlab_version": rtlab.__version__,
        }
        if self.skipped:
            doc["skipped"] = list(self.skipped)
        have = {kind.name for kind, _ in self.built}
        for _, kind in sections.SECTIONS.items():
            if kind.name not in have:
                doc.update(kind.json_default)
        for _, sec in self._by_md_rank():
            doc.update(sec.json)
        return json.dumps(doc, indent=1) + "\n"

    def csv(self) -> str:
        """The summary rows only; times in ns."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["cell", "series", "runs", *SUMMARY_COLS, "note"])
        for r in self.summary:
            runs = " ".join(f"{k}:{v}" for k, v in r["runs"].items())
            nums = (r.get(c) for c in SUMMARY_COLS)
            w.writerow([r["cell"], r["series"], runs, *nums, r.get("note", "")])
        return buf.getvalue()

    def markdown(self) -> str:
        """Skipped parts, findings, the sections of negative md_rank, the summary table
        (µs) and its missed periods, then every other section's Markdown by md_rank."""
        lines = [f"- **skipped:** {s}" for s in self.skipped] + ([""] if self.skipped else [])
        found = self.findings()
        if found:
            lines += ["**Findings**", "", *(f"- {f}" for f in found), ""]
        ranked = self._by_md_rank()
        for kind, sec in ranked:
            if kind.md_rank < 0:
                lines += sec.markdown
        lines += self._summary_md()
        for kind, sec in ranked:
            if kind.md_rank >= 0:
                lines += sec.markdown
        return "\n".join(lines) + "\n"

    def _summary_md(self) -> list[str]:
        lines = [
            "| cell | series | runs | n | min µs | p50 µs | p99 µs | p99.9 µs | max µs |",
            "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for r in self.summary:
            runs = " ".join(f"{k}:{v}" for k, v in r["runs"].items())
            nums = " | ".join(us(r.get(k)) for k in ("min", "p50", "p99", "p999", "max"))
            cell = _html.escape(r["cell"]).replace("|", "\\|")
            if r["n"] is None:  # no timing series: why, instead of an n = 0 row
                nums = f"{r['note']} |" + " |" * 3  # the note, then 4 empty cells
            series = _html.escape(r["series"]).replace("|", "\\|")
            n = "–" if r["n"] is None else r["n"]
            lines.append(f"| {cell} | {series} | {runs} | {n} | {nums} |")
        overruns = results.overrun_lines(self.summary)
        if overruns:  # periods the loop missed: the samples alone do not show them
            lines += ["", "Missed periods (docs/metrics.md):", "", *(f"- {o}" for o in overruns)]
        return lines


def build(
    store: Store,
    cells: dict[str, results.CellRuns],
    title: str = "rtlab",
    skipped: Sequence[str] = (),
    *,
    with_sections: bool = True,
) -> Report:
    """The report of the selected cells, each study section built once.
    with_sections=False: the summary rows only (what CSV shows)."""
    built = sections.build(store, cells) if with_sections else []
    summary = results.summary_rows(store, cells)
    return Report(store, cells, title, list(skipped), summary, built)
