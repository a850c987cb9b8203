/*
 * The Zephyr port's interrupt entry and exit, and the lock of the core's
 * software-interrupt pool (src/board/rtb_swi.c includes this; contract there); and how
 * a board connects its lines to the pool under Zephyr (RTB_ZEPHYR_CONNECT_SWI).
 *
 * Zephyr's own interrupt exit reschedules: no woken flag to carry, nothing to add.
 */
#ifndef RTB_ISR_H
#define RTB_ISR_H

#include <stdint.h>

#include <zephyr/irq.h>

#include "rtb_board.h"

#define RTB_ISR_ENTER() ((void)0)
#define RTB_ISR_EXIT() ((void)0)
#define RTB_LOCK_ENTER() unsigned int rtb_lock_key = irq_lock()
#define RTB_LOCK_EXIT() irq_unlock(rtb_lock_key)

/* Zephyr owns the vector table, so a board connects its software-interrupt lines
 * through it: lines first .. first+3 at priority prio, the ISR of each the core's
 * rtb_swi_dispatch(slot). A macro: IRQ_CONNECT takes constants. */
static inline void rtb_zephyr_swi_isr(const void *slot)
{
    rtb_swi_dispatch((int)(uintptr_t)slot);
}
#define RTB_ZEPHYR_CONNECT_SWI(first, prio)                                                 \
    do {                                                                                    \
        IRQ_CONNECT((first) + 0, prio, rtb_zephyr_swi_isr, (void *)0, 0);                   \
        IRQ_CONNECT((first) + 1, prio, rtb_zephyr_swi_isr, (void *)1, 0);                   \
        IRQ_CONNECT((first) + 2, prio, rtb_zephyr_swi_isr, (void *)2, 0);                   \
        IRQ_CONNECT((first) + 3, prio, rtb_zephyr_swi_isr, (void *)3, 0);                   \
    } while (0)

#endif
