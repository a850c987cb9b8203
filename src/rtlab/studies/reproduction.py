"""Each study beside the published one: claim by claim, what reproduced.

    pub = load("gpio")                                  # studies/published/gpio.toml
    rep = reproduce(pub, {"ratio.mean_ns": Measured(1.21)})
    rep.rows[0].verdict                                 # "not reproduced"

The published side is data: one TOML file per study in rtlab/studies/published/, each
claim with its figure, unit, kind and citation (table, figure or section), and the
study's own conditions (board, clock, kernel, method). The measured side is a mapping
from a claim's `measure` key to what rtlab has (rtlab.studies.reproduction_measures
builds it from the stored runs). This module only compares, by the claim's kind:

- value: a figure with its unit. Another unit (instructions vs cycles) or an absolute
  time measured on an emulator (`absolute = true`) is **not comparable**; the ratio
  rtlab ÷ published is still shown. Same unit: reproduced within `tolerance`.
- ratio: dimensionless, reproduced when rtlab ÷ published is within 1 ± `tolerance`.
- range: reproduced when every rtlab value lies in [low, high].
- period: a smallest stable period; rtlab gives one per repetition, reproduced when the
  published period lies within their run-to-run range; not comparable when rtlab's
  sweep has no such step.
- order: names in the published order of the quantity `by` (`first` = lowest or
  highest first); reproduced when rtlab's figures order the names it has alike.
- order_each: the same published order, checked in each row rtlab has.

A claim that `needs` what the measuring environment lacks (`cycles`, `cache`: QEMU
icount counts instructions and models no cache; `timing`: a jitter, deviation or tail
claim, which an emulator timed by its host's clock cannot show) is not comparable, and
so is a figure the measure withholds (`why_not`). A claim with no rtlab figure is not
comparable, "not measured". Every row carries its source and a verdict.
"""

from __future__ import annotations

import itertools
import math
import numbers
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Any

from rtlab.errors import RtlabError

REPRODUCED, NOT_REPRODUCED, NOT_COMPARABLE = "reproduced", "not reproduced", "not comparable"
FRAGILE = "fragile"  # reproduced under some of a model's declared settings, not all
KINDS = ("value", "ratio", "range", "period", "order", "order_each")
STUDIES = ("stm32", "rp2040", "k4perf", "gpio", "user_vs_kernel")
LACKS = {
    "cycles": "the claim is about cycles (pipeline, wait states); an instruction count has none",
    "cache": "the claim is about a flash cache; the emulator models none",
    # a spread (jitter, maximum deviation, tail, a period stable to its p99.9) measured
    # against the host's clock is the host's scheduling and the emulator's stalls
    "timing": "host-timed emulation: the spread is the host's noise, not the target's",
    # under the cycles plugin a GPIO set is timed only inside rtbench's marker bracket
    "pin": "rtbench's marker bracket holds timestamp reads and a critical section beside "
    "its pin stores: no pin write alone is timed (the bracket's pulse is taken off every "
    "figure instead)",
}


class PublishedError(RtlabError):
    pass


@dataclass(frozen=True)
class Claim:
    id: str
    claim: str
    source: str
    kind: str
    published: Any  # float, [low, high], or names
    measure: str
    unit: str = ""
    tolerance: float = 0.1
    by: str = ""
    first: str = "lowest"
    note: str = ""
    absolute: bool = False  # a time on the study's hardware: an emulator's is no match
    needs: str = ""
    # order kinds: what the order presumes of every name's figure, e.g. {below = 1.0,
    # what = "T8 drops on two cores"}: a figure that does not show it fails the claim
    precondition: dict[str, Any] | None = None


@dataclass(frozen=True)
class Published:
    key: str
    short: str
    title: str
    authors: str
    file: str
    headline: str  # the claim id the report's top line shows
    conditions: dict[str, str]
    claims: tuple[Claim, ...]
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Measured:
    value: float | tuple[float, ...] | dict[str, Any] | None
    unit: str = ""
    how: str = ""  # what rtlab measured, where
    emulated: str = ""  # "" or the environment, e.g. "QEMU icount (instruction-count model)"
    why_not: str = ""  # the measure's own reason this figure is not comparable
    lacks: tuple[str, ...] = ()  # what the environment does not model (LACKS keys)
    grid: tuple[float, ...] = ()  # period: the steps rtlab tried


@dataclass(frozen=True)
class Row:
    id: str
    claim: str
    source: str
    published: str
    rtlab: str
    compare: str  # ratio, range or pairs in order
    verdict: str
    why: str
    how: str


@dataclass
class Reproduction:
    study: Published
    rows: list[Row]
    environment: list[str]  # where rtlab measured (distinct, from the measures)

    def count(self, verdict: str) -> int:
        return sum(r.verdict == verdict for r in self.rows)

    @property
    def headline(self) -> str:
        """One sentence: the headline claim's row (or, unmeasured, the first row judged)
        and the tally."""
        measured = [r for r in self.rows if r.rtlab != "–"] or self.rows
        judged = [r for r in measured if r.verdict != NOT_COMPARABLE] or measured
        # the study's own headline claim when rtlab measured it, else the first judged
        row = next((r for r in measured if r.id == self.study.headline), judged[0])
        why = f" ({row.why})" if row.why else ""
        return (
            f"{self.study.short}: {row.claim} — published {row.published}, rtlab {row.rtlab}"
            f"{' (' + row.compare + ')' if row.compare else ''}: {row.verdict}{why}. "
            f"{self.tally}."
        )

    @property
    def tally(self) -> str:
        fragile = f"{self.count(FRAGILE)} fragile, " if self.count(FRAGILE) else ""
        return (
            f"{self.count(REPRODUCED)} of {len(self.rows)} claims reproduced, {fragile}"
            f"{self.count(NOT_REPRODUCED)} not, {self.count(NOT_COMPARABLE)} not comparable"
        )


# ------------------------------------------------------------------ the data files


def load(key: str) -> Published:
    """The study's data file rtlab/studies/published/<key>.toml."""
    if key not in STUDIES:
        raise PublishedError(f"no published study {key!r} (one of {', '.join(STUDIES)})")
    name = f"{key}.toml"
    text = resources.files("rtlab.studies").joinpath("published", name).read_text("utf-8")
    return parse(text, f"rtlab/studies/published/{name}")


def parse(text: str, where: str) -> Published:
    """A data file's text; PublishedError naming `where` (and the claim) when malformed."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PublishedError(f"{where}: {e}") from None
    try:
        st = doc["study"]
        claims = tuple(_claim(c, where, i) for i, c in enumerate(doc.get("claim", [])))
        pub = Published(
            key=str(st["key"]),
            short=str(st["short"]),
            title=str(st["title"]),
            authors=str(st["authors"]),
            file=str(st["file"]),
            headline=str(st.get("headline", "")),
            conditions={str(k): str(v) for k, v in doc.get("conditions", {}).items()},
            claims=claims,
            raw=doc,
        )
    except KeyError as e:
        raise PublishedError(f"{where}: [study] lacks {e.args[0]!r}") from None
    if not claims:
        raise PublishedError(f"{where}: no [[claim]]")
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        raise PublishedError(f"{where}: claim ids repeat")
    return pub


def _claim(c: Mapping[str, Any], where: str, i: int) -> Claim:
    at = f"{where}: claim {i + 1} ({c.get('id', '?')})"
    try:
        claim = Claim(**c)
    except TypeError as e:
        raise PublishedError(f"{at}: {e}") from None
    if claim.kind not in KINDS:
        raise PublishedError(f"{at}: kind {claim.kind!r} is not one of {', '.join(KINDS)}")
    if not claim.source:
        raise PublishedError(f"{at}: no source (table, figure or section)")
    shape_ok = {
        "value": isinstance(claim.published, int | float),
        "ratio": isinstance(claim.published, int | float),
        "period": isinstance(claim.published, int | float),
        "range": isinstance(claim.published, list) and len(claim.published) == 2,
        "order": isinstance(claim.published, list) and len(claim.published) >= 2,
        "order_each": isinstance(claim.published, list) and len(claim.published) >= 2,
    }[claim.kind]
    if not shape_ok:
        raise PublishedError(f"{at}: published {claim.published!r} does not fit kind {claim.kind}")
    pre = claim.precondition
    if pre is not None and (
        claim.kind != "order"
        or set(pre) != {"below", "what"}
        or not isinstance(pre["below"], int | float)
    ):
        want = "{below = <figure>, what = <text>} on an order"
        raise PublishedError(f"{at}: precondition: expected {want}")
    if claim.kind in ("value", "ratio", "period"):
        p = float(claim.published)
        if not math.isfinite(p) or p == 0:
            # value and ratio compare rtlab ÷ published; a period of 0 or ∞ is no period
            raise PublishedError(
                f"{at}: published {claim.published!r}: expected a finite non-zero figure"
            )
    return claim


# ------------------------------------------------------------------ comparing


def num(x: float) -> str:
    """A figure as a reader wants it: integers grouped, else 4 significant digits."""
    if math.isinf(x):
        return "none stable" if x > 0 else "−∞"
    if float(x).is_integer() and abs(x) < 1e9:
        return f"{x:,.0f}"
    return f"{x:,.4g}" if abs(x) < 1e4 else f"{x:,.0f}"


def _with_unit(x: float, unit: str) -> str:
    return f"{num(x)} {unit}".strip()


def _published_text(c: Claim) -> str:
    p = c.published
    note = f" ({c.note})" if c.note else ""
    if c.kind in ("order", "order_each"):
        return (" < " if c.first == "lowest" else " > ").join(p) + note
    if c.kind == "range":
        hi = "" if p[1] >= 1e11 else f"–{num(p[1])}"
        return f"{'≥ ' if not hi else ''}{num(p[0])}{hi} {c.unit}".strip() + note
    return _with_unit(p, c.unit) + note


def judge(c: Claim, m: Measured | None) -> Row:
    """The row of one claim against what rtlab measured (None: nothing)."""
    pub = _published_text(c)
    if m is None or m.value is None:
        why = (m.why_not if m else "") or "not measured in the selected runs"
        return Row(c.id, c.claim, c.source, pub, "–", "", NOT_COMPARABLE, why, m.how if m else "")
    refused = _unjudgeable(c, m)
    if refused:
        return Row(c.id, c.claim, c.source, pub, _shown(m), "", NOT_COMPARABLE, refused, m.how)
    rtlab, compare, ok = _KIND[c.kind](c, m)
    why = m.why_not
    if not why and c.needs and c.needs in m.lacks:
        why = LACKS.get(c.needs, c.needs)  # the environment: the table's own line
    if not why and c.unit and m.unit and c.unit != m.unit:
        why = f"{m.unit} vs {c.unit}"  # where rtlab measured: the table's own line
    if not why and c.absolute and m.emulated:
        why = f"emulated vs silicon: {m.emulated}"
    if not why and c.kind == "period" and m.grid and float(c.published) not in m.grid:
        why = f"rtlab's sweep has no {num(c.published)} µs step"
    if why or ok is None:
        return Row(c.id, c.claim, c.source, pub, rtlab, compare, NOT_COMPARABLE, why, m.how)
    failed = _precondition_fails(c, m)
    if failed:
        return Row(c.id, c.claim, c.source, pub, rtlab, compare, NOT_REPRODUCED, failed, m.how)
    verdict = REPRODUCED if ok else NOT_REPRODUCED
    return Row(c.id, c.claim, c.source, pub, rtlab, compare, verdict, "", m.how)


def _precondition_fails(c: Claim, m: Measured) -> str:
    """Why the claim's precondition does not hold of rtlab's figures ("" when it does)."""
    if c.precondition is None or not isinstance(m.value, dict):
        return ""
    below = float(c.precondition["below"])
    off = [f"{n} {num(v)}" for n, v in m.value.items() if n in c.published and not v < below]
    if not off:
        return ""
    what = c.precondition["what"]
    return f"its precondition fails ({what}): {', '.join(off)}, not below {num(below)}"


def _numbers(v: object) -> list[float]:
    """Every figure in a measured value (a scalar, runs, names, rows of names)."""
    if isinstance(v, dict):
        return [x for w in v.values() if w is not None for x in _numbers(w)]
    if isinstance(v, tuple | list):
        return [x for w in v for x in _numbers(w)]
    if isinstance(v, numbers.Real):
        return [float(v)]
    raise TypeError(f"a figure, not {v!r}")


def _unjudgeable(c: Claim, m: Measured) -> str:
    """Why no verdict can be drawn from these figures at all, whatever their size: the
    kinds below would otherwise pass or fail them by an accident of arithmetic."""
    figures = _numbers(m.value)
    if not figures:
        return "the measurement is empty: no figure to compare"
    nans = sum(math.isnan(x) for x in figures)
    if nans:
        return f"{nans} of rtlab's {len(figures)} figures are NaN"
    if c.kind in ("value", "ratio", "period"):
        p = float(c.published)
        if not math.isfinite(p) or p == 0:
            return f"published {c.published!r}: no ratio to it"
    if c.kind == "period":
        # every run unstable is a verdict (the published period was tried and failed in
        # each); some runs unstable leave rtlab's run-to-run range without an upper end
        unstable = sum(math.isinf(x) for x in figures)
        if 0 < unstable < len(figures):
            return (
                f"{unstable} of {len(figures)} runs found no stable period among the periods "
                "tried: their run-to-run range has no upper end"
            )
    elif c.kind in ("value", "ratio", "range") and any(math.isinf(x) for x in figures):
        return "rtlab's figure is infinite"
    return ""


def _shown(m: Measured) -> str:
    """The measured figures as they are, for a row that judges none of them."""
    v = m.value
    if isinstance(v, dict):
        text = "; ".join(f"{k} {num(x)}" for k, x in v.items() if isinstance(x, int | float))
    else:
        text = ", ".join(num(x) for x in _numbers(v))
    return f"{text} {m.unit}".strip() if text else "–"


def _scalar(m: Measured) -> float:
    """The one figure of a value, ratio or range claim's measurement (the last run's)."""
    v = m.value
    if isinstance(v, tuple):
        return float(v[-1])
    if isinstance(v, numbers.Real):  # numpy's too
        return float(v)
    raise TypeError(f"a figure, not {v!r}")  # a measure gave an order where a value was due


def _value(c: Claim, m: Measured) -> tuple[str, str, bool | None]:
    x, p = _scalar(m), float(c.published)
    ratio = x / p if p else math.nan
    compare = f"× {ratio:.3g} of published" if math.isfinite(ratio) else ""
    return _with_unit(x, m.unit), compare, abs(ratio - 1) <= c.tolerance


def _ratio(c: Claim, m: Measured) -> tuple[str, str, bool | None]:
    x, p = _scalar(m), float(c.published)
    rel = x / p
    return (
        num(x),
        f"× {rel:.3g} of published (tolerance ± {c.tolerance:.0%})",
        (abs(rel - 1) <= c.tolerance),
    )


def _range(c: Claim, m: Measured) -> tuple[str, str, bool | None]:
    vals = list(m.value) if isinstance(m.value, tuple) else [_scalar(m)]
    lo, hi = (float(v) for v in c.published)
    shown = "–".join(num(v) for v in sorted({min(vals), max(vals)}))
    inside = sum(lo <= v <= hi for v in vals)
    compare = f"{inside} of {len(vals)} in range" if len(vals) > 1 else ""
    return f"{shown} {m.unit}".strip(), compare, inside == len(vals)


def _period(c: Claim, m: Measured) -> tuple[str, str, bool | None]:
    vals = list(m.value) if isinstance(m.value, tuple) else [_scalar(m)]
    lo, hi = min(vals), max(vals)
    shown = num(lo) if lo == hi else f"{num(lo)}–{num(hi)}"
    if not math.isinf(lo):
        shown += f" {m.unit}"
    runs = f"run-to-run over {len(vals)} runs" if len(vals) > 1 else "one run: no range"
    return shown, runs, lo <= float(c.published) <= hi


def _ordered(c: Claim, values: Mapping[str, float]) -> tuple[list[str], list[str]]:
    have = [n for n in c.published if n in values and values[n] is not None]
    got = sorted(have, key=lambda n: values[n], reverse=c.first == "highest")
    return have, got


def _named(m: Measured) -> dict[str, Any]:
    """An order claim's measurement: name -> figure (order_each: row -> name -> figure)."""
    if not isinstance(m.value, dict):
        raise TypeError(f"figures by name, not {m.value!r}")  # a measure gave a value
    return m.value


def _order(c: Claim, m: Measured) -> tuple[str, str, bool | None]:
    values: dict[str, float] = _named(m)
    have, got = _ordered(c, values)
    sep = " < " if c.first == "lowest" else " > "
    shown = sep.join(f"{n} {num(values[n])}" for n in got) + (f" {m.unit}" if m.unit else "")
    if len(have) < 2:
        missing = [n for n in c.published if n not in have]
        shown = "; ".join(f"{n} {num(v)}" for n, v in values.items() if v is not None)
        shown += f" {m.unit}" if shown and m.unit else ""
        return (
            shown or "–",
            (f"only {', '.join(have)}; " if have else "") + f"no figure for {', '.join(missing)}",
            None,
        )
    pairs = [(a, b) for i, a in enumerate(have) for b in have[i + 1 :]]
    sign = 1 if c.first == "lowest" else -1
    agree = sum(sign * (values[b] - values[a]) > 0 for a, b in pairs)  # a tie is no order
    ties = sum(values[a] == values[b] for a, b in pairs)
    tied = f" ({ties} tied)" if ties else ""
    return shown, f"{agree} of {len(pairs)} pairs in the published order{tied}", agree == len(pairs)


def _strict(c: Claim, have: list[str], values: Mapping[str, float]) -> bool:
    """`have` (in the published order) strictly ordered by `values`: a tie is no order."""
    sign = 1 if c.first == "lowest" else -1
    return all(sign * (values[b] - values[a]) > 0 for a, b in itertools.pairwise(have))


def _order_each(c: Claim, m: Measured) -> tuple[str, str, bool | None]:
    rows: dict[str, dict[str, float]] = _named(m)
    judged = {k: _ordered(c, v) for k, v in rows.items()}
    judged = {k: hg for k, hg in judged.items() if len(hg[0]) >= 2}
    if not judged:
        return "–", "no row with two of the names", None
    agree = [k for k, (have, _) in judged.items() if _strict(c, have, rows[k])]
    shown = f"{len(agree)} of {len(judged)} rows" + (f" ({', '.join(agree)})" if agree else "")
    return (
        shown,
        f"{len(agree) / len(judged):.0%} of rows in the published order",
        len(agree) == len(judged),
    )


_KIND = {
    "value": _value,
    "ratio": _ratio,
    "range": _range,
    "period": _period,
    "order": _order,
    "order_each": _order_each,
}


def reproduce(pub: Published, measured: Mapping[str, Measured | None]) -> Reproduction | None:
    """Every claim judged; None when rtlab measured none of them (no table to show)."""
    if not any(m is not None and m.value is not None for m in measured.values()):
        return None
    rows = [judge(c, measured.get(c.measure)) for c in pub.claims]
    envs = sorted({m.emulated for m in measured.values() if m is not None and m.emulated})
    return Reproduction(pub, rows, envs)


# ------------------------------------------------------------------ output


def to_dict(rep: Reproduction) -> dict[str, Any]:
    """JSON-able; what the report's HTML and Markdown tables are made of."""
    st = rep.study
    return {
        "study": st.key,
        "short": st.short,
        "title": st.title,
        "authors": st.authors,
        "file": st.file,
        "conditions": st.conditions,
        "rtlab_environment": rep.environment,
        "headline": rep.headline,
        "tally": rep.tally,
        "counts": {v: rep.count(v) for v in (REPRODUCED, NOT_REPRODUCED, NOT_COMPARABLE)},
        "rows": [asdict(r) for r in rep.rows],
    }
