"""The user-space vs kernel-space section (rtlab.studies.user_vs_kernel): the minimum
stable period per method, kernel and condition, the full table, and one figure per
condition (actual vs programmed period, log axes); labelled emulated where it is."""

from __future__ import annotations

import os
from dataclasses import asdict

from rtlab.report.figures import svg_uri
from rtlab.report.sections import Section, SectionKind
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import user_vs_kernel as uvk
from rtlab.studies import user_vs_kernel_fig


def tolerance_pct() -> float:
    """X of the minimum stable period (docs/metrics.md): RTLAB_STABLE_TOLERANCE_PCT, a
    positive number, else the study's default."""
    text = os.environ.get("RTLAB_STABLE_TOLERANCE_PCT", "")
    try:
        value = float(text)
    except ValueError:
        return uvk.DEFAULT_TOLERANCE_PCT
    return value if value > 0 else uvk.DEFAULT_TOLERANCE_PCT


def study(store: Store, cells: dict[str, results.CellRuns]) -> uvk.Study | None:
    return uvk.study(store, cells, tolerance_pct())


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    st = study(store, cells)
    if st is None:
        return None
    conditions = list(dict.fromkeys(r.condition for r in st.rows))
    data = {
        **uvk.to_dict(st),
        "rows": [{**asdict(r), "stable": r.stable(st.tolerance_pct)} for r in st.rows],
        "fmt": uvk.fmt,
        "q": lambda q: uvk.quantiles_text(uvk.Quantiles(**q) if q else None),
        "figures": [
            {"title": c, "uri": svg_uri(user_vs_kernel_fig.actual_vs_programmed(st, c))}
            for c in conditions
        ],
    }
    return Section(
        "user-vs-kernel",
        "User space vs kernel space",
        "sections/user_vs_kernel.html.j2",
        data,
        uvk.findings(st),
        markdown=["", uvk.markdown(st).rstrip("\n")],
        json={"user_vs_kernel": uvk.to_dict(st)},
        shows=("user_vs_kernel",),
    )


SECTION = SectionKind("user_vs_kernel", build, md_rank=6)
