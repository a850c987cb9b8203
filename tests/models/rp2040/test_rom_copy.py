"""The model's ROM copies and fills as the RP2040's boot ROM does (models/rp2040/rom/
rom_mem.S): memcpy 'MC', memcpy44 'C4', memset 'MS', memset4 'S4', called on the real model
(models/rp2040/test/rom_copy.js) for 4, 16, 64 and 256 bytes at each alignment. Each count
is the RP2040 ROM's instruction sequence (raspberrypi/pico-bootrom-rp2040, bootrom/
bootrom_misc.S, B2) priced by hand with the Cortex-M0+ TRM's table (ARM DDI 0484C,
Table 3.1, zero wait states), from the function's first instruction through its BX LR
(the caller's BL not counted). The rows used:

    MOV, ADDS, SUBS, CMP, LSLS, LSRS, UXTB, REV, ORRS, ADR, NOP   1
    LDRB, STRB, LDRH, STRH                                          2
    LDM, STM, PUSH, POP (no PC)                                     1 + N
    B                                                               2
    B<cond>                                                         2 taken, 1 not
    BX                                                              2

The ROM's paths, with n bytes (m left after the head, k = floor(m / 16) block turns,
r = m mod 16):

    entry, MC and MS     MOV ip, CMP #8, BLO                              1 + 1 + (1 | 2)
    short copy, n < 8    ADR, LSLS, SUBS, ADDS, BX r3 = 6; n x (LDRB + STRB) = 4n;
                         MOV r0, BX LR = 3                      MC 4:  2+2 + 6 + 16 + 3 = 29
    MC not co-aligned    SUBS, LSLS, BNE taken = 4; n bytes down (SUBS, LDRB, STRB,
                         BNE) = 7n - 1; MOV, BX = 3      MC n: 3 + 4 + 7n - 1 + 3 = 9 + 7n
    MC co-aligned head   SUBS, LSLS, BNE not = 3; PUSH {r4-r6} 4; SUBS, MOV = 2;
                         LSRS + (BCC taken 2 | BCC 1 + LDRB + STRB + ADDS = 6);
                         LSRS + (2 | 1 + LDRH + STRH + ADDS = 6); ADDS, SUBS, ADDS = 3
                         dest+0: 3+3+4+2 + 3 + 3 + 3 = 21; +1: 29; +2: 25; +3: 25
    C4 entry, n >= 8     MOV, CMP, BLO not, PUSH {r4-r6}, B = 1+1+1+4+2 = 9
    words (copy)         SUBS, BCC: m < 16: 1 + 2 = 3, else 1 + 1 + k x (LDM 5 + STM 5
                         + SUBS + BCS 2) - 1 = 13k + 1
    rest (copy)          LSLS + (BCC 2 | 1 + LDM 3 + STM 3), LSLS + (2 | 1 + LDM 2 +
                         STM 2): r's 8s and 4s bits: 3 | 8, 3 | 6;
                         then r mod 4 = 0: BEQ 2; 1: BEQ 1 + LSLS + BCC 2 + BEQ 1 + LDRB
                         + STRB = 9; 2: BEQ 1 + LSLS + BCC 1 + LDRH + STRH + BEQ 2 = 9;
                         3: ... + BEQ 1 + ADDS + ADDS + BEQ 1 + LDRB + STRB = 15
    end (copy)           POP {r4-r6} 4, MOV, BX = 7
    MS head, n >= 8      LSRS + (BCC 2 | 1 + STRB + ADDS = 4), UXTB, LSLS, ORRS, LSRS +
                         (2 | 1 + STRH + ADDS = 4), MOV, SUBS, ADDS
                         dest+0: 3 + 1+2 + 3 + 1+2 + 3 = 15; +1: 19; +2: 17; +3: 17
    S4 entry             MOV, UXTB, LSLS, ORRS, B = 6
    words (fill)         REV, ORRS, MOV, SUBS = 4, BCC: m < 16: 2, else 1 + PUSH {r4,r5}
                         3 + MOV + MOV + NOP (the ROM's loop alignment, run) + k x (STM 5
                         + SUBS + BCS 2) - 1 + POP 3 = 13 + 8k in all
    rest (fill)          LSLS + (2 | 1 + STM 3), LSLS + (2 | 1 + STM 2): 3 | 5, 3 | 4;
                         r mod 4 = 0: 2; 1: BEQ 1 + LSLS + BCC 2 + BEQ 1 + STRB = 7; 2: BEQ
                         1 + LSLS + BCC 1 + STRH + BEQ 2 = 7; 3: BEQ 1 + LSLS + BCC 1 +
                         STRH + BEQ 1 + ADDS + BEQ 1 + STRB = 10
    end (fill)           MOV, BX = 3;   MS short, n < 8: 2+2 + ADR, SUBS, SUBS, ADDS, BX
                         (6) + n x STRB + 3 = 13 + 2n
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.models.rp2040 import model

# case: cycles, as derived above (the sum in the comment)
EXPECTED = {
    # MC co-aligned: entry and head + words + rest + end 7 (n < 8: the short copy, 29)
    "MC 4 dest+0 src+0": 29,
    "MC 16 dest+0 src+0": 21 + 14 + 8 + 7,  # m 16: k 1; r 0: 3 + 3 + 2
    "MC 64 dest+0 src+0": 21 + 53 + 8 + 7,  # k 4
    "MC 256 dest+0 src+0": 21 + 209 + 8 + 7,  # k 16
    "MC 4 dest+1 src+1": 29,
    "MC 16 dest+1 src+1": 29 + 3 + 23 + 7,  # m 13: r 1101: 8 + 6 + 9
    "MC 64 dest+1 src+1": 29 + 40 + 23 + 7,  # m 61: k 3
    "MC 256 dest+1 src+1": 29 + 196 + 23 + 7,  # m 253: k 15
    "MC 4 dest+2 src+2": 29,
    "MC 16 dest+2 src+2": 25 + 3 + 23 + 7,  # m 14: r 1110: 8 + 6 + 9
    "MC 64 dest+2 src+2": 25 + 40 + 23 + 7,
    "MC 256 dest+2 src+2": 25 + 196 + 23 + 7,
    "MC 4 dest+3 src+3": 29,
    "MC 16 dest+3 src+3": 25 + 3 + 29 + 7,  # m 15: r 1111: 8 + 6 + 15
    "MC 64 dest+3 src+3": 25 + 40 + 29 + 7,
    "MC 256 dest+3 src+3": 25 + 196 + 29 + 7,
    # MC not co-aligned: byte by byte, 9 + 7n
    "MC 4 dest+1 src+0": 29,
    "MC 16 dest+1 src+0": 9 + 7 * 16,
    "MC 64 dest+1 src+0": 9 + 7 * 64,
    "MC 256 dest+1 src+0": 9 + 7 * 256,
    "MC 4 dest+2 src+0": 29,
    "MC 16 dest+2 src+0": 9 + 7 * 16,
    "MC 64 dest+2 src+0": 9 + 7 * 64,
    "MC 256 dest+2 src+0": 9 + 7 * 256,
    # C4: entry 9 + words + rest 8 + end 7 (n < 8: the short copy)
    "C4 4 dest+0 src+0": 29,
    "C4 16 dest+0 src+0": 9 + 14 + 8 + 7,
    "C4 64 dest+0 src+0": 9 + 53 + 8 + 7,
    "C4 256 dest+0 src+0": 9 + 209 + 8 + 7,
    # MS: head + words + rest + end 3 (n < 8: 13 + 2n)
    "MS 4 dest+0": 13 + 8,
    "MS 16 dest+0": 15 + 21 + 8 + 3,  # m 16: 13 + 8; r 0: 3 + 3 + 2
    "MS 64 dest+0": 15 + 45 + 8 + 3,  # k 4
    "MS 256 dest+0": 15 + 141 + 8 + 3,  # k 16
    "MS 4 dest+1": 13 + 8,
    "MS 16 dest+1": 19 + 6 + 16 + 3,  # m 13: words 4 + 2; r 1101: 5 + 4 + 7
    "MS 64 dest+1": 19 + 37 + 16 + 3,  # m 61: k 3
    "MS 256 dest+1": 19 + 133 + 16 + 3,  # m 253: k 15
    "MS 4 dest+2": 13 + 8,
    "MS 16 dest+2": 17 + 6 + 16 + 3,  # m 14: r 1110: 5 + 4 + 7
    "MS 64 dest+2": 17 + 37 + 16 + 3,
    "MS 256 dest+2": 17 + 133 + 16 + 3,
    "MS 4 dest+3": 13 + 8,
    "MS 16 dest+3": 17 + 6 + 19 + 3,  # m 15: r 1111: 5 + 4 + 10
    "MS 64 dest+3": 17 + 37 + 19 + 3,
    "MS 256 dest+3": 17 + 133 + 19 + 3,
    # S4: entry 6 + words + rest + end 3
    "S4 4 dest+0": 6 + 6 + 9 + 3,  # m 4: words 4 + 2; r 0100: 3 + 4 + 2
    "S4 16 dest+0": 6 + 21 + 8 + 3,
    "S4 64 dest+0": 6 + 45 + 8 + 3,
    "S4 256 dest+0": 6 + 141 + 8 + 3,
}


@pytest.fixture(scope="module")
def seen() -> dict[str, Any]:
    return model.script_result("rom_copy.js")


def test_each_copy_and_fill_writes_its_bytes_only(seen: dict[str, Any]) -> None:
    assert seen["wrong"] == []  # memset4 takes the low byte of c, as the ROM's UXTB does


def test_cycles_are_the_rp2040_roms_by_the_trm(seen: dict[str, Any]) -> None:
    assert set(seen["cycles"]) == set(EXPECTED)
    wrong = {k: (v, EXPECTED[k]) for k, v in seen["cycles"].items() if v != EXPECTED[k]}
    assert not wrong, wrong  # case: (model, TRM count of the RP2040 ROM's sequence)


def test_words_move_by_ldm_stm(seen: dict[str, Any]) -> None:
    """The block loop's cost per 16 bytes is the TRM's LDM + STM of four registers (5 + 5)
    and its SUBS and taken BCS (3): 13 a turn, against 7 a byte by byte."""
    c = seen["cycles"]
    assert c["MC 256 dest+0 src+0"] - c["MC 64 dest+0 src+0"] == 12 * 13
    assert c["MS 256 dest+0"] - c["MS 64 dest+0"] == 12 * 8  # one STM of 4 + SUBS + BCS
    assert c["MC 256 dest+1 src+0"] - c["MC 64 dest+1 src+0"] == 192 * 7
