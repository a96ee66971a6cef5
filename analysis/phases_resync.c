/* phases_resync.c: how R comes back after a perturbation (phases.h, derived figures): the
 * excursions below a fixed threshold (ph_resync_*) and the recovery relative to the run's
 * own level of R (ph_recovery_find). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phases_priv.h"
#include "vec.h"

void ph_resync_init(ph_resync_t *r, double thr)
{
    memset(r, 0, sizeof(*r));
    r->thr = thr;
}

static int resync_close(ph_resync_t *r, int64_t t, int recovered)
{
    assert(r->in);
    if (VEC_GROW(r->v, r->cap, r->n + 1) != 0)
        return -1;
    r->cur.end_ns = t;
    r->cur.recovered = recovered;
    r->v[r->n++] = r->cur;
    r->in = 0;
    return 0;
}

int ph_resync_add(ph_resync_t *r, int64_t t, double R)
{
    int first = !r->started;
    r->started = 1;
    if (isnan(R))
        return 0;
    if (r->in) {
        if (R < r->cur.r_min) {
            r->cur.r_min = R;
            r->cur.min_ns = t;
        }
        if (R >= r->thr)
            return resync_close(r, t, 1);
        return 0;
    }
    if (R < r->thr) {
        r->in = 1;
        r->cur = (ph_excursion_t){t, t, t, R, 0, !first};
    }
    return 0;
}

int ph_resync_finish(ph_resync_t *r, int64_t t_end)
{
    return r->in ? resync_close(r, t_end, 0) : 0;
}

void ph_resync_free(ph_resync_t *r)
{
    free(r->v);
    memset(r, 0, sizeof(*r));
}

void ph_recovery_clear(ph_recovery_t *o)
{
    memset(o, 0, sizeof(*o));
    o->r_base = o->r_base_sd = o->r_min = o->r_target = o->r_tail = NAN;
}

/* rs[i]: the mean of the finite R[k] for |k - i| <= h, NaN when there is none. */
static void smooth(const double *R, size_t n, size_t h, double *rs)
{
    for (size_t i = 0; i < n; i++) {
        size_t a = i > h ? i - h : 0, b = i + h < n ? i + h : n - 1, c = 0;
        double sum = 0;
        for (size_t k = a; k <= b; k++)
            if (!isnan(R[k])) {
                sum += R[k];
                c++;
            }
        rs[i] = c ? sum / (double)c : NAN;
    }
}

int ph_recovery_find(const double *R, const ph_grid_t *g, int64_t t_from, int64_t period_ns,
                     double frac, ph_recovery_t *o)
{
    ph_recovery_clear(o);
    o->t_from = t_from;
    size_t n = g->n;
    if (n == 0)
        return 0;
    double *rs = malloc(n * sizeof(*rs));
    if (rs == NULL)
        return -1;
    /* R over one period: the points within half a period either side */
    smooth(R, n, period_ns > 0 && g->dt > 0 ? (size_t)(period_ns / 2 / g->dt) : 0, rs);
    double sum = 0, sq = 0, tail = 0;
    size_t nt = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        int64_t t = g->t0 + (int64_t)i * g->dt;
        if (i >= n - n / 4 && !isnan(R[i])) {
            tail += R[i];
            nt++;
        }
        if (t < t_from) {
            if (!isnan(R[i])) {
                sum += R[i];
                sq += R[i] * R[i];
                o->n_base++;
            }
        } else if (first == n)
            first = i;
    }
    o->r_tail = nt ? tail / (double)nt : NAN;
    if (o->n_base >= 4 && first < n) {
        o->r_base = sum / (double)o->n_base;
        double var = sq / (double)o->n_base - o->r_base * o->r_base;
        o->r_base_sd = var > 0 ? sqrt(var) : 0;
        size_t imin = first;
        for (size_t i = first; i < n; i++)
            if (!isnan(rs[i]) && (isnan(rs[imin]) || rs[i] < rs[imin]))
                imin = i;
        /* a drop within the baseline's own jitter is no perturbation */
        if (!isnan(rs[imin]) && o->r_base - rs[imin] > fmax(2 * o->r_base_sd, 1e-9)) {
            o->found = 1;
            o->r_min = rs[imin];
            o->t_min = g->t0 + (int64_t)imin * g->dt;
            o->r_target = o->r_min + frac * (o->r_base - o->r_min);
            for (size_t i = imin; i < n; i++)
                if (!isnan(rs[i]) && rs[i] >= o->r_target) {
                    o->recovered = 1;
                    o->t_back = g->t0 + (int64_t)i * g->dt;
                    break;
                }
        }
    }
    free(rs);
    return 0;
}
