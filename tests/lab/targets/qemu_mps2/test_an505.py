"""mps2-an505, one Cortex-M33 (K4perf's RP2350 core, in QEMU): FreeRTOS's ARM_CM33_NTZ
port built for the M33 runs in the secure state, and rtbench's GPIO edge pass (--irq-ext:
on this machine marker channel 3's store pends the line, boards/qemu-mps2/ext_wire.c)
reaches its handler and wakes the actor, under the QEMU cycles plugin's M33 table with
the external and internal figures agreeing within the bracket. Skips (one line) without
FREERTOS_KERNEL_PATH."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from rtlab.lab.qemu import cycles as qc
from rtlab.lab.qemu import cycles_check as cycles_check
from rtlab.lab.qemu.machine import run_qemu
from rtlab.studies import rtbench

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

MACHINE = "mps2-an505"


@pytest.fixture(scope="module")
def elf(freertos_build: Path) -> Path:
    return freertos_build / "rtbench-freertos-an505.elf"


def test_the_image_is_built_for_armv8m_mainline(elf: Path) -> None:
    attrs = subprocess.run(["arm-none-eabi-readelf", "-A", str(elf)], check=True,
                           capture_output=True, text=True).stdout  # fmt: skip
    assert "Tag_CPU_arch: v8-M.mainline" in attrs, attrs


def test_the_gpio_edge_pass_runs_in_cycles_of_the_m33(elf: Path, tmp_path: Path) -> None:
    why = qc.plugin_missing()
    if why:
        pytest.fail(f"{why}; run `make test`, which runs setup first", pytrace=False)
    plugin, out = qc.plugin_args(elf, qc.machine(MACHINE), tmp_path)
    res = run_qemu(elf, MACHINE, 0, 300, extra=plugin,
                   append="--scenarios irq --irq-ext --iterations 20 --markers")  # fmt: skip
    assert res.exit_status == 0, res.problem or res.stderr
    (run,) = rtbench.scenario_runs(res.runs, "irq")
    assert run.meta["board"] == MACHINE and run.meta["rtos"] == "freertos"
    for lost in ("isr_lost", "isr_lost_tm", "isr_lost_ext"):
        assert run.counters[lost][0] == 0, lost  # every edge reached the handler
    assert "no_external_irq" not in dict(run.warnings)
    handler = np.median(run.series["isr_handler_ext"].values)
    task = np.median(run.series["isr_task_ext"].values)
    assert 0 < handler < task  # in QEMU's ticks: the handler wakes the actor after it
    rows = {r.series: r for r in cycles_check.compare(res.runs, qc.read_capture(out))}
    assert {"isr_handler_ext", "isr_task_ext"} <= set(rows)
    for r in rows.values():
        assert r.agrees, r  # external (marker capture) vs internal, within the bracket
    # the M33's hardware entry alone is 12 cycles: the edge-to-handler pulse holds more
    assert 12 < rows["isr_handler_ext"].external < rows["isr_task_ext"].external
