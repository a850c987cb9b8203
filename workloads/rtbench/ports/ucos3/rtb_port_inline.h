/*
 * rtbench on µC/OS-III: the semaphore give and take the suite times, inline
 * (rtbench_port.h), so that a timed region holds OSSemPend or OSSemPost and no call into
 * the port.
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include "os.h"

/* A timeout's pend arguments, in the caller (no call between a row's timestamps):
 * RTB_NO_WAIT polls, RTB_FOREVER is µC/OS-III's timeout 0. */
#define RTB_UCOS3_PEND_TICKS(t) ((t).ticks == RTB_TICKS_FOREVER ? 0u : (OS_TICK)(t).ticks)
#define RTB_UCOS3_PEND_OPT(t) ((t).ticks ? OS_OPT_PEND_BLOCKING : OS_OPT_PEND_NON_BLOCKING)

struct rtb_sem {
    OS_SEM sem;
    OS_SEM_CTR max;
    volatile int used; /* a slot of the port's pool */
};

RTB_INLINE int rtb_sem_take(rtb_sem *s, rtb_timeout t)
{
    OS_ERR err;
    OSSemPend(&s->sem, RTB_UCOS3_PEND_TICKS(t), RTB_UCOS3_PEND_OPT(t), (CPU_TS *)0, &err);
    return err == OS_ERR_NONE ? 0 : -1;
}

/* µC/OS-III counts to OS_SEM_CTR's maximum: the port drops a give at `max` itself.
 * Unlocked test: a post from an interrupt between test and post can overshoot by one
 * (no scenario gives one semaphore from a thread and a handler at once). */
RTB_INLINE void rtb_sem_give(rtb_sem *s)
{
    OS_ERR err;
    if (s->sem.Ctr < s->max)
        OSSemPost(&s->sem, OS_OPT_POST_1, &err);
}

#endif
