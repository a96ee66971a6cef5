/* phases.c: the helpers the phases_*.c files share (phases_priv.h): comparators, medians and
 * the one "out of memory" of a pass over the log. The library's parts are in phases_marks.c
 * (boundaries), phases_period.c (period detection), phases_grid.c (grid, phases, timelines),
 * phases_compute.c (compute time), phases_topo.c (T_ij), phases_metrics.c (one grid point),
 * phases_resync.c (resynchronisation, recovery), phases_wave.c (idle wave), phases_twin.c
 * (twin runs) and phases_study.c (the whole computation of `phasor phases`). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "phases_priv.h"
#include "pstat.h"

int ph_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int ph_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ph_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

double ph_median_of(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof(*v), pstat_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double ph_median_diff(const int64_t *t, uint32_t n, int64_t *scratch)
{
    if (n < 2)
        return 0;
    for (uint32_t k = 0; k + 1 < n; k++)
        scratch[k] = t[k + 1] - t[k];
    qsort(scratch, n - 1, sizeof(*scratch), ph_cmp_i64);
    uint32_t h = (n - 1) / 2;
    return (n - 1) % 2 ? (double)scratch[h] : 0.5 * ((double)scratch[h - 1] + (double)scratch[h]);
}

plog_err_t ph_nomem(const plog_run_t *run, plog_error_t *err)
{
    return plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET, NULL);
}
