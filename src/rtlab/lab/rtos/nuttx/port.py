"""The NuttX port: the trees the variables name (trees), what NuttX builds for a machine
(core_of: from its overlay), the build of its image (build on the project's board or
NuttX's own, boards for an upstream board, baked for a board that takes its options
built in), and what a run records of it (describe)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import MACHINES
from rtlab.catalog.rtoses import overlay, setting
from rtlab.lab.rtos.base import PortBase, RtosBuildError, check_buildable
from rtlab.lab.rtos.nuttx.baked import build_nuttx_baked
from rtlab.lab.rtos.nuttx.boards import build_nuttx_board
from rtlab.lab.rtos.nuttx.build import Core, Trees, build_dir, build_nuttx
from rtlab.lab.rtos.nuttx.describe import config_that_matters, version

VAR = "NUTTX_PATH"
APPS_VAR = "NUTTX_APPS_PATH"
TESTED = (
    "tested: apache/nuttx 4ebc8a7291df + apache/nuttx-apps a71c329cfb0d; "
    "README: bring your own kernels"
)


class NuttX(PortBase):
    """Its machines and boards: its overlays (ports/nuttx/machines/). One image per core on
    the project's mps2 board (an overlay's `nuttx_core`: the an385/an386 image is Cortex-M3
    code, it runs on both), NuttX's own boards for virt-a53 (qemu-armv8a, SMP), the Pico
    (raspberrypi-pico, SMP), the Pico 2 (raspberrypi-pico-2: baked) and the Nucleos
    (an overlay's `nuttx_board`, build only: boards)."""

    name = "nuttx"
    variables = (VAR, APPS_VAR)
    configs = ("default", "assert")

    def missing(self, paths: Mapping[str, str]) -> str | None:
        if not paths.get(VAR, ""):
            return (
                f"set {VAR} to an apache/nuttx checkout and {APPS_VAR} to nuttx-apps, or "
                f"{VAR} to one folder holding nuttx/ and apps/ ({TESTED})"
            )
        try:
            trees(paths)
        except RtosBuildError as e:
            return str(e)
        return None

    def build(self, machine: str, config: str, paths: Mapping[str, str]) -> Path:
        check_buildable(self, machine, config, paths)
        if machine in self.baked_machines:
            return self.build_baked(machine, config, paths, [])
        own = overlay("nuttx", machine)
        if own.get("nuttx_board"):
            upstream, fragment = own["nuttx_board"], own["nuttx_board_fragment"]
            return build_nuttx_board(machine, upstream, fragment, config, trees(paths))
        return build_nuttx(core_of(machine), config, trees(paths))

    def build_baked(
        self, machine: str, config: str, paths: Mapping[str, str], words: list[str]
    ) -> Path:
        """The Pico's or Pico 2's image (UF2) with the options `words` built in."""
        check_buildable(self, machine, config, paths)
        return build_nuttx_baked(
            core_of(machine), config, trees(paths), dict(paths), words, machine
        )

    def describe(self, config: str, paths: Mapping[str, str], machine: str = "") -> dict[str, Any]:
        core = core_of(machine)
        try:
            t = trees(paths)
            kernel, built = version(t), build_dir(core, config, t) / "nuttx" / ".config"
        except RtosBuildError:
            kernel, built = "", Path("/nonexistent")
        return {
            "rtos": self.name,
            "rtos_config": config,
            "rtos_version": kernel,
            "kconfig": config_that_matters(core, config, built),
        }


def trees(paths: Mapping[str, str]) -> Trees:
    """The nuttx and apps trees the variables name; one line when they are not."""
    root = Path(paths.get(VAR, "")).expanduser()
    if (root / "nuttx" / "Makefile").is_file() and not paths.get(APPS_VAR):
        nuttx, apps = root / "nuttx", root / "apps"
    else:
        nuttx = root
        apps = Path(paths.get(APPS_VAR, "") or _sibling_apps(root)).expanduser()
    if not (nuttx / "sched" / "Kconfig").is_file():
        raise RtosBuildError(f"{VAR}={root} has no sched/Kconfig: not a NuttX tree")
    if not (apps / "Application.mk").is_file():
        raise RtosBuildError(f"{apps} has no Application.mk: set {APPS_VAR} to a nuttx-apps tree")
    return Trees(nuttx.resolve(), apps.resolve())


def _sibling_apps(nuttx: Path) -> Path:
    """Where NuttX's own configure.sh looks for apps: ../apps, else ../nuttx-apps."""
    for name in ("apps", "nuttx-apps"):
        if (nuttx.parent / name / "Application.mk").is_file():
            return nuttx.parent / name
    return nuttx.parent / "apps"


def core_of(machine: str) -> Core:
    """What NuttX builds for a machine, from its overlay (the port.toml's nuttx_core where
    it names none): the defconfig fragments' core name, NuttX's own board for it if any,
    and its cross compiler where that is not arm-none-eabi (the machine file's compiler,
    the overlay's nuttx_cc_package and nuttx_make_args)."""
    own = overlay("nuttx", machine)
    cross = None
    if own.get("nuttx_cc_package"):
        args = shlex.split(str(own.get("nuttx_make_args", "")))
        cross = (MACHINES.get(machine).compiler, str(own["nuttx_cc_package"]), args)
    name = str(setting("nuttx", machine, "nuttx_core"))
    return Core(name, str(own.get("nuttx_own_board", "")), cross)


RTOS = NuttX()
