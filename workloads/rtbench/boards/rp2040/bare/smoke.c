/*
 * Bare-metal smoke test of the RP2040 layer (no SDK, no kernel), the image `make test`
 * boots on rtlab's RP2040 model: the boot ROM's functions through its lookup table, the
 * SysTick cycle counter on a fixed loop, the software interrupt through NVIC set-pending,
 * and the XIP cache: a function in flash timed right after a cache flush (cold) and
 * again (warm). Then the same paths marked on GP2..GP5 for an instrument, and a GPIO edge
 * interrupt (instrumented.c). Prints the protocol on UART0, then `rtbench: done errors=N`.
 */
#include <stdint.h>

#include "instrumented.h"
#include "rp2040_bare.h"
#include "rtb_mark.h"
#include "rtb_emit.h"
#include "rtbench_port.h"

void rtb_out_write(const char *line, size_t len) { bare_uart_write(line, len); }
void rtb_out_flush(void) {}

enum { N = 8 };
static volatile uint32_t swi_runs, swi_ts;

void swi_handler(void)
{
    swi_ts = bare_cycles();
    if (rtb_marking) /* the trigger's bracket at this end too: the same code around each edge */
        rtb_mark_ts_toggle(1, &swi_ts);
    swi_runs++;
}

static int64_t delta(uint32_t t0, uint32_t t1) { return (int64_t)((t1 - t0) & BARE_CYCLES_MASK); }

/* 1000 turns of subs + bne: 1000 x (1 + 2) - 1 cycles on a Cortex-M0+ (the last bne falls
 * through), when the loop's 4 bytes are in the XIP cache or SRAM. */
__attribute__((noinline)) static uint32_t loop_1000(void)
{
    uint32_t n = 1000;
    uint32_t t0 = bare_cycles();
    __asm__ volatile(".syntax unified\n1: subs %0, %0, #1\n bne 1b\n" : "+r"(n)::"cc");
    return (uint32_t)delta(t0, bare_cycles());
}

/* A function of `n` adds in a row in flash, 2n bytes of straight code from a line's start. */
#define STRAIGHT_PATH(name, n)                                                                     \
    __attribute__((noinline, aligned(8))) static uint32_t name(uint32_t x)                         \
    {                                                                                              \
        __asm__ volatile(".syntax unified\n.rept " #n "\n adds %0, %0, #1\n .endr\n"             \
                         : "+r"(x)::"cc");                                                         \
        return x;                                                                                  \
    }

/* A path in flash long enough to span several cache lines (64 bytes of straight code). */
STRAIGHT_PATH(flash_path, 32)

/* One timed call of flash_path: called twice, its own lines are warm the second time. */
__attribute__((noinline)) static int64_t time_flash_path(void)
{
    uint32_t t0 = bare_cycles();
    (void)flash_path(t0);
    return delta(t0, bare_cycles());
}

/* Three paths 8 KiB apart: one set of the two-way XIP cache (1024 sets of 8-byte lines),
 * so calling them in turn evicts each before its next call and every call misses, warm or
 * not; a cache without conflict misses (the model's "compulsory" mode) hits from the second
 * round on. Their place in flash is the point, not their work. */
#define SAME_SET __attribute__((noinline, aligned(8192)))
SAME_SET static uint32_t same_set_a(uint32_t x) { __asm__ volatile("" : "+r"(x)); return x + 1; }
SAME_SET static uint32_t same_set_b(uint32_t x) { __asm__ volatile("" : "+r"(x)); return x + 2; }
SAME_SET static uint32_t same_set_c(uint32_t x) { __asm__ volatile("" : "+r"(x)); return x + 3; }

/* One timed round of the three: its second and later rounds are "warm". */
__attribute__((noinline)) static int64_t time_same_set(void)
{
    uint32_t t0 = bare_cycles();
    uint32_t x = same_set_c(same_set_b(same_set_a(t0)));
    __asm__ volatile("" ::"r"(x));
    return delta(t0, bare_cycles());
}

/* 20 KiB of straight code, more than the 16 KiB XIP cache holds: a second call right
 * after the first finds none of its lines left in a least-recently-used cache of that
 * size (capacity misses, whatever the layout), and all of them in an ideal one. */
STRAIGHT_PATH(big_path, 10240)

static int rom_checks(void)
{
    int bad = 0;
    uint32_t (*popcount)(uint32_t) = (uint32_t(*)(uint32_t))bare_rom_func('P', '3');
    uint32_t (*clz)(uint32_t) = (uint32_t(*)(uint32_t))bare_rom_func('L', '3');
    uint32_t (*ctz)(uint32_t) = (uint32_t(*)(uint32_t))bare_rom_func('T', '3');
    uint32_t (*rev)(uint32_t) = (uint32_t(*)(uint32_t))bare_rom_func('R', '3');
    void *(*memcpy_rom)(void *, const void *, uint32_t) =
        (void *(*)(void *, const void *, uint32_t))bare_rom_func('M', 'C');
    void *(*memset_rom)(void *, int, uint32_t) = (void *(*)(void *, int, uint32_t))bare_rom_func('M', 'S');
    bad += popcount(0xf0f00001u) != 9u;
    bad += clz(0x00010000u) != 15u;
    bad += ctz(0x00010000u) != 16u;
    bad += rev(0x00000001u) != 0x80000000u;
    static char a[16] = "rp2040 rom test", b[16];
    bad += memcpy_rom(b, a, sizeof a) != b;
    for (unsigned i = 0; i < sizeof a; i++)
        bad += a[i] != b[i];
    memset_rom(b, 'x', 4);
    bad += b[0] != 'x' || b[3] != 'x' || b[4] != '4';
    /* the soft float table: its size byte (the pico-sdk checks >= 32 words), fadd, fmul */
    const uint32_t *sf = bare_rom_data('S', 'F');
    bad += ((const uint8_t *)sf)[-2] < 32u;
    union {
        float f;
        uint32_t u;
    } x, y, r;
    x.f = 1.5f;
    y.f = 2.25f;
    r.f = ((float (*)(float, float))sf[0])(x.f, y.f);
    bad += r.u != 0x40700000u; /* 3.75f */
    r.f = ((float (*)(float, float))sf[2])(x.f, y.f);
    bad += r.u != 0x40580000u; /* 3.375f */
    return bad;
}

int main(void)
{
    int64_t v[N];
    int errors = 0;
    bare_init();
    rtb_emit_hello("rp2040_smoke", "1");
    rtb_emit_meta("board", "pico");
    rtb_emit_meta("clock", "systick_cpu");
    rtb_emit_meta_u64("clock_hz", BARE_SYSCLK_HZ);

    int rom_bad = rom_checks();
    rtb_emit_counter("rom_checks_failed", rom_bad, "count");
    errors += rom_bad != 0;

    for (int i = 0; i < N; i++) {
        uint32_t a = bare_cycles();
        uint32_t b = bare_cycles();
        v[i] = delta(a, b);
    }
    rtb_emit_series("ts_pair", "cycles", BARE_SYSCLK_HZ);
    rtb_emit_values("ts_pair", 0, v, N);
    for (int i = 0; i < N; i++)
        v[i] = loop_1000();
    rtb_emit_series("loop_1000", "cycles", BARE_SYSCLK_HZ);
    rtb_emit_values("loop_1000", 0, v, N);

    bare_nvic_enable(BARE_SWI_IRQ);
    for (int i = 0; i < N; i++) {
        uint32_t t0 = bare_cycles();
        bare_nvic_pend(BARE_SWI_IRQ);
        v[i] = delta(t0, swi_ts);
    }
    rtb_emit_series("swi_entry", "cycles", BARE_SYSCLK_HZ);
    rtb_emit_values("swi_entry", 0, v, N);
    rtb_emit_counter("swi_runs", swi_runs, "count");
    errors += swi_runs != N;

    int64_t cold[N], warm[N];
    for (int i = 0; i < N; i++) {
        bare_xip_flush();
        cold[i] = time_flash_path();
        warm[i] = time_flash_path();
        errors += cold[i] <= warm[i];
    }
    rtb_emit_series("xip_cold", "cycles", BARE_SYSCLK_HZ);
    rtb_emit_values("xip_cold", 0, cold, N);
    rtb_emit_series("xip_warm", "cycles", BARE_SYSCLK_HZ);
    rtb_emit_values("xip_warm", 0, warm, N);
    bare_xip_flush();
    for (int i = 0; i < N; i++)
        warm[i] = time_same_set(); /* the first round is cold: every later one is warm */
    rtb_emit_series("xip_same_set", "cycles", BARE_SYSCLK_HZ);
    rtb_emit_values("xip_same_set", 0, warm, N);
    bare_xip_flush();
    for (int i = 0; i < 2; i++) { /* cold, then the second call */
        uint32_t t0 = bare_cycles();
        (void)big_path(t0);
        warm[i] = delta(t0, bare_cycles());
    }
    rtb_emit_series("xip_capacity", "cycles", BARE_SYSCLK_HZ);
    rtb_emit_values("xip_capacity", 0, warm, 2);
    errors += smoke_instrumented(flash_path, &swi_ts);
    rtb_emit_end(errors ? "error" : "ok", errors ? "a smoke check failed" : 0);
    return errors;
}
