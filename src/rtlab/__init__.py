"""rtlab: a timing lab for real-time systems.

import rtlab
cap = rtlab.load("run.sr")                      # format from content/extension
periods = cap["D0"].periods(edge="rising")      # Samples, in ticks
print(periods.stats())                          # n, mean, rms jitter, quantiles...
lat = rtlab.latency(cap, "irq", "task", edge="rising")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rtlab.analysis.latency import LatencyResult, latency
    from rtlab.analysis.stats import DEFAULT_QUANTILES, Stats
    from rtlab.analysis.summary import Analysis, analyze
    from rtlab.errors import FormatError, RtlabError
    from rtlab.formats import load, save
    from rtlab.model import Capture, Channel, Samples

__version__ = "0.1.0"

# The library API, imported on first use: `import rtlab` (and so `rtlab --help`) stays
# free of numpy and the readers.
_LAZY = {
    "DEFAULT_QUANTILES": "rtlab.analysis.stats",
    "Analysis": "rtlab.analysis.summary",
    "Capture": "rtlab.model",
    "Channel": "rtlab.model",
    "FormatError": "rtlab.errors",
    "LatencyResult": "rtlab.analysis.latency",
    "RtlabError": "rtlab.errors",
    "Samples": "rtlab.model",
    "Stats": "rtlab.analysis.stats",
    "analyze": "rtlab.analysis.summary",
    "latency": "rtlab.analysis.latency",
    "load": "rtlab.formats",
    "save": "rtlab.formats",
}

__all__ = [
    "DEFAULT_QUANTILES",
    "Analysis",
    "Capture",
    "Channel",
    "FormatError",
    "LatencyResult",
    "RtlabError",
    "Samples",
    "Stats",
    "__version__",
    "analyze",
    "latency",
    "load",
    "save",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rtlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
