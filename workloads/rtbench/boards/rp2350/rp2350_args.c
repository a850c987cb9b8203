/* The options built into a Pico 2 image (it has no command line): a file of its own, so
 * another option set recompiles this file alone (CMakeLists.txt: RTB_RP2350_ARGS). */
#include "mps2.h"

#ifndef RP2350_ARGS
#define RP2350_ARGS ""
#endif

const char *mps2_cmdline(void) { return RP2350_ARGS; }
