/*
 * The smoke image's marked paths, for an instrument on its pins (rtbench's --markers
 * method, rtb_mark.h; docs/instrument-pair.md): marker channels 0..3 on GP2..GP5, the
 * external interrupt's input on GP6 (wired to GP5 on the bench). Each path is timed by
 * SysTick (the internal figure) while its pins change (the external one):
 *
 * - marker_cost: an empty bracket (rtb_mark_cost), the pin's own cost;
 * - loop_1000_marked: `t0; GP3 high; loop_1000's loop; GP3 low; t1` (each end atomic
 *   with its timestamp: rtb_mark_ts_set, rtb_mark_clear_ts);
 * - xip_cold_marked, xip_warm_marked: the flash path after a flush and again, on GP3/GP4;
 * - swi_handler: `t0; toggle GP2; pend` to `handler: ts; toggle GP3`, each end the same
 *   bracket (rtb_mark_ts_toggle), as rtbench's interrupt paths;
 * - ext_handler: `t0; toggle GP5` -> the wire -> GP6's edge interrupt (both edges) to
 *   `handler: ts; toggle GP3`. Without the wire no interrupt comes: ext_runs = 0, no
 *   error (the plain model runs the image alone).
 */
#include "instrumented.h"

#include "rp2040_bare.h"
#include "rtb_emit.h"
#include "rtb_mark.h"
#include "rtbench_port.h"

#define MARKER_PIN0 2u
#define EXT_IN 6u
#define IO_INTR0 REG(IO_BANK0_BASE + 0xf0u)
#define IO_PROC0_INTE0 REG(IO_BANK0_BASE + 0x100u)
#define EXT_EDGES (3u << (4u * EXT_IN + 2u)) /* EDGE_LOW, EDGE_HIGH of GPIO 6 */
#define SIO_GPIO_OE_SET REG(0xd0000024u)
#define SIO_GPIO_SET REG(0xd0000014u)
#define SIO_GPIO_CLR REG(0xd0000018u)
#define IO_IRQ_BANK0 13

enum { N = 8 };

RTB_RAMFUNC void rtb_marker_set(int ch) { SIO_GPIO_SET = 1u << (MARKER_PIN0 + ((unsigned)ch & 3u)); }
RTB_RAMFUNC void rtb_marker_clear(int ch) { SIO_GPIO_CLR = 1u << (MARKER_PIN0 + ((unsigned)ch & 3u)); }
void rtb_cache_cold(void) { bare_xip_flush(); }
RTB_RAMFUNC void rtb_critical_enter(void) { __asm__ volatile("cpsid i" ::: "memory"); }
RTB_RAMFUNC void rtb_critical_exit(void) { __asm__ volatile("cpsie i" ::: "memory"); }
uint32_t rtb_ts(void) { return bare_cycles(); }
uint32_t rtb_ts_hz(void) { return BARE_SYSCLK_HZ; }
uint32_t rtb_ts_mask(void) { return BARE_CYCLES_MASK; }

static volatile uint32_t ext_runs, ext_ts;

/* IO_IRQ_BANK0: the timestamp and the pin (the trigger's bracket, so that the code between
 * each end's timestamp and its edge is the same), then the edge acknowledged. */
void gpio_handler(void)
{
    rtb_mark_ts_toggle(1, &ext_ts);
    IO_INTR0 = EXT_EDGES;
    ext_runs++;
}

static void pins_init(void)
{
    for (unsigned ch = 0; ch < 4; ch++) {
        PADS_GPIO(MARKER_PIN0 + ch) = PADS_IE;
        GPIO_CTRL(MARKER_PIN0 + ch) = FUNC_SIO;
    }
    SIO_GPIO_CLR = 0xfu << MARKER_PIN0;
    SIO_GPIO_OE_SET = 0xfu << MARKER_PIN0;
    PADS_GPIO(EXT_IN) = PADS_IE | PADS_SCHMITT | (1u << 2); /* pull-down */
    GPIO_CTRL(EXT_IN) = FUNC_SIO;
}

static void report(const char *name, int ch_a, uint32_t a, uint32_t as, int ch_b, uint32_t b,
                   uint32_t bs, const int64_t *v)
{
    char cold[40];
    unsigned k = 0;
    for (const char *p = name; *p && k < sizeof cold - 6; p++)
        cold[k++] = *p;
    for (const char *p = ".cold"; *p; p++)
        cold[k++] = *p;
    cold[k] = 0;
    rtb_mark_plan(name, ch_a, a, as, ch_b, b, bs);
    rtb_emit_counter(cold, v[0], "cycles"); /* as rtbench reports a series: cold apart */
    rtb_emit_series(name, "cycles", BARE_SYSCLK_HZ);
    rtb_emit_values(name, 0, v + 1, N - 1);
}

static int64_t elapsed(uint32_t t0, uint32_t t1) { return (int64_t)((t1 - t0) & BARE_CYCLES_MASK); }

/* One marked call of the flash path: the same code cold and warm. */
__attribute__((noinline)) static int64_t marked_flash(int ch, uint32_t (*flash_path)(uint32_t))
{
    uint32_t t0 = rtb_mark_ts_set(ch);
    (void)flash_path(t0);
    return elapsed(t0, rtb_mark_clear_ts(ch));
}

/* The marked loop and flash path (GP3 = channel 1, GP4 = channel 2). */
static void brackets(uint32_t (*flash_path)(uint32_t))
{
    int64_t v[N], cold[N], warm[N];
    uint32_t first = rtb_mark_edges(1);
    for (int i = 0; i < N; i++) {
        uint32_t n = 1000, t0 = rtb_mark_ts_set(1);
        __asm__ volatile(".syntax unified\n1: subs %0, %0, #1\n bne 1b\n" : "+r"(n)::"cc");
        v[i] = elapsed(t0, rtb_mark_clear_ts(1));
    }
    report("loop_1000_marked", 1, first, 2, 1, first + 1, 2, v);
    uint32_t c1 = rtb_mark_edges(1), c2 = rtb_mark_edges(2);
    for (int i = 0; i < N; i++) {
        bare_xip_flush();
        cold[i] = marked_flash(1, flash_path);
        warm[i] = marked_flash(2, flash_path);
    }
    rtb_mark_all_cold("xip_cold_marked");
    report("xip_cold_marked", 1, c1, 2, 1, c1 + 1, 2, cold);
    report("xip_warm_marked", 2, c2, 2, 2, c2 + 1, 2, warm);
}

int smoke_instrumented(uint32_t (*flash_path)(uint32_t), volatile uint32_t *swi_ts)
{
    int64_t v[N];
    int errors = 0;
    pins_init();
    rtb_marking = 1;
    rtb_emit_meta("markers", "on");
    rtb_mark_cost();
    brackets(flash_path);

    uint32_t a = rtb_mark_edges(0), b = rtb_mark_edges(1);
    for (int i = 0; i < N; i++) {
        volatile uint32_t t0;
        rtb_mark_ts_toggle(0, &t0);
        bare_nvic_pend(BARE_SWI_IRQ); /* the handler: its timestamp, then channel 1 */
        v[i] = elapsed(t0, *swi_ts);
    }
    report("swi_handler", 0, a, 1, 1, b, 1, v);

    IO_INTR0 = EXT_EDGES;
    IO_PROC0_INTE0 = EXT_EDGES;
    bare_nvic_enable(IO_IRQ_BANK0);
    a = rtb_mark_edges(RTB_MARK_EXT);
    b = rtb_mark_edges(1);
    for (int i = 0; i < N; i++) {
        uint32_t seen = ext_runs;
        volatile uint32_t t0;
        rtb_mark_ts_toggle(RTB_MARK_EXT, &t0); /* GP5: the wire to GP6 */
        for (int spin = 0; spin < 1000 && ext_runs == seen; spin++) {
        }
        v[i] = ext_runs == seen ? -1 : elapsed(t0, ext_ts);
    }
    rtb_emit_counter("ext_runs", ext_runs, "count");
    if (ext_runs == N)
        report("ext_handler", RTB_MARK_EXT, a, 1, 1, b, 1, v);
    else if (ext_runs != 0)
        errors++; /* some edges interrupted, some did not */
    return errors;
}
