/*
 * The mps2 board under the Zephyr port of rtbench: the same CMSDK TIMER0 counter, the
 * same spare NVIC lines and the same semihosting exit as the FreeRTOS build (mps2.c),
 * so the two kernels are measured alike on one QEMU machine. Zephyr owns the vector
 * table, SysTick and the UART driver; the protocol still goes out on UART0 by polling.
 */
#include <string.h>

#include <zephyr/irq.h>
#include <zephyr/kernel.h>

#include "mps2.h"
#include "mps2_icount.h"
#include "rtb_board.h"
#include "rtb_isr.h"

static uint32_t ips, icount_hz;

void rtb_board_init(void)
{
    mps2_timer_init();
    ips = mps2_measure_ips(); /* before the scheduler: nothing interrupts the loop */
    icount_hz = mps2_icount_hz(ips);
    /* Priority 0: the highest Zephyr gives a regular (rescheduling) ISR. */
    RTB_ZEPHYR_CONNECT_SWI(MPS2_SWI_FIRST_IRQ, 0);
    for (int k = 0; k < MPS2_SWI_SLOTS; k++)
        irq_disable(MPS2_SWI_FIRST_IRQ + k);
}

const char *rtb_board_name(void) { return mps2_machine(); }
const char *rtb_board_clock(void) { return icount_hz ? BOARD_COUNTER "_icount" : BOARD_COUNTER; }
uint32_t rtb_board_cpu_hz(void) { return icount_hz ? icount_hz : ips; }
uint32_t rtb_board_ts(void) { return mps2_ts(); }
uint32_t rtb_board_ts_hz(void) { return MPS2_TIMER_HZ; }
uint32_t rtb_board_ts_mask(void) { return 0xFFFFFFFFu; }
void rtb_board_out(const char *s, size_t n) { mps2_uart_write(s, n); }

int rtb_board_swi_slots(void) { return MPS2_SWI_SLOTS; }
void rtb_board_swi_enable(int slot, int core)
{
    (void)core; /* one core */
    irq_enable(MPS2_SWI_FIRST_IRQ + slot);
}
void rtb_board_swi_disable(int slot) { irq_disable(MPS2_SWI_FIRST_IRQ + slot); }
void rtb_board_swi_pend(int slot) { mps2_nvic_pend(MPS2_SWI_FIRST_IRQ + slot); }

const char *rtb_board_warning(const char **msg) { return mps2_icount_warning(icount_hz, msg); }

const char *rtb_board_cmdline(void) { return mps2_cmdline(); }
void rtb_board_exit(int status) { mps2_exit(status); }
