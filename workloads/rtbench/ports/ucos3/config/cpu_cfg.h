/*
 * µC/CPU configuration for rtbench on ARMv7-M (the project's own; the template's does
 * not compile as it is: CPU_CFG_NVIC_PRIO_BITS sits in "#if 0").
 *
 * Kernel-aware interrupts: CPU_CRITICAL_ENTER raises BASEPRI to KA_IPL_BOUNDARY <<
 * (8 - PRIO_BITS) = 0x20 (QEMU mps2 implements 8 priority bits), the same boundary as
 * the FreeRTOS build's configMAX_SYSCALL_INTERRUPT_PRIORITY; rtbench's software
 * interrupts sit at 0x40, masked by it, allowed to post. ARMv6-M has no BASEPRI: its
 * port's critical sections set PRIMASK (every interrupt masked); the boundary is unused.
 */
#ifndef CPU_CFG_MODULE_PRESENT
#define CPU_CFG_MODULE_PRESENT

#define CPU_CFG_NAME_EN DEF_DISABLED
#define CPU_CFG_NAME_SIZE 16

/* 32-bit timestamps on CMSDK TIMER0 (board: CPU_TS_TmrInit/CPU_TS_TmrRd): the kernel's
 * OS_CFG_TS_EN needs them; DWT CYCCNT reads 0 in QEMU. */
#define CPU_CFG_TS_32_EN DEF_ENABLED
#define CPU_CFG_TS_64_EN DEF_DISABLED
#define CPU_CFG_TS_TMR_SIZE CPU_WORD_SIZE_32

#define CPU_CFG_INT_DIS_MEAS_OVRHD_NBR 1u

#define CPU_CFG_CACHE_MGMT_EN DEF_DISABLED

#define CPU_CFG_KA_IPL_BOUNDARY 0x20u
#if defined(__ARM_ARCH_6M__) /* Cortex-M0/M0+: PRIMASK, no BASEPRI; 2 priority bits */
#define CPU_CFG_NVIC_PRIO_BITS 2u
#else
#define CPU_CFG_NVIC_PRIO_BITS 8u
#endif

#endif
