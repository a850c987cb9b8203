/* The virt-a53 machine's shared half (a53.h): icount probe, core id, semihosting. */
#include "a53.h"

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

uint32_t a53_icount_hz(uint32_t ips)
{
    for (int s = 0; s <= 10; s++) {
        uint32_t hz = 1000000000u >> s;
        uint32_t d = ips > hz ? ips - hz : hz - ips;
        if (d <= hz / 100u)
            return hz;
    }
    return 0;
}

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

static long semihost(long op, void *arg)
{
    register long x0 __asm__("x0") = op;
    register void *x1 __asm__("x1") = arg;
    __asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
    return x0;
}

void a53_exit(int status)
{
    /* AArch64 SYS_EXIT takes a block: ADP_Stopped_ApplicationExit and the status. */
    uint64_t block[2] = {0x20026u, (uint64_t)(uint32_t)status};
    semihost(0x18, block);
    for (;;) {
    }
}

const char *a53_cmdline(void)
{
    static char buf[512];
    struct {
        char *buf;
        uint64_t len;
    } block = {buf, sizeof buf - 1};
    if (semihost(0x15, &block) != 0) /* SYS_GET_CMDLINE */
        return "";
    buf[sizeof buf - 1] = 0;
    return buf;
}
