'use strict';
// What the two cores share (RP2040 datasheet 2.1.1.1, 2.6.3), on the real model: both cores
// run test/shared_bus.S (built by tests/models/rp2040/test_shared_bus.py, its path the
// first argument) from SRAM, each its own copy, from the same cycle, and report the cycles
// each took; alone (the other core held) and together. One JSON object on stdout.
const fs = require('fs');
const path = require('path');
const { ModelRP2040 } = require('../src/machine');
const { Scheduler } = require('../src/runner');

const rom = fs.readFileSync(path.join(__dirname, '..', 'rom', 'build', 'rp2040-rom.bin'));
const code = fs.readFileSync(process.argv[2]);
const BANK_LOOP = 0;
const FLASH_LOOP = 16;
// each core's copy of the code: 4 bytes apart in the striped banks, so the two cores'
// fetches of one instruction never meet on a bank
const CODE = [0x20010000, 0x20020004];
const SRAM4 = 0x20040000;
const BUS_PRIORITY = 0x40030000;

/** Runs entry (offset into the code) on the cores in `who` with r0 = addr[i], r1 = turns;
 * the cycles each took to its WFI, and the bus's and the XIP's counts. */
function run(who, entry, addr, turns, { ties, priority = 0 } = {}) {
  const mcu = new ModelRP2040({ rom, arbitrationTies: ties });
  for (const base of CODE) mcu.sram.set(code, base - 0x20000000);
  mcu.writeUint32(BUS_PRIORITY, priority);
  for (let i = 0; i < 2; i++) {
    const core = mcu.cores[i];
    core.held = !who.includes(i);
    core.PC = CODE[i] + entry;
    core.registers[0] = addr[i];
    core.registers[1] = turns;
  }
  const sched = new Scheduler([mcu]);
  const took = [null, null];
  while (who.some((i) => took[i] === null)) {
    sched.step();
    for (const i of who) if (took[i] === null && mcu.cores[i].waiting) took[i] = mcu.cores[i].cycles;
  }
  sched.close();
  return { cycles: took, stalls: mcu.bus.stallCycles, misses: mcu.xip.misses, ties: mcu.bus.tiesSeen,
    miss_cycles: mcu.xip.missCycles() };
}

const TURNS = 1000;
const out = { turns: TURNS };
const bank = [SRAM4, SRAM4 + 0x100];
out.bank_alone = run([0], BANK_LOOP, bank, TURNS);
for (const ties of ['core0-first', 'core1-first', 'core0-always', 'core1-always']) {
  out[`bank_${ties}`] = run([0, 1], BANK_LOOP, bank, TURNS, { ties });
}
// BUS_PRIORITY.PROC1 (bit 4): core 1 wins every tie, whatever the ties option says
out.bank_proc1_high = run([0, 1], BANK_LOOP, bank, TURNS, { ties: 'core0-always', priority: 0x10 });
out.bank_proc0_high = run([0, 1], BANK_LOOP, bank, TURNS, { ties: 'core1-always', priority: 0x01 });
// every read of the 0x13 alias (no lookup, no allocation) goes to the flash through the SSI
const FLASH_TURNS = 100;
out.flash_turns = FLASH_TURNS;
out.flash_alone = run([0], FLASH_LOOP, [0x13000000, 0x13001000], FLASH_TURNS);
out.flash_both = run([0, 1], FLASH_LOOP, [0x13000000, 0x13001000], FLASH_TURNS);
process.stdout.write(`${JSON.stringify(out)}\n`);
