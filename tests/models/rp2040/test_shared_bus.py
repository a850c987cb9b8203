"""What the RP2040's two cores share, on the model, against the datasheet's statements:
the bus fabric's arbiters (2.1.1.1, "Bus Priority") and the one XIP slave and SSI in
front of the flash (2.6.3). Both cores run models/rp2040/test/shared_bus.S from SRAM
(models/rp2040/test/shared_bus.js drives the real model; no image, no kernel)."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from tests.models.rp2040 import model

TEST_DIR = model.MODEL / "test"
ALONE = 9 * 1000 + 1  # 1000 turns of LDM (1+4) + SUBS + SUBS + BNE (2), the last BNE not taken


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    model.build()
    tmp = tmp_path_factory.mktemp("shared_bus")
    elf, raw = tmp / "shared_bus.elf", tmp / "shared_bus.bin"
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m0plus", "-nostdlib", "-Wl,-e,0",
                    "-Wl,-Ttext=0x20000000", "-o", str(elf), str(TEST_DIR / "shared_bus.S")],
                   check=True)  # fmt: skip
    subprocess.run(["arm-none-eabi-objcopy", "-O", "binary", str(elf), str(raw)], check=True)
    return model.script_result("shared_bus.js", str(raw))


def _cycles(seen: dict[str, Any], case: str) -> list[int]:
    return list(seen[case]["cycles"])


def test_equal_priorities_take_turns(seen: dict[str, Any]) -> None:
    """2.1.1.1: "If multiple masters of the same priority level attempt to access the same
    slave simultaneously, a round robin tie break is applied, i.e. the arbiter grants
    access to each master in turn." Two identical loops on one SRAM bank, from the same
    cycle: every turn ties, and the two cores share the waits (the model's fixed order of
    before gave them all to core 1)."""
    assert _cycles(seen, "bank_alone")[0] == ALONE
    for case in ("bank_core0-first", "bank_core1-first"):
        c0, c1 = _cycles(seen, case)
        s0, s1 = seen[case]["stalls"]
        assert seen[case]["ties"] >= 1000  # the loops met on the bank every turn
        assert s0 > 1000 and s1 > 1000 and abs(s0 - s1) <= 1  # in turn: equal shares
        assert abs(c0 - c1) <= 1 and c0 > ALONE
    # the first tie goes to the core the option names: it finishes a cycle earlier
    assert _cycles(seen, "bank_core0-first")[0] < _cycles(seen, "bank_core0-first")[1]
    assert _cycles(seen, "bank_core1-first")[1] < _cycles(seen, "bank_core1-first")[0]


def test_fixed_ties_bound_the_turns(seen: dict[str, Any]) -> None:
    """core0-always / core1-always (not silicon: a bound): the favoured core never waits;
    the other falls out of step after its first waits and runs in the gaps."""
    assert _cycles(seen, "bank_core0-always")[0] == ALONE
    assert _cycles(seen, "bank_core1-always")[1] == ALONE
    assert seen["bank_core0-always"]["stalls"][0] == 0
    assert seen["bank_core1-always"]["stalls"][1] == 0
    assert seen["bank_core0-always"]["stalls"][1] > 0


def test_bus_priority_is_honoured(seen: dict[str, Any]) -> None:
    """2.1.1.1: "When accessing a slave with zero wait states, such as SRAM [...],
    high-priority masters will never observe any slowdown or other timing effects caused
    by accesses from low-priority masters." BUS_PRIORITY.PROC1 (or PROC0) set: that core
    runs as if alone, whichever core the ties option favours."""
    high1, high0 = _cycles(seen, "bank_proc1_high"), _cycles(seen, "bank_proc0_high")
    assert high1[1] == ALONE and seen["bank_proc1_high"]["stalls"][1] == 0
    assert high0[0] == ALONE and seen["bank_proc0_high"]["stalls"][0] == 0
    assert high1[0] > ALONE and high0[1] > ALONE


def test_one_ssi_serves_the_misses_in_turn(seen: dict[str, Any]) -> None:
    """2.6.3: every XIP access comes through one AHB-Lite slave, and a miss ("an external
    serial access is generated via the SSI") is served by the one SSI: two cores reading
    the flash past the cache (the 0x13 alias) take twice as long together as alone."""
    miss, turns = seen["flash_alone"]["miss_cycles"], seen["flash_turns"]
    alone = _cycles(seen, "flash_alone")[0]
    assert alone == turns * (miss + 5) + 1  # LDR (2) + SUBS + BNE (2) + the miss, a turn
    both = _cycles(seen, "flash_both")
    assert seen["flash_both"]["misses"] == 2 * turns
    assert max(both) >= 2 * turns * miss  # the transfers never overlap
    # each core waits out the other's transfers, less the 5 cycles of its own loop that
    # run meanwhile
    assert min(both) >= alone + (turns - 1) * (miss - 5)
