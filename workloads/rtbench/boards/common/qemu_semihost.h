/* What the QEMU board layers (qemu-mps2's cortexm.c, qemu-virt-a53's a53.c) share: the
 * semihosting call of the core they run on (AArch32: BKPT 0xAB, AArch64: HLT #0xF000),
 * the command line through it, and the -icount rate a measured instruction rate stands
 * for. Inline or defined in place: each layer's functions compile to the code they were
 * before this header, at their place (the QEMU pages' instruction counts and the images'
 * layout stay put). Included by a relative path: no build adds an include directory. */
#ifndef RTB_QEMU_SEMIHOST_H
#define RTB_QEMU_SEMIHOST_H

#include <stddef.h>
#include <stdint.h>

#define SEMIHOST_SYS_GET_CMDLINE 0x15

/* One semihosting request `op` with its argument block: the host's answer (r0/x0). */
static inline long qemu_semihost(long op, void *arg)
{
#if defined(__aarch64__)
    register long x0 __asm__("x0") = op;
    register void *x1 __asm__("x1") = arg;
    __asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
    return x0;
#else
    register long r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
#endif
}

/* QEMU's -append text (SYS_GET_CMDLINE), NUL-terminated in a 512-byte buffer of the
 * calling file's own, or "" when the host gives none (QEMU without semihosting, or a
 * line longer than the buffer). */
static inline const char *qemu_semihost_cmdline(void)
{
    static char buf[512];
    struct {
        char *buf;
        uintptr_t len; /* a word of the core's width: 32 bits on AArch32, 64 on AArch64 */
    } block = {buf, sizeof buf - 1};
    if (qemu_semihost(SEMIHOST_SYS_GET_CMDLINE, &block) != 0)
        return "";
    buf[sizeof buf - 1] = 0;
    return buf;
}

/* The timebase rtlab states as the command line's second word, after the program name:
 * "timebase=icount:N" (-icount shift=N: *hz = 1 GHz >> N) or "timebase=host" (*hz = 0).
 * 1 when the line states one, 0 when it does not (QEMU started by hand): then the rate
 * is guessed from the measured one. A word without "--" is no option to rtbench's parse. */
static inline int qemu_stated_icount_hz(const char *line, uint32_t *hz)
{
    static const char key[] = "timebase=";
    const char *p = line;
    while (*p && *p != ' ')
        p++;
    while (*p == ' ')
        p++;
    for (unsigned k = 0; k < sizeof key - 1; k++)
        if (p[k] != key[k])
            return 0;
    p += sizeof key - 1;
    if (p[0] == 'h' && p[1] == 'o' && p[2] == 's' && p[3] == 't' && (!p[4] || p[4] == ' ')) {
        *hz = 0;
        return 1;
    }
    if (!(p[0] == 'i' && p[1] == 'c' && p[2] == 'o' && p[3] == 'u' && p[4] == 'n' &&
          p[5] == 't' && p[6] == ':'))
        return 0;
    unsigned shift = 0, digits = 0;
    for (p += 7; *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
        shift = shift * 10u + (unsigned)(*p - '0');
    if (!digits || shift > 10 || (*p && *p != ' '))
        return 0;
    *hz = 1000000000u >> shift;
    return 1;
}

/* Defines `uint32_t name(uint32_t ips)`: the -icount rate the command line `cmdline()`
 * states (qemu_stated_icount_hz), else the rate (1 GHz >> shift, shift 0..10) within 1 %
 * of `ips`, the instructions a second the counter saw; 0 for host time (QEMU without
 * -icount). A host that runs near 1 GHz >> s looks like icount to the guess: rtlab states
 * the timebase on every run. A defining macro, not an inline function: inlined, GCC
 * swaps a compare's operands; defined in place, each layer's function is its own code. */
#define QEMU_ICOUNT_HZ_FUNCTION(name, cmdline)                                           \
    uint32_t name(uint32_t ips)                                                          \
    {                                                                                    \
        uint32_t stated;                                                                 \
        if (qemu_stated_icount_hz(cmdline(), &stated))                                   \
            return stated;                                                               \
        for (int s = 0; s <= 10; s++) {                                                  \
            uint32_t hz = 1000000000u >> s;                                              \
            uint32_t d = ips > hz ? ips - hz : hz - ips;                                 \
            if (d <= hz / 100u)                                                          \
                return hz;                                                               \
        }                                                                                \
        return 0;                                                                        \
    }

#endif
