"""Zephyr: the user's tree in ZEPHYR_BASE (+ the cmsis module in ZEPHYR_MODULES), built
with Zephyr's own build system as an out-of-tree application
(workloads/rtbench/ports/zephyr) for a QEMU mps2 board, toolchain `gnuarmemb` on
Debian's arm-none-eabi-gcc, or for Zephyr's qemu_cortex_a53_smp (rtlab machine virt-a53,
two cores, SMP) with Debian's aarch64-linux-gnu-gcc (zephyr_a53: the toolchain's shim),
or for Zephyr's own Nucleo and Pico boards, serial-target boards (zephyr_boards).
Two documented configurations: "default" (Zephyr's defaults + what the suite needs,
prj.conf) and "lean" (+ lean.conf: time slicing off, asserts off, -O2). The Kconfig
that shapes a figure is read back from the build's .config.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rtlab.catalog.machines import MACHINES
from rtlab.catalog.rtoses import overlay
from rtlab.lab.build import REPO_ROOT, forget_other_source
from rtlab.lab.rtos.base import PortBase, RtosBuildError, check_buildable
from rtlab.lab.rtos.zephyr_a53 import A53_COMPILER, a53_env, board_conf_files
from rtlab.lab.rtos.zephyr_boards import hal_missing, image_of, write_args

VAR = "ZEPHYR_BASE"
MODULES_VAR = "ZEPHYR_MODULES"
PORT_DIR = REPO_ROOT / "workloads" / "rtbench" / "ports" / "zephyr"
LM_DIR = PORT_DIR / "latency_measure"  # Zephyr's own benchmark, for the cross-check
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
BUILD_ROOT = REPO_ROOT / "build" / "rtbench-zephyr"
TESTED = (
    "3.4.99, the zephyr/ folder of github.com/lgalstyan/nrf_connect@a86fb816, "
    "+ ZEPHYR_MODULES=<zephyrproject-rtos/cmsis@1abf2913>"
)
# Zephyr's build runs these Python packages in rtlab's interpreter (pyproject: zephyr).
PYTHON_DEPS = {"elftools": "pyelftools", "yaml": "PyYAML", "pykwalify": "pykwalify",
               "packaging": "packaging"}  # fmt: skip
CONF_FILES = {"default": ("prj.conf",), "lean": ("prj.conf", "lean.conf")}


def zboard(machine: str) -> str:
    """Zephyr's own name of an rtlab machine (its overlay's zephyr_board)."""
    return str(overlay("zephyr", machine).get("zephyr_board", ""))


def board_root(machine: str) -> Path | None:
    """The port's own board and SoC for a machine Zephyr has no board of (its overlay's
    zephyr_board_root, a folder of the port: BOARD_ROOT = SOC_ROOT), else None."""
    root = overlay("zephyr", machine).get("zephyr_board_root")
    return PORT_DIR / str(root) if root else None


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
        out = self._build(PORT_DIR, "rtbench", machine, config, paths)
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
        return self._build(PORT_DIR, "rtbench", machine, config, paths, words)

    def build_program(self, name: str, machine: str, config: str, paths: Mapping[str, str]) -> Path:
        """Other firmware this port builds for the qemu target: Zephyr's own
        latency_measure (the cross-check), in the same configuration."""
        if name not in self.programs:
            raise RtosBuildError(f"Zephyr builds {', '.join(self.programs)} here, not {name}")
        what, fragments = PROGRAM_BUILDS[name]
        out = self._build(LM_DIR, what, machine, config, paths, fragments=fragments)
        return out / "zephyr" / "zephyr.elf"

    def _build(
        self,
        src: Path,
        what: str,
        machine: str,
        config: str,
        paths: Mapping[str, str],
        words: list[str] | None = None,
        fragments: tuple[Path, ...] = (),
    ) -> Path:
        """The build directory; for a board's `words` (options built in), its image."""
        check_buildable(self, machine, config, paths)
        cc = MACHINES.get(machine).compiler
        for tool in ("cmake", cc):
            if shutil.which(tool) is None:
                raise RtosBuildError(
                    f"{tool} not found: install cmake gcc-arm-none-eabi gcc-aarch64-linux-gnu"
                )
        out = _out_dir(what, machine, config)
        out.mkdir(parents=True, exist_ok=True)
        conf = [*_conf_files(src, config, Path(paths[VAR]), zboard(machine)), *fragments]
        conf += board_conf_files(zboard(machine))
        with open(out / ".build.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests wait for one build
            env = _env(paths, machine)
            _configure(src, out, machine, conf, paths, env)
            tag = write_args(out, words) if words is not None else ""
            _run(["cmake", "--build", str(out), "--parallel", "2"], env, "build")
            if words is not None:
                return image_of(out, machine, tag)
        return out

    def describe(self, config: str, paths: Mapping[str, str], machine: str = "") -> dict[str, Any]:
        """The Kconfig read back from this machine's build (another machine's board
        sets other options: virt-a53's SMP, no MPU)."""
        machine = machine or self.machines[0]
        d: dict[str, Any] = {
            "rtos": self.name,
            "rtos_config": config,
            "rtos_version": version(Path(paths.get(VAR, ""))),
            "kconfig": kconfig_that_matters(_dot_config("rtbench", machine, config)),
        }
        # latency_measure builds with its own prj.conf (1 tick/s, no tickless, irq_offload)
        lm = kconfig_that_matters(_dot_config("latency_measure", machine, config))
        if lm:
            d["kconfig_latency_measure"] = lm
        return d


def program_kconfig(name: str, machine: str, config: str) -> dict[str, str]:
    """The Kconfig that matters of a program's last build (build_program)."""
    return kconfig_that_matters(_dot_config(PROGRAM_BUILDS[name][0], machine, config))


def _out_dir(what: str, machine: str, config: str) -> Path:
    """Named by the machine file's stem (the C build's name of the machine)."""
    return BUILD_ROOT / f"{what}-{MACHINES.get(machine).stem}-{config}"


def _dot_config(what: str, machine: str, config: str) -> Path:
    return _out_dir(what, machine, config) / "zephyr" / ".config"


def _cmsis(modules: str) -> bool:
    """ZEPHYR_MODULES (a ;-separated list) names a checkout of the cmsis module."""
    return any((Path(m) / "CMSIS" / "Core").is_dir() for m in modules.split(";") if m)


def _env(paths: Mapping[str, str], machine: str) -> dict[str, str]:
    """The build's environment: the toolchain of the machine's compiler."""
    env = dict(os.environ)
    env.update({k: paths[k] for k in (VAR, MODULES_VAR) if paths.get(k)})
    if MACHINES.get(machine).compiler == A53_COMPILER:
        env.update(a53_env(BUILD_ROOT))
        return env
    env.setdefault("ZEPHYR_TOOLCHAIN_VARIANT", "gnuarmemb")
    env.setdefault("GNUARMEMB_TOOLCHAIN_PATH", "/usr")
    return env


def _conf_files(src: Path, config: str, base: Path, board: str) -> list[Path]:
    """rtbench: prj.conf (+ lean.conf). latency_measure: the tree's own prj.conf, and
    lean.conf on top for "lean" (the same switches as rtbench's lean), then the
    board's own fragment where latency_measure/ has one (rpi_pico.conf: a tick rate its
    24-bit SysTick can count)."""
    if src == LM_DIR:
        own = base / "tests" / "benchmarks" / "latency_measure" / "prj.conf"
        fragment = [f for f in (LM_DIR / f"{board}.conf",) if f.is_file()]
        return [own, *(PORT_DIR / f for f in CONF_FILES[config][1:]), *fragment]
    return [PORT_DIR / f for f in CONF_FILES[config]]


def _configure(
    src: Path,
    out: Path,
    machine: str,
    conf_files: list[Path],
    paths: Mapping[str, str],
    env: dict[str, str],
) -> None:
    """Configures once per (tree, modules, configuration): Zephyr's configure step (Kconfig,
    devicetree) takes seconds; ninja alone notices source changes afterwards."""
    board = zboard(machine)
    conf = ";".join(str(f) for f in conf_files)
    stamp = "\n".join([paths[VAR], paths.get(MODULES_VAR, ""), board, conf, sys.executable])
    done = out / "rtlab-configured"
    forget_other_source(out, src)
    if done.is_file() and done.read_text() == stamp and (out / "CMakeCache.txt").is_file():
        return
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    cmd = [
        "cmake",
        *gen,
        "-S",
        str(src),
        "-B",
        str(out),
        f"-DBOARD={board}",
        f"-DCONF_FILE={conf}",
        f"-DPython3_EXECUTABLE={sys.executable}",
        f"-DZEPHYR_MODULES={paths.get(MODULES_VAR, '')}",
        f"-DBUILD_VERSION=v{version(Path(paths[VAR]))}",  # the tree has no git to ask
    ]
    root = board_root(machine)
    if root is not None:
        cmd += [f"-DBOARD_ROOT={root}", f"-DSOC_ROOT={root}"]
    (out / "CMakeCache.txt").unlink(missing_ok=True)  # a new tree or configuration
    _run(cmd, env, "configure")
    done.write_text(stamp)


def _run(cmd: list[str], env: dict[str, str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
        raise RtosBuildError(f"Zephyr {what} failed (exit {proc.returncode})\n{tail}")


def version(base: Path) -> str:
    """ "3.4.99" from the tree's VERSION file ("" when unreadable)."""
    try:
        text = (base / "VERSION").read_text(errors="replace")
    except OSError:
        return ""
    v = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        v[key.strip()] = value.strip()
    parts = [v.get(k, "") for k in ("VERSION_MAJOR", "VERSION_MINOR", "PATCHLEVEL")]
    return ".".join(parts) + (f"-{v['EXTRAVERSION']}" if v.get("EXTRAVERSION") else "")


# The settings that change a figure: scheduling, checks in kernel calls, code generation,
# memory protection on the switch path, the C library.
_MATTERS = (
    "TIMESLICING",
    "TIMESLICE_SIZE",
    "SYS_CLOCK_TICKS_PER_SEC",
    "TICKLESS_KERNEL",
    "NUM_PREEMPT_PRIORITIES",
    "ASSERT",
    "FORCE_NO_ASSERT",
    # every spin lock and unlock checks its owner (CONFIG_ASSERT=y selects it, even with
    # FORCE_NO_ASSERT): a semaphore give or take pays it (docs/rtos/zephyr.md)
    "SPIN_VALIDATE",
    "ARM_MPU",
    "HW_STACK_PROTECTION",
    "USERSPACE",
    "FPU",
    "FPU_SHARING",
    "THREAD_STACK_INFO",
    "SMP",
    "MP_MAX_NUM_CPUS",
)
_CHOICES = {
    "optimization": {"SIZE_OPTIMIZATIONS": "-Os", "SPEED_OPTIMIZATIONS": "-O2",
                     "DEBUG_OPTIMIZATIONS": "-Og", "NO_OPTIMIZATIONS": "-O0"},
    "libc": {"MINIMAL_LIBC": "minimal", "NEWLIB_LIBC": "newlib", "PICOLIBC": "picolibc",
             "EXTERNAL_LIBC": "external"},
    "scheduler": {"SCHED_DUMB": "dumb", "SCHED_SCALABLE": "scalable",
                  "SCHED_MULTIQ": "multiq"},
}  # fmt: skip


def kconfig_that_matters(dot_config: Path) -> dict[str, str]:
    """CONFIG_X = value for each setting above ("n" when unset), and the optimization
    level, libc and scheduler the choices resolved to; {} without a .config."""
    try:
        text = dot_config.read_text(errors="replace")
    except OSError:
        return {}
    values: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("CONFIG_") and "=" in line:
            key, _, value = line.partition("=")
            values[key.removeprefix("CONFIG_")] = value.strip('"')
    found = {f"CONFIG_{k}": values.get(k, "n") for k in _MATTERS}
    for what, options in _CHOICES.items():
        found[what] = next((v for k, v in options.items() if values.get(k) == "y"), "")
    return found


RTOS = Zephyr()
