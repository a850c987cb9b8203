/*
 * The mps2 board under the FreeRTOS port of rtbench: rtb_board_* hooks, the software
 * interrupt handlers (SWI0..3: the description's swi_first_irq and the 3 after), the tick hook and FreeRTOS's failure hooks.
 */
#include <string.h>

#include "FreeRTOS.h"
#include "task.h"

#include "mps2.h"
#include "rtb_freertos.h"

static uint32_t ips, icount_hz;
static uint64_t time_base_ticks;

void rtb_board_init(void)
{
    mps2_uart_init();
    mps2_timer_init();
    ips = mps2_measure_ips();
    icount_hz = mps2_icount_hz(ips);
    for (int k = 0; k < MPS2_SWI_SLOTS; k++) {
        mps2_nvic_disable(MPS2_SWI_FIRST_IRQ + k);
        mps2_nvic_priority(MPS2_SWI_FIRST_IRQ + k, RTB_MPS2_SWI_PRIORITY);
    }
    time_base_ticks = mps2_time_ticks();
}

const char *rtb_board_name(void) { return mps2_machine(); }
/* The counter is TIMER0 in QEMU's virtual time: with -icount, a model of instructions. */
const char *rtb_board_clock(void)
{
    return icount_hz ? BOARD_COUNTER "_icount" : BOARD_COUNTER;
}
/* Instructions per virtual second: cycles = ticks x 40 at shift 0 (one per instruction). */
uint32_t rtb_board_cpu_hz(void) { return icount_hz ? icount_hz : ips; }
uint32_t rtb_board_ts(void) { return mps2_ts(); }
uint32_t rtb_board_ts_hz(void) { return MPS2_TIMER_HZ; }
uint32_t rtb_board_ts_mask(void) { return 0xFFFFFFFFu; }
uint64_t rtb_board_time_us(void)
{
    return (mps2_time_ticks() - time_base_ticks) / (MPS2_TIMER_HZ / 1000000u);
}

/* No pins: a store to a volatile word costs what a GPIO register write would. */
static volatile uint32_t marker_reg;
void rtb_board_marker(int ch, int on)
{
    if (on)
        marker_reg = 1u << (ch & 31);
    else
        marker_reg = 0;
}

void rtb_board_out(const char *s, size_t n) { mps2_uart_write(s, n); }

int rtb_board_swi_slots(void) { return MPS2_SWI_SLOTS; }
void rtb_board_swi_enable(int slot, int core)
{
    (void)core; /* one core */
    mps2_nvic_enable(MPS2_SWI_FIRST_IRQ + slot);
}
void rtb_board_swi_disable(int slot) { mps2_nvic_disable(MPS2_SWI_FIRST_IRQ + slot); }
void rtb_board_swi_pend(int slot) { mps2_nvic_pend(MPS2_SWI_FIRST_IRQ + slot); }

_Static_assert(BOARD_COUNTER_HZ == 25000000u, "rtb_board_warning names 25 MHz: reword it");
const char *rtb_board_warning(const char **msg)
{
    /* Every run says what its numbers are: QEMU's virtual time, not silicon time. */
    if (icount_hz) {
        *msg = "QEMU -icount: the counter runs in virtual time (one 25 MHz tick = 40 "
               "instructions at shift 0): an instruction-count model, not time on silicon";
        return "icount_model";
    }
    *msg = "QEMU runs without -icount: the timer follows host time, figures are not "
           "deterministic and not an instruction-count model";
    return "no_icount";
}

void SWI0_Handler(void) { rtb_freertos_swi_dispatch(0); }
void SWI1_Handler(void) { rtb_freertos_swi_dispatch(1); }
void SWI2_Handler(void) { rtb_freertos_swi_dispatch(2); }
void SWI3_Handler(void) { rtb_freertos_swi_dispatch(3); }

void vApplicationTickHook(void)
{
    /* TIMER0 wraps every 171 s of virtual time: extend it well before that. */
    static uint32_t n;
    if (++n >= 10000u) {
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
