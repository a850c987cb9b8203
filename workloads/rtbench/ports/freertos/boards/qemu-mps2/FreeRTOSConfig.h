/*
 * FreeRTOS configuration for rtbench on the QEMU mps2 family (machines/<m>.toml): the suite's common settings (ports/freertos/FreeRTOSConfig_rtbench.h)
 * and this board's. Choices that matter for the figures are commented; everything else
 * is FreeRTOS's default.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include "FreeRTOSConfig_rtbench.h"

/* SysTick's clock (CLKSOURCE=1), from the machine description: 25 MHz on mps2, so one
 * tick = 25000 counts = 1 ms, i.e. 10^6 instructions under -icount shift=0. */
#define configCPU_CLOCK_HZ BOARD_SYSTICK_HZ
#define configUSE_TICKLESS_IDLE 0 /* the idle task never sleeps: no WFI (FACTS: lost ticks) */
#define configUSE_TICK_HOOK 1 /* keeps the 64-bit time base current (../qemu-mps2.c) */
#define configUSE_RECURSIVE_MUTEXES 0
#define configUSE_NEWLIB_REENTRANT 0
#define configENABLE_BACKWARD_COMPATIBILITY 0
#define configENABLE_MPU 0 /* the ARM_CM0 port asks; no MPU is used on any machine */
#ifdef BOARD_HEAP_SIZE /* a small machine's description (microbit: 16 KiB of RAM) */
#define configTOTAL_HEAP_SIZE ((size_t)BOARD_HEAP_SIZE)
#else
#define configTOTAL_HEAP_SIZE ((size_t)(256 * 1024))
#endif

/* Interrupt priorities, 8 bits implemented in QEMU: the kernel (SysTick, PendSV) at the
 * lowest 0xFF; FromISR calls are legal at 0x20 and numerically above. The rtbench
 * software interrupts sit at 0x40: above every task, allowed to call FromISR. */
#define configKERNEL_INTERRUPT_PRIORITY 0xFF
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0x20
#define RTB_MPS2_SWI_PRIORITY 0x40

/* Armv8-M (mps2-an521's Cortex-M33s): the ARM_CM33_NTZ port, all of it in the secure
 * state (no TrustZone split, no MPU, the FPU left off by the build's flags). */
#define configENABLE_TRUSTZONE 0
#define configRUN_FREERTOS_SECURE_ONLY 1
#define configENABLE_FPU 0
#define configENABLE_MVE 0

#if BOARD_CORES > 1 /* SMP: one kernel on both cores (FreeRTOS-Kernel after V11.3.0) */
#define configNUMBER_OF_CORES BOARD_CORES
#define configUSE_CORE_AFFINITY 1
#define configRUN_MULTIPLE_PRIORITIES 1 /* tasks of different levels run on both cores */
#define configUSE_PASSIVE_IDLE_HOOK 0
#define configCORE_ID_REGISTER 0x5001F000 /* SSE-200 CPU_IDENTITY: reads 0 or 1 */
#define configWAKE_SECONDARY_CORES rtb_mps2_wake_secondary_cores /* ../qemu-mps2.c */
#endif

/* The vector table (startup.c) names the handlers CMSIS-style. */
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler

#ifndef __ASSEMBLER__
void rtb_mps2_assert_failed(const char *file, int line);
#endif

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
