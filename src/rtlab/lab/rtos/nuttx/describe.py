"""What a run records of a NuttX build: the kernel's version (its commit, else what a
release tree states) and the settings of its defconfig fragments (or of the build's
.config, on NuttX's own board) that change a figure."""

from __future__ import annotations

import re
from pathlib import Path

from rtlab.lab.rtos.nuttx.build import PORT_DIR, Core, Trees, fragments, git_head

# What NuttX's tools/version.sh writes when it finds no version (no git, no .version):
# a placeholder, never a release number to show.
DUMMY_VERSION = "0.0.0"


def version(t: Trees) -> str:
    """The kernel's commit (git), else what a plain tree (a release tarball) states in its
    .version file (tools/zipme.sh writes it): the release number, else its build id. ""
    when the tree states none: never NuttX's own placeholder 0.0.0, which its build
    writes in a tree without git (rtlab.lab.rtos.firmware then says "unknown version")."""
    head = git_head(t.nuttx)
    if head:
        return head[:12]
    try:
        text = (t.nuttx / ".version").read_text(errors="replace")
    except OSError:
        return ""
    found = dict(re.findall(r'^CONFIG_VERSION_(STRING|BUILD)="?([^"\n]*)"?', text, re.M))
    release = found.get("STRING", "")
    if release and release != DUMMY_VERSION:
        return release
    return found.get("BUILD", "")[:12]


# The settings that change a figure (see docs/rtos/nuttx.md).
_MATTERS = (
    "CONFIG_USEC_PER_TICK",
    "CONFIG_SCHED_TICKLESS",
    "CONFIG_RR_INTERVAL",
    "CONFIG_PRIORITY_INHERITANCE",
    "CONFIG_DEBUG_ASSERTIONS",
    "CONFIG_DEBUG_OPTLEVEL",
    "CONFIG_ARCH_IDLE_CUSTOM",
    "CONFIG_ARCH_FPU",
    "CONFIG_BUILD_FLAT",
    "CONFIG_STACK_COLORATION",
    "CONFIG_SMP",
    "CONFIG_SMP_NCPUS",
)


def config_that_matters(core: Core, config: str, built: Path) -> dict[str, str]:
    """What the machine's defconfig fragments set (NuttX's own board's, not the project
    board's: SMP, its tick); for an image on NuttX's own board the build's .config once
    built (the board's defaults, e.g. its FPU, are not in the fragments)."""
    files = [built] if core.own_board and built.is_file() else fragments(core, config)
    text = "\n".join(f.read_text() for f in files if f.is_file())
    found = {}
    for name in _MATTERS:
        m = re.search(rf"^{name}=(.*)$", text, re.M)
        found[name.removeprefix("CONFIG_")] = m.group(1).strip('"') if m else "n"
    if core.own_board:
        return found  # NuttX's own board: its own timer, not the project board's SysTick
    board_h = (PORT_DIR / "board" / "include" / "board.h").read_text()
    m = re.search(r"#define MPS_SYSTICK_CLOCK \((\d+) \* 1000 \* 1000\)", board_h)
    if m:
        found["MPS_SYSTICK_CLOCK"] = str(int(m.group(1)) * 1_000_000)
    return found
