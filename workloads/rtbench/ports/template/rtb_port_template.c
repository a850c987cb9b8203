/*
 * rtbench porting layer, template: copy this directory to ports/<your-rtos>/, rename
 * this file rtb_port_<your-rtos>.c and replace every stub. Each stub compiles and
 * fails safely (NULL, -1, 0), so the port builds from the first minute and the suite
 * reports status=error for what is still missing. Full contracts: docs/porting.md;
 * a complete example on an RTOS: ports/freertos/rtb_port_freertos.c.
 */
#include "rtbench_port.h"

/* --- lifecycle and platform ---------------------------------------------------------- */

/* Called once, before any other function: set up the clock behind rtb_ts, the output
 * behind rtb_out_write and anything the RTOS needs; note set-up problems with
 * rtb_port_note_warning(code, msg) (the core keeps them) rather than failing. Returns 0,
 * or non-zero when nothing can run. */
int rtb_port_init(void) { return 0; }

/* Platform facts for the run's meta records. Every string is a token (no spaces). */
const rtb_port_info *rtb_port_describe(void)
{
    static const rtb_port_info info = {
        .port = "template",       /* this directory's name */
        .rtos = "template",       /* the RTOS: "freertos", "zephyr", "nuttx" */
        .rtos_version = "0",      /* the kernel's release string */
        .board = "template",      /* the board or QEMU machine: "mps2-an385", "pico" */
        .clock = "template",      /* what rtb_ts reads: "cmsdk_timer0", "dwt_cyccnt" */
        .cpu_hz = 0,              /* core clock for cycle conversion, 0 when unknown */
        .cold = "first_call",     /* what rtb_cache_cold does; nothing to flush here */
    };
    return &info;
}

/* Cores the scheduler runs threads on (1 on a single-core RTOS). */
int rtb_core_count(void) { return 1; }

/* 1 when a wake-up of a higher level preempts the running thread at once. */
int rtb_preemptive(void) { return 1; }

/* --- threads ------------------------------------------------------------------------- */

/* Starts fn(arg) at level prio (1..RTB_PRIO_LEVELS, mapped strictly monotonically onto
 * the RTOS's priorities, the idle task below level 1), pinned to core (-1: any). The
 * thread must never start on another core, even briefly. 2 KiB of stack is enough. */
rtb_thread *rtb_thread_create(const char *name, rtb_entry fn, void *arg, int prio, int core)
{
    (void)name, (void)fn, (void)arg, (void)prio, (void)core;
    return NULL;
}

/* Called by the creator only: waits until fn returned, then frees the thread (stack
 * and control block at once, so heap_used_end reads 0). */
void rtb_thread_join(rtb_thread *t) { (void)t; }

/* Lets the other ready threads of the same level run. */
void rtb_yield(void) {}

/* Blocks for at least us microseconds (rounded up to the tick, never down). */
void rtb_sleep_us(uint32_t us) { (void)us; }

/* The calling thread's level (1..RTB_PRIO_LEVELS), as given to rtb_thread_create. */
int rtb_prio_get(void) { return 0; }

/* --- semaphores (counting; max 1 makes a binary one) --------------------------------- */

rtb_sem *rtb_sem_create(unsigned initial, unsigned max)
{
    (void)initial, (void)max;
    return NULL;
}
void rtb_sem_delete(rtb_sem *s) { (void)s; }
/* 0 when taken, -1 on timeout (RTB_NO_WAIT polls, RTB_FOREVER blocks). Pass t on as
 * the kernel's own value: no conversion here, a timed row would count it. */
int rtb_sem_take(rtb_sem *s, rtb_timeout t)
{
    (void)s, (void)t;
    return -1;
}
void rtb_sem_give(rtb_sem *s) { (void)s; } /* a give at max is dropped */
/* Interrupt context: never blocks; notes a needed context switch (see rtb_swi_*). */
void rtb_sem_give_from_isr(rtb_sem *s) { (void)s; }
int rtb_sem_count(rtb_sem *s) /* the current count, without side effect */
{
    (void)s;
    return 0;
}

/* --- queues of fixed-size items, copied in and out ----------------------------------- */

rtb_queue *rtb_queue_create(unsigned depth, unsigned item_size)
{
    (void)depth, (void)item_size;
    return NULL;
}
void rtb_queue_delete(rtb_queue *q) { (void)q; }
int rtb_queue_send(rtb_queue *q, const void *item, rtb_timeout t) /* 0, or -1 */
{
    (void)q, (void)item, (void)t;
    return -1;
}
int rtb_queue_send_from_isr(rtb_queue *q, const void *item) /* -1 when full */
{
    (void)q, (void)item;
    return -1;
}
int rtb_queue_recv(rtb_queue *q, void *item, rtb_timeout t) /* 0, or -1 */
{
    (void)q, (void)item, (void)t;
    return -1;
}

/* --- event flags (32 bits; bits the RTOS lacks may be dropped, say so in a comment) --- */

rtb_event *rtb_event_create(void) { return NULL; }
void rtb_event_delete(rtb_event *e) { (void)e; }
void rtb_event_set(rtb_event *e, uint32_t bits) { (void)e, (void)bits; }
void rtb_event_set_from_isr(rtb_event *e, uint32_t bits) { (void)e, (void)bits; }
void rtb_event_clear(rtb_event *e, uint32_t bits) { (void)e, (void)bits; }
/* Waits until any of bits is set; returns the flags seen (0 on timeout) and clears
 * bits when clear is non-zero. */
uint32_t rtb_event_wait(rtb_event *e, uint32_t bits, int clear, rtb_timeout t)
{
    (void)e, (void)bits, (void)clear, (void)t;
    return 0;
}

/* --- mutexes (with priority inheritance where the RTOS has it) ----------------------- */

rtb_mutex *rtb_mutex_create(void) { return NULL; }
void rtb_mutex_delete(rtb_mutex *m) { (void)m; }
void rtb_mutex_lock(rtb_mutex *m) { (void)m; }
void rtb_mutex_unlock(rtb_mutex *m) { (void)m; }

/* --- memory: everything the suite allocates ------------------------------------------ */

void *rtb_malloc(size_t size)
{
    (void)size;
    return NULL;
}
void rtb_free(void *p) { (void)p; }
/* Heap in use and its peak since rtb_heap_peak_reset, in bytes, counting what the RTOS
 * allocates for the suite's objects too; -1 when the port cannot tell. */
int rtb_heap_stats(size_t *used, size_t *peak)
{
    (void)used, (void)peak;
    return -1;
}
void rtb_heap_peak_reset(void) {}

/* --- software interrupt -------------------------------------------------------------- */

/* A real interrupt line (one no device drives) whose handler runs handler(arg) on core;
 * after the handler the port's wrapper switches context when a *_from_isr call woke a
 * higher thread. NULL when out of lines. */
rtb_swi *rtb_swi_create(void (*handler)(void *arg), void *arg, int core)
{
    (void)handler, (void)arg, (void)core;
    return NULL;
}
void rtb_swi_delete(rtb_swi *i) { (void)i; }
/* Pends the interrupt from thread context; returns after the handler ran. */
void rtb_swi_trigger(rtb_swi *i) { (void)i; }

/* --- time ---------------------------------------------------------------------------- */

/* A free-running up-counter, read in a few instructions (a timer or cycle register),
 * wrapping at rtb_ts_mask(); its rate in Hz. */
uint32_t rtb_ts(void) { return 0; }
uint32_t rtb_ts_hz(void) { return 1; }
uint32_t rtb_ts_mask(void) { return 0xFFFFFFFFu; }
/* Monotonic microseconds for throughput windows; tick resolution is enough. */
uint64_t rtb_time_us(void) { return 0; }
/* us as the kernel's own timeout value (its ticks, rounded up): 0 stays RTB_NO_WAIT,
 * a finite us is never RTB_FOREVER. Called outside timed regions only. */
rtb_timeout rtb_timeout_us(uint32_t us) { return (rtb_timeout){us}; }

/* --- board --------------------------------------------------------------------------- */

/* Flush or invalidate the board's flash and instruction caches, as after reset (the
 * first, cold sample of each series follows); set .cold to say what it does. */
void rtb_cache_cold(void) {}

/* A GPIO marker for a logic analyser: one register write; a no-op without pins. */
void rtb_marker_set(int ch) { (void)ch; }
void rtb_marker_clear(int ch) { (void)ch; }
/* Short sections only, no blocking call inside (interrupts off, or the RTOS's lock). */
void rtb_critical_enter(void) {}
void rtb_critical_exit(void) {}
/* One complete protocol line with its \n: write it out (polled UART, semihosting,
 * stdout); rtb_out_flush after a run's last line. */
void rtb_out_write(const char *line, size_t len) { (void)line, (void)len; }
void rtb_out_flush(void) {}
