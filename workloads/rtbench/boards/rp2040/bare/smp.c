/*
 * The two cores of the RP2040 (no SDK, no kernel): core 0 launches core 1 through the boot
 * ROM's handshake (PSM reset of core 1, its 0, then 0, 0, 1, vector table, SP, entry, each
 * echoed, as the pico-sdk's multicore_launch_core1 does), then runs four checks with it and
 * prints their figures as rtbench counters (tests/models/rp2040/test_two_cores.py):
 *
 *   fifo_rtt_*      FIFO ping-pong: core 0 pushes a word, core 1 (asleep in WFE) pops it
 *                   and pushes it + 1 back; core 0's cycles per round trip (its SysTick)
 *   lock_count      both cores add 1 to one SRAM word LOCK_TURNS times each, each add
 *                   (load, add, store) under SIO spinlock 7: exactly 2 x LOCK_TURNS
 *   nolock_count    the same adds with no lock: updates are lost (less than 2 x turns)
 *   lock_spins_*    failed claims of the lock by each core (the contention it saw)
 *   wfe_*           core 1 sleeps in WFE; core 0 waits WFE_DELAY cycles, sets a flag and
 *                   sends SEV: core 1's wakes and the cycles it slept (its own SysTick)
 *   irq_core*_*     the TIMER's alarm 0 (IRQ 0) and IO_IRQ_BANK0 forced through
 *                   PROC1_INTF: enabled in core 1's NVIC only (and IO_IRQ_BANK0 in core
 *                   0's NVIC too, with PROC0 forcing nothing): the handlers each core ran
 */
#include <stdint.h>

#include "rp2040_bare.h"
#include "rtb_emit.h"
#include "rtbench_port.h"

void rtb_out_write(const char *line, size_t len) { bare_uart_write(line, len); }
void rtb_out_flush(void) {}

#define SIO_BASE 0xd0000000u
#define SIO_FIFO_ST REG(SIO_BASE + 0x50)
#define SIO_FIFO_WR REG(SIO_BASE + 0x54)
#define SIO_FIFO_RD REG(SIO_BASE + 0x58)
#define SIO_SPINLOCK(n) REG(SIO_BASE + 0x100 + 4u * (n))
#define FIFO_VLD 1u
#define FIFO_RDY 2u
#define PSM_FRCE_OFF REG(0x40010004u)
#define PSM_PROC1 (1u << 16)
#define TIMER_ALARM0 REG(TIMER_BASE + 0x10)
#define TIMER_INTR REG(TIMER_BASE + 0x34)
#define TIMER_INTE REG(TIMER_BASE + 0x38)
#define IO_PROC1_INTF0 REG(IO_BANK0_BASE + 0x140)
#define PPB_VTOR REG(0xe000ed08u)
#define NVIC_ISER REG(0xe000e100u)
#define IRQ_TIMER0 0
#define IRQ_IO_BANK0 13

#define RTT_ROUNDS 16
#define LOCK_TURNS 1000
#define WFE_DELAY 5000
#define CMD_ECHO 1u
#define CMD_LOCK 2u
#define CMD_NOLOCK 3u
#define CMD_WFE 4u
#define CMD_IRQ 5u

static inline void sev(void) { __asm__ volatile("sev" ::: "memory"); }
static inline void wfe(void) { __asm__ volatile("wfe" ::: "memory"); }

static void push(uint32_t v)
{
    while (!(SIO_FIFO_ST & FIFO_RDY)) {
    }
    SIO_FIFO_WR = v;
    sev();
}

static uint32_t pop(void)
{
    while (!(SIO_FIFO_ST & FIFO_VLD))
        wfe();
    return SIO_FIFO_RD;
}

static void drain(void)
{
    while (SIO_FIFO_ST & FIFO_VLD)
        (void)SIO_FIFO_RD;
}

static void systick_start(void)
{
    SYST_RVR = 0x00ffffffu;
    SYST_CVR = 0;
    SYST_CSR = 5u;
}

/* --- shared state (SRAM) --- */
static volatile uint32_t counter;
static volatile uint32_t spins[2];
static volatile uint32_t wfe_flag, wfe_wakes, wfe_slept;
static volatile uint32_t irq_runs[2][2]; /* [core][0: timer, 1: io bank0] */
static uint32_t core1_stack[256];
__attribute__((aligned(256))) static void (*core1_vectors[48])(void);

static uint32_t cpuid(void) { return REG(SIO_BASE); }

static void timer_handler(void)
{
    TIMER_INTR = 1u;
    irq_runs[cpuid()][0]++;
}

static void io_handler(void)
{
    IO_PROC1_INTF0 = 0;
    irq_runs[cpuid()][1]++;
}

static void adds(uint32_t turns, int locked, uint32_t core)
{
    for (uint32_t i = 0; i < turns; i++) {
        if (locked) {
            while (!SIO_SPINLOCK(7))
                spins[core]++;
        }
        counter = counter + 1u;
        if (locked)
            SIO_SPINLOCK(7) = 0;
    }
}

static void core1_wfe(void)
{
    sev();
    wfe(); /* consume the event register: the next WFE sleeps */
    uint32_t t0 = bare_cycles();
    while (!wfe_flag) {
        wfe();
        wfe_wakes++;
    }
    wfe_slept = (bare_cycles() - t0) & BARE_CYCLES_MASK;
}

static void core1_main(void)
{
    systick_start();
    for (;;) {
        uint32_t cmd = pop();
        switch (cmd) {
        case CMD_ECHO:
            for (int i = 0; i < RTT_ROUNDS; i++)
                push(pop() + 1u);
            break;
        case CMD_LOCK:
        case CMD_NOLOCK:
            push(0); /* go */
            adds(LOCK_TURNS, cmd == CMD_LOCK, 1);
            break;
        case CMD_WFE:
            core1_wfe();
            break;
        case CMD_IRQ:
            NVIC_ISER = 1u << IRQ_TIMER0 | 1u << IRQ_IO_BANK0;
            __asm__ volatile("cpsie i" ::: "memory");
            break;
        default:
            break;
        }
        push(cmd); /* done */
    }
}

/* PSM reset of core 1, its 0, then the ROM's launch handshake (RP2040 datasheet 2.8.2). */
static int launch_core1(void)
{
    PSM_FRCE_OFF |= PSM_PROC1;
    while (!(PSM_FRCE_OFF & PSM_PROC1)) {
    }
    PSM_FRCE_OFF &= ~PSM_PROC1;
    if (pop() != 0)
        return 1;
    const uint32_t seq[6] = {0, 0, 1, (uint32_t)(uintptr_t)core1_vectors,
                             (uint32_t)(uintptr_t)&core1_stack[256], (uint32_t)(uintptr_t)core1_main};
    for (int i = 0, tries = 0; i < 6; tries++) {
        if (tries > 100)
            return 1;
        if (!seq[i]) {
            drain();
            sev();
        }
        push(seq[i]);
        i = pop() == seq[i] ? i + 1 : 0;
    }
    return 0;
}

static void command(uint32_t cmd) { push(cmd); }
static int finished(uint32_t cmd) { return pop() != cmd; }

static int fifo_rtt(void)
{
    command(CMD_ECHO);
    uint32_t lo = 0xffffffffu, hi = 0;
    int errors = 0;
    for (uint32_t i = 0; i < RTT_ROUNDS; i++) {
        uint32_t t0 = bare_cycles();
        push(i);
        uint32_t v = pop();
        uint32_t dt = (bare_cycles() - t0) & BARE_CYCLES_MASK;
        errors += v != i + 1u;
        if (i >= 2) { /* warm: code and data in the XIP cache */
            lo = dt < lo ? dt : lo;
            hi = dt > hi ? dt : hi;
        }
    }
    rtb_emit_counter("fifo_rtt_min", lo, "cycles");
    rtb_emit_counter("fifo_rtt_max", hi, "cycles");
    return errors + finished(CMD_ECHO);
}

static int counting(int locked)
{
    counter = 0;
    spins[0] = spins[1] = 0;
    uint32_t cmd = locked ? CMD_LOCK : CMD_NOLOCK;
    command(cmd);
    int errors = pop() != 0;
    adds(LOCK_TURNS, locked, 0);
    errors += finished(cmd);
    rtb_emit_counter(locked ? "lock_count" : "nolock_count", counter, "adds");
    if (locked) {
        rtb_emit_counter("lock_spins_core0", spins[0], "claims");
        rtb_emit_counter("lock_spins_core1", spins[1], "claims");
    }
    return errors;
}

static int wfe_wake(void)
{
    wfe_flag = wfe_wakes = 0;
    command(CMD_WFE);
    uint32_t t0 = bare_cycles();
    while (((bare_cycles() - t0) & BARE_CYCLES_MASK) < WFE_DELAY) {
    }
    wfe_flag = 1;
    sev();
    int errors = finished(CMD_WFE);
    rtb_emit_counter("wfe_wakes", wfe_wakes, "wakes");
    rtb_emit_counter("wfe_slept", wfe_slept, "cycles");
    rtb_emit_counter("wfe_delay", WFE_DELAY, "cycles");
    return errors;
}

static int irq_routing(void)
{
    for (int i = 0; i < 48; i++)
        core1_vectors[i] = ((void (**)(void))0x10000100u)[i];
    core1_vectors[16 + IRQ_TIMER0] = timer_handler;
    core1_vectors[16 + IRQ_IO_BANK0] = io_handler;
    command(CMD_IRQ);
    int errors = finished(CMD_IRQ);
    NVIC_ISER = 1u << IRQ_IO_BANK0; /* core 0's line stays low: PROC0 forces nothing */
    TIMER_INTE = 1u;
    TIMER_ALARM0 = TIMER_TIMERAWL + 20u; /* 20 us */
    while (!irq_runs[1][0]) {
    }
    IO_PROC1_INTF0 = 1u << 2; /* GPIO0 level high, core 1's IO_IRQ_BANK0 */
    while (!irq_runs[1][1]) {
    }
    rtb_emit_counter("irq_core0_timer", irq_runs[0][0], "runs");
    rtb_emit_counter("irq_core1_timer", irq_runs[1][0], "runs");
    rtb_emit_counter("irq_core0_io", irq_runs[0][1], "runs");
    rtb_emit_counter("irq_core1_io", irq_runs[1][1], "runs");
    return errors;
}

int main(void)
{
    bare_init();
    rtb_emit_hello("rp2040_smp", "1");
    rtb_emit_meta("board", "pico");
    rtb_emit_meta("clock", "systick_cpu");
    rtb_emit_meta_u64("clock_hz", BARE_SYSCLK_HZ);
    for (int i = 0; i < 48; i++)
        core1_vectors[i] = ((void (**)(void))0x10000100u)[i];
    int errors = launch_core1();
    rtb_emit_counter("core1_launched", !errors, "bool");
    if (errors) {
        rtb_emit_end("error", "core 1 did not answer the launch handshake");
        return 1;
    }
    errors += fifo_rtt();
    errors += counting(1);
    errors += counting(0);
    errors += wfe_wake();
    errors += irq_routing();
    rtb_emit_end(errors ? "error" : "ok", NULL);
    return errors;
}
