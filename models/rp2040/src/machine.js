'use strict';
// The board model: rp2040js's RP2040 with rtlab's core (exception and PUSH/POP cycles),
// SysTick (Armv6-M), XIP cache, the project's boot ROM and the ROM's calls into the model.
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
const { installFifo } = require('./sio_fifo');
const { ModelError } = require('./errors');
const names = require('./rom_names');

const TRAP_BASE = 0x00010000;
const TRAP_SF = 0x00030000;
const TRAP_SD = 0x00030100;
const TRAP_END = 0x00030200;
const BKPT_TRAP = 0xbef3;
const PAD_RESET = 0x56;

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
  /** rom: the boot ROM image (bytes); xipCache: model the XIP cache's misses; cycleFixes:
   * rtlab's corrections of rp2040js's cycle counts (core.js). */
  constructor({ rom, xipCache = true, cycleFixes = true }) {
    super();
    this.clockCycles = 0; // the cycle count the clock has been advanced to
    this.core = new ModelCore(this, cycleFixes);
    quiet(this.ppb); // rp2040js's, replaced
    this.ppb = new ModelPPB(this);
    this.xip = new XipCache(this, xipCache);
    this.peripherals[0x14000] = new XipCtrl(this, this.xip);
    this.logger = modelLogger(this);
    this.flashWritesIgnored = 0;
    this.onBreak = (code) => this.hypercall(code);
    // PADS_BANK0 GPIOn at reset, as silicon (RP2040 datasheet 2.19.6.3): input enabled,
    // 4 mA, pull-down, Schmitt trigger (rp2040js: 0x36, input disabled, so inputs read 0)
    for (const pin of this.gpio) pin.padValue = PAD_RESET;
    installFifo(this);
    const words = new Uint32Array(rom.buffer, rom.byteOffset, rom.length >>> 2);
    this.bootrom.fill(0);
    this.bootrom.set(words.subarray(0, this.bootrom.length));
  }

  /** Power-on: the core resets into the ROM's vector table at 0 (as silicon does). */
  powerOn(flash) {
    this.flash.fill(0xff);
    this.flash.set(flash, 0);
    this.core.VTOR = 0;
    this.core.reset();
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
        return this.xip.flush();
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
