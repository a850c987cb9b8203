/*
 * The SSE-200's second core (QEMU mps2-an521), from the SSE-200 TRM (ARM 101104): which
 * core runs (CPU_IDENTITY), releasing core 1 from reset (INITSVTOR1, CPUWAIT) and the
 * inter-core interrupt (MHU0: one set/clear register pair and one IRQ line per core).
 * Secure aliases throughout: rtbench runs in the secure state. UART and timer: mps2.c.
 */
#include "mps2.h"

#define REG(a) (*(volatile uint32_t *)(a))
#define CPU_IDENTITY 0x5001F000u /* CPUID: 0 or 1, whichever core reads it */
#define SYSCTL 0x50021000u
#define SYSCTL_INITSVTOR1 (SYSCTL + 0x114u)
#define SYSCTL_CPUWAIT (SYSCTL + 0x118u) /* bit n set: core n held at reset */
#define MHU0 0x50003000u
#define MHU_INTR_SET(core) (MHU0 + 0x04u + 0x10u * (unsigned)(core))
#define MHU_INTR_CLR(core) (MHU0 + 0x08u + 0x10u * (unsigned)(core))

int mps2_core_id(void) { return (int)(REG(CPU_IDENTITY) & 1u); }

void mps2_start_core1(const void *vectors)
{
    /* Core 1 fetches its stack pointer and reset vector from INITSVTOR1 when released. */
    REG(SYSCTL_INITSVTOR1) = (uint32_t)(uintptr_t)vectors;
    __asm__ volatile("dsb" ::: "memory");
    REG(SYSCTL_CPUWAIT) &= ~2u;
}

void mps2_ipi_send(int core)
{
    REG(MHU_INTR_SET(core)) = 1u;
    __asm__ volatile("dsb" ::: "memory");
}

void mps2_ipi_clear(void) { REG(MHU_INTR_CLR(mps2_core_id())) = 1u; }
