/*
 * rtbench on POSIX (Linux, NuttX): the semaphore give and take the suite times, inline
 * (rtbench_port.h), so that a timed region holds the C library's sem_* calls and no call
 * into the port. A finite timeout (no timed row has one) goes through the port's
 * rtb_posix_sem_take_within.
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <errno.h>
#include <semaphore.h>

struct rtb_sem {
    sem_t s;
    int max;
};

int rtb_posix_sem_take_within(rtb_sem *s, uint32_t us);

RTB_INLINE int rtb_sem_take(rtb_sem *s, rtb_timeout t)
{
    if (t.ticks == 0)
        return sem_trywait(&s->s) == 0 ? 0 : -1;
    if (t.ticks != RTB_TICKS_FOREVER)
        return rtb_posix_sem_take_within(s, t.ticks);
    while (sem_wait(&s->s) != 0) {
        if (errno != EINTR)
            return -1;
    }
    return 0;
}

/* The cap is checked then posted: two racing givers may pass it once; harmless for the
 * scenarios, which never rely on a binary semaphore saturating under a race. */
RTB_INLINE void rtb_sem_give(rtb_sem *s)
{
    int v;
    if (sem_getvalue(&s->s, &v) == 0 && v >= s->max)
        return;
    sem_post(&s->s);
}

#endif
