'use strict';
// SysTick as the Armv6-M Architecture Reference Manual (B3.3) defines it, replacing
// rp2040js 1.4.1's (which counts a free 24-bit timer, reloads only after its own wrap,
// ignores CLKSOURCE and takes a write to CVR as "count from 0 through 0xFFFFFF"):
//
// - the counter decrements once per clock; counting from 1 to 0 sets COUNTFLAG and, with
//   TICKINT, pends the SysTick exception; on the clock after 0 it loads RVR, so the period
//   is RVR + 1 clocks, and RVR = 0 stops it at 0 with no event;
// - a write to CVR (any value) clears it and COUNTFLAG, with no event: the next clock loads RVR;
// - a write to RVR changes the next reload only; reading CSR clears COUNTFLAG;
// - CLKSOURCE = 1: the processor clock (the core's cycles); 0: the RP2040's external
//   reference, the watchdog's 1 us tick. SYST_CALIB reads 0, as the RP2040's does (RP2040
//   datasheet 2.4.8, M0PLUS SYST_CALIB: NOREF, SKEW and TENMS reset to 0, read-only):
//   no calibration value is given.
//
// The counter is computed from its value at a base time, so it costs nothing per cycle;
// a clock alarm at the next 1 -> 0 transition pends the exception (and wakes WFI).
const { RPPPB } = require('./rp2040js').rp2040js('peripherals/ppb.js');

const SYST_CSR = 0x010;
const SYST_RVR = 0x014;
const SYST_CVR = 0x018;
const SYST_CALIB = 0x01c;
const NVIC_ICPR = 0x280;

class SysTick {
  /** core: the core whose SysTick this is (its cycles, its pending bit). */
  constructor(mcu, core) {
    this.mcu = mcu;
    this.core = core;
    this.enabled = false;
    this.tickint = false;
    this.clksource = false;
    this.rvr = 0; // UNKNOWN at reset on silicon; 0 here
    this.t0 = 0; // base time (ticks of the selected clock) and the counter then
    this.v0 = 0;
    this.flag = false;
    this.flagT = 0; // events up to this time are folded into flag
    this.alarm = mcu.clock.createAlarm(() => this.onEvent());
  }

  /** Now, in ticks of the selected clock: the core's cycles so far, including the cycles
   * already charged to the running instruction before its access (an exception entry, an
   * XIP stall), as the bus sees them. */
  now() {
    return this.clksource ? this.core.cycles : Math.floor(this.mcu.clock.nanos / 1000);
  }

  value(t) {
    if (!this.enabled) return this.v0;
    const e = t - this.t0;
    if (e <= this.v0) return this.v0 - e;
    if (this.rvr === 0) return 0;
    return this.rvr - ((e - this.v0 - 1) % (this.rvr + 1));
  }

  /** The first 1 -> 0 transition strictly after time a, or -1. */
  nextEvent(a) {
    if (!this.enabled) return -1;
    const first = this.t0 + this.v0;
    if (this.v0 > 0 && first > a) return first;
    if (this.rvr === 0) return -1;
    const p = this.rvr + 1;
    const k = Math.max(1, Math.floor((a - first) / p) + 1);
    return first + k * p;
  }

  fold(t) {
    const e = this.nextEvent(this.flagT);
    if (e >= 0 && e <= t) this.flag = true;
    this.flagT = t;
  }

  /** New base at now (before any register change), then the alarm for the next event. */
  rebase() {
    const t = this.now();
    this.fold(t);
    this.v0 = this.value(t);
    this.t0 = t;
    return t;
  }

  schedule() {
    this.alarm.cancel();
    const e = this.nextEvent(this.now());
    if (e < 0) return;
    const mcu = this.mcu;
    const nanos = this.clksource
      ? (e - mcu.clockCycles) * (1e9 / mcu.clkSys)
      : e * 1000 - mcu.clock.nanos;
    this.alarm.schedule(Math.max(nanos, 0));
  }

  onEvent() {
    if (this.tickint) {
      const core = this.core;
      core.pendingSystick = true;
      core.interruptsUpdated = true;
      if (core.waiting && core.checkForInterrupts()) core.waiting = false;
    }
    this.schedule();
  }

  read(offset) {
    const t = this.now();
    switch (offset) {
      case SYST_CSR: {
        this.fold(t);
        const v = (this.flag ? 1 << 16 : 0) | (this.clksource ? 4 : 0) | (this.tickint ? 2 : 0) | (this.enabled ? 1 : 0);
        this.flag = false;
        return v;
      }
      case SYST_RVR:
        return this.rvr;
      case SYST_CVR:
        return this.value(t);
      default: // SYST_CALIB: NOREF, SKEW and TENMS all 0 on the RP2040
        return 0;
    }
  }

  write(offset, value) {
    switch (offset) {
      case SYST_CSR: {
        this.rebase();
        const enable = !!(value & 1);
        this.tickint = !!(value & 2);
        const clksource = !!(value & 4);
        if (clksource !== this.clksource) {
          this.clksource = clksource; // the count carries over into the other clock's ticks
          this.t0 = this.flagT = this.now();
        }
        if (enable && !this.enabled) this.t0 = this.flagT = this.now();
        this.enabled = enable;
        break;
      }
      case SYST_RVR:
        this.rebase();
        this.rvr = value & 0xffffff;
        break;
      case SYST_CVR:
        this.rebase();
        this.v0 = 0;
        this.flag = false;
        break;
      default:
        return;
    }
    this.schedule();
  }
}

/** Stops rp2040js's own SysTick timer (its alarm would still fire every 2^24 cycles). */
function quiet(ppb) {
  ppb.systickAlarm.enable = false;
  ppb.systickTimer.enable = false;
}

/** One core's PPB with rtlab's SysTick and NVIC ICPR; everything else (NVIC, SCB) is
 * rp2040js's, which reaches the core as mcu.core: the machine points mcu.core and mcu.ppb
 * at the core it steps (machine.js select), so an access reaches its own core's PPB. */
class ModelPPB extends RPPPB {
  constructor(mcu, core) {
    super(mcu, 'PPB');
    quiet(this);
    this.core = core;
    this.systick = new SysTick(mcu, core);
  }

  /** A core reset: its SysTick stops (no alarm left behind). */
  retire() {
    this.systick.alarm.cancel();
  }

  readUint32(offset) {
    if (offset >= SYST_CSR && offset <= SYST_CALIB) return this.systick.read(offset);
    return super.readUint32(offset);
  }

  writeUint32(offset, value) {
    if (offset === NVIC_ICPR) {
      // any line's pending bit clears; one still asserted by its peripheral stays pending
      const core = this.core;
      core.pendingInterrupts = (core.pendingInterrupts & ~value) | (core.irqLevel & value);
      return;
    }
    if (offset >= SYST_CSR && offset <= SYST_CALIB) {
      // super's constructor resets SysTick through here before this.systick exists
      if (this.systick) this.systick.write(offset, value >>> 0);
      return;
    }
    super.writeUint32(offset, value);
  }
}

module.exports = { ModelPPB, SysTick, quiet };
