/*
 * rtbench porting layer on POSIX threads (Linux, and NuttX through ports/nuttx: only
 * POSIX calls plus the *_np affinity call that both have).
 *
 * - Priorities: SCHED_FIFO 10 + 4 * level when permitted (RTB_POSIX_POLICY: NuttX builds
 *   SCHED_RR, so equal levels share a core in tick-long slices as under FreeRTOS's time
 *   slicing); otherwise SCHED_OTHER with a warning (then a wake-up does not preempt at
 *   once and rtb_preemptive() says 0).
 * - Cores: pthread affinity. Timestamps: clock_gettime(CLOCK_MONOTONIC_RAW, or
 *   CLOCK_MONOTONIC where there is no RAW, as on NuttX) in ns, or
 *   with rtb_posix_set_clock("tsc") the CPU counter (cycle-level resolution), or a
 *   board's counter (rtb_posix_set_board_clock: NuttX in QEMU reads CMSDK TIMER0).
 * - Software interrupt: a dedicated thread above every level (SCHED_FIFO 90) pinned to
 *   the interrupt's core, blocked in sigwaitinfo() on its own real-time signal;
 *   rtb_swi_trigger is pthread_kill. The handler runs in that thread: "interrupt
 *   context" means it must only use *_from_isr calls, which never block.
 * - Heap: the bytes the suite allocates through the port (objects, rtb_malloc, thread
 *   stacks at their reserved size), not the whole process heap.
 * - Critical sections: one priority-inheritance mutex (no interrupts to mask here).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "rtbench.h"
#include "rtbench_port.h"

/* NuttX and other POSIX systems without Linux's extras: plain CLOCK_MONOTONIC, no
 * affinity query (sysconf instead). */
#ifdef CLOCK_MONOTONIC_RAW
#define RAW_CLOCK CLOCK_MONOTONIC_RAW
#define RAW_CLOCK_NAME "clock_monotonic_raw"
#else
#define RAW_CLOCK CLOCK_MONOTONIC
#define RAW_CLOCK_NAME "clock_monotonic"
#endif
#include "rtb_posix.h"

/* Pinning a new thread: Linux; NuttX only in an SMP build (it declares
 * pthread_attr_setaffinity_np there alone). */
#if defined(CPU_SET) && (!defined(__NuttX__) || defined(CONFIG_SMP))
#define HAVE_ATTR_AFFINITY 1
#else
#define HAVE_ATTR_AFFINITY 0
#endif

/* The real-time policy of every thread. On one core, equal levels take turns only with
 * SCHED_RR (contention's target and stress thread share RTB_PRIO_BENCH). */
#ifndef RTB_POSIX_POLICY
#define RTB_POSIX_POLICY SCHED_FIFO
#endif

#define FIFO_BASE 10
#define FIFO_STEP 4
#define FIFO_SWI 90
#ifndef RTB_POSIX_STACK_SIZE
#define RTB_POSIX_STACK_SIZE (64 * 1024) /* a small target sets less (NuttX: 8 KiB) */
#endif
#define STACK_SIZE RTB_POSIX_STACK_SIZE
#define MAX_SWI 16 /* SIGRTMIN .. SIGRTMIN+15 */

static struct {
    int fifo;
    int ncores;
    char release[64];
    char sysname[32];
    rtb_port_info info;
    pthread_mutex_t crit;
    atomic_size_t heap_used, heap_peak;
    atomic_int swi_used[MAX_SWI];
} P;

static int use_tsc;
static uint32_t tsc_hz;
static const rtb_posix_board_clock *board_clock;

void rtb_posix_set_board_clock(const rtb_posix_board_clock *clock) { board_clock = clock; }

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_CPU_COUNTER 1
static inline uint64_t cpu_counter(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
#define HAVE_CPU_COUNTER 1
static inline uint64_t cpu_counter(void)
{
    uint64_t v;
    __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
    return v;
}
#else
#define HAVE_CPU_COUNTER 0
static inline uint64_t cpu_counter(void) { return 0; }
#endif

static uint64_t raw_ns(void)
{
    struct timespec ts;
    clock_gettime(RAW_CLOCK, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int rtb_posix_set_clock(const char *name)
{
    if (strcmp(name, "monotonic_raw") == 0) {
        use_tsc = 0;
        return 0;
    }
    if (strcmp(name, "tsc") != 0 || !HAVE_CPU_COUNTER)
        return -1;
    uint64_t n0 = raw_ns(), c0 = cpu_counter();
    struct timespec d = {0, 20000000};
    nanosleep(&d, NULL);
    uint64_t n1 = raw_ns(), c1 = cpu_counter();
    double hz = (double)(c1 - c0) * 1e9 / (double)(n1 - n0);
    if (hz < 1e6 || hz > 4.2e9) /* must fit rtb_ts_hz()'s 32 bits */
        return -1;
    tsc_hz = (uint32_t)(hz / 1000.0 + 0.5) * 1000u; /* kHz-rounded: calibration noise */
    use_tsc = 1;
    return 0;
}

/* The caller's level for rtb_prio_get without SCHED_FIFO (pthread key: no TLS needed). */
static pthread_key_t level_key;

static void set_my_level(int level) { pthread_setspecific(level_key, (void *)(intptr_t)level); }

static int fifo_prio(int level) { return FIFO_BASE + FIFO_STEP * level; }

/* --- heap accounting ---------------------------------------------------------------- */
static void heap_add(size_t n)
{
    size_t now = atomic_fetch_add(&P.heap_used, n) + n;
    size_t peak = atomic_load(&P.heap_peak);
    while (now > peak && !atomic_compare_exchange_weak(&P.heap_peak, &peak, now)) {
    }
}

static void heap_sub(size_t n) { atomic_fetch_sub(&P.heap_used, n); }

typedef union {
    size_t size;
    max_align_t align;
} hdr_t;

void *rtb_malloc(size_t size)
{
    hdr_t *h = malloc(sizeof(hdr_t) + size);
    if (!h)
        return NULL;
    h->size = size;
    heap_add(size);
    return h + 1;
}

void rtb_free(void *p)
{
    if (!p)
        return;
    hdr_t *h = (hdr_t *)p - 1;
    heap_sub(h->size);
    free(h);
}

#define CACHE_LINE 64

void *rtb_posix_obj_alloc(size_t size)
{
    /* The size sits in a header line of its own so the object starts a line. */
    size_t n = (size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
    void *p = NULL;
    if (posix_memalign(&p, CACHE_LINE, CACHE_LINE + n) != 0)
        return NULL;
    *(size_t *)p = n;
    heap_add(n);
    return (char *)p + CACHE_LINE;
}

void rtb_posix_obj_free(void *p)
{
    if (!p)
        return;
    char *base = (char *)p - CACHE_LINE;
    heap_sub(*(size_t *)base);
    free(base);
}

int rtb_heap_stats(size_t *used, size_t *peak)
{
    *used = atomic_load(&P.heap_used);
    *peak = atomic_load(&P.heap_peak);
    return 0;
}

void rtb_heap_peak_reset(void) { atomic_store(&P.heap_peak, atomic_load(&P.heap_used)); }

/* "cpu MHz" of the first CPU in /proc/cpuinfo (Linux), 0 when absent. */
static uint32_t cpuinfo_hz(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    double mhz = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "cpu MHz", 7) == 0 && sscanf(strchr(line, ':') + 1, "%lf", &mhz) == 1)
            break;
    if (f)
        fclose(f);
    return mhz > 0 && mhz < 4290 ? (uint32_t)(mhz * 1e6 + 0.5) : 0;
}

/* --- platform ----------------------------------------------------------------------- */
int rtb_port_init(void)
{
    struct utsname u;
    P.ncores = 1;
#ifdef CPU_COUNT
    cpu_set_t set;
    CPU_ZERO(&set); /* NuttX without SMP: a macro that only ORs in CPU 0 */
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        P.ncores = CPU_COUNT(&set);
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    P.ncores = n > 0 ? (int)n : 1;
#endif
    pthread_key_create(&level_key, NULL);
    P.info.port = "posix";
    /* The rtos token is the system's name in lower case: "linux", "nuttx". */
    const char *sys = uname(&u) == 0 ? u.sysname : "unknown";
    size_t k = 0;
    for (; sys[k] && sys[k] != ' ' && k < sizeof P.sysname - 1; k++)
        P.sysname[k] = (char)(sys[k] >= 'A' && sys[k] <= 'Z' ? sys[k] - 'A' + 'a' : sys[k]);
    P.sysname[k] = 0;
    P.info.rtos = P.sysname;
    /* A release with a space or longer than the buffer is cut: it is only a label. */
    const char *rel = uname(&u) == 0 ? u.release : "unknown";
    k = 0;
    for (; rel[k] && rel[k] != ' ' && k < sizeof P.release - 1; k++)
        P.release[k] = rel[k];
    P.release[k] = 0;
    P.info.rtos_version = P.release;
    P.info.board = "host";
    P.info.clock = use_tsc ? "cpu_counter" : RAW_CLOCK_NAME;
    if (board_clock) {
        P.info.board = board_clock->board;
        P.info.clock = board_clock->clock;
        P.info.cpu_hz = board_clock->cpu_hz;
        if (board_clock->cache_cold)
            P.info.cold = board_clock->cold;
    } else {
        P.info.cpu_hz = use_tsc ? tsc_hz : cpuinfo_hz(); /* nominal clock, not turbo */
    }

    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&P.crit, &ma);
    pthread_mutexattr_destroy(&ma);

    /* The software-interrupt signals must be blocked in every thread but their own:
     * threads inherit this mask. */
    sigset_t ss;
    sigemptyset(&ss);
    for (int i = 0; i < MAX_SWI; i++)
        sigaddset(&ss, SIGRTMIN + i);
    pthread_sigmask(SIG_BLOCK, &ss, NULL);

    struct sched_param sp = {.sched_priority = fifo_prio(RTB_PRIO_MAIN)};
    P.fifo = pthread_setschedparam(pthread_self(), RTB_POSIX_POLICY, &sp) == 0;
    if (!P.fifo)
        rtb_port_note_warning("no_sched_fifo",
                              "SCHED_FIFO not permitted (run as root or grant "
                              "CAP_SYS_NICE / rtprio): SCHED_OTHER fallback, no strict "
                              "priorities, preemption figures are not comparable");
#if defined(_POSIX_MEMLOCK) && _POSIX_MEMLOCK > 0
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        rtb_port_note_warning("no_mlock",
                              "mlockall failed: page faults may show up in samples");
#endif
#ifdef __linux__
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* 1 ns slack: short sleeps stay short */
    FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
    long rt_runtime = -1;
    if (f) {
        if (fscanf(f, "%ld", &rt_runtime) != 1)
            rt_runtime = -1;
        fclose(f);
    }
    if (P.fifo && rt_runtime >= 0)
        rtb_port_note_warning("rt_throttling",
                              "sched_rt_runtime_us limits SCHED_FIFO to 95% of each "
                              "second: FIFO work past ~0.95 s in a second (throughput "
                              "windows back to back, a long troublemaker pass) stalls "
                              "every FIFO thread of its core for up to ~50 ms, and a "
                              "window or sample then holds the stall; write -1 there");
#endif
    set_my_level(RTB_PRIO_MAIN);
    return 0;
}

const rtb_port_info *rtb_port_describe(void) { return &P.info; }


int rtb_core_count(void) { return P.ncores; }
int rtb_preemptive(void) { return P.fifo; }

/* --- threads ------------------------------------------------------------------------ */
struct rtb_thread {
    pthread_t tid;
    rtb_entry fn;
    void *arg;
    int level;
};

static void *thread_main(void *p)
{
    rtb_thread *t = p;
    set_my_level(t->level);
    t->fn(t->arg);
    return NULL;
}

static int start_thread(pthread_t *tid, void *(*fn)(void *), void *arg, int fifo, int core)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, STACK_SIZE);
    if (P.fifo) {
        struct sched_param sp = {.sched_priority = fifo};
        pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&a, RTB_POSIX_POLICY);
        pthread_attr_setschedparam(&a, &sp);
    }
#if HAVE_ATTR_AFFINITY
    if (core >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(core, &set);
        pthread_attr_setaffinity_np(&a, sizeof set, &set);
    }
#else
    (void)core; /* a single-core system: nothing to pin */
#endif
    int rc = pthread_create(tid, &a, fn, arg);
    pthread_attr_destroy(&a);
    return rc;
}

rtb_thread *rtb_thread_create(const char *name, rtb_entry fn, void *arg, int prio, int core)
{
    rtb_thread *t = rtb_posix_obj_alloc(sizeof *t);
    if (!t)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    t->level = prio;
    if (start_thread(&t->tid, thread_main, t, fifo_prio(prio), core) != 0) {
        rtb_posix_obj_free(t);
        return NULL;
    }
    heap_add(STACK_SIZE); /* an RTOS takes the stack from its heap: count it alike */
#ifdef __linux__
    pthread_setname_np(t->tid, name);
#else
    (void)name;
#endif
    return t;
}

void rtb_thread_join(rtb_thread *t)
{
    pthread_join(t->tid, NULL);
    heap_sub(STACK_SIZE);
    rtb_posix_obj_free(t);
}

void rtb_yield(void) { sched_yield(); }

void rtb_sleep_us(uint32_t us)
{
    struct timespec ts = {.tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {
    }
}

int rtb_prio_get(void)
{
    if (!P.fifo)
        return (int)(intptr_t)pthread_getspecific(level_key);
    struct sched_param sp;
    int policy;
    pthread_getschedparam(pthread_self(), &policy, &sp); /* the call pattern 6 measures */
    return (sp.sched_priority - FIFO_BASE) / FIFO_STEP;
}

/* --- time and board ----------------------------------------------------------------- */
uint32_t rtb_ts(void)
{
    if (board_clock)
        return board_clock->ts();
    return (uint32_t)(use_tsc ? cpu_counter() : raw_ns());
}

uint32_t rtb_ts_hz(void) { return board_clock ? board_clock->ts_hz : use_tsc ? tsc_hz : 1000000000u; }
uint32_t rtb_ts_mask(void) { return 0xFFFFFFFFu; }

/* A process cannot empty the host's caches: its cold sample is the first call's (page
 * faults, lazy binding, cache misses of code not yet run). */
void rtb_cache_cold(void)
{
    if (board_clock && board_clock->cache_cold)
        board_clock->cache_cold();
}

uint64_t rtb_time_us(void)
{
    if (board_clock)
        return board_clock->time_us();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* No pin here: a store to a volatile word stands in for the GPIO register write. The
 * words are the mps2 layer's (boards/qemu-mps2/board_hooks.c): word 2ch + 1 sets channel
 * ch, word 2ch clears it, so rtlab's QEMU cycles plugin times NuttX's marker edges. */
volatile uint32_t rtb_marker_words[8];
void rtb_board_marker(int ch, int on); /* rtb_board.h's, which a hosted board has not */
void rtb_board_marker(int ch, int on) { rtb_marker_words[2 * (ch & 3) + (on != 0)] = 1u; }
void rtb_marker_set(int ch) { rtb_board_marker(ch, 1); }
void rtb_marker_clear(int ch) { rtb_board_marker(ch, 0); }

void rtb_critical_enter(void) { pthread_mutex_lock(&P.crit); }
void rtb_critical_exit(void) { pthread_mutex_unlock(&P.crit); }

void rtb_out_write(const char *line, size_t len) { fwrite(line, 1, len, stdout); }
void rtb_out_flush(void) { fflush(stdout); }

/* --- software interrupt --------------------------------------------------------------- */
struct rtb_swi {
    pthread_t tid;
    int slot;
    void (*handler)(void *);
    void *arg;
    volatile int quit;
};

static void *swi_main(void *p)
{
    rtb_swi *i = p;
    sigset_t ss;
    sigemptyset(&ss);
    sigaddset(&ss, SIGRTMIN + i->slot);
    for (;;) {
        if (sigwaitinfo(&ss, NULL) < 0)
            continue;
        if (i->quit)
            break;
        i->handler(i->arg);
    }
    return NULL;
}

rtb_swi *rtb_swi_create(void (*handler)(void *arg), void *arg, int core)
{
    int slot = -1;
    for (int k = 0; k < MAX_SWI && slot < 0; k++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&P.swi_used[k], &expected, 1))
            slot = k;
    }
    if (slot < 0)
        return NULL;
    rtb_swi *i = rtb_posix_obj_alloc(sizeof *i);
    if (!i) {
        atomic_store(&P.swi_used[slot], 0);
        return NULL;
    }
    i->slot = slot;
    i->handler = handler;
    i->arg = arg;
    i->quit = 0;
    if (start_thread(&i->tid, swi_main, i, FIFO_SWI, core) != 0) {
        atomic_store(&P.swi_used[slot], 0);
        rtb_posix_obj_free(i);
        return NULL;
    }
    return i;
}

void rtb_swi_trigger(rtb_swi *i) { pthread_kill(i->tid, SIGRTMIN + i->slot); }

void rtb_swi_delete(rtb_swi *i)
{
    i->quit = 1;
    pthread_kill(i->tid, SIGRTMIN + i->slot);
    pthread_join(i->tid, NULL);
    atomic_store(&P.swi_used[i->slot], 0);
    rtb_posix_obj_free(i);
}
