"""Both cores of rtlab's RP2040 model, with the project's bare-metal program
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
BANK_TURNS = 1000  # each: two LDMs of 4 words of SRAM4, 14 cycles alone


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
    # a push, a wake from WFE, a pop and back cannot take less than ~20 instructions
    assert 20 <= counters["fifo_rtt_min"] <= 100
    # warm round trips cost the same (deterministic model, code in the XIP cache) but the
    # last: core 1 leaves the echo loop for code not yet cached, and its miss holds the
    # XIP slave (one line through the SSI, 388 cycles with the bare images' boot2) while
    # core 0, still timing, fetches its own cached code from it
    assert counters["fifo_rtt_max"] == counters["fifo_rtt_min"] + 388


def test_contended_spinlock_counts_exact(counters: dict[str, int]) -> None:
    assert counters["lock_count"] == 2 * LOCK_TURNS
    # both cores did wait for the lock: the cores really interleave
    assert counters["lock_spins_core0"] > 0 and counters["lock_spins_core1"] > 0
    # without the lock, read-modify-write from both cores loses updates
    assert counters["nolock_count"] < 2 * LOCK_TURNS


def test_sev_wakes_wfe_on_the_other_core(counters: dict[str, int]) -> None:
    assert counters["wfe_wakes"] == 1  # asleep until core 0's SEV, then awake once
    assert counters["wfe_slept"] >= WFE_DELAY


def test_same_sram_bank_contended(counters: dict[str, int]) -> None:
    """The bus fabric (models/rp2040/src/bus.js): one access per bank per cycle. Core 1
    on another bank (SRAM5) costs core 0 only the fetches of the loop's shared SRAM code
    it loses in turn before the two fall out of step; on the same bank (SRAM4), the two
    cores need 16 bank cycles per 14-cycle turn, so core 0 waits at least 2 per turn."""
    alone, same, other = counters["bank_alone"], counters["bank_same"], counters["bank_other"]
    assert counters["bank_turns"] == BANK_TURNS
    assert 14 * BANK_TURNS <= alone < 14 * BANK_TURNS + 100  # + the timer reads and call
    assert alone <= other <= alone + 4
    assert alone + 2 * BANK_TURNS <= same <= alone + 8 * BANK_TURNS


def test_interrupts_routed_to_core_1_only(counters: dict[str, int]) -> None:
    assert (counters["irq_core0_timer"], counters["irq_core1_timer"]) == (0, 1)
    assert (counters["irq_core0_io"], counters["irq_core1_io"]) == (0, 1)


def test_two_runs_bit_identical(runs: tuple[model.ModelRun, model.ModelRun]) -> None:
    first, second = runs
    assert first.stdout == second.stdout
    assert first.summary["cycles"] == second.summary["cycles"]
    assert first.summary["instructions"] == second.summary["instructions"]
