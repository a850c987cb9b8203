"""Fixtures of the lab tests: the real `rtlab` CLI, a small spec run once per session."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rtlab.lab.build import build_c_target

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
scenarios = ["primitives", "contention"]
iterations = 200
window_ms = 30
levels = [0, 30, 70]
"""


def rtlab(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([RTLAB, *args], capture_output=True, text=True, timeout=timeout)


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
