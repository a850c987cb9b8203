'use strict';
// The inter-core FIFOs of the SIO, seen from core 0 of a model with no core 1 yet
// (issue 32 adds it): rp2040js 1.4.1 has no FIFO registers (FIFO_ST reads as 0xFFFFFFFF,
// "data waiting" with VLD, forever). Here core 0's receive FIFO stays empty (FIFO_ST.VLD = 0,
// FIFO_RD reads 0 and sets ROE) and its transmit FIFO is ready; the first write ends the
// run with one line: on silicon it reaches core 1 (launching it, in the SDK's handshake),
// which the model does not have, so the image would wait for an answer forever.
const { ModelError } = require('./errors');

const FIFO_ST = 0x50;
const FIFO_WR = 0x54;
const FIFO_RD = 0x58;
const ST_RDY = 2;
const ST_ROE = 8;

/** Wraps mcu.sio's register access with core 0's view of the FIFOs. */
function installFifo(mcu) {
  const sio = mcu.sio;
  const read = sio.readUint32.bind(sio);
  const write = sio.writeUint32.bind(sio);
  let roe = false;
  sio.readUint32 = (offset) => {
    if (offset === FIFO_ST) return ST_RDY | (roe ? ST_ROE : 0);
    if (offset === FIFO_RD) {
      roe = true;
      return 0;
    }
    return read(offset);
  };
  sio.writeUint32 = (offset, value) => {
    if (offset === FIFO_ST) {
      roe = false; // any write clears the sticky error flags
      return;
    }
    if (offset === FIFO_WR) {
      throw new ModelError(
        `the image wrote 0x${(value >>> 0).toString(16)} to the inter-core FIFO (launching ` +
          'core 1?): the model has no core 1 yet (issue 32)',
      );
    }
    write(offset, value);
  };
}

module.exports = { installFifo };
