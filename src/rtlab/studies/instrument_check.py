"""The instrument in the loop: each marked path's figures from two clocks,
side by side — the board's own counter (rtbench's samples, the internal figure) and an
instrument's capture of its marker pins (the external figure: the rtlab capture module's
PIO timestamps, 8 ns; any capture of the pins).

rtbench --markers (workloads/rtbench/src/rtb_mark.h) counts every edge of marker
channels 0..3 from the image's start and names, per marked series, where its samples'
edges are: meta `marker.NAME = A@a+s>B@b+t` (sample i, the cold one first, starts at
edge a + s*i of channel A and ends at edge b + t*i of channel B). A capture of the whole
run (armed before the board starts) finds them by index.

A path's two figures agree when the median of external - internal over its warm samples
lies within one instrument tick + the pin's cost, the cost measured in the same run
(series `marker_cost`, its largest warm sample), and its cold sample's difference within
one tick + the cold cost (marker_cost's cold sample, taken after a cache flush; every
sample of a series with meta `marker_cold.NAME = all` is held to that). Samples beyond
their bound are counted apart (`outside`): an interrupt taken between a timestamp and
its pin write lengthens one clock's figure only. Why the pin cost: a marked path's
internal figure holds the pin's set and clear (`t0; high; call; low; t1`), its pulse
only what lies between the two writes; an irq pair of toggles holds the same code on
both ends and differs by at most the timestamp floor.

    rows = compare(runs, capture)          # one Row per marked series, in run order
    findings(rows)                         # a sentence per disagreement
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from rtlab.analysis.stats import median
from rtlab.errors import RtlabError
from rtlab.model import Capture
from rtlab.protocol import Run
from rtlab.protocol.records import Series
from rtlab.results import Store

PLAN = re.compile(r"^([0-3])@(\d+)\+(\d+)>([0-3])@(\d+)\+(\d+)$")
MARKER_PIN0 = 2  # rtbench's marker channel 0 is GP2 on the Pico (and the bench's wiring)


class InstrumentCheckError(RtlabError):
    """A plan the capture cannot hold (edges missing), or a malformed plan."""


@dataclass(frozen=True)
class Row:
    scenario: str
    series: str
    n: int  # samples paired (cold included)
    internal_ns: float  # medians, warm samples (the cold one when there is no other)
    external_ns: float
    diff_ns: float  # median of external - internal, per sample
    diff_min_ns: float
    diff_max_ns: float
    bound_ns: float  # warm bound: one instrument tick + the measured pin cost
    bound_cold_ns: float
    outside: int  # samples whose |difference| exceeds their bound (interrupted brackets)
    cold_internal_ns: float
    cold_external_ns: float
    problem: str | None = None  # why the series could not be compared

    cold_bound_ns: float = 0.0  # the bound the cold sample is held to

    @property
    def agrees(self) -> bool:
        """The medians (warm) and the cold sample within their bounds."""
        if self.problem is not None:
            return False
        cold = abs(self.cold_external_ns - self.cold_internal_ns) <= self.cold_bound_ns + 1e-6
        return abs(self.diff_ns) <= self.warm_bound_ns + 1e-6 and cold

    @property
    def warm_bound_ns(self) -> float:
        """The warm samples' bound (the cold one's for a series taken cold throughout)."""
        return self.cold_bound_ns if self.all_cold else self.bound_ns

    all_cold: bool = False


@dataclass(frozen=True)
class Plan:
    a_ch: int
    a: int
    a_step: int
    b_ch: int
    b: int
    b_step: int

    @classmethod
    def parse(cls, text: str, where: str) -> Plan:
        m = PLAN.match(text)
        if m is None:
            raise InstrumentCheckError(f"{where}: {text!r} is not A@a+s>B@b+t")
        return cls(*(int(g) for g in m.groups()))

    def edges(self, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.a + self.a_step * i, self.b + self.b_step * i


def marker_channels(cap: Capture) -> dict[int, str]:
    """Marker channel -> capture channel: by the module's GPIOs (GP2 = channel 0) when the
    capture says them, else the capture's channels in order."""
    pins = cap.metadata.get("pins")
    names = list(cap.channels)
    if isinstance(pins, list) and len(pins) == len(names):
        return {int(p) - MARKER_PIN0: n for p, n in zip(pins, names, strict=True)}
    return dict(enumerate(names))


def _samples(run: Run, name: str) -> tuple[np.ndarray, Fraction] | None:
    """The series' samples with its cold one first, and its tick; None when absent."""
    s = run.series.get(name)
    cold = run.counters.get(f"{name}.cold")
    if s is None or cold is None or s.tick_s is None:
        return None
    return np.concatenate(([cold[0]], s.values)).astype(np.int64), s.tick_s


def _pin_cost(run: Run) -> tuple[Fraction, Fraction]:
    """(warm, cold) cost of one marker bracket in seconds, from series marker_cost."""
    got = _samples(run, "marker_cost")
    if got is None:
        raise InstrumentCheckError(f"{run.meta.get('scenario')}: no marker_cost series")
    v, tick = got
    warm = v[1:] if v.size > 1 else v
    return int(warm.max()) * tick, int(v[0]) * tick


def _times(cap: Capture, chans: Mapping[int, str], ch: int, idx: np.ndarray) -> np.ndarray | None:
    name = chans.get(ch)
    if name is None:
        return None
    edges = cap[name].edges
    if idx.size == 0 or int(idx.max()) >= edges.size:
        return None
    return edges[idx]


def _row(run: Run, cap: Capture, chans: Mapping[int, str], name: str, plan: Plan) -> Row:
    scen = str(run.meta.get("scenario", run.workload))
    ns = 1e9
    got = _samples(run, name)
    warm_cost, cold_cost = _pin_cost(run)
    tick = cap.tick_s
    bound, bound_cold = tick + warm_cost, tick + cold_cost
    empty = Row(scen, name, 0, 0, 0, 0, 0, 0, float(bound * ns), float(bound_cold * ns), 0, 0, 0)
    if got is None:
        return _replace(empty, f"no samples of {name} (series and its .cold counter)")
    internal, itick = got
    i = np.arange(internal.size)
    ia, ib = plan.edges(i)
    ta, tb = _times(cap, chans, plan.a_ch, ia), _times(cap, chans, plan.b_ch, ib)
    if ta is None or tb is None:
        have = {ch: len(cap[n]) for ch, n in chans.items()}
        return _replace(empty, f"the capture lacks edges {plan} needs (edges per channel: {have})")
    ext = (tb - ta).astype(np.float64) * float(tick * 10**9)  # ns, exact for whole ns ticks
    int_ = internal.astype(np.float64) * float(itick * 10**9)
    diff = ext - int_
    limit = np.full(diff.size, float(bound * 10**9))
    all_cold = run.meta.get(f"marker_cold.{name}") == "all"
    if all_cold:
        limit[:] = float(bound_cold * 10**9)
    else:
        limit[0] = float(bound_cold * 10**9)
    warm = slice(1, None) if diff.size > 1 else slice(None)
    return Row(
        scen,
        name,
        int(diff.size),
        median(int_[warm]),
        median(ext[warm]),
        median(diff[warm]),
        float(diff.min()),
        float(diff.max()),
        float(bound * ns),
        float(bound_cold * ns),
        int(np.count_nonzero(np.abs(diff) > limit + 1e-6)),
        float(int_[0]),
        float(ext[0]),
        cold_bound_ns=float(bound_cold * ns),
        all_cold=all_cold,
    )


def _replace(row: Row, problem: str) -> Row:
    return replace(row, problem=problem)


def compare(runs: Iterable[Run], cap: Capture) -> list[Row]:
    """One row per marked series of every run with markers on, in output order."""
    chans = marker_channels(cap)
    rows = []
    for run in runs:
        if run.meta.get("markers") != "on":
            continue
        for key, text in run.meta.items():
            if key.startswith("marker.") and key != "marker.marker_cost":
                name = key.removeprefix("marker.")
                plan = Plan.parse(text, f"meta {key}")
                rows.append(_row(run, cap, chans, name, plan))
    return rows


def findings(rows: Sequence[Row]) -> list[str]:
    """One sentence per series whose two clocks disagree (or could not be paired), and
    one for all that agree."""
    out = []
    for r in rows:
        if r.problem is not None:
            out.append(f"{r.scenario}/{r.series}: not compared: {r.problem}.")
        elif not r.agrees:
            out.append(
                f"{r.scenario}/{r.series}: the instrument and the counter disagree: "
                f"external - internal {r.diff_ns:+,.0f} ns (median; cold sample "
                f"{r.cold_external_ns - r.cold_internal_ns:+,.0f} ns), beyond one tick + the "
                f"pin's cost ({r.warm_bound_ns:,.0f} ns; cold {r.bound_cold_ns:,.0f} ns)."
            )
        elif r.outside:
            out.append(
                f"{r.scenario}/{r.series}: the figures agree, but {r.outside} of {r.n} samples "
                f"differ beyond one tick + the pin's cost (external - internal "
                f"{r.diff_min_ns:+,.0f} to {r.diff_max_ns:+,.0f} ns): an interrupt between a "
                "timestamp and its pin write lengthens one clock's sample only."
            )
    good = [r for r in rows if r.agrees]
    if good:
        worst = max(abs(r.diff_ns) for r in good)
        out.append(
            f"{len(good)} of {len(rows)} marked paths: external (instrument timestamps) and "
            f"internal (cycle counter) figures agree within one tick + the pin's cost "
            f"(largest median difference {worst:,.0f} ns)."
        )
    return out


def stored(store: Store, run_id: str) -> tuple[list[Run], Capture] | None:
    """A stored run's protocol runs and its instrument's capture; None when the run has
    no capture or no marked series."""
    from rtlab import formats
    from rtlab.results import multirun

    info = store.run_info(run_id)
    meta: dict[str, Any] = info.get("meta") or {}
    rel = meta.get("instrument.capture_file")
    if not rel or not any(str(k).split("/")[-1].startswith("marker.") for k in meta):
        return None
    runs = multirun.split(store, run_id) or [_single(store, run_id, info, meta)]
    return runs, formats.load(store.root / str(rel))


def _single(store: Store, run_id: str, info: Mapping[str, Any], meta: Mapping[str, Any]) -> Run:
    """A run that is one protocol run (a command workload's image): its own series."""
    run = Run(workload=str(info["workload"]), version="", status="ok", complete=True)
    run.meta.update({str(k): str(v) for k, v in meta.items()})
    rows = store.sql(
        "SELECT name, unit, tick_num, tick_den FROM series WHERE run_id=? ORDER BY name",
        [run_id],
    )
    for name, unit, num, den in rows:
        if not str(name).startswith("instrument."):
            tick = Fraction(num, den) if num is not None else None
            values = np.asarray(store.samples(run_id, name), np.int64)
            run.series[name] = Series(name, unit, tick, {}, values)
    for name, value, unit in store.sql(
        "SELECT name, value, unit FROM counters WHERE run_id=?", [run_id]
    ):
        run.counters[str(name)] = (int(value), unit)
    return run
