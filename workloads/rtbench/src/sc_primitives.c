/*
 * Primitive costs (the STM32 study, Table 1): GPIO marker set/clear, semaphore give and
 * take and queue send and receive with nobody waiting, then preemption of a low-priority
 * task by a high-priority one woken through a semaphore or a queue, and the return to
 * the low-priority task when the high one blocks again. Everything runs on core 0.
 * With --markers (rtb_mark.h) each timed call is bracketed by a marker pin: channel 1
 * for the first series of each pair (give, send, preempt_*), channel 2 for the second
 * (take, recv, return_*); the gpio rows toggle channel 0 as always.
 */
#include "rtb_emit.h"
#include "rtb_mark.h"
#include "rtb_measure.h"
#include "rtb_run.h"
#include "scenarios.h"

#define MSG_WORDS 4 /* a 16-byte message, as Thread-Metric's */

/* One timed call: t0, op, t1. Marked, the pin on ch goes high just after t0 and low
 * just before t1, so the instrument's pulse and the counter time the same call. */
#define TIMED(mk, ch, t0, t1, op)                                                          \
    do {                                                                                   \
        if (mk) {                                                                          \
            t0 = rtb_mark_ts_set(ch);                                                      \
            op;                                                                            \
            t1 = rtb_mark_clear_ts(ch);                                                    \
        } else {                                                                           \
            t0 = rtb_ts();                                                                 \
            op;                                                                            \
            t1 = rtb_ts();                                                                 \
        }                                                                                  \
    } while (0)

/* The take's timeout, converted before the row. The conformance test's own build
 * (-DRTB_TIMED_CONVERSION) converts it inside the timed region instead, as the ports
 * once did, to show that the test finds such a call (tests/lab/conformance). */
#ifdef RTB_TIMED_CONVERSION
#define TAKE_TIMEOUT rtb_timeout_us(0)
#else
#define TAKE_TIMEOUT RTB_NO_WAIT
#endif

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
    int mk;                /* --markers */
    uint32_t first[S_N];   /* marked: the first edge of each series on its channel */
} prim_ctx;

/* Marked series: their channel (0: not bracketed) */
static const uint8_t mark_ch[S_N] = {0, 0, 0, 1, 2, 1, 2, 1, 2, 1, 2};

static void mark_first(prim_ctx *c, int a, int b)
{
    c->first[a] = rtb_mark_edges(mark_ch[a]);
    c->first[b] = rtb_mark_edges(mark_ch[b]);
}

static void high_task(void *arg)
{
    prim_ctx *c = arg;
    uint32_t msg[MSG_WORDS];
    for (;;) {
        if (c->use_queue)
            rtb_queue_recv(c->hq, msg, RTB_FOREVER);
        else
            rtb_sem_take(c->hsem, RTB_FOREVER);
        /* marked: the preemption's pulse ends (a no-op after quit) */
        uint32_t t = c->mk ? rtb_mark_clear_ts(1) : rtb_ts();
        if (c->quit)
            break;
        c->t_wake = t;
        c->wakes++;
        c->t_block = c->mk ? rtb_mark_ts_set(2) : rtb_ts(); /* the return's pulse starts */
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
        uint32_t seen = c->wakes, t0, t2;
        if (c->mk)
            t0 = rtb_mark_ts_set(1);
        else
            t0 = rtb_ts();
        if (use_queue)
            rtb_queue_send(c->hq, msg, RTB_FOREVER);
        else
            rtb_sem_give(c->hsem);
        if (c->mk)
            t2 = rtb_mark_clear_ts(2);
        else
            t2 = rtb_ts();
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
    rtb_mark_made(0, 2 * n);
    rtb_sem *s = rtb_sem_create(0, 1);
    rtb_queue *q = rtb_queue_create(4, sizeof msg);
    if (!s || !q) {
        c->err = 1;
    } else {
        mark_first(c, S_GIVE, S_TAKE);
        rtb_cache_cold();
        for (uint32_t i = 0; i < n; i++) {
            TIMED(c->mk, 1, t0, t1, rtb_sem_give(s));
            rtb_samples_add(&c->s[S_GIVE], rtb_ts_elapsed(t0, t1, mask));
            TIMED(c->mk, 2, t0, t1, rtb_sem_take(s, TAKE_TIMEOUT));
            rtb_samples_add(&c->s[S_TAKE], rtb_ts_elapsed(t0, t1, mask));
        }
        mark_first(c, S_SEND, S_RECV);
        rtb_cache_cold();
        for (uint32_t i = 0; i < n; i++) {
            msg[0] = i;
            TIMED(c->mk, 1, t0, t1, rtb_queue_send(q, msg, RTB_NO_WAIT));
            rtb_samples_add(&c->s[S_SEND], rtb_ts_elapsed(t0, t1, mask));
            TIMED(c->mk, 2, t0, t1, rtb_queue_recv(q, in, RTB_NO_WAIT));
            rtb_samples_add(&c->s[S_RECV], rtb_ts_elapsed(t0, t1, mask));
        }
    }
    if (s)
        rtb_sem_delete(s);
    if (q)
        rtb_queue_delete(q);
    if (c->err)
        return;
    mark_first(c, S_PSEM, S_RSEM);
    preempt_pass(c, 0, &c->s[S_PSEM], &c->s[S_RSEM]);
    mark_first(c, S_PQ, S_RQ);
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
    c.mk = cfg->markers;
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
    for (int i = S_GSET; i < S_N; i++) {
        if (c.mk && mark_ch[i] && c.s[i].n)
            rtb_mark_plan_pulses(names[i], mark_ch[i], c.first[i]);
        rtb_report(&c.s[i], c.overhead);
    }
    return rtb_run_end(c.err, "could not create an object or a thread");
}
