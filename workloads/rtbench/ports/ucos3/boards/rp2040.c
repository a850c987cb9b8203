/*
 * What µC/OS-III asks of the application on the RP2040, one core (µC/OS-III has no SMP;
 * core 1 stays in the boot ROM): the tick and µC/CPU's timestamps (the board:
 * board_rp2040.c, its lines: board_rp2040_lines.c). The kernel is its ARMv6-M port; the
 * SDK's vector table names PendSV isr_pendsv (ucos3-kernel.cmake's PENDSV) and SysTick
 * isr_systick.
 */
#include "os.h"

#include "hardware/clocks.h"
#include "hardware/sync.h"
#include "hardware/structs/timer.h"

#include "board_rp2040.h"

uint32_t rtb_board_tick_hz(void) { return clock_get_hz(clk_sys); } /* CLKSOURCE=1 */

/* µC/CPU timestamps (OS_CFG_TS_EN): the 1 MHz TIMER's low word, running since boot. */
void CPU_TS_TmrInit(void) {}
CPU_TS_TMR CPU_TS_TmrRd(void) { return (CPU_TS_TMR)timer_hw->timerawl; }

/* The idle task sleeps in WFI until the next interrupt, as FreeRTOS's on this board
 * (rtb_port_ucos3.c sets the board's hooks after OSInit). */
static void idle_wfi(void) { __wfi(); }
void rtb_ucos3_board_hooks(void) { OS_AppIdleTaskHookPtr = idle_wfi; }

/* The time base is the TIMER's 64 bits: nothing to extend on the tick. */
void isr_systick(void) { OS_CPU_SysTickHandler(); }
