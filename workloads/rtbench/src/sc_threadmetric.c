/*
 * Thread-Metric-compatible throughput tests T1..T8 (the RP2040 SMP study, section
 * 4.4.1): each runs for a fixed window on `cores` cores, started by a barrier with the
 * timer-control task; the count is iterations completed in the window. Objects are per
 * core unless cfg->shared (T6, T7). Written from the tests' descriptions, not their code.
 */
#include "rtb_emit.h"
#include "rtb_run.h"
#include "rtb_tput.h"
#include "scenarios.h"

#define T2_TASKS 5
#define T3_TASKS 5
#define T8_BLOCK 128

static void t1_basic(void *arg)
{
    rtb_worker *w = arg;
    volatile uint32_t acc = 0; /* volatile: the compiler must not fold the work away */
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        for (uint32_t k = 0; k < 32; k++)
            acc = acc * 33u + k;
        w->count++;
    }
}

static void t2_coop(void *arg)
{
    rtb_worker *w = arg;
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        w->count++;
        rtb_yield();
    }
}

/* T3: a ring of tasks of rising priority on one core; each wakes the next. The next
 * one up preempts at once; the top one wakes the bottom one and blocks. */
static void t3_preempt(void *arg)
{
    rtb_worker *w = arg;
    rtb_sem *mine = w->obj[0], *next = w->obj[1];
    rtb_tput_start(w);
    if (w->idx == 0)
        rtb_sem_give(mine);
    for (;;) {
        rtb_sem_take(mine, RTB_FOREVER);
        if (!rtb_tput_running(w))
            break;
        w->count++;
        rtb_sem_give(next);
    }
}

static void isr_give(void *arg) { rtb_sem_give_from_isr(arg); }

static void t4_irq(void *arg)
{
    rtb_worker *w = arg;
    rtb_swi *swi = w->obj[1];
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        rtb_swi_trigger(swi);
        rtb_sem_take(w->obj[0], RTB_FOREVER);
        w->count++;
    }
}

static void t5_high(void *arg)
{
    rtb_worker *w = arg;
    rtb_tput_start(w);
    for (;;) {
        rtb_sem_take(w->obj[0], RTB_FOREVER);
        if (!rtb_tput_running(w))
            break;
        w->count++;
    }
}

static void t5_low(void *arg)
{
    rtb_worker *w = arg;
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        rtb_swi_trigger(w->obj[1]);
        w->count++;
    }
}

static void t6_msg(void *arg)
{
    rtb_worker *w = arg;
    uint32_t out[4] = {1, 2, 3, 4}, in[4];
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        out[0]++;
        rtb_queue_send(w->obj[0], out, RTB_FOREVER);
        rtb_queue_recv(w->obj[0], in, RTB_FOREVER);
        w->count++;
    }
}

static void t8_alloc(void *arg)
{
    rtb_worker *w = arg;
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        void *p = rtb_malloc(T8_BLOCK);
        if (p)
            ((volatile char *)p)[0] = 1;
        rtb_free(p);
        w->count++;
    }
}

/* Wakes every worker blocked on its semaphore once the window has closed. */
static void release_sems(rtb_window *win)
{
    rtb_tput *tp = win->user;
    for (unsigned i = 0; i < tp->n; i++)
        if (tp->w[i].obj[2])
            rtb_sem_give(tp->w[i].obj[2]);
}

typedef struct {
    unsigned n_sems, n_queues, n_swis;
    void *sems[RTB_MAX_WORKERS], *queues[RTB_MAX_WORKERS], *swis[RTB_MAX_WORKERS];
    int err;
} objs_t;

static rtb_sem *new_sem(objs_t *o, unsigned init)
{
    rtb_sem *s = rtb_sem_create(init, 1);
    if (!s)
        o->err = 1;
    else
        o->sems[o->n_sems++] = s;
    return s;
}

static rtb_queue *new_queue(objs_t *o)
{
    rtb_queue *q = rtb_queue_create(8, 4 * sizeof(uint32_t));
    if (!q)
        o->err = 1;
    else
        o->queues[o->n_queues++] = q;
    return q;
}

static rtb_swi *new_swi(objs_t *o, rtb_sem *s, int core)
{
    rtb_swi *i = s ? rtb_swi_create(isr_give, s, core) : 0;
    if (!i)
        o->err = 1;
    else
        o->swis[o->n_swis++] = i;
    return i;
}

static void free_objs(objs_t *o)
{
    for (unsigned i = 0; i < o->n_swis; i++)
        rtb_swi_delete(o->swis[i]);
    for (unsigned i = 0; i < o->n_queues; i++)
        rtb_queue_delete(o->queues[i]);
    for (unsigned i = 0; i < o->n_sems; i++)
        rtb_sem_delete(o->sems[i]);
}

static int setup(rtb_tput *tp, objs_t *o, int t, unsigned cores, int shared)
{
    rtb_queue *sq = 0;
    rtb_sem *ss = 0;
    if (shared && t == 6)
        sq = new_queue(o);
    if (shared && t == 7)
        ss = new_sem(o, 1);
    for (unsigned c = 0; c < cores && !o->err; c++) {
        int core = (int)c;
        rtb_worker *w;
        switch (t) {
        case 1:
            o->err |= !rtb_tput_add(tp, t1_basic, RTB_PRIO_BENCH, core, 0, 1);
            break;
        case 2:
            for (int k = 0; k < T2_TASKS; k++)
                o->err |= !rtb_tput_add(tp, t2_coop, RTB_PRIO_BENCH, core, k, 1);
            break;
        case 3: {
            rtb_worker *ring[T3_TASKS];
            for (int k = 0; k < T3_TASKS; k++) {
                ring[k] = rtb_tput_add(tp, t3_preempt, RTB_PRIO_BENCH + k, core, k, 1);
                if (!ring[k])
                    return o->err = 1;
                ring[k]->obj[0] = ring[k]->obj[2] = new_sem(o, 0);
            }
            for (int k = 0; k < T3_TASKS; k++)
                ring[k]->obj[1] = ring[(k + 1) % T3_TASKS]->obj[0];
            break;
        }
        case 4:
            if (!(w = rtb_tput_add(tp, t4_irq, RTB_PRIO_BENCH, core, 0, 1)))
                return o->err = 1;
            w->obj[0] = new_sem(o, 0);
            w->obj[1] = new_swi(o, w->obj[0], core);
            break;
        case 5: {
            rtb_worker *hi = rtb_tput_add(tp, t5_high, RTB_PRIO_BENCH + 1, core, 0, 1);
            w = rtb_tput_add(tp, t5_low, RTB_PRIO_BENCH, core, 1, 0);
            if (!hi || !w)
                return o->err = 1;
            hi->obj[0] = hi->obj[2] = new_sem(o, 0);
            w->obj[1] = new_swi(o, hi->obj[0], core);
            break;
        }
        case 6:
            if (!(w = rtb_tput_add(tp, t6_msg, RTB_PRIO_BENCH, core, 0, 1)))
                return o->err = 1;
            w->obj[0] = sq ? sq : new_queue(o);
            break;
        case 7:
            if (!(w = rtb_tput_add(tp, rtb_tput_take_give, RTB_PRIO_BENCH, core, 0, 1)))
                return o->err = 1;
            w->obj[0] = ss ? ss : new_sem(o, 1);
            break;
        case 8:
            o->err |= !rtb_tput_add(tp, t8_alloc, RTB_PRIO_BENCH, core, 0, 1);
            break;
        }
    }
    return o->err;
}

int rtb_sc_threadmetric(const rtbench_config *cfg, unsigned cores)
{
    static rtb_tput tp;
    static objs_t o;
    static const char *const names[8] = {"t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"};
    static const char *const peaks[8] = {"t1.heap_peak", "t2.heap_peak", "t3.heap_peak",
                                         "t4.heap_peak", "t5.heap_peak", "t6.heap_peak",
                                         "t7.heap_peak", "t8.heap_peak"};
    int err = 0;
    rtb_run_begin(cfg, "threadmetric", cores);
    rtb_emit_meta_u64("shared", cfg->shared);
    rtb_emit_meta_u64("tests_mask", cfg->tm_mask); /* bit 0 = T1 */
    for (int t = 1; t <= 8 && !err; t++) {
        if (!(cfg->tm_mask & (1u << (t - 1))))
            continue;
        rtb_tput_init(&tp);
        o.n_sems = o.n_queues = o.n_swis = 0;
        o.err = 0;
        rtb_run_heap_section();
        if (setup(&tp, &o, t, cores, cfg->shared) == 0)
            err = rtb_tput_run(&tp, cfg->window_ms, release_sems);
        else
            err = 1;
        free_objs(&o);
        if (!err) {
            rtb_tput_report(&tp, names[t - 1]);
            rtb_report_heap_peak(peaks[t - 1]);
        }
    }
    return rtb_run_end(err, "could not create an object or a thread (or more workers "
                            "than RTB_MAX_WORKERS)");
}
