/*
 * rtbench on NuttX SMP on the Raspberry Pi Pico (NuttX's raspberrypi-pico board, both
 * cores), or on one core of the Pico 2 (raspberrypi-pico-2): the POSIX port timed by the
 * chip's 1 MHz TIMER (TIMERAWL for samples, 32
 * bits as the POSIX port's counter must be; the 64-bit count for windows), what the
 * FreeRTOS board layer reads with -DRTB_PICO_COUNTER_TIMER=1. NuttX's clock_gettime
 * ticks at 1 ms. Real silicon: time, not an instruction-count model.
 */
#include <nuttx/config.h>

#include <stdint.h>

#include <arch/board/board.h>

#include "rtb_nuttx_pico.h"
#include "rtb_posix.h"
#include "rtbench_port.h"

/* The datasheets' addresses: the RP2040's TIMER, the RP2350's TIMER0 (raw halves at the
 * same offsets; NuttX starts the RP2350's 1 us tick generators). */
#define REG(a) (*(volatile uint32_t *)(a))
#if defined(CONFIG_ARCH_CHIP_RP23XX)
#define TIMER_BASE 0x400B0000u
#define BOARD_NAME "pico2"
#define CLOCK_NAME "rp2350_timer0"
#else
#define TIMER_BASE 0x40054000u
#define BOARD_NAME "pico"
#define CLOCK_NAME "rp2040_timerawl"
#define XIP_CTRL_FLUSH 0x14000004u /* datasheet 2.6.3.2: write 1, read back waits */
#endif
#define TIMER_RAWH (TIMER_BASE + 0x24u)
#define TIMER_RAWL (TIMER_BASE + 0x28u)

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
#if defined(CONFIG_ARCH_CHIP_RP23XX)
/* The RP2350's 16 KiB cache: invalidate by set/way, one byte store per 8-byte line in the
 * top 16 KiB of the maintenance window (boards/rp2350: rp2350_xip_cache_invalidate). */
#define COLD "xip_cache_invalidated"
static void xip_flush(void)
{
    for (uint32_t a = 0x1BFFC000u; a < 0x1C000000u; a += 8u)
        *(volatile uint8_t *)a = 0;
    __asm__ volatile("dsb\n isb" ::: "memory");
}
#else
#define COLD "xip_cache_flushed"
static void xip_flush(void)
{
    REG(XIP_CTRL_FLUSH) = 1;
    (void)REG(XIP_CTRL_FLUSH);
}
#endif

static rtb_posix_board_clock clock_desc;

void rtb_nuttx_pico_init(void)
{
    time_base = timer_us();
    clock_desc.board = BOARD_NAME;
    clock_desc.clock = CLOCK_NAME;
    clock_desc.cpu_hz = BOARD_SYS_FREQ;
    clock_desc.ts_hz = 1000000u;
    clock_desc.ts = ts;
    clock_desc.time_us = time_us;
    clock_desc.cache_cold = xip_flush;
    clock_desc.cold = COLD;
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
