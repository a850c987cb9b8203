"""Each published study beside rtlab's figures (rtlab.studies.reproduction): one table
per study — claim → published → rtlab → comparison → verdict, with its source — and
one finding per study, its headline claim and the tally."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.report.sections import Section, SectionKind
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import reproduction, reproduction_measures


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    reps = reproduction_measures.reproductions(store, cells)
    if not reps:
        return None
    studies = [reproduction.to_dict(r) for r in reps]
    return Section(
        "reproduction",
        "Reproduction of the published studies",
        "sections/reproduction.html.j2",
        {"studies": studies},
        [r.headline for r in reps],
        markdown=[markdown(studies)],
        json={"reproduction": studies},
        open=True,
        own_findings=False,
        published=[
            {
                "study": st["study"],
                "anchor": f"reproduction-{st['study']}",
                "short": st["short"],
                "text": st["headline"].removeprefix(f"{st['short']}: "),
            }
            for st in studies
        ],
    )


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(studies: Sequence[Mapping[str, Any]]) -> str:
    """One table per study (to_dict's form): claim → source → published → rtlab →
    comparison → verdict."""
    out: list[str] = []
    for st in studies:
        conditions = "; ".join(f"{k} {v}" for k, v in st["conditions"].items())
        out += [
            f"## Reproduction: {st['short']}",
            "",
            f"*{st['title']}* — {st['authors']} (`{st['file']}`).  ",
            f"Published conditions: {conditions}.  ",
            f"rtlab: {'; '.join(st['rtlab_environment']) or 'as each row says'}. {st['tally']}.",
            "",
            "| claim | source | published | rtlab | comparison | verdict | rtlab's figure from |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in st["rows"]:
            why = f": {_md(r['why'])}" if r["why"] else ""
            out.append(
                f"| {_md(r['claim'])} | {_md(r['source'])} | {_md(r['published'])} "
                f"| {_md(r['rtlab'])} | {_md(r['compare'])} | **{r['verdict']}**{why} "
                f"| {_md(r['how'])} |"
            )
        out.append("")
    return "\n".join(out)


SECTION = SectionKind("reproduction", build, md_rank=-1, json_default={"reproduction": []})
