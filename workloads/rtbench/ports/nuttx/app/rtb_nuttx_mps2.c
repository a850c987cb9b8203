/*
 * rtbench on NuttX in QEMU mps2: the POSIX port timed by CMSDK TIMER0, as the FreeRTOS
 * board is. NuttX's clock_gettime has the tick's resolution (1 ms, not tickless) and,
 * under -icount, drifts from virtual time, so neither samples nor windows use it.
 * TIMER0 is free on these machines (NuttX ticks with SysTick) and readable from a
 * flat-build application.
 */
#include <stdint.h>
#include <stdio.h>

#include "mps2.h"
#include "rtb_nuttx_board.h"
#include "rtb_posix.h"
#include "rtbench_port.h"

#define SCB_CPUID 0xE000ED00u

static uint32_t ips, icount_hz;
static uint64_t time_base_ticks;

static uint32_t ts(void) { return mps2_ts(); }

static uint64_t time_us(void)
{
    return (mps2_time_ticks() - time_base_ticks) / (MPS2_TIMER_HZ / 1000000u);
}

/* One image serves an385 and an386 (Cortex-M3 code): the core tells the machine. */
static const char *machine(void)
{
    uint32_t part = (*(volatile uint32_t *)SCB_CPUID >> 4) & 0xFFFu;
    switch (part) {
    case 0xC23u:
        return "mps2-an385";
    case 0xC24u:
        return "mps2-an386";
    case 0xC27u:
        return "mps2-an500";
    default:
        return "mps2";
    }
}

static rtb_posix_board_clock clock_desc;

void rtb_nuttx_board_init(void)
{
    mps2_timer_init();
    ips = mps2_measure_ips();
    icount_hz = mps2_icount_hz(ips);
    time_base_ticks = mps2_time_ticks();
    clock_desc.board = machine();
    clock_desc.clock = icount_hz ? BOARD_COUNTER "_icount" : BOARD_COUNTER;
    clock_desc.cpu_hz = icount_hz ? icount_hz : ips;
    clock_desc.ts_hz = MPS2_TIMER_HZ;
    clock_desc.ts = ts;
    clock_desc.time_us = time_us;
    rtb_posix_set_board_clock(&clock_desc);
}

_Static_assert(BOARD_COUNTER_HZ == 25000000u, "the icount warning names 25 MHz: reword it");

void rtb_nuttx_board_note_warnings(void)
{
    if (icount_hz)
        rtb_port_note_warning("icount_model",
                              "QEMU -icount: the counter runs in virtual time (one 25 MHz "
                              "tick = 40 instructions at shift 0): an instruction-count "
                              "model, not time on silicon");
    else
        rtb_port_note_warning("no_icount",
                              "QEMU runs without -icount: the timer follows host time, "
                              "figures are not deterministic and not an instruction-count "
                              "model");
    rtb_port_note_warning("nuttx_clock",
                          "NuttX's clock_gettime ticks at 1 ms (not tickless): samples "
                          "and windows read CMSDK TIMER0; timeouts still round up to "
                          "the tick");
    rtb_port_note_warning("swi_is_thread",
                          "the software interrupt is the POSIX port's: a priority-90 "
                          "thread woken by a real-time signal (pthread_kill), not an "
                          "NVIC interrupt as on FreeRTOS: irq/T4/T5 include signal "
                          "delivery and a context switch");
}

const char *rtb_nuttx_cmdline(void) { return mps2_cmdline(); }

void rtb_nuttx_exit(int status)
{
    fflush(stdout);
    /* 0/1 (2: bad options): QEMU passes the status on modulo 256. */
    mps2_exit(status < 0 || status > 2 ? 1 : status);
}
