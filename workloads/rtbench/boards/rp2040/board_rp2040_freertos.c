/*
 * rtbench on FreeRTOS on the RP2040 (SMP, or core 0 alone: the RP2040 port with one
 * core, or the generic ARM_CM0 port): the software interrupts and FreeRTOS's hooks (the
 * rest of the board: board_rp2040.c).
 *
 * Software interrupts: user IRQs (26..31) claimed from the SDK on first use; the NVIC
 * is per core, so under SMP a line is enabled on its core by a short task pinned there,
 * and pended from that core.
 */
#include "FreeRTOS.h"
#include "semphr.h"
#include "task.h"

#include "hardware/irq.h"
#include "hardware/sync.h"

#include "board_rp2040.h"
#include "rtb_freertos.h"

#define SWI_SLOTS 6

/* --- software interrupts ------------------------------------------------------------ */
static void swi0(void) { rtb_freertos_swi_dispatch(0); }
static void swi1(void) { rtb_freertos_swi_dispatch(1); }
static void swi2(void) { rtb_freertos_swi_dispatch(2); }
static void swi3(void) { rtb_freertos_swi_dispatch(3); }
static void swi4(void) { rtb_freertos_swi_dispatch(4); }
static void swi5(void) { rtb_freertos_swi_dispatch(5); }
static irq_handler_t const swi_handlers[SWI_SLOTS] = {swi0, swi1, swi2, swi3, swi4, swi5};
static int swi_core[SWI_SLOTS];
static int swi_irq[SWI_SLOTS]; /* 0: not claimed yet */

#if configNUMBER_OF_CORES > 1
typedef struct {
    int irq;
    bool on;
    SemaphoreHandle_t done;
} nvic_job;

static void nvic_task(void *p)
{
    nvic_job *j = p;
    irq_set_enabled((uint)j->irq, j->on);
    xSemaphoreGive(j->done);
    vTaskSuspend(NULL); /* deleted by the caller, so its memory is freed at once */
}

/* Runs irq_set_enabled on `core`'s own NVIC. */
static void nvic_on_core(int irq, bool on, int core)
{
    if ((int)get_core_num() == core) {
        irq_set_enabled((uint)irq, on);
        return;
    }
    nvic_job j = {irq, on, xSemaphoreCreateBinary()};
    TaskHandle_t h;
    if (!j.done || xTaskCreateAffinitySet(nvic_task, "nvic", 256, &j, configMAX_PRIORITIES - 1,
                                          1u << core, &h) != pdPASS) {
        if (j.done)
            vSemaphoreDelete(j.done);
        return;
    }
    xSemaphoreTake(j.done, portMAX_DELAY);
    while (eTaskGetState(h) == eRunning)
        taskYIELD();
    vTaskDelete(h);
    vSemaphoreDelete(j.done);
}
#else
/* One core: every line is core 0's. */
static void nvic_on_core(int irq, bool on, int core)
{
    (void)core;
    irq_set_enabled((uint)irq, on);
}
#endif

int rtb_board_swi_slots(void) { return SWI_SLOTS; }

void rtb_board_swi_enable(int slot, int core)
{
    if (!swi_irq[slot]) { /* the vector table is shared by both cores: once */
        int irq = user_irq_claim_unused(false);
        if (irq < 0)
            return; /* the scenario then sees no handler run: isr_lost */
        irq_set_exclusive_handler((uint)irq, swi_handlers[slot]);
        swi_irq[slot] = irq;
    }
    int irq = swi_irq[slot];
    irq_set_priority((uint)irq, PICO_DEFAULT_IRQ_PRIORITY);
    swi_core[slot] = core;
    nvic_on_core(irq, true, core);
}

void rtb_board_swi_disable(int slot)
{
    if (swi_irq[slot])
        nvic_on_core(swi_irq[slot], false, swi_core[slot]);
}

/* Pends on the calling core's NVIC: the scenarios trigger from a task on `core`. */
void rtb_board_swi_pend(int slot) { irq_set_pending((uint)swi_irq[slot]); }

/* The idle task: sleep until the next interrupt (FreeRTOSConfig.h). */
void vApplicationIdleHook(void) { __wfi(); }

void vApplicationStackOverflowHook(TaskHandle_t t, char *name)
{
    (void)t;
    static const char msg[] = "\nrtbench: stack overflow in ";
    rtb_board_out(msg, sizeof msg - 1);
    for (const char *p = name; *p; p++)
        rtb_board_out(p, 1);
    rtb_board_out("\n", 1);
    for (;;) {
    }
}
