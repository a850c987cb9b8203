'use strict';
// IO_IRQ_BANK0 per core (RP2040 datasheet 2.19.3): each core has its own interrupt enable,
// force and status registers for bank 0's GPIO events (PROC0_INTE/INTF/INTS at 0x100..,
// PROC1_ at 0x130..), and its own IO_IRQ_BANK0 line (IRQ 13) into its NVIC. rp2040js 1.4.1
// has PROC0's only (its pins' irqEnableMask, irqForceMask) and one line; this adds PROC1's
// registers and drives each core's line (machine.js updateIOInterrupt). The pins' raw event
// status (INTR) is shared, as on silicon; the pins' IRQ override (IRQOVER) is applied to
// core 0's line only (rp2040js's), not to core 1's.
const INTE1 = 0x130;
const INTF1 = 0x140;
const INTS1 = 0x150;
const LAST1 = 0x15c;

/** Adds PROC1_INTE/INTF/INTS to IO_BANK0 and re-evaluates both cores' lines whenever a
 * pin's event status changes (rp2040js re-evaluates only when core 0's view changes). */
function installIoProc1(mcu) {
  const io = mcu.peripherals[0x40014];
  const enable = new Uint8Array(mcu.gpio.length);
  const force = new Uint8Array(mcu.gpio.length);
  const read = io.readUint32.bind(io);
  const write = io.writeUint32.bind(io);
  io.readUint32 = (offset) => {
    if (offset < INTE1 || offset > LAST1) return read(offset);
    const first = (offset & 0xf) * 2;
    const reg = offset & ~0xf;
    let v = 0;
    for (let i = 7; i >= 0; i--) {
      const pin = mcu.gpio[first + i];
      if (!pin) continue;
      const n = first + i;
      const bits = reg === INTE1 ? enable[n] : reg === INTF1 ? force[n] : (pin.irqStatus & enable[n]) | force[n];
      v = (v << 4) | bits;
    }
    return v >>> 0;
  };
  io.writeUint32 = (offset, value) => {
    if (offset < INTE1 || offset > LAST1) return write(offset, value);
    const first = (offset & 0xf) * 2;
    const reg = offset & ~0xf;
    if (reg === INTS1) return undefined; // read-only
    for (let i = 0; i < 8 && first + i < mcu.gpio.length; i++) {
      (reg === INTE1 ? enable : force)[first + i] = (value >>> (4 * i)) & 0xf;
    }
    mcu.updateIOInterrupt();
    return undefined;
  };
  for (const pin of mcu.gpio) {
    for (const name of ['setInputValue', 'updateIRQValue']) {
      const f = pin[name].bind(pin);
      pin[name] = (v) => {
        f(v);
        mcu.updateIOInterrupt();
      };
    }
  }
  /** Core 1's IO_IRQ_BANK0 level. */
  return () => {
    for (let n = 0; n < mcu.gpio.length; n++) {
      if ((mcu.gpio[n].irqStatus & enable[n]) | force[n]) return true;
    }
    return false;
  };
}

module.exports = { installIoProc1 };
