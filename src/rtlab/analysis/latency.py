"""Channel-to-channel latency: how long after an edge on A the response on B comes.

Each chosen edge on A is paired with the first chosen edge on B at or after it and
before the next A edge (and not across a gap). A edges with no such B edge are
`unpaired`; B edges left over (several responses to one A, or before the first A) are
`extra`. Both are counted and reported, never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rtlab.intervals import segment_ids, select_edges
from rtlab.model import Capture, Edge, Samples


@dataclass
class LatencyResult:
    source: str
    target: str
    samples: Samples
    n_source: int
    n_target: int
    unpaired: int  # A edges with no B edge before the next A edge
    extra: int  # B edges not paired with any A edge

    @property
    def paired(self) -> int:
        return len(self.samples)

    def counts(self) -> dict[str, int]:
        """The edge counts a report prints beside the statistics."""
        return {
            "n_source": self.n_source,
            "n_target": self.n_target,
            "paired": self.paired,
            "unpaired": self.unpaired,
            "extra": self.extra,
        }


def latency(
    cap: Capture,
    source: str,
    target: str,
    edge: Edge = "rising",
    target_edge: Edge | None = None,
) -> LatencyResult:
    a = select_edges(cap, cap[source], edge)
    b = select_edges(cap, cap[target], target_edge or edge)
    return latency_of_times(cap, a, b, source, target)


def latency_of_times(
    cap: Capture, a: np.ndarray, b: np.ndarray, source: str, target: str
) -> LatencyResult:
    """The pairing of the module doc on event times `a` (sorted ticks: a channel's
    chosen edges, or the ends of decoded protocol events) and `b`."""
    idx = np.searchsorted(b, a, side="left")
    has_b = idx < b.size
    cand = b[np.minimum(idx, max(b.size - 1, 0))] if b.size else np.zeros_like(a)
    limit = np.empty_like(a)
    limit[:-1] = a[1:]
    if a.size:
        limit[-1] = np.iinfo(np.int64).max
    ok = has_b & (cand < limit)
    seg = segment_ids(cap, a)
    if seg is not None and b.size:
        ok &= seg == segment_ids(cap, cand)
    lat = (cand - a)[ok]
    at = a[ok]
    samples = Samples(
        lat, cap.tick_s, name=f"{source}->{target}", resolution_s=cap.resolution, at=at
    )
    paired = int(ok.sum())
    return LatencyResult(
        source=source,
        target=target,
        samples=samples,
        n_source=int(a.size),
        n_target=int(b.size),
        unpaired=int(a.size) - paired,
        extra=int(b.size) - paired,
    )
