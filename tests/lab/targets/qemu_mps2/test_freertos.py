"""rtbench on FreeRTOS in QEMU mps2: every scenario runs, two runs are identical, the
results parse and are plausible. Skipped (with the reason) without FREERTOS_KERNEL_PATH."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from rtlab.lab.targets import qemu_mps2 as tq
from rtlab.studies import rtbench
from tests.conftest import rtlab
from tests.lab.targets.qemu_mps2.conftest import (
    KERNEL,
    assert_irq_plausible,
    assert_throughput_plausible,
)
from tests.paths import REPO_ROOT

SCENARIOS = ["primitives", "irq", "threadmetric", "scalability", "contention"]
Pair = tuple[tq.QemuResult, tq.QemuResult]


def test_every_scenario_runs(suite_pair: Pair) -> None:
    res = suite_pair[0]
    assert res.exit_status == 0 and not res.timed_out, res.output[-2000:]
    assert [r.meta["scenario"] for r in res.runs] == SCENARIOS
    for r in res.runs:
        assert r.complete and r.status == "ok", (r.meta["scenario"], r.problems, r.message)
        assert r.meta["port"] == "freertos" and r.meta["rtos_version"].startswith("V")
        assert r.meta["board"] == "mps2-an385" and r.meta["timebase"] == "icount"
        assert r.meta["cpu_hz"] == "1000000000" and r.meta["preemptive"] == "1"
        assert "icount_model" in {c for c, _ in r.warnings}, r.warnings
        assert r.counters["heap_used_end"][0] == 0  # every task and object freed
        assert r.counters["heap_peak"][0] > 0


def test_two_runs_identical(suite_pair: Pair) -> None:
    a, b = suite_pair
    assert a.output == b.output  # the whole text: every sample and every count


def test_primitives_plausible(suite_pair: Pair) -> None:
    run = rtbench.scenario_runs(suite_pair[0].runs, "primitives")[0]
    mean = {k: float(np.mean(s.values)) for k, s in run.series.items()}
    assert mean["sem_give"] > 0 and mean["sem_take"] > 0
    assert mean["preempt_sem"] > mean["sem_give"]
    assert mean["preempt_queue"] > mean["queue_send"]
    assert mean["queue_send"] > mean["gpio_set"]
    # FACTS: give + take is ~150 instructions on this kernel/port (40 per tick).
    insns = (mean["sem_give"] + mean["sem_take"]) * 40
    assert 60 < insns < 600, insns


def test_irq_plausible(suite_pair: Pair) -> None:
    assert_irq_plausible(suite_pair[0].runs)


def test_throughput_plausible(suite_pair: Pair) -> None:
    # Window measured by the timer-control task: 20 ms asked, ticks of 1 ms.
    assert_throughput_plausible(suite_pair[0].runs)
    cont = rtbench.scenario_runs(suite_pair[0].runs, "contention")[0]
    assert cont.counters["contention_0"][0] > 0 and cont.counters["contention_70"][0] > 0


def test_cortex_m4f_build_runs(freertos_build: Path) -> None:
    res = tq.run_qemu(
        freertos_build / "rtbench-freertos-an386.elf",
        machine="mps2-an386",
        append="--scenarios primitives,irq --iterations 50",
        timeout_s=60,
    )
    assert res.exit_status == 0
    assert [r.complete for r in res.runs] == [True, True]
    assert res.runs[0].meta["board"] == "mps2-an386"


def test_cortex_m0_microbit_runs_every_scenario_in_16_kib(freertos_build: Path) -> None:
    """QEMU's only Cortex-M0 machine (nRF51822): the small board's description shrinks
    stacks, heap and sample pool; every scenario still runs, twice identically, and the
    run says what it gave up (fewer samples than asked) and what its counter is."""
    elf = freertos_build / "rtbench-freertos-microbit.elf"
    args = "--iterations 500 --window-ms 20 --period-us 1000"
    a, b = (tq.run_qemu(elf, machine="microbit", append=args, timeout_s=120) for _ in "ab")
    assert a.exit_status == 0 and not a.timed_out, a.output[-2000:]
    assert a.output == b.output
    assert [r.meta["scenario"] for r in a.runs] == SCENARIOS
    for r in a.runs:
        assert r.complete and r.status == "ok", (r.meta["scenario"], r.problems, r.message)
        assert r.meta["board"] == "microbit" and r.meta["clock"] == "nrf51_timer0_icount"
        assert r.counters["heap_used_end"][0] == 0
    prim = rtbench.scenario_runs(a.runs, "primitives")[0]
    assert "iterations_capped" in {c for c, _ in prim.warnings}  # 2 KiB of samples
    n = int(prim.meta["samples"])
    assert 10 < n < 500 and prim.series["sem_give"].values.size == n - 1
    # 16 MHz ticks: 62.5 instructions each; a give + take is a few hundred on ARMv6-M
    mean = {k: float(np.mean(s.values)) for k, s in prim.series.items()}
    assert 60 < (mean["sem_give"] + mean["sem_take"]) * 62.5 < 1000
    assert_irq_plausible(a.runs)
    assert_throughput_plausible(a.runs)


def test_bad_option_exit_status(freertos_build: Path) -> None:
    res = tq.run_qemu(freertos_build / "rtbench-freertos-an385.elf", append="--bogus 1")
    assert res.exit_status == 2 and "--bogus" in res.output and not res.runs


def test_rtlab_run_qemu_spec(freertos_build: Path, tmp_path: Path) -> None:
    spec = tmp_path / "q.toml"
    elf = freertos_build / "rtbench-freertos-an385.elf"
    spec.write_text(
        'name = "q"\nrepetitions = 2\n[target]\nkind = "qemu"\n'
        f'elf = "{elf}"\n[[workload]]\nkind = "rtbench"\n'
        'scenarios = ["primitives"]\niterations = 50\nwindow_ms = 20\n'
    )
    proc = rtlab("run", str(spec), "--store", str(tmp_path / "s.duckdb"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("ok ") + proc.stderr.count("ok ") >= 2


def test_kernel_is_brought_not_committed() -> None:
    root = REPO_ROOT
    tracked = subprocess.run(
        ["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=False
    ).stdout.split()
    assert not [p for p in tracked if p.endswith(("tasks.c", "queue.c", ".elf"))]
    assert KERNEL == "" or not Path(KERNEL).resolve().is_relative_to(root)


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
