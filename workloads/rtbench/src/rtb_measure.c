#include "rtb_measure.h"

#include "rtb_emit.h"
#include "rtbench_port.h"

static uint32_t pool[RTB_SAMPLE_POOL];
static uint32_t pool_used;

void rtb_pool_reset(void) { pool_used = 0; }

uint32_t rtb_pool_fit(uint32_t want, uint32_t nseries)
{
    uint32_t room = (RTB_SAMPLE_POOL - pool_used) / (nseries ? nseries : 1);
    if (want <= room)
        return want;
    rtb_emit_warn("iterations_capped", "the sample pool (RTB_SAMPLE_POOL) holds fewer "
                                       "samples than asked: iterations lowered");
    return room;
}

int rtb_samples_init(rtb_samples *s, const char *name, uint32_t cap)
{
    s->name = name;
    s->n = 0;
    if (cap > RTB_SAMPLE_POOL - pool_used)
        cap = RTB_SAMPLE_POOL - pool_used;
    s->cap = cap;
    s->v = &pool[pool_used];
    pool_used += cap;
    return cap ? 0 : -1;
}

uint32_t rtb_measure_overhead(rtb_samples *s, uint32_t n)
{
    uint32_t mask = rtb_ts_mask();
    uint32_t best = mask;
    rtb_cache_cold();
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t0 = rtb_ts();
        uint32_t t1 = rtb_ts();
        uint32_t d = rtb_ts_elapsed(t0, t1, mask);
        rtb_samples_add(s, d);
        if (i > 0 && d < best) /* the first, cold pair is not the floor */
            best = d;
    }
    return n > 1 ? best : 0;
}

void rtb_report(const rtb_samples *s, uint32_t overhead)
{
    char cold[64];
    size_t k = 0;
    for (const char *p = s->name; *p && k < sizeof cold - 6; p++)
        cold[k++] = *p;
    for (const char *p = ".cold"; *p; p++)
        cold[k++] = *p;
    cold[k] = 0;

    rtb_emit_series(s->name, "ticks", rtb_ts_hz());
    if (s->n == 0)
        return;
    rtb_emit_counter(cold, (int64_t)s->v[0] - (int64_t)overhead, "ticks");
    int64_t buf[RTB_CHUNK];
    uint64_t seq = 0;
    for (uint32_t i = 1; i < s->n;) {
        uint32_t m = 0;
        while (m < RTB_CHUNK && i < s->n)
            buf[m++] = (int64_t)s->v[i++] - (int64_t)overhead;
        seq = rtb_emit_values(s->name, seq, buf, m);
    }
}
