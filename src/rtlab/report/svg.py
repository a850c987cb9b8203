"""Figures as SVG data URIs for the HTML report (text kept as text), and the bar chart
the studies' sections share."""

from __future__ import annotations

import base64
import io
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure


def svg_uri(fig: Figure) -> str:
    """The figure as an SVG data URI (text kept as text: small and searchable)."""
    buf = io.BytesIO()
    # Fixed margins and title place: constrained layout and the automatic title position
    # (a tight bounding box of every tick label) cost most of the rendering time, and a
    # report holds dozens of figures.
    fig.set_layout_engine("none")
    if len(fig.axes) == 1:
        lines = fig.axes[0].get_title().count("\n") + 1  # room for a title of two lines
        fig.axes[0].set_position((0.11, 0.2, 0.86, 0.7 - 0.07 * (lines - 1)))
    for i, ax in enumerate(fig.axes):
        # the scales as an element id, for a reader of the SVG (and the tests)
        ax.set_gid(f"axes{i}-x{ax.get_xscale()}-y{ax.get_yscale()}")
        if ax.get_title():
            ax.set_title(ax.get_title(), y=1.01)
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "rtlab"}):
        fig.savefig(buf, format="svg")
    plt.close(fig)
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode()


def bar(
    labels: list[str],
    groups: dict[str, list[float]],
    title: str,
    ylabel: str,
    log: bool = False,
    ref: float | None = None,
    errors: dict[str, list[float]] | None = None,
) -> str:
    """Grouped bars; `errors` (per group, half-widths) draws error bars."""
    fig, ax = plt.subplots(figsize=(8, 3.8), layout="constrained")
    width = 0.8 / max(1, len(groups))
    for i, (name, vals) in enumerate(groups.items()):
        xs = [j + i * width - 0.4 + width / 2 for j in range(len(labels))]
        err = (errors or {}).get(name)
        ax.bar(xs, vals, width, label=name, yerr=err, capsize=3 if err else 0)
    ax.set_xticks(range(len(labels)), labels, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if log:
        ax.set_yscale("log")
    if ref is not None:
        ax.axhline(ref, color="grey", lw=0.8, ls="--")
    ax.grid(True, axis="y", alpha=0.3)
    if len(groups) > 1:
        ax.legend(fontsize=8)
    return svg_uri(fig)


# one colour per series name, the same in every rank chart (the legend is the page's)
RANK_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def rank_lines(title: str, xs: list[str], ranks: dict[str, dict[str, int]], n: int) -> str:
    """A small rank chart: x = `xs` (machines), y = rank 1 (top) … n, one line per
    series (RTOS) through the x values it has a rank at; colours by series order."""
    fig, ax = plt.subplots(figsize=(3.3, 2.2))
    for k, (name, per) in enumerate(ranks.items()):
        pts = [(i, per[x]) for i, x in enumerate(xs) if x in per]
        if pts:
            colour = RANK_COLOURS[k % len(RANK_COLOURS)]
            ax.plot(*zip(*pts, strict=True), marker="o", ms=4, lw=1.5, color=colour, label=name)
    ax.set_ylim(n + 0.4, 0.6)
    ax.set_yticks(range(1, n + 1))
    ax.set_xlim(-0.3, len(xs) - 0.7)
    ax.set_xticks(range(len(xs)), xs, fontsize=8)
    ax.tick_params(axis="y", labelsize=8)
    ax.set_ylabel("rank (1 = fewest)", fontsize=7)
    ax.set_title(textwrap.fill(title, 44), fontsize=7)
    ax.grid(True, axis="y", alpha=0.3)
    return svg_uri(fig)
