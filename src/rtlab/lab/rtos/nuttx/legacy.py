"""The defconfig fragments in the spelling of an older NuttX (the STM32 study's 10.1.0):
options renamed since, and options that did not exist yet, so that a user can bring
that kernel beside the tested one (README's kernel table). Only what the rtbench
fragments use is translated; anything else a tree lacks still fails loudly
(build.check_config)."""

from __future__ import annotations

import re
from pathlib import Path

# Before NuttX 10.3 the init task was INIT_ENTRYPOINT=y + USER_ENTRYPOINT/USERMAIN_*.
_RENAMED = {"CONFIG_INIT_STACKSIZE": "CONFIG_USERMAIN_STACKSIZE"}
# Options of newer trees only (dropped when the tree's Kconfig files do not define them).
_NEWER = ("ARCH_BOARD_COMMON", "ARM_TOOLCHAIN_GNU_EABI")


def is_legacy(nuttx: Path) -> bool:
    """A tree whose init task is named by USER_ENTRYPOINT (NuttX before 10.3)."""
    try:
        return "config USER_ENTRYPOINT" in (nuttx / "sched" / "Kconfig").read_text()
    except OSError:
        return False


def translate(text: str, nuttx: Path) -> str:
    """`text` (defconfig lines) in the tree's spelling; unchanged for a current tree."""
    if not is_legacy(nuttx):
        return text
    kconfig = _kconfig_text(nuttx)
    out = []
    for line in text.splitlines():
        name, _, value = line.partition("=")
        if name == "CONFIG_INIT_ENTRYPOINT":
            out += ["CONFIG_INIT_ENTRYPOINT=y", f"CONFIG_USER_ENTRYPOINT={value}"]
            continue
        if name.removeprefix("CONFIG_") in _NEWER and not re.search(
            rf"^\s*(menu)?config {name.removeprefix('CONFIG_')}\s*$", kconfig, re.M
        ):
            continue
        out.append(f"{_RENAMED.get(name, name)}={value}" if value else line)
    # 10.1.0's armv6-m up_assert names the task through a variable it declares only
    # with DEBUG_ALERT (selected by DEBUG_FEATURES alone): without task names it builds.
    out.append("CONFIG_TASK_NAME_SIZE=0")
    # CLOCK_MONOTONIC was an option then (always on since): the POSIX port reads it.
    out.append("CONFIG_CLOCK_MONOTONIC=y")
    return "\n".join(out) + "\n"


def _kconfig_text(nuttx: Path) -> str:
    parts = [nuttx / "Kconfig", nuttx / "boards" / "Kconfig", nuttx / "arch" / "arm" / "Kconfig"]
    return "\n".join(p.read_text(errors="replace") for p in parts if p.is_file())
