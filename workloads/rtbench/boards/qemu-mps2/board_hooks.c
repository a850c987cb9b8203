/*
 * The mps2 board's rtb_board_* hooks (include/rtb_board.h): counter, clock names,
 * marker, UART, the icount warning; the software-interrupt lines, command line and exit
 * are board_lines.c (shared with the STM32 and RP2350 layers, whose stm32_hooks.c and
 * rp2350_hooks.c are this file's twins). Every RTOS on the board shares them;
 * board_<rtos>.c holds only what a kernel asks of the application.
 */
#include "board_hooks.h"

#include "mps2.h"
#include "mps2_icount.h"

static uint32_t ips, icount_hz;
static uint64_t time_base_ticks;

void rtb_mps2_board_init(uint32_t swi_priority)
{
    mps2_uart_init();
    mps2_timer_init();
    ips = mps2_measure_ips();
    icount_hz = mps2_icount_hz(ips);
    rtb_mps2_core_lines_init(swi_priority);
    time_base_ticks = mps2_time_ticks();
}

const char *rtb_board_name(void) { return mps2_machine(); }

/* QEMU models no cache: the cold sample is the first call's extra work only. */
void rtb_board_cache_cold(void) {}
const char *rtb_board_cold(void) { return "first_call"; }
/* The counter is TIMER0 in QEMU's virtual time: with -icount, a model of instructions. */
const char *rtb_board_clock(void)
{
    return icount_hz ? BOARD_COUNTER "_icount" : BOARD_COUNTER;
}
/* Instructions per virtual second: cycles = ticks x 40 at shift 0 (one per instruction). */
uint32_t rtb_board_cpu_hz(void) { return icount_hz ? icount_hz : ips; }
uint32_t rtb_board_ts(void) { return mps2_ts(); }
uint32_t rtb_board_ts_hz(void) { return MPS2_TIMER_HZ; }
uint32_t rtb_board_ts_mask(void) { return 0xFFFFFFFFu; }
uint64_t rtb_board_time_us(void)
{
    return (mps2_time_ticks() - time_base_ticks) / (MPS2_TIMER_HZ / 1000000u);
}

/* No pins: a store to a word of the channel's own costs what a GPIO register write
 * would, and shows an instrument which channel and level it was: rtlab's QEMU cycles
 * plugin (which sees addresses, not values) timestamps stores to these words by the
 * symbol's address, word 2ch + 1 setting channel ch high, word 2ch low. */
volatile uint32_t rtb_marker_words[8];
void rtb_board_marker(int ch, int on)
{
    rtb_marker_words[2 * (ch & 3) + (on != 0)] = 1u;
#if defined(BOARD_EXT_WIRE) /* channel 3 is wired to the external interrupt's line */
    mps2_ext_wire(ch, on);
#endif
}

void rtb_board_out(const char *s, size_t n) { mps2_uart_write(s, n); }

const char *rtb_board_warning(const char **msg) { return mps2_icount_warning(icount_hz, msg); }
