"""What a run records of a µC/OS-III build: the kernel's version (os.h) and the settings
of the port's configuration headers (workloads/rtbench/ports/ucos3/config) that change
a figure, in a configuration and on a machine with little RAM (the small pools)."""

from __future__ import annotations

import re
from pathlib import Path

from rtlab.catalog.machines import MACHINES
from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.rtos.base import header_match

CONFIG_DIR = REPO_ROOT / "workloads" / "rtbench" / "ports" / "ucos3" / "config"
# Less than 64 KiB of RAM (the machine file's ram_size, as the CMake layers decide):
# RTB_UCOS3_SMALL (ports/ucos3/rtb_ucos3_sizes.h and os_cfg_app.h's small block).
SMALL_RAM = 65536


def is_small(machine: str) -> bool:
    """The machine has less than SMALL_RAM bytes of RAM: the small pools and stacks."""
    ram = MACHINES.get(machine).get("ram_size", SMALL_RAM) if machine in MACHINES else SMALL_RAM
    return bool(ram < SMALL_RAM)


def version(os_dir: Path) -> str:
    found = header_match(os_dir / "Source" / "os.h", r"#define\s+OS_VERSION\s+(\d+)u?")
    if not found:
        return ""
    v = int(found)  # 30802 = V3.08.02
    return f"V{v // 10000}.{v // 100 % 100:02d}.{v % 100:02d}"


# The settings that change a figure: the checks the lean configuration turns off, and
# what shapes scheduling (docs/rtos/ucos3.md).
_MATTERS = (
    "OS_CFG_ARG_CHK_EN",
    "OS_CFG_CALLED_FROM_ISR_CHK_EN",
    "OS_CFG_INVALID_OS_CALLS_CHK_EN",
    "OS_CFG_OBJ_TYPE_CHK_EN",
    "OS_CFG_OBJ_CREATED_CHK_EN",
    "OS_CFG_TS_EN",
    "OS_CFG_TASK_PROFILE_EN",
    "OS_CFG_PRIO_MAX",
    "OS_CFG_TICK_RATE_HZ",
    "OS_CFG_SCHED_ROUND_ROBIN_EN",
    "OS_CFG_STAT_TASK_EN",
    "OS_CFG_TMR_EN",
    "OS_CFG_ISR_STK_SIZE",
    "CPU_CFG_KA_IPL_BOUNDARY",
)
_LEAN_BLOCK = re.compile(r"#if defined\(RTB_UCOS3_LEAN\).*?\n(.*?)#endif", re.S)
_SMALL_BLOCK = re.compile(r"#if defined\(RTB_UCOS3_SMALL\).*?\n(.*?)#endif", re.S)
_DEFINE = re.compile(r"^\s*#define\s+(\w+)[ \t]+([^\s/]+)", re.M)


def config_that_matters(config: str, small: bool = False) -> dict[str, str]:
    """The values of _MATTERS for `config` (on a SMALL board if `small`), read from the
    port's headers, plus what the kernel cannot do here (recorded so a table never shows
    a missing figure as zero)."""
    text = "\n".join(
        (CONFIG_DIR / h).read_text(errors="replace")
        for h in ("os_cfg.h", "os_cfg_app.h", "cpu_cfg.h")
    )
    lean, small_block = _LEAN_BLOCK.search(text), _SMALL_BLOCK.search(text)
    base = _SMALL_BLOCK.sub("", _LEAN_BLOCK.sub("", text))
    values = dict(_DEFINE.findall(base))
    if config == "lean" and lean:
        values.update(_DEFINE.findall(lean.group(1)))
    if small and small_block:
        values.update(_DEFINE.findall(small_block.group(1)))
    found = {k: values[k].rstrip("u") for k in _MATTERS if k in values}
    if small:
        found["small"] = "1: 16-20 KiB pools; interrupts on the reset stack"
    found["smp"] = "unsupported: µC/OS-III is single-core (multi-core runs are not made)"
    return found
