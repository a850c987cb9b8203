"""What the QEMU target kinds share (rtlab.lab.targets.qemu_mps2, qemu_gpio)."""

from __future__ import annotations

import re
import subprocess


def qemu_version(qemu: str) -> str | None:
    try:
        out = subprocess.run([qemu, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"version ([^\s]+)", out.stdout)
    return m.group(1) if m else None
