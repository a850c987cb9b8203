"""The user-vs-kernel study's figure: actual against programmed period per method and
kernel, log axes (p99.9 as the line, mean as the dots), the ideal y = x as a guide.
The numbers come from rtlab.studies.user_vs_kernel; this only draws them."""

from __future__ import annotations

from rtlab.chart import Chart
from rtlab.studies.user_vs_kernel import Study


def actual_vs_programmed(st: Study, condition: str) -> Chart:
    """The chart of one condition (idle, loaded…): a dotted y = x guide, one line per
    (method, kernel), solid for PREEMPT_RT, dashed otherwise."""
    emu = " — EMULATED: " + "; ".join(st.emulated) if st.emulated else ""
    ch = Chart(
        title=f"actual vs programmed period, {condition}{emu}",
        xlabel="programmed period [µs]",
        ylabel="actual period [µs] (p99.9 line, mean dots)",
        xscale="log",
        yscale="log",
        size=(504, 324),
        legend=True,
        title_font=9,
        legend_font=7,
    )
    rows = [r for r in st.rows if r.condition == condition]
    lo = min(r.period_us for r in rows)
    hi = max(max(r.p999_us, r.period_us) for r in rows)
    ch.line([lo, hi], [lo, hi], colour="#999999", dash=":", width=1, label="actual = programmed")
    for method, kernel in sorted({(r.method, r.kernel) for r in rows}):
        rs = sorted(
            (r for r in rows if (r.method, r.kernel) == (method, kernel)), key=lambda r: r.period_us
        )
        x = [r.period_us for r in rs]
        dash = "-" if kernel == "PREEMPT_RT" else "--"
        line = ch.line(
            x,
            [r.p999_us for r in rs],
            dash=dash,
            marker="^",
            size=5,
            label=f"{method}, {kernel} (p99.9)",
        )
        ch.points(x, [r.mean_us for r in rs], colour=line.colour, size=4)
    return ch
