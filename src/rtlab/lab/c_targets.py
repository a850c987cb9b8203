"""Build the C targets (CMake) into build/<name>, for tests and the runner.

From a checkout the sources are the repository's workloads/ and the builds go to its
build/. An installed rtlab (a wheel) carries the sources the local runner needs as
package data (rtlab/_workloads, copied there by setup.py) and builds them on first use
into the user's cache directory ($XDG_CACHE_HOME/rtlab/build, else ~/.cache/rtlab/build).

`build_c_target("rtlab-latency")` configures once, then only runs the (incremental)
build: a second call with nothing changed takes a few tens of milliseconds. A file lock
makes concurrent callers (parallel tests, the runner) wait for one another instead of
corrupting the build tree.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

from rtlab.catalog.tree import REPO_ROOT
from rtlab.errors import RtlabError

# Where setup.py puts the workload sources inside an installed package.
PACKAGE_WORKLOADS = Path(__file__).resolve().parents[1] / "_workloads"


def in_checkout() -> bool:
    return (REPO_ROOT / "pyproject.toml").is_file() and (REPO_ROOT / "workloads").is_dir()


def cache_dir() -> Path:
    """The user's cache directory for rtlab (XDG base directory spec)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "rtlab"


def _layout(root: Path | None) -> tuple[Path, Path]:
    """(directory of the C targets, directory the builds go to)."""
    if root is not None:
        return root / "workloads", root / "build"
    if in_checkout():
        return REPO_ROOT / "workloads", REPO_ROOT / "build"
    return PACKAGE_WORKLOADS, cache_dir() / "build"


class BuildError(RtlabError):
    """CMake failed: the message carries the end of its output."""


class RtosBuildError(BuildError):
    """The RTOS is not brought, or its firmware (an RTOS port on a board layer) does not
    build: one line (+ build tail)."""


def find_c_target(name: str, root: Path | None = None) -> Path:
    """The source directory of a C target: workloads/<name> or workloads/<kind>/<name>."""
    targets = _layout(root)[0]
    candidates = [targets / name, *sorted(targets.glob(f"*/{name}"))]
    for c in candidates:
        if (c / "CMakeLists.txt").is_file():
            return c
    raise BuildError(
        f"no C target {name!r} (no CMakeLists.txt in workloads/{name} or workloads/*/{name})"
    )


# A program whose executable is not its C target's main one: name → (C target,
# executable in its build directory). Any other program is the C target of its name.
PROGRAMS = {
    "rtbench-posix": ("rtbench", "rtbench-posix"),
    "rtlab-gpio-events": ("rtlab-toggle", "rtlab-gpio-events"),
}


def build_program(name: str) -> Path:
    """Build (once) the C target that provides program `name`; its executable."""
    target, exe = PROGRAMS.get(name, (name, ""))
    built = build_c_target(target)
    return built / exe if exe else built


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
        raise BuildError(f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{tail}")


def missing_build_tool() -> str | None:
    """The first build tool CMake needs here that is not installed, or None."""
    cc = os.environ.get("CC", "").split()[:1] or ["cc", "gcc", "clang"]
    generator = os.environ.get("CMAKE_GENERATOR", "")
    checks = [("cmake", ["cmake"]), ("a C compiler (cc, gcc or clang)", cc)]
    if generator in ("", "Unix Makefiles"):
        checks.append(("make", ["make"]))
    elif generator.startswith("Ninja"):
        checks.append(("ninja", ["ninja"]))
    for what, names in checks:
        if not any(shutil.which(n) for n in names):
            return what
    return None


def build_c_target(name: str, *, build_type: str = "Release", root: Path | None = None) -> Path:
    """Configure (first time) and build a C target into build/<name>.

    Returns the executable build/<name>/<name> when the target makes one of that name,
    else the build directory.
    """
    missing = missing_build_tool()
    if missing is not None:
        raise BuildError(
            f"building {name} needs {missing}, which is not installed "
            "(Debian/Ubuntu: apt install cmake build-essential; `make setup` in a checkout)"
        )
    src = find_c_target(name, root)
    builds = _layout(root)[1]
    out = builds / name
    out.mkdir(parents=True, exist_ok=True)
    with open(builds / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent callers wait, then find it built
        if not _configured_for(out, src):
            forget_other_source(out, src)
            _run(
                ["cmake", "-S", str(src), "-B", str(out), f"-DCMAKE_BUILD_TYPE={build_type}"],
                f"configuring {name}",
            )
        jobs = str(max(1, min(4, os.cpu_count() or 1)))
        _run(["cmake", "--build", str(out), "--parallel", jobs], f"building {name}")
    exe = out / name
    return exe if exe.is_file() and os.access(exe, os.X_OK) else out


def forget_other_source(out: Path, src: Path) -> None:
    """Drop a CMake cache made for another source directory (the tree moved, e.g. targets/
    became workloads/): CMake refuses to configure over it."""
    if (out / "CMakeCache.txt").is_file() and not _configured_for(out, src):
        (out / "CMakeCache.txt").unlink()
        shutil.rmtree(out / "CMakeFiles", ignore_errors=True)


def _configured_for(out: Path, src: Path) -> bool:
    cache = out / "CMakeCache.txt"
    if not cache.is_file():
        return False
    want = f"CMAKE_HOME_DIRECTORY:INTERNAL={src.resolve()}"
    return want in cache.read_text(errors="replace").splitlines()
