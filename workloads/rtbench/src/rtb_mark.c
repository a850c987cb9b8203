/* Marker pins and the edge plan (rtb_mark.h). */
#include "rtb_mark.h"

#include "rtb_emit.h"
#include "rtbench_port.h"

int rtb_marking;
static uint32_t edges[RTB_MARK_CHANNELS];
static uint8_t level[RTB_MARK_CHANNELS];

RTB_RAMFUNC void rtb_mark_set(int ch)
{
    rtb_marker_set(ch);
    ch &= RTB_MARK_CHANNELS - 1;
    edges[ch] += level[ch] == 0;
    level[ch] = 1;
}

RTB_RAMFUNC void rtb_mark_clear(int ch)
{
    rtb_marker_clear(ch);
    ch &= RTB_MARK_CHANNELS - 1;
    edges[ch] += level[ch] != 0;
    level[ch] = 0;
}

RTB_RAMFUNC void rtb_mark_toggle(int ch)
{
    if (level[ch & (RTB_MARK_CHANNELS - 1)])
        rtb_mark_clear(ch);
    else
        rtb_mark_set(ch);
}

/* The brackets are never inlined: rtb_mark_cost's empty bracket is then the very call the
 * scenarios make (in another file, so never inlined there), and its cost cancels theirs
 * (inlined into rtb_mark_cost it lost the call, and on the Pico the long-branch veneers
 * between RAM and flash code: 15 cycles fewer than a scenario's bracket). */
#define RTB_MARK_BRACKET __attribute__((noinline)) RTB_RAMFUNC

RTB_MARK_BRACKET uint32_t rtb_mark_ts_set(int ch)
{
    rtb_critical_enter();
    uint32_t t = rtb_ts();
    rtb_mark_set(ch);
    rtb_critical_exit();
    return t;
}

RTB_MARK_BRACKET uint32_t rtb_mark_clear_ts(int ch)
{
    rtb_critical_enter();
    rtb_mark_clear(ch);
    uint32_t t = rtb_ts();
    rtb_critical_exit();
    return t;
}

RTB_MARK_BRACKET void rtb_mark_ts_toggle(int ch, volatile uint32_t *t)
{
    rtb_critical_enter();
    *t = rtb_ts();
    rtb_mark_toggle(ch);
    rtb_critical_exit();
}

void rtb_mark_made(int ch, uint32_t n)
{
    ch &= RTB_MARK_CHANNELS - 1;
    edges[ch] += n;
    level[ch] ^= (uint8_t)(n & 1u);
}

uint32_t rtb_mark_edges(int ch) { return edges[ch & (RTB_MARK_CHANNELS - 1)]; }

/* Decimal of v into p (no libc on an MCU); returns the end. */
static char *put_u32(char *p, uint32_t v)
{
    char tmp[10];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_edge(char *p, int ch, uint32_t first, uint32_t stride)
{
    *p++ = (char)('0' + (ch & (RTB_MARK_CHANNELS - 1)));
    *p++ = '@';
    p = put_u32(p, first);
    *p++ = '+';
    return put_u32(p, stride);
}

void rtb_mark_plan(const char *series, int a_ch, uint32_t a, uint32_t as, int b_ch, uint32_t b,
                   uint32_t bs)
{
    char key[64] = "marker.", value[64];
    unsigned k = 7;
    for (const char *s = series; *s && k < sizeof key - 1; s++)
        key[k++] = *s;
    key[k] = 0;
    char *p = put_edge(value, a_ch, a, as);
    *p++ = '>';
    p = put_edge(p, b_ch, b, bs);
    *p = 0;
    rtb_emit_meta(key, value);
}

void rtb_mark_all_cold(const char *series)
{
    char key[64] = "marker_cold.";
    unsigned k = 12;
    for (const char *s = series; *s && k < sizeof key - 1; s++)
        key[k++] = *s;
    key[k] = 0;
    rtb_emit_meta(key, "all");
}

void rtb_mark_plan_pulses(const char *series, int ch, uint32_t first)
{
    rtb_mark_plan(series, ch, first, 2, ch, first + 1, 2);
}

enum { COST_N = 16 };

void rtb_mark_cost(void)
{
    if (!rtb_marking)
        return;
    uint32_t mask = rtb_ts_mask(), floor = mask;
    int64_t v[COST_N];
    uint32_t first = rtb_mark_edges(0);
    for (int i = 0; i < COST_N; i++) {
        uint32_t t0 = rtb_ts();
        uint32_t t1 = rtb_ts();
        uint32_t d = (t1 - t0) & mask;
        if (d < floor)
            floor = d;
    }
    rtb_cache_cold(); /* the first bracket is cold: the bound of any cold sample's pin */
    for (int i = 0; i < COST_N; i++) {
        uint32_t t0 = rtb_mark_ts_set(0);
        uint32_t t1 = rtb_mark_clear_ts(0);
        v[i] = (int64_t)((t1 - t0) & mask);
    }
    for (int i = 0; i < COST_N; i++)
        v[i] -= (int64_t)floor;
    /* as rtb_report: the first sample is the cold one */
    rtb_mark_plan_pulses("marker_cost", 0, first);
    rtb_emit_counter("marker_cost.cold", v[0], "ticks");
    rtb_emit_series("marker_cost", "ticks", rtb_ts_hz());
    rtb_emit_values("marker_cost", 0, v + 1, COST_N - 1);
}

/* A port whose board has no external interrupt input defines nothing: this one. */
__attribute__((weak)) rtb_swi *rtb_extirq_create(void (*handler)(void *arg), void *arg, int core)
{
    (void)handler;
    (void)arg;
    (void)core;
    return 0;
}
