/*
 * rtbench porting layer: everything the scenarios need from an RTOS and a board.
 *
 * Two interfaces meet here. The RTOS interface (lifecycle, threads, semaphores, queues,
 * event flags, mutexes, memory, software interrupts, time, critical sections) is what
 * a port implements in ports/<rtos>/, in the spirit of Thread-Metric's porting layer.
 * The board services below it (counter, output, markers, caches) come from the board
 * interface, rtb_board.h, implemented once per board in boards/<board>/: a port on a
 * board layer gets them, and the software-interrupt pool, from the core (src/board/:
 * rtb_board_port.c, rtb_swi.c, and the shared start-up rtb_main.c) and writes only its
 * interrupt entry and exit (rtb_isr.h). The POSIX port implements both halves itself
 * (its board is the host). rtb_port_note_warning and rtb_port_warning are the core's.
 * Scenario code calls nothing else, so a new RTOS needs a new port and no scenario
 * change. Contracts in brief here, in full in docs/porting.md.
 *
 * Conventions
 *  - Handles are opaque pointers: a port may back them with static or dynamic objects.
 *    Create functions return NULL on failure; the suite then reports status=error.
 *  - Priorities are abstract levels 1 (lowest) .. RTB_PRIO_LEVELS (highest); the port
 *    maps them onto its own scale, keeping the order strict.
 *  - Timeouts are rtb_timeout values, in the port's own unit (its kernel's ticks):
 *    RTB_NO_WAIT polls, RTB_FOREVER blocks, rtb_timeout_us converts microseconds. A
 *    caller converts before its first timestamp, so a timed call holds the kernel call
 *    and no unit conversion. Blocking calls return 0 on success and -1 on timeout.
 *  - "_from_isr" functions are the only ones a software-interrupt handler may call; they
 *    never block. The port's interrupt wrapper requests a context switch at the end of
 *    the handler when one of them woke a higher-priority thread.
 *  - Cores are numbered 0 .. rtb_core_count()-1; core -1 lets the RTOS choose.
 */
#ifndef RTBENCH_PORT_H
#define RTBENCH_PORT_H

#include <stddef.h>
#include <stdint.h>

/* A blocking call's timeout in the port's own unit: a struct, so that a count of
 * microseconds passed by mistake does not compile. */
typedef struct {
    uint32_t ticks;
} rtb_timeout;
#define RTB_TICKS_FOREVER 0xFFFFFFFFu
#define RTB_NO_WAIT ((rtb_timeout){0u})
#define RTB_FOREVER ((rtb_timeout){RTB_TICKS_FOREVER})
#define RTB_PRIO_LEVELS 16 /* the suite uses 1..16; ports need >= 16 distinct levels */

typedef struct rtb_thread rtb_thread;
typedef struct rtb_sem rtb_sem;
typedef struct rtb_queue rtb_queue;
typedef struct rtb_event rtb_event;
typedef struct rtb_mutex rtb_mutex;
typedef struct rtb_swi rtb_swi;

typedef void (*rtb_entry)(void *arg);

/* Describes the platform for the run's metadata. Strings are tokens (no spaces). */
typedef struct {
    const char *port;         /* "posix", "freertos" */
    const char *rtos;         /* "linux", "freertos", "nuttx" */
    const char *rtos_version; /* kernel release, tskKERNEL_VERSION_NUMBER */
    const char *board;        /* "host", "mps2-an385", "pico" */
    const char *clock;        /* what rtb_ts() reads: "clock_monotonic_raw", "cmsdk_timer0" */
    uint32_t cpu_hz;          /* core clock for cycle conversion, 0 when unknown */
    const char *cold;         /* what rtb_cache_cold does: "first_call" (nothing to flush),
                                 "art_reset", "icache_invalidated", "xip_cache_flushed" */
} rtb_port_info;

/* --- lifecycle and platform ------------------------------------------------------- */
int rtb_port_init(void);                       /* once, before any other call */
const rtb_port_info *rtb_port_describe(void);
/* Provided by the core: rtb_port_init notes a set-up warning (code: a token), and the
 * suite reads the i-th back (NULL after the last) to repeat it in every run. */
void rtb_port_note_warning(const char *code, const char *msg);
const char *rtb_port_warning(int i, const char **msg);
int rtb_core_count(void);
int rtb_preemptive(void); /* 1 when a higher-priority wakeup preempts at once (FIFO) */
/* Board ports: runs body(arg) in a thread at level RTB_PRIO_MAIN (creating it with
 * BOARD_MAIN_TASK_WORDS of stack, 4096 by default, and starting the scheduler; or in the
 * kernel's own main thread); never returns. body runs rtbench_run and ends the program
 * (src/board/rtb_main.c). */
void rtb_port_start(void (*body)(void *), void *arg);

/* --- threads ---------------------------------------------------------------------- */
/* Starts fn(arg) at level prio on core (-1: any). A thread ends by returning from fn. */
rtb_thread *rtb_thread_create(const char *name, rtb_entry fn, void *arg, int prio, int core);
void rtb_thread_join(rtb_thread *t); /* waits for fn to return, then frees the thread */
void rtb_yield(void);                /* lets threads of the same level run */
void rtb_sleep_us(uint32_t us);      /* blocks at least us (rounded up to the tick) */
int rtb_prio_get(void);              /* the calling thread's level (scalability pattern 6) */

/* --- semaphores (binary: max 1) --------------------------------------------------- */
rtb_sem *rtb_sem_create(unsigned initial, unsigned max);
void rtb_sem_delete(rtb_sem *s);
/* Take (0, or -1 on timeout) and give (a give at max is dropped). A port gives them as
 * static inline functions in its folder's rtb_port_inline.h (its build puts the folder
 * on the include path), so that a timed give or take holds the kernel's call and no call
 * into the port; a port without that header implements them as functions. */
#if __has_include("rtb_port_inline.h")
/* Inline at every optimization level (-Os would otherwise keep an out-of-line copy). */
#define RTB_INLINE static inline __attribute__((always_inline))
#include "rtb_port_inline.h"
#else
int rtb_sem_take(rtb_sem *s, rtb_timeout t);
void rtb_sem_give(rtb_sem *s);
#endif
void rtb_sem_give_from_isr(rtb_sem *s);
int rtb_sem_count(rtb_sem *s); /* current count, no side effect (pattern 1) */

/* --- queues of fixed-size items, copied in and out -------------------------------- */
rtb_queue *rtb_queue_create(unsigned depth, unsigned item_size);
void rtb_queue_delete(rtb_queue *q);
int rtb_queue_send(rtb_queue *q, const void *item, rtb_timeout t);
int rtb_queue_send_from_isr(rtb_queue *q, const void *item); /* -1 when full */
int rtb_queue_recv(rtb_queue *q, void *item, rtb_timeout t);

/* --- event flags (32 bits; POSIX: mutex + condition variable) ---------------------- */
rtb_event *rtb_event_create(void);
void rtb_event_delete(rtb_event *e);
void rtb_event_set(rtb_event *e, uint32_t bits);
void rtb_event_set_from_isr(rtb_event *e, uint32_t bits);
void rtb_event_clear(rtb_event *e, uint32_t bits);
/* Waits until any of bits is set; returns the flags seen (0 on timeout), clears bits
 * when clear is non-zero. */
uint32_t rtb_event_wait(rtb_event *e, uint32_t bits, int clear, rtb_timeout t);

/* --- mutexes (priority inheritance where the RTOS has it) ------------------------- */
rtb_mutex *rtb_mutex_create(void);
void rtb_mutex_delete(rtb_mutex *m);
void rtb_mutex_lock(rtb_mutex *m);
void rtb_mutex_unlock(rtb_mutex *m);

/* --- memory: everything the suite allocates goes through here --------------------- */
void *rtb_malloc(size_t size);
void rtb_free(void *p);
/* Heap in use and its peak since the last reset, in bytes; -1 when the port cannot tell. */
int rtb_heap_stats(size_t *used, size_t *peak);
void rtb_heap_peak_reset(void);

/* --- software interrupt: handler runs in interrupt context (or the port's stand-in) - */
rtb_swi *rtb_swi_create(void (*handler)(void *arg), void *arg, int core);
void rtb_swi_delete(rtb_swi *i);
void rtb_swi_trigger(rtb_swi *i); /* pends it; from thread context */
/* External interrupt: handler runs on a GPIO edge interrupt (both edges) of the board's
 * input pin, which the bench wires to marker channel 3's pin (docs/instrument-pair.md):
 * toggling that marker (rtb_mark_toggle(RTB_MARK_EXT)) raises it. NULL where the board
 * has none; the core's default (a weak symbol) says so, so a port needs no change.
 * Released with rtb_swi_delete. */
rtb_swi *rtb_extirq_create(void (*handler)(void *arg), void *arg, int core);

/* --- time -------------------------------------------------------------------------- */
/* us microseconds as a timeout, rounded up to the port's unit: 0 is RTB_NO_WAIT, a
 * non-zero us never is, and no finite us is RTB_FOREVER (longer ones are clamped). */
rtb_timeout rtb_timeout_us(uint32_t us);
uint32_t rtb_ts(void);      /* free-running up-counter, wraps at rtb_ts_mask() */
uint32_t rtb_ts_hz(void);   /* its frequency */
uint32_t rtb_ts_mask(void); /* 2^bits - 1, bits <= 32 */
uint64_t rtb_time_us(void); /* monotonic microseconds, for windows (tick resolution ok) */

/* --- board services (a board port: src/board/rtb_board_port.c over rtb_board.h) ------ */
/* Makes code and data as cold as after reset (K4perf's first run from flash): flushes
 * or invalidates the board's flash and instruction caches, nothing where there are none.
 * The suite calls it before the first, cold sample of each latency series. */
void rtb_cache_cold(void);
/* A board may place the marker path in RAM (-DRTB_RAMFUNC=<section attribute>), so that
 * a marker's cost does not depend on a flash cache (rtb_mark.h); empty by default. */
#ifndef RTB_RAMFUNC
#define RTB_RAMFUNC
#endif
void rtb_marker_set(int ch); /* GPIO marker high; a no-op where there is no pin */
void rtb_marker_clear(int ch);
void rtb_critical_enter(void); /* short sections only, no blocking call inside */
void rtb_critical_exit(void);
void rtb_out_write(const char *line, size_t len); /* one complete protocol line with \n */
void rtb_out_flush(void);

#endif
