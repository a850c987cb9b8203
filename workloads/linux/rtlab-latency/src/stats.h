/* Quantiles of sample arrays and a log-linear histogram (8 buckets per octave). */
#ifndef RTLAB_STATS_H
#define RTLAB_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Sorted copy (caller frees), NULL when out of memory. */
int64_t *sorted_copy(const int64_t *v, size_t n);
/* Nearest-rank quantile of sorted data: an actual sample value. */
int64_t quantile_sorted(const int64_t *s, size_t n, double q);

#define LOGH_SUB 8 /* buckets per power of two: 12.5 % resolution */
#define LOGH_N (LOGH_SUB * 62)

typedef struct {
    long long count[LOGH_N];
    long long negative; /* values below 0 (not expected for latencies) */
    long long n;
    int64_t min, max;
} logh_t;

void logh_init(logh_t *h);
void logh_add(logh_t *h, int64_t v);
/* Bucket i holds values in [lo, hi). */
void logh_bounds(size_t i, int64_t *lo, int64_t *hi);

#endif
