"""Builds an application of the port (rtbench, or Zephyr's own latency_measure) for a
machine with Zephyr's own build system, out of tree, in
build/rtbench-zephyr/<what>-<machine>-<config>/: for Zephyr's board of the machine (its
overlay's zephyr_board; the port's own board and SoC where Zephyr has none), toolchain
`gnuarmemb` on Debian's arm-none-eabi-gcc, or Debian's aarch64-linux-gnu-gcc
through a shim (toolchain); configured once per tree, modules and configuration.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from rtlab.catalog.machines import MACHINES
from rtlab.catalog.rtoses import overlay
from rtlab.lab.c_targets import REPO_ROOT, forget_other_source
from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.zephyr.boards import image_of, write_args
from rtlab.lab.rtos.zephyr.describe import version
from rtlab.lab.rtos.zephyr.toolchain import A53_COMPILER, a53_env

VAR = "ZEPHYR_BASE"
MODULES_VAR = "ZEPHYR_MODULES"
PORT_DIR = REPO_ROOT / "workloads" / "rtbench" / "ports" / "zephyr"
LM_DIR = PORT_DIR / "latency_measure"  # Zephyr's own benchmark, for the cross-check
BUILD_ROOT = REPO_ROOT / "build" / "rtbench-zephyr"
CONF_FILES = {"default": ("prj.conf",), "lean": ("prj.conf", "lean.conf")}
BOARD_FILES = PORT_DIR / "boards"  # the port's Kconfig fragment per board of Zephyr's own


def zboard(machine: str) -> str:
    """Zephyr's own name of an rtlab machine (its overlay's zephyr_board)."""
    return str(overlay("zephyr", machine).get("zephyr_board", ""))


def board_root(machine: str) -> Path | None:
    """The port's own board and SoC for a machine Zephyr has no board of (its overlay's
    zephyr_board_root, a folder of the port: BOARD_ROOT = SOC_ROOT), else None."""
    root = overlay("zephyr", machine).get("zephyr_board_root")
    return PORT_DIR / str(root) if root else None


def build_app(
    src: Path,
    what: str,
    machine: str,
    config: str,
    paths: Mapping[str, str],
    words: list[str] | None = None,
    fragments: tuple[Path, ...] = (),
) -> Path:
    """The build directory of the application in `src` for a machine and configuration
    (`fragments`: Kconfig fragments added to the configuration's); for a board's `words`
    (options built in), its image."""
    cc = MACHINES.get(machine).compiler
    for tool in ("cmake", cc):
        if shutil.which(tool) is None:
            raise RtosBuildError(
                f"{tool} not found: install cmake gcc-arm-none-eabi gcc-aarch64-linux-gnu"
            )
    out = out_dir(what, machine, config)
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


def out_dir(what: str, machine: str, config: str) -> Path:
    """Named by the machine file's stem (the C build's name of the machine)."""
    return BUILD_ROOT / f"{what}-{MACHINES.get(machine).stem}-{config}"


def dot_config(what: str, machine: str, config: str) -> Path:
    return out_dir(what, machine, config) / "zephyr" / ".config"


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


def board_conf_files(board: str) -> list[Path]:
    """The port's Kconfig fragment for a board of Zephyr's own (boards/<board>.conf):
    CONF_FILE names it, since Zephyr merges it by itself only without CONF_FILE."""
    f = BOARD_FILES / f"{board}.conf"
    return [f] if f.is_file() else []


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
