"""The µC/OS-III port: where the three checkouts are (checkouts), the build of a
machine's image in a configuration by its board layer or the SDK's project, and what a
run records of it (describe)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import MACHINES
from rtlab.lab.boards.layers import build_image, build_layer
from rtlab.lab.boards.pico_sdk import build_on_sdk
from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.rtos.base import PortBase, RtosBuildError, check_choice
from rtlab.lab.rtos.ucos3.describe import config_that_matters, is_small, version

VAR_OS, VAR_CPU, VAR_LIB = "UCOS3_PATH", "UCCPU_PATH", "UCLIB_PATH"
TESTED = (
    "uC-OS3 v3.08.02 2fa9aeb, uC-CPU v1.32.01 ae5796e, uC-LIB v1.39.01 71b5f65 "
    "from github.com/weston-embedded"
)
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
        kernel = "" if isinstance(found, str) else version(found[VAR_OS])
        return {
            "rtos": self.name,
            "rtos_config": config,
            "rtos_version": kernel,
            "kconfig": config_that_matters(config, small=is_small(machine)),
        }


def elf_name(machine: str, config: str) -> str:
    variant = "" if config == "default" else f"-{config}"
    return f"rtbench-ucos3{variant}-{MACHINES.get(machine).stem}.elf"


RTOS = UcOs3()
