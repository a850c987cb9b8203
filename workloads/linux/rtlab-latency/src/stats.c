#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t *sorted_copy(const int64_t *v, size_t n)
{
    int64_t *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_i64);
    return s;
}

int64_t quantile_sorted(const int64_t *s, size_t n, double q)
{
    if (n == 0)
        return 0;
    double r = ceil(q * (double)n);
    size_t k = r < 1 ? 0 : (size_t)r - 1;
    return s[k < n ? k : n - 1];
}

void logh_init(logh_t *h)
{
    memset(h, 0, sizeof *h);
    h->min = INT64_MAX;
    h->max = INT64_MIN;
}

/* Values below 8 get one bucket each; above, octave e holds 8 buckets of 2^(e-3). */
static size_t logh_index(int64_t v)
{
    if (v < LOGH_SUB)
        return (size_t)v;
    int e = 63 - __builtin_clzll((unsigned long long)v);
    int64_t m = v >> (e - 3); /* 8..15 */
    return (size_t)((e - 2) * LOGH_SUB + (m - LOGH_SUB));
}

void logh_bounds(size_t i, int64_t *lo, int64_t *hi)
{
    if (i < LOGH_SUB) {
        *lo = (int64_t)i;
        *hi = (int64_t)i + 1;
        return;
    }
    int e = (int)(i / LOGH_SUB) + 2;
    int64_t m = (int64_t)(i % LOGH_SUB) + LOGH_SUB;
    *lo = m << (e - 3);
    *hi = (m + 1) << (e - 3);
}

void logh_add(logh_t *h, int64_t v)
{
    h->n++;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    if (v < 0) {
        h->negative++;
        return;
    }
    size_t i = logh_index(v);
    if (i >= LOGH_N)
        i = LOGH_N - 1;
    h->count[i]++;
}
