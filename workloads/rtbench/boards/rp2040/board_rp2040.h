/* The Pico's RTOS-independent rtb_board_* hooks (board_rp2040.c); each RTOS port's
 * header (rtb_freertos.h, rtb_ucos3.h) declares the same and gives the contracts. */
#ifndef RTB_BOARD_RP2040_H
#define RTB_BOARD_RP2040_H

#include <stddef.h>
#include <stdint.h>

/* The external interrupt's input (rtbench --irq-ext): GP6, wired to marker channel 3's
 * pin (GP5) on the bench (docs/instrument-pair.md). */
#define RTB_PICO_EXT_IN_PIN 6
#define RTB_PICO_MARKER_PIN0 2

void rtb_board_init(void);
const char *rtb_board_name(void);
const char *rtb_board_clock(void);
uint32_t rtb_board_ts(void);
uint32_t rtb_board_ts_hz(void);
uint32_t rtb_board_ts_mask(void);
uint32_t rtb_board_cpu_hz(void);
uint64_t rtb_board_time_us(void);
void rtb_board_marker(int ch, int on);
void rtb_board_out(const char *s, size_t n);
void rtb_board_cache_cold(void);
const char *rtb_board_cold(void);
const char *rtb_board_warning(const char **msg);

#endif
