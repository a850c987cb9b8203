"""What an RTOS cell's results depend on beyond its spec: the user's kernel checkout,
rtbench's own sources and the cross compiler. It goes into every cell key of a `qemu`
target that builds rtbench (rtlab.lab.spec), so a changed kernel, port or compiler makes
new cells instead of reusing results of the old build, and nothing changed reuses all.

    source_identity(RTOSES.get("zephyr"), merged_paths())
    # {"rtos_source": "3f…", "rtbench_source": "9a…", "compiler": "arm-none-eabi-gcc … 12.2.1"}

A kernel tree is identified by its files' paths, sizes and modification times (a full
read of Zephyr's or NuttX's 30 000 files would cost seconds on every spec load; a touched
file counts as changed, which only costs a rerun). rtbench's sources are few: their
contents are hashed, so a fresh clone of the same commit gives the same keys.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from rtlab.catalog.machines import DEFAULT_COMPILER, MACHINES
from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.rtos.base import RtosPort

# The repository's part of every RTOS build: the suite, its boards and ports, the protocol.
RTBENCH_TREES = ("workloads/rtbench", "workloads/common", "workloads/cmake")
SKIP_DIRS = {".git", "__pycache__", "Documentation", "doc", "docs"}


def source_identity(port: RtosPort, paths: Mapping[str, str], machine: str = "") -> dict[str, str]:
    """Empty when the port is not brought (the run then fails with what to set). The
    compiler is the machine file's (`compiler`: virt-a53's aarch64-linux-gnu-gcc; else
    arm-none-eabi-gcc)."""
    if port.missing(paths):
        return {}
    cc = MACHINES.get(machine).compiler if machine in MACHINES else DEFAULT_COMPILER
    # a variable may name several trees, ;-separated (ZEPHYR_MODULES: a CMake list)
    trees = tuple(sorted({t for v in port.variables for t in paths.get(v, "").split(";") if t}))
    return {
        "rtos_source": _trees_digest(trees),
        "rtbench_source": rtbench_digest(),
        "compiler": compiler_version(cc),
    }


@functools.cache
def _trees_digest(trees: tuple[str, ...]) -> str:
    h = hashlib.sha1()
    for tree in trees:
        h.update(f"tree {tree}\n".encode())
        for rel, st in _walk(Path(tree)):
            h.update(f"{rel} {st.st_size} {st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


@functools.cache
def rtbench_digest() -> str:
    h = hashlib.sha1()
    for top in RTBENCH_TREES:
        for rel, _ in _walk(REPO_ROOT / top):
            h.update(f"{top}/{rel}\n".encode())
            h.update((REPO_ROOT / top / rel).read_bytes())
    return h.hexdigest()[:16]


@functools.cache
def compiler_version(cc: str) -> str:
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return f"{cc} (not found)"
    first = out.stdout.splitlines()[:1]
    return first[0].strip() if first else f"{cc} (no version)"


def _walk(root: Path) -> list[tuple[str, os.stat_result]]:
    """(relative path, stat) of every regular file under root, sorted, symlinks not
    followed; unreadable directories are skipped rather than failing a spec load."""
    out: list[tuple[str, os.stat_result]] = []
    for d, dirs, files in os.walk(root, onerror=lambda e: None):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
        for f in files:
            p = os.path.join(d, f)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            out.append((os.path.relpath(p, root), st))
    out.sort(key=lambda x: x[0])
    return out
