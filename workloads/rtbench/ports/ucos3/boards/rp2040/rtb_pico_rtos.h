/*
 * What main_rp2040.c (boards/rp2040) asks of the RTOS of the image: RTB_PICO_FIRST_TASK(),
 * run first in the suite's task. µC/OS-III: the idle task sleeps in WFI until the next
 * interrupt, as FreeRTOS's on this board; its hook is set after OSInit, which clears it.
 */
#ifndef RTB_PICO_RTOS_H
#define RTB_PICO_RTOS_H

#include "hardware/sync.h"
#include "os.h"

static void idle_wfi(void) { __wfi(); }

#define RTB_PICO_FIRST_TASK() (OS_AppIdleTaskHookPtr = idle_wfi)

#endif
