"""Charts without matplotlib: one axes described as data (`Chart` and its marks), drawn
as SVG by rtlab.chart.svg (the HTML report's figures, text kept as text) or, where a PNG
is written, on matplotlib by rtlab.chart.mpl (the `plot` extra).

A chart holds what the report draws: step lines (histogram stairs, CDF steps), lines with
markers, points, a filled band, grouped bars with error bars, a horizontal reference
line; linear or log x/y scales, categorical x ticks (rotated labels), an inverted y axis
(set ylim high-to-low). Colours follow matplotlib's tab10 cycle unless a mark names one.

This module sits in the lowest layer: numpy-free and dependency-free, so that studies and
the report may both build charts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict, Unpack

Scale = Literal["linear", "log"]
Kind = Literal["line", "step", "stairs", "points", "band", "bars", "hline"]

# matplotlib's tab10, the colours the report has always used
TAB10 = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
DASHES = {"-": None, "--": "6 3", ":": "1.5 3", "-.": "6 3 1.5 3"}


def _floats(values: Iterable[float]) -> list[float]:
    return [float(v) for v in values]


@dataclass
class Mark:
    """One drawn thing. `x`/`y` are data coordinates; for "stairs" `x` holds the n + 1
    bin edges and `y` the n values; for "band" `y2` is the upper curve; for "bars" `x`
    is each bar's centre, `width` its width in data units and `err` its half-widths; for
    "hline" `y[0]` is the level. `size` is a marker's or a point's diameter in px."""

    kind: Kind
    x: list[float]
    y: list[float]
    colour: str
    label: str | None = None
    y2: list[float] | None = None
    err: list[float] | None = None
    width: float = 1.5  # line width in px; for bars, the bar width in data units
    dash: str = "-"
    marker: str | None = None  # "o" or "^"
    size: float = 5.0
    fill: bool = False
    alpha: float = 1.0
    where: Literal["post", "mid"] = "post"


class MarkStyle(TypedDict, total=False):
    """How a mark looks, the keywords of every Chart method that adds one (each says
    which it uses); left out, Mark's defaults or the method's own."""

    label: str | None
    colour: str | None
    dash: str
    marker: str | None
    width: float
    size: float
    fill: bool
    alpha: float


class BarStyle(TypedDict, total=False):
    """MarkStyle without `width`: a bar's width is an argument of its own, in data units."""

    label: str | None
    colour: str | None
    dash: str
    marker: str | None
    size: float
    fill: bool
    alpha: float


@dataclass
class Chart:
    """One axes. `size` is in px (the SVG's width and height; PNG inches = px / 72, as
    matplotlib's SVG has 72 units per inch: fonts keep matplotlib's proportions).
    `xlim`/`ylim` default to the data's range with a margin; a ylim from high to low
    inverts the axis. `xcats` labels x = 0, 1, … with categories (`rotate` tilts them)."""

    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    xscale: Scale = "linear"
    yscale: Scale = "linear"
    size: tuple[int, int] = (504, 288)
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None
    xcats: list[str] | None = None
    rotate: bool = False
    yticks: list[float] | None = None
    grid: Literal["both", "y", "none"] = "both"
    legend: bool = False
    legend_title: str = ""
    legend_top: bool = False  # one row above the plot area, not in a corner (bar charts)
    font: float = 10.0  # tick labels and axis labels, px
    title_font: float = 12.0
    legend_font: float = 9.0
    marks: list[Mark] = field(default_factory=list)
    _cycle: int = 0

    def next_colour(self) -> str:
        """The next colour of the tab10 cycle (what a mark without a colour gets)."""
        colour = TAB10[self._cycle % len(TAB10)]
        self._cycle += 1
        return colour

    def _add(
        self,
        kind: Kind,
        x: Iterable[float],
        y: Iterable[float],
        style: MarkStyle | BarStyle,
        **kw: object,
    ) -> Mark:
        """Append a Mark: `kw` (the method's own defaults and fields) under the caller's
        `style`; a mark without a colour takes the next of the cycle."""
        kw.update(style)
        if kw.get("colour") is None:
            kw["colour"] = self.next_colour()
        # kw: Mark's own fields by name (the style's and the method's), typed per method
        mark = Mark(kind, _floats(x), _floats(y), **kw)  # type: ignore[arg-type]
        self.marks.append(mark)
        return mark

    def line(self, x: Iterable[float], y: Iterable[float], **style: Unpack[MarkStyle]) -> Mark:
        """A polyline, with a marker ("o", "^") at each point if given."""
        return self._add("line", x, y, style)

    def points(self, x: Iterable[float], y: Iterable[float], **style: Unpack[MarkStyle]) -> Mark:
        """Markers without a line ("o" round dots, "^" triangles); round, 3 px by default."""
        return self._add("points", x, y, style, marker="o", size=3.0)

    def step(self, x: Iterable[float], y: Iterable[float], **style: Unpack[MarkStyle]) -> Mark:
        """A step line holding each y until the next x (matplotlib's where="post")."""
        return self._add("step", x, y, style)

    def stairs(
        self, values: Iterable[float], edges: Iterable[float], **style: Unpack[MarkStyle]
    ) -> Mark:
        """A histogram outline: `values[i]` over [edges[i], edges[i + 1]); filled down
        to the axis when `fill`."""
        return self._add("stairs", edges, values, style)

    def band(
        self,
        x: Iterable[float],
        lower: Iterable[float],
        upper: Iterable[float],
        **style: Unpack[MarkStyle],
    ) -> Mark:
        """The area between two curves, stepped like `step` (a min–max envelope); half
        transparent by default."""
        return self._add("band", x, lower, style, y2=_floats(upper), alpha=0.5, fill=True)

    def bars(
        self,
        x: Iterable[float],
        heights: Iterable[float],
        width: float,
        err: Sequence[float] | None = None,
        **style: Unpack[BarStyle],
    ) -> Mark:
        """Bars centred at `x`, `width` wide in data units, with error bars of
        half-width `err[i]` when given."""
        return self._add("bars", x, heights, style, width=width, err=_floats(err) if err else None)

    def hline(self, y: float, colour: str = "#808080", dash: str = "--") -> Mark:
        """A horizontal reference line across the axes (not in the legend)."""
        mark = Mark("hline", [], [float(y)], colour=colour, dash=dash, width=0.8)
        self.marks.append(mark)
        return mark

    def gid(self) -> str:
        """The axes' element id, naming the scales: "axes0-xlog-ylinear"."""
        return f"axes0-x{self.xscale}-y{self.yscale}"
