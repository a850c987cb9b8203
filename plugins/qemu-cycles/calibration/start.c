/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Start-up of the calibration images: the vector table (two interrupt lines, CAL_IRQ and
 * CAL_IRQ + 1, that no device of the machine drives, for the exception sequences), then
 * every timed sequence of seq.S in its order, then the semihosting exit (status 0).
 */
#include <stdint.h>

extern uint32_t __StackTop;
void Reset_Handler(void);
void cal_fault(void);
void cal_irq_a(void); /* seq.S: handlers that only return */
void cal_irq_b(void);
void cal_run_all(void); /* seq.S: the sequences, in order */

/* The plugin's marker words (rtbench's name): word 2n + 1 sets channel n, word 2n clears it. */
volatile uint32_t rtb_marker_words[8];
/* Data the load sequences read: word 0 points at itself (a dependent load chain). */
uint32_t cal_data[16];

typedef void (*vector)(void);
__attribute__((section(".vectors"), used)) const vector vector_table[16 + CAL_IRQ + 2] = {
    (vector)(uintptr_t)&__StackTop,
    Reset_Handler,
    [2 ... 15] = cal_fault,
    [16 ... 16 + CAL_IRQ - 1] = cal_fault,
    [16 + CAL_IRQ] = cal_irq_a,
    [16 + CAL_IRQ + 1] = cal_irq_b,
};

#define REG(a) (*(volatile uint32_t *)(a))

static void semihost_exit(uint32_t reason)
{
    register uint32_t r0 __asm__("r0") = 0x18; /* SYS_EXIT */
    register uint32_t r1 __asm__("r1") = reason;
    __asm__ volatile("bkpt 0xab" : : "r"(r0), "r"(r1) : "memory");
    for (;;) {
    }
}

void cal_fault(void) { semihost_exit(0x20023u); /* ADP_Stopped_InternalError: status 1 */ }

void Reset_Handler(void)
{
    for (unsigned i = 0; i < 16; i++)
        cal_data[i] = (uint32_t)(uintptr_t)&cal_data[0];
    /* both lines enabled, at the same (reset) priority: the second tail-chains */
    REG(0xE000E100u + 4u * (CAL_IRQ / 32u)) = 3u << (CAL_IRQ % 32u);
    cal_run_all();
    semihost_exit(0x20026u); /* ADP_Stopped_ApplicationExit: status 0 */
}
