"""rtbench on NuttX in QEMU mps2 (the POSIX port as a NuttX application on the project's
board): every scenario runs on mps2-an385 and mps2-an500, two runs are byte-identical,
the figures are plausible. Skipped (one line) without NUTTX_PATH."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import RtosBuildError, merged_paths
from rtlab.lab.rtos.nuttx import trees
from rtlab.lab.targets import qemu_mps2 as tq
from rtlab.studies import rtbench
from tests.conftest import rtlab
from tests.lab.targets.qemu_mps2.conftest import (
    QUICK,
    assert_irq_plausible,
    assert_throughput_plausible,
)
from tests.needs import brought, missing_tool
from tests.paths import REPO_ROOT

SCENARIOS = ["primitives", "irq", "threadmetric", "scalability", "contention"]
MACHINES = ["mps2-an385", "mps2-an500"]
PORT = RTOSES.get("nuttx")
Pair = tuple[tq.QemuResult, tq.QemuResult]


def _paths() -> dict[str, str]:
    brought(
        "NUTTX_PATH",
        "an apache/nuttx checkout and NUTTX_APPS_PATH to nuttx-apps, or one folder "
        "holding nuttx/ and apps/",
        "tested: apache/nuttx 4ebc8a7291df + apache/nuttx-apps a71c329cfb0d; "
        "README: bring your own kernels",
    )
    paths = merged_paths()
    why = PORT.missing(paths)
    if why:
        pytest.fail(why, pytrace=False)
    missing_tool("deps/apt.txt", "arm-none-eabi-gcc", "kconfig-conf", "make", tq.QEMU)
    return paths


@pytest.fixture(scope="module")
def elfs() -> dict[str, Path]:
    """One build per core (an385/an386 share the Cortex-M3 image), cached in build/."""
    paths = _paths()
    return {m: PORT.build(m, "default", paths) for m in (*MACHINES, "mps2-an386")}


@pytest.fixture(scope="module", params=MACHINES)
def suite_pair(request: pytest.FixtureRequest, elfs: dict[str, Path]) -> Pair:
    """The whole suite twice on the machine (determinism is checked on the pair)."""
    m = request.param
    return (
        tq.run_qemu(elfs[m], machine=m, append=QUICK, timeout_s=120),
        tq.run_qemu(elfs[m], machine=m, append=QUICK, timeout_s=120),
    )


def test_missing_kernel_is_one_line() -> None:
    why = PORT.missing({})
    assert why and "\n" not in why and "NUTTX_PATH" in why and "bring your own" in why


def test_every_scenario_runs(suite_pair: Pair) -> None:
    res = suite_pair[0]
    assert res.exit_status == 0 and not res.timed_out, res.output[-2000:]
    assert [r.meta["scenario"] for r in res.runs] == SCENARIOS
    for r in res.runs:
        assert r.complete and r.status == "ok", (r.meta["scenario"], r.problems, r.message)
        assert r.meta["port"] == "posix" and r.meta["rtos"] == "nuttx"
        assert r.meta["board"] == r.meta["qemu_machine"] and r.meta["timebase"] == "icount"
        assert r.meta["clock"] == "cmsdk_timer0_icount"
        assert r.meta["cpu_hz"] == "1000000000" and r.meta["preemptive"] == "1"
        codes = {c for c, _ in r.warnings}
        assert {"icount_model", "nuttx_clock", "swi_is_thread"} <= codes, codes
        assert r.counters["heap_used_end"][0] == 0  # every thread and object freed


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


def test_irq_plausible(suite_pair: Pair) -> None:
    # signal + thread switch: < 10000 instructions
    assert_irq_plausible(suite_pair[0].runs, task_below_ticks=250)


def test_throughput_plausible(suite_pair: Pair) -> None:
    """Windows are measured on TIMER0 and ended by NuttX's clock (a 1 ms tick): 20 ms
    last 20..22 ms of virtual time (NuttX's own an500 board's 1.28 ms ticks: ~26)."""
    assert_throughput_plausible(suite_pair[0].runs)
    # Target and stress thread share one level on one core: they take turns only
    # because the port asks SCHED_RR with one-tick slices (FreeRTOS's time slicing).
    cont = rtbench.scenario_runs(suite_pair[0].runs, "contention")[0]
    assert cont.counters["contention_0"][0] > 0 and cont.counters["contention_70"][0] > 0


def test_an386_runs_the_m3_image(elfs: dict[str, Path]) -> None:
    assert elfs["mps2-an386"] == elfs["mps2-an385"]
    res = tq.run_qemu(
        elfs["mps2-an386"],
        machine="mps2-an386",
        append="--scenarios primitives,irq --iterations 50",
        timeout_s=60,
    )
    assert res.exit_status == 0
    assert [r.status for r in res.runs] == ["ok", "ok"]
    assert res.runs[0].meta["board"] == "mps2-an386"
    # The same code on the M3 and the M4: the same instructions, the same figures.
    m3 = tq.run_qemu(
        elfs["mps2-an385"],
        machine="mps2-an385",
        append="--scenarios primitives,irq --iterations 50",
        timeout_s=60,
    )
    assert m3.output.replace("mps2-an385", "mps2-an386") == res.output


def test_assert_configuration_costs_instructions(elfs: dict[str, Path]) -> None:
    """rtos_config = "assert" (NuttX's DEBUG_ASSERTIONS): every run ok, and a kernel
    path with its checks costs at least what it costs without them."""
    elf = PORT.build("mps2-an385", "assert", _paths())
    quick = "--scenarios primitives --iterations 50"
    checked = tq.run_qemu(elf, append=quick, timeout_s=60)
    plain = tq.run_qemu(elfs["mps2-an385"], append=quick, timeout_s=60)
    assert checked.exit_status == 0 and [r.status for r in checked.runs] == ["ok"]

    def total(res: tq.QemuResult) -> float:
        run = res.runs[0]
        return sum(float(np.sum(run.series[k].values)) for k in ("sem_give", "queue_send"))

    assert total(checked) > total(plain)


def test_bad_option_exit_status(elfs: dict[str, Path]) -> None:
    res = tq.run_qemu(elfs["mps2-an385"], append="--bogus 1", timeout_s=60)
    assert res.exit_status == 2 and "--bogus" in res.output and not res.runs


def test_bad_configuration_is_one_line() -> None:
    with pytest.raises(RtosBuildError) as e:
        PORT.build("mps2-an385", "lean", {"NUTTX_PATH": "/nonexistent"})
    assert "\n" not in str(e.value) and "default" in str(e.value)
    with pytest.raises(RtosBuildError) as e:
        PORT.build("mps2-an500", "default", {"NUTTX_PATH": str(REPO_ROOT)})
    assert "\n" not in str(e.value) and "not a NuttX tree" in str(e.value)


def test_describe_records_the_configuration() -> None:
    d = PORT.describe("default", merged_paths())
    assert d["rtos"] == "nuttx" and d["rtos_config"] == "default"
    k = d["kconfig"]
    assert k["USEC_PER_TICK"] == "1000" and k["SCHED_TICKLESS"] == "n"
    assert k["MPS_SYSTICK_CLOCK"] == "25000000" and k["ARCH_IDLE_CUSTOM"] == "y"


def test_rtlab_run_qemu_spec(elfs: dict[str, Path], tmp_path: Path) -> None:
    spec = tmp_path / "q.toml"
    spec.write_text(
        'name = "q"\nrepetitions = 2\n[target]\nkind = "qemu"\nrtos = "nuttx"\n'
        'machine = "mps2-an500"\n[[workload]]\nkind = "rtbench"\n'
        'scenarios = ["primitives"]\niterations = 50\nwindow_ms = 20\n'
    )
    proc = rtlab("run", str(spec), "--store", str(tmp_path / "s.duckdb"), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("ok ") + proc.stderr.count("ok ") >= 2


def test_user_trees_untouched(elfs: dict[str, Path]) -> None:
    """The build works in a copy: nothing of the project lands in the user's trees."""
    t = trees(merged_paths())
    assert not (t.apps / "external" / "rtbench").exists()
    make_defs = t.nuttx / "Make.defs"
    assert not make_defs.is_symlink() or "rtbench" not in str(make_defs.readlink())
    assert all(elf.resolve().is_relative_to(REPO_ROOT / "build") for elf in elfs.values())


def test_kernel_is_brought_not_committed() -> None:
    tracked = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "ls-files"], capture_output=True, text=True, check=False
    ).stdout.split()
    assert not [p for p in tracked if p.endswith(("nx_start.c", "Application.mk", ".elf"))]
    kernel = os.environ.get("NUTTX_PATH", "")
    assert kernel == "" or not Path(kernel).resolve().is_relative_to(REPO_ROOT)
