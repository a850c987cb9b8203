"""Paper-ready plots of samples: histogram (log-y option), CDF, trend, comparisons.

Each function takes one or more (label, Samples) series so that two captures (or two
channels) share one axis. Values are plotted in ns (or the samples' unit); arrays of
10^8 values are reduced before plotting (histogram bins, CDF quantile grid, trend
envelope), never drawn point by point.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from rtlab.analysis.stats import ecdf_points, median, row_quantile
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


def histogram(
    series: Series,
    title: str = "",
    log_y: bool = False,
    bins: int = 200,
    density: bool = False,
    log_x: bool = False,
) -> Figure:
    """log_x=True (OSADL style, with log_y): log-spaced bins, so that a body of 80 µs and
    a tail of 30 ms both show; a linear x axis when any value is ≤ 0."""
    per_unit, unit = _axis(series)
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
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
            ax.stairs(
                counts, edges, label=f"{label} (n={len(s)})", fill=len(nonempty) == 1, alpha=0.8
            )
        if log_x and lo > 0:
            _log_x(ax)
    _label(ax, series, unit, "density" if density else "count", log_y)
    _finish(ax, title, len(series) > 1)
    return fig


def _log_x(ax: Any) -> None:
    """A log x axis labelled 10, 20, 50, 100, … in plain numbers (matplotlib's default
    labels every minor tick as 2×10¹ when the data span less than a decade, overlapping)."""
    lo, hi = ax.dataLim.intervalx  # called after plotting
    wide = lo > 0 and hi / lo > 300  # 1-2-5 labels would crowd
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0,) if wide else (1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _label(ax: Any, series: Series, unit: str, ylabel: str, log_y: bool) -> None:
    ax.set_xlabel(f"{series[0][1].name if series else 'value'} [{unit}]")
    ax.set_ylabel(ylabel)
    if log_y:
        ax.set_yscale("log")


def cdf(series: Series, title: str = "", tail: bool = False, log_x: bool = False) -> Figure:
    """CDF; with tail=True the complementary CDF on a log axis, which shows the rare
    long outliers that decide a worst case; log_x=True a log x axis (when every value
    is > 0) that shows the body and a tail 1000 times longer together."""
    per_unit, unit = _axis(series)
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    for label, s in series:
        if not len(s):
            continue
        x, p = ecdf_points(_values(s, per_unit))
        if tail:
            ax.step(x, np.maximum(1 - p, 1.0 / len(s) / 10), where="post", label=label)
        else:
            ax.step(x, p, where="post", label=label)
    if log_x and all(float(s.values.min()) > 0 for _, s in series if len(s)):
        _log_x(ax)
    _label(ax, series, unit, "1 − CDF" if tail else "CDF", tail)
    _finish(ax, title, len(series) > 1)
    return fig


def trend(series: Series, title: str = "") -> Figure:
    """Value against time: a min/max envelope per time bucket when there are many."""
    per_unit, unit = _axis(series)
    fig, ax = plt.subplots(figsize=(9, 3.5), layout="constrained")
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
            ax.fill_between(
                tb,
                vb.min(axis=1),
                vb.max(axis=1),
                step="post",
                alpha=0.5,
                label=f"{label} (min–max)",
            )
            ax.plot(tb, row_quantile(vb, 0.5), lw=0.6)
        else:
            ax.plot(t, v, ".", ms=1.5, label=label)
    has_time = bool(series) and series[0][1].at is not None
    ax.set_xlabel("time [s]" if has_time else "sample")
    ax.set_ylabel(f"{series[0][1].name if series else 'value'} [{unit}]")
    _finish(ax, title, len(series) > 1)
    return fig


def _finish(ax: plt.Axes, title: str, legend: bool) -> None:
    if title:
        ax.set_title(title)
    if ax.get_xscale() == "linear":
        ax.ticklabel_format(axis="x", useOffset=False, style="plain")
    ax.grid(True, alpha=0.3)
    if legend:
        ax.legend()


def plot(kind: str, series: Series, title: str = "", log_y: bool = False) -> Figure:
    if kind == "hist":
        return histogram(series, title, log_y=log_y)
    if kind == "cdf":
        return cdf(series, title, tail=log_y)
    if kind == "trend":
        return trend(series, title)
    raise ValueError(f"unknown plot kind {kind!r}; one of {', '.join(KINDS)}")


def save(fig: Figure, *paths: str | Path) -> list[Path]:
    """Write the figure to each path (PNG, SVG or PDF from the extension), then close it."""
    written = []
    for path in paths:
        p = Path(path)
        with atomic_path(p) as tmp:
            fig.savefig(tmp, format=p.suffix.lstrip(".") or "png", dpi=150)
        written.append(p)
    plt.close(fig)
    return written
