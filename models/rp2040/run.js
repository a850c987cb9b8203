#!/usr/bin/env node
'use strict';
// rtlab's RP2040 board model: runs the image a real Pico takes and prints its UART0.
//
//   node models/rp2040/run.js --image IMAGE.uf2|.elf|.bin [--rom ROM.bin]
//        [--max-cycles N] [--xip-cache two-way|compulsory|fully-associative|off] [--no-xip-cache]
//        [--xip-layout-shift BYTES[@ADDRESS]]
//        [--arbitration-ties core0-first|core1-first|core0-always|core1-always]
//        [--rp2040js-cycles] [--summary OUT.json] [--verbose]
//        [--pc-trace FILE [--pc-trace-from ADDRESS] [--pc-trace-cycles]]
//
// --xip-layout-shift: the XIP cache sees the image's second half BYTES later (a multiple
// of 8), as if that much code that never ran were linked at the middle of the image: one
// of the link layouts the image might have had (src/xip.js); @ADDRESS (0x1…) puts it there.
// --xip-cache: 'two-way' (the default) is the RP2040's 16 KiB two-way cache; 'compulsory'
// keeps only the first miss of each line after a flush (no conflict or capacity misses: a
// warm figure independent of the code's layout); 'fully-associative' is 16 KiB in one set,
// LRU (compulsory and capacity misses, no conflict misses); 'off' (or --no-xip-cache): flash reads cost what SRAM
// reads cost (rp2040js's timing). --arbitration-ties: which core a bus arbiter grants
// first when both cores of equal BUS_PRIORITY ask for its port in one cycle: round-robin
// starting with core 0 (core0-first, the default) or core 1 (core1-first), as the
// datasheet's arbiters take turns from a state it does not give; or always that core
// (core0-always, core1-always: a bound, not silicon). --rp2040js-cycles:
// rp2040js's own instruction cycle counts, without rtlab's corrections (src/core.js).
// --pc-trace: every instruction's address (and each exception entry and return) into FILE,
// from the first fetch at ADDRESS on if given (src/pctrace.js); no cycle changes;
// --pc-trace-cycles: each word followed by the core's cycle count as it starts.
//
// The core powers on in the ROM (rtlab's own, models/rp2040/rom), which checks boot
// stage 2's CRC and enters it as the RP2040's ROM does; boot2 then enters the image.
// stdout: the image's UART0 bytes, as they come. Exit status: 0 when the image printed
// `rtbench: done errors=N` (whatever N), 3 when the cycle budget ran out first, 2 on an
// error of the image or the model (one line on stderr, `rp2040-model: ...`).
const fs = require('fs');
const path = require('path');
const { ModelError } = require('./src/errors');
const { loadImage, FLASH_BASE } = require('./src/image');
const { ModelRP2040 } = require('./src/machine');
const { xipMode } = require('./src/xip');
const { tiesMode } = require('./src/bus');
const { run } = require('./src/runner');
const { attachPcTrace } = require('./src/pctrace');

const DEFAULT_ROM = path.join(__dirname, 'rom', 'build', 'rp2040-rom.bin');

function parseArgs(argv) {
  const a = { image: null, rom: DEFAULT_ROM, maxCycles: 20e9, xipCache: 'two-way', summary: null, verbose: false,
    cycleFixes: true, arbitrationTies: tiesMode(undefined), pcTrace: null, pcTraceFrom: null, pcTraceCycles: false };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    const v = () => {
      if (i + 1 >= argv.length) throw new ModelError(`${k} needs a value`);
      return argv[++i];
    };
    if (k === '--image') a.image = v();
    else if (k === '--rom') a.rom = v();
    else if (k === '--max-cycles') {
      a.maxCycles = Number(v());
      if (!Number.isSafeInteger(a.maxCycles) || a.maxCycles <= 0) {
        throw new ModelError(`--max-cycles: expected a positive integer, not ${argv[i]}`);
      }
    } else if (k === '--no-xip-cache') a.xipCache = 'off';
    else if (k === '--xip-cache') a.xipCache = xipMode(v());
    else if (k === '--xip-layout-shift') {
      const [bytes, at] = v().split('@');
      a.layoutShift = Number(bytes);
      a.layoutShiftAt = at === undefined ? null : Number(at);
      if (!Number.isInteger(a.layoutShift) || a.layoutShift < 0 || a.layoutShift % 8 ||
          (at !== undefined && !Number.isInteger(a.layoutShiftAt))) {
        throw new ModelError(`--xip-layout-shift: expected BYTES (a multiple of 8)[@ADDRESS], not ${argv[i]}`);
      }
    }
    else if (k === '--arbitration-ties') a.arbitrationTies = tiesMode(v());
    else if (k === '--rp2040js-cycles') a.cycleFixes = false;
    else if (k === '--summary') a.summary = v();
    else if (k === '--verbose') a.verbose = true;
    else if (k === '--pc-trace') a.pcTrace = v();
    else if (k === '--pc-trace-cycles') a.pcTraceCycles = true;
    else if (k === '--pc-trace-from') {
      a.pcTraceFrom = Number(v());
      if (!Number.isSafeInteger(a.pcTraceFrom) || a.pcTraceFrom < 0 || a.pcTraceFrom % 2) {
        throw new ModelError(`--pc-trace-from: expected an even address, not ${argv[i]}`);
      }
    }
    else throw new ModelError(`unknown option ${k} (see the head of ${__filename})`);
  }
  if (!a.image) throw new ModelError('--image is required');
  return a;
}

function readRom(file) {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new ModelError(`${file}: no boot ROM (${e.code}): build it with \`make -C models/rp2040/rom\``);
  }
}

/** Synchronous stdout writes (a pipe may be non-blocking: retry on EAGAIN). */
function writeOut(buf) {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(1, buf, off);
    } catch (e) {
      if (e.code === 'EAGAIN') Atomics.wait(pause, 0, 0, 1);
      else if (e.code === 'EPIPE') process.exit(0);
      else throw e;
    }
  }
}

function main() {
  const args = parseArgs(process.argv);
  const image = loadImage(args.image);
  // the middle of what the image holds, on a line boundary (image.size: its bytes in flash)
  const at = args.layoutShiftAt ?? FLASH_BASE + Math.floor(image.size / 2 / 8) * 8;
  const xipLayoutShift = args.layoutShift ? { at, bytes: args.layoutShift } : null;
  const mcu = new ModelRP2040({
    rom: readRom(args.rom), xipCache: args.xipCache, cycleFixes: args.cycleFixes, xipLayoutShift,
    arbitrationTies: args.arbitrationTies,
  });
  mcu.powerOn(image.flash);
  const trace = args.pcTrace ? attachPcTrace(mcu, args.pcTrace, args.pcTraceFrom, args.pcTraceCycles) : null;
  const t0 = process.hrtime.bigint(); // wall time for the summary only, never the model's
  let result;
  try {
    result = run(mcu, { maxCycles: args.maxCycles, write: writeOut });
  } finally {
    if (trace) trace.close();
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const summary = {
    reason: result.reason,
    cycles: result.cycles,
    instructions: result.instructions,
    clk_sys_hz: mcu.clkSys,
    xip_cache: args.xipCache,
    xip_layout_shift: xipLayoutShift ? { at: xipLayoutShift.at, bytes: xipLayoutShift.bytes } : null,
    cycle_fixes: args.cycleFixes,
    xip_misses: mcu.xip.misses,
    xip_stall_cycles: mcu.xip.stallCycles,
    xip_flush_stall_cycles: mcu.xip.flushStallCycles,
    arbitration_ties: args.arbitrationTies,
    bus_ties: mcu.bus.tiesSeen,
    exceptions: mcu.cores[0].exceptionsTaken + mcu.cores[1].exceptionsTaken,
    core1_instructions: mcu.cores[1].instructions + mcu.retiredInstructions,
    core1_resets: mcu.coreResets,
    fifo_words: mcu.fifos.words,
    bus_stall_cycles: mcu.bus.stallCycles,
    bus_conflicts: mcu.bus.conflictsByPort(),
    warnings: mcu.logger.warnings,
    core_state: mcu.cores.map((c) => ({
      pc: c.PC >>> 0, lr: c.LR >>> 0, sp: c.SP >>> 0, ipsr: c.IPSR, primask: c.PM ? 1 : 0,
      waiting: c.waiting ? (c.inWfe ? 'wfe' : 'wfi') : '', held: c.held,
      pending: c.pendingInterrupts >>> 0, enabled: c.enabledInterrupts >>> 0,
    })),
    wall_s: wall,
    emulated_mhz: result.cycles / wall / 1e6,
  };
  if (args.summary) fs.writeFileSync(args.summary, JSON.stringify(summary, null, 1) + '\n');
  if (args.verbose) {
    for (const w of mcu.logger.kept) process.stderr.write(`rp2040-model: warning: ${w}\n`);
    process.stderr.write(`rp2040-model: ${JSON.stringify(summary)}\n`);
  }
  if (result.reason === 'budget') {
    process.stderr.write(
      `rp2040-model: the cycle budget (${args.maxCycles}) ran out before \`rtbench: done\`\n`,
    );
    process.exitCode = 3;
  }
}

try {
  main();
} catch (e) {
  if (!(e instanceof ModelError)) throw e;
  process.stderr.write(`rp2040-model: ${e.message}\n`);
  process.exitCode = 2;
}
