/* The virt-a53 machine's shared half (a53.h): icount probe, core id, semihosting. */
#include "a53.h"

#include "../common/qemu_semihost.h"

uint32_t a53_measure_ips(void)
{
    /* 2 instructions per turn (subs, bne): 200000 instructions, 12500 ticks at shift 0. */
    uint64_t n = 100000;
    uint64_t t0 = a53_cntvct();
    __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(n)::"cc");
    uint64_t ticks = a53_cntvct() - t0;
    if (!ticks)
        return 0;
    return (uint32_t)((uint64_t)200000u * a53_cntfrq() / ticks);
}

QEMU_ICOUNT_HZ_FUNCTION(a53_icount_hz, a53_cmdline)

int a53_core_id(void)
{
    uint64_t mpidr;
    __asm__ volatile("mrs %0, mpidr_el1" : "=r"(mpidr));
    return (int)(mpidr & 0xFFu);
}

const char *a53_timing_warning(uint32_t icount_hz, const char **msg)
{
    if (icount_hz) {
        *msg = "QEMU -icount: the generic timer runs in virtual time (one 62.5 MHz tick = "
               "16 instructions at shift 0, shared by both cores, which QEMU runs in "
               "turns): an instruction-count model, not time on silicon";
        return "icount_model";
    }
    *msg = "QEMU runs without -icount (parallel TCG, one host thread per core): the "
           "generic timer follows host time, figures are not deterministic and only their "
           "ratios mean anything";
    return "no_icount";
}

void a53_exit(int status)
{
    /* AArch64 SYS_EXIT takes a block: ADP_Stopped_ApplicationExit and the status. */
    uint64_t block[2] = {0x20026u, (uint64_t)(uint32_t)status};
    qemu_semihost(0x18, block);
    for (;;) {
    }
}

const char *a53_cmdline(void)
{
    return qemu_semihost_cmdline();
}
