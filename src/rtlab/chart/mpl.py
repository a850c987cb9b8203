"""A Chart drawn on matplotlib, for the outputs the SVG writer does not make (PNG, PDF):
needs the `plot` extra (`pip install 'rtlab[plot]'`); importing this module without it
raises ModuleNotFoundError naming matplotlib, which the CLI turns into that one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from rtlab.chart import Chart, Mark


def _draw(ax: Axes, m: Mark) -> None:
    kw: dict[str, Any] = {"color": m.colour, "label": m.label}
    if m.kind == "hline":
        ax.axhline(m.y[0], color=m.colour, lw=m.width, ls=m.dash)
    elif m.kind == "stairs":
        ax.stairs(m.y, m.x, fill=m.fill, alpha=m.alpha, lw=m.width, **kw)
    elif m.kind == "step":
        ax.step(m.x, m.y, where="post", **kw)
    elif m.kind == "band":
        ax.fill_between(m.x, m.y, m.y2 or m.y, step="post", alpha=m.alpha, **kw)
    elif m.kind == "bars":
        ax.bar(m.x, m.y, m.width, yerr=m.err, capsize=3 if m.err else 0, **kw)
    elif m.kind == "points":
        ax.plot(m.x, m.y, ls="none", marker=m.marker or "o", ms=m.size, **kw)
    elif m.err:
        ax.errorbar(m.x, m.y, yerr=m.err, ls=m.dash, marker=m.marker, capsize=3, **kw)
    else:
        ax.plot(m.x, m.y, ls=m.dash, lw=m.width, marker=m.marker, ms=m.size, **kw)


def figure(chart: Chart) -> Figure:
    """The chart as a matplotlib figure (size in px / 72 inches)."""
    w, h = chart.size
    fig, ax = plt.subplots(figsize=(w / 72, h / 72), layout="constrained")
    for m in chart.marks:
        _draw(ax, m)
    ax.set_xscale(chart.xscale)
    ax.set_yscale(chart.yscale)
    if chart.xlim:
        ax.set_xlim(*chart.xlim)
    if chart.ylim:
        ax.set_ylim(*chart.ylim)
    if chart.xcats is not None:
        rot: dict[str, Any] = {"rotation": 30, "ha": "right"} if chart.rotate else {}
        ax.set_xticks(range(len(chart.xcats)), chart.xcats, **rot)
    if chart.yticks is not None:
        ax.set_yticks(chart.yticks)
    ax.set_xlabel(chart.xlabel)
    ax.set_ylabel(chart.ylabel)
    ax.set_title(chart.title)
    if chart.grid != "none":
        ax.grid(True, axis="y" if chart.grid == "y" else "both", alpha=0.3)
    if chart.legend and any(m.label for m in chart.marks):
        ax.legend(title=chart.legend_title or None, fontsize=8)
    return fig


def save(chart: Chart, path: Path, fmt: str) -> None:
    """Write the chart as `fmt` (png, pdf, …) at 150 dpi, then free the figure."""
    fig = figure(chart)
    fig.savefig(path, format=fmt, dpi=150)
    plt.close(fig)
