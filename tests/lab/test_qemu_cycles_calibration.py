"""The QEMU cycles plugin against the TRM tables: one bare-metal image per core
(plugins/qemu-cycles/calibration) brackets each timed sequence with marker stores, and
each sequence's cycles (its bracket's minus the empty bracket's) must be the figure typed
in here from Arm's Technical Reference Manual, the table row cited beside it. These
figures are typed in independently of the plugin's tables (plugins/qemu-cycles/cores):
a wrong table entry, a misdecoded instruction or a missed branch fails here.

P (M3/M4/M33 refill) = 1, +1 for a 32-bit target on a halfword boundary, +1 for a target
known only at run time ("1 to 3 depending on the alignment and width of the target
instruction, and whether the processor manages to speculate the address early").
Exception return (10 beyond the returning BX) is no TRM figure: the RP2040 model's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.lab.qemu import cycles as qc
from tests.needs import missing_tool

# The order of seq.S's cal_sequences: ARMv6-M on every core, then ARMv7-M / v8-M only.
V6M = [
    "alu8",
    "muls4",
    "ldr4",
    "ldr_dependent2",
    "str4",
    "ldm1",
    "ldm4",
    "ldm8",
    "push_pop3",
    "b_taken",
    "bcc_taken",
    "bcc_not_taken",
    "bl_bx",
    "exception",
    "tail_chain",
]
V7M = ["udiv2", "umull2", "mla2", "ldrd1", "b_wide_unaligned"]

# Cortex-M0+, ARM DDI 0484C Table 3-1 (3.3) and 3.6.1.
M0PLUS = {
    "alu8": 8 * 1,  # ADDS Rd, Rd, #imm: 1
    "muls4": 4 * 1,  # MULS: 1 (single-cycle multiplier)
    "ldr4": 4 * 2,  # LDR Rt, [Rn, #imm]: 2 (no pipelining on the M0+)
    "ldr_dependent2": 2 * 2,  # LDR: 2
    "str4": 4 * 2,  # STR Rt, [Rn, #imm]: 2
    "ldm1": 1 + 1,  # LDM: 1+N
    "ldm4": 1 + 4,  # LDM: 1+N
    "ldm8": 1 + 8,  # LDM: 1+N
    "push_pop3": (1 + 3) + (1 + 3),  # PUSH: 1+N; POP: 1+N
    "b_taken": 2,  # B: 2
    "bcc_taken": 1 + 2,  # CMP: 1; B<cc> taken: 2
    "bcc_not_taken": 1 + 1 + 1,  # CMP: 1; B<cc> not taken: 1; NOP: 1
    "bl_bx": 3 + 2,  # BL: 3; BX: 2
    # STR (set-pending) 2; entry 15 (3.6.1 worst-case latency); handler's BX 2; return 10
    "exception": 2 + 15 + 2 + 10,
    # as above; the second handler: return + entry (DDI 0484C gives no tail-chain figure)
    "tail_chain": 2 + 15 + 2 + (10 + 15) + 2 + 10,
}

# Cortex-M3, ARM DDI 0337 Table 18-1 (r1p1; r2p x: Table 3-1) and 5.5.1.
M3 = {
    "alu8": 8 * 1,  # ADD Rd, Rn, #imm: 1
    "muls4": 4 * 1,  # MUL: 1
    "ldr4": 2 + 1 + 1 + 1,  # LDR: 2; neighbouring loads pipeline: 1 each after the first
    "ldr_dependent2": 2 + 2,  # LDR: 2; no pipelining when the base is the previous load's result
    "str4": 2 + 1 + 1 + 1,  # STR: 2; neighbouring stores pipeline: 1
    "ldm1": 1 + 1,  # LDM: 1+N
    "ldm4": 1 + 4,  # LDM: 1+N
    "ldm8": 1 + 8,  # LDM: 1+N
    "push_pop3": (1 + 3) + (1 + 3),  # PUSH: 1+N; POP: 1+N
    "b_taken": 1 + 1,  # B: 1+P, P = 1 (16-bit target)
    "bcc_taken": 1 + (1 + 1),  # CMP: 1; B<cc> taken: 1+P
    "bcc_not_taken": 1 + 1 + 1,  # CMP: 1; B<cc> not taken: 1; NOP: 1
    "bl_bx": (1 + 1) + (1 + 2),  # BL: 1+P (P 1); BX: 1+P (P 2: register target)
    # STR 2; entry 12 (5.5.1); BX 1+P (P 2); return 10
    "exception": 2 + 12 + 3 + 10,
    # STR 2; entry 12; BX 3; tail-chaining 6 (5.5.1); BX 3; return 10
    "tail_chain": 2 + 12 + 3 + 6 + 3 + 10,
    "udiv2": 2 * 12,  # UDIV: 2-12, charged 12 (no register values: the worst case)
    "umull2": 2 * 5,  # UMULL: 3-5, charged 5 (as above)
    "mla2": 2 * 2,  # MLA: 2
    "ldrd1": 1 + 2,  # LDRD: 1+N, N = 2
    # B 1+P (P 2: 32-bit target on a halfword boundary); ADD.W 1; B 1+P (P 1)
    "b_wide_unaligned": (1 + 2) + 1 + (1 + 1),
}

# Cortex-M4F, ARM DDI 0439 Table 3-1 (3.3.1): the M3's rows but the multiplier's.
M4F = {
    **M3,
    "umull2": 2 * 1,  # UMULL: 1
    "mla2": 2 * 1,  # MLA: 1
}

# Cortex-M33: DDI 0553 has no instruction table: the M4's rows (the approximation the
# plugin states), divide 2-11 charged 11.
M33 = {**M4F, "udiv2": 2 * 11}

# Cortex-M7 (DDI 0489): no table; the plugin's stated approximation, checked as stated:
# single issue, every access a hit (LDR/STR 1, no pipelining gain), B 1 + refill 1,
# register targets 2 more, no alignment cost, entry 12 and tail-chaining 6.
M7 = {
    **M4F,
    "ldr4": 4 * 1,
    "ldr_dependent2": 2 * 1,
    "str4": 4 * 1,
    "bl_bx": (1 + 1) + (1 + 1 + 2),
    "exception": 1 + 12 + 4 + 10,
    "tail_chain": 1 + 12 + 4 + 6 + 4 + 10,
    "ldrd1": 2,
    "b_wide_unaligned": (1 + 1) + 1 + (1 + 1),
}

CORES = {
    "microbit": (M0PLUS, V6M),
    "mps2-an385": (M3, V6M + V7M),
    "mps2-an386": (M4F, V6M + V7M),
    "mps2-an500": (M7, V6M + V7M),
    "mps2-an505": (M33, V6M + V7M),
}


@pytest.fixture(scope="module")
def calibration_build() -> Path:
    missing_tool("deps/apt.txt", "cmake", "arm-none-eabi-gcc", "qemu-system-arm")
    why = qc.plugin_missing()
    if why:
        pytest.fail(f"{why}; run `make test`, which runs setup first", pytrace=False)
    return qc.build_calibration()


@pytest.mark.parametrize("machine", CORES)
def test_each_sequence_costs_its_trm_cycles(
    calibration_build: Path, machine: str, tmp_path: Path
) -> None:
    expected, names = CORES[machine]
    cyc = qc.run_image(calibration_build / f"calib-{machine}.elf", machine, tmp_path)
    brackets = qc.bracket_cycles(cyc)
    assert len(brackets) == 1 + len(names), "seq.S's sequences and the test's names differ"
    got = {n: b - brackets[0] for n, b in zip(names, brackets[1:], strict=True)}
    assert got == {n: expected[n] for n in names}


def test_exceptions_are_seen_from_the_pc_stream(calibration_build: Path, tmp_path: Path) -> None:
    """Two entries (the single exception and the tail-chain's first), one tail-chain,
    two returns: what seq.S raises, found without an exception callback."""
    cyc = qc.run_image(calibration_build / "calib-mps2-an385.elf", "mps2-an385", tmp_path)
    assert (cyc.entries, cyc.tail_chains, cyc.returns) == (2, 1, 2)


def test_the_trace_holds_every_instruction_at_the_cycle_it_starts(
    calibration_build: Path, tmp_path: Path
) -> None:
    """`trace=`: one record per counted instruction, cycles never going back, each
    marker edge's cycle one of the traced instructions' ends (the store's)."""
    trace = tmp_path / "calib.trace"
    cyc = qc.run_image(calibration_build / "calib-mps2-an385.elf", "mps2-an385", tmp_path,
                       trace=trace)  # fmt: skip
    pcs, cycles = qc.read_trace(trace)
    assert len(pcs) == cyc.insns and cycles[0] == 0
    assert cycles == sorted(cycles)
    assert cycles[-1] < cyc.cycles
    assert set(cyc.edges[0]) <= set(cycles)  # an edge is charged with its store, as it ends


@pytest.mark.parametrize("machine", CORES)
def test_the_per_block_mode_counts_what_the_per_instruction_mode_counts(
    calibration_build: Path, machine: str, tmp_path: Path
) -> None:
    """The default mode charges each translation block once; `mode=exact` calls back per
    instruction: every total and every edge the same."""
    elf = calibration_build / f"calib-{machine}.elf"
    fast = qc.run_image(elf, machine, tmp_path / "fast")
    exact = qc.run_image(elf, machine, tmp_path / "exact", exact=True)
    assert (fast.cycles, fast.insns, fast.entries, fast.returns, fast.tail_chains) == (
        exact.cycles, exact.insns, exact.entries, exact.returns, exact.tail_chains)  # fmt: skip
    assert fast.edges == exact.edges and fast.edges


def test_every_core_table_names_its_source() -> None:
    for m in qc.machines().values():
        table = qc.core_table(m.core)
        assert table["name"] and table["source"].startswith("ARM DDI"), m.core
