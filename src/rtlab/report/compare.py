"""BASE vs NEW: change of median, p99, p99.9 and max with bootstrap confidence intervals,
and `--fail-if` gates so a CI job can hold a latency budget.

Selections pair up by cell label (two specs with the same matrix compare cell by cell);
two single cells (or runs) pair with each other whatever their labels
(rtlab.report.compare_pairs: what could not be paired is listed, and a gate over it
fails; the parameters that differ within a pair are named). The estimate pools a
cell's repetitions. A relative change is (NEW − BASE) / |BASE|: its sign is the
direction of the change even from a negative BASE (−5 → +9 ns is +280 %). The 95 %
interval is over runs (rtlab.analysis.runchange: Welch t on the logs of each run's
quantile), so it needs ≥ 2 ok runs per side; without them it is None with the reason,
and a gate on it refuses to decide. Gates test the point estimate, or with on="ci" the
interval's bound nearest to passing (fail only when the change is sure).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from rich.markup import escape
from rich.table import Table

from rtlab.analysis.runchange import change_intervals, run_quantiles
from rtlab.report import compare_pairs
from rtlab.report.compare_pairs import Unmatched
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
    differs: list[str] = field(default_factory=list)  # fixed parameters: "k: a → b"

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
        new_ns = m.new_ns if on == "estimate" else m.base_ns + abs(m.base_ns) * pct / 100
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


def relative_change(base: float, new: float) -> float:
    """(NEW − BASE) / |BASE| in percent: its sign is the direction of the change, from a
    negative BASE too (−5 → +9 ns: +280 %, not the −280 % of NEW / BASE − 1). From a
    BASE of 0 it is undefined: ±inf (JSON null), or 0 when NEW is 0 too."""
    if base:
        return (new - base) / abs(base) * 100
    return 0.0 if new == 0 else math.copysign(math.inf, new)


@dataclass
class Comparison:
    """The changes of every pair compared, and what could not be compared (shown, and a
    gate over it fails). Iterates over the changes."""

    changes: list[SeriesChange]
    unmatched: list[Unmatched] = field(default_factory=list)

    def __iter__(self) -> Iterator[SeriesChange]:
        return iter(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def __getitem__(self, i: int) -> SeriesChange:
        return self.changes[i]


def compare(store: Store, base: str, new: str, series: str | None = None) -> Comparison:
    """Every pair of cells of BASE and NEW (compare_pairs), each timing series they
    share; what either lacks is listed in `unmatched`. Nothing at all to compare is a
    StoreError naming why."""
    pairs, unmatched = compare_pairs.pairs(results.select(store, base), results.select(store, new))
    out = []
    for cb, cn in pairs:
        if not cb.ok_ids or not cn.ok_ids:
            side, c = ("BASE", cb) if not cb.ok_ids else ("NEW", cn)
            unmatched.append(Unmatched(side, c.label, None, f"no ok run in {side}"))
            continue
        sb = {s[0]: s for s in results.main_series(store, cb.ok_ids)}
        sn = {s[0]: s for s in results.main_series(store, cn.ok_ids)}
        wanted = [n for n in dict.fromkeys([*sb, *sn]) if series is None or n == series]
        for name in wanted:
            if name not in sb or name not in sn:
                side, c = ("BASE", cb) if name in sb else ("NEW", cn)
                why = f"only in {side}: the other cell has no series {name!r}"
                unmatched.append(Unmatched(side, c.label, name, why))
                continue
            sc = _change(store, cb, cn, name, sb[name][2], sn[name][2])
            if sc is None:
                unmatched.append(Unmatched("both", cb.label, name, "no samples on one side"))
            else:
                out.append(sc)
    if not out:
        why = "; ".join(u.text() for u in unmatched) or "no timing series in common"
        named = f" named {series!r}" if series else ""
        raise StoreError(f"nothing to compare{named}: {why}")
    return Comparison(out, unmatched)


def _change(
    store: Store,
    cb: results.CellRuns,
    cn: results.CellRuns,
    name: str,
    tick_b: Fraction | None,
    tick_n: Fraction | None,
) -> SeriesChange | None:
    a = results.pooled(store, cb.ok_ids, name, tick_b)
    b = results.pooled(store, cn.ok_ids, name, tick_n)
    if not len(a) or not len(b):
        return None
    pa = _stats(a.values * float(a.tick_s * 10**9))
    pb = _stats(b.values * float(b.tick_s * 10**9))
    ra = _per_run(store, cb.ok_ids, name)
    rb = _per_run(store, cn.ok_ids, name)
    ivs = change_intervals(ra, rb)
    sc = SeriesChange(
        cb.label, cn.label, name, len(a), len(b), [], len(ra), len(rb),
        *compare_pairs.tags(cb, cn), compare_pairs.differences(cb, cn),
    )  # fmt: skip
    for i, metric in enumerate(METRICS):
        iv = ivs[i]
        pct = relative_change(float(pa[i]), float(pb[i]))
        sc.metrics.append(
            MetricChange(metric, float(pa[i]), float(pb[i]), pct, iv.low_pct, iv.high_pct, iv.note)
        )
    return sc


def _unmatched(changes: Comparison | list[SeriesChange]) -> list[Unmatched]:
    """What could not be compared: a Comparison's `unmatched`, nothing for a bare list."""
    return changes.unmatched if isinstance(changes, Comparison) else []


def check_gates(
    changes: Comparison | list[SeriesChange], gates: list[Gate], on: str = "estimate"
) -> list[str]:
    """Every gate against every change: the failures, one line each. A gate over what
    could not be compared (a Comparison's `unmatched`) fails too: it was not checked."""
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
    for u in _unmatched(changes):
        failures += [f"{g.text!r}: {u.text()}: not compared" for g in gates]
    return failures


def _us(x: float) -> str:
    return f"{x / 1000:,.2f}"


def _interval(m: MetricChange) -> str:
    if m.ci_low_pct is None or m.ci_high_pct is None:
        return "[n/a]"
    return f"[{m.ci_low_pct:+.1f}, {m.ci_high_pct:+.1f}]"


def caption_lines(changes: Comparison | list[SeriesChange]) -> list[str]:
    """Under the table: why an interval is n/a, the parameters that differ within a
    pair, and everything that was not compared."""
    notes = sorted({m.ci_note for sc in changes for m in sc.metrics if m.ci_low_pct is None})
    out = [f"n/a: {n}" for n in notes]
    pairs = {sc.names(): sc.differs for sc in changes if sc.differs}
    out += [f"parameters differ, {names}: {'; '.join(d)}" for names, d in pairs.items()]
    out += [f"not compared: {u.text()}" for u in _unmatched(changes)]
    return out


def rich_table(changes: Comparison | list[SeriesChange]) -> Table:
    t = Table(
        title="BASE → NEW (µs, runs pooled; change with the 95 % interval over runs)",
        title_justify="left",
        caption="\n".join(escape(line) for line in caption_lines(changes)) or None,
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


def to_json(changes: Comparison | list[SeriesChange], failures: list[str]) -> dict[str, Any]:
    """Valid JSON: a figure that is not finite (a change from a base of 0) is null."""

    def finite(x: Any) -> Any:
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: finite(v) for k, v in x.items()}
        if isinstance(x, list):
            return [finite(v) for v in x]
        return x

    return {
        "changes": [finite(asdict(c)) for c in changes],
        "unmatched": [asdict(u) for u in _unmatched(changes)],
        "gate_failures": failures,
    }
