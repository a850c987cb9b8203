/* Measurement helpers: wrap-safe timestamp differences, a static sample pool, the
 * empty-measurement overhead and the report of a series (cold sample apart). */
#ifndef RTB_MEASURE_H
#define RTB_MEASURE_H

#include <stdint.h>

#ifndef RTB_SAMPLE_POOL
#define RTB_SAMPLE_POOL (256u * 1024u) /* 32-bit words; a small board sets -DRTB_SAMPLE_POOL */
#endif

/* Ticks from start to end on a counter that wraps at mask (2^bits - 1). Right as long
 * as the interval is shorter than one counter period. */
static inline uint32_t rtb_ts_elapsed(uint32_t start, uint32_t end, uint32_t mask)
{
    return (end - start) & mask;
}

typedef struct {
    const char *name;
    uint32_t *v; /* raw durations in counter ticks, overhead not yet removed */
    uint32_t n;
    uint32_t cap;
} rtb_samples;

/* Samples live in a static pool, not the heap, so the heap figures show the RTOS only. */
void rtb_pool_reset(void);
/* Samples per series that fit when nseries series share the pool (caps iterations). */
uint32_t rtb_pool_fit(uint32_t want, uint32_t nseries);
int rtb_samples_init(rtb_samples *s, const char *name, uint32_t cap);

static inline void rtb_samples_add(rtb_samples *s, uint32_t v)
{
    if (s->n < s->cap)
        s->v[s->n++] = v;
}

/* Times n empty measurements (two back-to-back timestamps) into s; returns the smallest:
 * the floor each operation's sample carries and that rtb_report subtracts. */
uint32_t rtb_measure_overhead(rtb_samples *s, uint32_t n);

/* Emits series NAME (unit=ticks at the counter frequency) with the warm samples minus
 * overhead, and counter NAME.cold with the first sample minus overhead. Scenarios call
 * rtb_cache_cold() just before each series' first sample (meta cold says what it did). */
void rtb_report(const rtb_samples *s, uint32_t overhead);

#endif
