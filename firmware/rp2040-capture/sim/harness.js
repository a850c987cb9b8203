#!/usr/bin/env node
// Lockstep rp2040js harness for the rtlab capture firmware.
//
// Loads the flat flash image (boot2 at 0x10000000, CRC checked here because the
// package has no bootrom), then advances CPU and PIO together: one PIO step per system
// clock, honouring SM enable, clock divider and [delay] (stock rp2040js steps PIO on a
// timer and ignores both). Input edges are driven at exact cycles relative to the
// capture origin: the cycle of the first sample after the start gate (GPIO 29) opens.
//
//   node harness.js --bin fw.bin [--edges edges.json] [--loop OUT:IN]
//                   [--max-cycles N] [--exit-after-stopped] [--summary out.json] [--usb]
//                   [--dma-pause CH:FROM:TO]  (DMA channel CH serves no request between
//                   those cycles after the origin: its PIO FIFO fills, the SM stalls)
// UART0 TX bytes go to stdout, stdin bytes go to UART0 RX (a pty works as well). With
// --usb the host side is rp2040js's USBCDC helper instead: it enumerates the firmware's
// own CDC-ACM device, and the CDC data pipe is connected to stdin/stdout.
'use strict';
const fs = require('fs');
const path = require('path');
const { RP2040, StateMachine, ConsoleLogger, LogLevel, USBCDC } = require('rp2040js');
const { patch } = require(path.join(__dirname, '../../../models/rp2040/src/pio_lockstep.js'));

const SYNC_GPIO = 29;

function parseArgs(argv) {
  const a = { bin: null, edges: null, loop: [], maxCycles: 2e9, exitAfterStopped: false, summary: null,
             usb: false, dmaPause: null };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    const v = () => argv[++i];
    if (k === '--bin') a.bin = v();
    else if (k === '--edges') a.edges = v();
    else if (k === '--loop') a.loop.push(v().split(':').map(Number));
    else if (k === '--max-cycles') a.maxCycles = Number(v());
    else if (k === '--exit-after-stopped') a.exitAfterStopped = true;
    else if (k === '--summary') a.summary = v();
    else if (k === '--usb') a.usb = true;
    else if (k === '--dma-pause') a.dmaPause = v().split(':').map(Number); // ch:from:to
    else throw new Error(`unknown option ${k}`);
  }
  if (!a.bin) throw new Error('--bin is required');
  return a;
}

// CRC-32/MPEG-2: poly 0x04C11DB7, init 0xFFFFFFFF, no reflection, no final xor.
function crc32mpeg2(buf) {
  let crc = 0xffffffff;
  for (const b of buf) {
    crc ^= b << 24;
    for (let i = 0; i < 8; i++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    crc >>>= 0;
  }
  return crc >>> 0;
}

function checkBoot2(image) {
  if (crc32mpeg2(Buffer.from('123456789')) !== 0x0376e6e7) throw new Error('crc self-check');
  const want = image.readUInt32LE(252);
  const got = crc32mpeg2(image.subarray(0, 252));
  if (want !== got) {
    throw new Error(`boot2 CRC mismatch: stored 0x${want.toString(16)}, computed 0x${got.toString(16)}`);
  }
}

// Silicon-like stepping, once per system clock, for every state machine: the project's
// models/rp2040/src/pio_lockstep.js, applied to this harness's copy of rp2040js.
function patchStateMachine(stats) {
  patch(StateMachine, (sm, gpio) => {
    if (gpio === SYNC_GPIO && stats.origin < 0) stats.origin = stats.cycle + 1;
  });
}

// Frames: 0xA5, type, len, seq (2), payload, CRC-8 (poly 0x07) of type..payload.
function frameWatcher(onFrame) {
  const crcTable = [];
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let b = 0; b < 8; b++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
    crcTable.push(c);
  }
  let buf = [];
  return (byte) => {
    if (buf.length === 0 && byte !== 0xa5) return;
    buf.push(byte);
    while (buf.length >= 6 && buf.length >= 6 + buf[2]) {
      const n = 6 + buf[2];
      let crc = 0;
      for (let i = 1; i < n - 1; i++) crc = crcTable[crc ^ buf[i]];
      if (crc === buf[n - 1]) {
        onFrame(buf[1]);
        buf = buf.slice(n);
      } else {
        buf = buf.slice(1); // resynchronise on the next sync byte
      }
      const next = buf.indexOf(0xa5);
      buf = next < 0 ? [] : buf.slice(next);
    }
  };
}

function loadEdges(path) {
  if (!path) return { initial: {}, events: [] };
  const spec = JSON.parse(fs.readFileSync(path, 'utf8'));
  // spec: {"initial": {"2": 0}, "toggles": {"2": [c0, c1, ...]}} cycles relative to origin
  const events = [];
  for (const [pin, cycles] of Object.entries(spec.toggles || {})) {
    let level = (spec.initial || {})[pin] ? 1 : 0;
    for (const c of cycles) {
      level ^= 1;
      events.push([c, Number(pin), level]);
    }
  }
  events.sort((x, y) => x[0] - y[0]);
  return { initial: spec.initial || {}, events };
}

function main() {
  const args = parseArgs(process.argv);
  const image = fs.readFileSync(args.bin);
  checkBoot2(image);
  const mcu = new RP2040();
  mcu.logger = new ConsoleLogger(LogLevel.Error);
  mcu.flash.set(image, 0);
  mcu.core.PC = 0x10000000;
  mcu.core.SP = 0x20041f00;
  mcu.core.LR = 0;
  for (const pio of mcu.pio) pio.run = () => {};

  const stats = { cycle: 0, origin: -1, txBytes: 0, stopped: -1, instructions: 0 };
  patchStateMachine(stats);
  const { initial, events } = loadEdges(args.edges);
  for (const [pin, level] of Object.entries(initial)) mcu.gpio[Number(pin)].setInputValue(!!level);
  for (const [out, inp] of args.loop) {
    mcu.gpio[out].addListener(() => mcu.gpio[inp].setInputValue(mcu.gpio[out].outputValue));
  }

  // Watch the TX stream for a STOPPED frame (type 7) to end the run on request.
  let out = [];
  const watch = frameWatcher((type) => {
    if (type === 0x07) stats.stopped = stats.cycle; // the latest STOPPED frame
  });
  const fromDevice = (b) => {
    out.push(b);
    stats.txBytes++;
    watch(b);
  };
  let cdc = null;
  stats.usbConnectedCycle = -1;
  if (args.usb) {
    cdc = new USBCDC(mcu.usbCtrl);
    cdc.onDeviceConnected = () => { stats.usbConnectedCycle = stats.cycle; };
    cdc.onSerialData = (buf) => { for (const b of buf) fromDevice(b); };
    mcu.uart[0].onByte = () => {};
  } else {
    mcu.uart[0].onByte = fromDevice;
  }
  const input = [];
  process.stdin.on('data', (d) => { for (const b of d) input.push(b); });
  let stdinOpen = true;
  process.stdin.on('end', () => { stdinOpen = false; });

  const machines = [...mcu.pio[0].machines, ...mcu.pio[1].machines];
  let paused = null;
  if (args.dmaPause) {
    const chan = mcu.dma.channels[args.dmaPause[0]];
    const orig = chan.scheduleTransfer.bind(chan);
    paused = { chan, orig, from: args.dmaPause[1], to: args.dmaPause[2], on: false };
    chan.scheduleTransfer = () => { if (!paused.on) orig(); };
  }
  const { core, clock } = mcu;
  let ev = 0;
  const CHUNK = 200000;
  const t0 = Date.now();

  function finish() {
    flush();
    const wall = (Date.now() - t0) / 1000;
    const summary = { ...stats, wall_s: wall, emulated_mhz: stats.cycle / wall / 1e6,
                      edges_driven: ev, edges_total: events.length };
    if (args.summary) fs.writeFileSync(args.summary, JSON.stringify(summary));
    process.exit(0);
  }
  // Synchronous writes with retry: a pty master is non-blocking and fills up (EAGAIN).
  const pause = new Int32Array(new SharedArrayBuffer(4));
  function flush() {
    const buf = Buffer.from(out);
    out = [];
    let off = 0;
    while (off < buf.length) {
      try {
        off += fs.writeSync(1, buf, off);
      } catch (e) {
        if (e.code === 'EAGAIN') {
          Atomics.wait(pause, 0, 0, 1);
        } else if (e.code === 'EPIPE') {
          process.exit(0);
        } else {
          throw e;
        }
      }
    }
  }
  function runChunk() {
    // Host bytes: at most what the 32-byte RX FIFO takes.
    if (cdc) {
      while (input.length && cdc.txFIFO.itemCount < 256) cdc.sendSerialByte(input.shift());
    } else {
      const rx = mcu.uart[0].rxFIFO;
      while (input.length && !rx.full) mcu.uart[0].feedByte(input.shift());
    }
    const end = stats.cycle + CHUNK;
    while (stats.cycle < end) {
      const n = core.executeInstruction();
      stats.instructions++;
      for (let i = 0; i < n; i++) {
        clock.tick(8);
        if (stats.origin >= 0) {
          const rel = stats.cycle - stats.origin;
          if (paused) {
            const on = rel >= paused.from && rel < paused.to;
            if (paused.on && !on) {
              paused.on = false;
              paused.orig(); // resume: serve the pending request
            }
            paused.on = on;
          }
          while (ev < events.length && events[ev][0] <= rel) {
            mcu.gpio[events[ev][1]].setInputValue(!!events[ev][2]);
            ev++;
          }
        }
        for (let m = 0; m < 8; m++) machines[m].step();
        stats.cycle++;
      }
    }
    flush();
    // --exit-after-stopped: once the host closed stdin and a capture has been reported.
    const doneStopped = args.exitAfterStopped && !stdinOpen && !input.length && stats.stopped >= 0;
    if (stats.cycle >= args.maxCycles || doneStopped) {
      finish();
      return;
    }
    setImmediate(runChunk);
  }
  runChunk();
}

main();
