"""rtlab: a timing lab for real-time systems.

import rtlab
cap = rtlab.load("run.sr")                      # format from content/extension
periods = cap["D0"].periods(edge="rising")      # Samples, in ticks
print(periods.stats())                          # n, mean, rms jitter, quantiles...
lat = rtlab.latency(cap, "irq", "task", edge="rising")
"""

from rtlab.analysis.latency import LatencyResult, latency
from rtlab.analysis.stats import DEFAULT_QUANTILES, Stats
from rtlab.analysis.summary import Analysis, analyze
from rtlab.errors import FormatError, RtlabError
from rtlab.formats import load, save
from rtlab.model import Capture, Channel, Samples

__version__ = "0.1.0"

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
