'use strict';
// The model's PC trace (run.js --pc-trace FILE): what code ran, for tests that check it
// (rtbench's timed regions hold the kernel call and nothing else: tests/lab/conformance).
//
// FILE is a stream of little-endian 32-bit words, one per instruction in the order the
// scheduler ran them: its address | the core (bit 0; Thumb addresses are even). Before
// the first instruction of a core, and before each whose IPSR differs from that core's
// previous one, a word 0xF0000000 | core << 8 | IPSR (no instruction runs at 0xFxxxxxxx):
// an exception's entry and return. With `from` set, the trace starts at the first
// instruction fetched from that address (either core), so a run's boot stays out of it.
//
// With cycles (run.js --pc-trace-cycles), every word is followed by a second: the core's
// cycle count (low 32 bits) as the instruction starts, exception entry included, so a
// figure can be traced to the code that cost it.
//
// The address is the instruction's fetch, the first halfword the core reads as it
// executes it (core.js), taken after any exception entry that preceded it.
const fs = require('fs');

const CHUNK_WORDS = 1 << 16;

function attachPcTrace(mcu, file, from = null, withCycles = false) {
  const fd = fs.openSync(file, 'w');
  const buf = new Uint32Array(CHUNK_WORDS);
  let n = 0;
  let on = from === null;
  const flush = () => {
    if (n) fs.writeSync(fd, Buffer.from(buf.buffer, 0, n * 4));
    n = 0;
  };
  const put = (word) => {
    buf[n++] = word;
    if (n === CHUNK_WORDS) flush();
  };
  const ipsr = mcu.cores.map(() => -1);
  for (const core of mcu.cores) {
    const read = Object.getPrototypeOf(core).readUint16;
    core.readUint16 = function traced(address) {
      if (this.reads16 === 0) {
        if (!on && address === from) on = true;
        if (on) {
          if (this.IPSR !== ipsr[this.index]) {
            ipsr[this.index] = this.IPSR;
            put(0xf0000000 | (this.index << 8) | this.IPSR);
            if (withCycles) put(this.cycles >>> 0);
          }
          put(address | this.index);
          if (withCycles) put(this.cycles >>> 0);
        }
      }
      return read.call(this, address);
    };
  }
  return {
    close() {
      flush();
      fs.closeSync(fd);
    },
  };
}

module.exports = { attachPcTrace };
