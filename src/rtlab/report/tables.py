"""An Analysis as a terminal table (rich), Markdown, or CSV."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from rtlab.analysis.stats import Stats, quantile_key
from rtlab.analysis.summary import Analysis
from rtlab.model import format_tick

METRIC_LABELS = {
    "period": "period",
    "high": "high width",
    "low": "low width",
    "interval": "interval",
    "c2c": "cycle-to-cycle",
}


def fmt_ns(x: float | None) -> str:
    """A time in ns with a unit that keeps 3-4 significant digits."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    ax = abs(x)
    if ax >= 1e9:
        return f"{x / 1e9:.4g} s"
    if ax >= 1e6:
        return f"{x / 1e6:.4g} ms"
    if ax >= 1e4:
        return f"{x / 1e3:.4g} µs"
    if ax >= 100 or x == int(x):
        return f"{x:.0f} ns" if ax >= 100 else f"{x:g} ns"
    return f"{x:.3g} ns"


def fmt_plain_ns(x: float | None) -> str:
    """A time in ns as a bare number (the table's unit is ns): 2,192 or 7.42."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.3g}"


def _rows(an: Analysis) -> Iterator[tuple[str, str, Stats, dict[str, int] | None]]:
    for name, metrics in an.channels.items():
        for metric, st in metrics.items():
            yield name, metric, st, None
    for pair, (st, counts) in an.latencies.items():
        yield pair, "latency", st, counts


def header_lines(an: Analysis) -> list[str]:
    cap = an.capture
    lo, hi = cap.window()
    src = cap.metadata.get("source", "capture")
    lines = [
        f"{src}  [{cap.metadata.get('format', '?')}]  tick {format_tick(cap.tick_s)}, "
        f"resolution {format_tick(cap.resolution)}, window {fmt_ns((hi - lo) * cap.tick_ns)}, "
        f"{cap.n_edges} edges, {len(cap.gaps)} gaps"
    ]
    for name, d in an.derived.items():
        f, duty = d.get("frequency_hz"), d.get("duty")
        freq = "–" if f is None else f"{f / 1e6:.6g} MHz" if f >= 1e5 else f"{f:.6g} Hz"
        dty = "–" if duty is None else f"{duty * 100:.2f} %"
        lines.append(f"{name}: {len(cap[name])} edges, frequency {freq}, duty {dty}")
    for pair, (_, c) in an.latencies.items():
        lines.append(
            f"{pair}: {c['paired']} paired, {c['unpaired']} unpaired, {c['extra']} extra edges"
        )
    return lines


def rich_table(an: Analysis) -> Group:
    qs = an.quantiles
    table = Table(
        title=f"timing statistics ({an.edge} edges), ns",
        caption="rms = population std (RMS jitter); |dev| = |x - mean|; "
        "quantiles are sample values (inverted CDF)",
    )
    for col in ("channel", "metric", "n", "mean", "rms", "min"):
        left = col in ("channel", "metric")
        table.add_column(col, justify="left" if left else "right", no_wrap=True)
    for q in qs:
        table.add_column(f"p{_pct(q)}", justify="right", no_wrap=True)
    for col in ("max", "max|dev|", "p50|dev|"):
        table.add_column(col, justify="right", no_wrap=True)
    last = None
    for name, metric, st, _ in _rows(an):
        if last is not None and name != last:
            table.add_section()
        last = name
        f = fmt_plain_ns
        table.add_row(
            name,
            metric,
            str(st.n),
            f(st.mean),
            f(st.rms),
            f(st.min),
            *(f(st.quantiles.get(q)) for q in qs),
            f(st.max),
            f(st.max_dev),
            f(st.abs_dev_quantiles.get(0.5)),
        )
    return Group(*(Text(line) for line in header_lines(an)), table)


def print_table(an: Analysis, console: Console | None = None) -> None:
    (console or Console()).print(rich_table(an))


def _pct(q: float) -> str:
    return format(q * 100, "g")


def csv_text(an: Analysis) -> str:
    qs = an.quantiles
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "channel",
            "metric",
            "n",
            "mean_ns",
            "rms_ns",
            "min_ns",
            "max_ns",
            "max_dev_ns",
            "mean_abs_dev_ns",
            "pkpk_ns",
            *(f"q{quantile_key(q)}_ns" for q in qs),
            *(f"absdev_q{quantile_key(q)}_ns" for q in qs),
            "unpaired",
            "extra",
        ]
    )
    for name, metric, st, counts in _rows(an):
        w.writerow(
            [
                name,
                metric,
                st.n,
                *(_num(v) for v in (st.mean, st.rms, st.min, st.max, st.max_dev)),
                _num(st.mean_abs_dev),
                _num(st.pkpk),
                *(_num(st.quantiles[q]) for q in qs),
                *(_num(st.abs_dev_quantiles[q]) for q in qs),
                "" if counts is None else counts["unpaired"],
                "" if counts is None else counts["extra"],
            ]
        )
    return buf.getvalue()


def _num(x: float) -> str:
    return "" if math.isnan(x) else repr(float(x))


def markdown(an: Analysis) -> str:
    qs = an.quantiles
    out = [f"- {line}" for line in header_lines(an)]
    out.append("")
    head = ["channel", "metric", "n", "mean", "RMS", "min", *(f"p{_pct(q)}" for q in qs)]
    head += ["max", "max \\|dev\\|"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|")
    for name, metric, st, _ in _rows(an):
        cells = [name, METRIC_LABELS.get(metric, metric), str(st.n)]
        cells += [fmt_ns(v) for v in (st.mean, st.rms, st.min)]
        cells += [fmt_ns(st.quantiles[q]) for q in qs]
        cells += [fmt_ns(st.max), fmt_ns(st.max_dev)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
