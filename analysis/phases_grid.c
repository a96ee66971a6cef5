/* phases_grid.c: the common time grid of the ranks with a phase, the phase of one rank at
 * a time (ph_cursor_*, ph_phase_at) and every rank's phase at the grid points in order
 * (ph_timeline_*), wall-time or compute-only (phases.h, section 2). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phases_priv.h"

double ph_median_period(const ph_marks_t *m)
{
    uint32_t maxn = 0, nr = 0;
    for (int32_t r = 0; r < m->nranks; r++)
        if (m->n[r] >= 2) {
            nr++;
            if (m->n[r] > maxn)
                maxn = m->n[r];
        }
    if (nr == 0)
        return 0;
    int64_t *scratch = malloc(maxn * sizeof(*scratch));
    double *med = malloc(nr * sizeof(*med));
    double out = 0;
    if (scratch != NULL && med != NULL) {
        uint32_t i = 0;
        for (int32_t r = 0; r < m->nranks; r++)
            if (m->n[r] >= 2)
                med[i++] = ph_median_diff(m->t[r], m->n[r], scratch);
        out = ph_median_of(med, nr);
    }
    free(scratch);
    free(med);
    return out;
}

int ph_grid_make(const ph_marks_t *m, int64_t dt_ns, size_t max_points, ph_grid_t *g)
{
    memset(g, 0, sizeof(*g));
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    int any = 0;
    for (int32_t r = 0; r < m->nranks; r++) {
        if (m->n[r] < 2)
            continue;
        any = 1;
        if (m->t[r][0] > lo)
            lo = m->t[r][0];
        if (m->t[r][m->n[r] - 1] < hi)
            hi = m->t[r][m->n[r] - 1];
    }
    if (!any || lo > hi)
        return -1;
    if (dt_ns <= 0) {
        double p = ph_median_period(m);
        dt_ns = p >= 4 ? (int64_t)(p / 4) : 1;
    }
    if (max_points < 2)
        max_points = 2;
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span / (uint64_t)dt_ns + 1 > max_points)
        dt_ns = (int64_t)((span + max_points - 2) / (max_points - 1));
    if (dt_ns <= 0)
        dt_ns = 1;
    g->t0 = lo;
    g->dt = dt_ns;
    g->n = (size_t)(span / (uint64_t)dt_ns) + 1;
    assert(g->dt > 0 && g->n >= 1 && g->n <= max_points);
    return 0;
}

void ph_cursor_init(ph_cursor_t *c, const ph_marks_t *m, int32_t rank)
{
    c->t = m->t[rank];
    c->n = m->n[rank];
    c->k = 0;
}

double ph_cursor_phase(ph_cursor_t *c, int64_t at)
{
    int64_t k = ph_cursor_iter(c, at);
    return k < 0 ? NAN : ph_phase_in(c->t, c->n, k, at);
}

double ph_phase_at(const int64_t *t, uint32_t n, int64_t at)
{
    if (n < 2 || at < t[0] || at > t[n - 1])
        return NAN;
    uint32_t lo = 0, hi = n - 1; /* largest k with t[k] <= at */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (t[mid] <= at)
            lo = mid;
        else
            hi = mid - 1;
    }
    return ph_phase_in(t, n, lo, at);
}

int ph_timeline_init(ph_timeline_t *tl, const ph_marks_t *m, const ph_compute_t *comp,
                     const ph_grid_t *g)
{
    tl->m = m;
    tl->comp = comp;
    tl->grid = *g;
    tl->cur = calloc((size_t)m->nranks, sizeof(*tl->cur));
    if (tl->cur == NULL)
        return -1;
    ph_timeline_rewind(tl);
    return 0;
}

void ph_timeline_rewind(ph_timeline_t *tl)
{
    for (int32_t r = 0; r < tl->m->nranks; r++)
        ph_cursor_init(&tl->cur[r], tl->m, r);
}

void ph_timeline_at(ph_timeline_t *tl, size_t g, double *theta)
{
    assert(g < tl->grid.n); /* the compute-only fractions have grid.n values per rank */
    int64_t t = tl->grid.t0 + (int64_t)g * tl->grid.dt;
    for (int32_t r = 0; r < tl->m->nranks; r++) {
        ph_cursor_t *c = &tl->cur[r];
        int64_t k = ph_cursor_iter(c, t);
        if (k < 0) {
            theta[r] = NAN;
        } else if (tl->comp == NULL || tl->comp->frac == NULL || tl->comp->frac[r] == NULL ||
                   (uint32_t)k == c->n - 1) {
            theta[r] = ph_phase_in(c->t, c->n, k, t);
        } else {
            /* the iteration from the boundaries, the fraction from the compute time */
            float fr = tl->comp->frac[r][g];
            theta[r] = isnan(fr) ? NAN : PH_TAU * ((double)k + (double)fr);
        }
    }
}

void ph_timeline_free(ph_timeline_t *tl)
{
    free(tl->cur);
    tl->cur = NULL;
}
