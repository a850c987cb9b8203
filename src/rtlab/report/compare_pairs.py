"""Which cells of BASE and NEW `rtlab compare` pairs, what it could not pair, and what
differs between the two cells of a pair (rtlab.report.compare computes the changes).

Selections pair by the label the spec gave (two specs with the same matrix compare cell
by cell); two single cells (or runs) pair with each other whatever their labels. Nothing
is dropped in silence: a cell of one side that the other lacks, a series one cell of a
pair lacks, a cell without an ok run, each is an `Unmatched` (shown, and a gate over it
fails: it could not be checked), and the fixed parameters that differ between the two
cells of a pair (duration 300 ms against 200 ms) are named with the pair.
"""

from __future__ import annotations

from dataclasses import dataclass

from rtlab.results import StoreError
from rtlab.results import query as results


@dataclass(frozen=True)
class Unmatched:
    """What compare could not compare: a cell (series None) or one series of a cell."""

    side: str  # "BASE", "NEW" (the side that has it) or "both" (a pair without data)
    cell: str
    series: str | None
    why: str

    def text(self) -> str:
        what = f"{self.series} of {self.cell}" if self.series else self.cell
        return f"{what}: {self.why}"


Pair = tuple[results.CellRuns, results.CellRuns]


def pairs(
    base: dict[str, results.CellRuns], new: dict[str, results.CellRuns]
) -> tuple[list[Pair], list[Unmatched]]:
    """The pairs to compare, and the cells of either side left without a partner."""
    if len(base) == 1 and len(new) == 1:
        return [(next(iter(base.values())), next(iter(new.values())))], []
    # Pair by the label the spec gave; a side with two cells of one label (a parameter
    # edited between runs of a spec) has no single partner: never pool them.
    sides = {"BASE": _by_label(base), "NEW": _by_label(new)}
    common = [k for k in sides["BASE"] if k in sides["NEW"]]
    if not common:
        raise StoreError(
            "BASE and NEW share no cell label: compare two specs with the same matrix, "
            "or two single cells/runs"
        )
    for side, by in sides.items():
        for k in common:
            if len(by[k]) > 1:
                raise StoreError(
                    f"{side} has {len(by[k])} cells labelled {k} ("
                    + "; ".join(cr.differs for cr in by[k])
                    + "): compare one of them by its cell key ("
                    + ", ".join(f"{cr.spec}/{cr.key}" for cr in by[k])
                    + ")"
                )
    other = {"BASE": "NEW", "NEW": "BASE"}
    alone = [
        Unmatched(side, label, None, f"only in {side}: {other[side]} has no cell of that label")
        for side, by in sides.items()
        for label in by
        if label not in common
    ]
    return [(sides["BASE"][k][0], sides["NEW"][k][0]) for k in common], alone


def _by_label(cells: dict[str, results.CellRuns]) -> dict[str, list[results.CellRuns]]:
    out: dict[str, list[results.CellRuns]] = {}
    for cr in cells.values():
        out.setdefault(cr.stored_label, []).append(cr)
    return out


def differences(cb: results.CellRuns, cn: results.CellRuns) -> list[str]:
    """The fixed parameters (workload parameters, condition, instrument) that differ
    between two paired cells, `duration: 300ms → 200ms`; the spec's name is no
    parameter (two specs of one matrix are what compare is for)."""
    db, dn = results.definition(cb), results.definition(cn)
    out = []
    for k in dict.fromkeys([*db, *dn]):
        if k != "spec" and db.get(k, "–") != dn.get(k, "–"):
            out.append(f"{k}: {db.get(k, '–')} → {dn.get(k, '–')}")
    return out


def tags(cb: results.CellRuns, cn: results.CellRuns) -> tuple[str, str]:
    """What names two different cells that share a label apart: the spec, else the cell
    key, else the runs (the same cell selected by two run ids)."""
    if cb.label != cn.label:
        return "", ""
    for side in (lambda c: f"spec {c.spec}", lambda c: f"cell {c.key}", _runs_tag):
        tb, tn = side(cb), side(cn)
        if tb != tn:
            return tb, tn
    return "", ""


def _runs_tag(c: results.CellRuns) -> str:
    ids = c.ok_ids
    return f"run {ids[0]}" if len(ids) == 1 else f"runs {ids[0]} +{len(ids) - 1}"
