/*
 * What FreeRTOS asks of the application on the mps2 layer (the board's rtb_board_*
 * hooks are board_hooks.c and board_lines.c, the same for every RTOS): the tick hook
 * and the failure hooks; on a two-core machine (mps2-an521) also the glue FreeRTOS's
 * Armv8-M SMP port asks for: waking core 1, the inter-core interrupt, NVIC work on the
 * other core.
 */
#include <string.h>

#include "FreeRTOS.h"
#include "semphr.h"
#include "task.h"

#include "board_hooks.h"
#include "mps2.h"

#if BOARD_CORES > 1
/* The port's start-up state (ARM_CM33_NTZ/non_secure/port.c, portasm.c). */
extern volatile uint8_t ucPrimaryCoreInitDoneFlag;
extern volatile uint8_t ucSecondaryCoresReadyFlags[configNUMBER_OF_CORES - 1];
void vPortConfigureInterruptPriorities(void);
void vStartFirstTask(void);

/* Core 1's reset handler, on its own main stack: the same start as core 0's scheduler
 * (priorities of its own exceptions and lines), then its first task. The tick stays
 * on core 0; core 1 is told to reschedule by the inter-core interrupt. */
static void core1_main(void)
{
    while (!ucPrimaryCoreInitDoneFlag)
        ;
    vPortConfigureInterruptPriorities();
    rtb_mps2_core_lines_init(RTB_MPS2_SWI_PRIORITY);
    ucSecondaryCoresReadyFlags[0] = pdTRUE;
    vStartFirstTask();
}

BaseType_t rtb_mps2_wake_secondary_cores(void)
{
    mps2_start_core1(mps2_core1_vectors(core1_main));
    return pdTRUE;
}

/* portYIELD_CORE: the other core takes IPI_Handler and reschedules. */
void vInterruptCore(uint8_t core) { mps2_ipi_send(core); }

void IPI_Handler(void)
{
    mps2_ipi_clear();
    portYIELD_FROM_ISR(pdTRUE);
}

typedef struct {
    void (*fn)(int);
    int arg;
    SemaphoreHandle_t done;
} core_job;

static void core_job_task(void *p)
{
    core_job *j = p;
    j->fn(j->arg);
    xSemaphoreGive(j->done);
    vTaskSuspend(NULL); /* deleted by the caller, so its memory is freed at once */
}

/* Each core has its own NVIC: a line is enabled by a short task pinned to its core. */
void rtb_mps2_run_on_core(int core, void (*fn)(int), int arg)
{
    if (core == mps2_core_id() || xTaskGetSchedulerState() == taskSCHEDULER_NOT_STARTED) {
        fn(arg);
        return;
    }
    core_job j = {fn, arg, xSemaphoreCreateBinary()};
    TaskHandle_t h;
    if (!j.done || xTaskCreateAffinitySet(core_job_task, "core", configMINIMAL_STACK_SIZE, &j,
                                          configMAX_PRIORITIES - 1, 1u << core, &h) != pdPASS) {
        if (j.done)
            vSemaphoreDelete(j.done);
        return;
    }
    xSemaphoreTake(j.done, portMAX_DELAY);
    while (eTaskGetState(h) == eRunning) /* until it has suspended on the other core */
        taskYIELD();
    vTaskDelete(h);
    vSemaphoreDelete(j.done);
}
#endif

void vApplicationTickHook(void)
{
    /* Extend the counter well before it wraps (TIMER0: every 171 s of virtual time). */
    static uint32_t n;
    if (++n >= BOARD_TS_EXTEND_TICKS) {
        n = 0;
        (void)mps2_time_ticks();
    }
}

static void die(const char *what, const char *detail, int line)
{
    char num[12];
    int k = 11;
    num[k] = 0;
    do {
        num[--k] = (char)('0' + line % 10);
        line /= 10;
    } while (line && k > 0);
    mps2_uart_write("\nrtbench: ", 10);
    mps2_uart_write(what, strlen(what));
    mps2_uart_write(detail, strlen(detail));
    mps2_uart_write(":", 1);
    mps2_uart_write(num + k, strlen(num + k));
    mps2_uart_write("\n", 1);
    mps2_exit(4);
}

void rtb_mps2_assert_failed(const char *file, int line) { die("assert ", file, line); }

void vApplicationStackOverflowHook(TaskHandle_t t, char *name)
{
    (void)t;
    die("stack overflow in ", name, 0);
}
