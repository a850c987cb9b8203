"""`analyze -l 'SRC->DST'`: latencies whose source is an edge or an event sigrok's
decoders find (rtlab.instruments.sigrok.decoders), added to an analysis. A capture that
is not a sigrok session as it stands (another format, or cut by --from/--to) is written
as one to a temporary folder for sigrok-cli, its sample 0 at the capture's first tick."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.analysis.arrow import Endpoint, arrow_latency
from rtlab.analysis.events import Extremes
from rtlab.analysis.stats import compute_stats
from rtlab.analysis.summary import Analysis


def add_arrow_latencies(
    an: Analysis,
    file: Path,
    arrows: Sequence[tuple[str, Endpoint, Endpoint]],
    decoders: list[str],
    quantiles: tuple[float, ...],
    extremes: int,
    window: Any,
) -> None:
    cap = an.capture
    with tempfile.TemporaryDirectory(prefix="rtlab-pd-") as tmp:
        session: tuple[Path, int] | None = None
        for label, src, dst in arrows:
            times = None
            if src.is_decoder:
                if session is None:
                    session = _session(cap, file, window, Path(tmp))
                times = _decoded_ends(session, src, decoders)
            r = arrow_latency(cap, src, dst, times)
            counts = r.counts()
            an.latencies[label] = (compute_stats(r.samples, quantiles), counts)
            if extremes:
                ext = Extremes(extremes)
                at = r.samples.at
                ext.add(at if at is not None else np.zeros_like(r.samples.values), r.samples.values)
                an.extremes[label] = {"latency": ext}


def _session(cap: Any, file: Path, window: Any, tmp: Path) -> tuple[Path, int]:
    """A session file of the capture and the tick of its sample 0."""
    if cap.metadata.get("format") == "sigrok" and window is None:
        return file, 0
    from rtlab import formats

    out = tmp / "capture.sr"
    formats.save(cap, out, "sigrok")
    return out, cap.window()[0]


def _decoded_ends(session: tuple[Path, int], src: Endpoint, decoders: list[str]) -> np.ndarray:
    """The tick at which each matching decoded event ends (a UART byte: the end of its
    last data bit, as sigrok's annotation ends)."""
    from rtlab.instruments.sigrok.decoders import DecoderEvent, annotation_spans

    path, offset = session
    found = annotation_spans(path, DecoderEvent.parse(src.text), decoders)
    return np.array([es + offset for _, es in found], dtype=np.int64)
