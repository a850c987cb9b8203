/*
 * Contention (the RP2040 study, section 4.4.3): a target task takes and gives a
 * semaphore in a loop; a stress task on another core draws r in 0..99 each iteration
 * and takes/gives the same semaphore when r < level, a private one otherwise (same
 * work, no sharing). The target's count per window at each level is reported; the
 * host normalizes to level 0 (= 100 %).
 */
#include "rtb_emit.h"
#include "rtb_run.h"
#include "rtb_sync.h"
#include "rtb_tput.h"
#include "scenarios.h"

typedef struct {
    uint32_t level;
    uint32_t seed;
} stress_arg;

static void stress(void *arg)
{
    rtb_worker *w = arg;
    stress_arg *a = w->obj[2];
    uint32_t state = a->seed ? a->seed : 1;
    rtb_tput_start(w);
    while (rtb_tput_running(w)) {
        rtb_sem *s = rtb_rand(&state) % 100u < a->level ? w->obj[0] : w->obj[1];
        rtb_sem_take(s, RTB_FOREVER);
        rtb_sem_give(s);
        w->count++;
    }
}

static void name_for(char *out, const char *prefix, unsigned level, const char *suffix)
{
    size_t k = 0;
    for (const char *p = prefix; *p; p++)
        out[k++] = *p;
    if (level >= 100)
        out[k++] = (char)('0' + level / 100);
    if (level >= 10)
        out[k++] = (char)('0' + level / 10 % 10);
    out[k++] = (char)('0' + level % 10);
    for (const char *p = suffix; *p; p++)
        out[k++] = *p;
    out[k] = 0;
}

int rtb_sc_contention(const rtbench_config *cfg, unsigned cores)
{
    static rtb_tput tp;
    char name[48], levels[RTB_MAX_LEVELS * 4 + 1];
    int err = 0;
    size_t k = 0;
    for (unsigned i = 0; i < cfg->n_levels; i++) {
        name_for(name, i ? "," : "", cfg->levels[i], "");
        for (const char *p = name; *p; p++)
            levels[k++] = *p;
    }
    levels[k] = 0;
    rtb_run_begin(cfg, "contention", cores);
    rtb_emit_meta("levels", levels);
    rtb_emit_meta_u64("seed", cfg->seed);
    int stress_core = cores > 1 ? 1 : 0;
    if (cores < 2)
        rtb_emit_warn("one_core", "stress and target share one core: contention only "
                                  "through preemption, not parallel access");
    rtb_sem *shared = rtb_sem_create(1, 1);
    rtb_sem *priv = rtb_sem_create(1, 1);
    err = !shared || !priv;
    for (unsigned i = 0; i < cfg->n_levels && !err; i++) {
        stress_arg a = {cfg->levels[i], cfg->seed};
        rtb_tput_init(&tp);
        rtb_worker *t = rtb_tput_add(&tp, rtb_tput_take_give, RTB_PRIO_BENCH, 0, 0, 1);
        t->obj[0] = shared;
        rtb_worker *s = rtb_tput_add(&tp, stress, RTB_PRIO_BENCH, stress_core, 0, 0);
        s->obj[0] = shared;
        s->obj[1] = priv;
        s->obj[2] = &a;
        err = rtb_tput_run(&tp, cfg->window_ms, 0);
        if (err)
            break;
        name_for(name, "contention_", a.level, "");
        rtb_tput_report(&tp, name);
        name_for(name, "contention_", a.level, ".stress");
        rtb_emit_counter(name, (int64_t)s->count, "count");
    }
    if (shared)
        rtb_sem_delete(shared);
    if (priv)
        rtb_sem_delete(priv);
    return rtb_run_end(err, "could not create an object or a thread");
}
