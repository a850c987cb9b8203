/*
 * rtbench on µC/OS-III on the RP2040, one core (µC/OS-III has no SMP; core 1 stays in
 * the boot ROM): the software interrupts, the tick and µC/CPU's timestamps (the rest of
 * the board: board_rp2040.c). The kernel is its ARMv6-M port; the SDK's vector table
 * names PendSV isr_pendsv (ucos3-kernel.cmake's PENDSV) and SysTick isr_systick.
 *
 * Software interrupts: user IRQs (26..31) claimed from the SDK on first use, at the
 * SDK's default priority, enabled and pended on core 0's NVIC.
 */
#include "os.h"

#include "hardware/clocks.h"
#include "hardware/irq.h"
#include "hardware/structs/timer.h"

#include "board_rp2040.h"

#define SWI_SLOTS 6

uint32_t rtb_board_tick_hz(void) { return clock_get_hz(clk_sys); } /* CLKSOURCE=1 */

/* µC/CPU timestamps (OS_CFG_TS_EN): the 1 MHz TIMER's low word, running since boot. */
void CPU_TS_TmrInit(void) {}
CPU_TS_TMR CPU_TS_TmrRd(void) { return (CPU_TS_TMR)timer_hw->timerawl; }

/* The time base is the TIMER's 64 bits: nothing to extend on the tick. */
void isr_systick(void) { OS_CPU_SysTickHandler(); }

static void swi0(void) { rtb_swi_dispatch(0); }
static void swi1(void) { rtb_swi_dispatch(1); }
static void swi2(void) { rtb_swi_dispatch(2); }
static void swi3(void) { rtb_swi_dispatch(3); }
static void swi4(void) { rtb_swi_dispatch(4); }
static void swi5(void) { rtb_swi_dispatch(5); }
static irq_handler_t const swi_handlers[SWI_SLOTS] = {swi0, swi1, swi2, swi3, swi4, swi5};
static int swi_irq[SWI_SLOTS]; /* 0: not claimed yet */

int rtb_board_swi_slots(void) { return SWI_SLOTS; }

void rtb_board_swi_enable(int slot, int core)
{
    (void)core; /* one core */
    if (!swi_irq[slot]) {
        int irq = user_irq_claim_unused(false);
        if (irq < 0)
            return; /* the scenario then sees no handler run: isr_lost */
        irq_set_exclusive_handler((uint)irq, swi_handlers[slot]);
        swi_irq[slot] = irq;
    }
    irq_set_priority((uint)swi_irq[slot], PICO_DEFAULT_IRQ_PRIORITY);
    irq_set_enabled((uint)swi_irq[slot], true);
}

void rtb_board_swi_disable(int slot)
{
    if (swi_irq[slot])
        irq_set_enabled((uint)swi_irq[slot], false);
}

void rtb_board_swi_pend(int slot) { irq_set_pending((uint)swi_irq[slot]); }
