'use strict';
// The model's SysTick (Armv6-M ARM B3.3) and XIP cache/XIP_CTRL checked register by
// register on the real model (no image: the test drives the bus and the clock itself).
// Prints one JSON object of named observations; tests/models/rp2040/test_registers.py
// asserts them.
const fs = require('fs');
const path = require('path');
const { ModelRP2040 } = require('../src/machine');

const rom = fs.readFileSync(path.join(__dirname, '..', 'rom', 'build', 'rp2040-rom.bin'));
const mcu = new ModelRP2040({ rom });
const { core } = mcu;
const CSR = 0xe000e010;
const RVR = 0xe000e014;
const CVR = 0xe000e018;
const out = {};

/** Advance the core and its clock by n cycles (as the run loop does). */
function advance(n) {
  core.cycles += n;
  const delta = core.cycles - mcu.clockCycles;
  mcu.clockCycles = core.cycles;
  mcu.clock.tick(delta * (1e9 / mcu.clkSys));
}

// SysTick: RVR 99, CVR cleared, enabled on the processor clock with TICKINT.
mcu.writeUint32(RVR, 99);
mcu.writeUint32(CVR, 12345);
out.cvr_after_write = mcu.readUint32(CVR);
mcu.writeUint32(CSR, 7);
advance(1);
out.cvr_1_after_enable = mcu.readUint32(CVR); // the reload
advance(99);
out.cvr_at_zero = mcu.readUint32(CVR);
out.pending_at_zero = core.pendingSystick;
out.countflag_first_read = (mcu.readUint32(CSR) >>> 16) & 1;
out.countflag_second_read = (mcu.readUint32(CSR) >>> 16) & 1;
advance(1);
out.cvr_after_reload = mcu.readUint32(CVR);
core.pendingSystick = false;
advance(100 * 5);
out.cvr_5_periods_later = mcu.readUint32(CVR);
out.pending_again = core.pendingSystick;
mcu.writeUint32(RVR, 9); // the next reload only
out.cvr_after_rvr_write = mcu.readUint32(CVR);
advance(100);
out.cvr_next_period = mcu.readUint32(CVR); // 99 -> 0 in 99 cycles, reload 9, 0 more
mcu.writeUint32(CVR, 0);
mcu.writeUint32(RVR, 0);
core.pendingSystick = false;
mcu.readUint32(CSR);
advance(1000);
out.reload0_cvr = mcu.readUint32(CVR);
out.reload0_pending = core.pendingSystick;
out.reload0_countflag = (mcu.readUint32(CSR) >>> 16) & 1;
out.calib = mcu.readUint32(0xe000e01c);

// XIP: a miss costs the SSI's line transfer; a hit nothing; flush empties it; aliases.
const cost = (addr) => {
  const c0 = core.cycles;
  mcu.readUint32(addr);
  return core.cycles - c0;
};
out.miss_cycles = mcu.xip.missCycles();
out.first_read = cost(0x10001000);
out.same_line = cost(0x10001004);
out.next_line = cost(0x10001008);
mcu.writeUint32(0x14000004, 1); // FLUSH
out.after_flush = cost(0x10001000);
out.noalloc_miss = cost(0x11002000);
out.noalloc_again = cost(0x11002000);
out.nocache = cost(0x12001000);
out.nocache_noalloc = cost(0x13001000);
out.ctr_hit = mcu.readUint32(0x1400000c);
out.ctr_acc = mcu.readUint32(0x14000010);
// three lines of one set (8 KiB apart): two ways, least recently used replaced
cost(0x10100000);
cost(0x10102000);
cost(0x10100000);
cost(0x10104000); // evicts 0x10102000
out.lru_kept = cost(0x10100000);
out.lru_evicted = cost(0x10102000);
// CTRL.EN off: every access goes to the flash; 0x15000000 is SRAM
mcu.writeUint32(0x14003000, 1); // clear EN through the atomic alias
out.ctrl_en = mcu.readUint32(0x14000000) & 1;
out.disabled_read = cost(0x10001000);
mcu.writeUint32(0x15000010, 0xdeadbeef);
out.xip_sram = mcu.readUint32(0x15000010) >>> 0;
// FLUSH (datasheet 2.6.3.2): "just over 1024 clock cycles"; a read of FLUSH holds the
// bus until it is done, STAT.FLUSH_READY reads 0 meanwhile, and "any master accessing
// flash data while the flush is in progress will be stalled until completion"
mcu.writeUint32(0x14002000, 1); // EN set again
mcu.writeUint32(0x14000004, 1);
out.flush_stat_during = mcu.readUint32(0x14000008) & 1;
out.flush_read_waits = cost(0x14000004);
out.flush_stat_after = mcu.readUint32(0x14000008) & 1;
out.flush_read_after = cost(0x14000004);
mcu.writeUint32(0x14000004, 1);
core.cycles += 100;
out.flash_read_100_into_flush = cost(0x10003000); // the rest of the flush, then its miss
mcu.writeUint32(0x14000004, 1);
{
  const other = mcu.cores[1];
  other.cycles = core.cycles + 10;
  mcu.select(1);
  const c = other.cycles;
  mcu.readUint32(0x10003000);
  out.core1_read_10_into_flush = other.cycles - c;
  mcu.select(0);
}
// a boot2 in quad continuous-read mode at SCK = clk_sys / 2 (the SDK's boot2_w25q080)
const ssi = mcu.peripherals[0x18000];
ssi.crtlr0 = (2 << 21) | (31 << 16) | (3 << 8);
ssi.spictlr0 = (0xa0 << 24) | (4 << 11) | (0 << 8) | (8 << 2) | 2;
ssi.baudr = 2;
out.quad_miss_cycles = mcu.xip.missCycles();
// flash writes through an XIP alias are dropped; the ROM is read-only
mcu.writeUint32(0x10000000, 0);
out.flash_write_dropped = mcu.flash[0] === 0xff ? 1 : 0;
mcu.writeUint32(0x10, 0);
out.rom_magic = mcu.readUint32(0x10) >>> 0;
out.pad_gpio5_reset = mcu.readUint32(0x4001c000 + 4 + 4 * 5);

// NVIC: a line pended by software (ISPR) is taken once; ICPR clears any line's pending bit
core.SP = 0x20001000;
mcu.writeUint32(0xe000e100, 1 << 7); // ISER: PIO0_IRQ0, which no PIO drives here
mcu.writeUint32(0xe000e200, 1 << 7); // ISPR
out.nvic_taken = core.checkForInterrupts();
out.nvic_pending_after_entry = (mcu.readUint32(0xe000e200) >>> 7) & 1;
out.nvic_ipsr = core.IPSR;
mcu.writeUint32(0xe000e200, 1 << 3); // ISPR: TIMER_3
mcu.writeUint32(0xe000e280, 1 << 3); // ICPR
out.nvic_pending_after_icpr = (mcu.readUint32(0xe000e200) >>> 3) & 1;
// The SIO seen from each core (mcu.select(i): accesses are core i's)
const SIO = 0xd0000000;
const st = (c) => {
  mcu.select(c);
  return mcu.readUint32(SIO + 0x50);
};
mcu.select(0);
out.cpuid = [0, 1].map((c) => {
  mcu.select(c);
  return mcu.readUint32(SIO);
});
mcu.select(0);
out.fifo_st_empty = [st(0), st(1)];
mcu.select(0);
mcu.writeUint32(SIO + 0x54, 0xcafe);
out.fifo_st_after_write = [st(0), st(1)]; // core 1: VLD; core 0: still RDY
out.sio_irq_pending = [(mcu.cores[0].pendingInterrupts >>> 15) & 3, (mcu.cores[1].pendingInterrupts >>> 15) & 3];
mcu.select(1);
out.fifo_rd_core1 = mcu.readUint32(SIO + 0x58);
out.fifo_rd_empty = mcu.readUint32(SIO + 0x58);
out.fifo_st_roe = st(1);
mcu.select(1);
mcu.writeUint32(SIO + 0x50, 0); // any write clears the sticky flags
out.fifo_st_cleared = st(1);
mcu.select(0);
for (let i = 0; i < 9; i++) mcu.writeUint32(SIO + 0x54, i);
out.fifo_st_full = st(0); // not RDY, WOF: the ninth word was dropped
mcu.select(1);
out.fifo_depth_words = [];
for (let i = 0; i < 9; i++) out.fifo_depth_words.push(mcu.readUint32(SIO + 0x58));
// the divider: one per core
mcu.select(0);
mcu.writeUint32(SIO + 0x60, 100);
mcu.writeUint32(SIO + 0x64, 7);
mcu.select(1);
mcu.writeUint32(SIO + 0x60, 50);
mcu.writeUint32(SIO + 0x64, 5);
out.quotient = [0, 1].map((c) => {
  mcu.select(c);
  return mcu.readUint32(SIO + 0x70) >>> 0; // a register holds 32 bits (rp2040js returns the float)
});
// the spinlocks: shared; a claimed lock reads 0 from the other core until released
mcu.select(0);
out.lock_claim = [mcu.readUint32(SIO + 0x100 + 4 * 5)];
mcu.select(1);
out.lock_claim.push(mcu.readUint32(SIO + 0x100 + 4 * 5));
out.lock_st = mcu.readUint32(SIO + 0x5c);
mcu.select(0);
mcu.writeUint32(SIO + 0x100 + 4 * 5, 0);
mcu.select(1);
out.lock_claim.push(mcu.readUint32(SIO + 0x100 + 4 * 5));
// the NVIC and VTOR: one per core
mcu.select(1);
mcu.writeUint32(0xe000ed08, 0x20000100);
mcu.writeUint32(0xe000e100, 1 << 0);
out.vtor = [0, 1].map((c) => {
  mcu.select(c);
  return mcu.readUint32(0xe000ed08);
});
out.iser = [0, 1].map((c) => {
  mcu.select(c);
  return mcu.readUint32(0xe000e100) & 1;
});
// IO_IRQ_BANK0: a force in PROC1_INTF reaches core 1's line only
mcu.select(0);
mcu.writeUint32(0x40014000 + 0x140, 1 << 2); // PROC1_INTF0: GPIO0 level high
out.io_irq = [(mcu.cores[0].pendingInterrupts >>> 13) & 1, (mcu.cores[1].pendingInterrupts >>> 13) & 1];
out.proc1_ints = mcu.readUint32(0x40014000 + 0x150);
process.stdout.write(JSON.stringify(out));
