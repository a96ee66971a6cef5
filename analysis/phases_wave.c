/* phases_wave.c: the idle wave (phases.h, ph_wave_find): the delay's source, the hop
 * distances from it along the messages, the ranks it reached iteration by iteration, and its
 * speed and decay. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
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
 * deviation from it. -1: out of memory. */
static int rank_spread(const ph_marks_t *m, double *med, double *mad)
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

/* A possible source: (r, k) and the excess it was chosen by; t: its start (equal excesses,
 * the earliest first). */
typedef struct cand {
    int32_t r;
    uint32_t k;
    double ex;
    int64_t t;
} cand_t;

static int cand_better(const cand_t *a, const cand_t *b)
{
    if (a->ex != b->ex)
        return a->ex > b->ex;
    if (a->t != b->t)
        return a->t < b->t;
    return a->r < b->r;
}

static int cand_worse_at(const void *ctx, uint32_t a, uint32_t b) /* heap: the worst on top */
{
    const cand_t *c = ctx;
    return cand_better(&c[b], &c[a]);
}

static int cand_cmp(const void *a, const void *b) /* qsort: the best first */
{
    return cand_better(a, b) ? -1 : cand_better(b, a) ? 1 : 0;
}

/* The best PH_WAVE_CANDIDATES offered that clear their rank's noise, in a heap over c; top:
 * the best one offered at all (the source when none clears it). */
typedef struct cands {
    cand_t c[PH_WAVE_CANDIDATES];
    uint32_t h[PH_WAVE_CANDIDATES];
    size_t n;
    cand_t top;
} cands_t;

static void cand_offer(cands_t *cs, const ph_marks_t *m, int32_t r, uint32_t k, double ex,
                       int clears)
{
    cand_t x = {.r = r, .k = k, .ex = ex, .t = m->t[r][k]};
    if (ex <= 0)
        return;
    if (cs->top.r < 0 || cand_better(&x, &cs->top))
        cs->top = x;
    if (!clears)
        return;
    if (cs->n < PH_WAVE_CANDIDATES) {
        cs->c[cs->n] = x;
        heap_push(cs->h, &cs->n, (uint32_t)cs->n, cand_worse_at, cs->c);
    } else if (cand_better(&x, &cs->c[cs->h[0]])) {
        cs->c[cs->h[0]] = x;
        heap_sift_down(cs->h, cs->n, cand_worse_at, cs->c);
    }
}

/* Median and median absolute deviation of v[0..n) (scratch holds n). */
static void med_mad(const double *v, size_t n, double *scr, double *med, double *mad)
{
    memcpy(scr, v, n * sizeof(*scr));
    *med = ph_median_of(scr, n);
    for (size_t k = 0; k < n; k++)
        scr[k] = fabs(v[k] - *med);
    *mad = ph_median_of(scr, n);
}

/* The candidate sources, the best first, into c (PH_WAVE_CANDIDATES room); their count.
 * Excess of compute time where any rank has one (where the delay was made), else of
 * duration; either way the iteration must also be longer than the rank's noise (5 MAD of
 * its durations, the bar of an arrival): a rank that computed longer and waited less made
 * no delay, and walked from it a loaded machine's noise next door passes for a wave.
 * -1: out of memory. */
static int pick_candidates(const ph_marks_t *m, const double *med, const double *mad, cand_t *c,
                           size_t *nc)
{
    int32_t P = m->nranks;
    cands_t cs = {.n = 0, .top = {.r = -1}};
    uint32_t maxn = 2;
    for (int32_t r = 0; r < P; r++)
        maxn = m->n[r] > maxn ? m->n[r] : maxn;
    double *scr = malloc(maxn * sizeof(*scr));
    if (scr == NULL)
        return -1;
    for (int32_t r = 0; m->comp != NULL && r < P; r++) {
        uint32_t n = m->n[r];
        if (n < 3 || m->comp[r] == NULL)
            continue;
        double cmed, cmad;
        med_mad(m->comp[r], n - 1, scr, &cmed, &cmad);
        for (uint32_t k = 0; k + 1 < n; k++)
            cand_offer(&cs, m, r, k, m->comp[r][k] - cmed,
                       m->comp[r][k] - cmed > 5 * cmad && excess(m, med, r, k) > 5 * mad[r]);
    }
    for (int32_t r = 0; cs.top.r < 0 && r < P; r++)
        for (uint32_t k = 0; m->n[r] >= 3 && k + 1 < m->n[r]; k++)
            cand_offer(&cs, m, r, k, excess(m, med, r, k), excess(m, med, r, k) > 5 * mad[r]);
    free(scr);
    if (cs.n == 0 && cs.top.r >= 0)
        cs.c[cs.n++] = cs.top;
    memcpy(c, cs.c, cs.n * sizeof(*c));
    qsort(c, cs.n, sizeof(*c), cand_cmp);
    *nc = cs.n;
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

/* What every walk of one call shares: the per-rank spread, the neighbours either way and
 * scratch for the fits. */
typedef struct wctx {
    const ph_marks_t *m;
    const ph_topo_t *dtopo; /* the topology of the distances (no edges: |rank - source|) */
    double frac;
    double *med, *mad, *xs, *yi, *yt;
    int32_t *order;
    uint32_t *soff;
    int32_t *snb;
} wctx_t;

/* The idle time a wave brought to the ranks past its source: the ranks reached, each weighted
 * by the wait that arrived there, up to the source's excess (a delay cannot make a longer
 * wait: more is the rank's own noise, which on a loaded machine can be tens of ms). */
static double delivered(const ph_wave_t *w, int32_t P)
{
    double s = 0;
    for (int32_t r = 0; r < P; r++)
        if (w->arrival_iter[r] >= 0 && r != w->source)
            s += fmin(w->idle_ns[r], w->source_excess_ns);
    return s;
}

static void unreached(ph_wave_t *w, int32_t P)
{
    for (int32_t r = 0; r < P; r++) {
        w->arrival_iter[r] = -1;
        w->arrival_ns[r] = 0;
        w->distance[r] = -1;
        w->idle_ns[r] = NAN;
    }
}

/* The wave from rank src, iteration k into w (its arrays allocated); pick_ex: the excess
 * the source was picked by, for a source without a duration excess. A source without
 * either leaves source -1. 0, -1 out of memory. */
static int walk_from(const wctx_t *c, int32_t src, uint32_t k, double pick_ex, ph_wave_t *w)
{
    const ph_marks_t *m = c->m;
    int32_t P = m->nranks;
    w->found = 0;
    w->reached = 0;
    w->idle_delivered_ns = 0;
    w->reach_hops = w->extent_hops = 0;
    w->ranks_per_iter = w->ranks_per_s = NAN;
    w->decay_ns_per_hop = w->decay_per_hop = NAN;
    unreached(w, P);
    w->source = src;
    w->source_iter = k;
    double ex = excess(m, c->med, src, k);
    double best = ex > 0 ? ex : pick_ex;
    if (best <= 0) { /* a given source without an excess */
        w->source = -1;
        w->source_excess_ns = 0;
        return 0;
    }
    w->source_excess_ns = best;
    size_t no = 0;
    if (ph_hop_distance(c->dtopo, src, w->distance) != 0 ||
        by_distance(w->distance, P, c->order, &no) != 0)
        return -1;
    walk_out(m, c->med, c->mad, c->frac, c->order, no, c->soff, c->snb, w);
    fit(P, c->xs, c->yi, c->yt, w);
    w->idle_delivered_ns = delivered(w, P);
    return 0;
}

/* Candidate a's wave before b's: the idle time delivered first, then ranks, hops and the
 * candidates' own order (excess). */
static int stronger(const ph_wave_t *sum, size_t a, size_t b)
{
    if (sum[a].idle_delivered_ns != sum[b].idle_delivered_ns)
        return sum[a].idle_delivered_ns > sum[b].idle_delivered_ns;
    if (sum[a].reached != sum[b].reached)
        return sum[a].reached > sum[b].reached;
    if (sum[a].reach_hops != sum[b].reach_hops)
        return sum[a].reach_hops > sum[b].reach_hops;
    return a < b;
}

/* The sources of c walked one by one; w ends with the chosen one's wave. The summaries and
 * the K x K "i's wave reached j's source" table are all that is kept between walks: memory
 * O(P), time K + 1 walks of O(P + edges) each, small beside finding the K (all iterations). */
static int choose(const wctx_t *cx, const cand_t *c, size_t nc, ph_wave_t *w)
{
    ph_wave_t sum[PH_WAVE_CANDIDATES]; /* scalars only */
    unsigned char on[PH_WAVE_CANDIDATES][PH_WAVE_CANDIDATES] = {{0}};
    assert(nc >= 1 && nc <= PH_WAVE_CANDIDATES);
    for (size_t i = 0; i < nc; i++) {
        if (walk_from(cx, c[i].r, c[i].k, c[i].ex, w) != 0)
            return -1;
        sum[i] = *w;
        for (size_t j = 0; j < nc; j++)
            on[i][j] = j != i && c[j].r != c[i].r && c[j].ex <= c[i].ex &&
                       w->arrival_iter[c[j].r] == (int32_t)c[j].k;
    }
    /* an arrival of another candidate's wave is not a source (reached both ways: the
     * earlier is); a larger delay is never another's arrival: walked with the low bar of a
     * small excess, a wave can run into it within the slack */
    unsigned char left[PH_WAVE_CANDIDATES];
    size_t win = nc;
    for (size_t j = 0; j < nc; j++) {
        left[j] = 1;
        for (size_t i = 0; i < nc; i++)
            if (on[i][j] && !(on[j][i] && j < i))
                left[j] = 0;
        if (left[j] && (win == nc || stronger(sum, j, win)))
            win = j;
    }
    if (win == nc) /* a cycle of equal excesses reaching each other: the strongest of all */
        for (size_t j = 0; j < nc; j++)
            if (win == nc || stronger(sum, j, win))
                win = j;
    if (win != nc - 1 && walk_from(cx, c[win].r, c[win].k, c[win].ex, w) != 0)
        return -1;
    w->candidates = (uint32_t)nc;
    /* the runner-up: another delay, not this wave seen again (the source's own next
     * iterations included) */
    size_t ru = nc;
    for (size_t j = 0; j < nc; j++) {
        int32_t a = w->arrival_iter[c[j].r];
        if (j == win || !left[j] ||
            (a >= 0 && llabs((long long)a - (long long)c[j].k) <= PH_WAVE_SLACK))
            continue;
        if (ru == nc || stronger(sum, j, ru))
            ru = j;
    }
    if (ru < nc) {
        w->runner_up_source = c[ru].r;
        w->runner_up_iter = c[ru].k;
        w->runner_up_reached = sum[ru].reached;
        w->runner_up_idle_ns = sum[ru].idle_delivered_ns;
    }
    if (w->found && w->idle_delivered_ns > 0)
        w->confidence = 1 - w->runner_up_idle_ns / w->idle_delivered_ns;
    return 0;
}

/* given >= 0: the source is rank given, iteration given_iter. */
static int wave_find(const ph_marks_t *m, const ph_topo_t *topo, double frac, int32_t given,
                     uint32_t given_iter, ph_wave_t *w)
{
    memset(w, 0, sizeof(*w));
    int32_t P = m->nranks;
    w->source = w->runner_up_source = -1;
    w->ranks_per_iter = w->ranks_per_s = NAN;
    w->decay_ns_per_hop = w->decay_per_hop = NAN;
    w->confidence = NAN;
    w->directed = topo != NULL && topo->nnz > 0 && topo->n == P;
    w->arrival_iter = malloc((size_t)P * sizeof(*w->arrival_iter));
    w->arrival_ns = malloc((size_t)P * sizeof(*w->arrival_ns));
    w->distance = malloc((size_t)P * sizeof(*w->distance));
    w->idle_ns = malloc((size_t)P * sizeof(*w->idle_ns));
    const ph_topo_t chain = {.n = P};
    wctx_t cx = {.m = m, .dtopo = w->directed ? topo : &chain, .frac = frac};
    cx.med = calloc((size_t)P, sizeof(*cx.med));
    cx.mad = calloc((size_t)P, sizeof(*cx.mad));
    cx.xs = malloc((size_t)P * sizeof(*cx.xs));
    cx.yi = malloc((size_t)P * sizeof(*cx.yi));
    cx.yt = malloc((size_t)P * sizeof(*cx.yt));
    cx.order = malloc((size_t)P * sizeof(*cx.order));
    cand_t c[PH_WAVE_CANDIDATES];
    size_t nc = 0;
    int rc = -1;
    if (!w->arrival_iter || !w->arrival_ns || !w->distance || !w->idle_ns || !cx.med ||
        !cx.mad || !cx.xs || !cx.yi || !cx.yt || !cx.order ||
        rank_spread(m, cx.med, cx.mad) != 0 ||
        sym_csr(w->directed ? topo : NULL, P, &cx.soff, &cx.snb) != 0)
        goto out;
    unreached(w, P); /* also when no walk runs */
    if (given >= 0) {
        rc = 0;
        if (given >= P || m->n[given] < 3 || given_iter + 1 >= m->n[given])
            goto out;
        rc = walk_from(&cx, given, given_iter, 0, w);
        goto out;
    }
    if (pick_candidates(m, cx.med, cx.mad, c, &nc) != 0)
        goto out;
    rc = nc == 0 ? 0 : choose(&cx, c, nc, w);
out:
    free(cx.med);
    free(cx.mad);
    free(cx.xs);
    free(cx.yi);
    free(cx.yt);
    free(cx.order);
    free(cx.soff);
    free(cx.snb);
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
