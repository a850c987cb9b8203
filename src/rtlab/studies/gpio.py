"""The GPIO study's view of toggle runs: Table 1, Table 2 and the data of Fig. 2.

    st = gpio_study.study(store, cells)        # None when no cell is a GPIO toggle run
    gpio_study.to_dict(st); gpio_study.markdown(st)

A cell qualifies when its workload is a GPIO kind (rtlab.lab.workloads.gpio) or it has
an `instrument.period` series. Per cell, pooled over its ok runs, one row per source:

- `instrument`: `instrument.period` (T_i), and `instrument.high` + `instrument.low`
  (every level: the inter-event intervals of Fig. 2); the reference.
- `self-timestamped`: the workload's `period`, and the differences of its `write_ts`;
  these include the cost of reading the clock after every write.

Table 1: mean T, f = 1 / mean T, RMS jitter (population RMS of T_i − mean T), max
|T_i − mean T|, n. Table 2: quantiles of T_i and of |T_i − mean T| — the study's
"jitter" column is the quantile of the absolute deviation, not the deviation of the
period's quantile (its C row: mean 2199.42 ns, P05 period 2176 ns, yet P05 jitter
7.42 = |2192 − 2199.42|). Fig. 2: the density of |e_i − e_{i−1} − mean interval| over
every level, high and low (its table: median 69, mean 68.73, max 1979 ns for C — a mean
of 68.73 ns is a mean of absolute values, and 69 ns is far beyond the period's spread,
so it is the levels that deviate). All statistics are rtlab.analysis.stats (exact,
inverted-CDF quantiles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rtlab.analysis.stats import Stats, compute_stats, quantile_key
from rtlab.model import Samples
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import memo, reproduction
from rtlab.studies.gpio_cells import (
    emulated_clock,
    environment,
    implementation,
    is_gpio_cell,
    policy,
)

QUANTILES: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)
TRIM_Q = 0.99  # Fig. 2 shows |deviation| up to the largest P99 of its curves
INSTRUMENT, SELF = "instrument", "self-timestamped"

PUBLISHED_LABEL = "published (Orange Pi Zero 3, RP2040 PIO, 16 ns)"


def _published() -> dict[str, dict[str, Any]]:
    """The study's figures as printed (Tables 1 and 2, the table of Fig. 2; n > 260 000
    each), from its data file rtlab/studies/published/gpio.toml ([table.*])."""
    out = {}
    for impl, t in reproduction.load("gpio").raw["table"].items():
        out[impl] = {
            **t,
            "period_q": dict(zip(QUANTILES, t["period_q"], strict=True)),
            "abs_dev_q": dict(zip(QUANTILES, t["abs_dev_q"], strict=True)),
        }
    return out


PUBLISHED: dict[str, dict[str, Any]] = _published()

_LANGUAGES = {"c": "C", "rust": "Rust", "kotlin": "Kotlin/Native", "kotlin-native": "Kotlin/Native"}


@dataclass
class SourceStats:
    """One source of one cell: the period statistics and, when recorded, the levels'."""

    source: str
    runs: int
    period: Stats
    levels: Stats | None  # inter-event intervals (Fig. 2)
    level_samples: Samples | None = field(default=None, repr=False)


@dataclass
class CellStudy:
    label: str
    implementation: str
    policy: str
    condition: str
    environment: str  # "" (a board, as far as the runs say), "emulated (…)", "virtual machine (…)"
    sources: list[SourceStats]
    clock: str = ""  # emulated: "host" or "icount" (gpio_cells.emulated_clock)


@dataclass
class Curve:
    label: str
    cell: str
    n: int
    density: np.ndarray  # per ns, normalized by all n values: its area is the share shown
    trimmed_share: float  # share of values beyond the cutoff, not drawn
    median_ns: float
    mean_ns: float
    max_ns: float


@dataclass
class Fig2:
    source: str
    cutoff_ns: float
    edges_ns: np.ndarray
    curves: list[Curve]


@dataclass
class Study:
    cells: list[CellStudy]
    figures: list[Fig2]
    emulated: list[str]  # distinct environment labels that are emulated


def _stats(s: Samples | None) -> Stats | None:
    return compute_stats(s, (*QUANTILES, TRIM_Q)) if s is not None and len(s) else None


# ------------------------------------------------------------------ the study


def _cell(store: Store, cr: results.CellRuns) -> CellStudy | None:
    ids = cr.ok_ids
    sources = []
    plan = (
        (INSTRUMENT, ["instrument.period"], ["instrument.high", "instrument.low"], False),
        (SELF, ["period"], ["write_ts"], True),
    )
    for source, period_names, level_names, diff in plan:
        per, runs = results.pool(store, ids, period_names)
        pst = _stats(per)
        if pst is None:
            continue
        lv, _ = results.pool(store, ids, level_names, diff=diff)
        sources.append(SourceStats(source, runs, pst, _stats(lv), lv))
    if not sources:
        return None
    ok = [r for r in cr.runs if r["status"] == "ok"]
    return CellStudy(
        cr.label, implementation(cr), policy(cr), cr.condition, environment(ok), sources,
        emulated_clock(ok),
    )  # fmt: skip


def _abs_dev_ns(s: Samples, mean_ns: float) -> np.ndarray:
    return np.abs(s.values * s.tick_ns - mean_ns)


def _figure(source: str, cells: list[CellStudy]) -> Fig2 | None:
    have = [
        (c, src)
        for c in cells
        for src in c.sources
        if src.source == source and src.levels is not None and src.level_samples is not None
    ]
    if not have:
        return None
    cutoff = max(src.levels.abs_dev_quantiles[TRIM_Q] for _, src in have if src.levels)
    tick = max(src.level_samples.tick_ns for _, src in have if src.level_samples is not None)
    # Bins a whole number of ticks wide: quantized values never alias into a comb.
    width = tick * max(1, math.ceil(cutoff / 120 / tick)) if cutoff > 0 else tick
    edges = np.arange(int(cutoff // width) + 2) * width
    # Name curves by what differs between them: the implementation, then the rest.
    dims = [
        [c.implementation for c, _ in have],
        [c.policy for c, _ in have],
        [c.condition for c, _ in have],
        [c.environment for c, _ in have],
    ]
    varying = [d for i, d in enumerate(dims) if i == 0 or len(set(d)) > 1]
    curves = []
    for k, (c, src) in enumerate(have):
        assert src.levels is not None and src.level_samples is not None
        dev = _abs_dev_ns(src.level_samples, src.levels.mean)
        n = dev.size
        shown = dev[dev <= cutoff * (1 + 1e-12) + 1e-9]
        counts, _ = np.histogram(shown, bins=edges)
        label = " · ".join(str(d[k]) for d in varying if d[k])
        curves.append(
            Curve(
                label,
                c.label,
                n,
                counts / (n * width),
                (n - shown.size) / n,
                src.levels.abs_dev_quantiles[0.5],
                src.levels.mean_abs_dev,
                src.levels.max_dev,
            )
        )
    return Fig2(source, cutoff, edges, curves)


@memo.per_report
def study(store: Store, cells: dict[str, results.CellRuns]) -> Study | None:
    """The study's view of the GPIO cells among `cells`; None when there is none."""
    found = [
        cs
        for cr in cells.values()
        if is_gpio_cell(store, cr) and (cs := _cell(store, cr)) is not None
    ]
    if not found:
        return None
    figures = [f for s in (INSTRUMENT, SELF) if (f := _figure(s, found)) is not None]
    emulated = sorted({c.environment for c in found if c.environment.startswith("emulated")})
    return Study(found, figures, emulated)


# ------------------------------------------------------------------ rows


def _f(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def table1(st: Study) -> list[dict[str, Any]]:
    rows = []
    for c in st.cells:
        for s in c.sources:
            p = s.period
            rows.append(
                {
                    "cell": c.label,
                    "implementation": c.implementation,
                    "policy": c.policy,
                    "condition": c.condition,
                    "environment": c.environment,
                    "source": s.source,
                    "runs": s.runs,
                    "n": p.n,
                    "mean_ns": _f(p.mean),
                    "freq_mhz": 1e3 / p.mean if p.mean > 0 else None,
                    "rms_ns": _f(p.rms),
                    "max_dev_ns": _f(p.max_dev),
                    "resolution_ns": p.resolution,
                }
            )
    return rows


def table2(st: Study) -> list[dict[str, Any]]:
    rows = []
    for c in st.cells:
        for s in c.sources:
            rows.append(
                {
                    "cell": c.label,
                    "implementation": c.implementation,
                    "source": s.source,
                    "period_q": {quantile_key(q): _f(s.period.quantiles[q]) for q in QUANTILES},
                    "abs_dev_q": {
                        quantile_key(q): _f(s.period.abs_dev_quantiles[q]) for q in QUANTILES
                    },
                }
            )
    return rows


def fig2_rows(st: Study) -> list[dict[str, Any]]:
    return [
        {
            "source": f.source,
            "cell": cv.cell,
            "label": cv.label,
            "n": cv.n,
            "median_ns": _f(cv.median_ns),
            "mean_ns": _f(cv.mean_ns),
            "max_ns": _f(cv.max_ns),
            "cutoff_ns": f.cutoff_ns,
            "trimmed_share": cv.trimmed_share,
        }
        for f in st.figures
        for cv in f.curves
    ]


def published() -> dict[str, Any]:
    return {
        "label": PUBLISHED_LABEL,
        "rows": [
            {
                "implementation": impl,
                **{k: v for k, v in p.items() if k not in ("period_q", "abs_dev_q")},
                "period_q": {quantile_key(q): v for q, v in p["period_q"].items()},
                "abs_dev_q": {quantile_key(q): v for q, v in p["abs_dev_q"].items()},
            }
            for impl, p in PUBLISHED.items()
        ],
    }


def to_dict(st: Study) -> dict[str, Any]:
    """JSON-able: the measured tables (ns, MHz), Fig. 2's table, and the published block
    apart (never mixed into measured rows)."""
    return {
        "emulated": st.emulated,
        "quantiles": [quantile_key(q) for q in QUANTILES],
        "table1": table1(st),
        "table2": table2(st),
        "fig2": fig2_rows(st),
        "published": published(),
    }


# ------------------------------------------------------------------ Markdown


def fmt(x: float | None, digits: int = 2) -> str:
    """A number for the tables: integers as integers (a period of 2,192 ns), else
    `digits` decimals (a deviation of 7.42 ns)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if float(x).is_integer():
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(st: Study) -> str:
    qs = [quantile_key(q) for q in QUANTILES]
    out = ["## GPIO study" + (f" — {', '.join(st.emulated)}" if st.emulated else ""), ""]
    icount = [e for e in st.emulated if "icount" in e]
    if icount:
        out += [
            "Emulated under QEMU icount: the guest's clock counts instructions (at shift 0",
            "one ns is one instruction), so every ns below is an instruction count of the",
            "emulated CPU, not time on a board; deterministic. Compare implementations by",
            "ratio only.",
            "",
        ]
    elif st.emulated:
        out += [
            "Emulated target: timings are of the emulator on its host, not of a board;",
            "compare implementations by ratio only.",
            "",
        ]
    out += [
        "Table 1 (pooled over each cell's ok runs; instrument = reference, "
        "self-timestamped includes the clock read after every write)",
        "",
        "| cell | implementation | policy | condition | source | runs | n | mean period ns "
        "| frequency MHz | RMS jitter ns | max deviation ns | resolution ns |",
        "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in table1(st):
        out.append(
            f"| {_md_cell(r['cell'])} | {r['implementation']} | {r['policy']} "
            f"| {r['condition']}{' (' + r['environment'] + ')' if r['environment'] else ''} "
            f"| {r['source']} | {r['runs']} | {r['n']:,} | {fmt(r['mean_ns'])} "
            f"| {fmt(r['freq_mhz'], 4)} | {fmt(r['rms_ns'])} | {fmt(r['max_dev_ns'])} "
            f"| {fmt(r['resolution_ns'])} |"
        )
    out += [
        "",
        "Table 2: quantiles (inverted CDF) of the period T_i and of |T_i − mean T|, ns",
        "",
        "| cell | source | "
        + " | ".join(f"T P{_pct(q)}" for q in qs)
        + " | "
        + " | ".join(f"\\|dev\\| P{_pct(q)}" for q in qs)
        + " |",
        "| --- | --- | " + " | ".join("---:" for _ in range(2 * len(qs))) + " |",
    ]
    for r in table2(st):
        nums = [fmt(r["period_q"][k]) for k in qs] + [fmt(r["abs_dev_q"][k]) for k in qs]
        out.append(f"| {_md_cell(r['cell'])} | {r['source']} | " + " | ".join(nums) + " |")
    if st.figures:
        out += [
            "",
            "Fig. 2: |inter-event interval − mean interval| (every high and low level), ns",
            "",
            "| source | cell | n | median | mean | max | beyond the plotted range |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for r in fig2_rows(st):
            out.append(
                f"| {r['source']} | {_md_cell(r['cell'])} | {r['n']:,} | {fmt(r['median_ns'])} "
                f"| {fmt(r['mean_ns'])} | {fmt(r['max_ns'])} "
                f"| {r['trimmed_share']:.2%} > {fmt(r['cutoff_ns'])} ns |"
            )
    out += [
        "",
        f"Reference, {PUBLISHED_LABEL}; not measured here:",
        "",
        "| implementation | mean period ns | frequency MHz | RMS jitter ns | max deviation ns "
        "| T P5–P95 ns | \\|dev\\| P5–P95 ns | Fig. 2 median / mean / max ns |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- | --- |",
    ]
    for impl, p in PUBLISHED.items():
        f2 = p["fig2"]
        out.append(
            f"| {impl} | {fmt(p['mean_ns'])} | {p['freq_mhz']} | {fmt(p['rms_ns'])} "
            f"| {fmt(p['max_dev_ns'])} | {'/'.join(fmt(v) for v in p['period_q'].values())} "
            f"| {'/'.join(fmt(v) for v in p['abs_dev_q'].values())} "
            f"| {fmt(f2['median_ns'])} / {fmt(f2['mean_ns'])} / {fmt(f2['max_ns'])} |"
        )
    return "\n".join(out) + "\n"


def _pct(key: str) -> str:
    return format(float(key) * 100, "g")
