"""Paper-ready plots of samples: histogram (log-y option), CDF, trend, comparisons.

Each function returns a rtlab.chart.Chart (SVG without matplotlib; PNG/PDF through the
`plot` extra) and takes one or more (label, Samples) series so that two captures (or two
channels) share one axis. Values are plotted in ns (or the samples' unit); arrays of
10^8 values are reduced before plotting (histogram bins, CDF quantile grid, trend
envelope), never drawn point by point.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rtlab.analysis.stats import ecdf_points, median, row_quantile
from rtlab.chart import Chart
from rtlab.chart.svg import render
from rtlab.fsutil import atomic_path
from rtlab.model import Samples

Series = Sequence[tuple[str, Samples]]
KINDS = ("hist", "cdf", "trend")
_TREND_POINTS = 4000


def _axis(series: Series) -> tuple[float, str]:
    """(ns per display unit, unit) for every series of one plot, from the first one's
    typical size, so that a 2 ms latency reads "2.0 ms", not 2000000 with an offset."""
    first = next((s for _, s in series if len(s)), None)
    if first is None:
        return 1.0, "ns"
    if first.unit != "s":
        return 1.0, first.unit
    typical = median(np.abs(first.values[:10_000])) * first.tick_ns
    if typical >= 1e6:
        return 1e6, "ms"
    if typical >= 1e4:
        return 1e3, "µs"
    return 1.0, "ns"


def _values(s: Samples, per_unit: float) -> np.ndarray:
    scale = s.tick_ns if s.unit == "s" else float(s.tick_s)
    return s.values * (scale / per_unit)


def tail_is_far(series: Series) -> bool:
    """True when some series' max lies far beyond its p99.9 (further beyond it than the
    whole body from min to p99.9 spans): on a linear count axis such a tail is a row of
    invisible one-count bins at the end of a stretched x axis."""
    from rtlab.analysis.stats import quantile

    for _, s in series:
        if len(s) < 2:
            continue
        lo, hi = float(s.values.min()), float(s.values.max())
        p999 = quantile(s.values, 0.999)
        if hi - p999 > max(p999 - lo, 1.0):
            return True
    return False


def histogram(
    series: Series,
    title: str = "",
    log_y: bool | None = False,
    bins: int = 200,
    density: bool = False,
    log_x: bool = False,
) -> Chart:
    """log_x=True (OSADL style, with log_y): log-spaced bins, so that a body of 80 µs and
    a tail of 30 ms both show; a linear x axis when any value is ≤ 0. log_y=None: a log
    count axis when the tail is far beyond p99.9 (tail_is_far), said in the title."""
    if log_y is None:
        log_y = tail_is_far(series)
        if log_y:
            title = f"{title} (log count: the max lies far beyond p99.9)".strip()
    per_unit, unit = _axis(series)
    ch = _chart(series, unit, "density" if density else "count", title, size=(504, 288))
    nonempty = [(lbl, s) for lbl, s in series if len(s)]
    if nonempty:
        lo = min(float(_values(s, per_unit).min()) for _, s in nonempty)
        hi = max(float(_values(s, per_unit).max()) for _, s in nonempty)
        if log_x and lo > 0:
            edges = np.geomspace(lo, hi if hi > lo else lo * 1.01, bins + 1)
        else:
            edges = np.linspace(lo, hi if hi > lo else lo + 1, bins + 1)
        for label, s in nonempty:
            counts, _ = np.histogram(_values(s, per_unit), bins=edges, density=density)
            ch.stairs(
                counts, edges, label=f"{label} (n={len(s)})", fill=len(nonempty) == 1, alpha=0.8
            )
        if log_x and lo > 0:
            ch.xscale = "log"
    if log_y:
        ch.yscale = "log"
    return ch


def _chart(series: Series, unit: str, ylabel: str, title: str, size: tuple[int, int]) -> Chart:
    """An empty chart: x labelled by the first series' name and unit, a legend when
    there are several series."""
    name = series[0][1].name if series else "value"
    return Chart(title=title, xlabel=f"{name} [{unit}]", ylabel=ylabel, size=size,
                 legend=len(series) > 1)  # fmt: skip


def cdf(series: Series, title: str = "", tail: bool = False, log_x: bool = False) -> Chart:
    """CDF; with tail=True the complementary CDF on a log axis, which shows the rare
    long outliers that decide a worst case; log_x=True a log x axis (when every value
    is > 0) that shows the body and a tail 1000 times longer together."""
    per_unit, unit = _axis(series)
    ch = _chart(series, unit, "1 − CDF" if tail else "CDF", title, size=(504, 288))
    for label, s in series:
        if not len(s):
            continue
        x, p = ecdf_points(_values(s, per_unit))
        ch.step(x, np.maximum(1 - p, 1.0 / len(s) / 10) if tail else p, label=label)
    if log_x and all(float(s.values.min()) > 0 for _, s in series if len(s)):
        ch.xscale = "log"
    if tail:
        ch.yscale = "log"
    return ch


def trend(series: Series, title: str = "") -> Chart:
    """Value against time: a min/max envelope per time bucket when there are many."""
    per_unit, unit = _axis(series)
    has_time = bool(series) and series[0][1].at is not None
    ch = _chart(series, unit, "", title, size=(648, 252))
    ch.xlabel, ch.ylabel = ("time [s]" if has_time else "sample"), ch.xlabel
    for label, s in series:
        v = _values(s, per_unit)
        if s.at is not None and len(s.at) == v.size:
            t = (s.at - s.at[0]) * float(s.tick_s) if v.size else s.at
        else:
            t = np.arange(v.size, dtype=np.float64)
        if v.size > _TREND_POINTS * 2:
            k = v.size // _TREND_POINTS
            m = k * _TREND_POINTS
            vb = v[:m].reshape(_TREND_POINTS, k)
            tb = t[:m].reshape(_TREND_POINTS, k)[:, 0]
            band = ch.band(tb, vb.min(axis=1), vb.max(axis=1), label=f"{label} (min–max)")
            ch.line(tb, row_quantile(vb, 0.5), colour=band.colour, width=0.6)
        else:
            ch.points(t, v, label=label, size=2.0)
    return ch


def plot(kind: str, series: Series, title: str = "", log_y: bool = False) -> Chart:
    if kind == "hist":  # without --log-y: log counts only when the tail is far
        return histogram(series, title, log_y=True if log_y else None)
    if kind == "cdf":
        return cdf(series, title, tail=log_y)
    if kind == "trend":
        return trend(series, title)
    raise ValueError(f"unknown plot kind {kind!r}; one of {', '.join(KINDS)}")


def save(chart: Chart, *paths: str | Path) -> list[Path]:
    """Write the chart to each path: SVG by rtlab.chart (no matplotlib), PNG or PDF (by
    the extension; PNG without one) through matplotlib, the `plot` extra."""
    fmts = [Path(p).suffix.lstrip(".").lower() or "png" for p in paths]
    if any(f != "svg" for f in fmts):  # before writing anything: the plot extra or one line
        from rtlab.chart import mpl
    written = []
    for path, fmt in zip(paths, fmts, strict=True):
        p = Path(path)
        with atomic_path(p) as tmp:
            if fmt == "svg":
                tmp.write_text(render(chart), encoding="utf-8")
            else:
                mpl.save(chart, tmp, fmt)
        written.append(p)
    return written
