"""A chart's legend in SVG: one row per labelled mark (its swatch and label), an optional
title, placed in the corner of the plot area that covers the fewest data points."""

from __future__ import annotations

from xml.sax.saxutils import escape

from rtlab.chart import DASHES, Chart, Mark
from rtlab.chart.layout import Frame, text_width

PAD = 6.0


def _swatch(m: Mark, x: float, y: float) -> str:
    """A 20-px sample of the mark at (x, y) (its vertical centre)."""
    if m.kind in ("stairs", "band", "bars"):
        opacity = m.alpha * 0.6 if m.kind == "stairs" and m.fill else m.alpha
        fill = m.colour if m.fill or m.kind == "bars" else "none"
        return (
            f'<rect x="{x:.1f}" y="{y - 5:.1f}" width="20" height="10" fill="{fill}" '
            f'fill-opacity="{opacity:g}" stroke="{m.colour}" stroke-width="1.2"/>'
        )
    out = ""
    if m.kind in ("line", "step"):
        dash = DASHES.get(m.dash)
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        out += (
            f'<path d="M{x:.1f} {y:.1f}h20" stroke="{m.colour}" stroke-width="{m.width:g}"{extra}/>'
        )
    if m.marker or m.kind == "points":
        r = max(m.size, 4.0) / 2
        if m.marker == "^":
            out += (
                f'<path d="M{x + 10:.1f} {y - r:.1f}l{r:.1f} {1.6 * r:.1f}h{-2 * r:.1f}Z" '
                f'fill="{m.colour}"/>'
            )
        else:
            out += f'<circle cx="{x + 10:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{m.colour}"/>'
    return out


def _crowding(chart: Chart, fr: Frame, box: tuple[float, float, float, float]) -> float:
    """How much of the marks the box (x0, y0, x1, y1) in px would cover: points in it,
    and a bar's overlap area counted as one point per 20 px²."""
    x0, y0, x1, y1 = box
    n = 0.0
    for m in chart.marks:
        if m.kind == "hline":
            n += 5 * int(y0 <= fr.fy(m.y[0]) <= y1)
            continue
        ys = m.y if m.kind != "band" else (m.y2 or m.y)
        step = max(1, len(ys) // 400)
        for x, y in list(zip(m.x, ys, strict=False))[::step]:
            if m.kind == "bars":
                a, b = fr.fx(x - m.width / 2), fr.fx(x + m.width / 2)
                w = max(0.0, min(b, x1) - max(a, x0))
                n += w * max(0.0, y1 - max(fr.fy(y), y0)) / 20
            else:
                n += step * int(x0 <= fr.fx(x) <= x1 and y0 <= fr.fy(y) <= y1)
    return n


def legend_top_height(chart: Chart) -> float:
    """The px a legend row above the plot area takes (0 without one)."""
    labelled = chart.legend and chart.legend_top and any(m.label for m in chart.marks)
    return chart.legend_font * 1.6 if labelled else 0.0


def _top_row(chart: Chart, fr: Frame, entries: list[Mark]) -> list[str]:
    """The legend as one centred row between the title and the plot area."""
    f = chart.legend_font
    widths = [28 + text_width(m.label or "", f) + 12 for m in entries]
    x = (fr.left + fr.right - sum(widths)) / 2
    cy = fr.top - f * 0.9
    out = [f'<g font-size="{f:g}" fill="#222">']
    for m, w in zip(entries, widths, strict=True):
        out.append(_swatch(m, x, cy))
        out.append(f'<text x="{x + 26:.1f}" y="{cy + f * 0.35:.1f}">{escape(m.label or "")}</text>')
        x += w
    return [*out, "</g>"]


def legend_svg(chart: Chart, fr: Frame) -> list[str]:
    """The legend's SVG elements (none when no mark has a label)."""
    entries = [m for m in chart.marks if m.label]
    if not entries:
        return []
    if chart.legend_top:
        return _top_row(chart, fr, entries)
    f = chart.legend_font
    row = f * 1.45
    rows = len(entries) + (1 if chart.legend_title else 0)
    width = PAD * 2 + max(
        [28 + text_width(m.label or "", f) for m in entries] + [text_width(chart.legend_title, f)]
    )
    height = PAD * 2 + rows * row
    corners = [
        (fr.right - 8 - width, fr.top + 8),
        (fr.left + 8, fr.top + 8),
        ((fr.left + fr.right - width) / 2, fr.top + 8),
        (fr.right - 8 - width, fr.bottom - 8 - height),
        (fr.left + 8, fr.bottom - 8 - height),
    ]
    x, y = min(
        corners, key=lambda c: _crowding(chart, fr, (c[0], c[1], c[0] + width, c[1] + height))
    )
    out = [
        f'<g font-size="{f:g}" fill="#222">',
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" rx="3" '
        'fill="white" fill-opacity="0.85" stroke="#ccc" stroke-width="0.8"/>',
    ]
    cy = y + PAD + row / 2
    if chart.legend_title:
        out.append(
            f'<text x="{x + width / 2:.1f}" y="{cy + f * 0.35:.1f}" '
            f'text-anchor="middle">{escape(chart.legend_title)}</text>'
        )
        cy += row
    for m in entries:
        out.append(_swatch(m, x + PAD, cy))
        out.append(
            f'<text x="{x + PAD + 28:.1f}" y="{cy + f * 0.35:.1f}">{escape(m.label or "")}</text>'
        )
        cy += row
    out.append("</g>")
    return out
