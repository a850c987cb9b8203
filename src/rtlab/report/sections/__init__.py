"""The report's study sections: plug-ins of the one `Registry` (rtlab.registry), one
module per study, each naming its kind as

    SECTION = SectionKind("gpio", build, md_rank=5)
    build(store, cells) -> Section | None      (None: no run of that study selected)

A Section is built once per report and carries everything every rendering needs
(rtlab.report.document): its findings (one sentence each, made from the data), the
template that draws it in HTML (templates/sections/<name>.html.j2, which reads
`s.data`) with that data, its Markdown lines, and its part of the JSON document. To add
a study: a module here and one line in SECTIONS (the HTML report's order).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rtlab.registry import Registry
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import memo
from rtlab.studies.reproduction_measures import own_setting


@dataclass
class Section:
    id: str  # the HTML anchor
    title: str
    template: str
    data: dict[str, Any]
    findings: list[str] = field(default_factory=list)
    markdown: list[str] = field(default_factory=list)  # lines of `rtlab report --md`
    json: dict[str, Any] = field(default_factory=dict)  # keys of `rtlab report --json`
    # How the HTML page shows it (the section says; the page branches on no section):
    open: bool = False  # opened when the page loads (the first section always is)
    # its findings are its own sentences: the first heads a row of the headlines box, all
    # open the section; False: they are its tables' headlines, given as `published`
    own_findings: bool = True
    # lines for the headlines box, one per published study ({study, anchor, short,
    # text}), each under the section that shows that study's runs (else a row of its own)
    published: list[dict[str, str]] = field(default_factory=list)
    shows: tuple[str, ...] = ()  # the published studies (keys) whose runs it shows
    nearness: int = 0  # of the sections that show one study, the lowest heads its line


Build = Callable[[Store, dict[str, results.CellRuns]], "Section | None"]


@dataclass(frozen=True)
class SectionKind:
    """A study's section: `build` makes it from the selected cells. `md_rank` orders
    the Markdown and JSON renderings (negative: before the summary table, where the
    reproduction of the published studies goes); `json_default` is what the JSON
    document holds when there is no such section (a key always present)."""

    name: str
    build: Build
    md_rank: int = 0
    json_default: Mapping[str, Any] = field(default_factory=dict)


SECTIONS: Registry[SectionKind] = Registry(
    "report section",
    {
        name: f"rtlab.report.sections.{name}"
        for name in (
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
    },
    attr="SECTION",
)


def build(store: Store, cells: dict[str, results.CellRuns]) -> list[tuple[SectionKind, Section]]:
    """Every registered section the selected cells have, in report order, each built
    once (its kind beside it: the renderings order and default by it). Cells that ran a
    model under other settings than the page's own (a target's `variants`) speak only
    to the reproduction's verdicts; every other section shows the page's own."""
    own = own_setting(cells)
    out = []
    with memo.once():  # a study two sections read is computed once (studies.memo)
        for _, kind in SECTIONS.items():
            sec = kind.build(store, cells if kind.name == "reproduction" else own)
            if sec is not None:
                out.append((kind, sec))
    return out


def range_text(values: list[float], fmt: Any, runs: int) -> str:
    """The run-to-run range of a figure, or why there is none."""
    if runs < 2 or len(values) < 2:
        return "one run: no run-to-run range"
    return f"run-to-run {fmt(min(values))}–{fmt(max(values))} over {runs} runs"
