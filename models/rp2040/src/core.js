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
// - sleep (Armv6-M B1.5.19, WFI/WFE wake-up): a core wakes for an exception whose
//   priority is above its execution priority, PRIMASK aside; with PRIMASK set it is not
//   taken until PRIMASK clears. WFI/WFE with such an exception already pending do not
//   sleep. rp2040js takes any pending interrupt, whatever the active exception's priority
//   and PRIMASK: a handler waiting in WFE was re-entered by its own interrupt, and a
//   critical section waiting in WFE with interrupts masked ran a handler (NuttX SMP waits
//   for its spinlocks that way, and deadlocked on both).
//
// - events (WFE/SEV, Armv6-M B1.5.18): SEV sets this core's event register and signals
//   the other core (the RP2040 wires each core's TXEV to the other's RXEV); the event wakes
//   a core asleep in WFE, or sets its event register. rp2040js's SEV does nothing.
//   SEVONPEND is not modelled (an interrupt pended while disabled wakes no WFE).
//
// - exception return (Armv6-M B1.5.8): a BX or POP to 0xFxxxxxxx in Handler mode that is
//   no EXC_RETURN value is UNPREDICTABLE; the model stops with a ModelError naming the
//   core, the value and the PC. rp2040js unstacked a frame anyway and ran on (NuttX SMP's
//   context-switch race of docs/rp2040-model.md sent core 0 through ROM words that way).
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
const OP_WFI = 0xbf30;
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
    this.bus = mcu.bus; // bus.js: arbitration with the other core while both run
    this.busOffset = 0; // the current instruction's data accesses so far
    this.fetchWord = -1; // the 32-bit word of code last fetched
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

  /** The first halfword read of an instruction is its fetch (one bus access per word of
   * code; the second halfword of a 32-bit instruction is part of it); the rest are data. */
  readUint16(address) {
    const n = this.reads16++;
    if (this.bus.active) {
      if (n === 0) {
        const word = address >>> 2;
        if (word !== this.fetchWord) {
          this.fetchWord = word;
          this.bus.access(this, address, 0, false);
        }
      } else if (n > 1 || address !== this.PC + 2) {
        this.bus.access(this, address, ++this.busOffset, false);
      }
    }
    const v = this.rp2040.readUint16(address);
    if (n === 0) this.opcode = v;
    return v;
  }

  readUint32(address) {
    if (this.bus.active) this.bus.access(this, address >>> 0, ++this.busOffset, false);
    return this.rp2040.readUint32(address);
  }

  readUint8(address) {
    if (this.bus.active) this.bus.access(this, address >>> 0, ++this.busOffset, false);
    return this.rp2040.readUint8(address);
  }

  writeUint32(address, value) {
    if (this.bus.active) this.bus.access(this, address >>> 0, ++this.busOffset, true);
    this.rp2040.writeUint32(address, value);
  }

  writeUint16(address, value) {
    if (this.bus.active) this.bus.access(this, address >>> 0, ++this.busOffset, true);
    this.rp2040.writeUint16(address, value);
  }

  writeUint8(address, value) {
    if (this.bus.active) this.bus.access(this, address >>> 0, ++this.busOffset, true);
    this.rp2040.writeUint8(address, value);
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

  /** A return through a value that is no EXC_RETURN (B1.5.8: UNPREDICTABLE) stops the
   * model: rp2040js would unstack a frame and run on in a state no core can reach. */
  exceptionReturn(excReturn) {
    const mode = excReturn & 0xf;
    if ((excReturn & 0x0ffffff0) !== 0x0ffffff0 || (mode !== 1 && mode !== 9 && mode !== 13)) {
      throw new ModelError(
        `core ${this.index} returned from exception ${this.IPSR} through ` +
          `0x${((excReturn | 0xf0000000) >>> 0).toString(16)} at PC 0x${(this.PC - 2).toString(16)}, ` +
          `cycle ${this.cycles}: not an EXC_RETURN value (UNPREDICTABLE, Armv6-M B1.5.8; ` +
          'a Cortex-M0+ would fault): the image restored a context that is not one',
      );
    }
    super.exceptionReturn(excReturn);
    this.cycles += this.returnCycles;
  }

  /** One instruction (and any exception taken before it); the cost is in this.cycles. */
  executeInstruction() {
    this.reads16 = 0;
    this.busOffset = 0;
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
    if (op === OP_WFE || op === OP_WFI) {
      if (this.waiting && this.preemptsWithoutPrimask()) this.waiting = false;
      this.inWfe = op === OP_WFE && this.waiting;
    } else if (op === OP_SEV) {
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

  /** Asleep: wake for an exception that would preempt without PRIMASK; take it by the
   * ordinary rule (none with PRIMASK set: it stays pending until CPSIE or MSR). */
  checkForInterrupts() {
    if (!this.waiting || this.pendingNMI) return super.checkForInterrupts();
    if (!this.preemptsWithoutPrimask()) return false;
    this.waiting = false;
    this.inWfe = false;
    return this.PM ? false : super.checkForInterrupts();
  }

  preemptsWithoutPrimask() {
    const active = this.IPSR ? this.exceptionPriority(this.IPSR) : LOWEST_PRIORITY;
    if (this.pendingSVCall && this.svCallPriority < active) return true;
    if (this.pendingPendSV && this.pendSVPriority < active) return true;
    if (this.pendingSystick && this.systickPriority < active) return true;
    const set = this.pendingInterrupts & this.enabledInterrupts;
    for (let p = 0; p < active; p++) if (set & this.interruptPriorities[p]) return true;
    return false;
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
