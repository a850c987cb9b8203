"""The GPIO study's Fig. 2 as a chart: densities of |interval − mean interval| for every
implementation on one axis, cut at the central range.

The densities are computed in rtlab.studies.gpio (Fig2); this only draws them.
"""

from __future__ import annotations

from rtlab.chart import Chart
from rtlab.studies.gpio import TRIM_Q, Fig2, fmt


def density(fig2: Fig2, title: str = "") -> Chart:
    """One stairs line per implementation, in one display unit for every curve (from the
    plotted range); the trim stated in the legend's title."""
    per_unit, unit = (1e3, "µs") if fig2.cutoff_ns >= 1e4 else (1.0, "ns")
    edges = [float(e) / per_unit for e in fig2.edges_ns]
    # The trim, stated where the eye is: the legend's title; each curve's share beyond
    # it in its entry (densities are normalized by every value: area = share shown).
    ch = Chart(
        title=title or f"Fig. 2: inter-event deviation ({fig2.source})",
        xlabel=f"|interval − mean interval| [{unit}]",
        ylabel=f"density [1/{unit}]",
        size=(504, 288),
        xlim=(0.0, edges[-1]),
        legend=True,
        legend_font=8,
        legend_title=f"shown: 0 – {fmt(fig2.cutoff_ns / per_unit)} {unit} "
        f"(the largest P{TRIM_Q * 100:g} of the curves)",
    )
    for cv in fig2.curves:
        ch.stairs(
            [float(d) * per_unit for d in cv.density],
            edges,
            width=1.4,
            label=f"{cv.label} (n={cv.n:,}; {cv.trimmed_share:.2%} beyond)",
        )
    return ch
