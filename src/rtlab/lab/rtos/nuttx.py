"""NuttX: the user's apache/nuttx and nuttx-apps trees (NUTTX_PATH, NUTTX_APPS_PATH),
rtbench's POSIX port as a NuttX application on the project's own mps2 board, or on
NuttX's own qemu-armv8a board in its SMP configuration for the virt-a53 machine
(workloads/rtbench/ports/nuttx; the build is nuttx_build)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import MACHINES
from rtlab.catalog.rtoses import overlay, setting
from rtlab.lab.rtos.base import PortBase, RtosBuildError, check_buildable
from rtlab.lab.rtos.nuttx_baked import build_nuttx_baked
from rtlab.lab.rtos.nuttx_boards import build_nuttx_board
from rtlab.lab.rtos.nuttx_build import (
    PORT_DIR,
    Core,
    Trees,
    build_dir,
    build_nuttx,
    fragments,
    git_head,
)

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
    (raspberrypi-pico, SMP), the Pico 2 (raspberrypi-pico-2: nuttx_baked) and the Nucleos
    (an overlay's `nuttx_board`, build only: nuttx_boards)."""

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
            version, built = _version(t), build_dir(core, config, t) / "nuttx" / ".config"
        except RtosBuildError:
            version, built = "", Path("/nonexistent")
        return {
            "rtos": self.name,
            "rtos_config": config,
            "rtos_version": version,
            "kconfig": _config_that_matters(core, config, built),
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


# What NuttX's tools/version.sh writes when it finds no version (no git, no .version):
# a placeholder, never a release number to show.
DUMMY_VERSION = "0.0.0"


def _version(t: Trees) -> str:
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


def _config_that_matters(core: Core, config: str, built: Path) -> dict[str, str]:
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


RTOS = NuttX()
