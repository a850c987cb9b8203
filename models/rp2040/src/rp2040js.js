'use strict';
// rp2040js's modules by file: its package "exports" names only the index, and the model
// extends classes the index does not export (the PPB, the Cortex-M0+ core).
const path = require('path');

const dist = path.dirname(require.resolve('rp2040js'));
function rp2040js(rel) {
  return require(path.join(dist, rel));
}
module.exports = { rp2040js, RP2040: rp2040js('rp2040.js').RP2040 };
