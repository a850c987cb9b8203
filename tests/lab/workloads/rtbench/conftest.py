"""Builds rtbench once per session (cmake, -Wall -Wextra -Werror) and runs it briefly."""

from __future__ import annotations

import fcntl
import subprocess
from pathlib import Path

import pytest

from rtlab.lab.c_targets import forget_other_source
from rtlab.protocol import Run, parse
from tests.needs import missing_tool
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
SRC = ROOT / "workloads" / "rtbench"
BUILD = ROOT / "build" / "rtbench-test"

# Brief on purpose: 2 shared cores. Every scenario still runs in full.
QUICK = ["--iterations", "200", "--window-ms", "50", "--period-us", "200"]


def _build() -> Path:
    missing_tool("cmake and gcc in deps/apt.txt", "cmake", "cc")
    cfg = [
        "cmake",
        "-S",
        str(SRC),
        "-B",
        str(BUILD),
        "-DCMAKE_BUILD_TYPE=Release",
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
    ]
    BUILD.parent.mkdir(parents=True, exist_ok=True)
    # Several engineers run the tests at once: one build at a time in this directory.
    with open(BUILD.parent / ".rtbench-test.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        forget_other_source(BUILD, SRC)
        for cmd in (cfg, ["cmake", "--build", str(BUILD), "-j2"]):
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    return BUILD


@pytest.fixture(scope="session")
def rtbench_build() -> Path:
    return _build()


def run_posix(build: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(build / "rtbench-posix"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="session")
def suite_output(rtbench_build: Path) -> str:
    proc = run_posix(rtbench_build, *QUICK, "--crc")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="session")
def suite_runs(suite_output: str) -> list[Run]:
    return parse(suite_output, source="rtbench-posix")


def by_scenario(runs: list[Run], scenario: str) -> list[Run]:
    return [r for r in runs if r.meta.get("scenario") == scenario]
