/*
 * FreeRTOS configuration for rtbench on QEMU mps2-an385 (ARM_CM3) / mps2-an386
 * (ARM_CM4F). Choices that matter for the figures are commented; everything else is
 * FreeRTOS's default.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* SysTick runs at 25 MHz (CLKSOURCE=1 on these boards): one tick = 25000 counts = 1 ms,
 * i.e. 10^6 instructions under -icount shift=0. */
#define configCPU_CLOCK_HZ 25000000UL
#define configTICK_RATE_HZ 1000
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configUSE_TICKLESS_IDLE 0 /* the idle task never sleeps: no WFI (FACTS: lost ticks) */
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1 /* keeps the 64-bit time base current (board_freertos.c) */
#define configMAX_PRIORITIES 18 /* rtbench levels 1..16, idle 0, timer task 17 */
#define configMINIMAL_STACK_SIZE 256
#define configMAX_TASK_NAME_LEN 12
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 2 /* index 1: the port's thread join */
#define configUSE_MUTEXES 1
#define configUSE_RECURSIVE_MUTEXES 0
#define configUSE_COUNTING_SEMAPHORES 1
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_QUEUE_SETS 0
#define configUSE_NEWLIB_REENTRANT 0
#define configENABLE_BACKWARD_COMPATIBILITY 0

/* Memory: heap_4, every object dynamic (the port counts the heap peak). */
#define configSUPPORT_STATIC_ALLOCATION 0
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configTOTAL_HEAP_SIZE ((size_t)(256 * 1024))
#define configAPPLICATION_ALLOCATED_HEAP 0

#define configCHECK_FOR_STACK_OVERFLOW 2
#define configUSE_MALLOC_FAILED_HOOK 0 /* a failed create is reported by the suite */
#define configUSE_TRACE_FACILITY 0
#define configGENERATE_RUN_TIME_STATS 0

/* Software timers: needed by xEventGroupSetBitsFromISR (deferred to the timer task). */
#define configUSE_TIMERS 1
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

/* Interrupt priorities, 8 bits implemented in QEMU: the kernel (SysTick, PendSV) at the
 * lowest 0xFF; FromISR calls are legal at 0x20 and numerically above. The rtbench
 * software interrupts sit at 0x40: above every task, allowed to call FromISR. */
#define configKERNEL_INTERRUPT_PRIORITY 0xFF
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0x20
#define RTB_MPS2_SWI_PRIORITY 0x40

/* The vector table (startup.c) names the handlers CMSIS-style. */
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler

#ifndef __ASSEMBLER__
void rtb_freertos_heap_note(void);
void rtb_mps2_assert_failed(const char *file, int line);
#endif
#define traceMALLOC(p, n) rtb_freertos_heap_note()

/* Asserts cost instructions in every kernel call: off for measurements, on with
 * -DRTB_FREERTOS_ASSERT=1 (a debug build). */
#if defined(RTB_FREERTOS_ASSERT) && RTB_FREERTOS_ASSERT
#define configASSERT(x)                                                                    \
    do {                                                                                   \
        if (!(x))                                                                          \
            rtb_mps2_assert_failed(__FILE__, __LINE__);                                    \
    } while (0)
#endif

#endif
