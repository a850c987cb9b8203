/* Throughput harness shared by Thread-Metric, scalability and contention: workers
 * pinned to cores, a barrier start with the timer-control task, a fixed window, and
 * per-worker iteration counts. */
#ifndef RTB_TPUT_H
#define RTB_TPUT_H

#include <stdint.h>

#include "rtb_sync.h"

#ifndef RTB_MAX_WORKERS
#define RTB_MAX_WORKERS 24 /* T2/T3 need 5 per core: 4 cores; hosts raise it in CMake */
#endif

typedef struct rtb_tput rtb_tput;

typedef struct {
    /* 64-byte aligned: two cores' workers never share a cache line. */
    _Alignas(64) rtb_tput *tp;
    volatile uint64_t count; /* written by the worker only, read after the join */
    int core;
    int idx;      /* index among workers of the same core */
    int counted;  /* counts toward the reported throughput */
    void *obj[3]; /* kernel objects the worker uses */
    rtb_thread *t;
    rtb_entry fn;
    int prio;
} rtb_worker;

struct rtb_tput {
    rtb_window win;
    rtb_worker w[RTB_MAX_WORKERS];
    unsigned n;
    void *user;
};

void rtb_tput_init(rtb_tput *tp);
/* Adds a worker (NULL when RTB_MAX_WORKERS are taken); fn receives its rtb_worker and must start with rtb_tput_start(). */
rtb_worker *rtb_tput_add(rtb_tput *tp, rtb_entry fn, int prio, int core, int idx, int counted);
static inline void rtb_tput_start(rtb_worker *w) { rtb_barrier_wait(&w->tp->win.start); }
static inline int rtb_tput_running(const rtb_worker *w) { return w->tp->win.running; }
/* The semaphore take + give worker on obj[0] (Thread-Metric T7, scalability p23 and
 * the contention target measure the same loop). */
void rtb_tput_take_give(void *arg);
/* Runs the window with every worker and joins them; 0 on success. */
int rtb_tput_run(rtb_tput *tp, uint32_t window_ms, void (*on_stop)(rtb_window *));
/* Counter NAME (sum of counted workers), NAME.elapsed_us, series NAME.per_thread. */
uint64_t rtb_tput_report(const rtb_tput *tp, const char *name);

#endif
