/*
 * rtbench on NuttX in QEMU virt-a53 (NuttX's qemu-armv8a board, SMP, 2 x Cortex-A53): the
 * POSIX port timed by the Arm generic timer's virtual count (CNTVCT_EL0, 62.5 MHz),
 * which every core reads alike and a flat-build application may read directly. NuttX's
 * clock_gettime ticks at 1 ms, so neither samples nor windows use it.
 */
#include <stdint.h>
#include <stdio.h>

#include "a53.h"
#include "rtb_nuttx_board.h"
#include "rtb_posix.h"
#include "rtbench_port.h"

static uint32_t ips, icount_hz, hz;
static uint64_t time_base;

static uint32_t ts(void) { return a53_ts(); }

static uint64_t time_us(void)
{
    uint64_t t = a53_cntvct() - time_base; /* 62.5 ticks per µs: split to stay exact */
    return t / hz * 1000000u + t % hz * 1000000u / hz;
}

static rtb_posix_board_clock clock_desc;

void rtb_nuttx_board_init(void)
{
    hz = a53_cntfrq();
    ips = a53_measure_ips(); /* core 1 idles in WFI now: the loop has the clock alone */
    icount_hz = a53_icount_hz(ips);
    time_base = a53_cntvct();
    clock_desc.board = A53_MACHINE;
    clock_desc.clock = icount_hz ? A53_COUNTER "_icount" : A53_COUNTER;
    clock_desc.cpu_hz = icount_hz ? icount_hz : ips;
    clock_desc.ts_hz = hz;
    clock_desc.ts = ts;
    clock_desc.time_us = time_us;
    rtb_posix_set_board_clock(&clock_desc);
}

void rtb_nuttx_board_note_warnings(void)
{
    const char *msg;
    const char *code = a53_timing_warning(icount_hz, &msg);
    rtb_port_note_warning(code, msg);
    rtb_port_note_warning("nuttx_clock",
                          "NuttX's clock_gettime ticks at 1 ms (not tickless): samples "
                          "and windows read the generic timer (CNTVCT); timeouts still "
                          "round up to the tick");
    rtb_port_note_warning("swi_is_thread",
                          "the software interrupt is the POSIX port's: a priority-90 "
                          "thread woken by a real-time signal (pthread_kill), not a GIC "
                          "SGI as on Zephyr: irq/T4/T5 include signal delivery and a "
                          "context switch");
}

const char *rtb_nuttx_cmdline(void) { return a53_cmdline(); }

void rtb_nuttx_exit(int status)
{
    fflush(stdout);
    a53_exit(status < 0 || status > 2 ? 1 : status);
}
