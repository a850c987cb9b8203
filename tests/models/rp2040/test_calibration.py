"""The cycle model, checked: the calibration program's sequences (workloads/rtbench/boards/
rp2040/bare/calib_seq.S) timed by SysTick on the model, per instruction class, against the
Cortex-M0+ TRM's table (ARM DDI 0484C, 3.3 "Instruction set summary", zero wait states;
3.6.1: exception entry 15 cycles) and against rp2040js's own counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.protocol.parser import parse_one
from tests.models.rp2040 import model

# class: (instances in the sequence, TRM cycles of one instance, what one instance is)
TRM: dict[str, tuple[int, int | None, str]] = {
    "nop": (8, 1, "NOP"),
    "ldr_sram": (8, 2, "LDR from SRAM"),
    "str_sram": (8, 2, "STR to SRAM"),
    "ldr_sio": (8, 1, "LDR from SIO (single-cycle I/O port)"),
    "b": (8, 2, "B"),
    "bcond_taken": (8, 2, "B<cond>, taken"),
    "bcond_not_taken": (8, 1, "B<cond>, not taken"),
    "bl_bx": (8, 3 + 2, "BL + BX LR"),
    "ldm1": (8, 1 + 2, "MOV + LDM of 1 register (1+N)"),
    "ldm4": (8, 1 + 5, "MOV + LDM of 4 registers (1+N)"),
    "stm4": (8, 1 + 5, "MOV + STM of 4 registers (1+N)"),
    "push4_pop4": (8, 5 + 5, "PUSH {r0-r3} + POP {r0-r3} (1+N each)"),
    "call_push_lr_pop_pc": (8, 3 + 3 + 5, "BL + PUSH {r4, LR} (1+N) + POP {r4, PC} (3+N)"),
    "muls": (8, 1, "MULS (the RP2040's single-cycle multiplier)"),
    "mrs_msr": (4, 3 + 3, "MRS + MSR"),
    "barriers": (4, 3 + 3 + 3, "DSB + DMB + ISB"),
    "exception_entry": (1, 15, "exception entry, to the handler's first instruction"),
    "exception_return": (1, None, "exception return beyond the BX LR (no TRM figure)"),
}
MODEL_RETURN = 10  # models/rp2040/src/core.js EXCEPTION_RETURN_CYCLES


def _counters(tmp: Path, *args: str) -> dict[str, int]:
    res = model.run(model.bare_image("calib"), tmp, *args)
    assert res.returncode == 0, res.stderr
    run = parse_one(res.stdout, "calib")
    assert run.complete and run.status == "ok"
    return {k: v for k, (v, _unit) in run.counters.items()}


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, int], dict[str, int]]:
    model.build()
    tmp = tmp_path_factory.mktemp("calib")
    return _counters(tmp), _counters(tmp, "--rp2040js-cycles")


def test_each_class_against_the_trm(figures: tuple[dict[str, int], dict[str, int]]) -> None:
    ours, stock = figures
    assert ours["timer_read"] == 2  # one LDR from the PPB
    print(f"\n{'class':<22} {'TRM':>5} {'model':>6} {'rp2040js':>9}  instance")
    wrong = []
    for name, (n, trm, what) in TRM.items():
        per, raw = ours[name] / n, stock[name] / n
        print(f"{name:<22} {trm if trm is not None else '-':>5} {per:>6g} {raw:>9g}  {what}")
        want = trm if trm is not None else MODEL_RETURN
        if per != want:
            wrong.append(f"{name}: model {per}, TRM {want}")
    assert not wrong, wrong


def test_rp2040js_differs_where_the_model_corrects_it(
    figures: tuple[dict[str, int], dict[str, int]],
) -> None:
    ours, stock = figures
    differ = {k for k in TRM if ours[k] != stock[k]}
    assert differ == {"call_push_lr_pop_pc", "exception_entry", "exception_return"}
    assert ours["call_push_lr_pop_pc"] - stock["call_push_lr_pop_pc"] == 8 * 2  # LR, PC
    assert stock["exception_entry"] == 0 and stock["exception_return"] == 0
