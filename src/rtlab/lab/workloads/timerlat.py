"""The `rtlab-timerlat` workload kind: the kernel's own timerlat tracer, read from
tracefs in the guest (workloads/linux/rtlab-hrtimer/rtlab-timerlat.sh), the independent
view of the rtlab_hrtimer module's wake-up latency. Runs in the qemu_gpio guest with
`kernel = ...`; on a kernel without the tracer (Debian's stock arm64) its run says
`warn code=unsupported` and holds no series (docs/user-vs-kernel.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.workloads.base import WorkloadKind, check_ranges

_OPTS = {"period_us": "-i", "samples": "-l"}
_RANGES = {"period_us": (1, 1_000_000), "samples": (1, 1_000_000)}


def _check(p: Mapping[str, Any]) -> None:
    for key, value in p.items():
        if key not in _OPTS:
            raise ConfigError(
                key, f"unknown rtlab-timerlat parameter {key!r}; known: {', '.join(_OPTS)}"
            )
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(key, f"{key} = {value!r}: expected an integer")
    check_ranges(p, _RANGES)


def _argv(exe: str, p: Mapping[str, Any]) -> list[str]:
    return [exe, *(a for k, v in p.items() for a in (_OPTS[k], str(v)))]


def _seconds(p: Mapping[str, Any]) -> float:
    # the script traces whole seconds, one more than the samples need
    return p.get("samples", 1000) * p.get("period_us", 1000) * 1e-6 + 2.5


WORKLOAD_KIND = WorkloadKind(
    "rtlab-timerlat", "rtlab-timerlat", frozenset(), _check, _argv, _seconds
)
