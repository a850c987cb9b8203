'use strict';
// The board model: rp2040js's RP2040 with rtlab's cores (exception and PUSH/POP cycles),
// SysTick (Armv6-M), XIP cache, the project's boot ROM and the ROM's calls into the model.
//
// Two cores (issue 32): cores[0] and cores[1], each a ModelCore with its own registers,
// NVIC state, VTOR, sleep state and event register, and its own PPB (ppbs[i]: NVIC
// registers, SCB, SysTick). rp2040js reaches "the" core and PPB as mcu.core and mcu.ppb:
// select(i) points both (and mcu.coreIndex, the SIO's CPUID) at the core about to be
// stepped, so every bus access is made as that core (runner.js steps them). Interrupt
// lines go to both NVICs, as on silicon, except SIO_IRQ_PROC0/1 (each core's own FIFO,
// sio.js) and IO_IRQ_BANK0 (each core's own enables, io_bank0.js). SEV reaches the other
// core (signalEvent). The PSM's FRCE_OFF.PROC1 holds core 1 in reset; clearing it resets
// core 1 into the ROM, which waits for the launch handshake (rom/rom_core1.S).
//
// The ROM (models/rp2040/rom) reaches the model through BKPT hypercalls (the model is
// its "hardware" for what rp2040js does not emulate: the flash's erase and program
// commands); a function the ROM does not provide is a trap address the model names:
//   0x00010000 + 2 * code         rom_func_lookup(code), code = two ASCII characters
//   0x00030000 + 4 * entry index  the soft float table ('SF'), 0x00030100 the double ('SD')
const { RP2040 } = require('./rp2040js');
const { ModelCore } = require('./core');
const { ModelPPB, quiet } = require('./systick');
const { XipCache, XipCtrl } = require('./xip');
const { installSio } = require('./sio');
const { installIoProc1 } = require('./io_bank0');
const { ModelError } = require('./errors');
const { BusFabric, installBusPriority } = require('./bus');
const names = require('./rom_names');

const TRAP_BASE = 0x00010000;
const TRAP_SF = 0x00030000;
const TRAP_SD = 0x00030100;
const TRAP_END = 0x00030200;
const BKPT_TRAP = 0xbef3;
const PAD_RESET = 0x56;
const IO_IRQ_BANK0 = 13;
const PSM_FRCE_OFF = 0x04;
const PSM_PROC1 = 1 << 16;

const HC_FLASH_ERASE = 0xf0;
const HC_FLASH_PROGRAM = 0xf1;
const HC_FLASH_FLUSH = 0xf2;
const HC_TRAP = 0xf3;
const HC_USB_BOOT = 0xf4;

function hex(v) {
  return `0x${(v >>> 0).toString(16).padStart(8, '0')}`;
}

/** rp2040js's log: warnings counted (first few kept), its errors and unknown opcodes fatal. */
function modelLogger(mcu) {
  const kept = [];
  return {
    warnings: 0,
    kept,
    debug() {},
    info() {},
    warn(component, message) {
      if (message.includes('is not implemented')) {
        const pc = mcu.core.PC - 2;
        throw new ModelError(
          `undefined instruction 0x${mcu.readUint16(pc).toString(16)} at ${hex(pc)} ` +
            '(rp2040js does not implement it; silicon would take a HardFault)',
        );
      }
      this.warnings++;
      if (kept.length < 20) kept.push(`[${component}] ${message}`);
    },
    error(component, message) {
      throw new ModelError(`[${component}] ${message} at PC ${hex(mcu.core.PC)}`);
    },
  };
}

class ModelRP2040 extends RP2040 {
  /** rom: the boot ROM image (bytes); xipCache: the XIP cache's mode (src/xip.js); cycleFixes:
   * rtlab's corrections of rp2040js's cycle counts (core.js); arbitrationTies: who wins a
   * bus tie between equal priorities first (src/bus.js TIES); clock: a SimulationClock
   * shared with another chip (runner.js Scheduler steps chips of one clock together);
   * xipLayoutShift: the XIP cache's view of a layout shift {at, bytes} (src/xip.js). */
  constructor({
    rom, xipCache = true, cycleFixes = true, arbitrationTies = undefined, clock = undefined,
    xipLayoutShift = null,
  }) {
    super(clock);
    this.clockCycles = 0; // the cycle count the clock has been advanced to
    this.cycleFixes = cycleFixes;
    quiet(this.ppb); // rp2040js's, replaced
    this.bus = new BusFabric(this, arbitrationTies); // before the cores: each keeps a reference
    installBusPriority(this);
    this.cores = [new ModelCore(this, cycleFixes, 0), new ModelCore(this, cycleFixes, 1)];
    this.ppbs = this.cores.map((core) => new ModelPPB(this, core));
    this.coreResets = 0; // core 1's resets through the PSM
    this.retiredInstructions = 0; // instructions of core 1 before its last reset
    this.select(0);
    this.xip = new XipCache(this, xipCache, xipLayoutShift);
    this.peripherals[0x14000] = new XipCtrl(this, this.xip);
    this.logger = modelLogger(this);
    this.flashWritesIgnored = 0;
    this.onBreak = (code) => this.hypercall(code);
    // PADS_BANK0 GPIOn at reset, as silicon (RP2040 datasheet 2.19.6.3): input enabled,
    // 4 mA, pull-down, Schmitt trigger (rp2040js: 0x36, input disabled, so inputs read 0)
    for (const pin of this.gpio) pin.padValue = PAD_RESET;
    this.fifos = installSio(this);
    this.core1IoLevel = installIoProc1(this);
    this.installPsm();
    const words = new Uint32Array(rom.buffer, rom.byteOffset, rom.length >>> 2);
    this.bootrom.fill(0);
    this.bootrom.set(words.subarray(0, this.bootrom.length));
  }

  /** Power-on: both cores reset into the ROM's vector table at 0 (as silicon does); core
   * 1 finds CPUID 1 there and waits for its vector. */
  powerOn(flash) {
    this.flash.fill(0xff);
    this.flash.set(flash, 0);
    for (let i = 0; i < this.cores.length; i++) {
      this.select(i);
      this.core.VTOR = 0;
      this.core.reset();
    }
    this.select(0);
  }

  /** Instructions run by both cores so far. */
  instructions() {
    return this.cores[0].instructions + this.cores[1].instructions + this.retiredInstructions;
  }

  /** Makes core i the one bus accesses come from (CPUID, its PPB, its cycle count). */
  select(i) {
    this.coreIndex = i;
    this.core = this.cores[i];
    this.ppb = this.ppbs[i];
  }

  /** A peripheral's interrupt line: to both cores' NVICs (IO_IRQ_BANK0: updateIOInterrupt). */
  setInterrupt(irq, value) {
    if (!this.cores) return super.setInterrupt(irq, value); // rp2040js's constructor
    this.cores[0].setInterrupt(irq, value);
    if (irq !== IO_IRQ_BANK0) this.cores[1].setInterrupt(irq, value);
    return undefined;
  }

  /** Each core's IO_IRQ_BANK0 from its own enables and forces (io_bank0.js). */
  updateIOInterrupt() {
    super.updateIOInterrupt(); // core 0's, as rp2040js computes it
    if (this.core1IoLevel) this.cores[1].setInterrupt(IO_IRQ_BANK0, this.core1IoLevel());
  }

  /** SEV on core `from`: the event reaches the other core (TXEV -> RXEV); a core it
   * wakes resumes no earlier than the cycle after the SEV. */
  signalEvent(from) {
    const other = this.cores[1 - from];
    if (other.held) return;
    const wasAsleep = other.waiting;
    other.receiveEvent();
    if (wasAsleep && !other.waiting) other.cycles = Math.max(other.cycles, this.cores[from].cycles + 1);
  }

  /** PSM FRCE_OFF.PROC1: set, core 1 stops; cleared, core 1 resets into the ROM. */
  installPsm() {
    const psm = this.peripherals[0x40010];
    const write = psm.writeUint32.bind(psm);
    psm.writeUint32 = (offset, value) => {
      write(offset, value);
      if (offset !== PSM_FRCE_OFF) return;
      const off = (psm.frceOff & PSM_PROC1) !== 0;
      if (off && !this.cores[1].held) this.cores[1].held = true;
      else if (!off && this.cores[1].held) this.resetCore1();
    };
  }

  /** Core 1 out of reset: fresh registers, NVIC, SysTick and event register, into the
   * ROM at the time of the write that released it. */
  resetCore1() {
    const now = this.core.cycles;
    const current = this.coreIndex;
    this.ppbs[1].retire();
    this.retiredInstructions += this.cores[1].instructions;
    this.cores[1] = new ModelCore(this, this.cycleFixes, 1);
    this.ppbs[1] = new ModelPPB(this, this.cores[1]);
    this.select(1);
    this.core.VTOR = 0;
    this.core.reset();
    this.core.cycles = now;
    this.select(current);
    this.coreResets++;
    this.fifos.update();
  }

  readUint32(address) {
    address >>>= 0;
    if (address < 0x20000000 && address >= 0x10000000) {
      if (address < 0x14000000) this.xip.access(address);
      else if (address >>> 24 === 0x15) return this.xip.sramView.getUint32(address & 0x3ffc, true);
    }
    return super.readUint32(address);
  }

  readUint16(address) {
    if (address < 0x20000000) {
      if (address >= 0x10000000) {
        if (address < 0x14000000) this.xip.access(address);
        else if (address >>> 24 === 0x15) return this.xip.sramView.getUint16(address & 0x3ffe, true);
      } else if (address >= TRAP_BASE && address < TRAP_END) {
        return BKPT_TRAP;
      }
    }
    return super.readUint16(address);
  }

  readUint8(address) {
    if (address < 0x20000000 && address >= 0x10000000) {
      if (address < 0x14000000) this.xip.access(address);
      else if (address >>> 24 === 0x15) return this.xip.sram[address & 0x3fff];
    }
    return super.readUint8(address);
  }

  /** Writes: the ROM and the flash aliases are read-only; 0x15 is the XIP cache's SRAM. */
  writeGuard(address) {
    if (address < 0x10000000) return true; // ROM
    if (address < 0x14000000) {
      this.flashWritesIgnored++;
      return true;
    }
    return false;
  }

  writeUint32(address, value) {
    address >>>= 0;
    if (address < 0x20000000) {
      if (address >>> 24 === 0x15) return this.xip.sramView.setUint32(address & 0x3ffc, value, true);
      if (this.writeGuard(address)) return undefined;
    }
    return super.writeUint32(address, value);
  }

  writeUint16(address, value) {
    if (address < 0x20000000) {
      if (address >>> 24 === 0x15) return this.xip.sramView.setUint16(address & 0x3ffe, value, true);
      if (this.writeGuard(address)) return undefined;
    }
    return super.writeUint16(address, value);
  }

  writeUint8(address, value) {
    if (address < 0x20000000) {
      if (address >>> 24 === 0x15) {
        this.xip.sram[address & 0x3fff] = value;
        return undefined;
      }
      if (this.writeGuard(address)) return undefined;
    }
    return super.writeUint8(address, value);
  }

  /** BKPT #code: the ROM's calls into the model; anything else ends the run. */
  hypercall(code) {
    const core = this.core;
    const r = core.registers;
    const pc = core.PC - 2;
    const trap = pc >= TRAP_BASE && pc < TRAP_END;
    const op = trap ? BKPT_TRAP : super.readUint16(pc);
    if ((op & 0xff00) !== 0xbe00) {
      throw new ModelError(`undefined instruction (UDF #${code}) at ${hex(pc)}: silicon takes a HardFault`);
    }
    switch (code) {
      case HC_FLASH_ERASE:
        return this.flashErase(r[0], r[1]);
      case HC_FLASH_PROGRAM:
        return this.flashProgram(r[0], r[1], r[2]);
      case HC_FLASH_FLUSH:
        return this.xip.startFlush();
      case HC_TRAP:
        throw new ModelError(this.trapMessage(pc));
      case HC_USB_BOOT:
        throw new ModelError(
          'the image called the ROM\'s reset_to_usb_boot (\'UB\'): a Pico would reboot into BOOTSEL mode',
        );
      default:
        throw new ModelError(
          `BKPT #${code} at ${hex(pc)}, LR ${hex(core.LR)}: no debugger is attached ` +
            '(silicon takes a HardFault; the SDK\'s panic() ends this way)',
        );
    }
  }

  trapMessage(pc) {
    const caller = hex(this.core.LR & ~1);
    if (pc >= TRAP_SF) {
      const table = pc >= TRAP_SD ? 'SD' : 'SF';
      const index = (pc - (pc >= TRAP_SD ? TRAP_SD : TRAP_SF)) >>> 2;
      const entry = (table === 'SF' ? names.SF_TABLE : names.SD_TABLE)[index] || `entry ${index}`;
      return `the image called ${entry} of the ROM's soft ${table === 'SF' ? 'float' : 'double'} ` +
        `table ('${table}' + ${index * 4}), which rtlab's ROM does not provide (from ${caller})`;
    }
    const code = (pc - TRAP_BASE) >>> 1;
    const text = String.fromCharCode(code & 0xff, code >>> 8);
    const name = names.FUNCTIONS[text] || 'an unknown function';
    return `the image called ROM function '${text}' (${name}), which rtlab's ROM does not provide ` +
      `(from ${caller})`;
  }

  flashErase(offset, count) {
    if (offset % 4096 || count % 4096 || offset + count > this.flash.length) {
      throw new ModelError(`flash_range_erase(${hex(offset)}, ${count}): not whole 4 KiB sectors of the flash`);
    }
    this.flash.fill(0xff, offset, offset + count);
  }

  flashProgram(offset, data, count) {
    if (offset % 256 || count % 256 || offset + count > this.flash.length) {
      throw new ModelError(`flash_range_program(${hex(offset)}, ${count}): not whole 256-byte pages of the flash`);
    }
    for (let i = 0; i < count; i++) this.flash[offset + i] &= super.readUint8(data + i); // 1 -> 0 only
  }
}

module.exports = { ModelRP2040, TRAP_BASE, TRAP_SF, TRAP_SD };
