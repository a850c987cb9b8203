/*
 * Interrupt to task (the kernel-v4 study): a medium-priority task pends the software
 * interrupt every period; the handler timestamps its entry (handler latency) and sends
 * a message to the highest-priority actor, which timestamps its first instruction
 * (task activation latency). Both from the instant just before the trigger. A second
 * pass adds a lowest-priority busy "troublemaker" on the same core. With --irq-ext a
 * third pass takes a GPIO edge interrupt instead (K4perf: both edges), raised by the
 * trigger task toggling marker channel 3, which the bench wires to the board's input
 * pin (rtb_extirq_create); series isr_handler_ext, isr_task_ext.
 * With --markers the trigger toggles channel 0 just after its timestamp (channel 3 is
 * the external pass's trigger), the handler channel 1 and the task channel 2, each just
 * after its own timestamp (rtb_mark.h).
 */
#include "rtb_emit.h"
#include "rtb_mark.h"
#include "rtb_measure.h"
#include "rtb_run.h"
#include "scenarios.h"

typedef struct {
    uint32_t n;
    uint32_t period_us;
    rtb_samples *isr, *task;
    rtb_queue *q;
    rtb_sem *done;
    volatile uint32_t t0;
    volatile int tm_run;
    volatile uint32_t tm_spins;
    uint32_t lost;
    int mk;  /* --markers */
    int ext; /* this pass: the external interrupt */
} irq_ctx;

typedef struct {
    uint32_t t_isr;
    uint32_t quit;
} irq_msg;

static void handler(void *arg)
{
    irq_ctx *c = arg;
    irq_msg m = {rtb_ts(), 0};
    if (c->mk)
        rtb_mark_toggle(1);
    rtb_queue_send_from_isr(c->q, &m);
}

static void actor(void *arg)
{
    irq_ctx *c = arg;
    uint32_t mask = rtb_ts_mask();
    irq_msg m;
    for (;;) {
        rtb_queue_recv(c->q, &m, RTB_FOREVER);
        volatile uint32_t t2;
        if (c->mk)
            rtb_mark_ts_toggle(2, &t2);
        else
            t2 = rtb_ts();
        if (m.quit)
            break;
        rtb_samples_add(c->isr, rtb_ts_elapsed(c->t0, m.t_isr, mask));
        rtb_samples_add(c->task, rtb_ts_elapsed(c->t0, t2, mask));
        rtb_sem_give(c->done);
    }
}

static void troublemaker(void *arg)
{
    irq_ctx *c = arg;
    while (c->tm_run)
        c->tm_spins++;
}

static void trigger(void *arg)
{
    irq_ctx *c = arg;
    const rtb_timeout done_within = rtb_timeout_us(100000); /* converted once, untimed */
    rtb_swi *swi = c->ext ? rtb_extirq_create(handler, c, 0) : rtb_swi_create(handler, c, 0);
    if (!swi) {
        c->lost = c->n;
        return;
    }
    for (uint32_t i = 0; i < c->n; i++) {
        rtb_sleep_us(c->period_us);
        if (i == 0) /* the sleep ran kernel code: empty the caches after it */
            rtb_cache_cold();
        if (c->ext) { /* the edge on the wired pin is the trigger: t0 stored before it */
            rtb_mark_ts_toggle(RTB_MARK_EXT, &c->t0);
        } else if (c->mk) {
            rtb_mark_ts_toggle(0, &c->t0);
            rtb_swi_trigger(swi);
        } else {
            c->t0 = rtb_ts();
            rtb_swi_trigger(swi);
        }
        if (rtb_sem_take(c->done, done_within) != 0)
            c->lost++;
    }
    rtb_swi_delete(swi);
}

static int pass(irq_ctx *c, int with_tm)
{
    irq_msg quit = {0, 1};
    c->tm_run = 1;
    c->lost = 0;
    rtb_thread *tm = with_tm ? rtb_thread_create("troublemaker", troublemaker, c,
                                                 RTB_PRIO_IDLE_BUSY, 0)
                             : 0;
    rtb_thread *a = rtb_thread_create("actor", actor, c, RTB_PRIO_ACTOR, 0);
    rtb_thread *t = a ? rtb_thread_create("trigger", trigger, c, RTB_PRIO_TRIGGER, 0) : 0;
    if (t)
        rtb_thread_join(t);
    if (a) {
        rtb_queue_send(c->q, &quit, RTB_FOREVER);
        rtb_thread_join(a);
    }
    c->tm_run = 0;
    if (tm)
        rtb_thread_join(tm);
    return !t || (with_tm && !tm);
}

/* Marked: sample i of a pass's series starts at edge first + i of its trigger channel
 * and ends at edge first + i of the handler's (1) or the task's (2) channel. */
static void plan(const char *handler_name, const char *task_name, const uint32_t *first,
                 int from)
{
    rtb_mark_plan(handler_name, from, first[from], 1, 1, first[1], 1);
    rtb_mark_plan(task_name, from, first[from], 1, 2, first[2], 1);
}

int rtb_sc_irq(const rtbench_config *cfg)
{
    static irq_ctx c;
    static rtb_samples s[6];
    static const char *const names[6] = {"isr_handler", "isr_task", "isr_handler_tm",
                                         "isr_task_tm", "isr_handler_ext", "isr_task_ext"};
    static const char *const lost_names[3] = {"isr_lost", "isr_lost_tm", "isr_lost_ext"};
    int passes = cfg->irq_ext ? 3 : 2;
    uint32_t first[3][RTB_MARK_CHANNELS];
    rtb_run_begin(cfg, "irq", 1);
    rtb_emit_meta_u64("period_us", cfg->period_us);
    c.n = rtb_pool_fit(cfg->iterations, (uint32_t)(2 * passes + 1));
    rtb_emit_meta_u64("samples", c.n);
    c.period_us = cfg->period_us;
    c.mk = cfg->markers;
    for (int i = 0; i < 2 * passes; i++)
        if (rtb_samples_init(&s[i], names[i], c.n))
            return rtb_run_end(1, "sample pool exhausted: lower iterations");
    c.q = rtb_queue_create(4, sizeof(irq_msg));
    c.done = rtb_sem_create(0, 1);
    int err = !c.q || !c.done, no_ext = 0;
    uint32_t lost[3] = {0, 0, 0};
    for (int p = 0; p < passes && !err; p++) {
        c.isr = &s[2 * p];
        c.task = &s[2 * p + 1];
        c.ext = p == 2;
        for (int ch = 0; ch < RTB_MARK_CHANNELS; ch++)
            first[p][ch] = rtb_mark_edges(ch);
        err = pass(&c, p == 1);
        lost[p] = c.lost;
        no_ext = c.ext && c.lost == c.n && s[4].n == 0;
    }
    if (c.q)
        rtb_queue_delete(c.q);
    if (c.done)
        rtb_sem_delete(c.done);
    for (int p = 0; p < passes; p++)
        rtb_emit_counter(lost_names[p], lost[p], "count");
    if (no_ext)
        rtb_emit_warn("no_external_irq", "no external interrupt reached the handler: the "
                                         "board has none, or its input pin is not wired "
                                         "to marker channel 3's");
    /* The handler latency includes the trigger call itself; no overhead floor is
     * subtracted beyond one timestamp read. */
    rtb_samples ovh;
    uint32_t floor = 0;
    if (rtb_samples_init(&ovh, "overhead", 64) == 0)
        floor = rtb_measure_overhead(&ovh, 64);
    rtb_emit_counter("overhead_floor", floor, "ticks");
    for (int p = 0; p < passes; p++) {
        if (c.mk && s[2 * p].n)
            plan(names[2 * p], names[2 * p + 1], first[p], p == 2 ? RTB_MARK_EXT : 0);
        rtb_report(&s[2 * p], floor);
        rtb_report(&s[2 * p + 1], floor);
    }
    return rtb_run_end(err, "could not create an object or a thread");
}
