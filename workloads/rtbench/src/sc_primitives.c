/*
 * Primitive costs (the STM32 study, Table 1): GPIO marker set/clear, semaphore give and
 * take and queue send and receive with nobody waiting, then preemption of a low-priority
 * task by a high-priority one woken through a semaphore or a queue, and the return to
 * the low-priority task when the high one blocks again. Everything runs on core 0.
 */
#include "rtb_emit.h"
#include "rtb_measure.h"
#include "rtb_run.h"
#include "scenarios.h"

#define MSG_WORDS 4 /* a 16-byte message, as Thread-Metric's */

enum { S_OVH, S_GSET, S_GCLR, S_GIVE, S_TAKE, S_SEND, S_RECV, S_PSEM, S_RSEM, S_PQ, S_RQ, S_N };
static const char *const names[S_N] = {
    "overhead", "gpio_set", "gpio_clear", "sem_give", "sem_take", "queue_send",
    "queue_recv", "preempt_sem", "return_sem", "preempt_queue", "return_queue",
};

typedef struct {
    uint32_t n;
    rtb_samples s[S_N];
    uint32_t overhead;
    rtb_sem *hsem;     /* wakes the high-priority task (semaphore variant) */
    rtb_queue *hq;     /* wakes it (queue variant) */
    int use_queue;
    volatile int quit;
    volatile uint32_t t_wake;  /* first timestamp of the high task after its wake-up */
    volatile uint32_t t_block; /* its last timestamp before blocking again */
    volatile uint32_t wakes;
    int err;
} prim_ctx;

static void high_task(void *arg)
{
    prim_ctx *c = arg;
    uint32_t msg[MSG_WORDS];
    for (;;) {
        if (c->use_queue)
            rtb_queue_recv(c->hq, msg, RTB_FOREVER);
        else
            rtb_sem_take(c->hsem, RTB_FOREVER);
        uint32_t t = rtb_ts();
        if (c->quit)
            break;
        c->t_wake = t;
        c->wakes++;
        c->t_block = rtb_ts();
    }
}

static void preempt_pass(prim_ctx *c, int use_queue, rtb_samples *pre, rtb_samples *ret)
{
    uint32_t mask = rtb_ts_mask();
    uint32_t msg[MSG_WORDS] = {1, 2, 3, 4};
    c->use_queue = use_queue;
    c->quit = 0;
    c->wakes = 0;
    rtb_thread *h = rtb_thread_create("high", high_task, c, RTB_PRIO_HIGH, 0);
    if (!h) {
        c->err = 1;
        return;
    }
    rtb_cache_cold();
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t seen = c->wakes;
        uint32_t t0 = rtb_ts();
        if (use_queue)
            rtb_queue_send(c->hq, msg, RTB_FOREVER);
        else
            rtb_sem_give(c->hsem);
        uint32_t t2 = rtb_ts();
        while (c->wakes == seen) /* only without immediate preemption */
            rtb_sleep_us(10);
        rtb_samples_add(pre, rtb_ts_elapsed(t0, c->t_wake, mask));
        rtb_samples_add(ret, rtb_ts_elapsed(c->t_block, t2, mask));
    }
    c->quit = 1;
    if (use_queue)
        rtb_queue_send(c->hq, msg, RTB_FOREVER);
    else
        rtb_sem_give(c->hsem);
    rtb_thread_join(h);
}

static void low_task(void *arg)
{
    prim_ctx *c = arg;
    uint32_t mask = rtb_ts_mask();
    uint32_t n = c->n, t0, t1;
    uint32_t msg[MSG_WORDS] = {1, 2, 3, 4}, in[MSG_WORDS];

    c->overhead = rtb_measure_overhead(&c->s[S_OVH], n);
    rtb_cache_cold();
    for (uint32_t i = 0; i < n; i++) {
        t0 = rtb_ts();
        rtb_marker_set(0);
        t1 = rtb_ts();
        rtb_samples_add(&c->s[S_GSET], rtb_ts_elapsed(t0, t1, mask));
        t0 = rtb_ts();
        rtb_marker_clear(0);
        t1 = rtb_ts();
        rtb_samples_add(&c->s[S_GCLR], rtb_ts_elapsed(t0, t1, mask));
    }
    rtb_sem *s = rtb_sem_create(0, 1);
    rtb_queue *q = rtb_queue_create(4, sizeof msg);
    if (!s || !q) {
        c->err = 1;
    } else {
        rtb_cache_cold();
        for (uint32_t i = 0; i < n; i++) {
            t0 = rtb_ts();
            rtb_sem_give(s);
            t1 = rtb_ts();
            rtb_samples_add(&c->s[S_GIVE], rtb_ts_elapsed(t0, t1, mask));
            t0 = rtb_ts();
            rtb_sem_take(s, 0);
            t1 = rtb_ts();
            rtb_samples_add(&c->s[S_TAKE], rtb_ts_elapsed(t0, t1, mask));
        }
        rtb_cache_cold();
        for (uint32_t i = 0; i < n; i++) {
            msg[0] = i;
            t0 = rtb_ts();
            rtb_queue_send(q, msg, 0);
            t1 = rtb_ts();
            rtb_samples_add(&c->s[S_SEND], rtb_ts_elapsed(t0, t1, mask));
            t0 = rtb_ts();
            rtb_queue_recv(q, in, 0);
            t1 = rtb_ts();
            rtb_samples_add(&c->s[S_RECV], rtb_ts_elapsed(t0, t1, mask));
        }
    }
    if (s)
        rtb_sem_delete(s);
    if (q)
        rtb_queue_delete(q);
    if (c->err)
        return;
    preempt_pass(c, 0, &c->s[S_PSEM], &c->s[S_RSEM]);
    if (!c->err)
        preempt_pass(c, 1, &c->s[S_PQ], &c->s[S_RQ]);
}

int rtb_sc_primitives(const rtbench_config *cfg)
{
    static prim_ctx c;
    rtb_run_begin(cfg, "primitives", 1);
    c.n = rtb_pool_fit(cfg->iterations, S_N + 1);
    rtb_emit_meta_u64("samples", c.n);
    c.err = 0;
    for (int i = 0; i < S_N; i++)
        if (rtb_samples_init(&c.s[i], names[i], c.n))
            return rtb_run_end(1, "sample pool exhausted: lower iterations");
    c.hsem = rtb_sem_create(0, 1);
    c.hq = rtb_queue_create(1, MSG_WORDS * sizeof(uint32_t));
    rtb_thread *low = c.hsem && c.hq
                          ? rtb_thread_create("low", low_task, &c, RTB_PRIO_LOW, 0)
                          : 0;
    if (low)
        rtb_thread_join(low);
    else
        c.err = 1;
    if (c.hsem)
        rtb_sem_delete(c.hsem);
    if (c.hq)
        rtb_queue_delete(c.hq);
    if (!rtb_preemptive())
        rtb_emit_warn("not_preemptive",
                      "a wake-up does not preempt at once here: preempt_* and return_* "
                      "include scheduler delays");
    rtb_emit_counter("overhead_floor", c.overhead, "ticks");
    rtb_report(&c.s[S_OVH], 0);
    for (int i = S_GSET; i < S_N; i++)
        rtb_report(&c.s[i], c.overhead);
    return rtb_run_end(c.err, "could not create an object or a thread");
}
