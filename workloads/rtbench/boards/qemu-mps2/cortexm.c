/* What every board of this layer shares, whatever its chip: the 64-bit time base, the
 * icount probe, the NVIC and semihosting (the chip's UART and timer: mps2.c, nrf51.c). */
#include "mps2.h"

#include "../common/qemu_semihost.h"

#define REG(a) (*(volatile uint32_t *)(a))
#define NVIC_ISER 0xE000E100u
#define NVIC_ICER 0xE000E180u
#define NVIC_ISPR 0xE000E200u
#define NVIC_IPR 0xE000E400u

uint64_t mps2_time_ticks(void)
{
    static uint32_t last;
    static uint64_t acc;
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
#if BOARD_CORES > 1 /* both cores extend the same counter: one at a time */
    static volatile char busy;
    while (__atomic_test_and_set(&busy, __ATOMIC_ACQUIRE))
        ;
#endif
    uint32_t now = mps2_ts();
    acc += (uint32_t)(now - last) & BOARD_TS_MASK;
    last = now;
    uint64_t r = acc;
#if BOARD_CORES > 1
    __atomic_clear(&busy, __ATOMIC_RELEASE);
#endif
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    return r;
}

uint32_t mps2_measure_ips(void)
{
    /* 2 instructions per turn (subs, bne): 100000 instructions, 2500 ticks at shift 0. */
    uint32_t n = 50000;
    uint32_t t0 = mps2_ts();
    MPS2_SPIN(n);
    uint32_t ticks = (mps2_ts() - t0) & BOARD_TS_MASK;
    if (!ticks)
        return 0;
    return (uint32_t)((uint64_t)100000u * MPS2_TIMER_HZ / ticks);
}

QEMU_ICOUNT_HZ_FUNCTION(mps2_icount_hz, mps2_cmdline)

void mps2_nvic_enable(int irq) { REG(NVIC_ISER + 4u * ((unsigned)irq / 32u)) = 1u << (irq % 32); }

void mps2_nvic_disable(int irq)
{
    REG(NVIC_ICER + 4u * ((unsigned)irq / 32u)) = 1u << (irq % 32);
    __asm__ volatile("dsb\n isb" ::: "memory");
}

void mps2_nvic_pend(int irq)
{
    REG(NVIC_ISPR + 4u * ((unsigned)irq / 32u)) = 1u << (irq % 32);
    /* The pend takes effect before the next instruction completes. */
    __asm__ volatile("dsb\n isb" ::: "memory");
}

void mps2_nvic_priority(int irq, uint8_t prio)
{
    *(volatile uint8_t *)(NVIC_IPR + (unsigned)irq) = prio;
}

/* Semihosting: QEMU answers it; on silicon no debugger does. */
#if !defined(BOARD_NO_SEMIHOSTING)
void mps2_exit(int status)
{
    /* ADP_Stopped_ApplicationExit with a subcode: QEMU exits with that status. */
    uint32_t block[2] = {0x20026u, (uint32_t)status};
    qemu_semihost(0x20, block); /* SYS_EXIT_EXTENDED */
    qemu_semihost(0x18, (void *)(uintptr_t)(status ? 0x20023u : 0x20026u)); /* SYS_EXIT */
    for (;;) {
    }
}

const char *mps2_cmdline(void) { return qemu_semihost_cmdline(); }
#else
#include "rtb_emit.h" /* rtb_done_line */

/* On silicon the end of the run is a line on the UART (the serial target reads until it). */
void mps2_exit(int status)
{
    char line[32];
    mps2_uart_write(line, rtb_done_line(line, status));
    __asm__ volatile("cpsid i" ::: "memory");
    for (;;) {
    }
}
#endif

const char *mps2_machine(void) { return BOARD_MACHINE; }

/* The board interface's options and end (include/rtb_board.h) are these two functions
 * themselves, not calls to them: the start-up reaches them in as many instructions as
 * it did when it called them by these names (the QEMU pages' phase of the counter).
 * Weak: a board file that wraps them (Zephyr's, ports/zephyr/boards/) keeps its own. */
#if !defined(BOARD_NO_SEMIHOSTING) /* else the chip's compiled-in options: board_lines.c */
const char *rtb_board_cmdline(void) __attribute__((weak, alias("mps2_cmdline")));
#endif
void rtb_board_exit(int status) __attribute__((weak, noreturn, alias("mps2_exit")));
