'use strict';
// The ROM's memcpy, memcpy44, memset and memset4 ('MC', 'C4', 'MS', 'S4'), each called on
// the real model as an image calls it (looked up in the ROM's function table, entered
// with LR pointing at a stop), for 4, 16, 64 and 256 bytes at each alignment: the cycles
// from its first instruction to its return (its BX LR included, the caller's BL not), and
// whether the bytes it wrote, and only those, are right. One JSON object on stdout;
// tests/models/rp2040/test_rom_copy.py holds the counts the TRM's table gives.
const fs = require('fs');
const path = require('path');
const { ModelRP2040 } = require('../src/machine');

const rom = fs.readFileSync(path.join(__dirname, '..', 'rom', 'build', 'rp2040-rom.bin'));
const mcu = new ModelRP2040({ rom });
const core = mcu.cores[0];
mcu.select(0);
const STOP = 0x20000000; // `b .`: the return lands here
const SRC = 0x20010000;
const DEST = 0x20020000;
const ROOM = 512;
mcu.writeUint16(STOP, 0xe7fe);
core.SP = 0x20040000;

/** rom_func_lookup: the function table at the 16-bit pointer at 0x14. */
function lookup(c1, c2) {
  const code = c1.charCodeAt(0) | (c2.charCodeAt(0) << 8);
  for (let e = mcu.readUint16(0x14); mcu.readUint16(e); e += 4) {
    if (mcu.readUint16(e) === code) return mcu.readUint16(e + 2);
  }
  throw new Error(`no ROM function ${c1}${c2}`);
}

/** Calls fn(r0, r1, r2); the cycles it took. */
function call(fn, r0, r1, r2) {
  core.registers[0] = r0;
  core.registers[1] = r1;
  core.registers[2] = r2;
  core.LR = STOP | 1;
  core.PC = fn & ~1;
  const c0 = core.cycles;
  for (let n = 0; core.PC !== STOP; n++) {
    if (n > 100000) throw new Error(`ROM function at 0x${fn.toString(16)} did not return`);
    core.executeInstruction();
  }
  if (core.registers[0] !== r0) throw new Error('the result is not dest');
  return core.cycles - c0;
}

function fillPattern(base, seed) {
  for (let i = 0; i < ROOM; i++) mcu.writeUint8(base + i, (i * 7 + seed) & 0xff);
}

/** true when dest[d, d+n) holds want(i) and every other byte of the room is untouched. */
function check(d, n, want) {
  for (let i = 0; i < ROOM; i++) {
    const inside = i >= d && i < d + n;
    const v = mcu.readUint8(DEST + i);
    if (v !== (inside ? want(i - d) : (i * 7 + 99) & 0xff)) return false;
  }
  return true;
}

const SIZES = [4, 16, 64, 256];
const out = {};
const wrong = [];
function copy(name, fn, d, s) {
  for (const n of SIZES) {
    fillPattern(SRC, 1);
    fillPattern(DEST, 99);
    const cycles = call(fn, DEST + d, SRC + s, n);
    out[`${name} ${n} dest+${d} src+${s}`] = cycles;
    if (!check(d, n, (i) => mcu.readUint8(SRC + s + i))) wrong.push(`${name} ${n} dest+${d} src+${s}`);
  }
}
function fill(name, fn, d) {
  for (const n of SIZES) {
    fillPattern(DEST, 99);
    const cycles = call(fn, DEST + d, 0x1a5, n); // only the low byte counts: 0xa5
    out[`${name} ${n} dest+${d}`] = cycles;
    if (!check(d, n, () => 0xa5)) wrong.push(`${name} ${n} dest+${d}`);
  }
}
const MC = lookup('M', 'C');
const C4 = lookup('C', '4');
const MS = lookup('M', 'S');
const S4 = lookup('S', '4');
for (const d of [0, 1, 2, 3]) copy('MC', MC, d, d); // co-aligned: head bytes, then words
copy('MC', MC, 1, 0); // not co-aligned: bytes
copy('MC', MC, 2, 0);
copy('C4', C4, 0, 0);
for (const d of [0, 1, 2, 3]) fill('MS', MS, d);
fill('S4', S4, 0);
process.stdout.write(`${JSON.stringify({ cycles: out, wrong })}\n`);
