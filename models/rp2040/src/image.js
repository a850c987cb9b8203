'use strict';
// The images a real Pico takes, turned into the bytes of its 2 MiB QSPI flash:
// a UF2 (the boot ROM's drive format), an ELF (what a probe flashes: its PT_LOAD segments
// at flash addresses) or a raw flash image (.bin, from 0x10000000). Every error names the
// file and the byte offset, and is thrown as a ModelError (one line, no stack).
const fs = require('fs');
const { ModelError } = require('./errors');

const FLASH_BASE = 0x10000000;
const FLASH_SIZE = 2 * 1024 * 1024; // the Pico's W25Q16JV
const UF2_MAGIC0 = 0x0a324655;
const UF2_MAGIC1 = 0x9e5d5157;
const UF2_MAGIC_END = 0x0ab16f30;
const UF2_FAMILY_RP2040 = 0xe48bff56;
const UF2_FLAG_NOT_MAIN = 0x1;
const UF2_FLAG_FAMILY = 0x2000;

function inFlash(path, addr, len, where) {
  if (addr < FLASH_BASE || addr + len > FLASH_BASE + FLASH_SIZE) {
    throw new ModelError(
      `${path}: ${where}: 0x${addr.toString(16)}+${len} lies outside the Pico's flash ` +
        `(0x10000000..0x10200000)`,
    );
  }
}

/** UF2 blocks (512 bytes each) -> flash bytes; every block must be an RP2040 block. */
function fromUf2(path, buf) {
  if (buf.length === 0 || buf.length % 512 !== 0) {
    throw new ModelError(`${path}: offset ${buf.length - (buf.length % 512)}: a UF2 is whole 512-byte blocks`);
  }
  const flash = new Uint8Array(FLASH_SIZE).fill(0xff);
  let written = 0;
  for (let off = 0; off < buf.length; off += 512) {
    const w = (i) => buf.readUInt32LE(off + 4 * i);
    if (w(0) !== UF2_MAGIC0 || w(1) !== UF2_MAGIC1 || buf.readUInt32LE(off + 508) !== UF2_MAGIC_END) {
      throw new ModelError(`${path}: offset ${off}: not a UF2 block (bad magic)`);
    }
    const flags = w(2);
    if (flags & UF2_FLAG_NOT_MAIN) continue;
    if (flags & UF2_FLAG_FAMILY && w(7) !== UF2_FAMILY_RP2040) {
      throw new ModelError(
        `${path}: offset ${off}: family 0x${w(7).toString(16)} is not the RP2040's (0xe48bff56)`,
      );
    }
    const addr = w(3);
    const size = w(4);
    if (size > 476) throw new ModelError(`${path}: offset ${off}: payload size ${size} > 476`);
    inFlash(path, addr, size, `offset ${off}`);
    flash.set(buf.subarray(off + 32, off + 32 + size), addr - FLASH_BASE);
    written = Math.max(written, addr - FLASH_BASE + size);
  }
  if (!written) throw new ModelError(`${path}: offset 0: no block for the RP2040's flash`);
  return { flash, size: written };
}

/** ELF32 little-endian ARM: the PT_LOAD segments with file bytes, at their physical address. */
function fromElf(path, buf) {
  if (buf.length < 52 || buf[4] !== 1 || buf[5] !== 1 || buf.readUInt16LE(18) !== 40) {
    throw new ModelError(`${path}: offset 0: not a 32-bit little-endian ARM ELF`);
  }
  const phoff = buf.readUInt32LE(28);
  const phentsize = buf.readUInt16LE(42);
  const phnum = buf.readUInt16LE(44);
  if (phoff + phnum * phentsize > buf.length) {
    throw new ModelError(`${path}: offset ${phoff}: program headers run past the end of the file`);
  }
  const flash = new Uint8Array(FLASH_SIZE).fill(0xff);
  let written = 0;
  for (let i = 0; i < phnum; i++) {
    const ph = phoff + i * phentsize;
    if (buf.readUInt32LE(ph) !== 1) continue; // PT_LOAD
    const offset = buf.readUInt32LE(ph + 4);
    const paddr = buf.readUInt32LE(ph + 12);
    const filesz = buf.readUInt32LE(ph + 16);
    if (!filesz) continue;
    if (offset + filesz > buf.length) {
      throw new ModelError(`${path}: offset ${ph}: segment ${i} runs past the end of the file`);
    }
    inFlash(path, paddr, filesz, `program header ${i} (offset ${ph})`);
    flash.set(buf.subarray(offset, offset + filesz), paddr - FLASH_BASE);
    written = Math.max(written, paddr - FLASH_BASE + filesz);
  }
  if (!written) throw new ModelError(`${path}: offset ${phoff}: no loadable segment in flash`);
  return { flash, size: written };
}

function fromBin(path, buf) {
  if (buf.length > FLASH_SIZE) {
    throw new ModelError(`${path}: offset ${FLASH_SIZE}: larger than the Pico's 2 MiB flash`);
  }
  const flash = new Uint8Array(FLASH_SIZE).fill(0xff);
  flash.set(buf, 0);
  return { flash, size: buf.length };
}

// CRC-32/MPEG-2: poly 0x04C11DB7, init 0xFFFFFFFF, no reflection, no final xor.
function crc32mpeg2(bytes) {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b << 24;
    for (let i = 0; i < 8; i++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    crc >>>= 0;
  }
  return crc >>> 0;
}

/** What the boot ROM checks before it runs boot stage 2: its CRC over the first 252 bytes. */
function checkBoot2(path, flash) {
  const want = (flash[252] | (flash[253] << 8) | (flash[254] << 16) | (flash[255] << 24)) >>> 0;
  const got = crc32mpeg2(flash.subarray(0, 252));
  if (want !== got) {
    throw new ModelError(
      `${path}: offset 252: boot stage 2 CRC 0x${want.toString(16).padStart(8, '0')} does not match ` +
        `its 252 bytes (0x${got.toString(16).padStart(8, '0')}): the boot ROM would not run this image`,
    );
  }
}

/** Reads an image file (.uf2, .elf, anything else as a raw flash image) and checks boot2. */
function loadImage(path) {
  let buf;
  try {
    buf = fs.readFileSync(path);
  } catch (e) {
    throw new ModelError(`${path}: cannot read the image (${e.code || e.message})`);
  }
  let image;
  if (buf.length >= 4 && buf.readUInt32LE(0) === UF2_MAGIC0) image = fromUf2(path, buf);
  else if (buf.length >= 4 && buf.readUInt32BE(0) === 0x7f454c46) image = fromElf(path, buf);
  else image = fromBin(path, buf);
  checkBoot2(path, image.flash);
  return image;
}

module.exports = { loadImage, crc32mpeg2, FLASH_BASE, FLASH_SIZE };
