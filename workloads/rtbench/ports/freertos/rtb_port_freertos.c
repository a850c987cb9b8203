/*
 * rtbench porting layer on FreeRTOS (single core and SMP, V11 API; single core back to
 * V10.2.1, the STM32 study's kernel: see "Older kernels" below).
 *
 * - Priorities: level L runs at FreeRTOS priority L (idle is 0, below level 1); the
 *   timer service task sits above every level (configMAX_PRIORITIES - 1).
 * - Threads: dynamic tasks. FreeRTOS has no join, so a trampoline runs fn, marks the
 *   thread done, notifies its creator (task notification index 1, so the suite's own
 *   use of index 0 is untouched) and suspends itself; rtb_thread_join (the creator, per
 *   the contract) waits for the mark and deletes the task. Deleting another (not
 *   running) task frees its TCB and stack at once, so heap_used_end does not depend on
 *   when the idle task runs.
 * - Interrupt context: *_from_isr calls OR their xHigherPriorityTaskWoken into a per-core
 *   flag; the board's IRQ handler calls the core's rtb_swi_dispatch, which clears it,
 *   runs the scenario's handler and then portYIELD_FROM_ISR on it (rtb_isr.h).
 * - Heap: heap_4 through pvPortMalloc; traceMALLOC (FreeRTOSConfig.h) notes every
 *   allocation, so the peak covers TCBs, stacks and queue storage as well. Figures are
 *   relative to the heap in use when the main task started (kernel's own tasks, main).
 * - Event groups hold 24 bits (the top byte is the kernel's): bits above are dropped.
 */
#include "FreeRTOS.h"
#include "event_groups.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

#include "rtb_board.h"
#include "rtb_isr.h"
#include "rtbench.h"
#include "rtbench_port.h"

#if configMAX_PRIORITIES < RTB_PRIO_LEVELS + 2
#error "configMAX_PRIORITIES must be >= 18: levels 1..16, idle below, timer task above"
#endif
#if configSUPPORT_DYNAMIC_ALLOCATION != 1
#error "the FreeRTOS port of rtbench allocates its objects from the FreeRTOS heap"
#endif
/* Older kernels (before V10.4.0: one notification value per task, no core id): the join
 * waits on that one value instead of index 1 (the port uses no other notification), and
 * there is one core. */
#ifndef xTaskNotifyGiveIndexed
#define xTaskNotifyGiveIndexed(task, index) xTaskNotifyGive(task)
#define ulTaskNotifyTakeIndexed(index, clear, wait) ulTaskNotifyTake(clear, wait)
#elif configTASK_NOTIFICATION_ARRAY_ENTRIES < 2
#error "rtbench's join waits on task notification index 1"
#endif
#if configUSE_TASK_NOTIFICATIONS != 1
#error "rtbench's join waits on a task notification"
#endif
#if INCLUDE_vTaskSuspend != 1 || INCLUDE_vTaskDelete != 1 || INCLUDE_eTaskGetState != 1
#error "rtbench needs INCLUDE_vTaskSuspend, INCLUDE_vTaskDelete, INCLUDE_eTaskGetState"
#endif

#define EVENT_BITS 0x00FFFFFFu
#ifndef RTB_THREAD_STACK_WORDS /* a small board lowers it (microbit: 16 KiB of RAM) */
#define RTB_THREAD_STACK_WORDS 512 /* 2 KiB: workers hold no large locals */
#endif
#define THREAD_STACK_WORDS RTB_THREAD_STACK_WORDS
#ifndef BOARD_MAIN_TASK_WORDS /* a small machine's description sets main_task_words */
#define BOARD_MAIN_TASK_WORDS 4096
#endif

static struct {
    rtb_port_info info;
    size_t heap_base; /* heap in use when the main task started */
    size_t heap_peak; /* absolute, since the last reset */
} P;

volatile BaseType_t rtb_freertos_isr_woken[configNUMBER_OF_CORES]; /* rtb_isr.h */

/* rtb_timeout holds a TickType_t as it is: RTB_NO_WAIT is 0, RTB_FOREVER portMAX_DELAY,
 * so a blocking call passes it on unchanged (no conversion between a row's timestamps). */
_Static_assert(portMAX_DELAY == (TickType_t)RTB_TICKS_FOREVER && sizeof(TickType_t) == 4,
               "rtbench's FreeRTOS port needs 32-bit ticks");
#define TICKS RTB_FREERTOS_TICKS /* rtb_port_inline.h */

rtb_timeout rtb_timeout_us(uint32_t us)
{
    uint64_t t = ((uint64_t)us * configTICK_RATE_HZ + 999999u) / 1000000u; /* round up */
    return (rtb_timeout){t >= portMAX_DELAY ? portMAX_DELAY - 1 : (TickType_t)t};
}

/* --- lifecycle and platform ---------------------------------------------------------- */
int rtb_port_init(void)
{
    rtb_board_init();
    P.info.port = "freertos";
    P.info.rtos = "freertos";
    P.info.rtos_version = tskKERNEL_VERSION_NUMBER;
    rtb_board_describe(&P.info);
    return 0;
}

const rtb_port_info *rtb_port_describe(void) { return &P.info; }


int rtb_core_count(void) { return configNUMBER_OF_CORES; }
int rtb_preemptive(void) { return configUSE_PREEMPTION; }

/* --- threads ------------------------------------------------------------------------- */
#define JOIN_INDEX 1

struct rtb_thread {
    TaskHandle_t h;
    TaskHandle_t creator;
    volatile int done;
    rtb_entry fn;
    void *arg;
};

static void trampoline(void *p)
{
    rtb_thread *t = p;
    t->fn(t->arg);
    t->done = 1;
    xTaskNotifyGiveIndexed(t->creator, JOIN_INDEX);
    vTaskSuspend(NULL); /* the joiner deletes us: our memory is freed at once */
}

rtb_thread *rtb_thread_create(const char *name, rtb_entry fn, void *arg, int prio, int core)
{
    rtb_thread *t = pvPortMalloc(sizeof *t);
    if (!t)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    t->h = NULL;
    t->creator = xTaskGetCurrentTaskHandle();
    t->done = 0;
    BaseType_t rc;
#if configNUMBER_OF_CORES > 1 && configUSE_CORE_AFFINITY == 1
    /* Created pinned: it must never start on another core, even for an instant. */
    /* "Any core" is core 0: a window's timer task that wakes on the other core costs a
     * cross-core wake-up per window, and under QEMU icount such wake-ups starve. */
    UBaseType_t mask = (UBaseType_t)1 << (core >= 0 ? core : 0);
    rc = xTaskCreateAffinitySet(trampoline, name, THREAD_STACK_WORDS, t, (UBaseType_t)prio,
                                mask, &t->h);
#else
    (void)core; /* one core: nothing to pin */
    rc = xTaskCreate(trampoline, name, THREAD_STACK_WORDS, t, (UBaseType_t)prio, &t->h);
#endif
    if (rc != pdPASS) {
        vPortFree(t);
        return NULL;
    }
    return t;
}

#if configNUMBER_OF_CORES > 1
static int running_anywhere(TaskHandle_t h)
{
    for (BaseType_t c = 0; c < configNUMBER_OF_CORES; c++)
        if (xTaskGetCurrentTaskHandleForCore(c) == h)
            return 1;
    return 0;
}
#endif

void rtb_thread_join(rtb_thread *t)
{
    /* A notification may come from another thread the caller created: re-check. */
    while (!t->done)
        (void)ulTaskNotifyTakeIndexed(JOIN_INDEX, pdFALSE, portMAX_DELAY);
#if configNUMBER_OF_CORES > 1
    /* SMP: it may still be between its give and its switch-out on another core, and
     * eTaskGetState says "suspended" from the suspend on, before that core has switched.
     * Deleting it then defers its cleanup to the idle task, whose retry loop takes the
     * kernel lock so often that the other core's switch-out can starve (for good under
     * QEMU icount, where the cores run in turns). So wait for the switch, blocked. */
    while (running_anywhere(t->h))
        vTaskDelay(1);
#endif
    vTaskDelete(t->h);
    vPortFree(t);
}

void rtb_yield(void) { taskYIELD(); }

void rtb_sleep_us(uint32_t us)
{
    /* vTaskDelay(n) ends on the n-th tick boundary, i.e. after n-1..n ticks: top up
     * with single ticks until at least `us` passed. */
    uint64_t end = rtb_board_time_us() + us;
    vTaskDelay(TICKS(rtb_timeout_us(us)));
    while (rtb_board_time_us() < end)
        vTaskDelay(1);
}

int rtb_prio_get(void) { return (int)uxTaskPriorityGet(NULL); }

/* --- semaphores ---------------------------------------------------------------------- */
rtb_sem *rtb_sem_create(unsigned initial, unsigned max)
{
    return (rtb_sem *)xSemaphoreCreateCounting(max ? max : 1, initial);
}
void rtb_sem_delete(rtb_sem *s) { vSemaphoreDelete((SemaphoreHandle_t)s); }
/* take and give: rtb_port_inline.h */
void rtb_sem_give_from_isr(rtb_sem *s)
{
    BaseType_t w = pdFALSE;
    (void)xSemaphoreGiveFromISR((SemaphoreHandle_t)s, &w);
    if (w)
        rtb_freertos_isr_woken[portGET_CORE_ID()] = pdTRUE;
}
int rtb_sem_count(rtb_sem *s) { return (int)uxSemaphoreGetCount((SemaphoreHandle_t)s); }

/* --- queues -------------------------------------------------------------------------- */
rtb_queue *rtb_queue_create(unsigned depth, unsigned item_size)
{
    return (rtb_queue *)xQueueCreate(depth, item_size);
}
void rtb_queue_delete(rtb_queue *q) { vQueueDelete((QueueHandle_t)q); }
int rtb_queue_send(rtb_queue *q, const void *item, rtb_timeout t)
{
    return xQueueSend((QueueHandle_t)q, item, TICKS(t)) == pdPASS ? 0 : -1;
}
int rtb_queue_send_from_isr(rtb_queue *q, const void *item)
{
    BaseType_t w = pdFALSE;
    BaseType_t rc = xQueueSendFromISR((QueueHandle_t)q, item, &w);
    if (w)
        rtb_freertos_isr_woken[portGET_CORE_ID()] = pdTRUE;
    return rc == pdPASS ? 0 : -1;
}
int rtb_queue_recv(rtb_queue *q, void *item, rtb_timeout t)
{
    return xQueueReceive((QueueHandle_t)q, item, TICKS(t)) == pdPASS ? 0 : -1;
}

/* --- event flags --------------------------------------------------------------------- */
rtb_event *rtb_event_create(void) { return (rtb_event *)xEventGroupCreate(); }
void rtb_event_delete(rtb_event *e) { vEventGroupDelete((EventGroupHandle_t)e); }
void rtb_event_set(rtb_event *e, uint32_t bits)
{
    (void)xEventGroupSetBits((EventGroupHandle_t)e, (EventBits_t)(bits & EVENT_BITS));
}
void rtb_event_set_from_isr(rtb_event *e, uint32_t bits)
{
    /* Deferred to the timer service task by FreeRTOS itself; no scenario times it. */
    BaseType_t w = pdFALSE;
    (void)xEventGroupSetBitsFromISR((EventGroupHandle_t)e, (EventBits_t)(bits & EVENT_BITS),
                                    &w);
    if (w)
        rtb_freertos_isr_woken[portGET_CORE_ID()] = pdTRUE;
}
void rtb_event_clear(rtb_event *e, uint32_t bits)
{
    (void)xEventGroupClearBits((EventGroupHandle_t)e, (EventBits_t)(bits & EVENT_BITS));
}
uint32_t rtb_event_wait(rtb_event *e, uint32_t bits, int clear, rtb_timeout t)
{
    EventBits_t want = (EventBits_t)(bits & EVENT_BITS);
    if (!want)
        return 0;
    EventBits_t r = xEventGroupWaitBits((EventGroupHandle_t)e, want, clear ? pdTRUE : pdFALSE,
                                        pdFALSE, TICKS(t));
    return (r & want) ? (uint32_t)r : 0; /* on timeout FreeRTOS returns the current bits */
}

/* --- mutexes ------------------------------------------------------------------------- */
rtb_mutex *rtb_mutex_create(void) { return (rtb_mutex *)xSemaphoreCreateMutex(); }
void rtb_mutex_delete(rtb_mutex *m) { vSemaphoreDelete((SemaphoreHandle_t)m); }
void rtb_mutex_lock(rtb_mutex *m) { (void)xSemaphoreTake((SemaphoreHandle_t)m, portMAX_DELAY); }
void rtb_mutex_unlock(rtb_mutex *m) { (void)xSemaphoreGive((SemaphoreHandle_t)m); }

/* --- memory -------------------------------------------------------------------------- */
void *rtb_malloc(size_t size) { return pvPortMalloc(size); }
void rtb_free(void *p) { vPortFree(p); }

static size_t heap_in_use(void) { return configTOTAL_HEAP_SIZE - xPortGetFreeHeapSize(); }

/* Called by heap_4 with the scheduler suspended, after the free count dropped. */
void rtb_freertos_heap_note(void)
{
    size_t now = heap_in_use();
    if (now > P.heap_peak)
        P.heap_peak = now;
}

int rtb_heap_stats(size_t *used, size_t *peak)
{
    size_t now = heap_in_use();
    *used = now > P.heap_base ? now - P.heap_base : 0;
    *peak = P.heap_peak > P.heap_base ? P.heap_peak - P.heap_base : 0;
    return 0;
}

void rtb_heap_peak_reset(void)
{
    vTaskSuspendAll(); /* heap_4 updates the peak under the same lock */
    P.heap_peak = heap_in_use();
    (void)xTaskResumeAll();
}

/* --- time (the counter, output, markers and caches: src/board/rtb_board_port.c; the
 * software-interrupt pool: src/board/rtb_swi.c, entered through rtb_isr.h) ------------- */
uint64_t rtb_time_us(void) { return rtb_board_time_us(); }
void rtb_critical_enter(void) { taskENTER_CRITICAL(); }
void rtb_critical_exit(void) { taskEXIT_CRITICAL(); }

/* --- start-up ------------------------------------------------------------------------ */
static void (*main_body)(void *);
static void *main_arg;

static void main_task(void *p)
{
    (void)p;
    P.heap_base = heap_in_use();
    P.heap_peak = P.heap_base;
    main_body(main_arg);
    vTaskSuspend(NULL);
}

void rtb_port_start(void (*body)(void *), void *arg)
{
    main_body = body;
    main_arg = arg;
    if (xTaskCreate(main_task, "main", BOARD_MAIN_TASK_WORDS, NULL, RTB_PRIO_MAIN, NULL) != pdPASS) {
        static const char msg[] = "rtbench: cannot create the main task\n";
        rtb_board_out(msg, sizeof msg - 1);
        for (;;) {
        }
    }
    vTaskStartScheduler();
    for (;;) {
    }
}
