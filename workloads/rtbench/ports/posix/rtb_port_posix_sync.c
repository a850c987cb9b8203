/*
 * POSIX port: semaphores (sem_t), queues and event flags (a priority-inheritance mutex
 * with condition variables), mutexes. Objects take whole cache lines
 * (rtb_posix_obj_alloc) and count in the heap figures. "_from_isr" variants are the
 * plain calls: the port's interrupt stand-in is a thread, so a short lock wait there is
 * allowed (it would not be on an MCU).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <time.h>

#include "rtbench_port.h"
#include "rtb_posix.h"

static void abs_deadline(clockid_t clk, uint32_t us, struct timespec *ts)
{
    clock_gettime(clk, ts);
    ts->tv_sec += us / 1000000u;
    ts->tv_nsec += (long)(us % 1000000u) * 1000;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* The port's unit is the microsecond: POSIX waits take an absolute deadline, made in
 * the call from a finite timeout only (no timed row blocks with one). */
rtb_timeout rtb_timeout_us(uint32_t us)
{
    return (rtb_timeout){us == RTB_TICKS_FOREVER ? us - 1 : us};
}

static void pi_mutex_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

static void mono_cond_init(pthread_cond_t *c)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
}

/* Waits on c (m held) until pred holds; -1 on timeout. */
#define WAIT_UNTIL(pred, c, m, us, rc)                                                   \
    do {                                                                                 \
        struct timespec dl_;                                                             \
        if ((us) != RTB_TICKS_FOREVER && (us) != 0)                                      \
            abs_deadline(CLOCK_MONOTONIC, (us), &dl_);                                   \
        (rc) = 0;                                                                        \
        while (!(pred)) {                                                                \
            if ((us) == 0) {                                                             \
                (rc) = -1;                                                               \
                break;                                                                   \
            }                                                                            \
            if ((us) == RTB_TICKS_FOREVER)                                               \
                pthread_cond_wait((c), (m));                                             \
            else if (pthread_cond_timedwait((c), (m), &dl_) == ETIMEDOUT && !(pred)) {   \
                (rc) = -1;                                                               \
                break;                                                                   \
            }                                                                            \
        }                                                                                \
    } while (0)

/* --- semaphores ------------------------------------------------------------------------ */
/* struct rtb_sem, take and give: rtb_port_inline.h */

rtb_sem *rtb_sem_create(unsigned initial, unsigned max)
{
    rtb_sem *s = rtb_posix_obj_alloc(sizeof *s);
    if (!s)
        return NULL;
    s->max = (int)max;
    if (sem_init(&s->s, 0, initial) != 0) {
        rtb_posix_obj_free(s);
        return NULL;
    }
    return s;
}

void rtb_sem_delete(rtb_sem *s)
{
    sem_destroy(&s->s);
    rtb_posix_obj_free(s);
}

int rtb_posix_sem_take_within(rtb_sem *s, uint32_t us)
{
    struct timespec dl;
    abs_deadline(CLOCK_REALTIME, us, &dl); /* sem_timedwait is CLOCK_REALTIME */
    while (sem_timedwait(&s->s, &dl) != 0) {
        if (errno != EINTR)
            return -1;
    }
    return 0;
}

void rtb_sem_give_from_isr(rtb_sem *s) { rtb_sem_give(s); }

int rtb_sem_count(rtb_sem *s)
{
    int v = 0;
    sem_getvalue(&s->s, &v);
    return v < 0 ? 0 : v;
}

/* --- queues ------------------------------------------------------------------------------ */
struct rtb_queue {
    pthread_mutex_t m;
    pthread_cond_t not_empty, not_full;
    unsigned depth, size, head, count;
    unsigned char data[];
};

rtb_queue *rtb_queue_create(unsigned depth, unsigned item_size)
{
    rtb_queue *q = rtb_posix_obj_alloc(sizeof *q + (size_t)depth * item_size);
    if (!q)
        return NULL;
    pi_mutex_init(&q->m);
    mono_cond_init(&q->not_empty);
    mono_cond_init(&q->not_full);
    q->depth = depth;
    q->size = item_size;
    q->head = q->count = 0;
    return q;
}

void rtb_queue_delete(rtb_queue *q)
{
    pthread_cond_destroy(&q->not_empty);
    pthread_cond_destroy(&q->not_full);
    pthread_mutex_destroy(&q->m);
    rtb_posix_obj_free(q);
}

int rtb_queue_send(rtb_queue *q, const void *item, rtb_timeout t)
{
    int rc;
    pthread_mutex_lock(&q->m);
    WAIT_UNTIL(q->count < q->depth, &q->not_full, &q->m, t.ticks, rc);
    if (rc == 0) {
        /* A wrap, not a %: on a core without a divider % calls the compiler's runtime,
         * a function of the port's between a row's timestamps. */
        unsigned tail = q->head + q->count;
        if (tail >= q->depth)
            tail -= q->depth;
        memcpy(q->data + (size_t)tail * q->size, item, q->size);
        q->count++;
    }
    pthread_mutex_unlock(&q->m);
    /* Signalled after the unlock: a woken higher-priority receiver must not preempt us
     * only to block on the mutex we still hold. */
    if (rc == 0)
        pthread_cond_signal(&q->not_empty);
    return rc;
}

int rtb_queue_send_from_isr(rtb_queue *q, const void *item)
{
    return rtb_queue_send(q, item, RTB_NO_WAIT);
}

int rtb_queue_recv(rtb_queue *q, void *item, rtb_timeout t)
{
    int rc;
    pthread_mutex_lock(&q->m);
    WAIT_UNTIL(q->count > 0, &q->not_empty, &q->m, t.ticks, rc);
    if (rc == 0) {
        memcpy(item, q->data + (size_t)q->head * q->size, q->size);
        q->head = q->head + 1 == q->depth ? 0 : q->head + 1;
        q->count--;
    }
    pthread_mutex_unlock(&q->m);
    if (rc == 0)
        pthread_cond_signal(&q->not_full);
    return rc;
}

/* --- event flags --------------------------------------------------------------------------- */
struct rtb_event {
    pthread_mutex_t m;
    pthread_cond_t changed;
    uint32_t bits;
};

rtb_event *rtb_event_create(void)
{
    rtb_event *e = rtb_posix_obj_alloc(sizeof *e);
    if (!e)
        return NULL;
    pi_mutex_init(&e->m);
    mono_cond_init(&e->changed);
    e->bits = 0;
    return e;
}

void rtb_event_delete(rtb_event *e)
{
    pthread_cond_destroy(&e->changed);
    pthread_mutex_destroy(&e->m);
    rtb_posix_obj_free(e);
}

void rtb_event_set(rtb_event *e, uint32_t bits)
{
    pthread_mutex_lock(&e->m);
    e->bits |= bits;
    pthread_cond_broadcast(&e->changed);
    pthread_mutex_unlock(&e->m);
}

void rtb_event_set_from_isr(rtb_event *e, uint32_t bits) { rtb_event_set(e, bits); }

void rtb_event_clear(rtb_event *e, uint32_t bits)
{
    pthread_mutex_lock(&e->m);
    e->bits &= ~bits;
    pthread_mutex_unlock(&e->m);
}

uint32_t rtb_event_wait(rtb_event *e, uint32_t bits, int clear, rtb_timeout t)
{
    int rc;
    uint32_t seen = 0;
    pthread_mutex_lock(&e->m);
    WAIT_UNTIL(e->bits & bits, &e->changed, &e->m, t.ticks, rc);
    if (rc == 0) {
        seen = e->bits;
        if (clear)
            e->bits &= ~bits;
    }
    pthread_mutex_unlock(&e->m);
    return seen;
}

/* --- mutexes --------------------------------------------------------------------------- */
struct rtb_mutex {
    pthread_mutex_t m;
};

rtb_mutex *rtb_mutex_create(void)
{
    rtb_mutex *m = rtb_posix_obj_alloc(sizeof *m);
    if (m)
        pi_mutex_init(&m->m);
    return m;
}

void rtb_mutex_delete(rtb_mutex *m)
{
    pthread_mutex_destroy(&m->m);
    rtb_posix_obj_free(m);
}

void rtb_mutex_lock(rtb_mutex *m) { pthread_mutex_lock(&m->m); }
void rtb_mutex_unlock(rtb_mutex *m) { pthread_mutex_unlock(&m->m); }
