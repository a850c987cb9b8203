/*
 * The mps2 board under the µC/OS-III port of rtbench: rtb_board_* hooks (as
 * board_freertos.c's), µC/CPU's timestamp timer (CMSDK TIMER0: DWT CYCCNT reads 0 in
 * QEMU), the SysTick and software-interrupt vectors.
 */
#include "os.h"

#include "mps2.h"
#include "rtb_ucos3.h"

/* Above every task, masked by the kernel's BASEPRI 0x20 (cpu_cfg.h): allowed to post. */
#define RTB_MPS2_SWI_PRIORITY 0x40

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
const char *rtb_board_clock(void)
{
    return icount_hz ? BOARD_COUNTER "_icount" : BOARD_COUNTER;
}
uint32_t rtb_board_cpu_hz(void) { return icount_hz ? icount_hz : ips; }
uint32_t rtb_board_systick_hz(void) { return BOARD_SYSTICK_HZ; }
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
    if (icount_hz) {
        *msg = "QEMU -icount: the counter runs in virtual time (one 25 MHz tick = 40 "
               "instructions at shift 0): an instruction-count model, not time on silicon";
        return "icount_model";
    }
    *msg = "QEMU runs without -icount: the timer follows host time, figures are not "
           "deterministic and not an instruction-count model";
    return "no_icount";
}

/* µC/CPU timestamps (OS_CFG_TS_EN): TIMER0 is running before CPU_Init (rtb_board_init). */
void CPU_TS_TmrInit(void) {}
CPU_TS_TMR CPU_TS_TmrRd(void) { return (CPU_TS_TMR)mps2_ts(); }

void SWI0_Handler(void) { rtb_ucos3_swi_dispatch(0); }
void SWI1_Handler(void) { rtb_ucos3_swi_dispatch(1); }
void SWI2_Handler(void) { rtb_ucos3_swi_dispatch(2); }
void SWI3_Handler(void) { rtb_ucos3_swi_dispatch(3); }

/* The vector table (startup.c) names handlers CMSIS-style; the kernel's PendSV handler
 * is compiled under that name (ucos3-kernel.cmake). */
void SysTick_Handler(void)
{
    /* TIMER0 wraps every 171 s of virtual time: extend it well before that. */
    static uint32_t n;
    if (++n >= 10000u) {
        n = 0;
        (void)mps2_time_ticks();
    }
    OS_CPU_SysTickHandler();
}
