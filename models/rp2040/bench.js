#!/usr/bin/env node
'use strict';
// rtlab's instrument bench on the model (issue 33): an RP2040 running the capture
// module's firmware, wired to the board model that runs each image (src/bench.js).
//
//   node models/rp2040/bench.js --module CAPTURE.bin [--rom ROM.bin] [--module-fd 3]
//
// The module's UART0 is file descriptor --module-fd (a pseudo-terminal's master the
// caller opened: the host driver talks to the module on its other side). While nobody
// reads that side (its buffer full for 200 ms), the module's bytes are dropped, as a
// UART's are with no host on the line, until the host writes again. Control is
// JSON lines, one per message:
//   stdin   {"cmd": "run", "image": PATH, "max_cycles": N, "xip_cache": BOOL or MODE}
//           {"cmd": "abort"}            the running board stops (reason "aborted")
//           end of input                the bench exits
//   stdout  {"event": "ready", "module_cycles": N}        once the module runs
//           {"event": "started", "cycle": N}              a board powered on
//           {"uart": "..."}                               board UART0 bytes (latin1)
//           {"event": "ended", "reason": "done"|"budget"|"error"|"aborted",
//            "message": ..., "cycles": N, ...}             the board is off the bench
// A failure of the module or the bench itself: one line on stderr, exit status 2.
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { xipMode } = require('./src/xip');
const { ModelError } = require('./src/errors');
const { loadImage } = require('./src/image');
const { Bench } = require('./src/bench');

const DEFAULT_ROM = path.join(__dirname, 'rom', 'build', 'rp2040-rom.bin');
const CHUNK = 100000; // cycles between host I/O
const IDLE_CHUNKS = 20; // chunks without a board or host byte before the bench slows

function parseArgs(argv) {
  const a = { rom: DEFAULT_ROM, module: null, fd: 3 };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    if (i + 1 >= argv.length) throw new ModelError(`${k} needs a value`);
    const v = argv[++i];
    if (k === '--rom') a.rom = v;
    else if (k === '--module') a.module = v;
    else if (k === '--module-fd') a.fd = Number(v);
    else throw new ModelError(`unknown option ${k} (see the head of ${__filename})`);
  }
  if (!a.module) throw new ModelError('--module is required (the capture firmware image)');
  return a;
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** Writes buf to fd; false when patienceMs passed with the reader not reading. */
function writeAll(fd, buf, patienceMs = Infinity) {
  let off = 0;
  let waited = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off);
      waited = 0;
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      if (waited++ >= patienceMs) return false;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
  return true;
}

function say(msg) {
  writeAll(1, Buffer.from(JSON.stringify(msg) + '\n'));
}

/** The bench and its host side: the module's link, the control commands, the loop. */
class BenchHost {
  constructor(args) {
    this.fd = args.fd;
    this.bench = new Bench({ rom: fs.readFileSync(args.rom), module: loadImage(args.module) });
    this.mod = this.bench.module;
    this.toHost = [];
    this.fromHost = [];
    this.hostGone = false;
    this.cmds = [];
    this.stdinOpen = true;
    this.idle = 0;
    this.ready = false;
    this.mod.uart[0].onByte = (b) => this.toHost.push(b);
    const link = fs.createReadStream(null, { fd: this.fd, autoClose: false, highWaterMark: 4096 });
    link.on('data', (d) => {
      this.hostGone = false;
      for (const b of d) this.fromHost.push(b);
    });
    link.on('error', () => {}); // the host closed its side: the module talks to nobody
    const rl = readline.createInterface({ input: process.stdin });
    rl.on('line', (line) => this.cmds.push(line));
    rl.on('close', () => {
      this.stdinOpen = false;
    });
  }

  command(line) {
    let c;
    try {
      c = JSON.parse(line);
    } catch (e) {
      throw new ModelError(`bench: not a JSON command: ${line.slice(0, 80)}`);
    }
    if (c.cmd === 'run') {
      let start;
      try {
        const { flash } = loadImage(c.image);
        start = this.bench.startBoard(flash, { xipCache: xipMode(c.xip_cache), maxCycles: c.max_cycles });
      } catch (e) {
        if (!(e instanceof ModelError)) throw e;
        say({ event: 'ended', reason: 'error', message: e.message, cycles: 0 });
        return;
      }
      say({ event: 'started', cycle: start });
    } else if (c.cmd === 'abort') {
      if (this.bench.board) this.bench.board.status = { reason: 'aborted' };
    } else {
      throw new ModelError(`bench: unknown command ${JSON.stringify(c.cmd)}`);
    }
  }

  /** One chunk: commands, host bytes in, CHUNK cycles, bytes and events out. */
  chunk() {
    const bench = this.bench;
    while (this.cmds.length) this.command(this.cmds.shift());
    const rx = this.mod.uart[0].rxFIFO;
    const busy = this.fromHost.length > 0 || bench.board !== null;
    while (this.fromHost.length && !rx.full) this.mod.uart[0].feedByte(this.fromHost.shift());
    const end = bench.run(bench.now + CHUNK);
    const out = bench.takeBoardOutput();
    if (out) say({ uart: out.toString('latin1') });
    if (this.toHost.length) {
      if (!this.hostGone) this.hostGone = !writeAll(this.fd, Buffer.from(this.toHost), 200);
      this.toHost = [];
    }
    if (!this.ready) {
      this.ready = true;
      say({ event: 'ready', module_cycles: bench.now });
    }
    if (end) say({ event: 'ended', ...end, ...bench.removeBoard() });
    this.idle = busy ? 0 : this.idle + 1;
  }

  loop() {
    try {
      this.chunk();
    } catch (e) {
      if (!(e instanceof ModelError)) throw e;
      process.stderr.write(`rp2040-bench: ${e.message}\n`);
      process.exit(2);
    }
    if (!this.stdinOpen && !this.cmds.length) process.exit(0);
    // idle (no board, no host byte): the module's time may lag the host's
    if (this.idle > IDLE_CHUNKS) setTimeout(() => this.loop(), 2);
    else setImmediate(() => this.loop());
  }
}

function main() {
  new BenchHost(parseArgs(process.argv)).loop();
}

try {
  main();
} catch (e) {
  if (!(e instanceof ModelError)) throw e;
  process.stderr.write(`rp2040-bench: ${e.message}\n`);
  process.exitCode = 2;
}
