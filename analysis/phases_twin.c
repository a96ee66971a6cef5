/* phases_twin.c: a perturbed run against its twin without the delay (phases.h,
 * ph_twin_find): the shift the delay made on every rank, its spread over the ranks, and how
 * far half of it reached. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phases_priv.h"

void ph_twin_free(ph_twin_t *tw)
{
    free(tw->spread_ns);
    free(tw->reach_ns);
    ph_twin_clear(tw);
}

void ph_twin_clear(ph_twin_t *tw)
{
    memset(tw, 0, sizeof(*tw));
    tw->base_ns = tw->peak_ns = tw->target_ns = tw->source_reach_ns = tw->far_reach_ns = NAN;
}

/* Boundaries that both runs have on rank r. */
static uint32_t common_n(const ph_marks_t *m, const ph_marks_t *ref, int32_t r)
{
    return m->n[r] < ref->n[r] ? m->n[r] : ref->n[r];
}

/* s_r(k): how much later boundary k came on rank r in m than in ref, from their first. */
static double shift(const ph_marks_t *m, const ph_marks_t *ref, int32_t r, uint32_t k)
{
    assert(k < m->n[r] && k < ref->n[r]);
    return (double)(m->t[r][k] - m->t[r][0]) - (double)(ref->t[r][k] - ref->t[r][0]);
}

/* D(k) = max_r s_r(k) - min_r s_r(k) over the P ranks with boundary k in both runs. */
static void spread(const ph_marks_t *m, const ph_marks_t *ref, int32_t P, ph_twin_t *tw)
{
    for (uint32_t k = 0; k < tw->n; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int32_t r = 0; r < P; r++) {
            if (k >= common_n(m, ref, r))
                continue;
            double sh = shift(m, ref, r, k);
            lo = sh < lo ? sh : lo;
            hi = sh > hi ? sh : hi;
        }
        tw->spread_ns[k] = hi >= lo ? hi - lo : NAN;
    }
}

/* Per rank: the delay it took, within the time a wave of half a rank per iteration needs
 * to the farthest rank (what comes later is other perturbations: the machine's); v holds
 * k0 values. */
static void reach(const ph_marks_t *m, const ph_marks_t *ref, int32_t P, uint32_t k0,
                  uint64_t kend, double *v, ph_twin_t *tw)
{
    for (int32_t r = 0; r < P; r++) {
        uint32_t c = common_n(m, ref, r);
        if (c <= k0 + 1)
            continue;
        if (c > kend)
            c = (uint32_t)kend;
        size_t nb = 0;
        double mx = -INFINITY;
        for (uint32_t k = 1; k < c; k++) {
            double sh = shift(m, ref, r, k);
            if (k <= k0)
                v[nb++] = sh;
            else if (sh > mx)
                mx = sh;
        }
        tw->reach_ns[r] = mx - ph_median_of(v, nb);
    }
}

/* The mean reach of the ranks at the largest distance, and the survival distance: the
 * contiguous distances with a rank that took half the source's reach. */
static void far_and_survival(const int32_t *distance, int32_t P, int32_t maxd, ph_twin_t *tw)
{
    int32_t fard = -1;
    double sum = 0;
    size_t c = 0;
    for (int32_t r = 0; r < P; r++)
        if (!isnan(tw->reach_ns[r]) && distance[r] > fard)
            fard = distance[r];
    for (int32_t r = 0; r < P; r++)
        if (!isnan(tw->reach_ns[r]) && distance[r] == fard) {
            sum += tw->reach_ns[r];
            c++;
        }
    tw->far_reach_ns = c ? sum / (double)c : NAN;
    if (!(tw->source_reach_ns > 0))
        return;
    for (int32_t d = 1; d <= maxd; d++) {
        int ok = 0;
        for (int32_t r = 0; r < P && !ok; r++)
            ok = distance[r] == d && tw->reach_ns[r] >= 0.5 * tw->source_reach_ns;
        if (!ok)
            break;
        tw->survival_hops = d;
    }
}

/* The spread's base, peak (where the delayed iteration ends, give or take the slack) and
 * the boundary it is back from; v holds k0 values. */
static void spread_back(uint32_t k0, double frac, double *v, ph_twin_t *tw)
{
    uint32_t n = tw->n;
    size_t nb = 0;
    for (uint32_t k = 1; k <= k0; k++)
        if (!isnan(tw->spread_ns[k]))
            v[nb++] = tw->spread_ns[k];
    tw->base_ns = ph_median_of(v, nb);
    tw->k_peak = k0 + 1;
    for (uint32_t k = k0 + 1; k < n && k <= k0 + 1 + PH_WAVE_SLACK; k++)
        if (!isnan(tw->spread_ns[k]) &&
            (isnan(tw->spread_ns[tw->k_peak]) || tw->spread_ns[k] > tw->spread_ns[tw->k_peak]))
            tw->k_peak = k;
    tw->peak_ns = tw->spread_ns[tw->k_peak];
    /* the delay's jump must stand above the spread the runs already had before it (the
     * machine's jitter differs between the runs): peak - base > base */
    if (isnan(tw->base_ns) || isnan(tw->peak_ns) || !(tw->peak_ns > 2 * tw->base_ns) ||
        !(tw->peak_ns > tw->base_ns))
        return;
    tw->found = 1;
    tw->target_ns = tw->base_ns + (1 - frac) * (tw->peak_ns - tw->base_ns);
    for (uint32_t k = tw->k_peak + 1; k < n; k++) {
        int ok = 1;
        for (uint32_t q = k; q < n && q < k + 3 && ok; q++)
            ok = isnan(tw->spread_ns[q]) || tw->spread_ns[q] <= tw->target_ns;
        if (ok && !isnan(tw->spread_ns[k])) {
            tw->recovered = 1;
            tw->k_back = k;
            break;
        }
    }
}

int ph_twin_find(const ph_marks_t *m, const ph_marks_t *ref, const int32_t *distance,
                 int32_t source, uint32_t k0, double frac, ph_twin_t *tw)
{
    ph_twin_clear(tw);
    tw->k0 = k0;
    int32_t P = m->nranks < ref->nranks ? m->nranks : ref->nranks;
    uint32_t n = 0;
    for (int32_t r = 0; r < P; r++)
        if (common_n(m, ref, r) > n)
            n = common_n(m, ref, r);
    tw->n = n;
    tw->reach_ns = malloc((size_t)(m->nranks > 0 ? m->nranks : 1) * sizeof(double));
    tw->spread_ns = malloc((n ? n : 1) * sizeof(double));
    double *v = malloc(((size_t)n + (size_t)P + 1) * sizeof(double));
    if (!tw->reach_ns || !tw->spread_ns || !v) {
        free(v);
        return -1;
    }
    for (int32_t r = 0; r < m->nranks; r++)
        tw->reach_ns[r] = NAN;
    spread(m, ref, P, tw);
    if (k0 < 2 || k0 + 1 >= n || source < 0 || source >= P) {
        free(v);
        return 0;
    }
    int32_t maxd = 0;
    for (int32_t r = 0; distance != NULL && r < P; r++)
        maxd = distance[r] > maxd ? distance[r] : maxd;
    uint64_t kend = (uint64_t)k0 + 2 + 2 * (uint64_t)(distance != NULL ? maxd : P) + PH_WAVE_SLACK;
    reach(m, ref, P, k0, kend, v, tw);
    tw->source_reach_ns = tw->reach_ns[source];
    if (distance != NULL)
        far_and_survival(distance, P, maxd, tw);
    spread_back(k0, frac, v, tw);
    free(v);
    return 0;
}
