"""The `rtlab-hrtimer` workload kind: a periodic hrtimer measured inside the kernel
(workloads/linux/rtlab-hrtimer: the rtlab_hrtimer module and its reader, which loads it,
prints its samples as @rtl1 and unloads it). Runs where the module was built for the
running kernel: the qemu_gpio target with `kernel = "stock"` or `"rt"`, or a board
(docs/user-vs-kernel.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.workloads.base import WorkloadKind, check_ranges

# parameter -> (type, the reader's option)
_OPTS: dict[str, tuple[type, str]] = {
    "period_us": (int, "-i"),
    "samples": (int, "-l"),
    "soft": (bool, "--soft"),
    "gpio": (int, "--gpio"),
    "binary": (bool, "--binary"),
    "crc": (bool, "--crc"),
    "module": (str, "--module"),  # the .ko on a board (the guest's is /rtlab/rtlab_hrtimer.ko)
}
# what the module accepts (rtlab_hrtimer.c RTLAB_MAX_*): refused at spec load, not in the guest
_RANGES: dict[str, tuple[float, float]] = {
    "period_us": (1, 1_000_000),
    "samples": (1, 1_000_000),
    "gpio": (0, 1 << 20),
}


def _check(p: Mapping[str, Any]) -> None:
    for key, value in p.items():
        if key not in _OPTS:
            raise ConfigError(
                key, f"unknown rtlab-hrtimer parameter {key!r}; known: {', '.join(_OPTS)}"
            )
        want = _OPTS[key][0]
        if not isinstance(value, want) or (isinstance(value, bool) and want is not bool):
            raise ConfigError(key, f"{key} = {value!r}: wrong type")
    check_ranges(p, _RANGES)


def _argv(exe: str, p: Mapping[str, Any]) -> list[str]:
    args = [exe, "-q"]
    for key, value in p.items():
        opt = _OPTS[key][1]
        if isinstance(value, bool):
            args += [opt] if value else []
        else:
            args += [opt, str(value)]
    return args


def _seconds(p: Mapping[str, Any]) -> float:
    return p.get("samples", 1000) * p.get("period_us", 1000) * 1e-6 + 0.5


WORKLOAD_KIND = WorkloadKind("rtlab-hrtimer", "rtlab-hrtimer", frozenset(), _check, _argv, _seconds)
