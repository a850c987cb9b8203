"""Shared fixtures: synthetic captures whose statistics the tests know independently; the
real `rtlab` CLI and a small spec run once per session (lab, cli, report tests); the
RP2040 tools."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from rtlab.lab.c_targets import build_c_target
from rtlab.model import Capture, Channel
from tests import leftovers
from tests.needs import tool

pytest_plugins = ["tests.kernel_mark"]  # a kernel skip must carry the kernel mark


@pytest.fixture(scope="session", autouse=True)
def nothing_the_suite_started_outlives_it() -> Iterator[None]:
    """Fails the session if a QEMU or labgrid process one of its tests started is still
    running at its end (tests/leftovers.py: found by this session's token, then killed)."""
    entry = leftovers.start_session()
    yield
    if left := leftovers.wait_for_none(entry):
        pytest.fail(
            "processes the tests started outlived them (killed now): "
            + "; ".join(f"{pid}: {cmd[:200]}" for pid, cmd in left.items()),
            pytrace=False,
        )


def square_wave(highs: np.ndarray, lows: np.ndarray, start: int = 100) -> np.ndarray:
    """Edge times of a wave that starts low, rises at `start`, then alternates."""
    d = np.empty(highs.size + lows.size, dtype=np.int64)
    d[0::2] = highs
    d[1::2] = lows
    return np.concatenate(([start], start + np.cumsum(d)))


@pytest.fixture
def jittery_capture() -> tuple[Capture, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(42)
    highs = rng.integers(60, 70, 5000)
    lows = rng.integers(70, 90, 5000)
    cap = Capture(tick_s=Fraction(16, 10**9), t_start=0)
    cap.add(Channel("D0", square_wave(highs, lows), initial_level=0))
    return cap, highs, lows


RTLAB = str(Path(sys.executable).parent / "rtlab")

SMALL_SPEC = """\
name = "small"
conditions = ["idle", "load"]

[condition.load]
profile = "cpu"
workers = 1
settle_s = 0.2

[[workload]]
kind = "rtlab-latency"
name = "wake"
method = ["abs", "usleep"]
interval_us = 500
duration = "400ms"

[[workload]]
kind = "rtbench"
scenarios = ["primitives", "scalability", "contention"]
iterations = 200
window_ms = 30
levels = [0, 30, 70]
"""


def rtlab(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([RTLAB, *args], capture_output=True, text=True, timeout=timeout)


def rtlab_run(spec: Path, store: Path, stdout: int = subprocess.PIPE) -> subprocess.Popen[str]:
    """`rtlab run spec --store store` started, not waited for: stderr a text pipe (its
    one line per finished run), stdout a pipe or subprocess.DEVNULL."""
    cmd = [RTLAB, "run", str(spec), "--store", str(store)]
    return subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True)


def latency_output(*args: str) -> str:
    """What rtlab-latency (built first) prints with these options after -q: @rtl1."""
    exe = build_c_target("rtlab-latency")
    cmd = [str(exe), "-q", *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="session")
def built() -> Path:
    build_c_target("rtbench")
    return build_c_target("rtlab-latency")


@pytest.fixture(scope="session")
def small_store(tmp_path_factory: pytest.TempPathFactory, built: Path) -> Path:
    """`rtlab run` of a small spec (2 wake methods + rtbench, idle and load): the store."""
    d = tmp_path_factory.mktemp("lab")
    spec = d / "small.toml"
    spec.write_text(SMALL_SPEC)
    store = d / "store" / "rtlab.duckdb"
    r = rtlab("run", str(spec), "--store", str(store))
    assert r.returncode == 0, r.stderr + r.stdout
    assert "wake[method=abs]@idle" in r.stdout  # the summary table
    return store


@pytest.fixture
def arm_gcc() -> str:
    return tool("arm-none-eabi-gcc", "gcc-arm-none-eabi in deps/apt.txt")


@pytest.fixture
def emulator_tools(arm_gcc: str) -> str:
    return tool("node", "Node.js: deps/setup.d/rp2040-sim.sh")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """End with what was skipped and why, one line per reason (tests/needs.py: only what
    the user brings skips; a missing install step fails instead)."""
    reasons: dict[str, int] = {}
    for rep in terminalreporter.stats.get("skipped", []):
        longrepr = rep.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return
    terminalreporter.section("skipped, and why")
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{n:4d} {reason}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist's `--dist loadgroup` (make test, make test-kernels) a module's
    tests stay on one worker, so its module-scoped builds and QEMU runs are made once; a
    test that names its own group (test_every_rtos: one per RTOS) keeps it, so RTOSes run
    side by side.
    Every worker shares build/ (each build holds its own lock)."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__ if item.module else ""))
