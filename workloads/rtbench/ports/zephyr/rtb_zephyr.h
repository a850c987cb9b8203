/*
 * The Zephyr port of rtbench, board side: what a board gives the port (rtb_zboard_*) and
 * what the port gives the board's start-up (rtb_zephyr_*).
 *
 * Zephyr owns start-up, the system timer, the console and the interrupt table; a board
 * adds only what the suite needs beyond that: the benchmark counter (the same one the
 * FreeRTOS port reads on that machine, so the two kernels are timed alike), software
 * interrupt lines, and how the program gets its options and ends (boards/qemu-mps2/
 * board_zephyr.c: CMSDK TIMER0, NVIC lines, semihosting).
 */
#ifndef RTB_ZEPHYR_H
#define RTB_ZEPHYR_H

#include <stddef.h>
#include <stdint.h>

/* --- provided by the board ---------------------------------------------------------- */
void rtb_zboard_init(void);             /* counter, software-interrupt lines */
const char *rtb_zboard_name(void);      /* token: "mps2-an385" */
const char *rtb_zboard_clock(void);     /* what rtb_zboard_ts reads: "cmsdk_timer0_icount" */
uint32_t rtb_zboard_cpu_hz(void);       /* for cycle conversion; 0 when unknown */
uint32_t rtb_zboard_ts(void);           /* free-running up-counter */
uint32_t rtb_zboard_ts_hz(void);
uint32_t rtb_zboard_ts_mask(void);
void rtb_zboard_out(const char *s, size_t n); /* polled, blocking */
#ifdef RTB_ZBOARD_HOOKS /* a board with a pin and caches (ports/zephyr/upstream) */
void rtb_zboard_marker(int ch, int on); /* the instrument's pin */
void rtb_zboard_cache_cold(void);       /* empties the flash path's caches (rtb_cache_cold) */
const char *rtb_zboard_cold(void);      /* meta cold: what it empties, "first_call": none */
#endif
/* Software interrupts: `slots` IRQ lines whose handlers call rtb_zephyr_swi_dispatch. */
int rtb_zboard_swi_slots(void);
void rtb_zboard_swi_enable(int slot, int core);
void rtb_zboard_swi_disable(int slot);
void rtb_zboard_swi_pend(int slot); /* returns after the handler ran, on the same core */
const char *rtb_zboard_warning(const char **msg); /* set-up warning, NULL when none */
const char *rtb_zboard_cmdline(void);             /* the options; "" when none */
void rtb_zboard_exit(int status) __attribute__((noreturn));

/* --- provided by the port ----------------------------------------------------------- */
/* The board's ISR for software-interrupt `slot` (interrupt context). Zephyr's interrupt
 * exit reschedules on its own: no "woken" flag to carry. */
void rtb_zephyr_swi_dispatch(int slot);
/* Runs body(arg) in the calling thread (Zephyr's main thread) at level RTB_PRIO_MAIN,
 * after the heap baseline is taken. */
void rtb_zephyr_main(void (*body)(void *), void *arg);

#endif
