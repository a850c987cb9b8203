#include "rtb_sync.h"

#include "rtbench.h"

int rtb_barrier_init(rtb_barrier *b, unsigned n)
{
    b->arrived = 0;
    b->n = n;
    b->go = rtb_sem_create(0, n ? n : 1);
    return b->go ? 0 : -1;
}

void rtb_barrier_wait(rtb_barrier *b)
{
    rtb_critical_enter();
    unsigned me = ++b->arrived;
    rtb_critical_exit();
    if (me < b->n) {
        rtb_sem_take(b->go, RTB_FOREVER);
        return;
    }
    for (unsigned i = 1; i < b->n; i++) /* the last one in opens the gate */
        rtb_sem_give(b->go);
}

void rtb_barrier_destroy(rtb_barrier *b)
{
    rtb_sem_delete(b->go);
    b->go = 0;
}

static void timer_task(void *arg)
{
    rtb_window *w = arg;
    rtb_barrier_wait(&w->start);
    uint64_t t0 = rtb_time_us();
    rtb_sleep_us(w->window_ms * 1000u);
    w->running = 0;
    w->elapsed_us = rtb_time_us() - t0;
    if (w->on_stop)
        w->on_stop(w);
}

int rtb_window_open(rtb_window *w, unsigned workers, uint32_t window_ms)
{
    w->running = 1;
    w->window_ms = window_ms;
    w->elapsed_us = 0;
    if (rtb_barrier_init(&w->start, workers + 1))
        return -1;
    w->timer = rtb_thread_create("timer", timer_task, w, RTB_PRIO_TIMER, -1);
    return w->timer ? 0 : -1;
}

void rtb_window_close(rtb_window *w)
{
    if (w->timer)
        rtb_thread_join(w->timer);
    w->timer = 0;
    rtb_barrier_destroy(&w->start);
}
