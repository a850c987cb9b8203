"""External vs internal in cycles, from one QEMU cycles plugin capture (rtlab.lab.qemu_cycles):
the STM32 study's method (a pin set around each call, timed from outside) against the
guest's own timestamps, both on the plugin's cycle count.

The figures per sample (rtlab.lab.qemu_cycles_figures): external = the marker pulse,
internal = the guest's timestamp reads around it, both in the plugin's cycles.

They agree when every sample's internal - external lies within the bracket's own cost,
either way (a primitive's timestamps lie outside its pulse, so its difference is
positive; an interrupt path's both come before their edges, so it may be negative): the
empty bracket's internal figure (series marker_cost, its largest warm sample; its cold
sample for the cold one).

    rows = compare(runs, cycles)      # one Row per marked series
    stored_agreement(store)           # what a study's stored runs recorded, per run
    agreement_markdown(rows)          # the results page's table
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from rtlab.analysis.stats import median
from rtlab.lab.qemu_cycles import Cycles
from rtlab.lab.qemu_cycles_figures import Stream, figures, marked
from rtlab.protocol import Run
from rtlab.results import Store, multirun
from rtlab.results import query as results


@dataclass(frozen=True)
class Row:
    scenario: str
    series: str
    n: int  # samples (cold first)
    external: float  # median of the warm samples, cycles
    internal: float
    diff_min: int  # internal - external over every sample
    diff_max: int
    bound: int  # the bracket's own cost (warm); the cold sample is held to bound_cold
    bound_cold: int
    outside: int  # samples beyond [-bound, bound]
    external_cycles: tuple[int, ...] = ()  # every sample, cold first

    @property
    def agrees(self) -> bool:
        return self.outside == 0


def compare(runs: Iterable[Run], cyc: Cycles) -> list[Row]:
    """One row per marked series of every run with markers on (marker_cost itself
    included: its difference is the bracket's cost outside the pulse)."""
    stream = Stream(cyc)
    rows = []
    for run in runs:
        if run.meta.get("markers") != "on":
            continue
        scen = str(run.meta.get("scenario", run.workload))
        _, cost = figures(run, stream, "marker_cost")
        bound = int(cost[1:].max()) if cost.size > 1 else int(cost[0])
        bound_cold = int(cost[0])
        for name in marked(run):
            ext, int_ = figures(run, stream, name)
            diff = int_ - ext
            limit = np.full(diff.size, bound)
            limit[0] = bound_cold
            warm = slice(1, None) if diff.size > 1 else slice(None)
            outside = int(np.count_nonzero(np.abs(diff) > limit))
            rows.append(
                Row(scen, name, int(diff.size), median(ext[warm].astype(float)),
                    median(int_[warm].astype(float)), int(diff.min()), int(diff.max()),
                    bound, bound_cold, outside, tuple(int(v) for v in ext))
            )  # fmt: skip
    return rows


@dataclass(frozen=True)
class CellAgreement:
    """One stored cycles run's external vs internal, over every marked series."""

    cell: str  # the study's cell label
    core: str  # the timing table's core
    machine: str  # the QEMU stand-in
    series: int  # marked series compared
    diff_min: int  # internal - external, over every sample of every series
    diff_max: int
    bound: int  # the empty bracket's largest warm figure
    outside: int  # samples beyond [-bound, bound] (a cold one: beyond the cold bracket)

    @property
    def agrees(self) -> bool:
        return self.outside == 0 and self.series > 0


def stored_agreement(store: Store, spec: str = "rtos-cycles") -> list[CellAgreement]:
    """What each cell's last ok run recorded of its restatement (rtlab.lab.
    qemu_cycles_output: cycles_bound, cycles_diff.NAME), per scenario run."""
    out = []
    for cr in results.select_many(store, (), spec).values():
        if not cr.ok_ids:
            continue
        for run in multirun.split(store, cr.ok_ids[-1]):
            diffs = [
                tuple(int(v) for v in str(val).split())
                for key, val in run.meta.items()
                if key.startswith("cycles_diff.")
            ]
            if not diffs or "cycles_bound" not in run.meta:
                continue
            scen = str(run.meta.get("scenario", ""))
            out.append(
                CellAgreement(f"{cr.label} {scen}".strip(), str(run.meta.get("cycles_core", "")),
                              str(run.meta.get("cycles_machine", "")), len(diffs),
                              min(d[0] for d in diffs), max(d[1] for d in diffs),
                              int(run.meta["cycles_bound"]), sum(d[2] for d in diffs))
            )  # fmt: skip
    return out


def agreement_markdown(rows: Sequence[CellAgreement]) -> str:
    head = [
        "## External (marker capture) vs internal (the guest's timestamps), in cycles",
        "",
        "Each marked path timed twice by the plugin: externally, the marker pulse (the "
        "figure of record: the STM32 study's pin around each call), and internally, the "
        "guest's own timestamp reads beside its edges. They differ by what each bracket "
        "does between its timestamp and its edge, so internal - external must lie within "
        "the empty bracket's cost, either way, for every sample (the first, cold one "
        "within the cold bracket's): positive on a primitive (its timestamps lie outside "
        "the pulse), of either sign on an interrupt path (the trigger's and the "
        "handler's timestamps both come before their toggles).",
        "",
        "| cell (RTOS, core, configuration, scenario) | core | stand-in | series "
        "| internal - external, cycles (every sample) | bracket, cycles | agree within "
        "the bracket |",
        "| --- | --- | --- | ---: | ---: | ---: | --- |",
    ]
    body = [
        f"| {r.cell} | {r.core} | {r.machine} | {r.series} | {r.diff_min} to {r.diff_max} "
        f"| {r.bound} | " + ("yes" if r.agrees else f"**no**: {r.outside} samples outside") + " |"
        for r in rows
    ]
    n = sum(r.agrees for r in rows)
    tail = ["", f"{n} of {len(rows)} runs agree within the bracket on every sample."]
    return "\n".join([*head, *body, *tail]) + "\n"
