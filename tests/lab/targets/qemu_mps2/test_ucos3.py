"""rtbench on µC/OS-III in QEMU mps2: every scenario runs in both configurations, two
runs are identical, the port says where µC/OS-III differs, a bad configuration is one
line. Skipped (with the reason) without UCOS3_PATH (README: bring your own kernels)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rtlab.catalog.machines import MACHINES
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import RtosBuildError
from rtlab.lab.rtos.ucos3 import VAR_OS, checkouts, is_small
from rtlab.lab.targets import qemu as tq
from rtlab.studies import rtbench
from tests.lab.targets.qemu_mps2.conftest import (
    QUICK,
    assert_irq_plausible,
    assert_throughput_plausible,
)
from tests.needs import port_brought

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

PORT = RTOSES.get("ucos3")
SCENARIOS = ["primitives", "irq", "threadmetric", "scalability", "contention"]
WARNINGS = {"icount_model", "queue_by_pointer", "heap_partition", "no_getters"}
Pair = tuple[tq.QemuResult, tq.QemuResult]
QEMU_MACHINES = list(PORT.machines)  # the `qemu` target's (the Pico's: test_pico.py)


@pytest.fixture(scope="module")
def paths() -> dict[str, str]:
    return port_brought(PORT, "cmake", "arm-none-eabi-gcc", tq.QEMU)


@pytest.fixture(scope="module")
def elfs(paths: dict[str, str]) -> dict[tuple[str, str], Path]:
    """Both configurations on every machine (one cached build, build/rtbench-qemu-ucos3)."""
    return {(m, c): PORT.build(m, c, paths) for m in QEMU_MACHINES for c in PORT.configs}


@pytest.fixture(scope="module")
def default_run(elfs: dict[tuple[str, str], Path]) -> tq.QemuResult:
    """The default configuration once (every RTOS's common checks of it, twice:
    test_every_rtos.py)."""
    return tq.run_qemu(elfs["mps2-an385", "default"], append=QUICK, timeout_s=120)


@pytest.fixture(scope="module")
def lean_run(elfs: dict[tuple[str, str], Path]) -> tq.QemuResult:
    return tq.run_qemu(elfs["mps2-an385", "lean"], append=QUICK, timeout_s=120)


def _check_all_ok(res: tq.QemuResult, board: str) -> None:
    assert res.exit_status == 0 and not res.timed_out, res.output[-2000:]
    assert [r.meta["scenario"] for r in res.runs] == SCENARIOS
    for r in res.runs:
        assert r.complete and r.status == "ok", (r.meta["scenario"], r.problems, r.message)
        assert r.meta["port"] == "ucos3" and r.meta["rtos_version"] == "V3.08.02"
        assert r.meta["board"] == board and r.meta["timebase"] == "icount"
        assert r.meta["cores_online"] == "1" and r.meta["preemptive"] == "1"
        assert {c for c, _ in r.warnings} >= WARNINGS, r.warnings
        assert r.counters["heap_used_end"][0] == 0  # every thread and object back
        assert r.counters["heap_peak"][0] > 0


def test_lean_runs_every_scenario(lean_run: tq.QemuResult) -> None:
    _check_all_ok(lean_run, "mps2-an385")
    assert_irq_plausible(lean_run.runs)
    assert_throughput_plausible(lean_run.runs)


def _means(res: tq.QemuResult, scenario: str) -> dict[str, float]:
    run = rtbench.scenario_runs(res.runs, scenario)[0]
    return {k: float(np.mean(s.values)) for k, s in run.series.items()}


def test_primitives_plausible(default_run: tq.QemuResult, lean_run: tq.QemuResult) -> None:
    full, lean = _means(default_run, "primitives"), _means(lean_run, "primitives")
    for mean in (full, lean):
        assert mean["sem_give"] > 0 and mean["sem_take"] > 0
        assert mean["preempt_sem"] > mean["sem_give"]
        assert mean["preempt_queue"] > mean["queue_send"] > mean["gpio_set"]
        assert 40 < (mean["sem_give"] + mean["sem_take"]) * 40 < 600
    # The lean configuration drops the template's checks: cheaper kernel calls.
    assert lean["sem_give"] < full["sem_give"]
    assert lean["preempt_sem"] < full["preempt_sem"]


def test_cortex_m0_microbit_runs_every_scenario_in_16_kib(
    elfs: dict[tuple[str, str], Path],
) -> None:
    """The ARMv6-M port on QEMU's Cortex-M0 (nRF51822, 16 KiB of RAM): the small pools
    and stacks (rtb_ucos3_sizes.h) hold every scenario in both configurations (the
    default's determinism: test_every_rtos.py); the record says it is the small build."""
    args = "--iterations 500 --window-ms 20 --period-us 1000"
    runs = [
        tq.run_qemu(elfs["microbit", c], machine="microbit", append=args, timeout_s=120)
        for c in ("default", "lean")
    ]
    for res in runs:
        assert res.exit_status == 0 and not res.timed_out, res.output[-2000:]
        assert [r.meta["scenario"] for r in res.runs] == SCENARIOS
        for r in res.runs:
            assert r.complete and r.status == "ok", (r.meta["scenario"], r.problems, r.message)
            assert r.meta["board"] == "microbit" and r.meta["clock"] == "nrf51_timer0_icount"
            assert r.counters["heap_used_end"][0] == 0
        prim = rtbench.scenario_runs(res.runs, "primitives")[0]
        assert "iterations_capped" in {c for c, _ in prim.warnings}  # 2 KiB of samples
        mean = _means(res, "primitives")
        # 16 MHz ticks: 62.5 instructions each; a give + take is a few hundred on ARMv6-M
        assert 60 < (mean["sem_give"] + mean["sem_take"]) * 62.5 < 1500
        assert mean["preempt_sem"] > mean["sem_give"]
        assert_irq_plausible(res.runs)
        assert_throughput_plausible(res.runs)
    assert _means(runs[1], "primitives")["sem_give"] < _means(runs[0], "primitives")["sem_give"]
    small = PORT.describe("default", {}, "microbit")["kconfig"]
    assert small["OS_CFG_ISR_STK_SIZE"] == "0" and small["small"].startswith("1")
    assert PORT.describe("default", {}, "mps2-an385")["kconfig"]["OS_CFG_ISR_STK_SIZE"] == "1024"


def test_multicore_is_not_faked(elfs: dict[tuple[str, str], Path]) -> None:
    """No SMP: asking for 2 cores makes no 2-core run (never a run of zeros), and the
    run's record says why (kconfig smp = unsupported)."""
    res = tq.run_qemu(
        elfs["mps2-an385", "lean"],
        append="--scenarios scalability --iterations 50 --window-ms 20 --cores 1,2",
        timeout_s=60,
    )
    assert res.exit_status == 0
    assert [r.meta["cores"] for r in res.runs] == ["1"]
    assert PORT.describe("lean", {})["kconfig"]["smp"].startswith("unsupported")


def test_bad_configuration_is_one_line(paths: dict[str, str]) -> None:
    with pytest.raises(RtosBuildError) as bad:
        PORT.build("mps2-an385", "fast", paths)
    assert "\n" not in str(bad.value) and "default, lean" in str(bad.value)
    with pytest.raises(RtosBuildError) as bad_machine:
        PORT.build("mps2-an500", "lean", paths)
    assert "\n" not in str(bad_machine.value)


def test_configurations_are_recorded() -> None:
    full, lean = PORT.describe("default", {})["kconfig"], PORT.describe("lean", {})["kconfig"]
    assert full["OS_CFG_ARG_CHK_EN"] == "1" and lean["OS_CFG_ARG_CHK_EN"] == "0"
    assert full["OS_CFG_TS_EN"] == "1" and lean["OS_CFG_TS_EN"] == "0"
    assert full["OS_CFG_PRIO_MAX"] == lean["OS_CFG_PRIO_MAX"] == "20"


def test_checkouts_are_found_or_named(tmp_path: Path) -> None:
    """Runs without the kernel: what the user is told."""
    assert "set UCOS3_PATH" in str(checkouts({}))
    assert "not a uC-OS3 checkout" in str(checkouts({VAR_OS: str(tmp_path)}))
    for name, marker in (
        ("uC-OS3", "Source/os_core.c"),
        ("uC-CPU", "cpu_core.c"),
        ("uC-LIB", "lib_mem.c"),
    ):
        (tmp_path / name / marker).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name / marker).write_text("")
    found = checkouts({VAR_OS: str(tmp_path)})
    assert isinstance(found, dict) and found["UCLIB_PATH"] == tmp_path / "uC-LIB"
    alone = checkouts({VAR_OS: str(tmp_path / "uC-OS3")})
    assert "set UCCPU_PATH" in str(alone)


def test_small_boards_are_the_descriptions_under_64_kib() -> None:
    """Runs without the kernel: what a run records as small (is_small) is what the CMake
    layers pick, a machine file's ram_size under 64 KiB: the three 16-20 KiB parts."""
    found = {m for m in (*PORT.machines, *PORT.boards) if is_small(m)}
    assert found == {"microbit", "nucleo-f103rb", "nucleo-l073rz"}
    assert all(MACHINES.get(m).get("ram_size") < 65536 for m in found)
