"""rtbench on NuttX in QEMU mps2 (the POSIX port as a NuttX application on the project's
board): every scenario runs on mps2-an385 and mps2-an500, two runs are byte-identical,
the figures are plausible. Skipped (one line) without NUTTX_PATH."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import RtosBuildError, merged_paths
from rtlab.lab.rtos.nuttx import trees
from rtlab.lab.targets import qemu as tq
from tests.needs import port_brought
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

PORT = RTOSES.get("nuttx")
TOOLS = ("arm-none-eabi-gcc", "kconfig-conf", "make", tq.QEMU)  # what the build and QEMU need


@pytest.fixture(scope="module")
def elfs() -> dict[str, Path]:
    """The Cortex-M3 build an385 and an386 share, cached in build/ (the M7's: every RTOS's
    case in test_every_rtos.py, make test-boards)."""
    paths = port_brought(PORT, *TOOLS)
    return {m: PORT.build(m, "default", paths) for m in ("mps2-an385", "mps2-an386")}


def test_missing_kernel_is_one_line() -> None:
    why = PORT.missing({})
    assert why and "\n" not in why and "NUTTX_PATH" in why and "bring your own" in why


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


@pytest.mark.boards  # a NuttX build of its own (minutes, cold): make test-boards
def test_assert_configuration_costs_instructions(elfs: dict[str, Path]) -> None:
    """rtos_config = "assert" (NuttX's DEBUG_ASSERTIONS): every run ok, and a kernel
    path with its checks costs at least what it costs without them."""
    elf = PORT.build("mps2-an385", "assert", port_brought(PORT, *TOOLS))
    quick = "--scenarios primitives --iterations 50"
    checked = tq.run_qemu(elf, append=quick, timeout_s=60)
    plain = tq.run_qemu(elfs["mps2-an385"], append=quick, timeout_s=60)
    assert checked.exit_status == 0 and [r.status for r in checked.runs] == ["ok"]

    def total(res: tq.QemuResult) -> float:
        run = res.runs[0]
        return sum(float(np.sum(run.series[k].values)) for k in ("sem_give", "queue_send"))

    assert total(checked) > total(plain)


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


def test_user_trees_untouched(elfs: dict[str, Path]) -> None:
    """The build works in a copy: nothing of the project lands in the user's trees."""
    t = trees(merged_paths())
    assert not (t.apps / "external" / "rtbench").exists()
    make_defs = t.nuttx / "Make.defs"
    assert not make_defs.is_symlink() or "rtbench" not in str(make_defs.readlink())
    assert all(elf.resolve().is_relative_to(REPO_ROOT / "build") for elf in elfs.values())
