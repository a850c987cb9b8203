"""What a run records of a FreeRTOS build: the kernel's version (and commit, between
releases), and the FreeRTOSConfig.h settings that change a figure."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from rtlab.lab.rtos.base import header_match


def version(kernel: Path) -> str:
    header = kernel / "include" / "task.h"
    return header_match(header, r'#define\s+tskKERNEL_VERSION_NUMBER\s+"([^"]+)"')


def commit(kernel: Path) -> str:
    """The checkout's commit where it is a git clone of its own: between releases task.h
    says "V11.1.0+" for years of commits."""
    if not (kernel / ".git").exists():
        return ""
    head = subprocess.run(
        ["git", "-C", str(kernel), "rev-parse", "--short=9", "HEAD"],
        capture_output=True,
        text=True,
    )
    return head.stdout.strip() if head.returncode == 0 else ""


# The settings that change a figure (see docs/rtbench.md on configurations).
_MATTERS = (
    "configUSE_PREEMPTION",
    "configUSE_TIME_SLICING",
    "configTICK_RATE_HZ",
    "configUSE_PORT_OPTIMISED_TASK_SELECTION",
    "configCHECK_FOR_STACK_OVERFLOW",
)


def config_that_matters(*headers: Path, more: list[str]) -> dict[str, str]:
    text = "\n".join(h.read_text(errors="replace") for h in headers if h.is_file())
    names = (*_MATTERS, *more)
    # configASSERT is defined only under RTB_FREERTOS_ASSERT, which this build never sets
    found: dict[str, str] = {"configASSERT": "off"}
    for name in names:
        m = re.search(rf"^\s*#define\s+{name}\b[ \t]*(.*)$", text, re.M)
        if m:
            found[name] = m.group(1).split("/*")[0].strip()
    return found
