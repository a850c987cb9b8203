'use strict';
// The SIO as each core sees it (RP2040 datasheet 2.3.1), over rp2040js 1.4.1's RPSIO, which
// knows one core: CPUID always 0, one divider and one pair of interpolators, no FIFOs.
//
// - CPUID: the index of the core making the access (mcu.coreIndex);
// - the inter-core FIFOs (2.3.1.5): two 8-deep, 32-bit FIFOs, core 0 -> core 1 and
//   core 1 -> core 0. FIFO_ST for the reading core: VLD (its RX FIFO holds data), RDY (its
//   TX FIFO has room), WOF (sticky: it wrote a full TX FIFO, the word was dropped), ROE
//   (sticky: it read an empty RX FIFO, which reads 0); any write to FIFO_ST clears both
//   sticky flags. SIO_IRQ_PROC0 (IRQ 15, core 0's NVIC only) and SIO_IRQ_PROC1 (IRQ 16,
//   core 1's only) are high while that core's VLD, WOF or ROE is set;
// - the hardware divider and the two interpolators: one set per core (core 0 keeps
//   rp2040js's instance, core 1 has a second RPSIO for its own);
// - the 32 spinlocks and the GPIO registers: shared (rp2040js's instance). Two claims of
//   one spinlock in the same cycle: core 0's wins, as the datasheet states (2.3.1.3); the
//   model gets this from its interleave (runner.js: ties go to core 0 first).
const { rp2040js } = require('./rp2040js');

const { RPSIO } = rp2040js('sio.js');

const CPUID = 0x000;
const FIFO_ST = 0x050;
const FIFO_WR = 0x054;
const FIFO_RD = 0x058;
const PER_CORE_FIRST = 0x060; // DIV_UDIVIDEND
const PER_CORE_LAST = 0x0fc; // INTERP1_BASE_1AND0
const FIFO_DEPTH = 8;
const ST_VLD = 1;
const ST_RDY = 2;
const ST_WOF = 4;
const ST_ROE = 8;
const SIO_IRQ_PROC = [15, 16];

class InterCoreFifos {
  constructor(mcu) {
    this.mcu = mcu;
    this.queue = [[], []]; // queue[i]: written by core i, read by core 1 - i
    this.wof = [false, false];
    this.roe = [false, false];
    this.words = [0, 0]; // words written by each core (the summary's count)
  }

  status(core) {
    return (this.queue[1 - core].length ? ST_VLD : 0) |
      (this.queue[core].length < FIFO_DEPTH ? ST_RDY : 0) |
      (this.wof[core] ? ST_WOF : 0) | (this.roe[core] ? ST_ROE : 0);
  }

  read(core) {
    const q = this.queue[1 - core];
    let v = 0;
    if (q.length) v = q.shift();
    else this.roe[core] = true;
    this.update();
    return v;
  }

  write(core, value) {
    const q = this.queue[core];
    if (q.length < FIFO_DEPTH) {
      q.push(value >>> 0);
      this.words[core]++;
    } else {
      this.wof[core] = true;
    }
    this.update();
  }

  clearFlags(core) {
    this.wof[core] = this.roe[core] = false;
    this.update();
  }

  /** The level of SIO_IRQ_PROC0/1, each to its own core's NVIC. */
  update() {
    for (let c = 0; c < 2; c++) {
      const level = (this.status(c) & (ST_VLD | ST_WOF | ST_ROE)) !== 0;
      this.mcu.cores[c].setInterrupt(SIO_IRQ_PROC[c], level);
    }
  }

  /** Empties both FIFOs (a chip reset; a core's reset leaves them as they are). */
  reset() {
    this.queue = [[], []];
    this.wof = [false, false];
    this.roe = [false, false];
  }
}

/** Wraps mcu.sio (rp2040js's, shared) so that each access is seen from mcu.coreIndex. */
function installSio(mcu) {
  const shared = mcu.sio;
  const core1 = new RPSIO(mcu); // core 1's divider and interpolators
  const fifos = new InterCoreFifos(mcu);
  const read = shared.readUint32.bind(shared);
  const write = shared.writeUint32.bind(shared);
  shared.readUint32 = (offset) => {
    const c = mcu.coreIndex;
    if (offset >= PER_CORE_FIRST && offset <= PER_CORE_LAST) {
      return c ? core1.readUint32(offset) : read(offset);
    }
    switch (offset) {
      case CPUID:
        return c;
      case FIFO_ST:
        return fifos.status(c);
      case FIFO_RD:
        return fifos.read(c);
      default:
        return read(offset);
    }
  };
  shared.writeUint32 = (offset, value) => {
    const c = mcu.coreIndex;
    if (offset >= PER_CORE_FIRST && offset <= PER_CORE_LAST) {
      if (c) core1.writeUint32(offset, value);
      else write(offset, value);
      return;
    }
    switch (offset) {
      case FIFO_ST:
        fifos.clearFlags(c);
        return;
      case FIFO_WR:
        fifos.write(c, value);
        return;
      case FIFO_RD:
      case CPUID:
        return; // read-only
      default:
        write(offset, value);
    }
  };
  return fifos;
}

module.exports = { installSio, InterCoreFifos, SIO_IRQ_PROC };
