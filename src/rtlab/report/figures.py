"""Figures as SVG data URIs for the HTML report (drawn by rtlab.chart: no matplotlib, text
kept as text), and the bar and rank charts the studies' sections share."""

from __future__ import annotations

import base64
import textwrap

from rtlab.chart import Chart
from rtlab.chart.svg import render


def svg_uri(chart: Chart) -> str:
    """The chart as an SVG data URI; its axes' group id names the scales
    ("axes0-xlog-ylinear"), for a reader of the SVG (and the tests)."""
    return "data:image/svg+xml;base64," + base64.b64encode(render(chart).encode()).decode()


def bar(
    labels: list[str],
    groups: dict[str, list[float]],
    title: str,
    ylabel: str,
    log: bool = False,
    ref: float | None = None,
    errors: dict[str, list[float]] | None = None,
) -> str:
    """Grouped bars, one group per label; `errors` (per group, half-widths) draws error
    bars; `ref` a dashed reference line (100 %)."""
    ch = Chart(
        title=title,
        ylabel=ylabel,
        size=(576, 274 + 15 * title.count("\n") + (14 if len(groups) > 1 else 0)),
        xcats=labels,
        rotate=True,
        yscale="log" if log else "linear",
        grid="y",
        legend=len(groups) > 1,
        legend_top=True,
        font=9,
        title_font=11,
    )
    width = 0.8 / max(1, len(groups))
    for i, (name, vals) in enumerate(groups.items()):
        xs = [j + i * width - 0.4 + width / 2 for j in range(len(labels))]
        ch.bars(xs, vals, width, label=name, err=(errors or {}).get(name))
    if ref is not None:
        ch.hline(ref)
    return svg_uri(ch)


# one colour per series name, the same in every rank chart (the legend is the page's)
RANK_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def rank_lines(title: str, xs: list[str], ranks: dict[str, dict[str, int]], n: int) -> str:
    """A small rank chart: x = `xs` (machines), y = rank 1 (top) … n, one line per
    series (RTOS) through the x values it has a rank at; colours by series order."""
    ch = Chart(
        title=textwrap.fill(title, 44),
        ylabel="rank (1 = fewest)",
        size=(238, 158),
        xcats=xs,
        ylim=(n + 0.4, 0.6),
        yticks=[float(r) for r in range(1, n + 1)],
        grid="y",
        font=8,
        title_font=7,
    )
    for k, (name, per) in enumerate(ranks.items()):
        pts = [(float(i), float(per[x])) for i, x in enumerate(xs) if x in per]
        if pts:
            colour = RANK_COLOURS[k % len(RANK_COLOURS)]
            ch.line(
                [p[0] for p in pts],
                [p[1] for p in pts],
                label=name,
                colour=colour,
                marker="o",
                size=5,
            )
    return svg_uri(ch)
