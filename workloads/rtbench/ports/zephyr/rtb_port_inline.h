/*
 * rtbench on Zephyr: the semaphore give and take the suite times, inline (rtbench_port.h),
 * so that a timed region holds k_sem_give or k_sem_take and no call into the port.
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <zephyr/kernel.h>

/* rtb_timeout holds Zephyr's ticks. Read as signed, RTB_FOREVER is K_TICKS_FOREVER (-1)
 * and RTB_NO_WAIT is K_NO_WAIT's 0, so the k_timeout_t of a blocking call is a sign
 * extension in the caller: no call, no conversion between a row's timestamps. */
#define RTB_ZEPHYR_KT(t) K_TICKS((k_ticks_t)(int32_t)(t).ticks)

RTB_INLINE int rtb_sem_take(rtb_sem *s, rtb_timeout t)
{
    return k_sem_take((struct k_sem *)s, RTB_ZEPHYR_KT(t)) == 0 ? 0 : -1;
}

RTB_INLINE void rtb_sem_give(rtb_sem *s) { k_sem_give((struct k_sem *)s); } /* at max: stays */

#endif
