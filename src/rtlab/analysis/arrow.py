"""Latency between any two events, written `SOURCE->TARGET`: `D2:rising->D3:falling`
(an edge of one channel to an edge of another), or a protocol event decoded by sigrok
(`'uart:rx:data=0x55'->D3:rising`: from the end of that UART byte to the next rising
edge on D3). The decoding is rtlab.instruments.sigrok.decoders'; this module pairs
the times (rtlab.analysis.latency's rule: each source event with the first target edge
at or after it and before the next source event, never across a gap).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from rtlab.analysis.latency import LatencyResult, latency_of_times
from rtlab.intervals import select_edges
from rtlab.model import Capture

_EDGE = re.compile(r"^(?P<ch>.+):(?P<edge>rising|falling|both)$")


@dataclass(frozen=True)
class Endpoint:
    """An edge of a channel, or (channel None) a decoder event spec."""

    text: str
    channel: str | None = None
    edge: str = "rising"

    @property
    def is_decoder(self) -> bool:
        return self.channel is None


def _endpoint(text: str) -> Endpoint:
    t = text.strip().strip("'\"")
    m = _EDGE.match(t)
    if m is not None:
        return Endpoint(t, m["ch"], m["edge"])
    return Endpoint(t)


def is_arrow(text: str) -> bool:
    return "->" in text


def parse_arrow(text: str) -> tuple[Endpoint, Endpoint]:
    src, sep, dst = text.partition("->")
    if not sep or not src.strip() or not dst.strip():
        raise ValueError(f"latency {text!r}: write SOURCE->TARGET, e.g. D2:rising->D3:rising")
    a, b = _endpoint(src), _endpoint(dst)
    if b.is_decoder:
        raise ValueError(
            f"latency {text!r}: the target must be an edge of a channel (D3:rising), "
            f"not {b.text!r}"
        )
    return a, b


def edge_times(cap: Capture, end: Endpoint) -> np.ndarray:
    # end.edge: one of _EDGE's three words (the parser's regex), the Literal Edge names
    return select_edges(cap, cap[end.channel or ""], end.edge)  # type: ignore[arg-type]


def arrow_latency(
    cap: Capture, src: Endpoint, dst: Endpoint, src_times: np.ndarray | None = None
) -> LatencyResult:
    """From each source event (the channel's edges, or `src_times` for a decoder event)
    to the next target edge."""
    a = edge_times(cap, src) if src_times is None else np.asarray(src_times, dtype=np.int64)
    b = edge_times(cap, dst)
    return latency_of_times(cap, np.sort(a), b, src.text, dst.text)

