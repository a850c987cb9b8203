#include "rtb_tput.h"

#include "rtb_emit.h"

void rtb_tput_init(rtb_tput *tp)
{
    tp->n = 0;
    tp->user = 0;
}

rtb_worker *rtb_tput_add(rtb_tput *tp, rtb_entry fn, int prio, int core, int idx, int counted)
{
    if (tp->n >= RTB_MAX_WORKERS)
        return 0;
    rtb_worker *w = &tp->w[tp->n++];
    w->tp = tp;
    w->count = 0;
    w->core = core;
    w->idx = idx;
    w->counted = counted;
    w->obj[0] = w->obj[1] = w->obj[2] = 0;
    w->t = 0;
    w->fn = fn;
    w->prio = prio;
    return w;
}

int rtb_tput_run(rtb_tput *tp, uint32_t window_ms, void (*on_stop)(rtb_window *))
{
    tp->win.on_stop = on_stop;
    tp->win.user = tp;
    if (rtb_window_open(&tp->win, tp->n, window_ms))
        return -1;
    int err = 0;
    for (unsigned i = 0; i < tp->n; i++) {
        rtb_worker *w = &tp->w[i];
        w->t = rtb_thread_create("worker", w->fn, w, w->prio, w->core);
        if (!w->t)
            err = -1;
    }
    if (err) { /* never leave the others at the barrier: stand in for the missing */
        for (unsigned i = 0; i < tp->n; i++)
            if (!tp->w[i].t)
                rtb_barrier_wait(&tp->win.start);
    }
    for (unsigned i = 0; i < tp->n; i++)
        if (tp->w[i].t)
            rtb_thread_join(tp->w[i].t);
    rtb_window_close(&tp->win);
    return err;
}

uint64_t rtb_tput_report(const rtb_tput *tp, const char *name)
{
    char key[48];
    size_t k = 0;
    for (const char *p = name; *p && k < 24; p++)
        key[k++] = *p;
    uint64_t total = 0;
    static int64_t per[RTB_MAX_WORKERS];
    unsigned m = 0;
    for (unsigned i = 0; i < tp->n; i++) {
        if (!tp->w[i].counted)
            continue;
        total += tp->w[i].count;
        per[m++] = (int64_t)tp->w[i].count;
    }
    rtb_emit_counter(name, (int64_t)total, "count");
    key[k] = 0;
    const char *suffix = ".elapsed_us";
    size_t j = k;
    for (const char *p = suffix; *p; p++)
        key[j++] = *p;
    key[j] = 0;
    rtb_emit_counter(key, (int64_t)tp->win.elapsed_us, "us");
    j = k;
    for (const char *p = ".per_thread"; *p; p++)
        key[j++] = *p;
    key[j] = 0;
    rtb_emit_series(key, "count", 0);
    rtb_emit_values(key, 0, per, m);
    return total;
}

void rtb_tput_take_give(void *arg)
{
    rtb_worker *w = arg;
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        rtb_sem_take(w->obj[0], RTB_FOREVER);
        rtb_sem_give(w->obj[0]);
        w->count++;
    }
}
