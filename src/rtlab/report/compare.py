"""BASE vs NEW: change of median, p99, p99.9 and max with bootstrap confidence intervals,
and `--fail-if` gates so a CI job can hold a latency budget.

Selections pair up by cell label (two specs with the same matrix compare cell by cell);
two single cells (or runs) pair with each other whatever their labels. The estimate
pools a cell's repetitions. The 95 % interval is over runs (rtlab.analysis.runchange:
Welch t on the logs of each run's quantile), so it needs ≥ 2 ok runs per side; without
them it is None with the reason, and a gate on it refuses to decide. Gates test the point
estimate, or with on="ci" the interval's bound nearest to passing (fail only when the
change is sure).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from rich.markup import escape
from rich.table import Table

from rtlab.analysis.runchange import change_intervals, run_quantiles
from rtlab.results import Store, StoreError
from rtlab.results import query as results

METRICS: dict[str, float] = {"median": 0.5, "p99": 0.99, "p99.9": 0.999, "max": 1.0}
ALIASES = {"p50": "median", "p999": "p99.9", "p100": "max"}
_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
_GATE = re.compile(
    r"^\s*([a-z0-9.]+)\s*(>=|<=|>|<)\s*([+-]?)\s*([0-9]+(?:\.[0-9]+)?)\s*(%|ns|us|µs|ms|s)\s*$"
)


@dataclass
class MetricChange:
    metric: str
    base_ns: float
    new_ns: float
    change_pct: float
    ci_low_pct: float | None  # None: no interval, ci_note says why
    ci_high_pct: float | None
    ci_note: str = ""


@dataclass
class SeriesChange:
    base: str  # cell labels
    new: str
    series: str
    n_base: int
    n_new: int
    metrics: list[MetricChange] = field(default_factory=list)
    runs_base: int = 0  # ok runs with this series: the interval's sample sizes
    runs_new: int = 0
    # what tells two different cells of one label apart (spec, cell key or runs): "" when
    # the labels differ or both sides are the same cell
    base_tag: str = ""
    new_tag: str = ""

    def names(self) -> str:
        """'BASE → NEW' for messages; two different cells of one label never both print
        as 'wake@idle' (a cell against itself stays 'wake@idle → wake@idle')."""
        b = f"{self.base} ({self.base_tag})" if self.base_tag else self.base
        n = f"{self.new} ({self.new_tag})" if self.new_tag else self.new
        return f"{b} → {n}"


@dataclass
class Gate:
    text: str
    metric: str
    op: str
    value: float  # percent (relative) or ns
    kind: str  # "pct" (relative change), "delta" (signed ns change), "abs" (new value, ns)

    def violated(self, m: MetricChange, on: str = "estimate") -> float | None:
        """The measured quantity when the gate fails, else None.

        on="ci": the gate fails only when the whole 95 % interval of the change is past
        the bound (the bound of the interval nearest to passing is tested), so run-to-run
        noise on a shared CI machine does not fail a build; on="estimate" tests the
        point estimate. Without an interval (fewer than 2 runs a side) on="ci" is an
        error: passing silently would claim what the data cannot show.
        """
        if on not in ("estimate", "ci"):
            raise ValueError(f"gates test 'estimate' or 'ci', not {on!r}")
        pct = m.change_pct
        if on == "ci":
            bound = m.ci_low_pct if self.op in (">", ">=") else m.ci_high_pct
            if bound is None or not np.isfinite(bound):
                raise ValueError(f"gate {self.text!r} on the interval: no interval ({m.ci_note})")
            pct = bound
        new_ns = m.new_ns if on == "estimate" else m.base_ns * (1 + pct / 100)
        x = {"pct": pct, "delta": new_ns - m.base_ns, "abs": new_ns}[self.kind]
        hit = {
            ">": x > self.value,
            ">=": x >= self.value,
            "<": x < self.value,
            "<=": x <= self.value,
        }[self.op]
        return x if hit else None


def parse_gate(text: str) -> Gate:
    m = _GATE.match(text)
    if not m:
        raise ValueError(
            f"gate {text!r}: expected METRIC OP VALUE, e.g. 'p99 > +10%', 'max > 500us', "
            f"'median > +2us' (metrics: {', '.join(METRICS)})"
        )
    metric, op, sign, num, unit = m.groups()
    metric = ALIASES.get(metric, metric)
    if metric not in METRICS:
        raise ValueError(f"gate {text!r}: unknown metric {metric!r}; one of {', '.join(METRICS)}")
    value = float(num) * (-1 if sign == "-" else 1)
    if unit == "%":
        return Gate(text, metric, op, value, "pct")
    value *= _UNITS[unit]
    return Gate(text, metric, op, value, "delta" if sign else "abs")


def _stats(v: np.ndarray) -> np.ndarray:
    return run_quantiles([v], list(METRICS.values()))[0]


def _per_run(store: Store, ids: list[str], name: str) -> np.ndarray:
    """runs × METRICS: each ok run's figures of series `name` in ns (runs without it left
    out), one run in memory at a time."""
    rows = []
    for rid in ids:
        s = results.pooled(store, [rid], name, None)
        if len(s) and s.unit == "s":
            rows.append(_stats(s.values * float(s.tick_s * 10**9)))
    return np.array(rows).reshape(len(rows), len(METRICS))


def _pairs(
    base: dict[str, results.CellRuns], new: dict[str, results.CellRuns]
) -> list[tuple[results.CellRuns, results.CellRuns]]:
    if len(base) == 1 and len(new) == 1:
        return [(next(iter(base.values())), next(iter(new.values())))]
    # Pair by the label the spec gave; a side with two cells of one label (a parameter
    # edited between runs of a spec) has no single partner: never pool them.
    sides = {"BASE": _by_label(base), "NEW": _by_label(new)}
    common = [k for k in sides["BASE"] if k in sides["NEW"]]
    if not common:
        raise StoreError(
            "BASE and NEW share no cell label: compare two specs with the same matrix, "
            "or two single cells/runs"
        )
    for side, by in sides.items():
        for k in common:
            if len(by[k]) > 1:
                raise StoreError(
                    f"{side} has {len(by[k])} cells labelled {k} ("
                    + "; ".join(cr.differs for cr in by[k])
                    + "): compare one of them by its cell key ("
                    + ", ".join(f"{cr.spec}/{cr.key}" for cr in by[k])
                    + ")"
                )
    return [(sides["BASE"][k][0], sides["NEW"][k][0]) for k in common]


def _by_label(cells: dict[str, results.CellRuns]) -> dict[str, list[results.CellRuns]]:
    out: dict[str, list[results.CellRuns]] = {}
    for cr in cells.values():
        out.setdefault(cr.stored_label, []).append(cr)
    return out


def compare(store: Store, base: str, new: str, series: str | None = None) -> list[SeriesChange]:
    out = []
    for cb, cn in _pairs(results.select(store, base), results.select(store, new)):
        if not cb.ok_ids or not cn.ok_ids:
            raise StoreError(f"no ok run in {cb.label if not cb.ok_ids else cn.label}")
        sb = {s[0]: s for s in results.main_series(store, cb.ok_ids)}
        sn = {s[0]: s for s in results.main_series(store, cn.ok_ids)}
        names = [n for n in sb if n in sn and (series is None or n == series)]
        if not names:
            raise StoreError(
                f"{cb.label} and {cn.label} have no timing series in common"
                + (f" named {series!r}" if series else "")
            )
        for name in names:
            a = results.pooled(store, cb.ok_ids, name, sb[name][2])
            b = results.pooled(store, cn.ok_ids, name, sn[name][2])
            if not len(a) or not len(b):
                continue
            av = a.values * float(a.tick_s * 10**9)
            bv = b.values * float(b.tick_s * 10**9)
            pa, pb = _stats(av), _stats(bv)
            ra = _per_run(store, cb.ok_ids, name)
            rb = _per_run(store, cn.ok_ids, name)
            ivs = change_intervals(ra, rb)
            sc = SeriesChange(
                cb.label, cn.label, name, len(a), len(b), [], len(ra), len(rb), *_tags(cb, cn)
            )
            for i, metric in enumerate(METRICS):
                # from a base of 0 a relative change is undefined (JSON: null)
                pct = (pb[i] / pa[i] - 1) * 100 if pa[i] else 0.0 if pb[i] == 0 else math.inf
                iv = ivs[i]
                sc.metrics.append(
                    MetricChange(
                        metric,
                        float(pa[i]),
                        float(pb[i]),
                        float(pct),
                        iv.low_pct,
                        iv.high_pct,
                        iv.note,
                    )
                )
            out.append(sc)
    return out


def _tags(cb: results.CellRuns, cn: results.CellRuns) -> tuple[str, str]:
    """What names two different cells that share a label apart: the spec, else the cell
    key, else the runs (the same cell selected by two run ids)."""
    if cb.label != cn.label:
        return "", ""
    for side in (lambda c: f"spec {c.spec}", lambda c: f"cell {c.key}", _runs_tag):
        tb, tn = side(cb), side(cn)
        if tb != tn:
            return tb, tn
    return "", ""


def _runs_tag(c: results.CellRuns) -> str:
    ids = c.ok_ids
    return f"run {ids[0]}" if len(ids) == 1 else f"runs {ids[0]} +{len(ids) - 1}"


def check_gates(changes: list[SeriesChange], gates: list[Gate], on: str = "estimate") -> list[str]:
    failures = []
    for sc in changes:
        for g in gates:
            m = next(m for m in sc.metrics if m.metric == g.metric)
            if on == "ci" and m.ci_low_pct is None:
                raise ValueError(
                    f"--gate-on ci: {sc.series} {sc.names()}: no {g.metric} interval "
                    f"({m.ci_note}); repeat the runs (3–10 per cell) or gate on the estimate"
                )
            x = g.violated(m, on)
            if x is not None:
                got = f"{x:+.1f} %" if g.kind == "pct" else f"{x / 1000:,.2f} µs"
                what = g.metric if on == "estimate" else f"{g.metric} (95 % interval bound)"
                failures.append(f"{g.text!r}: {sc.series} {sc.names()}: {what} {got}")
    return failures


def _us(x: float) -> str:
    return f"{x / 1000:,.2f}"


def _interval(m: MetricChange) -> str:
    if m.ci_low_pct is None or m.ci_high_pct is None:
        return "[n/a]"
    return f"[{m.ci_low_pct:+.1f}, {m.ci_high_pct:+.1f}]"


def rich_table(changes: list[SeriesChange]) -> Table:
    notes = sorted({m.ci_note for sc in changes for m in sc.metrics if m.ci_low_pct is None})
    t = Table(
        title="BASE → NEW (µs, runs pooled; change with the 95 % interval over runs)",
        title_justify="left",
        caption="\n".join(f"n/a: {escape(n)}" for n in notes) or None,
        caption_justify="left",
    )
    for col in ("series", "cell", *METRICS):
        t.add_column(col, justify="left" if col in ("series", "cell") else "right")
    for sc in changes:
        cell = sc.base if sc.base == sc.new and not sc.base_tag else sc.names()
        t.add_row(
            escape(sc.series),
            escape(cell),
            *(
                escape(f"{_us(m.base_ns)} → {_us(m.new_ns)}\n{m.change_pct:+.1f} % {_interval(m)}")
                for m in sc.metrics
            ),
        )
    return t


def to_json(changes: list[SeriesChange], failures: list[str]) -> dict[str, Any]:
    """Valid JSON: a figure that is not finite (a change from a base of 0) is null."""

    def finite(x: Any) -> Any:
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: finite(v) for k, v in x.items()}
        if isinstance(x, list):
            return [finite(v) for v in x]
        return x

    return {"changes": [finite(asdict(c)) for c in changes], "gate_failures": failures}
