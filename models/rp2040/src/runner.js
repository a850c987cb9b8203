'use strict';
// The model's clock: each instruction advances it by the cycles the core charged for it
// (rp2040js's count, rtlab's corrections, XIP stalls), and a core asleep in WFI/WFE skips
// to the next alarm (a timer, SysTick, the UART). No host time enters the model, so a run
// is bit-identical from run to run. The UART0 stream goes to `out`; the run ends when the
// image prints `rtbench: done errors=N`, when the cycle budget is spent, or on a model
// error (ModelError: one line).
const { ModelError } = require('./errors');

const DONE = Buffer.from('rtbench: done errors=');

/** Watches the UART stream for the done line; returns true once it has been completed. */
function doneWatcher() {
  let line = [];
  let done = false;
  return {
    feed(byte) {
      if (done) return true;
      if (byte === 10) {
        const text = Buffer.from(line);
        if (text.length > DONE.length && text.subarray(0, DONE.length).equals(DONE)) done = true;
        line = [];
      } else if (line.length < 80) {
        line.push(byte);
      }
      return done;
    },
  };
}

/**
 * Runs mcu until done, budget or error. write(bytes) receives the UART output in
 * chunks. Returns {reason: 'done'|'budget', cycles, instructions}.
 */
function run(mcu, { maxCycles, write, chunkCycles = 1_000_000 }) {
  const { core, clock } = mcu;
  const watch = doneWatcher();
  let pending = [];
  let done = false; // a plain local: the loop reads it after every instruction
  mcu.uart[0].onByte = (b) => {
    pending.push(b);
    if (watch.feed(b)) done = true;
  };
  const flush = () => {
    if (pending.length) write(Buffer.from(pending));
    pending = [];
  };
  let ns = 1e9 / mcu.clkSys; // the clock's nanoseconds per core cycle, as clk_sys changes
  const unlisten = mcu.addClockListener((hz) => {
    ns = 1e9 / hz;
  });
  let instructions = 0;
  let reason = 'budget';
  try {
    while (core.cycles < maxCycles) {
      const end = Math.min(core.cycles + chunkCycles, maxCycles);
      while (core.cycles < end) {
        if (core.waiting) {
          const nanos = clock.nanosToNextAlarm;
          if (!clock.nextAlarm) {
            throw new ModelError(
              `the core sleeps (WFI/WFE) at PC 0x${core.PC.toString(16)} with nothing to wake it ` +
                `(cycle ${core.cycles})`,
            );
          }
          const skip = Math.max(1, Math.ceil(nanos / ns - 1e-9));
          core.cycles += skip;
        } else {
          core.executeInstruction();
          instructions++;
        }
        const delta = core.cycles - mcu.clockCycles;
        mcu.clockCycles = core.cycles;
        clock.tick(delta * ns);
        if (done) break;
      }
      flush();
      if (done) {
        reason = 'done';
        break;
      }
    }
  } finally {
    unlisten();
    flush();
  }
  return { reason, cycles: core.cycles, instructions };
}

module.exports = { run };
