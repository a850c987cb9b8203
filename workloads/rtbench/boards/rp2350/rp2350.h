/*
 * The RP2350 board layer's chip half (rp2350.c): it provides the mps2 layer's chip
 * interface (mps2.h: UART, counter, exit, command line) so that layer's Cortex-M code
 * (cortexm.c, startup.c, board_lines.c, board_<rtos>.c; the start-up is the core's
 * src/board/rtb_main.c) runs unchanged on a
 * Pico 2, plus the clock tree, the marker pins, TIMER0 and the XIP cache. The board's
 * facts are BOARD_* and RP2350_* macros from machines/<board>.toml (CMakeLists.txt).
 */
#ifndef RP2350_H
#define RP2350_H

#include <stddef.h>
#include <stdint.h>

#include "mps2.h"
#include "rp2350_regs.h"

#if !defined(RP2350_SYSCLK_HZ) || !defined(RP2350_MARKER_PIN) || !defined(RP2350_UART_TX_PIN)
#error "build through boards/rp2350/CMakeLists.txt: it defines RP2350_* from machines/<b>.toml"
#endif

#define RP2350_MARKERS 4 /* channels 0..3 on the marker pin and the three after it */

extern uint32_t rp2350_sysclk_hz; /* clk_sys = the core clock = DWT CYCCNT's rate */
void rp2350_clock_init(void);
void rp2350_marker(int ch, int on); /* one SIO set/clear store */
uint64_t rp2350_time_us(void);      /* TIMER0, 64 bits of microseconds since reset */
void rp2350_xip_cache_invalidate(void);

#endif
