/*
 * rtbench's board interface: what a board gives every RTOS port, declared once.
 *
 * A board layer (boards/<board>/) implements these once, and every RTOS port built on
 * that board reads them (FreeRTOS, µC/OS-III and Zephyr share them; the POSIX port's
 * "board" is the host, which its OS owns). The RTOS side (threads, semaphores, queues,
 * the interrupt entry and exit) is rtbench_port.h; the software-interrupt pool between
 * the two is the core's (src/rtb_swi.c): the board gives IRQ lines, and the line's
 * handler calls rtb_swi_dispatch(slot).
 *
 * Which functions a build needs: all but the optional ones below. Contracts in full:
 * docs/porting.md ("The board interface").
 */
#ifndef RTB_BOARD_H
#define RTB_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "rtbench_port.h"

/* --- identity, clock ------------------------------------------------------------------ */
void rtb_board_init(void);         /* clocks, UART, counter, lines; before the scheduler */
const char *rtb_board_name(void);  /* token: "mps2-an385", "pico" (meta board) */
const char *rtb_board_clock(void); /* what rtb_board_ts reads: "cmsdk_timer0" (meta clock) */
uint32_t rtb_board_cpu_hz(void);   /* for cycle conversion; 0 when unknown */
/* A set-up warning every run repeats (e.g. "icount_model"), NULL when none. */
const char *rtb_board_warning(const char **msg);

/* --- cycle counter and time ------------------------------------------------------------ */
uint32_t rtb_board_ts(void); /* free-running up-counter wrapping at a power of two */
uint32_t rtb_board_ts_hz(void);
uint32_t rtb_board_ts_mask(void);
uint64_t rtb_board_time_us(void); /* monotonic µs (any context) */

/* --- console, markers, caches --------------------------------------------------------- */
void rtb_board_out(const char *s, size_t n); /* polled, blocking: UART or semihosting */
void rtb_board_marker(int ch, int on);       /* GPIO marker, one register write */
/* Empties the board's flash/instruction caches (rtb_cache_cold), and says how: a token
 * for meta cold, "first_call" where there is nothing to flush. */
void rtb_board_cache_cold(void);
const char *rtb_board_cold(void);

/* --- software-interrupt lines (the core's pool, src/rtb_swi.c, hands them out) -------- */
int rtb_board_swi_slots(void);                 /* lines 0 .. slots-1 (at most 8) */
void rtb_board_swi_enable(int slot, int core); /* the line fires on `core` only */
void rtb_board_swi_disable(int slot);
void rtb_board_swi_pend(int slot); /* returns after the handler ran, on the same core */
/* Optional: the slot (>= rtb_board_swi_slots(), < 8) whose line is the board's external
 * GPIO edge interrupt (rtb_extirq_create); swi_enable/disable/pend take it too. The
 * core's weak default, -1, means none. */
int rtb_board_extirq_slot(void);

/* --- start-up and end (the shared start-up, src/rtb_main.c) -------------------------- */
/* The options, one line in the POSIX port's syntax (semihosting command line, a
 * compiled-in string; "" when none). */
const char *rtb_board_cmdline(void);
/* Ends the program with `status` (semihosting exit: QEMU exits with it; on silicon a
 * final "rtbench: done errors=N" line). */
void rtb_board_exit(int status) __attribute__((noreturn));
/* Optional: the wait before the first scenario when the options give no --start-delay-ms
 * (time to open the serial port of a board that starts printing at reset: the Pico's
 * 2 s); the core's weak default is 0. */
uint32_t rtb_board_start_delay_ms(void);
/* Optional: the clock of the kernel's tick timer (SysTick), for a kernel that programs
 * it itself (µC/OS-III); the core's weak default is rtb_board_cpu_hz(). */
uint32_t rtb_board_tick_hz(void);

/* --- for a port's rtb_port_init ------------------------------------------------------- */
/* The board's part of rtb_port_info (board, clock, cpu_hz, cold) and its set-up
 * warning, noted. Inline: each port's init runs it as its own code. */
static inline void rtb_board_describe(rtb_port_info *info)
{
    info->board = rtb_board_name();
    info->clock = rtb_board_clock();
    info->cpu_hz = rtb_board_cpu_hz();
    info->cold = rtb_board_cold();
    const char *msg = NULL;
    const char *code = rtb_board_warning(&msg);
    if (code)
        rtb_port_note_warning(code, msg);
}

/* --- provided by the core, called by the board ---------------------------------------- */
/* The IRQ handler of line `slot` calls this (interrupt context): the port's interrupt
 * entry, the handler rtb_swi_create registered, the port's interrupt exit. */
void rtb_swi_dispatch(int slot);

#endif
