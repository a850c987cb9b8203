/*
 * FreeRTOS SMP configuration for rtbench on the RP2040 (Raspberry Pi Pico): both
 * cores, core affinity, the kernel's RP2040 port (portable/ThirdParty/GCC/RP2040); the
 * suite's common settings are in ports/freertos/FreeRTOSConfig_rtbench.h.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include "FreeRTOSConfig_rtbench.h"

#define configNUMBER_OF_CORES 2
#define configUSE_CORE_AFFINITY 1
#define configRUN_MULTIPLE_PRIORITIES 1 /* tasks of different levels run on both cores */
#define configUSE_PASSIVE_IDLE_HOOK 0
#define configTICK_CORE 0
#define configSUPPORT_PICO_SYNC_INTEROP 1
#define configSUPPORT_PICO_TIME_INTEROP 1

#define configCPU_CLOCK_HZ 125000000UL /* SDK default clk_sys on the RP2040 */
#define configUSE_TICKLESS_IDLE 0
#define configUSE_TICK_HOOK 0
#define configUSE_RECURSIVE_MUTEXES 1 /* the SDK's sync interop uses them */
#define configENABLE_BACKWARD_COMPATIBILITY 1 /* the SDK interop layer still needs it */
#define configTOTAL_HEAP_SIZE ((size_t)(96 * 1024)) /* 264 KiB SRAM, 64 KiB of samples */

/* Cortex-M0+ has no BASEPRI: critical sections mask every interrupt, priorities only
 * order the handlers. */
#define configKERNEL_INTERRUPT_PRIORITY 0xFF
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0x40

#if defined(RTB_FREERTOS_ASSERT) && RTB_FREERTOS_ASSERT
#include <assert.h>
#define configASSERT(x) assert(x)
#endif

#endif
