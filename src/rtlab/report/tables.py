"""An Analysis as a terminal table (rich), Markdown, or CSV."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from rtlab.analysis.stats import Stats, percent_label, quantile_key
from rtlab.analysis.summary import Analysis
from rtlab.report.units import TimeColumn, fmt_duration, fmt_rate, fmt_time

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


def header_lines(an: Analysis, idle: set[str] | None = None) -> list[str]:
    """The capture line, a line per channel (not for `idle` ones: they are folded into
    one line) and a line per latency pair, whatever its channels' edge counts."""
    cap = an.capture
    lo, hi = an.window()
    src = cap.metadata.get("source", "capture")
    inferred = " (inferred from the edges)" if cap.metadata.get("resolution_inferred") else ""
    lines = [
        f"{src}  [{cap.metadata.get('format', '?')}]  tick {_tick(cap.tick_s)}, "
        f"resolution {fmt_duration(cap.resolution)}{inferred}, "
        f"window {fmt_time((hi - lo) * cap.tick_ns, cap.tick_ns)}"
        + (f" (from {fmt_time(lo * cap.tick_ns, cap.tick_ns)})" if lo else "")
        + f", {_count(an.n_edges(), 'edge')}, {_count(len(cap.gaps), 'gap')}"
    ]
    for name, d in an.derived.items():
        if idle and name in idle:
            continue
        f, duty = d.get("frequency_hz"), d.get("duty")
        freq = fmt_rate(f)
        dty = "–" if duty is None else f"{duty * 100:.2f} %"
        lines.append(f"{name}: {_count(an.n_edges(name), 'edge')}, frequency {freq}, duty {dty}")
    for pair, (_, c) in an.latencies.items():
        lines.append(
            f"{pair}: {c['paired']} paired, {c['unpaired']} unpaired, {c['extra']} extra edges"
        )
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _tick(tick_s: Fraction) -> str:
    """The tick as a person writes it, with its rate when that is a round one: 1 µs
    (1 MHz), 160 ns (6.25 MHz), 41.6667 ns (24 MHz)."""
    rate = 1 / tick_s
    text = fmt_duration(tick_s)
    if rate.denominator == 1 or (rate * 100).denominator == 1:
        text += f" ({fmt_rate(float(rate))})"
    return text


def idle_channels(an: Analysis) -> list[str]:
    """Channels with no interval to measure (0 or 1 edge): one folded line, not rows of –."""
    return [n for n, ms in an.channels.items() if ms and all(st.n == 0 for st in ms.values())]


def _cells(an: Analysis, skip: set[str]) -> tuple[list[str], list[list[str]]]:
    """Head and rows of the statistics table: each time column in its own unit (named
    in its head), chosen by the column's values (report/units.py)."""
    qs = an.quantiles
    names = ["mean", "rms", "min", *(f"p{_pct(q)}" for q in qs), "max", "max|dev|", "p50|dev|"]
    stats = [(name, metric, st) for name, metric, st, _ in _rows(an) if name not in skip]
    columns = [
        [st.mean, st.rms, st.min, *(st.quantiles.get(q) for q in qs), st.max, st.max_dev,
         st.abs_dev_quantiles.get(0.5)]
        for _, _, st in stats
    ]  # fmt: skip
    res = float(an.capture.resolution * 10**9)
    fmts = [TimeColumn([c[i] for c in columns], res) for i in range(len(names))]
    head = ["channel", "metric", "n", *(f"{h} {f.unit}" for h, f in zip(names, fmts, strict=True))]
    rows = [
        [name, metric, str(st.n), *(f(v) for f, v in zip(fmts, col, strict=True))]
        for (name, metric, st), col in zip(stats, columns, strict=True)
    ]
    return head, rows


_KEYS = 2  # channel, metric: repeated in every part of a split table


def _column_groups(head: list[str], rows: list[list[str]], width: int | None) -> list[list[int]]:
    """The value columns split into groups whose table fits `width` (None: one group).
    A rich table with the default box takes each column's width + 3, plus 1."""
    cols = list(range(_KEYS, len(head)))
    if width is None:
        return [cols]
    w = [max(len(x) for x in [h, *(r[i] for r in rows)]) + 3 for i, h in enumerate(head)]
    keys = sum(w[:_KEYS]) + 1
    groups: list[list[int]] = [[]]
    for i in cols:
        if groups[-1] and keys + sum(w[j] for j in groups[-1]) + w[i] > width:
            groups.append([])
        groups[-1].append(i)
    return groups


def rich_table(an: Analysis, width: int | None = None) -> Group:
    """Header lines, the idle channels on one line, and the statistics table; when it is
    wider than `width` the value columns are split over several tables (each repeating
    channel and metric), so a number is never cut."""
    idle = idle_channels(an)
    lines = header_lines(an, set(idle))
    if idle:
        lines.append(
            "no interval to measure (0 or 1 edge): "
            + ", ".join(f"{n} ({an.n_edges(n)})" for n in idle)
        )
    head, rows = _cells(an, set(idle))
    parts: list[Any] = [Text(line) for line in lines]
    groups = _column_groups(head, rows, width) if rows else []
    for k, group in enumerate(groups):
        part = f" ({k + 1}/{len(groups)})" if len(groups) > 1 else ""
        table = Table(title=f"timing statistics ({an.edge} edges){part}")
        for i in range(_KEYS):
            # a channel name may wrap on a narrow terminal; numbers never do
            table.add_column(head[i], justify="left", no_wrap=i > 0)
        for i in group:
            table.add_column(head[i], justify="right", no_wrap=True)
        last = None
        for r in rows:
            if last is not None and r[0] != last:
                table.add_section()
            last = r[0]
            table.add_row(*r[:_KEYS], *(r[i] for i in group))
        parts.append(table)
    if an.extremes:
        from rtlab.report.extremes import table_cells

        ehead, erows = table_cells(an)
        table = Table(title="extremes: when each starts (time from the capture's tick 0)")
        for i, h in enumerate(ehead):
            table.add_column(h, justify="left" if i < 3 else "right", no_wrap=i > 0)
        for r in erows:
            table.add_row(*r)
        parts.append(table)
    if rows:
        parts.append(
            Text(
                "rms = population std (RMS jitter); |dev| = |x - mean|; "
                "quantiles are sample values (inverted CDF)"
            )
        )
    return Group(*parts)


def print_table(an: Analysis, console: Console | None = None) -> None:
    """On a terminal, fit its width; piped, the whole table on long lines (never cut)."""
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=100_000)  # rich would fold/cut at 80 columns
            console.print(rich_table(an), overflow="ignore", crop=False)
            return
    console.print(rich_table(an, console.width))


def _pct(q: float) -> str:
    return percent_label(q)


def csv_text(an: Analysis) -> str:
    from rtlab.report.extremes import csv_cells, csv_columns

    qs = an.quantiles
    extreme_cols = csv_columns(an) if an.extremes else []
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
            *extreme_cols,
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
                *(csv_cells(an, name, metric) if extreme_cols else []),
            ]
        )
    return buf.getvalue()


def _num(x: float) -> str:
    return "" if math.isnan(x) else repr(float(x))


def markdown(an: Analysis) -> str:
    """The header lines as a list and the statistics as one table, each time column in
    its own unit (as the terminal table)."""
    out = [f"- {line}" for line in header_lines(an)]
    out.append("")
    head, rows = _cells(an, set())
    keep = [i for i, h in enumerate(head) if not h.startswith("p50|dev|")]
    head = [head[i].replace("|", "\\|").replace("rms", "RMS") for i in keep]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|")
    for r in rows:
        cells = [r[i] for i in keep]
        cells[1] = METRIC_LABELS.get(cells[1], cells[1])
        out.append("| " + " | ".join(cells) + " |")
    if an.extremes:
        from rtlab.report.extremes import table_cells

        ehead, erows = table_cells(an)
        out += ["", "| " + " | ".join(ehead) + " |"]
        out.append("|" + "|".join(["---"] * 3 + ["---:"] * (len(ehead) - 3)) + "|")
        out += ["| " + " | ".join(r) + " |" for r in erows]
    return "\n".join(out) + "\n"
