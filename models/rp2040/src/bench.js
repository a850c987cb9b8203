'use strict';
// The instrument bench (issue 33): the board model (an RTOS image) and a second RP2040
// model running the rtlab capture module's firmware, on one clock, stepped by one
// scheduler (runner.js's Scheduler, issue 32: the runnable core with the fewest cycles
// first), with the capture chip's PIO state machines stepped once per clock cycle
// (pio_lockstep.js). Deterministic for the board: nothing of the host enters its chip.
//
// The wiring (docs/instrument-pair.md shows the same on two Picos):
//   board GP2..GP5 (rtbench marker channels 0..3) -> module GP2..GP5 (its inputs)
//   board GP5 -> board GP6 (the external interrupt's input, rtbench --irq-ext)
// A wire carries the pad's level: the pin's output when it drives one, else its pull
// (pull-up high, anything else low). It is instantaneous: rp2040js has no input
// synchronizer, so an edge reaches a PIO sample or an IRQ in the cycle it is made.
//
// The module runs for the bench's whole life (it answers its host between boards); a
// board runs from startBoard until its done line, its cycle budget or its error, then
// is removed (its pins fall to their pulls, its clock alarms are cancelled). Each board
// powers on at a whole millisecond of the clock, so its timer phase is the same in
// every run.
const { rp2040js } = require('./rp2040js');
const { ModelRP2040 } = require('./machine');
const { Scheduler } = require('./runner');
const { ModelError } = require('./errors');
const pio = require('./pio_lockstep');

const { SimulationClock } = rp2040js('clock/simulation-clock.js');
const { StateMachine } = rp2040js('peripherals/pio.js');
const { GPIOPinState } = rp2040js('gpio-pin.js');

const MODULE_WIRES = [2, 3, 4, 5]; // board GPn -> module GPn
const LOOP_WIRE = [5, 6]; // board GP5 -> board GP6
const ALIGN_CYCLES = 125000; // a board powers on at a whole ms of the 125 MHz clock
const DONE = 'rtbench: done errors=';

pio.patch(StateMachine);

/** The level a pin puts on its wire. */
function wireLevel(pin) {
  const v = pin.value;
  return v === GPIOPinState.High || v === GPIOPinState.InputPullUp;
}

/** runner.js's scheduler with the module's PIO stepped once per clock cycle. */
class BenchScheduler extends Scheduler {
  constructor(chips, machines) {
    super(chips);
    this.machines = machines;
    this.lastChip = null;
  }

  /** The clock to `to`, the PIO stepped on every cycle of the way; the clock itself moves
   * in one step to each alarm due on the way (which may wake a core at its own cycle, as
   * runner.js's scheduler wakes it) and to `to`. */
  advance(to) {
    const sms = this.machines;
    const n = sms.length;
    const clock = this.clock;
    while (this.now < to) {
      let stop = to;
      const next = clock.nextAlarm;
      if (next) {
        const due = this.now + Math.max(1, Math.ceil((next.nanos - clock.nanos) / this.ns - 1e-9));
        if (due < stop) stop = due;
      }
      for (let c = this.now; c < stop; c++) {
        for (let i = 0; i < n; i++) sms[i].step();
      }
      if (super.advance(stop)) return true;
    }
    return false;
  }

  stepCore(k) {
    this.lastChip = this.slotChip[k];
    super.stepCore(k);
  }
}

/** A ModelRP2040 on `clock` whose clock alarms are kept, to be cancelled at removal. */
function chipWithAlarms(clock, options) {
  const alarms = [];
  const create = clock.createAlarm;
  clock.createAlarm = (cb) => {
    const a = create.call(clock, cb);
    alarms.push(a);
    return a;
  };
  try {
    return { chip: new ModelRP2040({ ...options, clock }), alarms };
  } finally {
    clock.createAlarm = create;
  }
}

class Bench {
  /** rom: the boot ROM; module: the capture firmware's flash image (image.js). */
  constructor({ rom, module, moduleXip = true }) {
    this.rom = rom;
    this.clock = new SimulationClock();
    this.module = new ModelRP2040({ rom, xipCache: moduleXip, clock: this.clock });
    this.module.powerOn(module.flash);
    this.machines = pio.lockstepMachines(this.module);
    this.sched = new BenchScheduler([this.module], this.machines);
    this.board = null; // {chip, alarms, start, maxCycles, out, line, status}
  }

  get now() {
    return this.sched.now;
  }

  /** Powers a board on at the next whole ms: the image's flash, its own XIP setting. */
  startBoard(flash, { xipCache = true, maxCycles, cycleFixes = true }) {
    if (this.board) throw new ModelError('a board is already running on the bench');
    this.runTo(Math.ceil(this.sched.now / ALIGN_CYCLES) * ALIGN_CYCLES);
    const { chip, alarms } = chipWithAlarms(this.clock, { rom: this.rom, xipCache, cycleFixes });
    pio.lockstepMachines(chip); // its own PIO is not used: not stepped by rp2040js's timer
    chip.clockCycles = this.sched.now;
    const board = { chip, alarms, start: this.sched.now, maxCycles, out: [], line: [], status: null };
    chip.uart[0].onByte = (b) => this.boardByte(board, b);
    const mod = this.module;
    board.unwire = MODULE_WIRES.map((n) =>
      chip.gpio[n].addListener(() => mod.gpio[n].setInputValue(wireLevel(chip.gpio[n]))),
    );
    const [from, to] = LOOP_WIRE;
    board.unwire.push(
      chip.gpio[from].addListener(() => chip.gpio[to].setInputValue(wireLevel(chip.gpio[from]))),
    );
    chip.powerOn(flash);
    this.sched.close();
    this.sched = new BenchScheduler([this.module, chip], this.machines);
    this.board = board;
    return board.start;
  }

  /** Brings the clock to exactly `at` (the module running as ever until a few cycles
   * before it, the last ones as a stall of its core), or to the next ms when it is past. */
  runTo(at) {
    const sched = this.sched;
    for (;;) {
      while (sched.now < at - 64) sched.step();
      if (sched.now <= at) break;
      at += ALIGN_CYCLES;
    }
    sched.advance(at);
  }

  boardByte(board, b) {
    board.out.push(b);
    if (b === 10) {
      const text = Buffer.from(board.line).toString('latin1');
      if (text.startsWith(DONE) && text.length > DONE.length) board.status = { reason: 'done' };
      board.line = [];
    } else if (board.line.length < 80) {
      board.line.push(b);
    }
  }

  /** Runs until the clock reaches `until` or the board ends; returns the board's end
   * ({reason: 'done'|'budget'|'error', message?}) once, else null. A module error is
   * thrown (a ModelError naming the module). */
  run(until) {
    const b = this.board;
    const sched = this.sched;
    try {
      while (sched.now < until) {
        sched.step();
        if (b && b.status) break;
      }
    } catch (e) {
      if (!(e instanceof ModelError)) throw e;
      if (!b || sched.lastChip !== b.chip) throw new ModelError(`capture module: ${e.message}`);
      b.status = { reason: 'error', message: e.message };
    }
    if (b && !b.status && sched.now - b.start >= b.maxCycles) b.status = { reason: 'budget' };
    return b ? b.status : null;
  }

  /** Bytes the board wrote since the last call. */
  takeBoardOutput() {
    const b = this.board;
    if (!b || !b.out.length) return null;
    const buf = Buffer.from(b.out);
    b.out = [];
    return buf;
  }

  /** Removes the board: its pins fall to the pulls (low), its alarms never fire again. */
  removeBoard() {
    const b = this.board;
    if (!b) return null;
    for (const off of b.unwire) off();
    for (const n of MODULE_WIRES) this.module.gpio[n].setInputValue(false);
    for (const a of b.alarms) {
      a.cancel();
      a.callback = () => {};
      a.schedule = () => {};
    }
    const summary = {
      cycles: this.sched.now - b.start,
      instructions: b.chip.instructions(),
      xip_misses: b.chip.xip.misses,
      exceptions: b.chip.cores[0].exceptionsTaken,
    };
    this.board = null;
    this.sched.close();
    this.sched = new BenchScheduler([this.module], this.machines);
    return summary;
  }
}

module.exports = { Bench, MODULE_WIRES, LOOP_WIRE, ALIGN_CYCLES };
