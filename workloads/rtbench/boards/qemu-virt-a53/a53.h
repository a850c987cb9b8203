/*
 * QEMU `virt` with Cortex-A53 cores (rtlab machine virt-a53): what rtbench needs of the
 * machine beyond its RTOS, shared by the Zephyr and NuttX builds. The counter is the Arm
 * generic timer's virtual count (CNTVCT_EL0, CNTFRQ_EL0 = 62.5 MHz in QEMU), readable
 * on every core without a device mapping; options and the exit status go through
 * AArch64 semihosting (HLT #0xF000). The RTOS owns the console, the GIC and its tick.
 */
#ifndef RTB_A53_H
#define RTB_A53_H

#include <stdint.h>

#define A53_MACHINE "virt-a53"
#define A53_COUNTER "cntvct"

static inline uint64_t a53_cntvct(void)
{
    uint64_t v;
    /* isb: the read must not be taken before the code it times. */
    __asm__ volatile("isb\n mrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
}

static inline uint32_t a53_cntfrq(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
    return (uint32_t)v;
}

static inline uint32_t a53_ts(void) { return (uint32_t)a53_cntvct(); }

/* Instructions per second of virtual time, on a fixed loop against the counter: 10^9 >>
 * shift under -icount shift=N (both cores share one instruction clock there, so call it
 * while the other core idles). */
uint32_t a53_measure_ips(void);
/* 10^9 >> N when ips matches an icount shift within 1 %, else 0 (no icount). */
uint32_t a53_icount_hz(uint32_t ips);
/* The calling core's number (MPIDR_EL1 Aff0: QEMU virt numbers cores 0..n-1 there). */
int a53_core_id(void);
/* The icount / no-icount warning every run repeats (a static string). */
const char *a53_timing_warning(uint32_t icount_hz, const char **msg);

/* Semihosting: the command line ("" when there is none), and SYS_EXIT with
 * ADP_Stopped_ApplicationExit + status (QEMU exits with it). */
const char *a53_cmdline(void);
void a53_exit(int status) __attribute__((noreturn));

#endif
