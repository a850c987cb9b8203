'use strict';
// The model's clock and its scheduler. No host time enters the model, so a run is
// bit-identical from run to run. The UART0 stream goes to `out`; the run ends when the
// image prints `rtbench: done errors=N`, when the cycle budget is spent, or on a model
// error (ModelError: one line).
//
// The scheduler steps every core of one or more chips that share one SimulationClock
// (one chip: its core 0 and core 1; issue 33 adds a second chip on the same clock). Each
// core keeps its own cycle count. The rule, fixed and deterministic:
//
//  1. A core is runnable when it is neither held in reset (PSM) nor asleep (WFI/WFE).
//  2. The runnable core with the fewest cycles runs one instruction (stepCore); ties go
//     to the earlier core in the list: chip order, then core 0 before core 1. A core that
//     woke (an interrupt, an event) with its count behind the clock first catches up to it.
//  3. Before it runs, the clock (timers, UART, SysTick alarms) advances to that core's
//     count, so every instruction starts with the peripherals at its own start cycle; an
//     alarm that wakes a core makes the scheduler choose again.
//  4. No core runnable: the clock jumps to its next alarm and the sleeping cores' counts
//     with it (a sleeping core's count follows the clock); no alarm: a model error.
//
// One instruction is atomic: its accesses happen in the order rp2040js makes them, at
// its start cycle plus their offset (bus.js charges the cycles a core waits for a bus
// slave the other core holds). The run's time is the clock's count (mcu.clockCycles).
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

/** The cores of chips (sharing chips[0].clock) and the rule that steps them. */
class Scheduler {
  constructor(chips) {
    this.chips = chips;
    this.clock = chips[0].clock;
    for (const m of chips) {
      if (m.clock !== this.clock) throw new ModelError('the chips of one scheduler share one clock');
    }
    this.slotChip = [];
    this.slotCore = [];
    for (const m of chips) {
      for (let i = 0; i < m.cores.length; i++) {
        this.slotChip.push(m);
        this.slotCore.push(i);
      }
    }
    this.now = chips[0].clockCycles; // cycles of clk_sys the clock has reached
    this.ns = 1e9 / chips[0].clkSys; // the clock's nanoseconds per cycle, as clk_sys changes
    this.unlisten = chips[0].addClockListener((hz) => {
      this.ns = 1e9 / hz;
    });
  }

  /** The runnable slot with the fewest cycles (rule 2), or -1. */
  pick() {
    let best = -1;
    let bestCycles = Infinity;
    const n = this.slotChip.length;
    for (let k = 0; k < n; k++) {
      const c = this.slotChip[k].cores[this.slotCore[k]];
      if (c.held || c.waiting) continue;
      if (c.cycles < this.now) c.cycles = this.now; // woke behind the clock: catch up
      if (c.cycles < bestCycles) {
        best = k;
        bestCycles = c.cycles;
      }
    }
    return best;
  }

  /** Advances the clock (and the sleeping cores' counts) to cycle `to` (rule 3, 4);
   * true when a core woke on the way. */
  advance(to) {
    const n = this.slotChip.length;
    let asleep = 0;
    for (let k = 0; k < n; k++) {
      const c = this.slotChip[k].cores[this.slotCore[k]];
      if (c.waiting) {
        asleep |= 1 << k;
        if (c.cycles < to) c.cycles = to;
      }
    }
    const delta = to - this.now;
    this.now = to;
    for (const m of this.chips) m.clockCycles = to;
    this.clock.tick(delta * this.ns);
    if (!asleep) return false;
    for (let k = 0; k < n; k++) {
      if (asleep & (1 << k) && !this.slotChip[k].cores[this.slotCore[k]].waiting) return true;
    }
    return false;
  }

  /** Runs one core's instruction as that core (the chip's bus sees it as the accessor). */
  stepCore(k) {
    const m = this.slotChip[k];
    m.select(this.slotCore[k]);
    m.core.executeInstruction();
  }

  /** One scheduling decision: an instruction, a clock advance or a sleep to the next alarm. */
  step() {
    const k = this.pick();
    if (k < 0) {
      const nanos = this.clock.nanosToNextAlarm;
      if (!this.clock.nextAlarm) throw new ModelError(this.asleepMessage());
      this.advance(this.now + Math.max(1, Math.ceil(nanos / this.ns - 1e-9)));
      return;
    }
    const start = this.slotChip[k].cores[this.slotCore[k]].cycles;
    // an alarm on the way may wake a core, which may then come first: choose again
    if (start > this.now && this.advance(start)) return;
    this.stepCore(k);
  }

  asleepMessage() {
    const where = [];
    for (let k = 0; k < this.slotChip.length; k++) {
      const c = this.slotChip[k].cores[this.slotCore[k]];
      if (!c.held) where.push(`core ${this.slotCore[k]} at PC 0x${c.PC.toString(16)}`);
    }
    return `the cores sleep (WFI/WFE) with nothing to wake them: ${where.join(', ')} (cycle ${this.now})`;
  }

  close() {
    this.unlisten();
  }
}

/**
 * Runs mcu until done, budget or error. write(bytes) receives the UART output in
 * chunks. Returns {reason: 'done'|'budget', cycles, instructions}.
 */
function run(mcu, { maxCycles, write, chunkCycles = 1_000_000 }) {
  const watch = doneWatcher();
  let pending = [];
  let done = false; // a plain local: the loop reads it after every step
  mcu.uart[0].onByte = (b) => {
    pending.push(b);
    if (watch.feed(b)) done = true;
  };
  const flush = () => {
    if (pending.length) write(Buffer.from(pending));
    pending = [];
  };
  const sched = new Scheduler([mcu]);
  let reason = 'budget';
  try {
    while (sched.now < maxCycles) {
      const end = Math.min(sched.now + chunkCycles, maxCycles);
      while (sched.now < end && !done) sched.step();
      flush();
      if (done) {
        reason = 'done';
        break;
      }
    }
  } finally {
    sched.close();
    flush();
  }
  return { reason, cycles: sched.now, instructions: mcu.instructions() };
}

module.exports = { run, Scheduler };
