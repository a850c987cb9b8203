"""Builds the QEMU mps2 board layer once per session and runs firmware in QEMU briefly.

Without FREERTOS_KERNEL_PATH only the bare-metal smoke test is built and run; the
FreeRTOS tests skip and say why. The kernel is the developer's own checkout: nothing of
FreeRTOS is in this repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from rtlab.lab.boards.cmake_layer import build_mps2
from rtlab.lab.targets import qemu as tq
from rtlab.protocol import Run
from rtlab.studies import rtbench
from tests.needs import brought, missing_tool
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
KERNEL = os.environ.get("FREERTOS_KERNEL_PATH", "")
# Brief on purpose (2 shared cores): every scenario still runs, ~5 s in QEMU.
QUICK = "--iterations 100 --window-ms 20 --period-us 1000 --levels 0,70"


def _need_tools() -> None:
    missing_tool("deps/apt.txt", "cmake", "arm-none-eabi-gcc", tq.QEMU)


@pytest.fixture(scope="session")
def board_build() -> Path:
    """The board layer without a kernel: the smoke test ELFs."""
    _need_tools()
    return build_mps2()  # build/rtbench-qemu-nokernel, the runner's too


@pytest.fixture(scope="session")
def freertos_build() -> Path:
    brought(
        "FREERTOS_KERNEL_PATH",
        "a FreeRTOS-Kernel checkout",
        "V11.3.0 from github.com/FreeRTOS/FreeRTOS-Kernel; README: bring your own kernels",
    )
    if not (Path(KERNEL) / "tasks.c").is_file():
        pytest.fail(f"FREERTOS_KERNEL_PATH={KERNEL} has no tasks.c: not a FreeRTOS-Kernel")
    _need_tools()
    return build_mps2({"FREERTOS_KERNEL_PATH": KERNEL})  # the runner's build/rtbench-qemu-freertos


def assert_irq_plausible(runs: list[Run], task_below_ticks: int = 100) -> None:
    """No interrupt lost; the handler runs before the task it wakes, which runs within
    `task_below_ticks` (100 ticks = 4000 instructions)."""
    run = rtbench.scenario_runs(runs, "irq")[0]
    assert run.counters["isr_lost"][0] == 0 and run.counters["isr_lost_tm"][0] == 0
    handler = np.median(run.series["isr_handler"].values)
    task = np.median(run.series["isr_task"].values)
    assert 0 <= handler < task < task_below_ticks


def assert_throughput_plausible(runs: list[Run]) -> None:
    """Thread-Metric T1..T8 all counted in windows of 20 ms asked (1 ms ticks: up to 22),
    and every scalability pattern counted."""
    counts = rtbench.threadmetric_counts(runs)[1]
    assert set(counts) == {f"t{i}" for i in range(1, 9)}
    assert all(t.count > 0 for t in counts.values())
    assert all(20_000 <= t.elapsed_us <= 22_000 for t in counts.values())
    scal = rtbench.scenario_runs(runs, "scalability")[0]
    assert all(scal.counters[p][0] > 0 for p in ("p1", "p23", "p4", "p5", "p6"))
