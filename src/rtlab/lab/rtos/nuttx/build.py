"""Builds rtbench on NuttX without touching the user's trees.

NuttX builds in its source tree (objects, .config, generated Kconfig files in apps/), so
each configuration gets a build copy: build/nuttx/<config>-<core>-<hash>/ holds
`nuttx/` and `apps/` copied from the user's trees, the project's board
(workloads/rtbench/ports/nuttx/board; the a53 image uses NuttX's own qemu-armv8a board
instead) and the rtbench app at apps/external/rtbench. The
hash covers the defconfig fragments, the board and the kernel's identity, so the slow
part (copy, configure, full build: minutes) happens once; an app change only re-syncs
the app's files and relinks (seconds).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rtlab.catalog.rtoses import rtoses
from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.nuttx.legacy import translate

WORKLOADS = REPO_ROOT / "workloads"
PORT_DIR = WORKLOADS / "rtbench" / "ports" / "nuttx"
BUILD_ROOT = REPO_ROOT / "build" / "nuttx"
# A core's cross compiler where its overlay names none: (tool, Debian package, make args).
ARM_CROSS = ("arm-none-eabi-gcc", "gcc-arm-none-eabi", ["CROSSDEV=arm-none-eabi-"])
# NuttX's make runs kconfiglib's `menuconfig`/`olddefconfig` when they are on PATH (PyPI
# kconfiglib: the same .config), else kconfig-frontends' `kconfig-conf`.
KCONFIG_TOOLS = ("kconfig-conf", "olddefconfig")
# What the app copies from the repository, with its layout (the core's includes are
# relative): wl/<path>, the port.toml's app_sources.
APP_SOURCES = tuple(rtoses()["nuttx"].facts.get("app_sources", ()))
SKIP = shutil.ignore_patterns(".git", "Documentation")


@dataclass(frozen=True)
class Trees:
    nuttx: Path
    apps: Path


@dataclass(frozen=True)
class Core:
    """What a NuttX build for one machine is, from its overlay: the defconfig fragments'
    core name (nuttx_core), NuttX's own board where it builds with one (nuttx_own_board:
    that board's Make.defs, no common.defconfig, no custom board), and its cross
    compiler (tool, Debian package, make arguments) where it is not ARM_CROSS."""

    name: str
    own_board: str = ""
    cross: tuple[str, str, list[str]] | None = None

    @property
    def make_defs(self) -> str:
        return f"{self.own_board}/scripts/Make.defs" if self.own_board else ""


def fragments(core: Core, config: str) -> list[Path]:
    """The defconfig fragments of a build, in order. A configuration with a core
    fragment of its own (core-<core>-<config>: the Pico on one core) is that machine
    with the default configuration's settings."""
    d = PORT_DIR / "defconfig"
    own = [] if core.own_board else [d / "common.defconfig"]
    machine_of_its_own = d / f"core-{core.name}-{config}.defconfig"
    if machine_of_its_own.is_file():
        return [*own, machine_of_its_own, d / "config-default.defconfig"]
    return [*own, d / f"core-{core.name}.defconfig", d / f"config-{config}.defconfig"]


def kernel_identity(trees: Trees) -> str:
    """The trees' commits where they are git checkouts, else their paths."""
    parts = []
    for t in (trees.nuttx, trees.apps):
        head = git_head(t)
        parts.append(f"{t.resolve()}@{head or 'snapshot'}")
    return " ".join(parts)


def git_head(tree: Path) -> str:
    if not (tree / ".git").exists():
        return ""
    proc = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _digest(core: Core, config: str, trees: Trees) -> str:
    h = hashlib.sha256(kernel_identity(trees).encode())
    if core.cross:  # make does not track its flags: new flags, a new build copy
        h.update(repr(core.cross).encode())
    for f in fragments(core, config):
        h.update(f.read_bytes())
    for f in sorted((PORT_DIR / "board").rglob("*")):
        if f.is_file():
            h.update(str(f.relative_to(PORT_DIR)).encode() + f.read_bytes())
    return h.hexdigest()[:10]


def build_dir(core: Core, config: str, trees: Trees) -> Path:
    """Where the build copy of (core, configuration, trees) lives."""
    return BUILD_ROOT / f"{config}-{core.name}-{_digest(core, config, trees)}"


def need_host_tools(core: Core | None = None) -> None:
    cc, cc_package, _ = (core and core.cross) or ARM_CROSS
    for tool, package in {"make": "make", cc: cc_package}.items():
        if shutil.which(tool) is None:
            raise RtosBuildError(f"{tool} not found: install {package} (deps/apt.txt)")
    if not any(shutil.which(t) for t in KCONFIG_TOOLS):
        raise RtosBuildError(
            "kconfig-conf not found: install kconfig-frontends-nox (deps/apt.txt) "
            "or PyPI kconfiglib"
        )


def build_nuttx(core: Core, config: str, trees: Trees) -> Path:
    """The rtbench ELF for a core (of the project's board: "m3", "m7"; or of NuttX's
    own) and configuration; cached."""
    for f in fragments(core, config):
        if not f.is_file():
            raise RtosBuildError(f"NuttX configuration {config!r}/{core.name}: no {f.name}")
    need_host_tools(core)
    out = build_dir(core, config, trees)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests wait for one build
        copy_trees(trees, out)
        board_changed = _sync(PORT_DIR / "board", out / "board")
        app_changed = sync_app(out / "apps")
        if board_changed:
            drop_objects(out / "board")
        if app_changed:
            drop_objects(out / "apps" / "external")
        configure(core, config, out)
        run_make(out / "nuttx", ["-j2", *(core.cross or ARM_CROSS)[2]], "build")
        elf = out / f"rtbench-nuttx-{core.name}.elf"
        shutil.copy2(out / "nuttx" / "nuttx", elf)
    return elf


def copy_trees(trees: Trees, out: Path) -> None:
    stamp = out / ".copied"
    if stamp.is_file():
        return
    for name, src in (("nuttx", trees.nuttx), ("apps", trees.apps)):
        shutil.rmtree(out / name, ignore_errors=True)
        shutil.copytree(src, out / name, symlinks=True, ignore=SKIP)
    if (out / "nuttx" / ".config").is_file():
        # The user built in their tree: clean the copy (objects, links, generated
        # files of their configuration), never their tree.
        run_make(out / "nuttx", ["distclean"], "distclean of the copy")
        drop_objects(out / "apps")  # distclean leaves objects of unconfigured apps
    stamp.write_text(kernel_identity(trees) + "\n")


def _sync(src: Path, dst: Path) -> bool:
    """Copies what differs (unchanged files keep their time: make stays incremental)."""
    changed = False
    items = [src] if src.is_file() else sorted(p for p in src.rglob("*") if p.is_file())
    for f in items:
        target = dst if src.is_file() else dst / f.relative_to(src)
        if target.is_file() and target.read_bytes() == f.read_bytes():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
        changed = True
    return changed


def sync_app(apps: Path) -> bool:
    ext = apps / "external"
    ext.mkdir(parents=True, exist_ok=True)
    (ext / "Make.defs").write_text("include $(wildcard $(APPDIR)/external/*/Make.defs)\n")
    (ext / "Makefile").write_text('MENUDESC = "External"\ninclude $(APPDIR)/Directory.mk\n')
    app = ext / "rtbench"
    changed = _sync(PORT_DIR / "app", app)
    for rel in APP_SOURCES:
        changed = _sync(WORKLOADS / rel, app / "wl" / rel) or changed
    return changed


def drop_objects(tree: Path) -> None:
    """A changed header must recompile its users: drop the (few) objects built there."""
    for f in tree.rglob("*.o"):
        f.unlink()


def configure(core: Core, config: str, out: Path) -> None:
    text = translate("".join(f.read_text() for f in fragments(core, config)), out / "nuttx")
    if not core.own_board:
        text += f'CONFIG_ARCH_BOARD_CUSTOM_DIR="{out / "board"}"\n'
    text += 'CONFIG_APPS_DIR="../apps"\n'
    stamp = out / ".defconfig"
    if stamp.is_file() and stamp.read_text() == text and (out / "nuttx" / ".config").is_file():
        return
    nuttx = out / "nuttx"
    make_defs = nuttx / "Make.defs"
    if make_defs.is_symlink() or make_defs.exists():
        make_defs.unlink()
    own = core.make_defs
    make_defs.symlink_to(nuttx / own if own else out / "board" / "scripts" / "Make.defs")
    (nuttx / ".config").write_text(text)
    run_make(nuttx, ["olddefconfig"], "configure")
    check_config(nuttx / ".config", text)
    stamp.write_text(text)


def check_config(config: Path, wanted: str) -> None:
    """A fragment's setting that Kconfig dropped (a renamed option) fails loudly."""
    have = set(config.read_text().splitlines())
    lost = [
        line
        for line in wanted.splitlines()
        if line.startswith("CONFIG_") and line not in have and "=" in line
    ]
    if lost:
        raise RtosBuildError(f"NuttX dropped settings of the defconfig: {', '.join(lost)}")


def run_make(cwd: Path, args: list[str], what: str) -> None:
    env = dict(os.environ)
    env.pop("MAKEFLAGS", None)  # a parent make's -j would multiply ours
    proc = subprocess.run(["make", *args], cwd=cwd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        text = (proc.stdout + proc.stderr).replace("\r", "\n").replace("\x1b[1K", "")
        tail = "\n".join(line for line in text.strip().splitlines()[-30:])
        raise RtosBuildError(f"NuttX {what} failed (exit {proc.returncode})\n{tail}")
