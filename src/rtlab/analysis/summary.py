"""The full analysis of a capture: every metric of every channel, as one document.

This is what `rtlab analyze` prints (table, JSON, CSV, Markdown); the JSON schema is
documented in docs/analyze-json.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rtlab import intervals as iv
from rtlab.analysis.events import Extremes, channel_extremes, extremes_doc
from rtlab.analysis.latency import latency
from rtlab.analysis.stats import DEFAULT_QUANTILES, Stats, compute_stats
from rtlab.analysis.tie import tie as fit_tie
from rtlab.model import Capture, Edge, Samples, format_tick

SCHEMA_VERSION = 1
CHANNEL_METRICS = ("period", "high", "low", "interval", "c2c")


@dataclass
class Analysis:
    """Stats per channel and metric, per latency pair, plus derived figures."""

    capture: Capture
    edge: Edge
    quantiles: tuple[float, ...]
    channels: dict[str, dict[str, Stats]]
    derived: dict[str, dict[str, float | None]]  # frequency_hz, duty per channel
    latencies: dict[str, tuple[Stats, dict[str, int]]]
    # Edges per channel and the observed window: from the capture unless given (a
    # streamed capture's channels hold no edges: rtlab.analysis.stream fills them in).
    edge_counts: dict[str, int] | None = None
    window_ticks: tuple[int, int] | None = None
    # --extremes N: per channel (or latency pair) and metric, the N largest and smallest
    # values with their start times (rtlab.analysis.events)
    extremes: dict[str, dict[str, Extremes]] = field(default_factory=dict)

    def n_edges(self, name: str | None = None) -> int:
        """Edges of one channel, or of every channel of the capture."""
        if self.edge_counts is None:
            return len(self.capture[name]) if name else self.capture.n_edges
        if name is None:
            return sum(self.edge_counts.values())
        return self.edge_counts[self.capture[name].name]

    def window(self) -> tuple[int, int]:
        return self.window_ticks if self.window_ticks is not None else self.capture.window()

    def to_dict(self) -> dict[str, Any]:
        cap = self.capture
        lo, hi = self.window()
        doc: dict[str, Any] = {
            "schema": f"rtlab.analyze/{SCHEMA_VERSION}",
            "source": cap.metadata.get("source"),
            "format": cap.metadata.get("format"),
            "tick_ns": cap.tick_ns,
            "resolution_ns": float(cap.resolution * 10**9),
            # a resolution the file does not state but its edges suggest (docs/metrics.md)
            "resolution_inferred": bool(cap.metadata.get("resolution_inferred", False)),
            "edge": self.edge,
            "window_ns": [lo * cap.tick_ns, hi * cap.tick_ns],
            "gaps": [[int(a), int(b)] for a, b in cap.gaps[:1000]],
            "n_gaps": len(cap.gaps),
            "quantile_method": "inverted_cdf (smallest sample with CDF >= q)",
            "channels": {},
            "latency": {},
        }
        for name, metrics in self.channels.items():
            entry: dict[str, Any] = {"edges": self.n_edges(name)}
            entry.update(self.derived[name])
            for metric, st in metrics.items():
                entry[metric] = st.to_dict()
            doc["channels"][name] = entry
        for pair, (st, counts) in self.latencies.items():
            doc["latency"][pair] = {**st.to_dict(), **counts}
        samples = is_sample_based(cap)
        for key, per_metric in self.extremes.items():
            entry = doc["latency"][key] if key in self.latencies else doc["channels"][key]
            entry["extremes"] = {
                m: extremes_doc(e, cap.tick_ns, samples) for m, e in per_metric.items()
            }
        return doc


# Formats whose tick is one sample: an event's start tick is its sample number (the
# number sigrok-cli's --protocol-decoder-samplenum and PulseView show).
SAMPLE_BASED_FORMATS = ("sigrok",)


def is_sample_based(cap: Capture) -> bool:
    return cap.metadata.get("format") in SAMPLE_BASED_FORMATS


def parse_latency_pair(text: str) -> tuple[str, str]:
    parts = text.split(":")
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"latency pair must be written A:B (two channel names), not {text!r}")
    return parts[0], parts[1]


def analyze(
    cap: Capture,
    channels: Sequence[str] | None = None,
    latency_pairs: Sequence[tuple[str, str]] = (),
    quantiles: tuple[float, ...] = DEFAULT_QUANTILES,
    edge: Edge = "rising",
    tie: bool = False,
    nominal_hz: float | None = None,
    extremes: int = 0,
) -> Analysis:
    """Every metric of every channel (or of `channels`), the latency of each pair,
    and with tie=True the time interval error against the fitted ideal clock (its
    frequency offset in ppm against `nominal_hz` when given)."""
    names = list(channels) if channels else list(cap.channels)
    for n in names:
        cap[n]  # raises a clear KeyError for an unknown channel
    per_channel: dict[str, dict[str, Stats]] = {}
    derived: dict[str, dict[str, float | None]] = {}
    for name in names:
        ch = cap[name]
        # One metric at a time in one scratch buffer: a 10^8-edge channel costs one
        # more edge array, and new memory is touched once, not five times.
        scratch = np.empty(max(len(ch) - 1, 0), dtype=np.int64)
        m: dict[str, Stats] = {}
        # each metric's stats before the next one reuses the buffer
        m["period"] = compute_stats(iv.periods(cap, ch, edge, scratch), quantiles, True)
        m["high"] = compute_stats(iv.widths(cap, ch, "high", scratch), quantiles, True)
        m["low"] = compute_stats(iv.widths(cap, ch, "low", scratch), quantiles, True)
        m["interval"] = compute_stats(iv.intervals(cap, ch, scratch), quantiles, True)
        m["c2c"] = compute_stats(iv.cycle_to_cycle(cap, ch, edge, scratch), quantiles, True)
        del scratch
        per_channel[name] = m
        derived[name] = derived_figures(m)
        if tie:
            t = fit_tie(cap, ch, edge, nominal_hz)
            m["tie"] = compute_stats(t.samples, quantiles, scratch=True)
            derived[name]["tie_fitted_frequency_hz"] = t.frequency_hz
            derived[name]["tie_offset_ppm"] = t.offset_ppm
    lats: dict[str, tuple[Stats, dict[str, int]]] = {}
    lat_samples: dict[str, Samples] = {}
    for a, b in latency_pairs:
        r = latency(cap, a, b, edge)
        lat_samples[f"{a}:{b}"] = r.samples
        counts = r.counts()
        lats[f"{a}:{b}"] = (compute_stats(r.samples, quantiles), counts)
    an = Analysis(cap, edge, quantiles, per_channel, derived, lats)
    if extremes:
        for name in names:
            an.extremes[name] = channel_extremes(cap[name], cap.gaps, edge, extremes)
        for pair, s in lat_samples.items():
            ext = Extremes(extremes)
            ext.add(s.at if s.at is not None else np.zeros_like(s.values), s.values)
            an.extremes[pair] = {"latency": ext}
    return an


def derived_figures(m: dict[str, Stats]) -> dict[str, float | None]:
    """Frequency (1 / mean period) and duty (mean high / (mean high + mean low))."""
    period = m["period"]
    freq = 1e9 / period.mean if period.n and period.mean > 0 else None
    hi, lo = m["high"], m["low"]
    duty = None
    if hi.n and lo.n and not math.isnan(hi.mean + lo.mean) and hi.mean + lo.mean > 0:
        duty = hi.mean / (hi.mean + lo.mean)
    return {"frequency_hz": freq, "duty": duty}


def describe_tick(cap: Capture) -> str:
    return format_tick(cap.tick_s)


def channel_metric(cap: Capture, channel: str, metric: str, edge: Edge = "rising") -> Samples:
    """The samples of one metric of one channel ('period', 'high', ..., 'tie'),
    or of a latency pair written 'A:B'."""
    if ":" in channel:
        a, b = parse_latency_pair(channel)
        return latency(cap, a, b, edge).samples
    ch = cap[channel]
    if metric == "period":
        return iv.periods(cap, ch, edge)
    if metric in ("high", "low"):
        return iv.widths(cap, ch, metric)
    if metric == "interval":
        return iv.intervals(cap, ch)
    if metric == "c2c":
        return iv.cycle_to_cycle(cap, ch, edge)
    if metric == "tie":
        return fit_tie(cap, ch, edge).samples
    raise ValueError(f"unknown metric {metric!r}; one of {', '.join(CHANNEL_METRICS)}, tie")
