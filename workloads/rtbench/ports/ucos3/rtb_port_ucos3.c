/*
 * rtbench porting layer on µC/OS-III (v3.08, single core).
 *
 * - Priorities: µC/OS-III's scale is inverted (0 = highest): level L runs at 17 - L
 *   (level 16 -> 1, level 1 -> 16); idle is OS_CFG_PRIO_MAX - 1 = 19, below level 1.
 * - Objects are static pools (µC/OS-III allocates nothing: the caller gives every TCB,
 *   stack and object; their sizes: rtb_ucos3_sizes.h). "Heap" figures are the bytes of
 *   those pools in use (threads with their stacks, objects, partition blocks), relative
 *   to the start of the main task.
 * - Threads: a trampoline runs fn, posts the thread's join semaphore and suspends
 *   itself; rtb_thread_join (the creator) pends on it and deletes the task, so its slot
 *   is free at once.
 * - Interrupt context: µC/OS-III has no woken flag. The core's rtb_swi_dispatch wraps
 *   the scenario's handler in OSIntEnter()/OSIntExit() (rtb_isr.h); posts from the
 *   handler ready tasks and OSIntExit switches to the highest one.
 * - What differs from the suite's model, said in every run (warn records):
 *   queue_by_pointer  OSQ passes pointers; the port copies an item into a slot of its
 *                     own and posts the slot's address (send and recv include the copy);
 *   heap_partition    no general heap: rtb_malloc is OSMemGet on a partition of 128-byte
 *                     blocks (T8 times OSMemGet/OSMemPut);
 *   no_getters        no semaphore-count or priority getter in the API: rtb_sem_count
 *                     reads OS_SEM.Ctr and rtb_prio_get OSTCBCurPtr->Prio directly.
 *   There is no SMP: rtb_core_count() is 1, multi-core runs are not made.
 */
#include <string.h>

#include "os.h"

#include "rtb_board.h"
#include "rtb_ucos3_sizes.h"
#include "rtbench.h"
#include "rtbench_port.h"

#if OS_CFG_PRIO_MAX < RTB_PRIO_LEVELS + 3
#error "OS_CFG_PRIO_MAX must be >= 19: levels at 17 - level (1..16), idle below"
#endif
#if !OS_CFG_SEM_EN || !OS_CFG_Q_EN || !OS_CFG_FLAG_EN || !OS_CFG_MUTEX_EN || !OS_CFG_MEM_EN
#error "rtbench needs semaphores, queues, event flags, mutexes and memory partitions"
#endif
#if !OS_CFG_TASK_DEL_EN || !OS_CFG_TASK_SUSPEND_EN || !OS_CFG_SCHED_ROUND_ROBIN_EN
#error "rtbench needs OSTaskDel, OSTaskSuspend and round-robin (rtb_yield)"
#endif

#define PRIO(level) ((OS_PRIO)(17 - (level)))
#define LEVEL(prio) (17 - (int)(prio))

#define MAX_THREADS RTB_UCOS3_THREADS
#define THREAD_STACK_WORDS RTB_THREAD_STACK_WORDS
#define MAIN_STACK_WORDS RTB_UCOS3_MAIN_STACK_WORDS
#define MAX_SEMS RTB_UCOS3_SEMS
#define MAX_QUEUES RTB_UCOS3_QUEUES
#define MAX_EVENTS RTB_UCOS3_EVENTS
#define MAX_MUTEXES RTB_UCOS3_MUTEXES
#define QUEUE_STORE RTB_UCOS3_QUEUE_STORE /* item slots per queue: (depth + 2) x item_size */
#define QUEUE_SPARE 2   /* slots beyond depth: items handed to receivers not yet copied */
#define BLOCK_SIZE 128  /* T8's block */
#define BLOCKS RTB_UCOS3_BLOCKS

static struct {
    rtb_port_info info;
    char version[12];
    size_t used, peak; /* pool bytes in use, and the peak since the last reset */
} P;

static OS_MEM partition;
static uint32_t partition_store[BLOCKS][BLOCK_SIZE / 4];

rtb_timeout rtb_timeout_us(uint32_t us)
{
    uint64_t t = ((uint64_t)us * OS_CFG_TICK_RATE_HZ + 999999u) / 1000000u; /* round up */
    return (rtb_timeout){t > 0x7FFFFFFFu ? 0x7FFFFFFFu : (OS_TICK)t};
}

/* A timeout's pend arguments, in the caller: rtb_port_inline.h. */
#define PEND_TICKS RTB_UCOS3_PEND_TICKS
#define PEND_OPT RTB_UCOS3_PEND_OPT

static void account(size_t add, size_t sub)
{
    CPU_SR_ALLOC();
    CPU_CRITICAL_ENTER();
    P.used = P.used + add - sub;
    if (P.used > P.peak)
        P.peak = P.used;
    CPU_CRITICAL_EXIT();
}

/* A free slot of a static pool (its `used` flag set), or NULL. */
#define POOL_TAKE(pool, n, out)                                                            \
    do {                                                                                   \
        CPU_SR_ALLOC();                                                                    \
        (out) = NULL;                                                                      \
        CPU_CRITICAL_ENTER();                                                              \
        for (int k_ = 0; k_ < (n) && !(out); k_++)                                         \
            if (!(pool)[k_].used) {                                                        \
                (pool)[k_].used = 1;                                                       \
                (out) = &(pool)[k_];                                                       \
            }                                                                              \
        CPU_CRITICAL_EXIT();                                                               \
        if (out)                                                                           \
            account(sizeof *(out), 0);                                                     \
    } while (0)

#define POOL_GIVE(p)                                                                       \
    do {                                                                                   \
        account(0, sizeof *(p));                                                           \
        (p)->used = 0;                                                                     \
    } while (0)

/* --- lifecycle and platform ---------------------------------------------------------- */
static void format_version(void)
{
    unsigned v = OS_VERSION; /* 30802 = V3.08.02 */
    char *s = P.version;
    *s++ = 'V';
    *s++ = (char)('0' + v / 10000u % 10u);
    *s++ = '.';
    *s++ = (char)('0' + v / 1000u % 10u);
    *s++ = (char)('0' + v / 100u % 10u);
    *s++ = '.';
    *s++ = (char)('0' + v / 10u % 10u);
    *s++ = (char)('0' + v % 10u);
    *s = 0;
}

int rtb_port_init(void)
{
    rtb_board_init();
    format_version();
    P.info.port = "ucos3";
    P.info.rtos = "ucos3";
    P.info.rtos_version = P.version;
    rtb_board_describe(&P.info);
    rtb_port_note_warning("queue_by_pointer",
                          "uC/OS-III queues pass pointers: the port copies each item into a "
                          "slot of its own and posts the slot's address (queue figures "
                          "include that copy)");
    rtb_port_note_warning("heap_partition",
                          "uC/OS-III has no general heap: rtb_malloc/rtb_free are "
                          "OSMemGet/OSMemPut on a partition of 128-byte blocks; heap "
                          "figures are the port's static pools in use");
    rtb_port_note_warning("no_getters",
                          "uC/OS-III has no semaphore-count or priority getter: the port "
                          "reads OS_SEM.Ctr and OSTCBCurPtr->Prio directly");
    return 0;
}

const rtb_port_info *rtb_port_describe(void) { return &P.info; }
int rtb_core_count(void) { return 1; } /* no SMP in µC/OS-III */
int rtb_preemptive(void) { return 1; }

/* --- threads ------------------------------------------------------------------------- */
struct rtb_thread {
    OS_TCB tcb;
    OS_SEM join;
    rtb_entry fn;
    void *arg;
    volatile int used;
    CPU_STK stack[THREAD_STACK_WORDS] __attribute__((aligned(8)));
};
static rtb_thread threads[MAX_THREADS];

static void trampoline(void *p)
{
    rtb_thread *t = p;
    OS_ERR err;
    t->fn(t->arg);
    OSSemPost(&t->join, OS_OPT_POST_1, &err);
    for (;;) /* the joiner deletes us: our slot is free at once */
        OSTaskSuspend((OS_TCB *)0, &err);
}

rtb_thread *rtb_thread_create(const char *name, rtb_entry fn, void *arg, int prio, int core)
{
    (void)core; /* one core: nothing to pin */
    rtb_thread *t;
    OS_ERR err;
    POOL_TAKE(threads, MAX_THREADS, t);
    if (!t)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    OSSemCreate(&t->join, (CPU_CHAR *)"join", 0, &err);
    if (err == OS_ERR_NONE)
        OSTaskCreate(&t->tcb, (CPU_CHAR *)name, trampoline, t, PRIO(prio), t->stack,
                     THREAD_STACK_WORDS / 10u, THREAD_STACK_WORDS, 0, 0, (void *)0,
                     OS_OPT_TASK_STK_CHK | OS_OPT_TASK_STK_CLR, &err);
    if (err != OS_ERR_NONE) {
        OS_ERR ignored;
        OSSemDel(&t->join, OS_OPT_DEL_ALWAYS, &ignored);
        POOL_GIVE(t);
        return NULL;
    }
    return t;
}

void rtb_thread_join(rtb_thread *t)
{
    OS_ERR err;
    OSSemPend(&t->join, 0, OS_OPT_PEND_BLOCKING, (CPU_TS *)0, &err);
    OSTaskDel(&t->tcb, &err); /* ready or suspended, never running: the joiner runs */
    OSSemDel(&t->join, OS_OPT_DEL_ALWAYS, &err);
    POOL_GIVE(t);
}

void rtb_yield(void)
{
    OS_ERR err;
    OSSchedRoundRobinYield(&err); /* OS_ERR_ROUND_ROBIN_1: nobody else at this level */
}

void rtb_sleep_us(uint32_t us)
{
    /* OSTimeDly(n) ends on the n-th tick boundary, i.e. after n-1..n ticks: top up
     * with single ticks until at least `us` passed. */
    OS_ERR err;
    uint64_t end = rtb_board_time_us() + us;
    if (us)
        OSTimeDly(rtb_timeout_us(us).ticks, OS_OPT_TIME_DLY, &err);
    while (rtb_board_time_us() < end)
        OSTimeDly(1, OS_OPT_TIME_DLY, &err);
}

/* No getter in the API: the running task's TCB, as the kernel itself reads it. */
int rtb_prio_get(void) { return LEVEL(OSTCBCurPtr->Prio); }

/* --- semaphores ---------------------------------------------------------------------- */
/* struct rtb_sem, take and give: rtb_port_inline.h */
static rtb_sem sems[MAX_SEMS];

rtb_sem *rtb_sem_create(unsigned initial, unsigned max)
{
    rtb_sem *s;
    OS_ERR err;
    POOL_TAKE(sems, MAX_SEMS, s);
    if (!s)
        return NULL;
    s->max = (OS_SEM_CTR)(max ? max : 1);
    OSSemCreate(&s->sem, (CPU_CHAR *)"sem", (OS_SEM_CTR)initial, &err);
    if (err != OS_ERR_NONE) {
        POOL_GIVE(s);
        return NULL;
    }
    return s;
}

void rtb_sem_delete(rtb_sem *s)
{
    OS_ERR err;
    OSSemDel(&s->sem, OS_OPT_DEL_ALWAYS, &err);
    POOL_GIVE(s);
}

void rtb_sem_give_from_isr(rtb_sem *s) { rtb_sem_give(s); }
int rtb_sem_count(rtb_sem *s) { return (int)s->sem.Ctr; }

/* --- queues -------------------------------------------------------------------------- */
struct rtb_queue {
    OS_Q q;
    unsigned depth, item_size, slots, head;
    volatile int used;
    uint8_t store[QUEUE_STORE] __attribute__((aligned(8)));
};
static rtb_queue queues[MAX_QUEUES];

rtb_queue *rtb_queue_create(unsigned depth, unsigned item_size)
{
    if (!depth || !item_size || (depth + QUEUE_SPARE) * item_size > QUEUE_STORE)
        return NULL;
    rtb_queue *q;
    OS_ERR err;
    POOL_TAKE(queues, MAX_QUEUES, q);
    if (!q)
        return NULL;
    q->depth = depth;
    q->item_size = item_size;
    q->slots = depth + QUEUE_SPARE;
    q->head = 0;
    OSQCreate(&q->q, (CPU_CHAR *)"queue", (OS_MSG_QTY)depth, &err);
    if (err != OS_ERR_NONE) {
        POOL_GIVE(q);
        return NULL;
    }
    return q;
}

void rtb_queue_delete(rtb_queue *q)
{
    OS_ERR err;
    OSQDel(&q->q, OS_OPT_DEL_ALWAYS, &err);
    POOL_GIVE(q);
}

/* Copy into the next slot and post its address, atomically with the fullness test;
 * µC/OS-III switches to a readied receiver when the critical section ends. Inlined: a
 * timed send calls the kernel and the copy, no function of the port's. */
static inline __attribute__((always_inline)) int queue_post(rtb_queue *q, const void *item)
{
    CPU_SR_ALLOC();
    OS_ERR err = OS_ERR_Q_MAX;
    CPU_CRITICAL_ENTER();
    if (q->q.MsgQ.NbrEntries < q->depth) {
        uint8_t *slot = &q->store[q->head * q->item_size];
        q->head = q->head + 1 == q->slots ? 0 : q->head + 1;
        memcpy(slot, item, q->item_size);
        OSQPost(&q->q, slot, (OS_MSG_SIZE)q->item_size, OS_OPT_POST_FIFO, &err);
    }
    CPU_CRITICAL_EXIT();
    return err == OS_ERR_NONE ? 0 : -1;
}

/* OSQPost never blocks: a send to a full queue with a timeout retries tick by tick, for
 * as many ticks as the timeout holds. */
int rtb_queue_send(rtb_queue *q, const void *item, rtb_timeout t)
{
    if (queue_post(q, item) == 0)
        return 0;
    for (uint32_t left = t.ticks; left; left -= left != RTB_TICKS_FOREVER) {
        OS_ERR err;
        OSTimeDly(1, OS_OPT_TIME_DLY, &err);
        if (queue_post(q, item) == 0)
            return 0;
    }
    return -1;
}

int rtb_queue_send_from_isr(rtb_queue *q, const void *item) { return queue_post(q, item); }

int rtb_queue_recv(rtb_queue *q, void *item, rtb_timeout t)
{
    OS_ERR err;
    OS_MSG_SIZE size;
    void *slot = OSQPend(&q->q, PEND_TICKS(t), PEND_OPT(t), &size, (CPU_TS *)0, &err);
    if (err != OS_ERR_NONE)
        return -1;
    memcpy(item, slot, q->item_size); /* QUEUE_SPARE keeps the slot until we copied it */
    return 0;
}

/* --- event flags --------------------------------------------------------------------- */
struct rtb_event {
    OS_FLAG_GRP grp;
    volatile int used;
};
static rtb_event events[MAX_EVENTS];

rtb_event *rtb_event_create(void)
{
    rtb_event *e;
    OS_ERR err;
    POOL_TAKE(events, MAX_EVENTS, e);
    if (!e)
        return NULL;
    OSFlagCreate(&e->grp, (CPU_CHAR *)"event", 0, &err);
    if (err != OS_ERR_NONE) {
        POOL_GIVE(e);
        return NULL;
    }
    return e;
}

void rtb_event_delete(rtb_event *e)
{
    OS_ERR err;
    OSFlagDel(&e->grp, OS_OPT_DEL_ALWAYS, &err);
    POOL_GIVE(e);
}

void rtb_event_set(rtb_event *e, uint32_t bits)
{
    OS_ERR err;
    (void)OSFlagPost(&e->grp, (OS_FLAGS)bits, OS_OPT_POST_FLAG_SET, &err);
}
/* µC/OS-III v3.08 posts from an interrupt directly (no deferral to a task). */
void rtb_event_set_from_isr(rtb_event *e, uint32_t bits) { rtb_event_set(e, bits); }
void rtb_event_clear(rtb_event *e, uint32_t bits)
{
    OS_ERR err;
    (void)OSFlagPost(&e->grp, (OS_FLAGS)bits, OS_OPT_POST_FLAG_CLR, &err);
}

uint32_t rtb_event_wait(rtb_event *e, uint32_t bits, int clear, rtb_timeout t)
{
    if (!bits)
        return 0;
    OS_ERR err;
    OS_OPT opt = PEND_OPT(t) | OS_OPT_PEND_FLAG_SET_ANY;
    if (clear)
        opt |= OS_OPT_PEND_FLAG_CONSUME;
    OS_FLAGS seen = OSFlagPend(&e->grp, (OS_FLAGS)bits, PEND_TICKS(t), opt, (CPU_TS *)0, &err);
    return err == OS_ERR_NONE ? (uint32_t)seen : 0;
}

/* --- mutexes (priority inheritance: µC/OS-III's mutexes always have it) -------------- */
struct rtb_mutex {
    OS_MUTEX m;
    volatile int used;
};
static rtb_mutex mutexes[MAX_MUTEXES];

rtb_mutex *rtb_mutex_create(void)
{
    rtb_mutex *m;
    OS_ERR err;
    POOL_TAKE(mutexes, MAX_MUTEXES, m);
    if (!m)
        return NULL;
    OSMutexCreate(&m->m, (CPU_CHAR *)"mutex", &err);
    if (err != OS_ERR_NONE) {
        POOL_GIVE(m);
        return NULL;
    }
    return m;
}

void rtb_mutex_delete(rtb_mutex *m)
{
    OS_ERR err;
    OSMutexDel(&m->m, OS_OPT_DEL_ALWAYS, &err);
    POOL_GIVE(m);
}

void rtb_mutex_lock(rtb_mutex *m)
{
    OS_ERR err;
    OSMutexPend(&m->m, 0, OS_OPT_PEND_BLOCKING, (CPU_TS *)0, &err);
}

void rtb_mutex_unlock(rtb_mutex *m)
{
    OS_ERR err;
    OSMutexPost(&m->m, OS_OPT_POST_NONE, &err);
}

/* --- memory: a partition of fixed blocks, µC/OS-III's only allocator ----------------- */
void *rtb_malloc(size_t size)
{
    if (size > BLOCK_SIZE)
        return NULL;
    OS_ERR err;
    void *p = OSMemGet(&partition, &err);
    if (err != OS_ERR_NONE)
        return NULL;
    account(BLOCK_SIZE, 0);
    return p;
}

void rtb_free(void *p)
{
    if (!p)
        return;
    OS_ERR err;
    OSMemPut(&partition, p, &err);
    account(0, BLOCK_SIZE);
}

int rtb_heap_stats(size_t *used, size_t *peak)
{
    *used = P.used;
    *peak = P.peak;
    return 0;
}

void rtb_heap_peak_reset(void)
{
    CPU_SR_ALLOC();
    CPU_CRITICAL_ENTER();
    P.peak = P.used;
    CPU_CRITICAL_EXIT();
}

/* --- time (the counter, output, markers and caches: src/board/rtb_board_port.c; the
 * software-interrupt pool: src/board/rtb_swi.c, entered through rtb_isr.h) ------------- */
uint64_t rtb_time_us(void) { return rtb_board_time_us(); }

/* CPU_CRITICAL_ENTER keeps the previous mask (ARMv7-M: BASEPRI, ARMv6-M: PRIMASK) in a
 * local: across two calls the port keeps it, for the outermost section only. */
static CPU_SR critical_sr;
static unsigned critical_depth;
void rtb_critical_enter(void)
{
    CPU_SR_ALLOC();
    CPU_INT_DIS(); /* µC/CPU's own mask for its architecture */
    if (critical_depth++ == 0)
        critical_sr = cpu_sr;
}
void rtb_critical_exit(void)
{
    if (--critical_depth == 0)
        CPU_SR_Restore(critical_sr);
}


/* --- start-up ------------------------------------------------------------------------ */
static void (*main_body)(void *);
static void *main_arg;
static OS_TCB main_tcb;
static CPU_STK main_stack[MAIN_STACK_WORDS] __attribute__((aligned(8)));

static void fail(const char *msg)
{
    rtb_board_out(msg, strlen(msg));
    for (;;) {
    }
}

static void main_task(void *p)
{
    OS_ERR err;
    (void)p;
    /* OSStart does not start the tick; ARMv6-M's port has no SysTickInitFreq. */
    OS_CPU_SysTickInit(rtb_board_tick_hz() / OS_CFG_TICK_RATE_HZ);
    /* Time slicing among equal levels every tick, as the FreeRTOS build's default. */
    OSSchedRoundRobinCfg(DEF_ENABLED, 1, &err);
    main_body(main_arg);
    for (;;)
        OSTaskSuspend((OS_TCB *)0, &err);
}

/* The kernel's application hooks a board's glue sets (ports/ucos3/boards/<layer>.c), after
 * OSInit, which clears them: the Pico's idle task sleeps in WFI. None by default. */
__attribute__((weak)) void rtb_ucos3_board_hooks(void) {}

void rtb_port_start(void (*body)(void *), void *arg)
{
    OS_ERR err;
    uint32_t stack_words = MAIN_STACK_WORDS;
    main_body = body;
    main_arg = arg;
    CPU_Init(); /* before OSInit: timestamps (CPU_TS_TmrInit) */
    OSInit(&err);
    if (err != OS_ERR_NONE)
        fail("rtbench: OSInit failed\n");
    rtb_ucos3_board_hooks();
#if OS_CFG_ISR_STK_SIZE == 0
    /* No interrupt stack of the kernel's (a small board): interrupts after OSStart use
     * the reset stack, whose top the board's linker script names __StackTop (CMSIS). */
    extern CPU_STK __StackTop[];
    OS_CPU_ExceptStkBase = __StackTop;
#endif
    OSMemCreate(&partition, (CPU_CHAR *)"rtb_malloc", partition_store, BLOCKS, BLOCK_SIZE,
                &err);
    if (err != OS_ERR_NONE)
        fail("rtbench: OSMemCreate failed\n");
    OSTaskCreate(&main_tcb, (CPU_CHAR *)"main", main_task, (void *)0, PRIO(RTB_PRIO_MAIN),
                 main_stack, stack_words / 10u, stack_words, 0, 0, (void *)0,
                 OS_OPT_TASK_STK_CHK | OS_OPT_TASK_STK_CLR, &err);
    if (err != OS_ERR_NONE)
        fail("rtbench: cannot create the main task\n");
    OSStart(&err);
    fail("rtbench: OSStart returned\n");
}
