/*
 * The Zephyr port's interrupt entry and exit, and the lock of the core's
 * software-interrupt pool (src/board/rtb_swi.c includes this; contract there).
 *
 * Zephyr's own interrupt exit reschedules: no woken flag to carry, nothing to add.
 */
#ifndef RTB_ISR_H
#define RTB_ISR_H

#include <zephyr/irq.h>

#define RTB_ISR_ENTER() ((void)0)
#define RTB_ISR_EXIT() ((void)0)
#define RTB_LOCK_ENTER() unsigned int rtb_lock_key = irq_lock()
#define RTB_LOCK_EXIT() irq_unlock(rtb_lock_key)

#endif
