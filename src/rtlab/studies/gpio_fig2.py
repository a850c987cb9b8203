"""The GPIO study's Fig. 2 as a matplotlib figure: densities of |interval − mean
interval| for every implementation on one axis, cut at the central range.

The densities are computed in rtlab.studies.gpio (Fig2); this only draws them.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from rtlab.studies.gpio import TRIM_Q, Fig2, fmt


def density(fig2: Fig2, title: str = "") -> Figure:
    # One display unit for every curve, from the plotted range.
    per_unit, unit = (1e3, "µs") if fig2.cutoff_ns >= 1e4 else (1.0, "ns")
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    edges = fig2.edges_ns / per_unit
    for cv in fig2.curves:
        ax.stairs(
            cv.density * per_unit,
            edges,
            label=f"{cv.label} (n={cv.n:,}; {cv.trimmed_share:.2%} beyond)",
            lw=1.4,
        )
    ax.set_xlim(0, edges[-1])
    ax.set_xlabel(f"|interval − mean interval| [{unit}]")
    ax.set_ylabel(f"density [1/{unit}]")
    ax.set_title(title or f"Fig. 2: inter-event deviation ({fig2.source})")
    ax.grid(True, alpha=0.3)
    # The trim, stated where the eye is: the legend's title; each curve's share beyond
    # it in its entry (densities are normalized by every value: area = share shown).
    ax.legend(
        fontsize=8,
        title_fontsize=8,
        title=f"shown: 0 – {fmt(fig2.cutoff_ns / per_unit)} {unit} "
        f"(the largest P{TRIM_Q * 100:g} of the curves)",
    )
    return fig
