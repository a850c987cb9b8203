'use strict';
// The RP2040 boot ROM's lookup codes (RP2040 datasheet 2.8.3) and the pico-sdk's names for
// the soft float table's entries: what a trap message names when an image calls something
// rtlab's ROM does not provide.
const FUNCTIONS = {
  P3: 'popcount32', R3: 'reverse32', L3: 'clz32', T3: 'ctz32',
  MS: 'memset', S4: 'memset4', MC: 'memcpy', C4: 'memcpy44',
  IF: 'connect_internal_flash', EX: 'flash_exit_xip', RE: 'flash_range_erase',
  RP: 'flash_range_program', FC: 'flash_flush_cache', CX: 'flash_enter_cmd_xip',
  DT: 'debug_trampoline', DE: 'debug_trampoline_end', UB: 'reset_to_usb_boot',
  WV: 'wait_for_vector',
};
const SF_TABLE = [
  'fadd', 'fsub', 'fmul', 'fdiv', 'fcmp_fast', 'fcmp_fast_flags', 'fsqrt', 'float2int',
  'float2fix', 'float2uint', 'float2ufix', 'int2float', 'fix2float', 'uint2float', 'ufix2float',
  'fcos', 'fsin', 'ftan', 'fsincos', 'fexp', 'fln', 'fcmp_basic', 'fatan2', 'int642float',
  'fix642float', 'uint642float', 'ufix642float', 'float2int64', 'float2fix64', 'float2uint64',
  'float2ufix64', 'float2double',
];
const SD_TABLE = [
  'dadd', 'dsub', 'dmul', 'ddiv', 'dcmp_fast', 'dcmp_fast_flags', 'dsqrt', 'double2int',
  'double2fix', 'double2uint', 'double2ufix', 'int2double', 'fix2double', 'uint2double',
  'ufix2double', 'dcos', 'dsin', 'dtan', 'dsincos', 'dexp', 'dln', 'dcmp_basic', 'datan2',
  'int642double', 'fix642double', 'uint642double', 'ufix642double', 'double2int64',
  'double2fix64', 'double2uint64', 'double2ufix64', 'double2float',
];
module.exports = { FUNCTIONS, SF_TABLE, SD_TABLE };
