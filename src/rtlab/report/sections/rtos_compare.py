"""RTOSes side by side (rtlab.studies.rtos_compare): the primitives, Thread-Metric and
heap tables with one column per RTOS × machine × configuration, and a finding per
machine naming the cheapest RTOS for the headline primitives."""

from __future__ import annotations

from rtlab.report.sections import Section
from rtlab.results import Store, multirun
from rtlab.results import query as results
from rtlab.studies import rtos_compare


def comparison(store: Store, cells: dict[str, results.CellRuns]) -> rtos_compare.Comparison | None:
    chosen = [cr for cr in cells.values() if cr.workload == "rtbench" and cr.ok_ids]
    invocations = [(cr.label, multirun.split(store, cr.ok_ids[-1])) for cr in chosen]
    targets = {cr.label: _target(cr) for cr in chosen}
    return rtos_compare.compare(invocations, targets)


def _target(cr: results.CellRuns) -> dict[str, object]:
    """What the run's target recorded: rtos_version, the configuration that matters."""
    run = next(r for r in cr.runs if r["run_id"] == cr.ok_ids[-1])
    return dict(run.get("target") or {})


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    cmp = comparison(store, cells)
    if cmp is None:
        return None
    head = [c.label(cmp.with_config) for c in cmp.columns]
    data = {
        "head": head,
        "icount": cmp.unit.startswith("instructions"),
        "tables": rtos_compare.formatted_tables(cmp),
        "notes": [(head[i], n) for i, c in enumerate(cmp.columns) for n in c.notes],
        "cells": [(head[i], c.cell) for i, c in enumerate(cmp.columns)],
        "settings": [(head[i], c.settings) for i, c in enumerate(cmp.columns) if c.settings],
    }
    return Section(
        "rtos-compare", "RTOSes compared", "sections/rtos_compare.html.j2", data, cmp.findings
    )
