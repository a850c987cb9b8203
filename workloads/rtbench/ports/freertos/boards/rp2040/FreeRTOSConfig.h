/*
 * FreeRTOS configuration for rtbench on the RP2040 (Raspberry Pi Pico); the suite's
 * common settings are in ports/freertos/FreeRTOSConfig_rtbench.h. Three images
 * (CMakeLists.txt):
 * - the kernel's RP2040 port (portable/ThirdParty/GCC/RP2040) on both cores: SMP, core
 *   affinity (RTB_PICO_CORES 2, the default);
 * - the same port on core 0 alone (RTB_PICO_CORES 1, configNUMBER_OF_CORES 1);
 * - the generic GCC/ARM_CM0 port on core 0 (RTB_PICO_FREERTOS_CM0), as any Cortex-M0+
 *   board runs FreeRTOS: no pico-sdk interop. This one also builds with older kernels
 *   (V10.2.1, the STM32 study's), which have no RP2040 port.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* The idle task sleeps in WFI until the next interrupt (vApplicationIdleHook,
 * ../rp2040.c), as a board on a battery would: no figure is taken from an
 * idle core (every path starts in a running task or an interrupt), and on the RP2040
 * model a sleeping core costs nothing to emulate. */
#define configUSE_IDLE_HOOK 1
#include "FreeRTOSConfig_rtbench.h"

#ifndef RTB_PICO_CORES
#define RTB_PICO_CORES 2
#endif

#if defined(RTB_PICO_FREERTOS_CM0) && RTB_PICO_FREERTOS_CM0
/* The generic port: its handlers under the pico-sdk's vector-table names (crt0.S).
 * V11's ARM_CM0 port names them CMSIS-style, older ones xPort...; both are mapped. */
#define vPortSVCHandler isr_svcall
#define xPortPendSVHandler isr_pendsv
#define xPortSysTickHandler isr_systick
#define SVC_Handler isr_svcall
#define PendSV_Handler isr_pendsv
#define SysTick_Handler isr_systick
#define configENABLE_MPU 0
#define configENABLE_FPU 0
#define configENABLE_TRUSTZONE 0
#define configRUN_FREERTOS_SECURE_ONLY 1
#define configUSE_RECURSIVE_MUTEXES 0
#define configENABLE_BACKWARD_COMPATIBILITY 0
#else
#define configNUMBER_OF_CORES RTB_PICO_CORES
#if RTB_PICO_CORES > 1
#define configUSE_CORE_AFFINITY 1
#define configRUN_MULTIPLE_PRIORITIES 1 /* tasks of different levels run on both cores */
#define configUSE_PASSIVE_IDLE_HOOK 0
#endif
#define configTICK_CORE 0
#define configSUPPORT_PICO_SYNC_INTEROP 1
#define configSUPPORT_PICO_TIME_INTEROP 1
#define configUSE_RECURSIVE_MUTEXES 1 /* the SDK's sync interop uses them */
#define configENABLE_BACKWARD_COMPATIBILITY 1 /* the SDK interop layer still needs it */
#endif

#define configCPU_CLOCK_HZ 125000000UL /* SDK default clk_sys on the RP2040 */
#define configUSE_TICKLESS_IDLE 0
#define configUSE_TICK_HOOK 0
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
