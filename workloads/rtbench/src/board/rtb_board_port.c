/*
 * The board half of rtbench_port.h, once for every RTOS port on a board layer: the
 * counter, the output, the markers and the cache hook forward to the board interface
 * (rtb_board.h). Each is one call deep, as every port's own copy was, so a measured
 * primitive executes the same instructions whichever RTOS runs it.
 *
 * A port whose kernel owns the marker and the caches on some boards (Zephyr on QEMU:
 * no pin, the kernel's cache API) builds with RTB_PORT_OWNS_PINS and defines
 * rtb_marker_set/clear and rtb_cache_cold itself.
 */
#include "rtb_board.h"
#include "rtbench_port.h"

uint32_t rtb_ts(void) { return rtb_board_ts(); }
uint32_t rtb_ts_hz(void) { return rtb_board_ts_hz(); }
uint32_t rtb_ts_mask(void) { return rtb_board_ts_mask(); }
void rtb_out_write(const char *line, size_t len) { rtb_board_out(line, len); }
void rtb_out_flush(void) {}

#ifndef RTB_PORT_OWNS_PINS
void rtb_cache_cold(void) { rtb_board_cache_cold(); }
RTB_RAMFUNC void rtb_marker_set(int ch) { rtb_board_marker(ch, 1); }
RTB_RAMFUNC void rtb_marker_clear(int ch) { rtb_board_marker(ch, 0); }
#endif

/* Optional board hooks a board that has nothing to say leaves out. */
__attribute__((weak)) uint32_t rtb_board_tick_hz(void) { return rtb_board_cpu_hz(); }
__attribute__((weak)) uint32_t rtb_board_start_delay_ms(void) { return 0; }
