/*
 * What main_rp2040.c (boards/rp2040) asks of the RTOS of the image: RTB_PICO_FIRST_TASK(),
 * run first in the suite's task. FreeRTOS needs nothing there (its idle hook is
 * vApplicationIdleHook, boards/rp2040.c).
 */
#ifndef RTB_PICO_RTOS_H
#define RTB_PICO_RTOS_H

#define RTB_PICO_FIRST_TASK() ((void)0)

#endif
