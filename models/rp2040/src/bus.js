'use strict';
// The bus fabric between the two cores (RP2040 datasheet 2.1, "Bus Fabric"): a crossbar
// of 4 masters (core 0, core 1, DMA read, DMA write) and 10 slave ports (ROM, XIP, SRAM0..5,
// the APB bridge, the AHB-Lite peripherals: DMA, USB, PIO). A slave port serves one
// access per cycle; two masters that reach the same port in the same cycle are arbitrated
// and the loser waits (the datasheet's BUS_PRIORITY: a high-priority master wins, then
// masters of equal priority in turn). SRAM0..3 (0x20000000..0x2003ffff) are striped word
// by word (address bits 3:2 pick the bank, 2.6.2), so two cores collide on a bank only when
// their words share those bits; SRAM4 (0x20040000) and SRAM5 (0x20041000) are one bank
// each. The SIO and each core's PPB are not on the crossbar (core-local ports): they
// never wait; two claims of one SIO spinlock in the same cycle go to core 0 (2.3.1.3).
//
// The rule the model applies (deterministic):
// - each bus access of an instruction happens at its start cycle plus an offset: 0 for
//   the fetch (one per 32-bit word of code, as the M0+ fetches), 1, 2, ... for its data
//   accesses in the order rp2040js makes them (a load's data phase is its second cycle;
//   LDM/STM/PUSH/POP move a word per cycle), plus any wait already taken;
// - a port is held for 1 cycle (ROM, XIP hit, SRAM, AHB-Lite) or for the APB's wait
//   states (3 for a read, 4 for a write: rp2040js's APB costs);
// - an access that finds its port held by the other core in that cycle waits until the
//   port is free; the wait is added to its core's cycles (the stall);
// - the other core's accesses are those of the instructions the scheduler has already
//   run (runner.js: the core with fewer cycles first, ties core 0): an access that comes
//   first in that order wins the cycle. This is a fixed order where the datasheet's
//   arbiter takes equal-priority masters in turn, and the model applies no BUS_PRIORITY;
// - arbitration applies while both cores run: a core asleep or held in reset makes no
//   accesses, and the first instruction after a wake is not checked against the other
//   core's accesses of the cycles it slept through. DMA takes no bus cycles; an XIP
//   miss holds the XIP port for one cycle (the flash transfer is not arbitrated).
const RING = 4; // the other core's recent accesses kept per port
const ROM = 0;
const XIP = 1;
const SRAM0 = 2; // ..5: the striped banks
const SRAM4 = 6;
const SRAM5 = 7;
const APB = 8;
const AHB = 9;
const PORTS = 10;
const NONE = -1;
const NAMES = ['rom', 'xip', 'sram0', 'sram1', 'sram2', 'sram3', 'sram4', 'sram5', 'apb', 'ahb'];

/** The slave port of an address, or NONE (SIO, PPB: not on the crossbar). */
function portOf(address) {
  switch (address >>> 28) {
    case 0x0:
      return ROM;
    case 0x1:
      return XIP;
    case 0x2:
      if (address < 0x20040000) return SRAM0 + ((address >>> 2) & 3);
      if (address < 0x20041000) return SRAM4;
      if (address < 0x20042000) return SRAM5;
      return SRAM0 + ((address >>> 16) & 3); // 0x21..: SRAM0..3 without striping
    case 0x4:
      return APB;
    case 0x5:
      return AHB;
    default:
      return NONE;
  }
}

class BusFabric {
  constructor() {
    // per port and core, that core's last RING accesses: [from, until) cycles
    this.from = new Float64Array(PORTS * 2 * RING);
    this.until = new Float64Array(PORTS * 2 * RING);
    this.head = new Uint8Array(PORTS * 2);
    this.active = false; // both cores run: accesses are arbitrated
    this.stallCycles = [0, 0]; // cycles each core waited for a port
    this.conflicts = new Float64Array(PORTS); // accesses that waited, per port
  }

  /** An access by `core` to `address` at `offset` cycles into its instruction; adds the
   * wait for a port the other core holds (if any) to core.cycles. */
  access(core, address, offset, write) {
    const port = portOf(address);
    if (port === NONE) return;
    const hold = port === APB ? (write ? 4 : 3) : 1;
    const me = core.index;
    const start = core.cycles + offset;
    let t = start;
    const theirs = (port * 2 + 1 - me) * RING;
    for (let again = true, n = 0; again && n <= RING; n++) {
      again = false;
      for (let r = theirs; r < theirs + RING; r++) {
        if (t < this.until[r] && t + hold > this.from[r]) {
          t = this.until[r];
          again = true;
        }
      }
    }
    const ring = port * 2 + me;
    const h = (this.head[ring] + 1) % RING;
    this.head[ring] = h;
    this.from[ring * RING + h] = t;
    this.until[ring * RING + h] = t + hold;
    if (t > start) {
      core.cycles += t - start;
      this.stallCycles[me] += t - start;
      this.conflicts[port]++;
    }
  }

  /** Waits per port (the summary's). */
  conflictsByPort() {
    const out = {};
    for (let p = 0; p < PORTS; p++) if (this.conflicts[p]) out[NAMES[p]] = this.conflicts[p];
    return out;
  }
}

module.exports = { BusFabric, portOf };
