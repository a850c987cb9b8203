'use strict';
// The RP2040's XIP cache in front of the QSPI flash (RP2040 datasheet 2.6.3): 16 KiB,
// two-way set-associative, 8-byte lines (1024 sets), least-recently-used way replaced.
// Address aliases: 0x10 cached and allocating, 0x11 looked up but not allocating on a
// miss, 0x12 not looked up but allocating, 0x13 neither (a flash access every time).
// XIP_CTRL (0x14000000): CTRL.EN off sends every access to the flash and makes the
// 16 KiB at 0x15000000 plain SRAM; FLUSH (write 1) empties the cache; STAT reads
// FLUSH_READY and an empty stream FIFO; CTR_HIT / CTR_ACC count the model's lookups
// (one per halfword fetch or data access, not per 32-bit bus access as on silicon).
//
// A miss stalls the core for the flash transfer of one line as boot stage 2 left the
// SSI (XIP_SSI at 0x18000000): see missCycles and docs/rp2040-model.md. While both cores
// run, the miss holds the XIP port of the bus fabric for the transfer (bus.js
// holdLonger): one AHB-Lite slave, one SSI, so the other core's flash accesses and its
// own misses wait their turn.
//
// FLUSH (2.6.3.2): "zeroing the cache tag memory using an internal counter, which takes
// just over 1024 clock cycles"; "any master accessing flash data while the flush is in
// progress will be stalled until completion"; reading FLUSH holds the bus until it is
// done; STAT.FLUSH_READY reads 0 meanwhile. The model's flush takes FLUSH_CYCLES from the
// write (1024 sets and one cycle: "just over" is not given more precisely).
//
// Modes (`mode`): 'two-way' is the cache above; 'compulsory' keeps only the compulsory
// misses: a line misses the first time it is read after a flush and hits from then on (an
// ideal cache: no conflict or capacity misses), so a warm figure does not depend on where
// the linker put the code (on the 2-way cache it does, by a miss of 60 cycles per conflict);
// 'fully-associative' is a 16 KiB cache of 2048 lines in one set, least-recently-used line
// replaced: the compulsory and the capacity misses of the 3C model (Hill), no conflict
// misses, so a figure keeps what a working set larger than the cache costs (two cores
// running a kernel from one cache) without moving with the link layout;
// 'off' is rp2040js's timing (a flash read costs an SRAM read, no miss ever).
//
// A layout shift (`shift`: {at, bytes}) is where the linker might have put the code: the
// cache sees every flash address from `at` on `bytes` later, as if that much code that
// never runs were linked there (a multiple of the 8-byte line: what follows keeps its
// alignment). The two-way cache's conflict misses follow it; the other modes' do not.
const { BasePeripheral } = require('rp2040js');
const { ModelError } = require('./errors');

const SETS = 1024;
const FLASH_LINES = (16 * 1024 * 1024) / 8; // the 16 MiB the XIP window addresses
const MODES = ['two-way', 'compulsory', 'fully-associative', 'off'];
const LINES = 2 * SETS; // 16 KiB of 8-byte lines
const XIP_SRAM_SIZE = 16 * 1024;
// SSI-to-bus overhead of a line fill beyond the serial clocks: chip select and the
// XIP interface's own cycles, an estimate (the datasheet gives no figure).
const XIP_OVERHEAD_CYCLES = 4;
const FLUSH_CYCLES = SETS + 1;
const XIP_PORT = 1; // bus.js: the crossbar's XIP slave port

class XipCache {
  /** mode: one of MODES; true and false stay for 'two-way' and 'off'; shift: a layout
   * shift {at, bytes} (see the top of the file) or null. */
  constructor(mcu, mode, shift = null) {
    this.mode = xipMode(mode);
    this.shiftAt = shift ? layoutShift(shift).at & 0xffffff : 0;
    this.shiftBytes = shift ? layoutShift(shift).bytes : 0;
    this.mcu = mcu;
    this.modelled = this.mode !== 'off';
    // 'compulsory': a bit per flash line, set once the line has been read since the flush
    this.loaded = this.mode === 'compulsory' ? new Uint32Array(FLASH_LINES / 32) : null;
    this.full = this.mode === 'fully-associative' ? new LruLines(LINES) : null;
    this.en = true; // CTRL.EN
    this.tags = new Int32Array(2 * SETS).fill(-1);
    this.lru = new Uint8Array(SETS); // the way to replace next
    this.hits = 0;
    this.accesses = 0;
    this.misses = 0;
    this.stallCycles = 0;
    this.flushUntil = 0; // the cycle the flush in progress ends (0: none since power-on)
    this.flushStallCycles = 0; // cycles masters waited for a flush
    this.sram = new Uint8Array(XIP_SRAM_SIZE);
    this.sramView = new DataView(this.sram.buffer);
  }

  /** The cycle the current core's access is made at (its count, the instruction's
   * accesses so far). */
  now() {
    const core = this.mcu.core;
    return core.cycles + core.busOffset;
  }

  /** FLUSH written 1: the tags clear now, masters touching the flash wait FLUSH_CYCLES. */
  startFlush() {
    this.flush();
    if (this.modelled) this.flushUntil = this.now() + FLUSH_CYCLES;
  }

  /** The current core waits for a flush in progress (a flash access or a FLUSH read). */
  waitFlush() {
    const wait = this.flushUntil - this.now();
    if (wait > 0) {
      this.mcu.core.cycles += wait;
      this.flushStallCycles += wait;
    }
  }

  flush() {
    this.tags.fill(-1);
    if (this.loaded) this.loaded.fill(0);
    if (this.full) this.full.clear();
  }

  /** clk_sys cycles to bring one 8-byte line from the flash, from the SSI's setup. */
  missCycles() {
    const ssi = this.mcu.peripherals[0x18000];
    const frf = (ssi.crtlr0 >>> 21) & 3; // 0 standard, 1 dual, 2 quad
    const width = frf === 2 ? 4 : frf === 1 ? 2 : 1;
    const spi = ssi.spictlr0 >>> 0;
    const transType = spi & 3; // 0: all on one line, 1: address wide, 2: instruction too
    const instBits = [0, 4, 8, 16][(spi >>> 8) & 3];
    const addrBits = ((spi >>> 2) & 0xf) * 4;
    const wait = (spi >>> 11) & 0x1f;
    const baud = ssi.baudr & 0xfffe || 4; // SCK = clk_sys / BAUDR (even); the ROM's 4 before boot2
    const inst = transType === 2 ? instBits / width : instBits;
    const addr = transType >= 1 ? addrBits / width : addrBits;
    const sck = inst + addr + wait + 64 / width;
    return sck * baud + XIP_OVERHEAD_CYCLES;
  }

  /** An access to a flash alias: the stall it costs is added to the core's cycles. */
  access(address) {
    if (!this.modelled) return;
    if (this.flushUntil > this.mcu.core.cycles) this.waitFlush();
    const alias = (address >>> 24) & 3;
    let offset = address & 0xffffff;
    if (this.shiftBytes && offset >= this.shiftAt) offset = (offset + this.shiftBytes) & 0xffffff;
    const line = offset >>> 3;
    if (this.loaded) return this.accessCompulsory(alias, line);
    if (this.full) return this.accessFullyAssociative(alias, line);
    const set = line & (SETS - 1);
    const tag = line >>> 10;
    const i = set << 1;
    if (this.en && alias <= 1) {
      this.accesses++;
      if (this.tags[i] === tag) {
        this.hits++;
        this.lru[set] = 1;
        return;
      }
      if (this.tags[i + 1] === tag) {
        this.hits++;
        this.lru[set] = 0;
        return;
      }
    }
    this.stall();
    if (this.en && (alias & 1) === 0) {
      const way = this.lru[set];
      this.tags[i + way] = tag;
      this.lru[set] = way ^ 1;
    }
  }

  /** A miss: the core stalls for one line's transfer from the flash. */
  stall() {
    const cost = this.missCycles();
    const mcu = this.mcu;
    this.misses++;
    this.stallCycles += cost;
    if (mcu.bus.active) mcu.bus.holdLonger(mcu.core, XIP_PORT, cost);
    mcu.core.cycles += cost;
  }

  /** access() in 'compulsory' mode: a miss only for a line not read since the flush. */
  accessCompulsory(alias, line) {
    const word = line >>> 5;
    const bit = 1 << (line & 31);
    if (this.en && alias <= 1) {
      this.accesses++;
      if (this.loaded[word] & bit) {
        this.hits++;
        return;
      }
    }
    this.stall();
    if (this.en && (alias & 1) === 0) this.loaded[word] |= bit;
  }

  /** access() in 'fully-associative' mode: a miss for a line not among the last 2048 used. */
  accessFullyAssociative(alias, line) {
    if (this.en && alias <= 1) {
      this.accesses++;
      if (this.full.touch(line)) {
        this.hits++;
        return;
      }
    }
    this.stall();
    if (this.en && (alias & 1) === 0) this.full.insert(line);
  }
}

/** A set of flash lines in least-recently-used order: a doubly linked list over slots, and
 * a slot per flash line (0: not held), so a hit and a replacement are O(1). */
class LruLines {
  constructor(size) {
    this.size = size;
    this.slotOf = new Int32Array(FLASH_LINES); // slot + 1 of each held line
    this.lineOf = new Int32Array(size).fill(-1);
    this.prev = new Int32Array(size);
    this.next = new Int32Array(size);
    this.clear();
  }

  clear() {
    for (let s = 0; s < this.size; s++) {
      if (this.lineOf[s] >= 0) this.slotOf[this.lineOf[s]] = 0;
      this.lineOf[s] = -1;
      this.prev[s] = s - 1; // slot 0 most recent, the last slot least
      this.next[s] = s + 1 < this.size ? s + 1 : -1;
    }
    this.head = 0;
    this.tail = this.size - 1;
  }

  /** true when the line is held; it becomes the most recently used. */
  touch(line) {
    const slot = this.slotOf[line] - 1;
    if (slot < 0) return false;
    this.toFront(slot);
    return true;
  }

  /** Holds the line in place of the least recently used one. */
  insert(line) {
    if (this.touch(line)) return; // an allocating alias that skips the lookup (0x12)
    const slot = this.tail;
    if (this.lineOf[slot] >= 0) this.slotOf[this.lineOf[slot]] = 0;
    this.lineOf[slot] = line;
    this.slotOf[line] = slot + 1;
    this.toFront(slot);
  }

  toFront(slot) {
    if (slot === this.head) return;
    const p = this.prev[slot];
    const n = this.next[slot];
    this.next[p] = n;
    if (n >= 0) this.prev[n] = p;
    else this.tail = p;
    this.prev[slot] = -1;
    this.next[slot] = this.head;
    this.prev[this.head] = slot;
    this.head = slot;
  }
}

/** A mode from the options: one of MODES (true and false: 'two-way' and 'off'). */
function xipMode(mode) {
  if (mode === true || mode === undefined) return 'two-way';
  if (mode === false) return 'off';
  if (!MODES.includes(mode)) {
    throw new ModelError(`xip cache mode ${JSON.stringify(mode)}: expected one of ${MODES.join(', ')}`);
  }
  return mode;
}

/** XIP_CTRL at 0x14000000 (with the atomic set/clear/xor aliases of every register block). */
class XipCtrl extends BasePeripheral {
  constructor(mcu, cache) {
    super(mcu, 'XIP_CTRL');
    this.cache = cache;
    this.errBadWrite = true;
    this.powerDown = false;
  }

  readUint32(offset) {
    const c = this.cache;
    switch (offset & 0xfff) {
      case 0x00:
        return (c.en ? 1 : 0) | (this.errBadWrite ? 2 : 0) | (this.powerDown ? 8 : 0);
      case 0x04:
        c.waitFlush(); // FLUSH: the read holds the bus until the flush is done
        return 0;
      case 0x08: // STAT: FLUSH_READY unless a flush is in progress; stream FIFO empty
        return c.now() < c.flushUntil ? 0x2 : 0x3;
      case 0x0c:
        return c.hits >>> 0;
      case 0x10:
        return c.accesses >>> 0;
      default:
        return 0;
    }
  }

  writeUint32(offset, value) {
    const c = this.cache;
    switch (offset & 0xfff) {
      case 0x00:
        c.en = !!(value & 1);
        this.errBadWrite = !!(value & 2);
        this.powerDown = !!(value & 8);
        return;
      case 0x04:
        if (value & 1) c.startFlush();
        return;
      case 0x0c:
        c.hits = 0;
        return;
      case 0x10:
        c.accesses = 0;
        return;
      default:
        return;
    }
  }
}

/** A layout shift as given ({at, bytes}), checked: bytes a multiple of 8 up to 64 KiB. */
function layoutShift(shift) {
  const { at, bytes } = shift;
  if (!Number.isInteger(bytes) || bytes < 0 || bytes > 65536 || bytes % 8) {
    throw new ModelError(`layout shift: ${bytes} bytes: expected a multiple of 8 in 0..65536`);
  }
  if (!Number.isInteger(at) || at < 0x10000000 || at >= 0x11000000) {
    throw new ModelError(`layout shift: at 0x${Number(at).toString(16)}: expected a flash address`);
  }
  return { at, bytes };
}

module.exports = { XipCache, XipCtrl, XIP_OVERHEAD_CYCLES, FLUSH_CYCLES, xipMode };
