"""The user-vs-kernel study's figure: actual against programmed period per method and
kernel, log axes (p99.9 as the line, mean as the dots), the ideal y = x as a guide.
The numbers come from rtlab.studies.user_vs_kernel; this only draws them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from rtlab.studies.user_vs_kernel import Study


def actual_vs_programmed(st: Study, condition: str) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
    rows = [r for r in st.rows if r.condition == condition]
    lo = min(r.period_us for r in rows)
    hi = max(max(r.p999_us, r.period_us) for r in rows)
    ax.plot([lo, hi], [lo, hi], color="0.6", lw=1, ls=":", label="actual = programmed")
    for method, kernel in sorted({(r.method, r.kernel) for r in rows}):
        rs = sorted(
            (r for r in rows if (r.method, r.kernel) == (method, kernel)), key=lambda r: r.period_us
        )
        x = [r.period_us for r in rs]
        ls = "-" if kernel == "PREEMPT_RT" else "--"
        (line,) = ax.plot(
            x, [r.p999_us for r in rs], ls=ls, marker="^", ms=4, label=f"{method}, {kernel} (p99.9)"
        )
        ax.plot(x, [r.mean_us for r in rs], ls="none", marker="o", ms=3, color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("programmed period [µs]")
    ax.set_ylabel("actual period [µs] (p99.9 line, mean dots)")
    emu = " — EMULATED: " + "; ".join(st.emulated) if st.emulated else ""
    ax.set_title(f"actual vs programmed period, {condition}{emu}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return fig
