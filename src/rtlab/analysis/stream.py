"""Streaming analysis: every channel metric from edges read chunk by chunk.

The figures are those of rtlab.analysis.summary.analyze on the whole capture (see
histogram.py and stats.histogram_raw_stats): periods, widths, intervals and c2c are
counted into exact histograms, so memory is bounded by the number of distinct values,
not by the number of edges. Chunks are split at the capture's gaps, where the state is
reset (nothing spans a gap) and the channel resumes from its gap level.

What needs the whole sequence is not streamed (the caller loads the capture instead):
`tie` (a least-squares fit against the median period), latency pairs (two channels
side by side) and plots (every sample in time order).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from rtlab.analysis import kernel
from rtlab.analysis.events import ChannelEvents, Extremes, add_events, new_extremes
from rtlab.analysis.gaps import GapCursor
from rtlab.analysis.histogram import ExactHistogram, merge_counts
from rtlab.analysis.stats import DEFAULT_QUANTILES, Stats, stats_from_histogram
from rtlab.analysis.summary import Analysis, derived_figures
from rtlab.model import Channel, Edge, EdgeStream, Samples

# (edges done, edges in all) after each chunk
Progress = Callable[[int, int], None]


@dataclass
class ChannelStream:
    """The running state of one channel: kernel state, histograms, gap cursor."""

    channel: Channel
    gaps: np.ndarray
    edge: Edge
    use_native: bool | None = None
    state: np.ndarray = field(init=False)
    hists: list[ExactHistogram] = field(init=False)
    n_edges: int = 0
    _cursor: GapCursor = field(init=False)

    def __post_init__(self) -> None:
        self.state = kernel.new_state(self.channel.initial_level, self.edge)
        self.hists = [ExactHistogram() for _ in kernel.METRICS]
        self._cursor = GapCursor(self.channel, self.gaps)

    def feed(self, edges: np.ndarray) -> None:
        """Count one chunk of the channel's edges (sorted, after every earlier chunk)."""
        if edges.size == 0:
            return
        edges = np.ascontiguousarray(edges, dtype=np.int64)
        self.n_edges += int(edges.size)
        for resume, part in self._cursor.pieces(edges):
            if resume is not None:  # nothing spans a gap
                kernel.reset_state(self.state, resume)
            kernel.accumulate(part, self.state, self.hists, self.use_native)

    def stats(self, like: Samples, quantiles: tuple[float, ...]) -> dict[str, Stats]:
        """The figures of analyze(), in its metric order."""
        out: dict[str, Stats] = {}
        dist = {m: h.distinct() for m, h in zip(kernel.METRICS, self.hists, strict=True)}
        # the kernel counts a known-level interval once, as a width (kernel.py)
        dist["interval"] = merge_counts([dist["interval"], dist["high"], dist["low"]])
        for metric in ("period", "high", "low", "interval", "c2c"):
            values, counts = dist[metric]
            out[metric] = stats_from_histogram(values, counts, like, quantiles)
        return out


def analyze_stream(
    stream: EdgeStream,
    channels: Sequence[str] | None = None,
    quantiles: tuple[float, ...] = DEFAULT_QUANTILES,
    edge: Edge = "rising",
    progress: Progress | None = None,
    use_native: bool | None = None,
    extremes: int = 0,
) -> Analysis:
    """analyze() of a capture read chunk by chunk: the same figures, in memory bounded
    by the histograms (and, with `extremes`, the N largest and smallest values of each
    metric with their times). Latency pairs and tie are not streamed (see the module
    doc)."""
    if edge not in kernel.MODES:
        raise ValueError(f"edge must be rising, falling or both, not {edge!r}")
    cap = stream.header
    names = [cap[n].name for n in channels] if channels else list(cap.channels)
    running = {n: ChannelStream(cap[n], cap.gaps, edge, use_native) for n in names}
    walks = {cap[n].name: (ChannelEvents(cap[n], cap.gaps, edge), new_extremes(extremes))
             for n in names} if extremes else {}  # fmt: skip
    total = sum(stream.edge_counts.get(n, 0) for n in names)
    done = 0
    ends: dict[str, list[int]] = {}  # first and last edge of every channel: the window
    counts = dict.fromkeys(cap.channels, 0)  # edges as read (a reader may drop some)
    for name, edges in stream.chunks:
        counts[name] = counts.get(name, 0) + int(edges.size)
        if edges.size:
            ends.setdefault(name, [int(edges[0]), 0])[1] = int(edges[-1])
        cs = running.get(name)
        if cs is None:
            continue
        cs.feed(edges)
        if name in walks:
            walk, ext = walks[name]
            for events in walk.feed(edges):
                add_events(ext, events)
        done += int(edges.size)
        if progress is not None:
            progress(done, total)
    like = Samples(np.zeros(0, np.int64), cap.tick_s, resolution_s=cap.resolution)
    per_channel = {n: cs.stats(like, quantiles) for n, cs in running.items()}
    derived = {n: derived_figures(m) for n, m in per_channel.items()}
    firsts = [a for a, _ in ends.values()]
    lasts = [b for _, b in ends.values()]
    lo = cap.t_start if cap.t_start is not None else (min(firsts) if firsts else 0)
    hi = cap.t_end if cap.t_end is not None else (max(lasts) if lasts else lo)
    found: dict[str, dict[str, Extremes]] = {
        n: walks[cap[n].name][1] for n in names if cap[n].name in walks
    }
    return Analysis(cap, edge, quantiles, per_channel, derived, {}, counts, (lo, hi), found)
