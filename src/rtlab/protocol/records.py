"""What a parsed `@rtl1` run holds (Run, Series), and the constants of the wire format
(docs/protocol.md) that the parser and the encoder share."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from rtlab.errors import FormatError
from rtlab.model import Samples

PREFIX = "@rtl"
VERSION = 1
LINE_PREFIX = f"{PREFIX}{VERSION} "
UNITS = ("ns", "ticks", "cycles", "count")
END_STATUSES = ("ok", "error", "interrupted")
MAX_CHUNK = 256  # values per chunk a writer should not exceed (small firmware buffers)
MAX_LINE = 4096


class ProtocolError(FormatError):
    """A malformed protocol line: names the source and the line number."""


@dataclass
class Series:
    name: str
    unit: str
    tick_s: Fraction | None  # None: a count, or ticks whose length was not declared
    attrs: dict[str, str] = field(default_factory=dict)
    values: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return int(self.values.size)

    def samples(self) -> Samples:
        """The values as rtlab.model.Samples: time series get unit "s" and their tick."""
        if self.unit == "count":
            return Samples(self.values, Fraction(1), name=self.name, unit="count")
        if self.unit == "cycles" and self.tick_s is None:
            return Samples(self.values, Fraction(1), name=self.name, unit="cycles")
        if self.tick_s is None:
            raise ValueError(f"series {self.name!r} in {self.unit} has no tick length")
        return Samples(self.values, self.tick_s, name=self.name, unit="s")


@dataclass
class Run:
    workload: str
    version: str
    meta: dict[str, str] = field(default_factory=dict)
    series: dict[str, Series] = field(default_factory=dict)
    counters: dict[str, tuple[int, str | None]] = field(default_factory=dict)
    histograms: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    status: str = "truncated"  # ok | error | interrupted (from `end`) | truncated (no end)
    complete: bool = False  # `end` seen, record count right, nothing lost or corrupt
    problems: list[str] = field(default_factory=list)
    # Beyond the core API: histogram units, the end message, and where the run was.
    histogram_units: dict[str, str] = field(default_factory=dict)
    message: str | None = None
    first_line: int = 0
    last_line: int = 0
