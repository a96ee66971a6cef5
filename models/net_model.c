/* net_model.c: network models fitted to probe samples (see net_model.h, doc/models.md). */
#include "net_model.h"
#include "pstat.h"
#include "why.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const double pnm_qprob[PNM_NQ] = {0, 0.10, 0.25, 0.50, 0.75, 0.90, 1};

const char *pnm_kind_name(pnm_kind_t k)
{
    switch (k) {
    case PNM_LOOKUP: return "lookup";
    case PNM_HOCKNEY: return "hockney";
    case PNM_LOGGP: return "loggp";
    }
    return "?";
}

int pnm_kind_parse(const char *s)
{
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++)
        if (strcmp(s, pnm_kind_name((pnm_kind_t)k)) == 0)
            return k;
    return -1;
}

int pnm_opts_parse_breaks(const char *s, pnm_opts_t *o)
{
    o->detect = 0;
    o->nbreak = 0;
    if (strcmp(s, "study") == 0)
        return 0;
    if (strcmp(s, "detect") == 0) {
        o->detect = 1;
        return 0;
    }
    const char *p = s;
    while (*p) {
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || (*end && (*end != ',' || end[1] == '\0')) || v == 0 ||
            o->nbreak == PNM_MAXSEG - 1 ||
            (o->nbreak > 0 && v <= o->breaks[o->nbreak - 1]))
            return -1;
        o->breaks[o->nbreak++] = (uint64_t)v;
        p = *end ? end + 1 : end;
    }
    return o->nbreak > 0 ? 0 : -1;
}

const char *pnm_strerror(pnm_err_t e)
{
    switch (e) {
    case PNM_OK: return "ok";
    case PNM_E_NOMEM: return "out of memory";
    case PNM_E_NODATA: return "no samples to fit";
    case PNM_E_ARG: return "invalid samples";
    }
    return "?";
}

static pnm_err_t fail(pnm_err_t e, char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static pnm_err_t fail(pnm_err_t e, char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    why_vset(why, cap, fmt, ap);
    va_end(ap);
    return e;
}

static int cmp_sample(const void *x, const void *y)
{
    const pnm_sample_t *a = x, *b = y;
    if (a->src != b->src)
        return (a->src > b->src) - (a->src < b->src);
    if (a->dst != b->dst)
        return (a->dst > b->dst) - (a->dst < b->dst); /* -1 (pooled) first */
    return (a->bytes > b->bytes) - (a->bytes < b->bytes);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

void pnm_free(pnm_model_t *m)
{
    if (!m)
        return;
    free(m->s);
    free(m->sizes);
    free(m->hock);
    free(m->lgp);
    free(m->src_first);
    free(m->src_end);
    free(m->srcs);
    if (m->oneway) {
        pnm_free(m->oneway);
        free(m->oneway);
    }
    memset(m, 0, sizeof(*m));
}

const pnm_model_t *pnm_way(const pnm_model_t *m, int twoway)
{
    return !twoway && m->oneway ? m->oneway : m;
}

/* ---- per-source medians by size (pooled entries, or the median of its pairs') ---- */

typedef struct curve {
    size_t n;
    uint64_t *x;
    double *t;
} curve_t;

static int source_curve(const pnm_model_t *m, int32_t src, curve_t *c)
{
    c->n = 0;
    c->x = malloc((m->nsizes + 1) * sizeof(*c->x));
    c->t = malloc((m->nsizes + 1) * sizeof(*c->t));
    double *tmp = malloc((m->n + 1) * sizeof(double));
    if (!c->x || !c->t || !tmp) {
        free(tmp);
        return -1;
    }
    size_t a = src >= 0 ? m->src_first[src] : 0, b = src >= 0 ? m->src_end[src] : m->n;
    for (size_t z = 0; z < m->nsizes; z++) {
        uint64_t size = m->sizes[z];
        double pooled = NAN;
        size_t k = 0;
        for (size_t i = a; i < b; i++) {
            if (m->s[i].bytes != size)
                continue;
            if (m->s[i].dst < 0 && src >= 0)
                pooled = m->s[i].q.v[PNM_Q50];
            else if (src < 0 ? m->s[i].dst < 0 : 1)
                tmp[k++] = m->s[i].q.v[PNM_Q50];
        }
        double v = pooled;
        if (isnan(v) && k > 0) {
            qsort(tmp, k, sizeof(double), pstat_cmp_double);
            v = pstat_quantile(tmp, k, 0.5);
        }
        if (!isnan(v)) {
            c->x[c->n] = size;
            c->t[c->n++] = v;
        }
    }
    free(tmp);
    return 0;
}

static void curve_free(curve_t *c)
{
    free(c->x);
    free(c->t);
}

static double curve_at(const curve_t *c, uint64_t x)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->x[i] == x)
            return c->t[i];
    return NAN;
}

/* least squares t = a + b x over points [i, j) */
static void lsq(const curve_t *c, size_t i, size_t j, double *a, double *b, double *rms)
{
    size_t n = j - i;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t k = i; k < j; k++) {
        double x = (double)c->x[k], y = c->t[k];
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    double d = (double)n * sxx - sx * sx;
    if (n < 2 || d == 0) {
        *b = 0;
        *a = n ? sy / (double)n : 0;
    } else {
        *b = ((double)n * sxy - sx * sy) / d;
        *a = (sy - *b * sx) / (double)n;
    }
    double r = 0;
    for (size_t k = i; k < j; k++) {
        double e = c->t[k] - (*a + *b * (double)c->x[k]);
        r += e * e;
    }
    *rms = n ? sqrt(r / (double)n) : 0;
}

/* The study's three regions (science.md §2), from its five sizes. */
static int hockney_study(const curve_t *c, pnm_hockney_src_t *h)
{
    double t4 = curve_at(c, 4096), t16 = curve_at(c, 16384), t64 = curve_at(c, 65536),
           t128 = curve_at(c, 131072), t1m = curve_at(c, 1048576);
    if (isnan(t4) || isnan(t16) || isnan(t64) || isnan(t128) || isnan(t1m))
        return -1;
    h->nseg = 3;
    h->hi[0] = 8192;
    h->a[0] = t4;
    h->b[0] = 0;
    h->hi[1] = 131072;
    h->b[1] = (t64 - t16) / (65536.0 - 16384.0);
    h->a[1] = t16 - h->b[1] * 16384.0;
    h->hi[2] = UINT64_MAX;
    h->b[2] = (t1m - t128) / (1048576.0 - 131072.0);
    h->a[2] = t128 - h->b[2] * 131072.0;
    return 0;
}

/* The end of the points from i on whose sizes are <= hi. */
static size_t points_upto(const curve_t *c, size_t i, uint64_t hi)
{
    while (i < c->n && c->x[i] <= hi)
        i++;
    return i;
}

/* Segment s without points: the line of the one below (a[s - 1], b[s - 1]); the first: the
 * first point's time, as a constant. */
static void line_below(const curve_t *c, double *a, double *b, int s)
{
    if (s > 0) {
        a[s] = a[s - 1];
        b[s] = b[s - 1];
    } else {
        a[s] = c->t[0];
        b[s] = 0;
    }
}

/* Segments between given breakpoints: a least-squares line over each segment's points
 * (one point: a constant; none: the previous segment's line). */
static int hockney_breaks(const curve_t *c, const uint64_t *br, int nb, pnm_hockney_src_t *h)
{
    if (c->n == 0)
        return -1;
    h->nseg = nb + 1;
    size_t i = 0;
    for (int s = 0; s <= nb; s++) {
        const uint64_t hi = s < nb ? br[s] : UINT64_MAX;
        const size_t j = points_upto(c, i, hi);
        h->hi[s] = hi;
        double rms;
        if (j > i)
            lsq(c, i, j, &h->a[s], &h->b[s], &rms);
        else
            line_below(c, h->a, h->b, s);
        i = j;
    }
    return 0;
}

/* Detected segments: grow a segment point by point; a point that doubles the fit's residual
 * (over a floor of 1% of the mean time, so noise-free lines don't split on rounding)
 * starts a new one (Netgauge's rule, science.md §2). */
static int hockney_detect(const curve_t *c, pnm_hockney_src_t *h)
{
    if (c->n == 0)
        return -1;
    h->nseg = 0;
    size_t i = 0;
    while (i < c->n && h->nseg < PNM_MAXSEG) {
        size_t j = i + (c->n - i >= 2 ? 2 : 1);
        double a, b, rms;
        lsq(c, i, j, &a, &b, &rms);
        while (j < c->n) {
            double a2, b2, rms2, mean = 0;
            lsq(c, i, j + 1, &a2, &b2, &rms2);
            for (size_t k = i; k <= j; k++)
                mean += c->t[k];
            mean /= (double)(j + 1 - i);
            double floor_ = 0.01 * mean;
            if (rms2 > 2 * fmax(rms, floor_) && h->nseg + 1 < PNM_MAXSEG)
                break;
            a = a2;
            b = b2;
            rms = rms2;
            j++;
        }
        h->a[h->nseg] = a;
        h->b[h->nseg] = b;
        h->hi[h->nseg] = j < c->n ? c->x[j - 1] : UINT64_MAX;
        h->nseg++;
        i = j;
    }
    h->hi[h->nseg - 1] = UINT64_MAX;
    return 0;
}

static int fit_hockney(const curve_t *c, const pnm_opts_t *o, pnm_hockney_src_t *h)
{
    memset(h, 0, sizeof(*h));
    if (o && o->detect)
        return hockney_detect(c, h);
    if (o && o->nbreak > 0)
        return hockney_breaks(c, o->breaks, o->nbreak, h);
    if (hockney_study(c, h) == 0)
        return 0;
    static const uint64_t study[2] = {8192, 131072}; /* other sizes: the study's regions */
    return hockney_breaks(c, study, 2, h);
}

static double hockney_eval(const pnm_hockney_src_t *h, uint64_t n)
{
    for (int s = 0; s < h->nseg; s++)
        if (n <= h->hi[s] || s == h->nseg - 1)
            return fmax(0, h->a[s] + h->b[s] * (double)n);
    return NAN;
}

/* Least squares of t = a + b x over points [i, j) with the line through anchor (x, t). */
static void lsq_through(const curve_t *c, size_t i, size_t j, const double *anchor, double *a,
                        double *b, double *rms)
{
    double sxx = 0, sxy = 0;
    for (size_t k = i; k < j; k++) {
        double x = (double)c->x[k] - anchor[0], y = c->t[k] - anchor[1];
        sxx += x * x;
        sxy += x * y;
    }
    *b = sxx > 0 ? sxy / sxx : 0;
    *a = anchor[1] - *b * anchor[0];
    double r = 0;
    for (size_t k = i; k < j; k++) {
        double e = c->t[k] - (*a + *b * (double)c->x[k]);
        r += e * e;
    }
    *rms = j > i ? sqrt(r / (double)(j - i)) : 0;
}

/* A band's line, through anchor when given (else a free line; one point: a constant). */
static void band_line(const curve_t *c, size_t i, size_t j, const double *anchor, double *a,
                      double *b, double *rms)
{
    if (anchor)
        lsq_through(c, i, j, anchor, a, b, rms);
    else
        lsq(c, i, j, a, b, rms);
}

/* L + 2o of the eager band b below the rendezvous limit: its line at 0 bytes, or the first
 * band's where that is not above 0 (a band anchored to the one below, steeper than it). */
static double eager_l2o(const pnm_loggp_t *g, int b)
{
    return g->L2o[b] > 0 ? g->L2o[b] : fmax(0, g->L2o[0]);
}

/* The handshake 2 L + 2 o from the jump measured at the eager limit, with E = L + 2 o of
 * the band below: L = H - E and o = E - H / 2 are >= 0 only for H in [E, 2 E], so a jump
 * outside is held at the bound (the rest is the line above's slope); none measured: 2 E,
 * o = 0 (L and o not told apart, doc/models.md). */
static double hold_handshake(double jump, int measured, double E, int *split)
{
    if (!measured) {
        *split = PNM_LO_SPLIT_NONE;
        return 2 * E;
    }
    *split = jump < E || jump > 2 * E ? PNM_LO_SPLIT_BOUND : PNM_LO_SPLIT_FIT;
    return fmin(2 * E, fmax(E, jump));
}

/* Band b of g ends at rndv on the line (a0, b0) (in n - 1); the sizes [k, j) of d above it
 * get a band of their own, their line starting at the eager line's value at rndv plus the
 * handshake and its slope fitted through that point (one size: the line to it; none: the
 * eager slope), so that the slope above (often the bandwidth limit) does not price the eager
 * sizes and no jump but the handshake's is free. Stored less the handshake, which
 * loggp_eval adds above rndv. */
static void split_band(pnm_loggp_t *g, int b, uint64_t rndv, double a0, double b0, double H,
                       const curve_t *d, size_t k, size_t j)
{
    const double xr = (double)(rndv - 1);
    const double anchor[2] = {xr, a0 + b0 * xr + H};
    double a1, b1, rms;
    if (j > k) {
        lsq_through(d, k, j, anchor, &a1, &b1, &rms);
    } else {
        b1 = b0;
        a1 = anchor[1] - b1 * xr;
    }
    g->rndv = rndv;
    g->handshake = H;
    g->L2o[b] = a0;
    g->G[b] = b0;
    g->band_hi[b] = rndv;
    g->band_hi[b + 1] = UINT64_MAX;
    g->L2o[b + 1] = a1 - H;
    g->G[b + 1] = b1;
    g->nband++;
}

/* L and o of every band, once the lines are final: one L, o per band from its line at 0
 * bytes (0 where that lies below L); above rndv the o that makes the handshake 2 L + 2 o. */
static void loggp_split(pnm_loggp_t *g, double E, int split)
{
    double L = g->rndv ? (split == PNM_LO_SPLIT_NONE ? E : g->handshake - E) : fmax(0, g->L2o[0]);
    if (!g->rndv)
        split = PNM_LO_SPLIT_NONE;
    int rb = 0; /* the band of rndv + 1 */
    while (g->rndv && rb < g->nband - 1 && g->rndv + 1 > g->band_hi[rb])
        rb++;
    g->lo_split = split;
    for (int b = 0; b < g->nband; b++) {
        g->L[b] = L;
        g->o[b] = split == PNM_LO_SPLIT_NONE ? 0 : fmax(0, (g->L2o[b] - L) / 2);
        if (g->rndv && b == rb)
            g->o[b] = fmax(0, g->handshake / 2 - L);
    }
}

/* Bands are one continuous line broken at the band edges: each band's line starts where the
 * band below ends when that band was measured (fitted through that point), so a message just
 * above an edge costs what one just below does, however few sizes the band has. Fitted freely, the last band of a
 * quick probe (16 KiB..1 MiB, the largest deciding) met 0 below 16 KiB, and its clamped
 * intercept priced 8 KiB at 14x the 4 KiB time (doc/models.md). Only the rendezvous
 * handshake jumps, by 2 L + 2 o. */
static int fit_loggp(const curve_t *c, const pnm_opts_t *o, pnm_loggp_t *g)
{
    memset(g, 0, sizeof(*g));
    if (c->n == 0)
        return -1;
    static const uint64_t dflt[2] = {1024, 4096};
    const uint64_t *bands = o && o->nbands > 0 ? o->bands : dflt;
    int nb = o && o->nbands > 0 ? o->nbands : 2;
    g->nband = nb + 1;
    g->g = c->t[0];
    /* curve in (n - 1) for the fits */
    curve_t d = {c->n, malloc(c->n * sizeof(uint64_t)), c->t};
    if (!d.x)
        return -1;
    for (size_t k = 0; k < c->n; k++)
        d.x[k] = c->x[k] ? c->x[k] - 1 : 0;
    size_t i = 0;
    int split = 0, below = 0, lo = PNM_LO_SPLIT_NONE;
    double E = 0;
    for (int b = 0; b < g->nband && !split; b++) {
        const uint64_t hi = b < nb ? bands[b] : UINT64_MAX;
        const size_t j = points_upto(c, i, hi);
        g->band_hi[b] = hi;
        double anchor[2], *an = NULL, rms;
        if (below) { /* where the band below, if measured, ends */
            anchor[0] = (double)(bands[b - 1] - 1);
            anchor[1] = fmax(0, g->L2o[b - 1] + g->G[b - 1] * anchor[0]);
            an = anchor;
        }
        if (j > i)
            band_line(&d, i, j, an, &g->L2o[b], &g->G[b], &rms);
        else
            line_below(c, g->L2o, g->G, b);
        /* the rendezvous handshake at the library's eager size, when known: in the last
         * band, with a size measured below it; the jump is the free line's above it where
         * they meet the eager size (one size above: that size's distance from the eager
         * line; none: not measured) */
        size_t k_r = i;
        while (k_r < j && o && o->rndv && c->x[k_r] <= o->rndv)
            k_r++;
        if (b == g->nband - 1 && o && o->rndv && k_r > i && g->nband < PNM_MAXBAND) {
            double a0, b0, r0;
            band_line(&d, i, k_r, an, &a0, &b0, &r0);
            g->L2o[b] = a0; /* what eager_l2o reads */
            const double x_r = (double)(o->rndv - 1);
            double jump = 0;
            if (j - k_r >= 2) {
                double a1, b1, r1;
                lsq(&d, k_r, j, &a1, &b1, &r1);
                jump = (a1 + b1 * x_r) - (a0 + b0 * x_r);
            } else if (j - k_r == 1) {
                jump = d.t[k_r] - (a0 + b0 * (double)d.x[k_r]);
            }
            E = eager_l2o(g, b);
            double H = hold_handshake(jump, j > k_r, E, &lo);
            split_band(g, b, o->rndv, a0, b0, H, &d, k_r, j);
            split = 1;
        }
        /* the rendezvous handshake: in the last band, the first point that jumps above
         * the line through the points before it by a latency's worth (half the smallest
         * band's intercept: a round trip of L + 2o is what it adds), well above the fit's
         * noise and 2% of its time */
        if (!split && b == g->nband - 1 && j - i >= 4) {
            for (size_t k = i + 2; k < j; k++) {
                double a0, b0, r0;
                band_line(&d, i, k, an, &a0, &b0, &r0);
                double pred = a0 + b0 * (double)d.x[k];
                double jump = d.t[k] - pred;
                if (jump > 0.5 * g->L2o[0] && jump > 0.02 * d.t[k] && jump > 3 * r0) {
                    const uint64_t rndv = c->x[k - 1];
                    const double x_r = (double)(rndv - 1);
                    if (j - k >= 2) { /* the free line above, where it meets rndv */
                        double a1, b1, r1;
                        lsq(&d, k, j, &a1, &b1, &r1);
                        jump = (a1 + b1 * x_r) - (a0 + b0 * x_r);
                    }
                    g->L2o[b] = a0;
                    g->G[b] = b0;
                    E = eager_l2o(g, b);
                    double H = hold_handshake(jump, 1, E, &lo);
                    if (g->nband < PNM_MAXBAND) {
                        split_band(g, b, rndv, a0, b0, H, &d, k, j);
                        split = 1;
                    } else { /* no band left: the sizes above on the eager slope */
                        g->rndv = rndv;
                        g->handshake = H;
                    }
                    break;
                }
            }
        }
        below = j > i;
        i = j;
    }
    /* noisy samples can tilt a line downwards: G is a rate, so not below 0 (the band then
     * flat at its start), and no band starts below 0 (doc/models.md) */
    for (int b = 0; b < g->nband; b++) {
        double x0 = b > 0 ? (double)(g->band_hi[b - 1] - 1) : 0;
        if (g->G[b] < 0) {
            g->L2o[b] += g->G[b] * x0;
            g->G[b] = 0;
        }
        if (g->L2o[b] + g->G[b] * x0 < 0)
            g->L2o[b] = -g->G[b] * x0;
    }
    loggp_split(g, E, lo);
    free(d.x);
    return 0;
}

static double loggp_eval(const pnm_loggp_t *g, uint64_t n)
{
    int b = 0;
    while (b < g->nband - 1 && n > g->band_hi[b])
        b++;
    double t = g->L2o[b] + g->G[b] * (double)(n ? n - 1 : 0);
    if (g->rndv && n > g->rndv)
        t += g->handshake;
    return fmax(0, t);
}

static const pnm_loggp_t *loggp_of(const pnm_model_t *m, int32_t src)
{
    return src >= 0 && src < m->nranks && m->lgp[src].nband ? &m->lgp[src] : &m->lgp_all;
}

/* ---- fitting ---- */

static int valid_q(const pnm_q_t *q)
{
    if (q->n == 0)
        return 0;
    for (int i = 0; i < PNM_NQ; i++)
        if (!isfinite(q->v[i]) || q->v[i] < 0 || (i && q->v[i] < q->v[i - 1]))
            return 0;
    return isfinite(q->mean);
}

static pnm_err_t fit_one(pnm_kind_t kind, const pnm_samples_t *in, const pnm_opts_t *o,
                         pnm_model_t *m, char *why, size_t cap);

/* Both ways in the samples: the exchanges make the model, the one-way samples its oneway
 * part; one way only: the model. */
pnm_err_t pnm_fit(pnm_kind_t kind, const pnm_samples_t *in, const pnm_opts_t *o,
                  pnm_model_t *m, char *why, size_t cap)
{
    memset(m, 0, sizeof(*m));
    size_t nw[2] = {0, 0};
    for (size_t i = 0; i < in->n; i++) {
        if (in->s[i].way != PNM_EXCHANGE && in->s[i].way != PNM_ONEWAY)
            return fail(PNM_E_ARG, why, cap, "sample %zu: direction %d is neither exchange "
                        "(0) nor one way (1)", i, in->s[i].way);
        nw[in->s[i].way]++;
    }
    if (nw[PNM_EXCHANGE] == 0 || nw[PNM_ONEWAY] == 0)
        return fit_one(kind, in, o, m, why, cap);
    pnm_sample_t *part = malloc(in->n * sizeof(*part));
    pnm_model_t *ow = calloc(1, sizeof(*ow));
    if (!part || !ow) {
        free(part);
        free(ow);
        return fail(PNM_E_NOMEM, why, cap, "out of memory");
    }
    pnm_err_t e = PNM_OK;
    for (int w = PNM_EXCHANGE; w <= PNM_ONEWAY && e == PNM_OK; w++) {
        size_t k = 0;
        for (size_t i = 0; i < in->n; i++)
            if (in->s[i].way == w)
                part[k++] = in->s[i];
        pnm_samples_t sub = {in->nranks, in->mode, k, part};
        char w2[200];
        e = fit_one(kind, &sub, o, w == PNM_EXCHANGE ? m : ow, w2, sizeof(w2));
        if (e != PNM_OK)
            fail(e, why, cap, "%s samples: %s", w == PNM_EXCHANGE ? "exchange" : "one-way", w2);
    }
    free(part);
    if (e != PNM_OK) {
        pnm_free(m);
        pnm_free(ow);
        free(ow);
        return e;
    }
    m->oneway = ow;
    return PNM_OK;
}

static pnm_err_t fit_one(pnm_kind_t kind, const pnm_samples_t *in, const pnm_opts_t *o,
                         pnm_model_t *m, char *why, size_t cap)
{
    memset(m, 0, sizeof(*m));
    if (kind < PNM_LOOKUP || kind > PNM_LOGGP)
        return fail(PNM_E_ARG, why, cap, "unknown model kind %d", (int)kind);
    if (in->nranks <= 0 || in->n == 0)
        return fail(PNM_E_NODATA, why, cap, "no samples");
    for (size_t i = 0; i < in->n; i++) {
        const pnm_sample_t *s = &in->s[i];
        if (s->src < 0 || s->src >= in->nranks || s->dst < -1 || s->dst >= in->nranks ||
            s->dst == s->src)
            return fail(PNM_E_ARG, why, cap, "sample %zu: ranks %d -> %d outside 0..%d", i,
                        (int)s->src, (int)s->dst, (int)in->nranks - 1);
        if (!valid_q(&s->q))
            return fail(PNM_E_ARG, why, cap, "sample %zu (%d -> %d, %llu B): quantiles not "
                        "finite, negative or decreasing", i, (int)s->src, (int)s->dst,
                        (unsigned long long)s->bytes);
    }
    m->kind = kind;
    m->nranks = in->nranks;
    m->mode = in->mode;
    m->way = in->n ? in->s[0].way : PNM_EXCHANGE;
    m->n = in->n;
    m->s = malloc(in->n * sizeof(*m->s));
    m->sizes = malloc(in->n * sizeof(*m->sizes));
    m->src_first = calloc((size_t)in->nranks, sizeof(size_t));
    m->src_end = calloc((size_t)in->nranks, sizeof(size_t));
    if (!m->s || !m->sizes || !m->src_first || !m->src_end) {
        pnm_free(m);
        return fail(PNM_E_NOMEM, why, cap, "out of memory");
    }
    memcpy(m->s, in->s, in->n * sizeof(*m->s));
    qsort(m->s, m->n, sizeof(*m->s), cmp_sample);
    for (size_t i = 0; i < m->n; i++)
        m->sizes[i] = m->s[i].bytes;
    qsort(m->sizes, m->n, sizeof(uint64_t), cmp_u64);
    size_t w = 0;
    for (size_t i = 0; i < m->n; i++)
        if (w == 0 || m->sizes[i] != m->sizes[w - 1])
            m->sizes[w++] = m->sizes[i];
    m->nsizes = w;
    for (size_t i = m->n; i-- > 0;)
        m->src_first[m->s[i].src] = i;
    for (size_t i = 0; i < m->n; i++)
        m->src_end[m->s[i].src] = i + 1;
    /* the sources with samples, in order: what the global fallback pools, without a walk
     * over a world of which a run may have measured a handful (a log read alone) */
    for (size_t i = 0; i < m->n; i++)
        if (i == 0 || m->s[i].src != m->s[i - 1].src)
            m->nsrcs++;
    m->srcs = malloc(((size_t)m->nsrcs + 1) * sizeof(*m->srcs));
    if (!m->srcs) {
        pnm_free(m);
        return PNM_E_NOMEM;
    }
    for (size_t i = 0, k = 0; i < m->n; i++)
        if (i == 0 || m->s[i].src != m->s[i - 1].src)
            m->srcs[k++] = m->s[i].src;

    if (kind == PNM_LOOKUP)
        return PNM_OK;
    size_t nr = (size_t)m->nranks;
    if (kind == PNM_HOCKNEY)
        m->hock = calloc(nr, sizeof(*m->hock));
    else
        m->lgp = calloc(nr, sizeof(*m->lgp));
    if (!m->hock && !m->lgp) {
        pnm_free(m);
        return fail(PNM_E_NOMEM, why, cap, "out of memory");
    }
    curve_t c;
    int any = 0;
    for (int32_t r = -1; r < m->nranks; r++) { /* -1: every source, the fallback */
        if (r >= 0 && m->src_end[r] == 0)
            continue;
        if (source_curve(m, r, &c) != 0) {
            curve_free(&c);
            pnm_free(m);
            return fail(PNM_E_NOMEM, why, cap, "out of memory");
        }
        int rc = kind == PNM_HOCKNEY ? fit_hockney(&c, o, r >= 0 ? &m->hock[r] : &m->hock_all)
                                     : fit_loggp(&c, o, r >= 0 ? &m->lgp[r] : &m->lgp_all);
        any |= rc == 0;
        curve_free(&c);
    }
    if (!any) {
        pnm_free(m);
        return fail(PNM_E_NODATA, why, cap, "no source has samples to fit a %s model",
                    pnm_kind_name(kind));
    }
    return PNM_OK;
}

/* ---- evaluation ---- */

/* samples [a, b) of one (src, dst) sorted by size: quantiles at `bytes`, log-log between
 * the two sizes around it, the smallest size's below (the latency floor), and beyond the
 * largest the last two sizes' line in bytes (bandwidth-bound). 0 if none. */
static int interp(const pnm_sample_t *s, size_t a, size_t b, uint64_t bytes, pnm_q_t *out)
{
    if (a >= b)
        return 0;
    size_t k = a;
    while (k < b && s[k].bytes < bytes)
        k++;
    memset(out, 0, sizeof(*out));
    if (k < b && s[k].bytes == bytes) {
        *out = s[k].q;
        return 1;
    }
    if (k == a) { /* below the smallest */
        *out = s[a].q;
        return 1;
    }
    if (k == b) { /* above the largest */
        const pnm_sample_t *p = &s[b - 1];
        if (b - a < 2) {
            *out = p->q;
            return 1;
        }
        const pnm_sample_t *p0 = &s[b - 2];
        double dx = (double)(p->bytes - p0->bytes);
        for (int i = 0; i < PNM_NQ; i++) {
            double slope = fmax(0, (p->q.v[i] - p0->q.v[i]) / dx);
            out->v[i] = p->q.v[i] + slope * (double)(bytes - p->bytes);
        }
        for (int i = 1; i < PNM_NQ; i++) /* keep the quantiles in order */
            out->v[i] = fmax(out->v[i], out->v[i - 1]);
        out->mean = p->q.mean * (p->q.v[PNM_Q50] > 0 ? out->v[PNM_Q50] / p->q.v[PNM_Q50] : 1);
        out->n = p->q.n;
        return 1;
    }
    const pnm_sample_t *lo = &s[k - 1], *hi = &s[k];
    double f = (log((double)bytes) - log((double)(lo->bytes ? lo->bytes : 1))) /
               (log((double)hi->bytes) - log((double)(lo->bytes ? lo->bytes : 1)));
    if (lo->bytes == 0) /* no log of 0: linear from the 0-byte point */
        f = (double)bytes / (double)hi->bytes;
    for (int i = 0; i < PNM_NQ; i++) {
        double x = lo->q.v[i], y = hi->q.v[i];
        out->v[i] = x > 0 && y > 0 && lo->bytes ? exp(log(x) + f * (log(y) - log(x)))
                                                : x + f * (y - x);
    }
    for (int i = 1; i < PNM_NQ; i++)
        out->v[i] = fmax(out->v[i], out->v[i - 1]);
    out->mean = lo->q.mean + f * (hi->q.mean - lo->q.mean);
    out->n = lo->q.n < hi->q.n ? lo->q.n : hi->q.n;
    return 1;
}

/* [a, b) of src's samples to dst (-1: pooled) */
static void range_of(const pnm_model_t *m, int32_t src, int32_t dst, size_t *a, size_t *b)
{
    *a = *b = 0;
    if (src < 0 || src >= m->nranks || m->src_end[src] == 0)
        return;
    size_t i = m->src_first[src], e = m->src_end[src];
    while (i < e && m->s[i].dst != dst)
        i++;
    size_t j = i;
    while (j < e && m->s[j].dst == dst)
        j++;
    *a = i;
    *b = j;
}

/* Every source's pooled distribution at each size, median quantile by quantile: the last
 * fallback (a source the probe never measured). */
static int global_dist(const pnm_model_t *m, uint64_t bytes, pnm_q_t *out)
{
    double *v = malloc(((size_t)m->nsrcs + 1) * sizeof(double));
    pnm_q_t *qs = malloc(((size_t)m->nsrcs + 1) * sizeof(pnm_q_t));
    int n = 0;
    if (v && qs)
        for (int32_t k = 0; k < m->nsrcs; k++) {
            size_t a, b;
            range_of(m, m->srcs[k], -1, &a, &b);
            if (interp(m->s, a, b, bytes, &qs[n]))
                n++;
        }
    memset(out, 0, sizeof(*out));
    if (n > 0) {
        for (int i = 0; i < PNM_NQ; i++) {
            for (int k = 0; k < n; k++)
                v[k] = qs[k].v[i];
            qsort(v, (size_t)n, sizeof(double), pstat_cmp_double);
            out->v[i] = pstat_quantile(v, (size_t)n, 0.5);
        }
        for (int i = 1; i < PNM_NQ; i++)
            out->v[i] = fmax(out->v[i], out->v[i - 1]);
        out->mean = out->v[PNM_Q50];
        out->n = (uint32_t)n;
    }
    free(v);
    free(qs);
    return n > 0;
}

/* The measured distribution nearest to (src, dst, bytes): the pair's, else src's pooled,
 * else every source's. */
static void measured_dist(const pnm_model_t *m, int32_t src, int32_t dst, uint64_t bytes,
                          pnm_q_t *out)
{
    size_t a, b;
    range_of(m, src, dst, &a, &b);
    if (interp(m->s, a, b, bytes, out))
        return;
    range_of(m, src, -1, &a, &b);
    if (interp(m->s, a, b, bytes, out))
        return;
    global_dist(m, bytes, out);
}

double pnm_time(const pnm_model_t *m, int32_t src, int32_t dst, uint64_t bytes)
{
    switch (m->kind) {
    case PNM_LOOKUP: {
        pnm_q_t q;
        measured_dist(m, src, dst, bytes, &q);
        return q.v[PNM_Q50];
    }
    case PNM_HOCKNEY: {
        const pnm_hockney_src_t *h =
            src >= 0 && src < m->nranks && m->hock[src].nseg ? &m->hock[src] : &m->hock_all;
        return hockney_eval(h, bytes);
    }
    case PNM_LOGGP: {
        return loggp_eval(loggp_of(m, src), bytes);
    }
    }
    return NAN;
}

int pnm_loggp_parts(const pnm_model_t *m, int32_t src, int32_t dst, uint64_t bytes,
                    pnm_loggp_parts_t *out)
{
    (void)dst; /* per source, as pnm_time */
    if (m->kind != PNM_LOGGP)
        return -1;
    const pnm_loggp_t *g = loggp_of(m, src);
    int b = 0;
    while (b < g->nband - 1 && bytes > g->band_hi[b])
        b++;
    memset(out, 0, sizeof(*out));
    out->L = g->L[b];
    out->o = g->o[b];
    out->G = g->G[b];
    out->total = loggp_eval(g, bytes);
    out->rndv = g->rndv && bytes > g->rndv;
    if (out->rndv) {
        out->send = 2 * out->L + 3 * out->o;
        out->recv = fmax(0, out->total - out->o - out->L);
    } else {
        out->send = out->recv = out->o;
    }
    return 0;
}

/* The point estimate with the spread of the measured distribution around it: the pair's for
 * the lookup table; for the per-source models, the source's pooled one, which is what they
 * were fitted to (a pair's own spread, scaled from a median far from the source's, e.g. a
 * partner on the same host, would blow its tail up by the same factor). */
void pnm_dist(const pnm_model_t *m, int32_t src, int32_t dst, uint64_t bytes, pnm_q_t *out)
{
    measured_dist(m, src, m->kind == PNM_LOOKUP ? dst : -1, bytes, out);
    if (m->kind == PNM_LOOKUP)
        return;
    double t = pnm_time(m, src, dst, bytes), med = out->v[PNM_Q50];
    double f = med > 0 ? t / med : 1;
    for (int i = 0; i < PNM_NQ; i++)
        out->v[i] = med > 0 ? out->v[i] * f : t;
    out->mean = med > 0 ? out->mean * f : t;
}

int pnm_pair_dist(const pnm_model_t *m, int32_t src, int32_t dst, uint64_t bytes, pnm_q_t *out)
{
    size_t a, b;
    if (dst < 0)
        return 0;
    range_of(m, src, dst, &a, &b);
    return interp(m->s, a, b, bytes, out);
}

/* ---- order statistics ---- */

static double cdf(const pnm_q_t *d, double x)
{
    if (x < d->v[0])
        return 0;
    if (x >= d->v[PNM_NQ - 1])
        return 1;
    for (int i = 1; i < PNM_NQ; i++)
        if (x < d->v[i]) {
            double w = d->v[i] - d->v[i - 1];
            return pnm_qprob[i - 1] +
                   (w > 0 ? (x - d->v[i - 1]) / w : 1) * (pnm_qprob[i] - pnm_qprob[i - 1]);
        }
    return 1;
}

#define GRID 1024

int pnm_max_of(const pnm_q_t *d, size_t n, double *mean, double *p90)
{
    *mean = *p90 = 0;
    if (n == 0)
        return 0;
    double lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        lo = fmax(lo, d[i].v[0]); /* below every min, some F_i = 0: the max is above lo */
        hi = fmax(hi, d[i].v[PNM_NQ - 1]);
    }
    if (hi <= lo) {
        *mean = *p90 = lo;
        return 0;
    }
    /* E[max] = lo + ∫_lo^hi (1 - Π F_i(x)) dx, trapezoid on a uniform grid; the 90th
     * percentile where Π F_i crosses 0.9, interpolated between grid points. */
    double h = (hi - lo) / GRID, area = 0, prev = 0;
    int found = 0;
    for (int k = 0; k <= GRID; k++) {
        double x = lo + h * k, f = 1;
        for (size_t i = 0; i < n && f > 0; i++)
            f *= cdf(&d[i], x);
        double y = 1 - f;
        if (k > 0)
            area += (prev + y) / 2 * h;
        if (!found && f >= 0.9) {
            double fprev = 1 - prev;
            *p90 = k == 0 || f == fprev ? x : x - h * (f - 0.9) / (f - fprev);
            found = 1;
        }
        prev = y;
    }
    *mean = lo + area;
    if (!found)
        *p90 = hi;
    return 0;
}
