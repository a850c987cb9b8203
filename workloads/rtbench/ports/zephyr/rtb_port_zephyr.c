/*
 * rtbench porting layer on Zephyr's native kernel API (k_thread, k_sem, k_msgq, k_event,
 * k_mutex, k_heap), single core and SMP.
 *
 * - Priorities: level L runs at preemptible priority RTB_PRIO_LEVELS - L (level 16 is
 *   priority 0, level 1 is 15); the idle thread sits at CONFIG_NUM_PREEMPT_PRIORITIES,
 *   below level 1. No cooperative priority is used.
 * - Threads: control block and stack come from the port's k_heap, as a FreeRTOS task's
 *   TCB and stack come from its heap, so heap figures compare; k_thread_join is Zephyr's.
 * - Interrupt context: the board's ISRs (IRQ_CONNECT) call the core's rtb_swi_dispatch;
 *   kernel calls from an ISR need no "woken" flag: Zephyr reschedules on ISR exit.
 * - The board's counter, output, markers and caches: src/board/rtb_board_port.c. On a
 *   QEMU board (RTB_PORT_OWNS_PINS: no pin) the marker is a store to a volatile word and
 *   the cold hook Zephyr's cache API, both here.
 * - Heap: one k_heap; used/peak from sys_heap_runtime_stats (its peak can be reset).
 *   Figures are relative to the heap in use when the main thread started.
 */
#include <zephyr/cache.h>
#include <zephyr/fatal.h>
#include <zephyr/kernel.h>
#include <zephyr/sys/sys_heap.h>
#include <zephyr/timeout_q.h>
#include <version.h>

#include "rtb_board.h"
#include "rtbench.h"
#include "rtbench_port.h"

BUILD_ASSERT(CONFIG_NUM_PREEMPT_PRIORITIES >= RTB_PRIO_LEVELS,
             "levels 1..16 need 16 preemptible priorities, idle below them");
BUILD_ASSERT(IS_ENABLED(CONFIG_SYS_HEAP_RUNTIME_STATS), "heap figures need runtime stats");
BUILD_ASSERT(IS_ENABLED(CONFIG_EVENTS), "rtb_event_* is k_event");

#ifndef RTB_ZEPHYR_HEAP
#define RTB_ZEPHYR_HEAP (128 * 1024)
#endif
#ifndef RTB_ZEPHYR_THREAD_STACK /* a 20 KiB board sets less (ports/zephyr/upstream) */
#define RTB_ZEPHYR_THREAD_STACK 2048 /* as the FreeRTOS port's 512 words: small locals */
#endif
#define THREAD_STACK RTB_ZEPHYR_THREAD_STACK

K_HEAP_DEFINE(rtb_heap, RTB_ZEPHYR_HEAP);

static struct {
    rtb_port_info info;
    size_t heap_base; /* heap in use when the main thread started */
} P;

static int zprio(int level) { return RTB_PRIO_LEVELS - level; }

#define KT RTB_ZEPHYR_KT /* rtb_port_inline.h: a sign extension, no call */

rtb_timeout rtb_timeout_us(uint32_t us)
{
    uint64_t ticks = k_us_to_ticks_ceil64(us); /* rounds up to the tick */
    return (rtb_timeout){ticks > INT32_MAX ? (uint32_t)INT32_MAX : (uint32_t)ticks};
}

#if !defined(RTB_PORT_OWNS_PINS) /* the board says what it empties (ports/zephyr/upstream) */
#define COLD rtb_board_cold()
#elif defined(CONFIG_CPU_CORTEX_M) && defined(CONFIG_CACHE_MANAGEMENT) && defined(CONFIG_ICACHE)
#define COLD "icache_invalidated"
#else
#define COLD "first_call"
#endif

/* --- lifecycle and platform ---------------------------------------------------------- */
int rtb_port_init(void)
{
    rtb_board_init();
    P.info.port = "zephyr";
    P.info.rtos = "zephyr";
    P.info.rtos_version = KERNEL_VERSION_STRING;
    P.info.board = rtb_board_name();
    P.info.clock = rtb_board_clock();
    P.info.cpu_hz = rtb_board_cpu_hz();
    P.info.cold = COLD;
    const char *msg = NULL;
    const char *code = rtb_board_warning(&msg);
    if (code)
        rtb_port_note_warning(code, msg);
    return 0;
}

const rtb_port_info *rtb_port_describe(void) { return &P.info; }
int rtb_core_count(void) { return (int)arch_num_cpus(); }
int rtb_preemptive(void) { return 1; } /* every level is a preemptible priority */

/* --- threads ------------------------------------------------------------------------- */
struct rtb_thread {
    struct k_thread kt;
    k_thread_stack_t *stack;
    rtb_entry fn;
    void *arg;
};

static void trampoline(void *p1, void *p2, void *p3)
{
    (void)p2;
    (void)p3;
    rtb_thread *t = p1;
    t->fn(t->arg);
}

rtb_thread *rtb_thread_create(const char *name, rtb_entry fn, void *arg, int prio, int core)
{
    (void)name; /* CONFIG_THREAD_NAME stays off: names cost a copy per create */
    rtb_thread *t = k_heap_alloc(&rtb_heap, sizeof *t, K_NO_WAIT);
    if (!t)
        return NULL;
    t->stack = k_heap_aligned_alloc(&rtb_heap, Z_KERNEL_STACK_OBJ_ALIGN,
                                    Z_KERNEL_STACK_LEN(THREAD_STACK), K_NO_WAIT);
    if (!t->stack) {
        k_heap_free(&rtb_heap, t);
        return NULL;
    }
    t->fn = fn;
    t->arg = arg;
#ifdef CONFIG_SCHED_CPU_MASK
    /* Created stopped and pinned: it must never start on another core, even briefly. */
    k_tid_t id = k_thread_create(&t->kt, t->stack, THREAD_STACK, trampoline, t, NULL, NULL,
                                 zprio(prio), 0, K_FOREVER);
    if (core >= 0)
        (void)k_thread_cpu_pin(id, core);
    k_thread_start(id);
#else
    (void)core; /* one core, or no CPU masks: nothing to pin */
    (void)k_thread_create(&t->kt, t->stack, THREAD_STACK, trampoline, t, NULL, NULL,
                          zprio(prio), 0, K_NO_WAIT);
#endif
    return t;
}

void rtb_thread_join(rtb_thread *t)
{
    (void)k_thread_join(&t->kt, K_FOREVER); /* dead and off every core: memory is free */
    k_heap_free(&rtb_heap, t->stack);
    k_heap_free(&rtb_heap, t);
}

void rtb_yield(void) { k_yield(); }

void rtb_sleep_us(uint32_t us)
{
    /* k_usleep rounds up to the tick and adds one; top up in case it returned early. */
    uint64_t end = rtb_time_us() + us;
    for (uint64_t now = rtb_time_us(); now < end; now = rtb_time_us())
        (void)k_usleep((int32_t)MIN(end - now, (uint64_t)INT32_MAX));
}

int rtb_prio_get(void) { return RTB_PRIO_LEVELS - k_thread_priority_get(k_current_get()); }

/* --- semaphores ---------------------------------------------------------------------- */
rtb_sem *rtb_sem_create(unsigned initial, unsigned max)
{
    struct k_sem *s = k_heap_alloc(&rtb_heap, sizeof *s, K_NO_WAIT);
    if (s && k_sem_init(s, initial, max ? max : 1) != 0) {
        k_heap_free(&rtb_heap, s);
        s = NULL;
    }
    return (rtb_sem *)s;
}
void rtb_sem_delete(rtb_sem *s) { k_heap_free(&rtb_heap, s); }
/* take and give: rtb_port_inline.h */
void rtb_sem_give_from_isr(rtb_sem *s) { k_sem_give((struct k_sem *)s); }
int rtb_sem_count(rtb_sem *s) { return (int)k_sem_count_get((struct k_sem *)s); }

/* --- queues -------------------------------------------------------------------------- */
struct rtb_queue {
    struct k_msgq q;
    char buf[]; /* depth x item_size */
};

rtb_queue *rtb_queue_create(unsigned depth, unsigned item_size)
{
    rtb_queue *q = k_heap_alloc(&rtb_heap, sizeof *q + (size_t)depth * item_size, K_NO_WAIT);
    if (q)
        k_msgq_init(&q->q, q->buf, item_size, depth);
    return q;
}
void rtb_queue_delete(rtb_queue *q) { k_heap_free(&rtb_heap, q); }
int rtb_queue_send(rtb_queue *q, const void *item, rtb_timeout t)
{
    return k_msgq_put(&q->q, item, KT(t)) == 0 ? 0 : -1;
}
int rtb_queue_send_from_isr(rtb_queue *q, const void *item)
{
    return k_msgq_put(&q->q, item, K_NO_WAIT) == 0 ? 0 : -1;
}
int rtb_queue_recv(rtb_queue *q, void *item, rtb_timeout t)
{
    return k_msgq_get(&q->q, item, KT(t)) == 0 ? 0 : -1;
}

/* --- event flags (k_event: all 32 bits) ---------------------------------------------- */
rtb_event *rtb_event_create(void)
{
    struct k_event *e = k_heap_alloc(&rtb_heap, sizeof *e, K_NO_WAIT);
    if (e)
        k_event_init(e);
    return (rtb_event *)e;
}
void rtb_event_delete(rtb_event *e) { k_heap_free(&rtb_heap, e); }
void rtb_event_set(rtb_event *e, uint32_t bits) { (void)k_event_post((struct k_event *)e, bits); }
void rtb_event_set_from_isr(rtb_event *e, uint32_t bits)
{
    (void)k_event_post((struct k_event *)e, bits); /* ISR-safe, not deferred */
}
void rtb_event_clear(rtb_event *e, uint32_t bits)
{
    (void)k_event_clear((struct k_event *)e, bits);
}
uint32_t rtb_event_wait(rtb_event *e, uint32_t bits, int clear, rtb_timeout t)
{
    /* k_event_wait's `reset` clears every bit before waiting: not this contract. The
     * clear after the wait is not atomic with it (no scenario relies on that). */
    uint32_t r = k_event_wait((struct k_event *)e, bits, false, KT(t));
    if (r && clear)
        (void)k_event_clear((struct k_event *)e, bits);
    return r;
}

/* --- mutexes (priority inheritance) -------------------------------------------------- */
rtb_mutex *rtb_mutex_create(void)
{
    struct k_mutex *m = k_heap_alloc(&rtb_heap, sizeof *m, K_NO_WAIT);
    if (m)
        (void)k_mutex_init(m);
    return (rtb_mutex *)m;
}
void rtb_mutex_delete(rtb_mutex *m) { k_heap_free(&rtb_heap, m); }
void rtb_mutex_lock(rtb_mutex *m) { (void)k_mutex_lock((struct k_mutex *)m, K_FOREVER); }
void rtb_mutex_unlock(rtb_mutex *m) { (void)k_mutex_unlock((struct k_mutex *)m); }

/* --- memory -------------------------------------------------------------------------- */
void *rtb_malloc(size_t size) { return k_heap_alloc(&rtb_heap, size, K_NO_WAIT); }
void rtb_free(void *p) { k_heap_free(&rtb_heap, p); }

int rtb_heap_stats(size_t *used, size_t *peak)
{
    struct sys_memory_stats st;
    if (sys_heap_runtime_stats_get(&rtb_heap.heap, &st) != 0)
        return -1;
    *used = st.allocated_bytes > P.heap_base ? st.allocated_bytes - P.heap_base : 0;
    *peak = st.max_allocated_bytes > P.heap_base ? st.max_allocated_bytes - P.heap_base : 0;
    return 0;
}

void rtb_heap_peak_reset(void)
{
    k_spinlock_key_t key = k_spin_lock(&rtb_heap.lock); /* k_heap_alloc updates it so */
    (void)sys_heap_runtime_stats_reset_max(&rtb_heap.heap);
    k_spin_unlock(&rtb_heap.lock, key);
}

/* --- time and board ------------------------------------------------------------------ */
uint64_t rtb_time_us(void) { return k_ticks_to_us_floor64((uint64_t)k_uptime_ticks()); }

#ifdef RTB_PORT_OWNS_PINS
/* Zephyr's cache API reaches a Cortex-M's own instruction cache (the M7's); a flash
 * accelerator outside the core (an STM32's ART, the RP2040's XIP cache) it does not:
 * an MCU board's own hook does (ports/zephyr/upstream). */
#if defined(CONFIG_CPU_CORTEX_M) && defined(CONFIG_CACHE_MANAGEMENT) && defined(CONFIG_ICACHE)
void rtb_cache_cold(void) { sys_cache_instr_invd_all(); }
#else
void rtb_cache_cold(void) {}
#endif
/* No pins: a store to a volatile word costs what a GPIO register write would. The words
 * are the mps2 layer's (boards/qemu-mps2/board_hooks.c): word 2ch + 1 sets channel ch,
 * word 2ch clears it, so rtlab's QEMU cycles plugin times them as marker edges. */
volatile uint32_t rtb_marker_words[8];
void rtb_board_marker(int ch, int on) { rtb_marker_words[2 * (ch & 3) + (on != 0)] = 1u; }
void rtb_marker_set(int ch) { rtb_board_marker(ch, 1); }
void rtb_marker_clear(int ch) { rtb_board_marker(ch, 0); }
#endif

/* Short sections from threads only, never nested (the core's barrier counter). */
static unsigned int critical_key;
void rtb_critical_enter(void) { critical_key = irq_lock(); }
void rtb_critical_exit(void) { irq_unlock(critical_key); }

/* A fault ends the run with a line and the board's end (QEMU exits with status 4, as
 * the FreeRTOS build's asserts do; on silicon a "done errors=4" line), not a hang. */
void k_sys_fatal_error_handler(unsigned int reason, const z_arch_esf_t *esf)
{
    (void)esf;
    static const char msg[] = "\nrtbench: zephyr fatal error ";
    char num[2] = {(char)('0' + (reason % 10u)), '\n'};
    rtb_board_out(msg, sizeof msg - 1);
    rtb_board_out(num, 2);
    rtb_board_exit(4);
}

/* --- start-up ------------------------------------------------------------------------ */
/* Zephyr's own main thread runs body (its stack: CONFIG_MAIN_STACK_SIZE). */
void rtb_port_start(void (*body)(void *), void *arg)
{
    k_thread_priority_set(k_current_get(), zprio(RTB_PRIO_MAIN));
    struct sys_memory_stats st;
    if (sys_heap_runtime_stats_get(&rtb_heap.heap, &st) == 0)
        P.heap_base = st.allocated_bytes;
    rtb_heap_peak_reset();
    body(arg);
}
