/*
 * The µC/OS-III port of rtbench, board side: the board hooks (rtb_board_*, the same set
 * the FreeRTOS port uses: see ports/freertos/rtb_freertos.h for each one's contract) and
 * what the port gives the board's start-up code (rtb_ucos3_*).
 */
#ifndef RTB_UCOS3_H
#define RTB_UCOS3_H

#include <stddef.h>
#include <stdint.h>

/* --- provided by the board (contracts: ports/freertos/rtb_freertos.h) ---------------- */
void rtb_board_init(void);
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
void rtb_board_cache_cold(void); /* rtb_cache_cold: the board's caches, as after reset */
const char *rtb_board_cold(void); /* meta cold: "first_call" where there are none */
uint32_t rtb_board_systick_hz(void); /* SysTick's clock: the kernel tick's source */

/* --- provided by the port ----------------------------------------------------------- */
/* The board's IRQ handler for software-interrupt `slot` calls this: OSIntEnter, the
 * registered handler, OSIntExit (µC/OS-III switches there if a post readied a task
 * above the interrupted one: no woken flag). */
void rtb_ucos3_swi_dispatch(int slot);
/* CPU_Init, OSInit, the main task at level RTB_PRIO_MAIN running body(arg), OSStart;
 * never returns. The main task starts the tick before body. */
void rtb_ucos3_start(void (*body)(void *), void *arg, uint32_t stack_words);

#endif
