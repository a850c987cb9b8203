"""What the QEMU target kinds share (rtlab.lab.targets.qemu, qemu_gpio, the labgrid
QEMUDriver board and the serial target's `qemu` flasher): the version, the guest's command
line as semihosting arguments, the icount options and the labels and fingerprint that say
a figure is an instruction-count model."""

from __future__ import annotations

import platform
import re
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any


def qemu_version(qemu: str) -> str | None:
    try:
        out = subprocess.run([qemu, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"version ([^\s]+)", out.stdout)
    return m.group(1) if m else None


def timebase_word(shift: int | None) -> str:
    """What the guest is told of its clock, the word after the program name: rtbench's
    QEMU board layers take it over a guess from the instruction rate they measure (a host
    that runs near 1 GHz >> s looks like icount); rtbench's parse skips it."""
    return "timebase=host" if shift is None else f"timebase=icount:{shift}"


def semihosting_args(words: Sequence[str], shift: int | None) -> list[str]:
    """The guest's command line as semihosting args after a fixed program name and the
    timebase (`shift`: the -icount shift, None for host time), not -kernel's path +
    -append: with the path in it, the firmware's parse (and so every icount figure after
    it) would shift with where the checkout lives."""
    line = ["rtbench", timebase_word(shift), *words]
    args = "".join(f",arg={w.replace(',', ',,')}" for w in line)
    return ["-semihosting-config", "enable=on,target=native" + args]


def icount_args(shift: int | None) -> list[str]:
    """Clocks that follow the instruction count (2^shift ns each): deterministic."""
    return [] if shift is None else ["-icount", f"shift={shift},align=off,sleep=off"]


def icount_labels(
    machine: str, shift: int | None, extra: Mapping[str, object] = {}
) -> dict[str, object]:
    """The meta every emulated run carries: timebase icount (or host), the machine and
    the shift, so a stored figure says it is an instruction-count model."""
    labels: dict[str, object] = {
        "timebase": "icount" if shift is not None else "host",
        "qemu_machine": machine,
        **extra,
    }
    if shift is not None:
        labels["icount_shift"] = shift
    return labels


def qemu_fingerprint(qemu: str, machine: str, shift: int | None) -> dict[str, Any]:
    return {
        "hostname": platform.node(),
        "qemu": {"version": qemu_version(qemu), "machine": machine},
        "icount_shift": shift,
        "warnings": [],
    }
