"""SysTick (Armv6-M ARM B3.3) and the XIP cache register by register on the real model
(models/rp2040/test/registers.js drives its bus and clock; no image)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.models.rp2040 import model

FLUSH_CYCLES = 1025  # models/rp2040/src/xip.js: 1024 sets, one cycle each, and one


@pytest.fixture(scope="module")
def seen() -> dict[str, Any]:
    return model.script_result("registers.js")


def test_systick_counts_reloads_and_flags(seen: dict[str, Any]) -> None:
    assert seen["cvr_after_write"] == 0  # any write clears CVR
    assert seen["cvr_1_after_enable"] == 99  # the next clock loads RVR
    assert seen["cvr_at_zero"] == 0 and seen["pending_at_zero"] is True  # 1 -> 0: the event
    assert (seen["countflag_first_read"], seen["countflag_second_read"]) == (1, 0)
    assert seen["cvr_after_reload"] == 99  # period RVR + 1
    assert seen["cvr_5_periods_later"] == 99 and seen["pending_again"] is True
    assert seen["cvr_after_rvr_write"] == 99  # RVR changes the next reload only
    assert seen["cvr_next_period"] == 9
    # RVR = 0: the counter stays at 0, no event, no COUNTFLAG
    assert seen["reload0_cvr"] == 0 and seen["reload0_pending"] is False
    assert seen["reload0_countflag"] == 0
    # the RP2040's SYST_CALIB reads 0: no TENMS, SKEW or NOREF (datasheet 2.4.8, M0PLUS
    # SYST_CALIB, reset 0x00000000; rp2040js and the model before gave SKEW | 9999)
    assert seen["calib"] == 0


def test_xip_cache_hits_misses_aliases(seen: dict[str, Any]) -> None:
    miss = seen["miss_cycles"]
    assert miss > 0
    assert seen["first_read"] == miss and seen["same_line"] == 0 and seen["next_line"] == miss
    assert seen["after_flush"] == FLUSH_CYCLES + miss  # FLUSH empties the cache, in its time
    assert seen["noalloc_miss"] == miss and seen["noalloc_again"] == miss  # 0x11: no allocation
    assert seen["nocache"] == miss and seen["nocache_noalloc"] == miss  # 0x12/0x13: no lookup
    assert (seen["ctr_hit"], seen["ctr_acc"]) == (1, 6)  # lookups of 0x10/0x11 only
    assert seen["lru_kept"] == 0 and seen["lru_evicted"] == miss  # two ways, LRU
    assert seen["ctrl_en"] == 0 and seen["disabled_read"] == miss
    assert seen["xip_sram"] == 0xDEADBEEF  # cache-as-SRAM at 0x15000000


def test_flush_takes_its_cycles_and_stalls_every_master(seen: dict[str, Any]) -> None:
    """RP2040 datasheet 2.6.3.2: the flush zeroes the tag memory with a counter, "just over
    1024 clock cycles"; "any master accessing flash data while the flush is in progress
    will be stalled until completion"; reading FLUSH holds the bus until it is done and
    STAT.FLUSH_READY reads 0 meanwhile (XIP_CTRL register descriptions)."""
    miss = seen["miss_cycles"]
    assert 1024 < FLUSH_CYCLES <= 1030
    assert (seen["flush_stat_during"], seen["flush_stat_after"]) == (0, 1)
    assert seen["flush_read_waits"] == FLUSH_CYCLES  # the read returns when it is done
    assert seen["flush_read_after"] == 0
    # core 0 touches the flash 100 cycles in, core 1 10 cycles in: both wait, then miss
    assert seen["flash_read_100_into_flush"] == FLUSH_CYCLES - 100 + miss
    assert seen["core1_read_10_into_flush"] == FLUSH_CYCLES - 10 + miss


def test_miss_cost_follows_boot2s_ssi_setup(seen: dict[str, Any]) -> None:
    # quad I/O continuous read (the SDK's boot2_w25q080), SCK = clk_sys / 2: 32 address
    # and mode bits on 4 lines (8), 4 wait, 64 data bits (16) = 28 SCK x 2 + 4 overhead
    assert seen["quad_miss_cycles"] == 28 * 2 + 4
    # no SSI setup yet: 64 data bits on one line at the ROM's SCK = clk_sys / 4, + 4
    assert seen["miss_cycles"] == 64 * 4 + 4


def test_flash_and_rom_are_read_only(seen: dict[str, Any]) -> None:
    assert seen["flash_write_dropped"] == 1
    assert seen["rom_magic"] == 0x0301754D  # 'M' 'u' 0x01, version 3


def test_pads_reset_as_silicon(seen: dict[str, Any]) -> None:
    # input enabled, 4 mA, pull-down, Schmitt (rp2040js 1.4.1: 0x36, input disabled)
    assert seen["pad_gpio5_reset"] == 0x56


def test_nvic_pending_bits(seen: dict[str, Any]) -> None:
    # an interrupt pended by software runs once (rp2040js kept lines 0..25 pending until
    # their peripheral dropped them: a handler pended through ISPR re-entered forever)
    assert seen["nvic_taken"] is True and seen["nvic_ipsr"] == 16 + 7
    assert seen["nvic_pending_after_entry"] == 0
    assert seen["nvic_pending_after_icpr"] == 0  # ICPR clears a hardware line's bit too


def test_sio_per_core(seen: dict[str, Any]) -> None:
    """The SIO seen from each core (RP2040 datasheet 2.3.1): CPUID, the FIFOs, the
    divider, the spinlocks; NVIC and VTOR per core; IO_IRQ_BANK0 per core."""
    assert seen["cpuid"] == [0, 1]
    assert seen["fifo_st_empty"] == [0b10, 0b10]  # RDY, nothing valid
    assert seen["fifo_st_after_write"] == [0b10, 0b11]  # core 1: VLD
    assert seen["sio_irq_pending"] == [0, 0b10]  # SIO_IRQ_PROC1, core 1's NVIC only
    assert seen["fifo_rd_core1"] == 0xCAFE
    assert seen["fifo_rd_empty"] == 0 and seen["fifo_st_roe"] == 0b1010  # ROE, sticky
    assert seen["fifo_st_cleared"] == 0b10
    assert seen["fifo_st_full"] == 0b100  # not RDY; WOF: the ninth word dropped
    assert seen["fifo_depth_words"] == [*range(8), 0]  # eight deep
    assert seen["quotient"] == [14, 10]  # one divider per core
    assert seen["lock_claim"] == [1 << 5, 0, 1 << 5]  # shared: core 1 waits for core 0
    assert seen["lock_st"] == 1 << 5
    assert seen["vtor"] == [0, 0x20000100] and seen["iser"] == [0, 1]
    assert seen["io_irq"] == [0, 1] and seen["proc1_ints"] == 1 << 2
