"""`--min-width 20ns`: a glitch filter, as PulseView's and Logic 2's, streamed.

A pulse narrower than the minimum width (two edges of a channel less than `width`
ticks apart) is removed with both its edges, from the earliest on: of three edges each
closer than the width to the next, the first two go (one pulse) and the third stays,
the level after them unchanged. Each chunk's last edge is held back until the next
chunk (or the end) shows whether a narrow pulse starts there. A pulse is never removed
across a gap of the capture (its edges are in different segments). The filter counts
the pulses it removed per channel, for the command to say.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from rtlab.model import EdgeStream


def _filter(e: np.ndarray, width: int, gaps: np.ndarray) -> tuple[np.ndarray, int]:
    """The edges `e` (sorted) without their narrow pulses; the number removed."""
    if e.size < 2:
        return e, 0
    d = np.diff(e)
    close = d < width
    if len(gaps):
        seg = np.searchsorted(gaps[:, 0], e, side="right")
        close &= seg[1:] == seg[:-1]
    if not close.any():
        return e, 0
    keep = np.ones(e.size, dtype=bool)
    i, removed = 0, 0
    for j in np.flatnonzero(close).tolist():  # few: the narrow pulses, left to right
        if j < i:
            continue  # its first edge went with the pulse before
        keep[j] = keep[j + 1] = False
        removed += 1
        i = j + 2
    return e[keep], removed


def min_width_stream(stream: EdgeStream, width: int) -> tuple[EdgeStream, dict[str, int]]:
    """The stream without pulses narrower than `width` ticks, and the running count of
    pulses removed per channel (complete once the stream is read)."""
    removed = dict.fromkeys(stream.header.channels, 0)
    gaps = stream.header.gaps
    held: dict[str, int] = {}

    def chunks() -> Iterator[tuple[str, np.ndarray]]:
        for name, edges in stream.chunks:
            if edges.size == 0:
                continue
            e = np.asarray(edges, dtype=np.int64)
            if name in held:
                e = np.concatenate(([held.pop(name)], e))
            out, n = _filter(e, width, gaps)
            removed[name] = removed.get(name, 0) + n
            if out.size and (e.size == 0 or out[-1] == e[-1]):
                held[name] = int(out[-1])  # the next chunk may pair it
                out = out[:-1]
            if out.size:
                yield name, out
        for name, t in held.items():
            yield name, np.array([t], dtype=np.int64)

    return EdgeStream(stream.header, dict(stream.edge_counts), chunks()), removed
