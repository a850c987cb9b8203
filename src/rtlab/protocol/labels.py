"""What a target says about every run it returns (emulated, its timebase, the board),
kept as data beside the workload's output and merged into each run's meta by the reader:
the output itself is never rewritten.

    Labels.of(under={"timebase": "icount"})   # the workload's own meta records win
    Labels.of(over={"emulated": "qemu-tcg"})  # they win over the workload's own meta

`under` is set as a run's `hello` is read, so a `meta` record of the workload that names
the same key replaces it; `over` is set as its `end` is read (a run cut short before its
`end` does not get it), replacing any value the workload gave.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


def _text(values: Mapping[str, object]) -> Mapping[str, str]:
    return MappingProxyType({str(k): str(v) for k, v in values.items()})


@dataclass(frozen=True)
class Labels:
    under: Mapping[str, str] = field(default_factory=dict)
    over: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls, under: Mapping[str, object] | None = None, over: Mapping[str, object] | None = None
    ) -> Labels:
        """Labels whose values are given as any object (written as str(value))."""
        return cls(_text(under or {}), _text(over or {}))

    def __bool__(self) -> bool:
        return bool(self.under or self.over)


NO_LABELS = Labels()
