/*
 * What µC/OS-III asks of the application on the mps2 layer (the board's rtb_board_*
 * hooks are board_hooks.c and board_lines.c, the same for every RTOS): µC/CPU's
 * timestamp timer (the board's counter: DWT CYCCNT reads 0 in QEMU) and the SysTick
 * vector.
 */
#include "os.h"

#include "board_hooks.h"
#include "mps2.h"

/* µC/CPU timestamps (OS_CFG_TS_EN): TIMER0 is running before CPU_Init (rtb_board_init). */
void CPU_TS_TmrInit(void) {}
CPU_TS_TMR CPU_TS_TmrRd(void) { return (CPU_TS_TMR)mps2_ts(); }

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
