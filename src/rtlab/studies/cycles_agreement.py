"""External vs internal as a cycles study's stored runs recorded it (rtlab.lab.
qemu.cycles_check compared them when the run was restated in cycles: cycles_bound,
cycles_diff.NAME in each run's meta), per run, and the results page's table.

    rows = stored_agreement(store, "rtos-cycles")
    agreement_markdown(rows)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rtlab.results import Store, multirun
from rtlab.results import query as results


@dataclass(frozen=True)
class CellAgreement:
    """One stored cycles run's external vs internal, over every marked series."""

    cell: str  # the study's cell label
    core: str  # the timing table's core
    machine: str  # the QEMU stand-in
    series: int  # marked series compared
    diff_min: int  # internal - external, over every sample of every series
    diff_max: int
    bound: int  # the empty bracket's warm median figure (cycles_check.bracket_bound)
    outside: int  # samples beyond [-bound, bound] (a cold one: beyond the cold bracket)

    @property
    def agrees(self) -> bool:
        return self.outside == 0 and self.series > 0


def stored_agreement(store: Store, spec: str = "rtos-cycles") -> list[CellAgreement]:
    """What each cell's last ok run recorded of its restatement (rtlab.lab.
    qemu.cycles_output: cycles_bound, cycles_diff.NAME), per scenario run."""
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
