"""The `rtlab-hrtimer` workload kind: a periodic hrtimer measured inside the kernel
(workloads/linux/rtlab-hrtimer: the rtlab_hrtimer module and its reader, which loads it,
prints its samples as @rtl1 and unloads it). Runs where the module was built for the
running kernel: the qemu_gpio target with `kernel = "stock"` or `"rt"`, or a board
(docs/user-vs-kernel.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rtlab.lab.workloads.base import WorkloadKind, check_params, check_ranges, options_argv

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
    check_params("rtlab-hrtimer", p, _OPTS)
    check_ranges(p, _RANGES)


def _argv(exe: str, p: Mapping[str, Any]) -> list[str]:
    return options_argv(exe, p, _OPTS)


def _seconds(p: Mapping[str, Any]) -> float:
    return p.get("samples", 1000) * p.get("period_us", 1000) * 1e-6 + 0.5


WORKLOAD_KIND = WorkloadKind("rtlab-hrtimer", "rtlab-hrtimer", frozenset(), _check, _argv, _seconds)
