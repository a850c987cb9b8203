"""FreeRTOS SMP on mps2-an521 (2 x Cortex-M33) in both timing modes: under icount the
cross-core scenarios' 2-core runs are withheld as unsupported_on_icount (their meta and
the reason kept, no figure), the same-core ones keep their figures; in parallel TCG
every run carries the host's CPUs and load and the 2-core figures are there.

The kernel is a FreeRTOS-Kernel after V11.3.0 (Armv8-M SMP): FREERTOS_SMP_KERNEL_PATH,
or FREERTOS_KERNEL_PATH when that checkout has it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rtlab.lab.qemu.timing import UNSUPPORTED_ON_ICOUNT
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.freertos import SMP_PORT, SMP_TESTED, SMP_VAR, VAR
from rtlab.lab.targets import qemu as tq
from rtlab.protocol import Run
from tests.lab.targets.qemu_mps2.conftest import _need_tools

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

MACHINE = "mps2-an521"
QUICK = "--iterations 100 --window-ms 20 --levels 0,70"
CROSS = "--scenarios primitives,threadmetric,scalability,contention --tests 1,6"


def _has_smp(kernel: str) -> bool:
    port = Path(kernel) / SMP_PORT
    return port.is_file() and "configWAKE_SECONDARY_CORES" in port.read_text(errors="replace")


@pytest.fixture(scope="module")
def an521_elf() -> str:
    kernel = os.environ.get(SMP_VAR) or os.environ.get(VAR, "")
    if not kernel or not _has_smp(kernel):
        pytest.skip(f"set {SMP_VAR} to a FreeRTOS-Kernel after V11.3.0 ({SMP_TESTED})")
    _need_tools()
    return str(RTOSES.get("freertos").build(MACHINE, "default", {VAR: kernel, SMP_VAR: kernel}))


def _runs(res: tq.QemuResult, scenario: str) -> dict[int, Run]:
    return {int(r.meta["cores"]): r for r in res.runs if r.meta.get("scenario") == scenario}


def test_icount_keeps_same_core_figures_and_withholds_cross_core(an521_elf: str) -> None:
    res = tq.run_qemu(an521_elf, MACHINE, 0, timeout_s=180, append=f"{CROSS} {QUICK}")
    assert res.exit_status == 0 and not res.timed_out, res.output[-2000:]
    assert all(r.complete for r in res.runs), [r.problems for r in res.runs]
    for r in res.runs:
        assert (r.meta["timing_mode"], r.meta["qemu_cores"], r.meta["cores_online"]) == (
            "icount",
            "2",
            "2",
        )
        assert "host_load1" not in r.meta  # the host cannot move an icount figure
    prim = _runs(res, "primitives")[1]
    assert prim.series["sem_give"].values.size > 0
    for scenario in ("threadmetric", "scalability"):
        one, two = _runs(res, scenario)[1], _runs(res, scenario)[2]
        assert one.counters and not [w for w in one.warnings if w[0] == UNSUPPORTED_ON_ICOUNT]
        codes = [code for code, _ in two.warnings]
        assert UNSUPPORTED_ON_ICOUNT in codes and not two.counters and not two.series
    assert any("arg=--cores,arg=1" in a for a in res.argv)  # rtbench on one core
    contention = _runs(res, "contention")[2]  # not run: --cores 1 under icount
    assert not contention.counters and "one_core" not in dict(contention.warnings)
    assert _runs(res, "contention")[1].counters["contention_0"][0] > 0  # both on core 0
    reason = dict(contention.warnings)[UNSUPPORTED_ON_ICOUNT]
    assert "in turns" in reason and "icount_shift = -1" in reason


def test_parallel_tcg_records_the_host_and_gives_two_core_figures(an521_elf: str) -> None:
    append = f"--scenarios scalability,contention {QUICK}"
    res = tq.run_qemu(an521_elf, MACHINE, None, timeout_s=180, append=append)
    assert res.exit_status == 0 and not res.timed_out, res.output[-2000:]
    assert "-accel" in res.argv and "tcg,thread=multi" in res.argv
    for r in res.runs:
        assert r.complete, r.problems
        assert (r.meta["timing_mode"], r.meta["qemu_cores"]) == ("parallel-tcg", "2")
        assert int(r.meta["host_cpus"]) >= 1 and float(r.meta["host_load1"]) >= 0
        assert not [w for w in r.warnings if w[0] == UNSUPPORTED_ON_ICOUNT]
    two = _runs(res, "scalability")[2]
    per_core = two.series["p1.per_thread"].values
    assert per_core.size == 2 and (per_core > 0).all()  # both cores did work
    contention = _runs(res, "contention")[2]
    assert contention.counters["contention_0"][0] > 0
    assert contention.counters["contention_70.stress"][0] > 0


def test_a_kernel_without_armv8m_smp_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "tasks.c").write_text("")
    with pytest.raises(Exception, match=f"set {SMP_VAR} to a FreeRTOS-Kernel after V11.3.0"):
        RTOSES.get("freertos").build(MACHINE, "default", {VAR: str(tmp_path)})
