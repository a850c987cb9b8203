"""A Chart as an SVG document: text kept as text (font-family sans-serif), the plot area
clipped, the axes' group id naming its scales ("axes0-xlog-ylog") for a reader of the
SVG. Coordinates are rounded to 0.1 px to keep a report of dozens of figures small."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from xml.sax.saxutils import escape

from rtlab.chart import DASHES, Chart, Mark
from rtlab.chart import axis_ticks as tk
from rtlab.chart.layout import Frame, text_width
from rtlab.chart.legend import legend_svg, legend_top_height


def _scale(lo: float, hi: float, a: float, b: float, log: bool) -> Callable[[float], float]:
    """Map data [lo, hi] onto px [a, b]; on a log axis non-positive values go far below."""
    if log:
        llo, lhi = math.log10(lo), math.log10(hi)
        return lambda v: (
            a + (math.log10(v) - llo) / (lhi - llo) * (b - a) if v > 0 else a - (b - a) * 10
        )
    return lambda v: a + (v - lo) / (hi - lo) * (b - a)


def limits(chart: Chart, axis: str) -> tuple[float, float]:
    """An axis's (low, high) limits: the chart's, else the data's with a margin."""
    given = chart.xlim if axis == "x" else chart.ylim
    if given is not None:
        return given
    log = (chart.xscale if axis == "x" else chart.yscale) == "log"
    vals: list[float] = []
    for m in chart.marks:
        if axis == "x":
            vals += m.x
            if m.kind == "bars":
                vals += [x + s * m.width / 2 for x in m.x for s in (-1, 1)]
        else:
            vals += m.y + (m.y2 or [])
            if m.err:
                vals += [y + s * e for y, e in zip(m.y, m.err, strict=False) for s in (-1, 1)]
            if (m.kind == "bars" or (m.kind == "stairs" and m.fill)) and not log:
                vals.append(0.0)
    rng = tk.data_range(vals, log)
    if rng is None:
        return (1.0, 10.0) if log else (0.0, 1.0)
    if axis == "x" and chart.xcats is not None:
        return (-0.5, len(chart.xcats) - 0.5)
    lo, hi = tk.padded(*rng, log)
    if not log and any(m.kind == "bars" for m in chart.marks) and axis == "y" and rng[0] >= 0:
        lo = 0.0  # bars stand on zero
    return lo, hi


def _ticks(
    lo: float, hi: float, log: bool, room: int
) -> tuple[list[float], list[float], float | None]:
    """(major ticks, minor ticks, linear step) of an axis with room for `room` labels."""
    if log:
        major, minor = tk.log_ticks(lo, hi, room)
        return major, minor, None
    major = tk.linear_ticks(lo, hi)
    step = major[1] - major[0] if len(major) > 1 else None
    return major, [], step


def render(chart: Chart) -> str:
    """The chart as a standalone SVG document (a string)."""
    w, h = chart.size
    xlo, xhi = limits(chart, "x")
    ylo, yhi = limits(chart, "y")
    xlog, ylog = chart.xscale == "log", chart.yscale == "log"
    if chart.xcats is not None:
        xmin: list[float] = []
        xmaj, xstep = [float(i) for i in range(len(chart.xcats))], None
        xlabels = chart.xcats
    else:
        xmaj, xmin, xstep = _ticks(xlo, xhi, xlog, int((w - 80) / (chart.font * 4.5)))
        xlabels = tk.log_labels(xmaj) if xlog else [tk.label(v, xstep) for v in xmaj]
    f = chart.font
    title_lines = chart.title.split("\n") if chart.title else []
    top = 10 + len(title_lines) * chart.title_font * 1.25 + legend_top_height(chart)
    widest = max((text_width(s, f) for s in xlabels), default=0)
    angle = 0
    if chart.rotate:  # 30°, or upright when the labels would run into each other at 30°
        angle = 90 if (w - 70) / max(1, len(xlabels)) < f * 3 else 30
    tick_h = widest * {0: 0, 30: 0.5, 90: 1}[angle] + f * 1.3
    bottom = h - (10 + tick_h + (f * 1.4 if chart.xlabel else 0))
    yroom = int((bottom - top) / (f * 2))
    ymaj, ymin, ystep = (
        _ticks(ylo, yhi, ylog, yroom) if chart.yticks is None else (chart.yticks, [], 1)
    )
    ylabels = tk.log_labels(ymaj) if ylog else [tk.label(v, ystep) for v in ymaj]
    left = (
        12 + (f * 1.3 if chart.ylabel else 0) + max((text_width(s, f) for s in ylabels), default=0)
    )
    if angle == 30 and xlabels:  # room for the first label, which leans left
        half_cat = (w - left - 12) / len(xlabels) / 2
        left = max(left, text_width(xlabels[0], f) * 0.87 + 4 - half_cat)
    right = w - 12 - (text_width(xlabels[-1], f) / 4 if xlabels and not angle else 0)
    fr = Frame(
        left,
        top,
        right,
        bottom,
        _scale(xlo, xhi, left, right, xlog),
        _scale(ylo, yhi, bottom, top, ylog),
    )
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<g id="{chart.gid()}">',
        f'<clipPath id="plot"><rect x="{left:.1f}" y="{top:.1f}" '
        f'width="{right - left:.1f}" height="{bottom - top:.1f}"/></clipPath>',
    ]
    out += _grid(chart, fr, xmaj, xmin, ymaj, ymin)
    out.append('<g clip-path="url(#plot)">')
    y0, y1 = min(ylo, yhi), max(ylo, yhi)
    base = y0 if ylog or not y0 <= 0 <= y1 else 0.0  # where bars and filled stairs stand
    for m in chart.marks:
        out += _mark(m, fr, base)
    out.append("</g>")
    out += _axes_text(chart, fr, (xmaj, xlabels, angle), ymaj, ylabels, title_lines)
    if chart.legend:
        out += legend_svg(chart, fr)
    out.append("</g></svg>")
    return "\n".join(out)


def _grid(
    chart: Chart,
    fr: Frame,
    xmaj: list[float],
    xmin: list[float],
    ymaj: list[float],
    ymin: list[float],
) -> list[str]:
    """Grid lines (major light grey, minor lighter) and the tick marks."""
    out = []
    path_x = lambda vs: "".join(f"M{fr.fx(v):.1f} {fr.top:.1f}V{fr.bottom:.1f}" for v in vs)  # noqa: E731
    path_y = lambda vs: "".join(f"M{fr.left:.1f} {fr.fy(v):.1f}H{fr.right:.1f}" for v in vs)  # noqa: E731
    if chart.grid != "none":
        xs, xm = (xmaj, xmin) if chart.grid == "both" and chart.xcats is None else ([], [])
        minor = path_x(xm) + path_y(ymin)
        if minor:
            out.append(f'<path d="{minor}" stroke="#ececec" stroke-width="0.6"/>')
        out.append(f'<path d="{path_x(xs) + path_y(ymaj)}" stroke="#d9d9d9" stroke-width="0.8"/>')
    ticks = "".join(f"M{fr.fx(v):.1f} {fr.bottom:.1f}v4" for v in xmaj)
    ticks += "".join(f"M{fr.left:.1f} {fr.fy(v):.1f}h-4" for v in ymaj)
    ticks += "".join(f"M{fr.fx(v):.1f} {fr.bottom:.1f}v2" for v in xmin)
    ticks += "".join(f"M{fr.left:.1f} {fr.fy(v):.1f}h-2" for v in ymin)
    out.append(f'<path d="{ticks}" stroke="#333" stroke-width="0.8"/>')
    return out


def _axes_text(
    chart: Chart,
    fr: Frame,
    xticks: tuple[list[float], list[str], int],
    ymaj: list[float],
    ylabels: list[str],
    title_lines: list[str],
) -> list[str]:
    """The frame, tick labels (x ones at the angle given), axis labels and the title."""
    f, h = chart.font, chart.size[1]
    xmaj, xlabels, angle = xticks
    out = [
        f'<rect x="{fr.left:.1f}" y="{fr.top:.1f}" width="{fr.right - fr.left:.1f}" '
        f'height="{fr.bottom - fr.top:.1f}" fill="none" stroke="#333" stroke-width="0.8"/>',
        f'<g font-size="{f:g}" fill="#222">',
    ]
    for v, s in zip(xmaj, xlabels, strict=True):
        x, y = fr.fx(v), fr.bottom + 6 + f * 0.8
        if angle:
            x, y = (x + f * 0.35, fr.bottom + 7) if angle == 90 else (x, y)
            out.append(
                f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" '
                f'transform="rotate(-{angle} {x:.1f} {y:.1f})">{escape(s)}</text>'
            )
        else:
            out.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle">{escape(s)}</text>')
    for v, s in zip(ymaj, ylabels, strict=True):
        out.append(
            f'<text x="{fr.left - 6:.1f}" y="{fr.fy(v) + f * 0.35:.1f}" '
            f'text-anchor="end">{escape(s)}</text>'
        )
    if chart.xlabel:
        out.append(
            f'<text x="{(fr.left + fr.right) / 2:.1f}" y="{h - 8:.1f}" '
            f'text-anchor="middle">{escape(chart.xlabel)}</text>'
        )
    if chart.ylabel:
        cy = (fr.top + fr.bottom) / 2
        out.append(
            f'<text x="{f + 2:.1f}" y="{cy:.1f}" text-anchor="middle" '
            f'transform="rotate(-90 {f + 2:.1f} {cy:.1f})">{escape(chart.ylabel)}</text>'
        )
    out.append("</g>")
    tf = chart.title_font
    for i, line in enumerate(title_lines):
        out.append(
            f'<text x="{(fr.left + fr.right) / 2:.1f}" y="{8 + tf * (1 + 1.25 * i):.1f}" '
            f'font-size="{tf:g}" text-anchor="middle" fill="#111">{escape(line)}</text>'
        )
    return out


def _path(pts: Iterable[tuple[float, float]]) -> str:
    """An SVG path through the points, consecutive duplicates (after rounding) dropped."""
    parts, last = [], None
    for x, y in pts:
        p = f"{x:.1f} {y:.1f}"
        if p != last:
            parts.append(p)
            last = p
    return "M" + "L".join(parts) if parts else ""


def _stroke(m: Mark) -> str:
    dash = DASHES.get(m.dash)
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    return f'fill="none" stroke="{m.colour}" stroke-width="{m.width:g}"{extra}'


def _mark(m: Mark, fr: Frame, base: float) -> list[str]:
    """One mark's SVG elements."""
    fx, fy = fr.fx, fr.fy
    if m.kind == "hline":
        return [f'<path d="M{fr.left:.1f} {fy(m.y[0]):.1f}H{fr.right:.1f}" {_stroke(m)}/>']
    if m.kind == "bars":
        return _bars(m, fr, base)
    if m.kind in ("step", "band"):
        xs = [x for x in m.x for _ in (0, 1)][1:]
        lower = [y for y in m.y for _ in (0, 1)][:-1]
        if m.kind == "step":
            return [
                f'<path d="{_path(zip(map(fx, xs), map(fy, lower), strict=True))}" {_stroke(m)}/>'
            ]
        upper = [y for y in (m.y2 or []) for _ in (0, 1)][:-1]
        pts = list(zip(map(fx, xs), map(fy, upper), strict=True))
        pts += list(zip(map(fx, reversed(xs)), map(fy, reversed(lower)), strict=True))
        return [
            f'<path d="{_path(pts)}Z" fill="{m.colour}" fill-opacity="{m.alpha:g}" '
            # an outline as matplotlib's: a one-bucket spike stays visible
            f'stroke="{m.colour}" stroke-opacity="{m.alpha:g}" stroke-width="0.8"/>'
        ]
    if m.kind == "stairs":
        xs = [x for x in m.x for _ in (0, 1)]
        ys = [fy(base)] + [fy(y) for y in m.y for _ in (0, 1)] + [fy(base)]
        d = _path(zip(map(fx, xs), ys, strict=True))
        out = []
        if m.fill:
            out.append(f'<path d="{d}Z" fill="{m.colour}" fill-opacity="{m.alpha * 0.6:g}"/>')
        out.append(f'<path d="{d}" {_stroke(m)}/>')
        return out
    out = []
    pts = list(zip(map(fx, m.x), map(fy, m.y), strict=True))
    if m.kind == "line":
        out.append(f'<path d="{_path(pts)}" {_stroke(m)} stroke-linejoin="round"/>')
    if m.marker or m.kind == "points":
        out.append(_markers(pts, m))
    return out + _errors(m, fr, m.colour)


def _markers(pts: list[tuple[float, float]], m: Mark) -> str:
    """Markers as one path: round dots as zero-length round-capped strokes, triangles."""
    r = m.size / 2
    if m.marker == "^":
        d = "".join(f"M{x:.1f} {y - r:.1f}l{r:.1f} {1.6 * r:.1f}h{-2 * r:.1f}Z" for x, y in pts)
        return f'<path d="{d}" fill="{m.colour}"/>'
    d = "".join(f"M{x:.1f} {y:.1f}h0" for x, y in pts)
    return f'<path d="{d}" stroke="{m.colour}" stroke-width="{m.size:g}" stroke-linecap="round"/>'


def _bars(m: Mark, fr: Frame, base: float) -> list[str]:
    """Bars from the axis' bottom (zero on a linear axis) and their error bars."""
    out = [f'<g fill="{m.colour}">']
    y0 = fr.fy(base)
    for x, y in zip(m.x, m.y, strict=True):
        a, b = fr.fx(x - m.width / 2), fr.fx(x + m.width / 2)
        top = fr.fy(y)
        out.append(
            f'<rect x="{a:.1f}" y="{min(top, y0):.1f}" width="{b - a:.1f}" '
            f'height="{abs(y0 - top):.1f}"/>'
        )
    out.append("</g>")
    return out + _errors(m, fr, "#222")


def _errors(m: Mark, fr: Frame, colour: str) -> list[str]:
    """Error bars with caps: y ± err[i] at each point (none without `err`)."""
    d = ""
    for x, y, e in zip(m.x, m.y, m.err or [], strict=False):
        if e > 0:
            cx, lo, hi = fr.fx(x), fr.fy(y - e), fr.fy(y + e)
            d += f"M{cx:.1f} {lo:.1f}V{hi:.1f}M{cx - 3:.1f} {lo:.1f}h6M{cx - 3:.1f} {hi:.1f}h6"
    return [f'<path d="{d}" stroke="{colour}" stroke-width="1"/>'] if d else []
