"""µC/OS-III: the user's uC-OS3, uC-CPU and uC-LIB checkouts (UCOS3_PATH, UCCPU_PATH,
UCLIB_PATH, or UCOS3_PATH alone naming one folder that holds all three), built with the
project's mps2 board layer and configuration headers (workloads/rtbench/ports/ucos3).

Two configurations: "default" (µC/OS-III's template: argument/object checks on, plus
timestamps) and "lean" (those checks and timestamps off). The ARMv7-M port on the M3/M4/M7
machines and boards, the ARMv6-M one on the Cortex-M0 microbit and the M0+ nucleo-l073rz;
the boards with 16-20 KiB of RAM take the small pools and stacks (is_small)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import MACHINES
from rtlab.lab.boards.layers import build_image, build_layer
from rtlab.lab.boards.pico_sdk import build_on_sdk
from rtlab.lab.build import REPO_ROOT
from rtlab.lab.rtos.base import PortBase, RtosBuildError, check_choice, header_match

VAR_OS, VAR_CPU, VAR_LIB = "UCOS3_PATH", "UCCPU_PATH", "UCLIB_PATH"
PORT_DIR = REPO_ROOT / "workloads" / "rtbench" / "ports" / "ucos3"
CONFIG_DIR = PORT_DIR / "config"
TESTED = (
    "uC-OS3 v3.08.02 2fa9aeb, uC-CPU v1.32.01 ae5796e, uC-LIB v1.39.01 71b5f65 "
    "from github.com/weston-embedded"
)
# Less than 64 KiB of RAM (the machine file's ram_size, as the CMake layers decide):
# RTB_UCOS3_SMALL (ports/ucos3/rtb_ucos3_sizes.h and os_cfg_app.h's small block).
SMALL_RAM = 65536


def is_small(machine: str) -> bool:
    """The machine has less than SMALL_RAM bytes of RAM: the small pools and stacks."""
    ram = MACHINES.get(machine).get("ram_size", SMALL_RAM) if machine in MACHINES else SMALL_RAM
    return bool(ram < SMALL_RAM)


# What each checkout must hold, and the folder name inside a folder holding all three.
_REPOS = (
    (VAR_OS, "uC-OS3", Path("Source") / "os_core.c"),
    (VAR_CPU, "uC-CPU", Path("cpu_core.c")),
    (VAR_LIB, "uC-LIB", Path("lib_mem.c")),
)


def checkouts(paths: Mapping[str, str]) -> dict[str, Path] | str:
    """The three checkouts by variable, or one line saying what to set."""
    top = paths.get(VAR_OS, "")
    if not top:
        return (
            f"set {VAR_OS} to a uC-OS3 checkout, or to a folder holding uC-OS3, uC-CPU "
            f"and uC-LIB ({TESTED}; README: bring your own kernels)"
        )
    holder = Path(top)
    found: dict[str, Path] = {}
    for var, folder, marker in _REPOS:
        if (holder / folder / marker).is_file():  # one folder holding all three
            found[var] = holder / folder
            continue
        given = paths.get(var, "")
        if var == VAR_OS:
            given = top
        if not given:
            return f"set {var} to a {folder} checkout (or {VAR_OS} to a folder holding it)"
        if not (Path(given) / marker).is_file():
            return f"{var}={given} has no {marker}: not a {folder} checkout"
        found[var] = Path(given)
    return found


class UcOs3(PortBase):
    """Its machines and boards: its overlays (ports/ucos3/machines/), each built by its board
    layer (one core only)."""

    name = "ucos3"
    variables = (VAR_OS, VAR_CPU, VAR_LIB)
    configs = ("default", "lean")

    def missing(self, paths: Mapping[str, str]) -> str | None:
        found = checkouts(paths)
        return found if isinstance(found, str) else None

    def build(self, machine: str, config: str, paths: Mapping[str, str]) -> Path:
        check_choice(self, machine, config)
        found = checkouts(paths)
        if isinstance(found, str):
            raise RtosBuildError(found)
        if machine in self.baked_machines:
            return self.build_baked(machine, config, paths, [])
        # One build holds both configurations (two kernel libraries, two ELFs).
        return build_layer(MACHINES.get(machine), found, "ucos3") / elf_name(machine, config)

    def build_baked(
        self, machine: str, config: str, paths: Mapping[str, str], words: list[str]
    ) -> Path:
        """A baked board's image (UF2, one core) in `config` with the options `words`
        built in: by one of our CMake layers, or the SDK's project (the machine file's
        pico_sdk)."""
        check_choice(self, machine, config)
        found = checkouts(paths)
        if isinstance(found, str):
            raise RtosBuildError(found)
        m = MACHINES.get(machine)
        if not m.pico_sdk:  # a baked image of one of our CMake layers
            name = elf_name(machine, config).removesuffix(f"-{m.stem}.elf")
            kernel = {k: str(v) for k, v in found.items()}
            return build_image(m, kernel, "ucos3", name, words)
        lean = "ON" if config == "lean" else "OFF"
        defines: dict[str, str | Path] = {
            "RTB_PICO_RTOS": "ucos3",
            "RTB_PICO_UCOS3_LEAN": lean,
            **found,
        }
        out = REPO_ROOT / "build" / f"rtbench-{m.stem}-ucos3-{config}"
        stem = elf_name(machine, config).removesuffix(".elf")
        return build_on_sdk(defines, out, stem, paths, words)

    def describe(self, config: str, paths: Mapping[str, str], machine: str = "") -> dict[str, Any]:
        found = checkouts(paths)
        version = "" if isinstance(found, str) else _version(found[VAR_OS])
        return {
            "rtos": self.name,
            "rtos_config": config,
            "rtos_version": version,
            "kconfig": config_that_matters(config, small=is_small(machine)),
        }


def elf_name(machine: str, config: str) -> str:
    variant = "" if config == "default" else f"-{config}"
    return f"rtbench-ucos3{variant}-{MACHINES.get(machine).stem}.elf"


def _version(os_dir: Path) -> str:
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


RTOS = UcOs3()
