/*
 * The mps2 board under the µC/OS-III port of rtbench: its init and SysTick clock (the
 * shared rtb_board_* hooks are board_hooks.c), µC/CPU's timestamp timer (CMSDK TIMER0: DWT CYCCNT reads 0 in
 * QEMU), the SysTick and software-interrupt vectors.
 */
#include "os.h"

#include "board_hooks.h"
#include "mps2.h"
#include "rtb_ucos3.h"

/* Above every task, masked by the kernel's BASEPRI 0x20 (cpu_cfg.h): allowed to post. */
#define RTB_MPS2_SWI_PRIORITY 0x40

void rtb_board_init(void) { rtb_mps2_board_init(RTB_MPS2_SWI_PRIORITY); }
uint32_t rtb_board_systick_hz(void) { return BOARD_SYSTICK_HZ; }

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
    /* Extend the counter well before it wraps (TIMER0: every 171 s of virtual time). */
    static uint32_t n;
    if (++n >= BOARD_TS_EXTEND_TICKS) {
        n = 0;
        (void)mps2_time_ticks();
    }
    OS_CPU_SysTickHandler();
}
