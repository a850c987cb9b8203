"""The Zephyr port: what the user brings (missing), the images of rtbench it builds (a
QEMU machine's ELF; a board's image with the options built in), Zephyr's own
latency_measure as more firmware (build_program), and what a run records of a build
(describe: the Kconfig read back from the build's .config)."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rtlab.lab.rtos.base import PortBase, RtosBuildError, check_buildable
from rtlab.lab.rtos.zephyr.boards import hal_missing
from rtlab.lab.rtos.zephyr.build import (
    CONF_FILES,
    LM_DIR,
    MODULES_VAR,
    PORT_DIR,
    VAR,
    build_app,
    dot_config,
)
from rtlab.lab.rtos.zephyr.describe import kconfig_that_matters, version

LATENCY_MEASURE = "zephyr-latency-measure"  # its program name (workloads/latency_measure)
# The same with CONFIG_SPIN_VALIDATE=n (its prj.conf's CONFIG_ASSERT=y turns spin lock
# validation on; rtbench's builds have it off): the cross-check's like-for-like build.
LATENCY_MEASURE_UNVALIDATED = "zephyr-latency-measure-unvalidated"
# each program: its build folder's name and the fragments it adds to latency_measure's own
PROGRAM_BUILDS: dict[str, tuple[str, tuple[Path, ...]]] = {
    LATENCY_MEASURE: ("latency_measure", ()),
    LATENCY_MEASURE_UNVALIDATED: (
        "latency_measure-unvalidated",
        (LM_DIR / "no_spin_validate.conf",),
    ),
}
TESTED = (
    "3.4.99, the zephyr/ folder of github.com/lgalstyan/nrf_connect@a86fb816, "
    "+ ZEPHYR_MODULES=<zephyrproject-rtos/cmsis@1abf2913>"
)
# Zephyr's build runs these Python packages in rtlab's interpreter (pyproject: zephyr).
PYTHON_DEPS = {"elftools": "pyelftools", "yaml": "PyYAML", "pykwalify": "pykwalify",
               "packaging": "packaging"}  # fmt: skip


class Zephyr(PortBase):
    """Its machines and boards: its overlays (ports/zephyr/machines/), each built for Zephyr's
    own board (their `zephyr_board`): the QEMU machines, and its Nucleo and Pico boards
    for the serial target."""

    name = "zephyr"
    variables = (VAR, MODULES_VAR)
    configs = tuple(CONF_FILES)
    programs = (LATENCY_MEASURE, LATENCY_MEASURE_UNVALIDATED)  # more firmware: build_program
    pico_sdk_machines = ()  # the Pico's SoC layer is hal_rpi_pico's, not PICO_SDK_PATH's

    @property
    def baked_machines(self) -> tuple[str, ...]:
        """Every board: a probe passes no command line, so the options are built in."""
        return self.boards

    def missing(self, paths: Mapping[str, str]) -> str | None:
        base = paths.get(VAR, "")
        if not base:
            return f"set {VAR} to a Zephyr tree ({TESTED}; README: bring your own kernels)"
        if not (Path(base) / "VERSION").is_file() or not (Path(base) / "kernel").is_dir():
            return f"{VAR}={base} has no VERSION and kernel/: not a Zephyr tree"
        if not _cmsis(paths.get(MODULES_VAR, "")):
            return (
                f"set {MODULES_VAR} to the cmsis module's checkout "
                "(github.com/zephyrproject-rtos/cmsis; Cortex-M needs it)"
            )
        lacking = [pkg for mod, pkg in PYTHON_DEPS.items() if not importlib.util.find_spec(mod)]
        if lacking:
            need = " ".join(lacking)
            return f"Zephyr's build needs {need} in rtlab's Python: pip install '.[zephyr]'"
        if shutil.which("dtc") is None:
            return "dtc not found: install device-tree-compiler (deps/apt.txt)"
        return None

    def build(self, machine: str, config: str, paths: Mapping[str, str]) -> Path:
        """The ELF (a QEMU machine), or a board's image with its default options."""
        if machine in self.boards:
            return self.build_baked(machine, config, paths, [])
        check_buildable(self, machine, config, paths)
        out = build_app(PORT_DIR, "rtbench", machine, config, paths)
        return out / "zephyr" / "zephyr.elf"

    def build_baked(
        self, machine: str, config: str, paths: Mapping[str, str], words: list[str]
    ) -> Path:
        """A Nucleo's ELF or the Pico's UF2 with the options `words` built in; cached
        (another option set recompiles one source)."""
        check_buildable(self, machine, config, paths)
        why = hal_missing(machine, paths.get(MODULES_VAR, ""))
        if why:
            raise RtosBuildError(why)
        return build_app(PORT_DIR, "rtbench", machine, config, paths, words)

    def build_program(self, name: str, machine: str, config: str, paths: Mapping[str, str]) -> Path:
        """Other firmware this port builds for the qemu target: Zephyr's own
        latency_measure (the cross-check), in the same configuration."""
        if name not in self.programs:
            raise RtosBuildError(f"Zephyr builds {', '.join(self.programs)} here, not {name}")
        what, fragments = PROGRAM_BUILDS[name]
        check_buildable(self, machine, config, paths)
        out = build_app(LM_DIR, what, machine, config, paths, fragments=fragments)
        return out / "zephyr" / "zephyr.elf"

    def describe(self, config: str, paths: Mapping[str, str], machine: str = "") -> dict[str, Any]:
        """The Kconfig read back from this machine's build (another machine's board
        sets other options: virt-a53's SMP, no MPU)."""
        machine = machine or self.machines[0]
        d: dict[str, Any] = {
            "rtos": self.name,
            "rtos_config": config,
            "rtos_version": version(Path(paths.get(VAR, ""))),
            "kconfig": kconfig_that_matters(dot_config("rtbench", machine, config)),
        }
        # latency_measure builds with its own prj.conf (1 tick/s, no tickless, irq_offload)
        lm = kconfig_that_matters(dot_config("latency_measure", machine, config))
        if lm:
            d["kconfig_latency_measure"] = lm
        return d


def program_kconfig(name: str, machine: str, config: str) -> dict[str, str]:
    """The Kconfig that matters of a program's last build (build_program)."""
    return kconfig_that_matters(dot_config(PROGRAM_BUILDS[name][0], machine, config))


def _cmsis(modules: str) -> bool:
    """ZEPHYR_MODULES (a ;-separated list) names a checkout of the cmsis module."""
    return any((Path(m) / "CMSIS" / "Core").is_dir() for m in modules.split(";") if m)


RTOS = Zephyr()
