"""rtlab: a timing lab for real-time systems.

import rtlab
cap = rtlab.load("run.sr")                      # format from content/extension
periods = cap["D0"].periods(edge="rising")      # Samples, in ticks
print(rtlab.stats(periods))                     # n, mean, rms jitter, quantiles...
lat = rtlab.latency(cap, "irq", "task", edge="rising")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rtlab.analysis.latency import LatencyResult, latency
    from rtlab.analysis.stats import DEFAULT_QUANTILES, Stats
    from rtlab.analysis.stats import compute_stats as stats
    from rtlab.analysis.summary import Analysis, analyze
    from rtlab.analysis.tie import TieResult, tie
    from rtlab.errors import FormatError, RtlabError
    from rtlab.formats import load, save
    from rtlab.model import Capture, Channel, Samples

__version__ = "0.1.0"

# The library API, imported on first use: `import rtlab` (and so `rtlab --help`) stays
# free of numpy and the readers. name -> module, or (module, its name there).
_LAZY: dict[str, str | tuple[str, str]] = {
    "DEFAULT_QUANTILES": "rtlab.analysis.stats",
    "Analysis": "rtlab.analysis.summary",
    "Capture": "rtlab.model",
    "Channel": "rtlab.model",
    "FormatError": "rtlab.errors",
    "LatencyResult": "rtlab.analysis.latency",
    "RtlabError": "rtlab.errors",
    "Samples": "rtlab.model",
    "Stats": "rtlab.analysis.stats",
    "TieResult": "rtlab.analysis.tie",
    "analyze": "rtlab.analysis.summary",
    "latency": "rtlab.analysis.latency",
    "load": "rtlab.formats",
    "save": "rtlab.formats",
    "stats": ("rtlab.analysis.stats", "compute_stats"),
    "tie": "rtlab.analysis.tie",
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
    "TieResult",
    "__version__",
    "analyze",
    "latency",
    "load",
    "save",
    "stats",
    "tie",
]


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'rtlab' has no attribute {name!r}")
    module, attr = where if isinstance(where, tuple) else (where, name)
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
