/*
 * The FreeRTOS port of rtbench, board side: what a board layer gives the port
 * (rtb_board_*) and what the port gives the board's start-up code (rtb_freertos_*).
 *
 * The port (rtb_port_freertos.c) is board-independent: the counter, the UART, the GPIO
 * markers and the software-interrupt lines come from these hooks. A board implements
 * them (boards/qemu-mps2/, boards/rp2040/) and routes each of its software-interrupt
 * IRQ handlers to rtb_freertos_swi_dispatch(slot).
 */
#ifndef RTB_FREERTOS_H
#define RTB_FREERTOS_H

#include <stddef.h>
#include <stdint.h>

#include "rtbench.h"

/* --- provided by the board ---------------------------------------------------------- */
void rtb_board_init(void);            /* clocks, UART, counter; before the scheduler */
const char *rtb_board_name(void);     /* token: "mps2-an385", "pico" */
const char *rtb_board_clock(void);    /* what rtb_board_ts reads: "cmsdk_timer0" */
uint32_t rtb_board_cpu_hz(void);      /* for cycle conversion; 0 when unknown */
uint32_t rtb_board_ts(void);          /* free-running up-counter */
uint32_t rtb_board_ts_hz(void);
uint32_t rtb_board_ts_mask(void);
uint64_t rtb_board_time_us(void);     /* monotonic µs (any context) */
void rtb_board_marker(int ch, int on); /* GPIO marker, one register write */
void rtb_board_out(const char *s, size_t n); /* polled, blocking */
/* Software interrupts: `slots` IRQ lines, each made to fire on `core` only. */
int rtb_board_swi_slots(void);
void rtb_board_swi_enable(int slot, int core);
void rtb_board_swi_disable(int slot);
void rtb_board_swi_pend(int slot); /* returns after the handler ran, on the same core */
/* Optional: the slot (>= rtb_board_swi_slots(), < 8) whose line is the board's external
 * GPIO edge interrupt (rtb_extirq_create); swi_enable/disable/pend take it too. The port's
 * weak default, -1, means none. */
int rtb_board_extirq_slot(void);
/* Optional set-up warning (e.g. "icount_unknown"); NULL when none. */
const char *rtb_board_warning(const char **msg);
/* Flushes the board's flash/instruction caches (rtb_cache_cold), and says how: a token
 * for meta cold, "first_call" where there is nothing to flush. */
void rtb_board_cache_cold(void);
const char *rtb_board_cold(void);

/* --- provided by the port ----------------------------------------------------------- */
/* The board's IRQ handler for software-interrupt `slot` calls this (interrupt context):
 * runs the registered handler, then yields if a *_from_isr call woke a higher task. */
void rtb_freertos_swi_dispatch(int slot);
/* Heap accounting hook: FreeRTOSConfig.h maps traceMALLOC onto it. */
void rtb_freertos_heap_note(void);
/* Creates the main task at level RTB_PRIO_MAIN running body(arg) and starts the
 * scheduler; never returns. body runs rtbench_run and ends the program its own way. */
void rtb_freertos_start(void (*body)(void *), void *arg, uint32_t stack_words);

#endif
