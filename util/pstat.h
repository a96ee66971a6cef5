/* pstat.h: the order statistics every part of phasor uses alike, so that a quantile means
 * the same thing in the probe, the models, the report and the phases. Pure, header only. */
#ifndef PSTAT_H
#define PSTAT_H

#include <math.h>
#include <stddef.h>

/* qsort comparator for doubles, ascending (NaNs compare equal to everything). */
static inline int pstat_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q in [0, 1] of n sorted values: linear interpolation between order statistics
 * at h = (n - 1) q (Hyndman-Fan type 7, R's default). NAN when n = 0. */
static inline double pstat_quantile(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

#endif
