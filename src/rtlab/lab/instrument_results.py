"""An instrument's capture of one run → the run's series, counters and metadata.

Series (int64 ticks of the capture's tick, unit "ticks"; names are read by the report):

- `instrument.period`: the pin's rising-edge to rising-edge periods
- `instrument.high`, `instrument.low`: its complete high and low levels
- `instrument.latency`: pin rising edge → first rising edge on `response` (if set)

No interval spans a gap of the capture (rtlab.intervals). Counters:
`instrument.edges` (the pin's edges), `instrument.gaps`, `instrument.edges_dropped`
(edges of other channels inside gaps), `instrument.latency_unpaired`/`_extra`.
Metadata keys start with `instrument.`: kind, pin, tick, window, capture file.
"""

from __future__ import annotations

from typing import Any

from rtlab.analysis.latency import latency
from rtlab.instruments.kinds import InstrumentSpec
from rtlab.model import Capture, format_tick
from rtlab.results import RunWriter

SERIES = ("instrument.period", "instrument.high", "instrument.low")


def check(cap: Capture, spec: InstrumentSpec, name: str) -> str | None:
    """Why this capture cannot time the pin, or None."""
    if spec.pin not in cap.channels:
        return (
            f"instrument {name}: no channel {spec.pin!r} in the capture ({', '.join(cap.channels)})"
        )
    n = len(cap[spec.pin])
    if n == 0:
        return f"instrument {name}: captured no edge on pin {spec.pin}"
    if len(cap[spec.pin].periods("rising")) == 0:
        return f"instrument {name}: only {n} edge(s) on pin {spec.pin}, no complete period"
    return None


def record(
    w: RunWriter,
    cap: Capture,
    spec: InstrumentSpec,
    description: dict[str, Any],
    rel_path: str,
    name: str,
) -> str | None:
    """Add the instrument's metadata to the run and, when the capture times the pin,
    its series and counters; else return why not (the run is then not `ok`)."""
    tick = cap.tick_s
    window = (cap.t_end or 0) - (cap.t_start or 0)
    meta = {
        "kind": spec.kind,
        "pin": spec.pin,
        "channels": ",".join(cap.channels),
        "tick_s": str(tick),
        "tick": format_tick(tick),
        "resolution_s": str(cap.resolution),
        "window_s": f"{float(window * tick):.6f}",
        "gaps": str(len(cap.gaps)),
        "capture_file": rel_path,
    }
    if (1 / tick).denominator == 1:
        meta["samplerate_hz"] = str(1 / tick)
    for key in ("driver", "conn", "sigrok_cli", "libsigrok", "port", "firmware", "resolution_ns"):
        if description.get(key) is not None:
            meta[key] = str(description[key])
    w.meta.update({f"instrument.{k}": v for k, v in meta.items()})
    problem = check(cap, spec, name)
    if problem is not None:
        return problem
    ch = cap[spec.pin]
    w.meta["instrument.edges"] = str(len(ch))
    attrs = {"pin": spec.pin, "instrument": spec.kind}
    w.add_series(
        "instrument.period",
        ch.periods("rising").values,
        unit="ticks",
        tick_s=tick,
        attrs={**attrs, "edge": "rising"},
    )
    for level in ("high", "low"):
        w.add_series(
            f"instrument.{level}", ch.widths(level).values, unit="ticks", tick_s=tick, attrs=attrs
        )
    w.counters["instrument.edges"] = (len(ch), None)
    w.counters["instrument.gaps"] = (len(cap.gaps), None)
    dropped = int(cap.metadata.get("edges_dropped_in_gaps", 0))
    w.counters["instrument.edges_dropped"] = (dropped, None)
    if spec.response is not None:
        lat = latency(cap, spec.pin, spec.response, edge="rising")
        w.add_series(
            "instrument.latency",
            lat.samples.values,
            unit="ticks",
            tick_s=tick,
            attrs={**attrs, "response": spec.response, "edge": "rising"},
        )
        w.counters["instrument.latency_unpaired"] = (lat.unpaired, None)
        w.counters["instrument.latency_extra"] = (lat.extra, None)
    return None
