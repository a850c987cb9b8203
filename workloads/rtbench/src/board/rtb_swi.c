/*
 * The software-interrupt pool, the core's for every port on a board layer: the board
 * gives IRQ lines (rtb_board_swi_*, rtb_board.h), the port its interrupt entry and exit
 * and a short lock (rtb_isr.h in ports/<rtos>/, static inline or macros, so the
 * dispatch executes what each port's own copy did), and this file hands lines out to
 * rtb_swi_create / rtb_extirq_create and runs their handlers.
 *
 * rtb_isr.h defines:
 *   RTB_ISR_ENTER() / RTB_ISR_EXIT()   around the handler in rtb_swi_dispatch (FreeRTOS:
 *                                      clear the core's woken flag / portYIELD_FROM_ISR;
 *                                      µC/OS-III: OSIntEnter / OSIntExit; Zephyr: none)
 *   RTB_LOCK_ENTER() / RTB_LOCK_EXIT() a critical section around a slot's claim
 * Each pair may declare locals in the first and use them in the second.
 */
#include "rtb_board.h"
#include "rtb_isr.h"
#include "rtbench_port.h"

#define MAX_SWI 8

struct rtb_swi {
    int slot; /* first: rtb_swi_trigger loads it at offset 0 */
    void (*handler)(void *);
    void *arg;
};
static rtb_swi swi_pool[MAX_SWI];
static rtb_swi *volatile swi_by_slot[MAX_SWI];

void rtb_swi_dispatch(int slot)
{
    RTB_ISR_ENTER();
    rtb_swi *i = (slot >= 0 && slot < MAX_SWI) ? swi_by_slot[slot] : NULL;
    if (i)
        i->handler(i->arg);
    RTB_ISR_EXIT();
}

/* Slot k for handler if it is free (the caller holds the lock), else NULL. */
static rtb_swi *claim_slot(int k, void (*handler)(void *arg), void *arg)
{
    if (swi_by_slot[k])
        return NULL;
    rtb_swi *i = &swi_pool[k];
    i->slot = k;
    i->handler = handler;
    i->arg = arg;
    swi_by_slot[k] = i;
    return i;
}

rtb_swi *rtb_swi_create(void (*handler)(void *arg), void *arg, int core)
{
    int n = rtb_board_swi_slots();
    rtb_swi *i = NULL;
    RTB_LOCK_ENTER();
    for (int k = 0; k < n && k < MAX_SWI && !i; k++)
        i = claim_slot(k, handler, arg);
    RTB_LOCK_EXIT();
    if (i)
        rtb_board_swi_enable(i->slot, core < 0 ? 0 : core);
    return i;
}

/* The board's external-interrupt slot (a GPIO edge line routed to rtb_swi_dispatch),
 * -1 where it has none: a board that defines nothing. */
__attribute__((weak)) int rtb_board_extirq_slot(void) { return -1; }

rtb_swi *rtb_extirq_create(void (*handler)(void *arg), void *arg, int core)
{
    int k = rtb_board_extirq_slot();
    if (k < 0 || k >= MAX_SWI)
        return NULL;
    RTB_LOCK_ENTER();
    rtb_swi *i = claim_slot(k, handler, arg);
    RTB_LOCK_EXIT();
    if (i)
        rtb_board_swi_enable(k, core < 0 ? 0 : core);
    return i;
}

void rtb_swi_delete(rtb_swi *i)
{
    rtb_board_swi_disable(i->slot);
    swi_by_slot[i->slot] = NULL;
}

void rtb_swi_trigger(rtb_swi *i) { rtb_board_swi_pend(i->slot); }
