/*
 * The FreeRTOS settings rtbench needs on every board: a board's FreeRTOSConfig.h
 * includes this, then sets its own values (clock, heap size, interrupt priorities,
 * hooks, SMP, asserts). rtb_port_freertos.c checks the ones it depends on.
 */
#ifndef FREERTOS_CONFIG_RTBENCH_H
#define FREERTOS_CONFIG_RTBENCH_H

#define configTICK_RATE_HZ 1000
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#ifndef configUSE_IDLE_HOOK /* a board may sleep in it (the Pico: WFI) */
#define configUSE_IDLE_HOOK 0
#endif
#define configMAX_PRIORITIES 18 /* rtbench levels 1..16, idle 0, timer task 17 */
#ifndef RTB_MINIMAL_STACK_WORDS /* the idle task's stack; a small board lowers it */
#define RTB_MINIMAL_STACK_WORDS 256
#endif
#define configMINIMAL_STACK_SIZE RTB_MINIMAL_STACK_WORDS
#define configMAX_TASK_NAME_LEN 12
#ifdef TICK_TYPE_WIDTH_32_BITS /* FreeRTOS.h defines it from V10.5.0 on */
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#else
#define configUSE_16_BIT_TICKS 0 /* older kernels (V10.2.1, the STM32 study's) */
#endif
#define configIDLE_SHOULD_YIELD 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 2 /* index 1: the port's thread join */
#define configUSE_MUTEXES 1
#define configUSE_COUNTING_SEMAPHORES 1
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_QUEUE_SETS 0

/* Memory: heap_4, every object dynamic (the port counts the heap peak). */
#define configSUPPORT_STATIC_ALLOCATION 0
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configAPPLICATION_ALLOCATED_HEAP 0
#ifndef __ASSEMBLER__
void rtb_freertos_heap_note(void);
#endif
#define traceMALLOC(p, n) rtb_freertos_heap_note()

#define configCHECK_FOR_STACK_OVERFLOW 2
#define configUSE_MALLOC_FAILED_HOOK 0 /* a failed create is reported by the suite */
#define configUSE_TRACE_FACILITY 0
#define configGENERATE_RUN_TIME_STATS 0

/* Software timers: needed by xEventGroupSetBitsFromISR (deferred to the timer task). */
#define configUSE_TIMERS 1
#define configTIMER_TASK_PRIORITY (configMAX_PRIORITIES - 1)
#define configTIMER_QUEUE_LENGTH 8
#define configTIMER_TASK_STACK_DEPTH RTB_MINIMAL_STACK_WORDS

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

#endif
