"""rtbench's marker brackets under the QEMU cycles plugin (FreeRTOS, every study core's
stand-in): the external figure (the marker capture, in cycles) and the internal one (the
guest's own timestamp reads, timed in cycles) agree within the bracket's own cost."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from rtlab.lab.qemu import cycles as qc
from rtlab.lab.qemu import cycles_check as cycles_check
from rtlab.lab.qemu.machine import run_qemu

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

MACHINES = {"microbit": "microbit", "mps2-an385": "an385", "mps2-an386": "an386",
            "mps2-an500": "an500", "mps2-an505": "an505"}  # fmt: skip
PRIMITIVES = {"sem_give", "sem_take", "queue_send", "queue_recv", "preempt_sem", "return_sem"}


@pytest.mark.parametrize("machine", MACHINES)
def test_marker_capture_and_timestamps_agree_in_cycles(
    freertos_build: Path, machine: str, tmp_path: Path
) -> None:
    why = qc.plugin_missing()
    if why:
        pytest.fail(f"{why}; run `make test`, which runs setup first", pytrace=False)
    elf = freertos_build / f"rtbench-freertos-{MACHINES[machine]}.elf"
    plugin, out = qc.plugin_args(elf, qc.machine(machine), tmp_path)
    res = run_qemu(elf, machine, 0, 300, extra=plugin,
                   append="--scenarios primitives --iterations 20 --markers")  # fmt: skip
    assert res.exit_status == 0, res.problem or res.stderr
    rows = cycles_check.compare(res.runs, qc.read_capture(out))
    by_series = {r.series: r for r in rows}
    assert set(by_series) >= PRIMITIVES
    for r in rows:
        assert r.agrees, r
        assert 0 < r.diff_min <= r.diff_max <= r.bound  # its timestamps lie outside the pulse
        assert r.external > 0


@pytest.mark.parametrize("machine", MACHINES)
def test_the_per_block_mode_counts_what_the_per_instruction_mode_counts(
    freertos_build: Path, machine: str, tmp_path: Path
) -> None:
    """On rtbench (context switches, interrupts, I/O accesses that QEMU runs alone after
    cutting their block): the same totals and marker edges per block as per instruction,
    and every counter read the per-block mode records (rtbench's timestamps) at the cycle
    the per-instruction mode records it."""
    elf = freertos_build / f"rtbench-freertos-{MACHINES[machine]}.elf"
    caps = []
    for exact in (False, True):
        plugin, out = qc.plugin_args(elf, qc.machine(machine), tmp_path / str(exact), exact=exact)
        res = run_qemu(elf, machine, 0, 300, extra=plugin,
                       append="--scenarios primitives,irq --iterations 20 --markers")  # fmt: skip
        assert res.exit_status == 0, res.problem or res.stderr
        caps.append(qc.read_capture(out))
    fast, exact_ = caps
    assert (fast.cycles, fast.insns, fast.entries, fast.returns) == (
        exact_.cycles, exact_.insns, exact_.entries, exact_.returns)  # fmt: skip
    assert fast.edges == exact_.edges
    reads = [c for ch, c in fast.order if ch == qc.READ]
    assert reads and set(reads) <= {c for ch, c in exact_.order if ch == qc.READ}


def test_interrupt_paths_agree_with_timestamps_before_both_toggles(
    freertos_build: Path, tmp_path: Path
) -> None:
    """The irq scenario's ends are `timestamp; toggle` on both sides (trigger, handler,
    task): internal - external may be negative, and stays within the bracket either way
    (each end's timestamp is the counter read nearest its edge)."""
    elf = freertos_build / "rtbench-freertos-an385.elf"
    plugin, out = qc.plugin_args(elf, qc.machine("mps2-an385"), tmp_path)
    res = run_qemu(elf, "mps2-an385", 0, 300, extra=plugin,
                   append="--scenarios irq --iterations 20 --markers")  # fmt: skip
    assert res.exit_status == 0, res.problem or res.stderr
    rows = {r.series: r for r in cycles_check.compare(res.runs, qc.read_capture(out))}
    assert {"isr_handler", "isr_task"} <= set(rows)
    assert rows["isr_handler"].diff_max < 0  # the handler's timestamp is further from its edge
    assert all(r.agrees and abs(r.diff_min) <= r.bound for r in rows.values())


def test_cycles_machine_restates_marked_paths_and_withholds_the_rest(freertos_build: Path) -> None:
    """Through CyclesQemuMachine (the target's `cycles = true`): each marked series is its
    marker pulses in cycles at the stand-in's clock, the run says what its figures are,
    and an unmarked run keeps no figure (its ticks are icount, not cycles)."""
    from rtlab.lab.qemu.cycles_output import WITHHELD, CyclesQemuMachine

    elf = freertos_build / "rtbench-freertos-an385.elf"
    device = CyclesQemuMachine("mps2-an385")
    res = device.run(elf, "--scenarios primitives --iterations 20 --markers", 300)
    (run,) = [r for r in res.runs if r.meta.get("scenario") == "primitives"]
    assert run.meta["timebase"] == "qemu_cycles" and run.meta["cycles_model"] == qc.LABEL
    assert run.meta["cycles_core"] == "Cortex-M3" and run.meta["cpu_hz"] == "8000000"
    give = run.series["sem_give"]
    assert give.tick_s == Fraction(1, 8_000_000)
    assert "overhead" not in run.series and "gpio_set" not in run.series  # icount ticks
    internal = int(run.meta["cycles_internal.sem_give"])
    bracket = int(run.meta["cycles_bracket"])
    assert 0 < internal - int(np.median(give.values)) <= bracket

    plain = device.run(elf, "--scenarios primitives --iterations 20", 300)
    (unmarked,) = [r for r in plain.runs if r.meta.get("scenario") == "primitives"]
    assert not unmarked.series and unmarked.meta.get("withheld") == WITHHELD
