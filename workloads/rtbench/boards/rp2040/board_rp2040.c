/*
 * rtbench on FreeRTOS SMP on the RP2040 (Raspberry Pi Pico): the rtb_board_* hooks.
 *
 * - Counter: PWM slice 7's counter, free-running at clk_sys (125 MHz), 16 bits: one
 *   peripheral both cores read, cycle resolution (the M0+ has no DWT cycle counter);
 *   differences are right for intervals below 524 us. -DRTB_PICO_COUNTER_TIMER=1 uses
 *   the 1 MHz TIMERAWL instead (32 bits, 1 us resolution, what the capture module
 *   timestamps in).
 * - Markers: GP2..GP5 for channels 0..3, one SIO set/clear write each, for a logic
 *   analyzer or the rtlab RP2040 capture module.
 * - Output: UART0 on GP0 (TX) / GP1 (RX), 115200 8N1, polled.
 * - Software interrupts: user IRQs (26..31) claimed from the SDK on first use; the
 *   NVIC is per core, so a line is enabled on its core by a short task pinned there,
 *   and pended from that core.
 */
#include "FreeRTOS.h"
#include "semphr.h"
#include "task.h"

#include "hardware/clocks.h"
#include "hardware/gpio.h"
#include "hardware/irq.h"
#include "hardware/pwm.h"
#include "hardware/structs/sio.h"
#include "hardware/structs/timer.h"
#include "hardware/structs/xip_ctrl.h"
#include "hardware/uart.h"
#include "pico/time.h"

#include "rtb_freertos.h"

#define MARKER_PIN0 2
#define MARKERS 4
#define COUNTER_SLICE 7 /* GP14/GP15: left as plain GPIOs, the slice is never routed */
#define SWI_SLOTS 6

void rtb_board_init(void)
{
    uart_init(uart0, 115200);
    gpio_set_function(0, GPIO_FUNC_UART);
    gpio_set_function(1, GPIO_FUNC_UART);
    for (int ch = 0; ch < MARKERS; ch++) {
        gpio_init(MARKER_PIN0 + ch);
        gpio_set_dir(MARKER_PIN0 + ch, GPIO_OUT);
        gpio_put(MARKER_PIN0 + ch, 0);
    }
    pwm_config c = pwm_get_default_config(); /* divider 1, wrap 0xFFFF, free-running */
    pwm_init(COUNTER_SLICE, &c, true);
}

const char *rtb_board_name(void) { return "pico"; }

#if defined(RTB_PICO_COUNTER_TIMER) && RTB_PICO_COUNTER_TIMER
const char *rtb_board_clock(void) { return "rp2040_timerawl"; }
uint32_t rtb_board_ts(void) { return timer_hw->timerawl; }
uint32_t rtb_board_ts_hz(void) { return 1000000u; }
uint32_t rtb_board_ts_mask(void) { return 0xFFFFFFFFu; }
#else
const char *rtb_board_clock(void) { return "rp2040_pwm7_sysclk"; }
uint32_t rtb_board_ts(void) { return pwm_hw->slice[COUNTER_SLICE].ctr; }
uint32_t rtb_board_ts_hz(void) { return clock_get_hz(clk_sys); }
uint32_t rtb_board_ts_mask(void) { return 0xFFFFu; }
#endif

uint32_t rtb_board_cpu_hz(void) { return clock_get_hz(clk_sys); }
uint64_t rtb_board_time_us(void) { return time_us_64(); }

void rtb_board_marker(int ch, int on)
{
    uint32_t bit = 1u << (MARKER_PIN0 + (ch & (MARKERS - 1)));
    if (on)
        sio_hw->gpio_set = bit;
    else
        sio_hw->gpio_clr = bit;
}

void rtb_board_out(const char *s, size_t n) { uart_write_blocking(uart0, (const uint8_t *)s, n); }

/* The 16 KiB XIP cache in front of the flash (RP2040 datasheet 2.6.3.2): FLUSH empties
 * it, and reading FLUSH back waits until that is done. Code runs from flash (the SDK's
 * default), so the next fetches go to the QSPI flash as after reset. */
void rtb_board_cache_cold(void)
{
    xip_ctrl_hw->flush = 1;
    (void)xip_ctrl_hw->flush;
}
const char *rtb_board_cold(void) { return "xip_cache_flushed"; }

const char *rtb_board_warning(const char **msg)
{
    (void)msg;
    return NULL;
}

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
