"""Each published study beside rtlab's figures (rtlab.studies.reproduction): one table
per study — claim → published → rtlab → comparison → verdict, with its source — and
one finding per study, its headline claim and the tally."""

from __future__ import annotations

from rtlab.report.sections import Section
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import reproduction, reproduction_measures


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    reps = reproduction_measures.reproductions(store, cells)
    if not reps:
        return None
    data = {"studies": [reproduction.to_dict(r) for r in reps]}
    return Section(
        "reproduction",
        "Reproduction of the published studies",
        "sections/reproduction.html.j2",
        data,
        [r.headline for r in reps],
    )
