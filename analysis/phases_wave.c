/* phases_wave.c: the idle wave (phases.h, ph_wave_find): the delay's source, the hop
 * distances from it along the messages, the ranks it reached iteration by iteration, and its
 * speed and decay. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phases_priv.h"

void ph_wave_free(ph_wave_t *w)
{
    free(w->arrival_iter);
    free(w->arrival_ns);
    free(w->distance);
    free(w->idle_ns);
    memset(w, 0, sizeof(*w));
}

/* breadth-first levels from src over the out-edges in (off, nb); dist -1 = not reached */
static int bfs_levels(int32_t n, const uint32_t *off, const int32_t *nb, int32_t src,
                      int32_t *dist)
{
    int32_t *q = malloc((size_t)n * sizeof(*q));
    if (q == NULL)
        return -1;
    for (int32_t i = 0; i < n; i++)
        dist[i] = -1;
    size_t h = 0, e = 0;
    dist[src] = 0;
    q[e++] = src;
    while (h < e) {
        int32_t j = q[h++];
        for (uint32_t k = off[j]; k < off[j + 1]; k++)
            if (dist[nb[k]] < 0) {
                dist[nb[k]] = dist[j] + 1;
                q[e++] = nb[k];
            }
    }
    free(q);
    return 0;
}

int ph_hop_distance(const ph_topo_t *t, int32_t src, int32_t *dist)
{
    int32_t n = t->n;
    if (src < 0 || src >= n)
        return -1;
    if (t->nnz == 0) {
        for (int32_t i = 0; i < n; i++)
            dist[i] = i > src ? i - src : src - i;
        return 0;
    }
    /* T lists in-neighbours (i receives from j); the wave runs j -> i: the reverse CSR.
     * The undirected graph (both ways) is the fallback for ranks the messages miss. */
    uint32_t *off = calloc((size_t)n + 1, sizeof(*off));
    uint32_t *uoff = calloc((size_t)n + 1, sizeof(*uoff));
    int32_t *nb = malloc((t->nnz ? t->nnz : 1) * sizeof(*nb)),
            *unb = malloc(2 * (t->nnz ? t->nnz : 1) * sizeof(*unb)),
            *ud = malloc((size_t)n * sizeof(*ud));
    int rc = -1;
    if (!off || !uoff || !nb || !unb || !ud)
        goto out;
    for (int32_t i = 0; i < n; i++)
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            off[t->nb[k] + 1]++;
            uoff[t->nb[k] + 1]++;
            uoff[i + 1]++;
        }
    for (int32_t i = 0; i < n; i++) {
        off[i + 1] += off[i];
        uoff[i + 1] += uoff[i];
    }
    {
        uint32_t *fill = calloc((size_t)n, sizeof(*fill));
        uint32_t *ufill = calloc((size_t)n, sizeof(*ufill));
        if (!fill || !ufill) {
            free(fill);
            free(ufill);
            goto out;
        }
        for (int32_t i = 0; i < n; i++)
            for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
                int32_t j = t->nb[k];
                nb[off[j] + fill[j]++] = i;
                unb[uoff[j] + ufill[j]++] = i;
                unb[uoff[i] + ufill[i]++] = j;
            }
        free(fill);
        free(ufill);
    }
    if (bfs_levels(n, off, nb, src, dist) != 0 || bfs_levels(n, uoff, unb, src, ud) != 0)
        goto out;
    for (int32_t i = 0; i < n; i++)
        if (dist[i] < 0)
            dist[i] = ud[i];
    rc = 0;
out:
    free(off);
    free(uoff);
    free(nb);
    free(unb);
    free(ud);
    return rc;
}

/* slope of y over x by least squares; NaN when x has no spread */
static double ls_slope(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    return sxx > 0 ? sxy / sxx : NAN;
}

/* neighbours either way of every rank (CSR); without edges the open chain i - 1, i + 1 */
static int sym_csr(const ph_topo_t *t, int32_t n, uint32_t **offp, int32_t **nbp)
{
    int chain = t == NULL || t->nnz == 0 || t->n != n;
    size_t cap = chain ? 2 * (size_t)n : 2 * t->nnz;
    uint32_t *off = calloc((size_t)n + 1, sizeof(*off)), *fill = calloc((size_t)n, sizeof(*fill));
    int32_t *nb = malloc((cap ? cap : 1) * sizeof(*nb));
    if (!off || !fill || !nb) {
        free(off);
        free(fill);
        free(nb);
        return -1;
    }
    for (int32_t i = 0; i < n; i++) {
        if (chain) {
            off[i + 1] += (i > 0) + (i + 1 < n);
            continue;
        }
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            off[i + 1]++;
            off[t->nb[k] + 1]++;
        }
    }
    for (int32_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    for (int32_t i = 0; i < n; i++) {
        if (chain) {
            if (i > 0)
                nb[off[i] + fill[i]++] = i - 1;
            if (i + 1 < n)
                nb[off[i] + fill[i]++] = i + 1;
            continue;
        }
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            int32_t j = t->nb[k];
            nb[off[i] + fill[i]++] = j;
            nb[off[j] + fill[j]++] = i;
        }
    }
    free(fill);
    *offp = off;
    *nbp = nb;
    return 0;
}

/* Per rank with >= 3 boundaries: the median iteration duration and the median absolute
 * deviation from it; the wave's per-rank figures start as "not reached". -1: out of memory. */
static int rank_spread(const ph_marks_t *m, double *med, double *mad, ph_wave_t *w)
{
    int32_t P = m->nranks;
    uint32_t maxn = 2;
    for (int32_t r = 0; r < P; r++)
        if (m->n[r] > maxn)
            maxn = m->n[r];
    int64_t *scr = malloc(maxn * sizeof(*scr));
    if (scr == NULL)
        return -1;
    for (int32_t r = 0; r < P; r++) {
        w->arrival_iter[r] = -1;
        w->arrival_ns[r] = 0;
        w->distance[r] = -1;
        w->idle_ns[r] = NAN;
        uint32_t n = m->n[r];
        if (n < 3)
            continue;
        const int64_t *t = m->t[r];
        med[r] = ph_median_diff(t, n, scr);
        for (uint32_t k = 0; k + 1 < n; k++) {
            int64_t d = t[k + 1] - t[k] - (int64_t)med[r];
            scr[k] = d < 0 ? -d : d;
        }
        qsort(scr, n - 1, sizeof(*scr), ph_cmp_i64);
        mad[r] = (double)scr[(n - 1) / 2];
    }
    free(scr);
    return 0;
}

/* How much longer than the rank's median iteration k of rank r took (ns). */
static double excess(const ph_marks_t *m, const double *med, int32_t r, uint32_t k)
{
    assert(k + 1 < m->n[r]);
    return (double)(m->t[r][k + 1] - m->t[r][k]) - med[r];
}

/* The source without one given: the largest excess of compute time (where the delay was
 * made), else of duration. *best gets the excess it was chosen by. -1: out of memory. */
static int pick_source(const ph_marks_t *m, const double *med, ph_wave_t *w, double *best)
{
    int32_t P = m->nranks;
    for (int32_t r = 0; m->comp != NULL && r < P; r++) {
        uint32_t n = m->n[r];
        if (n < 3 || m->comp[r] == NULL)
            continue;
        double *c = malloc((n - 1) * sizeof(*c));
        if (c == NULL)
            return -1;
        memcpy(c, m->comp[r], (n - 1) * sizeof(*c));
        double cmed = ph_median_of(c, n - 1);
        free(c);
        /* equal excesses (a delay that stays compute downstream): the earliest is the source */
        for (uint32_t k = 0; k + 1 < n; k++)
            if (m->comp[r][k] - cmed > *best ||
                (w->source >= 0 && m->comp[r][k] - cmed == *best &&
                 m->t[r][k] < m->t[w->source][w->source_iter])) {
                *best = m->comp[r][k] - cmed;
                w->source = r;
                w->source_iter = k;
            }
    }
    if (w->source >= 0)
        return 0;
    for (int32_t r = 0; r < P; r++)
        for (uint32_t k = 0; m->n[r] >= 3 && k + 1 < m->n[r]; k++) {
            double ex = excess(m, med, r, k);
            if (ex > *best) {
                *best = ex;
                w->source = r;
                w->source_iter = k;
            }
        }
    return 0;
}

/* The ranks with a distance, nearest first (a counting sort); their count. -1: out of
 * memory. */
static int by_distance(const int32_t *distance, int32_t P, int32_t *order, size_t *no)
{
    uint32_t *cnt = calloc((size_t)P + 1, sizeof(*cnt));
    if (cnt == NULL)
        return -1;
    *no = 0;
    for (int32_t r = 0; r < P; r++)
        if (distance[r] >= 0) {
            assert(distance[r] < P);
            cnt[distance[r] + 1]++;
            (*no)++;
        }
    for (int32_t d = 0; d < P; d++)
        cnt[d + 1] += cnt[d];
    for (int32_t r = 0; r < P; r++)
        if (distance[r] >= 0)
            order[cnt[distance[r]]++] = r;
    free(cnt);
    return 0;
}

/* The wave walks outwards hop by hop over the ranks in order (nearest first): a rank is
 * reached at its first delayed iteration within the slack after the earliest arrival among
 * its reached neighbours (soff, snb: both ways) one hop nearer the source. */
static void walk_out(const ph_marks_t *m, const double *med, const double *mad, double frac,
                     const int32_t *order, size_t no, const uint32_t *soff, const int32_t *snb,
                     ph_wave_t *w)
{
    const double best = w->source_excess_ns;
    w->arrival_iter[w->source] = (int32_t)w->source_iter;
    w->arrival_ns[w->source] = m->t[w->source][w->source_iter + 1];
    w->idle_ns[w->source] = best;
    for (size_t q = 0; q < no; q++) {
        int32_t r = order[q];
        /* nearer ranks first: the arrivals one hop nearer are settled when r is reached */
        assert(w->distance[r] >= 0 && (q == 0 || w->distance[order[q - 1]] <= w->distance[r]));
        uint32_t n = m->n[r];
        if (n < 3)
            continue;
        if (w->distance[r] > w->extent_hops)
            w->extent_hops = w->distance[r];
        if (r == w->source)
            continue;
        int64_t kp = -1;
        for (uint32_t e = soff[r]; e < soff[r + 1]; e++) {
            int32_t j = snb[e];
            if (w->distance[j] == w->distance[r] - 1 && w->arrival_iter[j] >= 0 &&
                (kp < 0 || w->arrival_iter[j] < kp))
                kp = w->arrival_iter[j];
        }
        if (kp < 0)
            continue;
        double thr = frac * best;
        if (5 * mad[r] > thr)
            thr = 5 * mad[r];
        for (uint32_t k = (uint32_t)kp; k + 1 < n && k <= (uint32_t)kp + PH_WAVE_SLACK; k++) {
            double ex = excess(m, med, r, k);
            if (ex > thr) {
                w->arrival_iter[r] = (int32_t)k;
                w->arrival_ns[r] = m->t[r][k + 1];
                w->idle_ns[r] = ex;
                break;
            }
        }
    }
}

/* Reach, speed and decay over the reached ranks; xs, yi, yt hold P values. */
static void fit(int32_t P, double *xs, double *yi, double *yt, ph_wave_t *w)
{
    size_t nx = 0;
    for (int32_t r = 0; r < P; r++) {
        if (w->arrival_iter[r] < 0)
            continue;
        w->reached++;
        if (w->distance[r] > w->reach_hops)
            w->reach_hops = w->distance[r];
        xs[nx] = (double)w->distance[r];
        yi[nx] = (double)w->arrival_iter[r];
        yt[nx] = (double)(w->arrival_ns[r] - w->arrival_ns[w->source]) * 1e-9;
        nx++;
    }
    w->found = w->reached >= 2;
    if (!w->found)
        return;
    /* arrival over distance; the speed is its inverse */
    double bi = ls_slope(xs, yi, nx), bt = ls_slope(xs, yt, nx);
    w->ranks_per_iter = bi > 0 ? 1 / bi : NAN;
    w->ranks_per_s = bt > 0 ? 1 / bt : NAN;
    /* the idle period over the distance, past the source */
    size_t nd = 0, n1 = 0;
    double a1 = 0;
    for (int32_t r = 0; r < P; r++)
        if (w->arrival_iter[r] >= 0 && w->distance[r] >= 1) {
            xs[nd] = (double)w->distance[r];
            yi[nd] = w->idle_ns[r];
            nd++;
            if (w->distance[r] == 1) {
                a1 += w->idle_ns[r];
                n1++;
            }
        }
    double sl = ls_slope(xs, yi, nd);
    if (!isnan(sl)) {
        w->decay_ns_per_hop = -sl;
        if (n1 > 0 && a1 > 0)
            w->decay_per_hop = -sl / (a1 / (double)n1);
    }
}

/* given >= 0: the source is rank given, iteration given_iter. */
static int wave_find(const ph_marks_t *m, const ph_topo_t *topo, double frac, int32_t given,
                     uint32_t given_iter, ph_wave_t *w)
{
    memset(w, 0, sizeof(*w));
    int32_t P = m->nranks;
    w->source = -1;
    w->ranks_per_iter = w->ranks_per_s = NAN;
    w->decay_ns_per_hop = w->decay_per_hop = NAN;
    w->directed = topo != NULL && topo->nnz > 0 && topo->n == P;
    w->arrival_iter = malloc((size_t)P * sizeof(*w->arrival_iter));
    w->arrival_ns = malloc((size_t)P * sizeof(*w->arrival_ns));
    w->distance = malloc((size_t)P * sizeof(*w->distance));
    w->idle_ns = malloc((size_t)P * sizeof(*w->idle_ns));
    double *med = calloc((size_t)P, sizeof(*med)), *mad = calloc((size_t)P, sizeof(*mad));
    double *xs = malloc((size_t)P * sizeof(*xs)), *yi = malloc((size_t)P * sizeof(*yi)),
           *yt = malloc((size_t)P * sizeof(*yt));
    int32_t *order = malloc((size_t)P * sizeof(*order));
    uint32_t *soff = NULL;
    int32_t *snb = NULL;
    size_t no = 0;
    double best = 0;
    int rc = -1;
    if (!w->arrival_iter || !w->arrival_ns || !w->distance || !w->idle_ns || !med || !mad ||
        !xs || !yi || !yt || !order || rank_spread(m, med, mad, w) != 0)
        goto out;
    rc = 0;
    if (given >= 0) {
        if (given >= P || m->n[given] < 3 || given_iter + 1 >= m->n[given])
            goto out;
        w->source = given;
        w->source_iter = given_iter;
    } else if (pick_source(m, med, w, &best) != 0) {
        rc = -1;
        goto out;
    }
    if (w->source < 0)
        goto out;
    double ex = excess(m, med, w->source, w->source_iter);
    best = ex > 0 ? ex : best;
    if (best <= 0) { /* a given source without an excess */
        w->source = -1;
        goto out;
    }
    w->source_excess_ns = best;
    if (ph_hop_distance(w->directed ? topo : &(ph_topo_t){.n = P}, w->source, w->distance) != 0 ||
        sym_csr(w->directed ? topo : NULL, P, &soff, &snb) != 0 ||
        by_distance(w->distance, P, order, &no) != 0) {
        rc = -1;
        goto out;
    }
    walk_out(m, med, mad, frac, order, no, soff, snb, w);
    fit(P, xs, yi, yt, w);
out:
    free(med);
    free(mad);
    free(xs);
    free(yi);
    free(yt);
    free(order);
    free(soff);
    free(snb);
    return rc;
}

int ph_wave_find(const ph_marks_t *m, const ph_topo_t *topo, double frac, ph_wave_t *w)
{
    return wave_find(m, topo, frac, -1, 0, w);
}

int ph_wave_find_at(const ph_marks_t *m, const ph_topo_t *topo, double frac, int32_t source,
                    uint32_t iter, ph_wave_t *w)
{
    return wave_find(m, topo, frac, source, iter, w);
}
