"""The report's study sections: one module per study, each with

    build(store, cells) -> Section | None      (None: no run of that study selected)

A Section carries its findings (one sentence each, made from the data), the template
that draws it (templates/sections/<name>.html.j2, which reads `s.data`) and that data.
To add a study: a module here and its name in SECTIONS (report order)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from rtlab.results import Store
from rtlab.results import query as results

SECTIONS = (
    "reproduction",
    "latency",
    "gpio",
    "user_vs_kernel",
    "rtos_compare",
    "rtbench",
    "instrument",
    "multicore",
    "latency_measure",
)


@dataclass
class Section:
    id: str  # the HTML anchor
    title: str
    template: str
    data: dict[str, Any]
    findings: list[str] = field(default_factory=list)


def build(store: Store, cells: dict[str, results.CellRuns]) -> list[Section]:
    out = []
    for name in SECTIONS:
        sec = importlib.import_module(f"rtlab.report.sections.{name}").build(store, cells)
        if sec is not None:
            out.append(sec)
    return out


def range_text(values: list[float], fmt: Any, runs: int) -> str:
    """The run-to-run range of a figure, or why there is none."""
    if runs < 2 or len(values) < 2:
        return "one run: no run-to-run range"
    return f"run-to-run {fmt(min(values))}–{fmt(max(values))} over {runs} runs"
