"""Where a channel's chunked edges stand among the capture's gaps.

Nothing spans a gap: a walk over a channel's edges (read chunk by chunk) cuts each chunk
at the gaps and, on the first edge after one or more gaps, resumes from the level the
last of them records (or unknown). The streamed histograms (stream.py) and the event
walk (events.py) keep this one cursor, so both cut at the same edge.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from rtlab.model import UNKNOWN_LEVEL, Channel


@dataclass
class GapCursor:
    """The next gap a channel's walk has not crossed yet."""

    channel: Channel
    gaps: np.ndarray  # (start, end) ticks, sorted
    _next_gap: int = 0

    def pieces(self, edges: np.ndarray) -> Iterator[tuple[int | None, np.ndarray]]:
        """Cut one chunk of sorted edges (after every earlier chunk) at the gaps: each
        piece is non-empty and comes with the level to resume from when one or more gaps
        lie before it (None when the walk carries on across the piece's start)."""
        g = self.gaps
        resume: int | None = None
        while edges.size:
            if self._next_gap < len(g):
                k = int(np.searchsorted(edges, g[self._next_gap, 0], side="left"))
                part, edges = edges[:k], edges[k:]
            else:
                part, edges = edges, edges[:0]
            if part.size:
                yield resume, part
                resume = None
            if edges.size:
                resume = self._cross(int(edges[0]), resume)

    def _cross(self, t: int, resume: int | None) -> int | None:
        """Cross every gap that starts at or before t: the level after the last one."""
        g, levels = self.gaps, self.channel.gap_levels
        while self._next_gap < len(g) and g[self._next_gap, 0] <= t:
            j = self._next_gap
            resume = int(levels[j]) if levels is not None else UNKNOWN_LEVEL
            self._next_gap += 1
        return resume
