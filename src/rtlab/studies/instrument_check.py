"""The instrument in the loop (issue 33): each marked path's figures from two clocks,
side by side — the board's own counter (rtbench's samples, the internal figure) and an
instrument's capture of its marker pins (the external figure: the rtlab capture module's
PIO timestamps, 8 ns; any capture of the pins).

rtbench --markers (workloads/rtbench/src/rtb_mark.h) counts every edge of marker
channels 0..3 from the image's start and names, per marked series, where its samples'
edges are: meta `marker.NAME = A@a+s>B@b+t` (sample i, the cold one first, starts at
edge a + s*i of channel A and ends at edge b + t*i of channel B). A capture of the whole
run (armed before the board starts) finds them by index.

The two agree when |external - internal| <= one instrument tick + the pin's cost, the
cost measured in the same run (series `marker_cost`: the warm bound; its cold sample,
taken after a cache flush, bounds a sample taken cold: each series' first, every sample
of a series with meta `marker_cold.NAME = all`). Why the pin cost: a marked path's
internal figure holds the pin's set and clear (`t0; high; call; low; t1`), its pulse
only what lies between the two writes; an irq pair of toggles holds the same code on
both ends and differs by at most the timestamp floor.

    rows = compare(runs, capture)          # one Row per marked series, in run order
    findings(rows)                         # a sentence per disagreement
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from rtlab.errors import RtlabError
from rtlab.model import Capture
from rtlab.protocol import Run

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
    outside: int  # samples whose |difference| exceeds their bound
    cold_internal_ns: float
    cold_external_ns: float
    problem: str | None = None  # why the series could not be compared

    @property
    def agrees(self) -> bool:
        return self.problem is None and self.outside == 0


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
    ext_s = (tb - ta).astype(np.float64) * float(tick)
    int_s = internal.astype(np.float64) * float(itick)
    diff = ext_s - int_s
    limit = np.full(diff.size, float(bound))
    if run.meta.get(f"marker_cold.{name}") == "all":
        limit[:] = float(bound_cold)
    else:
        limit[0] = float(bound_cold)
    warm = slice(1, None) if diff.size > 1 else slice(None)
    return Row(
        scen,
        name,
        int(diff.size),
        float(np.median(int_s[warm]) * ns),
        float(np.median(ext_s[warm]) * ns),
        float(np.median(diff[warm]) * ns),
        float(diff.min() * ns),
        float(diff.max() * ns),
        float(bound * ns),
        float(bound_cold * ns),
        int(np.count_nonzero(np.abs(diff) > limit + 1e-12)),
        float(int_s[0] * ns),
        float(ext_s[0] * ns),
    )


def _replace(row: Row, problem: str) -> Row:
    from dataclasses import replace

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
        elif r.outside:
            out.append(
                f"{r.scenario}/{r.series}: the instrument and the counter disagree on "
                f"{r.outside} of {r.n} samples: external - internal {r.diff_min_ns:+,.0f} to "
                f"{r.diff_max_ns:+,.0f} ns, beyond one tick + the pin's cost "
                f"({r.bound_ns:,.0f} ns warm, {r.bound_cold_ns:,.0f} ns cold)."
            )
    good = [r for r in rows if r.agrees]
    if good:
        worst = max(max(abs(r.diff_min_ns), abs(r.diff_max_ns)) for r in good)
        out.append(
            f"{len(good)} of {len(rows)} marked paths: external (PIO timestamps) and "
            f"internal (cycle counter) figures agree sample by sample within one tick + "
            f"the pin's cost (largest difference {worst:,.0f} ns)."
        )
    return out
