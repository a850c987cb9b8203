"""rtbench on FreeRTOS in QEMU mps2, what only FreeRTOS's runs show (every RTOS's common
checks: test_every_rtos.py): a give + take costs what FACTS says, a small board says
what it gave up, and nothing of the host reaches the guest. Skipped (with the reason)
without FREERTOS_KERNEL_PATH."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rtlab.lab.targets import qemu as tq
from rtlab.studies import rtbench

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)


def test_sem_give_take_costs_what_facts_says(freertos_build: Path) -> None:
    elf = freertos_build / "rtbench-freertos-an385.elf"
    res = tq.run_qemu(elf, append="--scenarios primitives --iterations 100", timeout_s=120)
    run = rtbench.scenario_runs(res.runs, "primitives")[0]
    mean = {k: float(np.mean(s.values)) for k, s in run.series.items()}
    # FACTS: give + take is ~150 instructions on this kernel/port (40 per tick).
    insns = (mean["sem_give"] + mean["sem_take"]) * 40
    assert 60 < insns < 600, insns


def test_cortex_m0_microbit_caps_its_samples_in_16_kib(freertos_build: Path) -> None:
    """QEMU's only Cortex-M0 machine (nRF51822): the small board's description shrinks
    the sample pool; the run says what it gave up (fewer samples than asked), and a give
    + take is a few hundred instructions on ARMv6-M (16 MHz ticks: 62.5 each)."""
    elf = freertos_build / "rtbench-freertos-microbit.elf"
    args = "--scenarios primitives --iterations 500"
    res = tq.run_qemu(elf, machine="microbit", append=args, timeout_s=120)
    assert res.exit_status == 0 and not res.timed_out, res.output[-2000:]
    prim = rtbench.scenario_runs(res.runs, "primitives")[0]
    assert "iterations_capped" in {c for c, _ in prim.warnings}  # 2 KiB of samples
    n = int(prim.meta["samples"])
    assert 10 < n < 500 and prim.series["sem_give"].values.size == n - 1
    mean = {k: float(np.mean(s.values)) for k, s in prim.series.items()}
    assert 60 < (mean["sem_give"] + mean["sem_take"]) * 62.5 < 1000


def test_output_does_not_depend_on_where_the_elf_lives(
    freertos_build: Path, tmp_path: Path
) -> None:
    """icount figures are exact only if nothing about the host reaches the guest: the same
    ELF run from a path 200 characters longer prints byte-identical output."""
    elf = freertos_build / "rtbench-freertos-an385.elf"
    far = tmp_path / ("x" * 200) / elf.name
    far.parent.mkdir()
    far.write_bytes(elf.read_bytes())
    quick = "--scenarios primitives --iterations 50"
    here = tq.run_qemu(elf, append=quick, timeout_s=120)
    there = tq.run_qemu(far, append=quick, timeout_s=120)
    assert here.exit_status == 0 and there.exit_status == 0, there.output[-1000:]
    assert here.output == there.output
