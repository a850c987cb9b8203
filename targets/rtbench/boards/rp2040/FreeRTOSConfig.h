/*
 * FreeRTOS SMP configuration for rtbench on the RP2040 (Raspberry Pi Pico): both
 * cores, core affinity, the kernel's RP2040 port (portable/ThirdParty/GCC/RP2040).
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configNUMBER_OF_CORES 2
#define configUSE_CORE_AFFINITY 1
#define configRUN_MULTIPLE_PRIORITIES 1 /* tasks of different levels run on both cores */
#define configUSE_PASSIVE_IDLE_HOOK 0
#define configTICK_CORE 0
#define configSUPPORT_PICO_SYNC_INTEROP 1
#define configSUPPORT_PICO_TIME_INTEROP 1

#define configCPU_CLOCK_HZ 125000000UL /* SDK default clk_sys on the RP2040 */
#define configTICK_RATE_HZ 1000
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configUSE_TICKLESS_IDLE 0
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 0
#define configMAX_PRIORITIES 18 /* rtbench levels 1..16, idle 0, timer task 17 */
#define configMINIMAL_STACK_SIZE 256
#define configMAX_TASK_NAME_LEN 12
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 2 /* index 1: the port's thread join */
#define configUSE_MUTEXES 1
#define configUSE_RECURSIVE_MUTEXES 1 /* the SDK's sync interop uses them */
#define configUSE_COUNTING_SEMAPHORES 1
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_QUEUE_SETS 0
#define configENABLE_BACKWARD_COMPATIBILITY 1 /* the SDK interop layer still needs it */

#define configSUPPORT_STATIC_ALLOCATION 0
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configTOTAL_HEAP_SIZE ((size_t)(96 * 1024)) /* 264 KiB SRAM, 64 KiB of samples */
#define configAPPLICATION_ALLOCATED_HEAP 0

#define configCHECK_FOR_STACK_OVERFLOW 2
#define configUSE_MALLOC_FAILED_HOOK 0
#define configUSE_TRACE_FACILITY 0
#define configGENERATE_RUN_TIME_STATS 0

#define configUSE_TIMERS 1 /* xEventGroupSetBitsFromISR defers to the timer task */
#define configTIMER_TASK_PRIORITY (configMAX_PRIORITIES - 1)
#define configTIMER_QUEUE_LENGTH 8
#define configTIMER_TASK_STACK_DEPTH 256

#define INCLUDE_vTaskPrioritySet 1
#define INCLUDE_uxTaskPriorityGet 1
#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_vTaskDelayUntil 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_eTaskGetState 1
#define INCLUDE_xTimerPendFunctionCall 1
#define INCLUDE_xTaskGetSchedulerState 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1

/* Cortex-M0+ has no BASEPRI: critical sections mask every interrupt, priorities only
 * order the handlers. */
#define configKERNEL_INTERRUPT_PRIORITY 0xFF
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0x40

#ifndef __ASSEMBLER__
void rtb_freertos_heap_note(void);
#endif
#define traceMALLOC(p, n) rtb_freertos_heap_note()

#if defined(RTB_FREERTOS_ASSERT) && RTB_FREERTOS_ASSERT
#include <assert.h>
#define configASSERT(x) assert(x)
#endif

#endif
