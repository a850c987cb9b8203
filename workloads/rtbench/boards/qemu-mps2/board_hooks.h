/* The mps2 board's RTOS-independent rtb_board_* hooks (board_hooks.c). */
#ifndef RTB_MPS2_BOARD_HOOKS_H
#define RTB_MPS2_BOARD_HOOKS_H

#include <stddef.h>
#include <stdint.h>

/* UART, TIMER0, the icount probe, the software-interrupt lines at swi_priority. */
void rtb_mps2_board_init(uint32_t swi_priority);
/* The calling core's own NVIC lines: software interrupts (at swi_priority) off, and on
 * a two-core machine its inter-core interrupt on (each core calls it once). */
void rtb_mps2_core_lines_init(uint32_t swi_priority);
#if BOARD_CORES > 1
/* Runs fn(arg) on `core` (its NVIC is only reachable from there); the RTOS glue's. */
void rtb_mps2_run_on_core(int core, void (*fn)(int), int arg);
#endif

const char *rtb_board_name(void);
const char *rtb_board_clock(void);
uint32_t rtb_board_cpu_hz(void);
uint32_t rtb_board_ts(void);
uint32_t rtb_board_ts_hz(void);
uint32_t rtb_board_ts_mask(void);
uint64_t rtb_board_time_us(void);
void rtb_board_marker(int ch, int on);
void rtb_board_out(const char *s, size_t n);
int rtb_board_swi_slots(void);
void rtb_board_swi_enable(int slot, int core);
void rtb_board_swi_disable(int slot);
void rtb_board_swi_pend(int slot);
const char *rtb_board_warning(const char **msg);
void rtb_board_cache_cold(void);
const char *rtb_board_cold(void);

#endif
