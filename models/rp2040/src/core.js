'use strict';
// The Cortex-M0+ core of rp2040js 1.4.1 with the cycle costs it leaves out, checked by
// the calibration program (models/rp2040/calib, docs/rp2040-model.md):
//
// - exception entry: the TRM's 15 cycles (ARM DDI 0484C 3.6.1, zero wait states, no jitter
//   suppression); rp2040js charges none;
// - exception return: 10 cycles beyond the BX/POP that returns (8 unstacking reads, 2 of
//   pipeline refill): the TRM gives no figure, this is the model's;
// - PUSH {.., LR} and POP {.., PC}: the TRM's 1 + N and 3 + N count LR and PC in N;
//   rp2040js leaves them out (one cycle short each).
//
// - NVIC pending bits: taking an interrupt clears its pending bit (see exceptionEntry), and
//   ICPR clears any line's (systick.js's PPB); rp2040js does neither for lines 0..25.
//
// - SVC escalation: an SVC that cannot be taken at once (PRIMASK set, or the current
//   execution priority at or above SVCall's) becomes a HardFault, as Armv6-M requires
//   (ARM DDI 0419 B1.5.4); rp2040js leaves it pending forever. NuttX switches tasks
//   through it (its HardFault handler finds the SVC before the stacked PC).
//
// - events (WFE/SEV, Armv6-M B1.5.18): SEV sets this core's event register and signals
//   the other core (the RP2040 wires each core's TXEV to the other's RXEV); the event wakes
//   a core asleep in WFE, or sets its event register. rp2040js's SEV does nothing.
//   SEVONPEND is not modelled (an interrupt pended while disabled wakes no WFE).
//
// The opcode of each instruction is the first halfword the core reads while executing it
// (its fetch), so a table indexed by opcode adds the per-instruction corrections.
const { rp2040js } = require('./rp2040js');
const { ModelError } = require('./errors');

const { CortexM0Core } = rp2040js('cortex-m0-core.js');

const EXCEPTION_ENTRY_CYCLES = 15;
const EXCEPTION_RETURN_CYCLES = 10;
const EXC_HARDFAULT = 3;
const EXC_NMI = 2;
const LOWEST_PRIORITY = 4;
const OP_WFE = 0xbf20;
const OP_SEV = 0xbf40;

/** Cycles to add per opcode, beyond rp2040js's count. */
function correctionTable() {
  const fix = new Int8Array(65536);
  for (let op = 0; op < 65536; op++) {
    if ((op & 0xff00) === 0xb500) fix[op] += 1; // PUSH with LR
    if ((op & 0xff00) === 0xbd00) fix[op] += 1; // POP with PC
  }
  return fix;
}
const FIX = correctionTable();

class ModelCore extends CortexM0Core {
  /** index: 0 or 1 (SIO CPUID); fixes: false keeps rp2040js's own cycle counts (to
   * compare with, as calibration does). */
  constructor(mcu, fixes = true, index = 0) {
    super(mcu);
    this.index = index;
    this.held = false; // held in reset by the PSM (core 1: FRCE_OFF.PROC1)
    this.inWfe = false; // asleep in WFE (an event wakes it) rather than WFI
    this.instructions = 0;
    this.entryCycles = fixes ? EXCEPTION_ENTRY_CYCLES : 0;
    this.returnCycles = fixes ? EXCEPTION_RETURN_CYCLES : 0;
    this.fix = fixes ? FIX : new Int8Array(65536);
    this.reads16 = 0;
    this.opcode = 0;
    this.exceptionsTaken = 0;
    this.irqLevel = 0; // the interrupt lines the peripherals hold asserted
  }

  /** A peripheral's interrupt line (rp2040js calls this with its level). */
  setInterrupt(irq, value) {
    if (value) this.irqLevel |= 1 << irq;
    else this.irqLevel &= ~(1 << irq);
    super.setInterrupt(irq, value);
  }

  readUint16(address) {
    const v = this.rp2040.readUint16(address);
    if (this.reads16++ === 0) this.opcode = v;
    return v;
  }

  /** NVIC: taking an interrupt clears its pending bit; a line still asserted pends it
   * again (rp2040js keeps lines 0..25 pending until the peripheral drops them, so a line
   * pended by software through ISPR would run its handler forever). */
  exceptionEntry(exceptionNumber) {
    if (exceptionNumber >= 16) {
      const bit = 1 << (exceptionNumber - 16);
      this.pendingInterrupts = (this.pendingInterrupts & ~bit) | (this.irqLevel & bit);
    }
    super.exceptionEntry(exceptionNumber);
    this.cycles += this.entryCycles;
    this.exceptionsTaken++;
  }

  exceptionReturn(excReturn) {
    super.exceptionReturn(excReturn);
    this.cycles += this.returnCycles;
  }

  /** One instruction (and any exception taken before it); the cost is in this.cycles. */
  executeInstruction() {
    this.reads16 = 0;
    const n = super.executeInstruction();
    const op = this.opcode;
    const f = this.fix[op];
    this.cycles += f;
    this.instructions++;
    if ((op & 0xff00) === 0xdf00 && this.pendingSVCall) this.escalateSvc();
    else if ((op & 0xff8f) === 0xbf00) this.hint(op);
    return n + f;
  }

  /** WFE and SEV after rp2040js ran them (it sleeps on WFE, ignores SEV). */
  hint(op) {
    if (op === OP_WFE) this.inWfe = this.waiting;
    else if (op === OP_SEV) {
      this.eventRegistered = true;
      this.rp2040.signalEvent(this.index);
    }
  }

  /** An event from the other core (its SEV): wakes this core from WFE, else is kept. */
  receiveEvent() {
    if (this.waiting && this.inWfe) {
      this.waiting = false;
      this.inWfe = false;
    } else {
      this.eventRegistered = true;
    }
  }

  /** The execution priority (B1.5.4): the active exception's, raised to 0 by PRIMASK. */
  executionPriority() {
    const active = this.IPSR ? this.exceptionPriority(this.IPSR) : LOWEST_PRIORITY;
    return this.PM ? Math.min(active, 0) : active;
  }

  /** An SVC that cannot preempt now is a HardFault; in HardFault or NMI, a lockup. */
  escalateSvc() {
    if (this.svCallPriority < this.executionPriority()) return; // taken before the next
    if (this.IPSR === EXC_HARDFAULT || this.IPSR === EXC_NMI) {
      throw new ModelError(
        `SVC in the HardFault or NMI handler at PC 0x${(this.PC - 2).toString(16)}: ` +
          'the core locks up (Armv6-M B1.5.15)',
      );
    }
    this.pendingSVCall = false;
    this.exceptionEntry(EXC_HARDFAULT);
  }
}

module.exports = { ModelCore, EXCEPTION_ENTRY_CYCLES, EXCEPTION_RETURN_CYCLES };
