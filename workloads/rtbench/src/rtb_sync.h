/* Start and stop of throughput windows: a blocking barrier (threads of different
 * priorities on one core cannot spin-yield into each other) and the timer-control task
 * that opens the window with the others and closes it after window_ms. */
#ifndef RTB_SYNC_H
#define RTB_SYNC_H

#include <stdint.h>

#include "rtbench_port.h"

typedef struct {
    rtb_sem *go;
    unsigned arrived;
    unsigned n;
} rtb_barrier;

int rtb_barrier_init(rtb_barrier *b, unsigned n);
void rtb_barrier_wait(rtb_barrier *b);
void rtb_barrier_destroy(rtb_barrier *b);

typedef struct rtb_window {
    rtb_barrier start;       /* workers + the timer task */
    volatile int running;    /* workers loop while non-zero */
    uint32_t window_ms;
    uint64_t elapsed_us;     /* measured by the timer task */
    void (*on_stop)(struct rtb_window *w); /* releases workers blocked on objects */
    void *user;
    rtb_thread *timer;
} rtb_window;

/* Creates the timer-control task; workers call rtb_barrier_wait(&w->start) first. */
int rtb_window_open(rtb_window *w, unsigned workers, uint32_t window_ms);
void rtb_window_close(rtb_window *w); /* joins the timer task, frees the barrier */

/* Small PRNG (xorshift32) for the contention stress task: same sequence on every port. */
static inline uint32_t rtb_rand(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

#endif
