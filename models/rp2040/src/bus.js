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
// - a port is held for 1 cycle (ROM, XIP hit, SRAM, AHB-Lite), for the APB's wait
//   states (3 for a read, 4 for a write: rp2040js's APB costs), or, for an XIP miss, for
//   the whole line transfer (holdLonger): the XIP block is one AHB-Lite slave in front
//   of one SSI, so a miss keeps every other master's flash access waiting, and two
//   cores' concurrent misses are served one after the other;
// - an access that finds its port granted to the other core in an earlier cycle waits
//   until the port is free; the wait is added to its core's cycles (the stall);
// - two requests in the same cycle are a tie, decided as the datasheet's arbiters do
//   (2.1.1.1): the master with BUS_PRIORITY set wins; between equal priorities each
//   arbiter (each port) grants the masters in turn, round-robin. Which core an arbiter
//   favours first is not documented: `ties` picks it ('core0-first', the default, or
//   'core1-first'), or replaces the turns by a fixed order ('core0-always',
//   'core1-always': a bound, not silicon);
// - the scheduler runs whole instructions, the core with fewer cycles first (runner.js),
//   so the other core's accesses in the overlap were made already: when the access
//   being made wins the cycle (it came first, or won the tie), the other core's access
//   and the rest of that instruction move later instead (push: the wait is added to the
//   other core's cycles);
// - arbitration applies while both cores run: a core asleep or held in reset makes no
//   accesses, and the first instruction after a wake is not checked against the other
//   core's accesses of the cycles it slept through (nor against an XIP miss then in
//   flight). DMA takes no bus cycles.
const { ModelError } = require('./errors');

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

// Who wins a tie between equal priorities: round-robin from core 0 or core 1, or always
// the same core (a bound on the undocumented initial turn, not silicon's rule).
const TIES = ['core0-first', 'core1-first', 'core0-always', 'core1-always'];

/** A ties mode from the options (undefined: 'core0-first'). */
function tiesMode(mode) {
  if (mode === undefined) return TIES[0];
  if (!TIES.includes(mode)) {
    throw new ModelError(`arbitration ties ${JSON.stringify(mode)}: expected one of ${TIES.join(', ')}`);
  }
  return mode;
}

class BusFabric {
  /** mcu: the chip (its cores, by index); ties: one of TIES. */
  constructor(mcu, ties) {
    this.mcu = mcu;
    this.ties = tiesMode(ties);
    this.roundRobin = this.ties.endsWith('-first');
    // per port, the core the next tie goes to (round-robin moves it on at each tie)
    this.turn = new Uint8Array(PORTS).fill(this.ties.startsWith('core1') ? 1 : 0);
    this.priority = [0, 0]; // BUSCTRL BUS_PRIORITY.PROC0 / PROC1
    // per port and core, that core's last RING accesses: [from, until) cycles
    this.from = new Float64Array(PORTS * 2 * RING);
    this.until = new Float64Array(PORTS * 2 * RING);
    this.head = new Uint8Array(PORTS * 2);
    this.active = false; // both cores run: accesses are arbitrated
    this.stallCycles = [0, 0]; // cycles each core waited for a port
    this.conflicts = new Float64Array(PORTS); // accesses that waited, per port
    this.tiesSeen = 0; // same-cycle requests decided by priority or turn
  }

  /** An access by `core` to `address` at `offset` cycles into its instruction; adds the
   * wait for a port the other core holds (if any) to core.cycles, or moves the other
   * core's later access out of its way. */
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
        const f = this.from[r];
        if (t < this.until[r] && t + hold > f) {
          if (f < t || (f === t && !this.winsTie(me, port))) {
            t = this.until[r]; // granted to them first: wait
            again = true;
          } else {
            this.push(1 - me, f, t + hold - f, port); // ours first: theirs waits
          }
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

  /** A tie on `port` (both cores request it in one cycle): true when core `me` wins. */
  winsTie(me, port) {
    this.tiesSeen++;
    const p = this.priority;
    if (p[0] !== p[1]) return p[me] > p[1 - me];
    const w = this.turn[port];
    if (this.roundRobin) this.turn[port] = 1 - w;
    return w === me;
  }

  /** Core k's accesses from cycle `at` on (the rest of the instruction it ran) wait `d`
   * cycles: its port holds move later and its count grows by the wait. */
  push(k, at, d, port) {
    for (let i = k * RING, p = 0; p < PORTS; p++, i += 2 * RING) {
      for (let r = i; r < i + RING; r++) {
        if (this.from[r] >= at) {
          this.from[r] += d;
          this.until[r] += d;
        }
      }
    }
    this.mcu.cores[k].cycles += d;
    this.stallCycles[k] += d;
    this.conflicts[port]++;
  }

  /** The last access of `core` to `port` holds it `extra` cycles longer (an XIP miss:
   * the line's transfer); the other core's accesses to it that came later wait. */
  holdLonger(core, port, extra) {
    const me = core.index;
    const ring = port * 2 + me;
    const i = ring * RING + this.head[ring];
    const f = this.from[i];
    this.until[i] += extra;
    const theirs = (port * 2 + 1 - me) * RING;
    for (let r = theirs; r < theirs + RING; r++) {
      if (this.from[r] > f && this.from[r] < this.until[i]) this.push(1 - me, this.from[r], this.until[i] - this.from[r], port);
    }
  }

  /** Waits per port (the summary's). */
  conflictsByPort() {
    const out = {};
    for (let p = 0; p < PORTS; p++) if (this.conflicts[p]) out[NAMES[p]] = this.conflicts[p];
    return out;
  }
}

/** BUSCTRL's BUS_PRIORITY (0x40030000; PROC0 bit 0, PROC1 bit 4) reaches the arbiters;
 * rp2040js 1.4.1 has the block without it. BUS_PRIORITY_ACK reads 1 (rp2040js's): the
 * model's arbiters take a new priority at once. DMA's bits are kept, unused (no DMA
 * bus cycles). */
function installBusPriority(mcu) {
  const busctrl = mcu.peripherals[0x40030];
  const read = busctrl.readUint32.bind(busctrl);
  const write = busctrl.writeUint32.bind(busctrl);
  let value = 0;
  busctrl.readUint32 = (offset) => (offset === 0 ? value : read(offset));
  busctrl.writeUint32 = (offset, v) => {
    if (offset !== 0) return write(offset, v);
    value = v & 0x1111;
    mcu.bus.priority = [value & 1, (value >>> 4) & 1];
    return undefined;
  };
}

module.exports = { BusFabric, installBusPriority, portOf, tiesMode, TIES, XIP };
