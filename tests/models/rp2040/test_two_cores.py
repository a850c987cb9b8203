"""Both cores of rtlab's RP2040 model (issue 32), with the project's bare-metal program
(workloads/rtbench/boards/rp2040/bare/smp.c; no kernel, no SDK): core 1 launched through
the ROM's FIFO handshake, a FIFO ping-pong timed in cycles, a spinlock contended by both
cores (counts exact), SEV waking a WFE on the other core, interrupts routed to core 1 only;
two runs bit-identical."""

from __future__ import annotations

import pytest

from rtlab.protocol.parser import parse_one
from tests.models.rp2040 import model

LOCK_TURNS = 1000  # smp.c
WFE_DELAY = 5000


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[model.ModelRun, model.ModelRun]:
    model.build()
    tmp = tmp_path_factory.mktemp("smp")
    return model.run(model.bare_image("smp"), tmp), model.run(model.bare_image("smp"), tmp)


@pytest.fixture(scope="module")
def counters(runs: tuple[model.ModelRun, model.ModelRun]) -> dict[str, int]:
    res = runs[0]
    assert res.returncode == 0, res.stderr
    assert res.stdout.endswith(b"rtbench: done errors=0\n")
    run = parse_one(res.stdout, "smp")
    assert run.complete and run.status == "ok"
    return {k: v for k, (v, _unit) in run.counters.items()}


def test_core1_launched_through_the_rom_handshake(
    counters: dict[str, int], runs: tuple[model.ModelRun, model.ModelRun]
) -> None:
    assert counters["core1_launched"] == 1
    summary = runs[0].summary
    assert summary["core1_resets"] == 1  # the PSM's FRCE_OFF.PROC1, set and cleared
    assert summary["core1_instructions"] > 10_000  # core 1 ran the checks' other half


def test_fifo_ping_pong_round_trip(counters: dict[str, int]) -> None:
    # warm round trips all cost the same (deterministic model, code in the XIP cache);
    # a push, a wake from WFE, a pop and back cannot take less than ~20 instructions
    assert counters["fifo_rtt_min"] == counters["fifo_rtt_max"]
    assert 20 <= counters["fifo_rtt_min"] <= 100


def test_contended_spinlock_counts_exact(counters: dict[str, int]) -> None:
    assert counters["lock_count"] == 2 * LOCK_TURNS
    # both cores did wait for the lock: the cores really interleave
    assert counters["lock_spins_core0"] > 0 and counters["lock_spins_core1"] > 0
    # without the lock, read-modify-write from both cores loses updates
    assert counters["nolock_count"] < 2 * LOCK_TURNS


def test_sev_wakes_wfe_on_the_other_core(counters: dict[str, int]) -> None:
    assert counters["wfe_wakes"] == 1  # asleep until core 0's SEV, then awake once
    assert counters["wfe_slept"] >= WFE_DELAY


def test_interrupts_routed_to_core_1_only(counters: dict[str, int]) -> None:
    assert (counters["irq_core0_timer"], counters["irq_core1_timer"]) == (0, 1)
    assert (counters["irq_core0_io"], counters["irq_core1_io"]) == (0, 1)


def test_two_runs_bit_identical(runs: tuple[model.ModelRun, model.ModelRun]) -> None:
    first, second = runs
    assert first.stdout == second.stdout
    assert first.summary["cycles"] == second.summary["cycles"]
    assert first.summary["instructions"] == second.summary["instructions"]
