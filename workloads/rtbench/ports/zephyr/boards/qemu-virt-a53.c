/*
 * The virt-a53 machine under the Zephyr port of rtbench (board qemu_cortex_a53_smp,
 * Zephyr's own): the generic timer as the counter, GIC SGIs as the software interrupts,
 * the console UART (Zephyr's driver, polled) for the protocol, semihosting for the
 * options and the exit (a53.c).
 *
 * Software interrupts: SGIs 8..11 (Zephyr's SMP keeps 0..2 for its IPIs). An SGI's enable
 * bit lives in each core's redistributor, so a slot is enabled on the core that first
 * pends it there, and each pend targets the calling core itself (interrupts masked across
 * the check, the enable and the SGI write): the handler has run on that core when the
 * pend returns, as the port's contract asks.
 */
#include <zephyr/arch/arm64/cpu.h>
#include <zephyr/device.h>
#include <zephyr/drivers/interrupt_controller/gic.h>
#include <zephyr/drivers/uart.h>
#include <zephyr/irq.h>
#include <zephyr/kernel.h>

#include "a53.h"
#include "rtb_board.h"
#include "rtb_isr.h"

#define SWI_FIRST_SGI 8
#define SWI_SLOTS 4

static const struct device *const console = DEVICE_DT_GET(DT_CHOSEN(zephyr_console));
static struct k_spinlock out_lock;
static uint32_t ips, icount_hz;
static volatile uint32_t enabled_on[CONFIG_MP_MAX_NUM_CPUS]; /* slot bits, per core */

void rtb_board_init(void)
{
    ips = a53_measure_ips(); /* core 1 idles in WFI now: the loop has the clock alone */
    icount_hz = a53_icount_hz(ips);
    RTB_ZEPHYR_CONNECT_SWI(SWI_FIRST_SGI, IRQ_DEFAULT_PRIORITY);
}

const char *rtb_board_name(void) { return A53_MACHINE; }
const char *rtb_board_clock(void) { return icount_hz ? A53_COUNTER "_icount" : A53_COUNTER; }
uint32_t rtb_board_cpu_hz(void) { return icount_hz ? icount_hz : ips; }
uint32_t rtb_board_ts(void) { return a53_ts(); }
uint32_t rtb_board_ts_hz(void) { return a53_cntfrq(); }
uint32_t rtb_board_ts_mask(void) { return 0xFFFFFFFFu; }

void rtb_board_out(const char *s, size_t n)
{
    k_spinlock_key_t key = k_spin_lock(&out_lock); /* one line at a time from any core */
    for (size_t k = 0; k < n; k++)
        uart_poll_out(console, s[k]);
    k_spin_unlock(&out_lock, key);
}

int rtb_board_swi_slots(void) { return SWI_SLOTS; }
void rtb_board_swi_enable(int slot, int core)
{
    (void)slot; /* enabled on the core that pends it (see above) */
    (void)core;
}
void rtb_board_swi_disable(int slot) { (void)slot; } /* a free slot is never pended */

void rtb_board_swi_pend(int slot)
{
    unsigned int key = irq_lock();
    int cpu = (int)arch_curr_cpu()->id;
    if (!(enabled_on[cpu] & (1u << slot))) {
        irq_enable(SWI_FIRST_SGI + slot); /* this core's redistributor */
        enabled_on[cpu] |= 1u << slot;
    }
    uint64_t mpidr = MPIDR_TO_CORE(GET_MPIDR());
    gic_raise_sgi(SWI_FIRST_SGI + slot, mpidr, (uint16_t)(1u << MPIDR_AFFLVL(mpidr, 0)));
    irq_unlock(key);
    __asm__ volatile("isb" ::: "memory"); /* the pending SGI is taken here */
}

const char *rtb_board_warning(const char **msg) { return a53_timing_warning(icount_hz, msg); }
const char *rtb_board_cmdline(void) { return a53_cmdline(); }
void rtb_board_exit(int status) { a53_exit(status); }
