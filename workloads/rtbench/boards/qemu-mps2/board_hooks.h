/* The mps2 layer's own helpers behind its rtb_board_* hooks (board_hooks.c; the
 * interface itself is include/rtb_board.h), shared with the STM32 and RP2350 layers,
 * which supply their own board_hooks.c twin (stm32_hooks.c, rp2350_hooks.c). */
#ifndef RTB_MPS2_BOARD_HOOKS_H
#define RTB_MPS2_BOARD_HOOKS_H

#include <stdint.h>

#include "mps2.h"
#include "rtb_board.h"

/* The software interrupts' NVIC priority: above every task, and numerically above the
 * kernels' syscall boundary (FreeRTOS's configMAX_SYSCALL_INTERRUPT_PRIORITY 0x20,
 * µC/OS-III's BASEPRI 0x20), so their handlers may post. */
#define RTB_MPS2_SWI_PRIORITY 0x40

/* UART, TIMER0, the icount probe, the software-interrupt lines at swi_priority. */
void rtb_mps2_board_init(uint32_t swi_priority);
/* The calling core's own NVIC lines: software interrupts and a wired external
 * interrupt (ext_wire.c, where the machine has one) at swi_priority, off; and on
 * a two-core machine its inter-core interrupt on (each core calls it once). Inline: the
 * layers' rtb_mps2_board_init run it as part of their own code. */
static inline void rtb_mps2_core_lines_init(uint32_t swi_priority)
{
    for (int k = 0; k < MPS2_LINES; k++) {
        mps2_nvic_disable(MPS2_SWI_FIRST_IRQ + k);
        mps2_nvic_priority(MPS2_SWI_FIRST_IRQ + k, (uint8_t)swi_priority);
    }
#if BOARD_CORES > 1
    /* The kernel's lowest priority: a reschedule request, like PendSV. */
    mps2_nvic_priority(BOARD_IPI_IRQ, 0xFF);
    mps2_nvic_enable(BOARD_IPI_IRQ);
#endif
}
#if BOARD_CORES > 1
/* Runs fn(arg) on `core` (its NVIC is only reachable from there); the RTOS glue's. */
void rtb_mps2_run_on_core(int core, void (*fn)(int), int arg);
#endif

#endif
