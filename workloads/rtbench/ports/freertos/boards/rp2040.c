/*
 * What FreeRTOS asks of the application on the RP2040 (SMP, or core 0 alone: the
 * RP2040 port with one core, or the generic ARM_CM0 port): the idle and stack-overflow
 * hooks (the board: board_rp2040.c, its lines: board_rp2040_lines.c).
 */
#include "FreeRTOS.h"
#include "task.h"

#include "hardware/sync.h"

#include "board_rp2040.h"

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
