/*
 * Scalability by API access pattern (the RP2040 study, section 4.4.2, after Xing et al.'s
 * taxonomy): one benchmark task per active core calls one primitive in a loop on its own
 * object, so cores never contend for an object, only for the kernel's internal locks.
 * The host normalizes to the single-core run (= 100 %).
 *   p1  object only             semaphore get-count
 *   p23 object -> own/other task semaphore take + give
 *   p4  object -> task          queue send + receive
 *   p5  object -> many tasks    event flags set + clear (POSIX: condvar broadcast)
 *   p6  task only               priority get
 */
#include "rtb_emit.h"
#include "rtb_run.h"
#include "rtb_tput.h"
#include "scenarios.h"

static void p1(void *arg)
{
    rtb_worker *w = arg;
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        (void)rtb_sem_count(w->obj[0]);
        w->count++;
    }
}

static void p4(void *arg)
{
    rtb_worker *w = arg;
    uint32_t m = 0;
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        rtb_queue_send(w->obj[1], &m, RTB_FOREVER);
        rtb_queue_recv(w->obj[1], &m, RTB_FOREVER);
        w->count++;
    }
}

static void p5(void *arg)
{
    rtb_worker *w = arg;
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        rtb_event_set(w->obj[2], 1);
        rtb_event_clear(w->obj[2], 1);
        w->count++;
    }
}

static void p6(void *arg)
{
    rtb_worker *w = arg;
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        (void)rtb_prio_get();
        w->count++;
    }
}

int rtb_sc_scalability(const rtbench_config *cfg, unsigned cores)
{
    static rtb_tput tp;
    static const rtb_entry fns[5] = {p1, rtb_tput_take_give, p4, p5, p6};
    static const char *const names[5] = {"p1", "p23", "p4", "p5", "p6"};
    static rtb_sem *sems[RTB_MAX_WORKERS];
    static rtb_queue *queues[RTB_MAX_WORKERS];
    static rtb_event *events[RTB_MAX_WORKERS];
    int err = 0;

    rtb_run_begin(cfg, "scalability", cores);
    if (cores > RTB_MAX_WORKERS)
        return rtb_run_end(1, "more cores than RTB_MAX_WORKERS");
    for (unsigned c = 0; c < cores; c++) {
        sems[c] = 0;
        queues[c] = 0;
        events[c] = 0;
    }
    for (unsigned c = 0; c < cores && !err; c++) {
        sems[c] = rtb_sem_create(1, 1);
        queues[c] = rtb_queue_create(1, sizeof(uint32_t));
        events[c] = rtb_event_create();
        err = !sems[c] || !queues[c] || !events[c];
    }
    for (int p = 0; p < 5 && !err; p++) {
        rtb_tput_init(&tp);
        for (unsigned c = 0; c < cores; c++) {
            rtb_worker *w = rtb_tput_add(&tp, fns[p], RTB_PRIO_BENCH, (int)c, 0, 1);
            w->obj[0] = sems[c];
            w->obj[1] = queues[c];
            w->obj[2] = events[c];
        }
        err = rtb_tput_run(&tp, cfg->window_ms, 0);
        if (!err)
            rtb_tput_report(&tp, names[p]);
    }
    for (unsigned c = 0; c < cores; c++) {
        if (sems[c])
            rtb_sem_delete(sems[c]);
        if (queues[c])
            rtb_queue_delete(queues[c]);
        if (events[c])
            rtb_event_delete(events[c]);
    }
    return rtb_run_end(err, "could not create an object or a thread");
}
