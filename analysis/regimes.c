/* regimes.c: timing series of a run and their HMM regimes (regimes.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pstat.h"
#include "regimes.h"
#include "vec.h"

static const char *const kind_names[RG_NKINDS] = {"probe", "messages", "collectives",
                                                  "iterations"};

const char *rg_kind_name(rg_kind_t k)
{
    return (unsigned)k < RG_NKINDS ? kind_names[k] : "unknown";
}

int rg_kind_parse(const char *s)
{
    for (int k = 0; k < RG_NKINDS; k++)
        if (strcmp(s, kind_names[k]) == 0)
            return k;
    return -1;
}

void rg_series_free(rg_series_t *s)
{
    if (s == NULL)
        return;
    hmm_free(&s->model);
    free(s->reg);
    free(s->sw);
    free(s->t);
    free(s->v);
    free(s->label);
    free(s->fit_rank);
    memset(s, 0, sizeof(*s));
}

static void opts_of(const rg_opts_t *o, int *kmax, hmm_opts_t *ho, size_t *maxn)
{
    *kmax = o && o->kmax > 0 ? (o->kmax > RG_KMAX ? RG_KMAX : o->kmax) : 6;
    memset(ho, 0, sizeof(*ho));
    ho->restarts = o && o->restarts >= 0 ? o->restarts : 5;
    ho->seed = o ? o->seed : 0;
    double sd = o && o->min_sd > 0 ? o->min_sd : RG_MIN_SD;
    ho->var_floor = sd * sd;
    *maxn = o && o->max_samples > 0 ? o->max_samples : 1000000;
}

static double resolution_of(const rg_opts_t *o)
{
    return o && o->resolution > 0 ? o->resolution : RG_RESOLUTION;
}

/* Per regime: the samples labelled with it, their sum and sum of squares (seconds). */
typedef struct racc {
    uint64_t n;
    double sum, sq;
} racc_t;

static void racc_add(racc_t *a, int k, int lab, double v)
{
    if (lab < 0 || lab >= k)
        return;
    a[lab].n++;
    a[lab].sum += v;
    a[lab].sq += v * v;
}

/* s->reg (count, mean, sd, share of the labelled samples) from the sums, and the states'
 * Gaussians. 0, or -1 out of memory. */
static int regimes_from(rg_series_t *s, const racc_t *a)
{
    if ((s->reg = calloc((size_t)s->k, sizeof(rg_regime_t))) == NULL)
        return -1;
    uint64_t all = 0;
    for (int k = 0; k < s->k; k++)
        all += a[k].n;
    for (int k = 0; k < s->k; k++) {
        rg_regime_t *r = &s->reg[k];
        double c = (double)a[k].n;
        r->count = a[k].n;
        r->mean_s = c > 0 ? a[k].sum / c : NAN;
        r->sd_s = c > 1 ? sqrt(fmax(0.0, (a[k].sq - c * r->mean_s * r->mean_s) / (c - 1))) : 0.0;
        r->share = all ? c / (double)all : 0.0;
        r->log_mu = s->model.mu[k];
        r->log_sd = s->model.sd[k];
    }
    return 0;
}

static int switches_of(rg_series_t *s, const int64_t *t, const int *lab, size_t n)
{
    size_t cap = 0;
    int prev = -1;
    for (size_t i = 0; i < n; i++) {
        if (lab[i] < 0)
            continue;
        if (prev >= 0 && lab[i] != prev) {
            if (VEC_GROW(s->sw, cap, s->nsw + 1) != 0)
                return -1;
            s->sw[s->nsw++] = (rg_switch_t){t[i], prev, lab[i]};
        }
        prev = lab[i];
    }
    return 0;
}

/* hmm_select over 1..kmax into *m (bic[] of every K), then, while two neighbouring regimes
 * of the chosen model are closer than the resolution (a factor in time), the selection again
 * below that K: regimes a few percent apart are statistically distinct on long series, and
 * are one regime to whoever asks when the network changed. *kbic: BIC's own choice. */
static int select_resolved(const double *x, size_t n, int kmax, const hmm_opts_t *ho,
                           double resolution, hmm_t *m, double *bic, int *kbic, char *why,
                           size_t nwhy)
{
    if (hmm_select(x, n, kmax, ho, m, bic, why, nwhy) != 0)
        return -1;
    *kbic = m->K;
    double gap = resolution > 1 ? log(resolution) : 0;
    for (;;) {
        int close = 0;
        for (int k = 1; k < m->K; k++)
            close |= m->mu[k] - m->mu[k - 1] < gap;
        if (!close)
            return 0;
        hmm_t fewer;
        double scratch[RG_KMAX];
        if (hmm_select(x, n, m->K - 1, ho, &fewer, scratch, why, nwhy) != 0)
            return 0; /* keep what there is */
        hmm_free(m);
        *m = fewer;
    }
}

/* The model of x[0..n) into s: k, k_bic, bic and log L of every K, outliers. */
static int fit(rg_series_t *s, const double *x, size_t n, int kmax, const hmm_opts_t *ho,
               const rg_opts_t *o, char *why, size_t nwhy)
{
    if (select_resolved(x, n, kmax, ho, resolution_of(o), &s->model, s->bic, &s->k_bic, why,
                        nwhy) != 0)
        return -1;
    s->k = s->model.K;
    s->outliers = s->model.n_outliers;
    /* BIC = -2 log L + p ln T, T the samples fitted (the outliers set aside) */
    double tf = (double)(s->model.n ? s->model.n : n);
    for (int k = 1; k <= kmax; k++)
        if (isfinite(s->bic[k - 1]))
            s->loglik[k - 1] = -0.5 * (s->bic[k - 1] - (double)(k * k + 2 * k - 1) * log(tf));
    return 0;
}

int rg_fit_values(rg_series_t *s, const int64_t *t, const double *x, size_t n,
                  const rg_opts_t *o, char *why, size_t nwhy)
{
    int kmax;
    hmm_opts_t ho;
    size_t maxn;
    opts_of(o, &kmax, &ho, &maxn);
    s->kmax = kmax;
    for (int k = 0; k < RG_KMAX; k++)
        s->bic[k] = s->loglik[k] = NAN;
    s->samples = n;
    if (n == 0)
        return 0;
    if (fit(s, x, n, kmax, &ho, o, why, nwhy) != 0)
        return -1;
    s->label = malloc(n * sizeof(int));
    s->t = malloc(n * sizeof(int64_t));
    s->v = malloc(n * sizeof(double));
    /* outliers are labelled by the regime most likely at their value */
    if (s->label == NULL || s->t == NULL || s->v == NULL ||
        hmm_viterbi_mask(&s->model, x, n, s->model.outlier, s->label) != 0) {
        snprintf(why, nwhy, "out of memory labelling %zu samples", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        s->t[i] = t[i];
        s->v[i] = exp(x[i]);
    }
    s->npoints = n;
    racc_t *acc = calloc((size_t)s->k, sizeof(racc_t));
    if (acc != NULL)
        for (size_t i = 0; i < n; i++)
            racc_add(acc, s->k, s->label[i], s->v[i]);
    int bad = acc == NULL || regimes_from(s, acc) != 0 || switches_of(s, t, s->label, n) != 0;
    free(acc);
    if (bad) {
        snprintf(why, nwhy, "out of memory");
        return -1;
    }
    return 0;
}

/* ---- series from health.h's samples ---- */

typedef struct cv {
    uint32_t cls;
    double v;
} cv_t;

static int cmp_cv(const void *a, const void *b)
{
    const cv_t *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* x[i] = ln(dur_i / median of its class x median of the most common class), in seconds. */
static int in_link(const hl_sample_t *s, rg_kind_t kind, rg_link_t link)
{
    if (kind == RG_PROBE && !isfinite(s->value))
        return 0; /* a probe's small size, where it has a large one (health_probe.c) */
    if (link == RG_LINK_ANY || kind == RG_COLLECTIVES || kind == RG_ITERATIONS)
        return 1;
    return (s->cls & 1) == (link == RG_LINK_INTER);
}

void rg_link_counts(const hl_samples_t *hs, rg_kind_t kind, size_t *intra, size_t *inter)
{
    *intra = *inter = 0;
    if (kind != RG_MESSAGES && kind != RG_PROBE)
        return;
    hl_source_t src = kind == RG_PROBE ? HL_SRC_PROBE : HL_SRC_MESSAGES;
    for (size_t i = 0; i < hs->n[src]; i++) {
        if (hs->s[src][i].cls & 1)
            (*inter)++;
        else
            (*intra)++;
    }
}

static int sample_series(const hl_sample_t *s0, size_t n0, rg_kind_t kind, rg_link_t link,
                         size_t maxn, int64_t **tp, double **xp, size_t *np, size_t *total,
                         uint32_t *dom_cls, double *dom_med)
{
    /* the link's samples, thinned evenly to maxn */
    size_t n = 0;
    for (size_t i = 0; i < n0; i++)
        n += in_link(&s0[i], kind, link);
    *total = n;
    size_t stride = n > maxn ? (n + maxn - 1) / maxn : 1;
    hl_sample_t *s = malloc((n ? n : 1) * sizeof(hl_sample_t));
    if (s == NULL)
        return -1;
    n = 0;
    for (size_t i = 0; i < n0; i++)
        if (in_link(&s0[i], kind, link))
            s[n++] = s0[i];
    int rc = -1;
    cv_t *c = malloc((n ? n : 1) * sizeof(cv_t));
    uint32_t *cls = malloc((n ? n : 1) * sizeof(uint32_t));
    double *med = NULL;
    size_t m = (n + stride - 1) / stride;
    int64_t *t = malloc((m ? m : 1) * sizeof(int64_t));
    double *x = malloc((m ? m : 1) * sizeof(double));
    if (c == NULL || cls == NULL || t == NULL || x == NULL)
        goto out;
    for (size_t i = 0; i < n; i++)
        c[i] = (cv_t){s[i].cls, (double)s[i].dur_ns * 1e-9};
    qsort(c, n, sizeof(cv_t), cmp_cv);
    /* classes in order, their medians and counts */
    size_t ncls = 0, best = 0, bestn = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && c[b].cls == c[a].cls)
            b++;
        cls[ncls] = c[a].cls;
        double *nm = realloc(med, (ncls + 1) * sizeof(double));
        if (nm == NULL)
            goto out;
        med = nm;
        double *tmp = malloc((b - a) * sizeof(double));
        if (tmp == NULL)
            goto out;
        for (size_t q = a; q < b; q++)
            tmp[q - a] = c[q].v;
        med[ncls] = pstat_quantile(tmp, b - a, 0.5);
        free(tmp);
        if (b - a > bestn) {
            bestn = b - a;
            best = ncls;
        }
        ncls++;
        a = b;
    }
    *dom_cls = ncls ? cls[best] : 0;
    *dom_med = ncls ? med[best] : NAN;
    size_t k = 0;
    for (size_t i = 0; i < n; i += stride) {
        uint32_t *f = bsearch(&s[i].cls, cls, ncls, sizeof(uint32_t), cmp_u32);
        double mc = med[f - cls];
        double v = (double)s[i].dur_ns * 1e-9;
        if (!(v > 0) || !(mc > 0))
            continue;
        t[k] = s[i].t_ns;
        x[k++] = log(v) - log(mc) + log(med[best]);
    }
    *tp = t;
    *xp = x;
    *np = k;
    t = NULL;
    x = NULL;
    rc = 0;
out:
    free(s);
    free(c);
    free(cls);
    free(med);
    free(t);
    free(x);
    return rc;
}

static void class_words(const hl_samples_t *hs, rg_kind_t kind, uint32_t cls, char *buf,
                        size_t n)
{
    if (kind == RG_MESSAGES) {
        uint32_t b = cls / 2;
        snprintf(buf, n, "%llu B %s", (unsigned long long)(b ? 1ull << (b - 1) : 0),
                 cls % 2 ? "between hosts" : "within a host");
    } else if (kind == RG_COLLECTIVES) {
        snprintf(buf, n, "%s", cls < hs->ncoll_class ? hs->coll_class[cls] : "?");
    } else {
        uint32_t b = cls / 4;
        snprintf(buf, n, "%llu B %s, %s", (unsigned long long)(b ? 1ull << (b - 1) : 0),
                 (cls / 2) % 2 ? "one way" : "exchanged", cls % 2 ? "between hosts" : "within a host");
    }
}

/* Replaces t, x (n samples by time) by the median of each window of w from t0 that has
 * RG_WINDOW_MIN samples, at the window's start; returns how many. */
static size_t window_medians(int64_t *t, double *x, size_t n, int64_t t0, int64_t w)
{
    size_t k = 0;
    for (size_t a = 0; a < n;) {
        int64_t win = (t[a] - t0) / w;
        size_t b = a;
        while (b < n && (t[b] - t0) / w == win)
            b++;
        if (b - a >= RG_WINDOW_MIN) {
            qsort(x + a, b - a, sizeof(double), pstat_cmp_double);
            double med = pstat_quantile(x + a, b - a, 0.5);
            t[k] = t0 + win * w;
            x[k++] = med;
        }
        a = b;
    }
    return k;
}

/* ---- iterations ---- */

typedef struct rmed {
    double med;
    int32_t rank;
} rmed_t;

static int cmp_rmed(const void *a, const void *b)
{
    const rmed_t *x = a, *y = b;
    if (x->med != y->med)
        return x->med < y->med ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static plog_err_t iterations(plog_run_t *run, const rg_opts_t *o, rg_series_t *s,
                             plog_error_t *err)
{
    ph_marks_t mk;
    ph_mark_spec_t spec = o ? o->marks : (ph_mark_spec_t){.every = 1};
    if (spec.every == 0)
        spec.every = 1;
    plog_err_t rc = ph_marks_find(run, &spec, &mk, err);
    if (rc != PLOG_OK)
        return rc;
    const char *path = plog_run_path(run);
    int32_t P = mk.nranks;
    rmed_t *rm = calloc((size_t)(P > 0 ? P : 1), sizeof(rmed_t));
    double *x = NULL, *tmp = NULL, *xr = NULL, *ends = NULL, *durs = NULL;
    int *lab = NULL, *votes = NULL;
    racc_t *acc = NULL;
    size_t maxit = 0, total = 0;
    int32_t nr = 0;
    char why[256] = "";
    if (rm == NULL)
        goto nomem;
    for (int32_t r = 0; r < P; r++) {
        if (mk.n[r] < 2)
            continue;
        size_t ni = mk.n[r] - 1;
        total += ni;
        if (ni > maxit)
            maxit = ni;
        free(tmp);
        if ((tmp = malloc(ni * sizeof(double))) == NULL)
            goto nomem;
        for (size_t i = 0; i < ni; i++)
            tmp[i] = (double)(mk.t[r][i + 1] - mk.t[r][i]);
        qsort(tmp, ni, sizeof(double), pstat_cmp_double);
        rm[nr++] = (rmed_t){pstat_quantile(tmp, ni, 0.5), r};
    }
    s->total = total;
    if (nr == 0) {
        rc = PLOG_OK;
        goto out;
    }
    /* the paper's procedure: fit on ranks picked evenly by median iteration time */
    qsort(rm, (size_t)nr, sizeof(rmed_t), cmp_rmed);
    int want = o && o->fit_ranks > 0 ? o->fit_ranks : 20;
    int32_t nfit = nr < want ? nr : want;
    s->fit_rank = malloc((size_t)nfit * sizeof(int32_t));
    if (s->fit_rank == NULL)
        goto nomem;
    int32_t prev = -1;
    for (int32_t i = 0; i < nfit; i++) {
        int32_t j = nfit == 1 ? nr / 2 : (int32_t)llround((double)i * (nr - 1) / (nfit - 1));
        if (j == prev)
            continue;
        s->fit_rank[s->nfit++] = rm[j].rank;
        prev = j;
    }
    size_t nx = 0, cx = 0;
    for (int32_t i = 0; i < s->nfit; i++) {
        int32_t r = s->fit_rank[i];
        for (uint32_t k = 0; k + 1 < mk.n[r]; k++) {
            double d = (double)(mk.t[r][k + 1] - mk.t[r][k]) * 1e-9;
            if (!(d > 0))
                continue;
            if (VEC_GROW(x, cx, nx + 1) != 0)
                goto nomem;
            x[nx++] = log(d);
        }
    }
    int kmax;
    hmm_opts_t ho;
    size_t maxn;
    opts_of(o, &kmax, &ho, &maxn);
    s->kmax = kmax;
    for (int k = 0; k < RG_KMAX; k++)
        s->bic[k] = s->loglik[k] = NAN;
    if (nx > maxn) { /* thin evenly */
        size_t stride = (nx + maxn - 1) / maxn, m = 0;
        for (size_t i = 0; i < nx; i += stride)
            x[m++] = x[i];
        nx = m;
    }
    s->samples = nx;
    if (nx == 0) {
        rc = PLOG_OK;
        goto out;
    }
    if (fit(s, x, nx, kmax, &ho, o, why, sizeof(why)) != 0) {
        rc = plog_fail(err, PLOG_E_USAGE, path, PLOG_NO_OFFSET,
                       "the iterations' regimes could not be fitted: %s", why);
        goto out;
    }
    /* label every rank; per iteration the label most ranks have, at the median end time */
    votes = calloc(maxit * (size_t)s->k, sizeof(int));
    ends = malloc((size_t)P * sizeof(double));
    durs = malloc((size_t)P * sizeof(double));
    acc = calloc((size_t)s->k, sizeof(racc_t));
    xr = malloc(maxit * sizeof(double));
    lab = malloc(maxit * sizeof(int));
    s->t = malloc(maxit * sizeof(int64_t));
    s->v = malloc(maxit * sizeof(double));
    s->label = malloc(maxit * sizeof(int));
    if (!votes || !ends || !durs || !acc || !xr || !lab || !s->t || !s->v || !s->label)
        goto nomem;
    for (int32_t i = 0; i < nr; i++) {
        int32_t r = rm[i].rank;
        size_t ni = mk.n[r] - 1;
        for (size_t k = 0; k < ni; k++) {
            double d = (double)(mk.t[r][k + 1] - mk.t[r][k]) * 1e-9;
            xr[k] = d > 0 ? log(d) : log(1e-9);
        }
        if (hmm_viterbi(&s->model, xr, ni, lab) != 0)
            continue;
        s->ranks_labelled++;
        for (size_t k = 0; k < ni; k++) {
            votes[k * (size_t)s->k + (size_t)lab[k]]++;
            racc_add(acc, s->k, lab[k], exp(xr[k]));
        }
    }
    size_t ns = 0;
    for (size_t k = 0; k < maxit; k++) {
        size_t ne = 0;
        for (int32_t i = 0; i < nr; i++) {
            int32_t r = rm[i].rank;
            if (k + 1 < mk.n[r]) {
                ends[ne] = (double)mk.t[r][k + 1];
                durs[ne++] = (double)(mk.t[r][k + 1] - mk.t[r][k]) * 1e-9;
            }
        }
        if (ne == 0)
            continue;
        int best = 0;
        for (int q = 1; q < s->k; q++)
            if (votes[k * (size_t)s->k + (size_t)q] > votes[k * (size_t)s->k + (size_t)best])
                best = q;
        qsort(ends, ne, sizeof(double), pstat_cmp_double);
        qsort(durs, ne, sizeof(double), pstat_cmp_double);
        s->t[ns] = (int64_t)pstat_quantile(ends, ne, 0.5);
        s->v[ns] = pstat_quantile(durs, ne, 0.5);
        s->label[ns++] = best;
    }
    s->npoints = ns; /* one point per iteration */
    if (regimes_from(s, acc) != 0 || switches_of(s, s->t, s->label, ns) != 0)
        goto nomem;
    rc = PLOG_OK;
    goto out;
nomem:
    rc = plog_fail(err, PLOG_E_NOMEM, path, PLOG_NO_OFFSET, "out of memory");
out:
    free(votes);
    free(ends);
    free(durs);
    free(acc);
    free(rm);
    free(x);
    free(tmp);
    free(xr);
    free(lab);
    ph_marks_free(&mk);
    return rc;
}

plog_err_t rg_series_fit(plog_run_t *run, const hl_samples_t *hs, rg_kind_t kind, rg_link_t link,
                         const rg_opts_t *o, rg_series_t *out, plog_error_t *err)
{
    memset(out, 0, sizeof(*out));
    out->kind = kind;
    if (kind == RG_COLLECTIVES || kind == RG_ITERATIONS)
        link = RG_LINK_ANY;
    snprintf(out->name, sizeof(out->name), "%s%s", rg_kind_name(kind),
             link == RG_LINK_INTRA ? "/intra-host" : link == RG_LINK_INTER ? "/inter-host" : "");
    for (int k = 0; k < RG_KMAX; k++)
        out->bic[k] = out->loglik[k] = NAN;
    int kmax;
    hmm_opts_t ho;
    size_t maxn;
    opts_of(o, &kmax, &ho, &maxn);
    out->kmax = kmax;
    const char *path = plog_run_path(run);
    if (kind == RG_ITERATIONS) {
        snprintf(out->quantity, sizeof(out->quantity),
                 "a rank's iteration time between two boundaries (s)");
        plog_err_t rc = iterations(run, o, out, err);
        if (rc != PLOG_OK)
            rg_series_free(out);
        return rc;
    }
    hl_source_t src = kind == RG_PROBE ? HL_SRC_PROBE
                    : kind == RG_MESSAGES ? HL_SRC_MESSAGES : HL_SRC_COLLECTIVES;
    int64_t *t = NULL;
    double *x = NULL;
    size_t m = 0, n = 0;
    uint32_t dom = 0;
    double dmed = NAN;
    int per_sample = o && o->per_sample;
    if (sample_series(hs->s[src], hs->n[src], kind, link, per_sample ? maxn : SIZE_MAX, &t, &x,
                      &m, &n, &dom, &dmed) != 0)
        return plog_fail(err, PLOG_E_NOMEM, path, PLOG_NO_OFFSET, "out of memory");
    if (!per_sample && m > 0) {
        int64_t w = o && o->window_ns > 0 ? o->window_ns
                  : kind == RG_PROBE      ? hl_source_window(hs, src)
                                          : hl_auto_window(m, t[0], t[m - 1]);
        size_t nw = window_medians(t, x, m, hs->t_first, w);
        if (nw >= RG_MIN_WINDOWS || (o && o->window_ns > 0)) {
            m = nw;
            out->window_ns = w;
        } else { /* too few windows for a series: every sample, thinned */
            free(t);
            free(x);
            if (sample_series(hs->s[src], hs->n[src], kind, link, maxn, &t, &x, &m, &n, &dom,
                              &dmed) != 0)
                return plog_fail(err, PLOG_E_NOMEM, path, PLOG_NO_OFFSET, "out of memory");
        }
    }
    out->total = n;
    if (m == 0) {
        free(t);
        free(x);
        snprintf(out->quantity, sizeof(out->quantity), "no samples");
        return PLOG_OK;
    }
    char cw[128];
    class_words(hs, kind, dom, cw, sizeof(cw));
    snprintf(out->quantity, sizeof(out->quantity), "%s%s time scaled to %.80s (s)",
             out->window_ns ? "the window median of " : "",
             kind == RG_MESSAGES ? "a message's" : kind == RG_COLLECTIVES ? "a collective's"
                                                                           : "a probe's least repetition's",
             cw);
    char why[256] = "";
    int r = rg_fit_values(out, t, x, m, o, why, sizeof(why));
    free(t);
    free(x);
    if (r != 0) {
        rg_series_free(out);
        return plog_fail(err, PLOG_E_USAGE, path, PLOG_NO_OFFSET,
                         "the %s series' regimes could not be fitted: %s", rg_kind_name(kind), why);
    }
    out->total = n;
    return PLOG_OK;
}
