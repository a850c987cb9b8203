/*
 * rtbench on NuttX SMP on the Raspberry Pi Pico (NuttX's raspberrypi-pico board, both
 * cores): the POSIX port timed by the RP2040's 1 MHz TIMER (TIMERAWL for samples, 32
 * bits as the POSIX port's counter must be; the 64-bit count for windows), what the
 * FreeRTOS board layer reads with -DRTB_PICO_COUNTER_TIMER=1. NuttX's clock_gettime
 * ticks at 1 ms. Real silicon: time, not an instruction-count model.
 */
#include <stdint.h>

#include <arch/board/board.h>

#include "rtb_nuttx_pico.h"
#include "rtb_posix.h"
#include "rtbench_port.h"

/* RP2040 datasheet addresses (pico-sdk hardware/regs/timer.h). */
#define REG(a) (*(volatile uint32_t *)(a))
#define TIMER_RAWH 0x40054024u
#define TIMER_RAWL 0x40054028u
#define XIP_CTRL_FLUSH 0x14000004u /* datasheet 2.6.3.2: write 1, read back waits */

static uint64_t time_base;

static uint32_t ts(void) { return REG(TIMER_RAWL); }

/* The raw registers: no latch shared between the cores (TIMELR/TIMEHR have one). */
static uint64_t timer_us(void)
{
    uint32_t hi, lo;
    do {
        hi = REG(TIMER_RAWH);
        lo = REG(TIMER_RAWL);
    } while (hi != REG(TIMER_RAWH));
    return (uint64_t)hi << 32 | lo;
}

static uint64_t time_us(void) { return timer_us() - time_base; }

/* NuttX runs from flash through the XIP cache: the cold sample fetches from QSPI. */
static void xip_flush(void)
{
    REG(XIP_CTRL_FLUSH) = 1;
    (void)REG(XIP_CTRL_FLUSH);
}

static rtb_posix_board_clock clock_desc;

void rtb_nuttx_pico_init(void)
{
    time_base = timer_us();
    clock_desc.board = "pico";
    clock_desc.clock = "rp2040_timerawl";
    clock_desc.cpu_hz = BOARD_SYS_FREQ;
    clock_desc.ts_hz = 1000000u;
    clock_desc.ts = ts;
    clock_desc.time_us = time_us;
    clock_desc.cache_cold = xip_flush;
    clock_desc.cold = "xip_cache_flushed";
    rtb_posix_set_board_clock(&clock_desc);
}

void rtb_nuttx_pico_note_warnings(void)
{
    rtb_port_note_warning("nuttx_clock",
                          "NuttX's clock_gettime ticks at 1 ms (not tickless): samples "
                          "and windows read the 1 MHz TIMER (1 us resolution); timeouts "
                          "still round up to the tick");
    rtb_port_note_warning("swi_is_thread",
                          "the software interrupt is the POSIX port's: a priority-90 "
                          "thread woken by a real-time signal (pthread_kill), not an "
                          "NVIC interrupt as on FreeRTOS: irq/T4/T5 include signal "
                          "delivery and a context switch");
}
