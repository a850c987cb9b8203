'use strict';
// PIO state machines stepped as silicon steps them, once per system clock, for rp2040js
// 1.4.1 (which steps PIO on a host timer, ignoring enable, the clock divider and [delay]:
// /work/shared/FACTS.md). Shared by the capture firmware's harness
// (firmware/rp2040-capture/sim/harness.js) and the bench (bench.js), each with its own
// copy of rp2040js: patch(StateMachine) replaces that copy's StateMachine.step.
//
// A completing `wait` owns its cycle (stock rp2040js also ran the next instruction in it);
// onWaitDone(sm, gpio) is called when a `wait ... gpio N` completes (the capture
// firmware's start gate, GPIO 29).

/** Replaces StateMachine.prototype.step; returns the previous one. */
function patch(StateMachine, onWaitDone = () => {}) {
  const previous = StateMachine.prototype.step;
  StateMachine.prototype.step = function step() {
    if (!this.enabled) return;
    const div = (this.clockDivInt || 0x10000) * 256 + this.clockDivFrac;
    this.hAcc = (this.hAcc || 0) + 256;
    if (this.hAcc < div) return;
    this.hAcc -= div;
    if (this.hDelay > 0) {
      this.hDelay--;
      return;
    }
    const c0 = this.cycles;
    if (this.waiting) {
      const gpio = this.waitType === 1 /* Pin */ ? this.waitIndex : -1;
      this.checkWait();
      if (!this.waiting) {
        this.hDelay = this.cycles - c0;
        if (gpio >= 0) onWaitDone(this, gpio);
      }
      return;
    }
    this.updatePC = true;
    this.executeInstruction(this.pio.instructions[this.pc]);
    if (this.updatePC) this.nextPC();
    if (!this.waiting) this.hDelay = this.cycles - c0 - 1;
  };
  return previous;
}

/** The eight state machines of a chip (both PIO blocks), with rp2040js's own PIO
 * scheduling switched off: the caller steps them once per clock. */
function lockstepMachines(mcu) {
  for (const pio of mcu.pio) pio.run = () => {};
  return [...mcu.pio[0].machines, ...mcu.pio[1].machines];
}

module.exports = { patch, lockstepMachines };
