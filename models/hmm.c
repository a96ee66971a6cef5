/* hmm.c: 1-D Gaussian HMM (hmm.h). One fit allocates its work arrays once: the scaled
 * forward variables alpha (T x K), the shifted emissions b (T x K), the scales c and
 * shifts m (T each); the backward pass keeps two rows of beta and accumulates the M-step's
 * sums as it goes, so no T x K beta or gamma is stored. What every K of a selection shares
 * (the sorted samples, their mean and variance, the variance floor) is computed once. */
#include "hmm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pstat.h"
#include "why.h"

#define HMM_LOG_2PI 1.8378770664093454836
#define HMM_KMEANS_ITER 10
#define HMM_MAX_K 1024
#define HMM_SCREEN_ITER 5
#define HMM_OUTLIER_ROUNDS 3
#define HMM_SUB_BLOCKS 128   /* a long series' starts are screened on 128 blocks ... */
#define HMM_SUB_LEN 1024     /* ... of 1024 consecutive samples, spread evenly over it */
#define HMM_SUB_ITER 50      /* EM iterations on the blocks at most */
#define HMM_POLISH_ITER 15   /* then on the whole series (doc/regimes-model.md, "Speed") */

/* splitmix64: a counter-based generator, its whole state in *s. */
static uint64_t hmm_sm64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Parameters of one start. */
typedef struct par {
    double *pi, *A, *mu, *sd;
} par_t;

/* What every K of one selection shares: the series, the samples missing from it (skip,
 * may be NULL), the n others sorted, their mean and variance, and the variance floor. */
typedef struct data {
    const double *x;
    const uint8_t *skip;
    size_t T, n;
    double *sorted; /* n */
    double xbar, var, var_floor;
} data_t;

/* The work arrays of one K. */
typedef struct work {
    const data_t *d;
    int K;
    double *alpha, *b, *c, *m; /* T*K, T*K, T, T */
    double *acc; /* M-step sums: g0[K] gs[K] gx[K] gxx[K] S[K*K], beta 2K */
} work_t;

static int par_alloc(par_t *p, int K)
{
    size_t k = (size_t)K;
    p->pi = malloc(k * sizeof(double));
    p->A = malloc(k * k * sizeof(double));
    p->mu = malloc(k * sizeof(double));
    p->sd = malloc(k * sizeof(double));
    return p->pi && p->A && p->mu && p->sd ? 0 : -1;
}

static void par_free(par_t *p)
{
    free(p->pi);
    free(p->A);
    free(p->mu);
    free(p->sd);
    memset(p, 0, sizeof(*p));
}

static void par_copy(par_t *d, const par_t *s, int K)
{
    size_t k = (size_t)K;
    memcpy(d->pi, s->pi, k * sizeof(double));
    memcpy(d->A, s->A, k * k * sizeof(double));
    memcpy(d->mu, s->mu, k * sizeof(double));
    memcpy(d->sd, s->sd, k * sizeof(double));
}

/* Per-state constants of the log density: log N(x) = nh[k] - 0.5 ((x - mu[k]) isd[k])^2. */
static void dens_consts(int K, const double *sd, double *nh, double *isd)
{
    for (int k = 0; k < K; k++) {
        isd[k] = 1 / sd[k];
        nh[k] = -log(sd[k]) - 0.5 * HMM_LOG_2PI;
    }
}

/* bt[k] = exp(log N(x; k) - max_k log N(x; k)); returns that max. */
static inline double emit(double x, int K, const double *mu, const double *nh,
                          const double *isd, double *bt)
{
    double mx = -INFINITY;
    for (int k = 0; k < K; k++) {
        double z = (x - mu[k]) * isd[k];
        bt[k] = nh[k] - 0.5 * z * z;
        if (bt[k] > mx)
            mx = bt[k];
    }
    for (int k = 0; k < K; k++)
        bt[k] = exp(bt[k] - mx);
    return mx;
}

/* One step of the scaled forward recursion into at (ap: the previous row, NULL at t = 0);
 * returns the scale, the sum before normalising. */
static inline double fwd_step(int K, const double *pi, const double *A, const double *ap,
                              const double *bt, double *at)
{
    if (!ap) {
        for (int k = 0; k < K; k++)
            at[k] = pi[k] * bt[k];
    } else {
        for (int j = 0; j < K; j++)
            at[j] = 0;
        for (int i = 0; i < K; i++) { /* row by row: the inner loop runs along A's rows */
            double a = ap[i];
            const double *row = A + (size_t)i * (size_t)K;
            for (int j = 0; j < K; j++)
                at[j] += a * row[j];
        }
        for (int j = 0; j < K; j++)
            at[j] *= bt[j];
    }
    double s = 0;
    for (int k = 0; k < K; k++)
        s += at[k];
    if (s > 0 && isfinite(s)) {
        double r = 1 / s;
        for (int k = 0; k < K; k++)
            at[k] *= r;
    }
    return s;
}

/* E-step: forward pass, then backward pass accumulating the sufficient statistics into
 * w->acc. Returns log L of p, or NAN when a scale factor vanished (the start fails). A
 * skipped sample has an emission of 1 in every state and adds nothing to the means and
 * variances. The transition sums are accumulated as S[i][j] = sum_t alpha_t(i) bb_t+1(j)
 * and multiplied by A[i][j] once at the end. */
static inline __attribute__((always_inline)) double estep_k(work_t *w, const par_t *p,
                                                           const int K)
{
    const data_t *d = w->d;
    const size_t T = d->T;
    const double *x = d->x;
    const uint8_t *skip = d->skip;
    double nh[HMM_MAX_K], isd[HMM_MAX_K];
    dens_consts(K, p->sd, nh, isd);
    double ll = 0, prod = 1; /* log L = sum log c[t] + m[t]: c[t] <= 1 multiplied up */
    for (size_t t = 0; t < T; t++) {
        double *at = w->alpha + t * (size_t)K, *bt = w->b + t * (size_t)K;
        if (skip && skip[t]) {
            for (int k = 0; k < K; k++)
                bt[k] = 1;
            w->m[t] = 0;
        } else {
            w->m[t] = emit(x[t], K, p->mu, nh, isd, bt);
        }
        double s = fwd_step(K, p->pi, p->A, t ? at - K : NULL, bt, at);
        if (!(s > 0) || !isfinite(s))
            return NAN;
        w->c[t] = s;
        ll += w->m[t];
        if (s < 0x1p-900) {
            ll += log(s);
        } else {
            prod *= s;
            if (prod < 0x1p-900)
                ll += log(prod), prod = 1;
        }
    }
    ll += log(prod);
    double *g0 = w->acc, *gs = g0 + K, *gx = gs + K, *gxx = gx + K, *S = gxx + K;
    double *bn = S + K * K, *bc = bn + K; /* beta at t+1 and at t */
    memset(w->acc, 0, (size_t)(4 * K + K * K) * sizeof(double));
    for (int k = 0; k < K; k++)
        bn[k] = 1;
    for (size_t t = T; t-- > 0;) {
        const double *at = w->alpha + t * (size_t)K;
        double gsum = 0, gam[HMM_MAX_K];
        if (t + 1 < T) {
            const double *b1 = w->b + (t + 1) * (size_t)K;
            double r = 1 / w->c[t + 1], bb[HMM_MAX_K];
            for (int j = 0; j < K; j++)
                bb[j] = b1[j] * bn[j] * r;
            for (int i = 0; i < K; i++) {
                const double *row = p->A + (size_t)i * (size_t)K;
                double *Si = S + (size_t)i * (size_t)K, a = at[i], v = 0;
                for (int j = 0; j < K; j++) {
                    v += row[j] * bb[j];
                    Si[j] += a * bb[j];
                }
                bc[i] = v;
            }
        } else {
            for (int k = 0; k < K; k++)
                bc[k] = 1;
        }
        for (int k = 0; k < K; k++)
            gsum += gam[k] = at[k] * bc[k];
        double rg = gsum > 0 ? 1 / gsum : 0;
        if (t == 0)
            for (int k = 0; k < K; k++)
                g0[k] = gam[k] * rg;
        if (!(skip && skip[t])) {
            double dx = x[t] - d->xbar;
            for (int k = 0; k < K; k++) {
                double g = gam[k] * rg;
                gs[k] += g;
                gx[k] += g * dx;
                gxx[k] += g * dx * dx;
            }
        }
        double *tmp = bn;
        bn = bc, bc = tmp;
    }
    for (int i = 0; i < K * K; i++)
        S[i] *= p->A[i];
    return ll;
}

/* The E-step with K a constant for the small K of latency regimes: the compiler unrolls
 * the K and K x K loops, which is most of the cost at these sizes. */
static double estep(work_t *w, const par_t *p)
{
    switch (w->K) {
    case 1: return estep_k(w, p, 1);
    case 2: return estep_k(w, p, 2);
    case 3: return estep_k(w, p, 3);
    case 4: return estep_k(w, p, 4);
    case 5: return estep_k(w, p, 5);
    case 6: return estep_k(w, p, 6);
    case 7: return estep_k(w, p, 7);
    case 8: return estep_k(w, p, 8);
    default: return estep_k(w, p, w->K);
    }
}

/* M-step from w->acc; a state or row with no weight keeps its old values. */
static void mstep(work_t *w, par_t *p)
{
    const int K = w->K;
    const double *g0 = w->acc, *gs = g0 + K, *gx = gs + K, *gxx = gx + K, *xi = gxx + K;
    const double vf = w->d->var_floor;
    double s0 = 0;
    for (int k = 0; k < K; k++)
        s0 += g0[k];
    for (int k = 0; k < K; k++) {
        if (s0 > 0)
            p->pi[k] = g0[k] / s0;
        if (gs[k] > 1e-300) {
            double mean = gx[k] / gs[k], var = gxx[k] / gs[k] - mean * mean;
            p->mu[k] = w->d->xbar + mean;
            p->sd[k] = sqrt(var > vf ? var : vf);
        }
        double r = 0;
        for (int j = 0; j < K; j++)
            r += xi[k * K + j];
        if (r > 0)
            for (int j = 0; j < K; j++)
                p->A[k * K + j] = xi[k * K + j] / r;
    }
}

static int cmp_dbl(const void *a, const void *b)
{
    return pstat_cmp_double(a, b);
}

/* Start s: 0 quantile means, 1 k-means (Lloyd from the quantiles), >= 2 means drawn from
 * the data with splitmix64(seed, s). Transitions 0.9 on the diagonal, pi uniform. */
static void init_start(work_t *w, par_t *p, int s, uint64_t seed)
{
    const int K = w->K;
    const data_t *d = w->d;
    const size_t n = d->n;
    double sd0 = sqrt(d->var) / K, sdf = sqrt(d->var_floor);
    if (!(sd0 > sdf))
        sd0 = sdf;
    for (int k = 0; k < K; k++) {
        p->pi[k] = 1.0 / K;
        p->sd[k] = sd0;
        for (int j = 0; j < K; j++)
            p->A[k * K + j] = K == 1 ? 1.0 : (k == j ? 0.9 : 0.1 / (K - 1));
    }
    if (s >= 2) {
        uint64_t st = seed ^ (0xd1b54a32d192ed03ULL * (uint64_t)s);
        for (int k = 0; k < K; k++)
            p->mu[k] = d->sorted[hmm_sm64(&st) % n];
        qsort(p->mu, (size_t)K, sizeof(double), cmp_dbl);
        return;
    }
    for (int k = 0; k < K; k++)
        p->mu[k] = pstat_quantile(d->sorted, n, (k + 0.5) / K);
    if (s == 0)
        return;
    /* k-means on the sorted data: the clusters are contiguous runs split at midpoints. */
    double *sum = w->acc, *sq = sum + K, *cnt = sq + K;
    for (int it = 0; it < HMM_KMEANS_ITER; it++) {
        memset(w->acc, 0, (size_t)(3 * K) * sizeof(double));
        int k = 0;
        for (size_t t = 0; t < n; t++) {
            double v = d->sorted[t];
            while (k + 1 < K && v > 0.5 * (p->mu[k] + p->mu[k + 1]))
                k++;
            double dv = v - d->xbar;
            sum[k] += dv, sq[k] += dv * dv, cnt[k] += 1;
        }
        for (k = 0; k < K; k++)
            if (cnt[k] > 0)
                p->mu[k] = d->xbar + sum[k] / cnt[k];
        qsort(p->mu, (size_t)K, sizeof(double), cmp_dbl);
    }
    for (int k = 0; k < K; k++)
        if (cnt[k] >= 2) {
            double mk = sum[k] / cnt[k], v = sq[k] / cnt[k] - mk * mk;
            p->sd[k] = sqrt(v > d->var_floor ? v : d->var_floor);
        }
}

/* EM from p, whose E-step is in w->acc with log L *ll: iterations it0+1..it1 until
 * |delta log L| < tol. Returns 0 (*conv set when tol was met) or -1 when a likelihood
 * vanished (the start fails). */
static int run_em(work_t *w, par_t *p, const hmm_opts_t *o, int start, int it0, int it1,
                  double tol, double *ll, int *iters, int *conv)
{
    *conv = 0;
    for (int it = it0 + 1; it <= it1; it++) {
        mstep(w, p);
        double nl = estep(w, p);
        if (isnan(nl))
            return -1;
        *iters = it;
        if (o && o->on_iter)
            o->on_iter(o->ctx, start, it, nl);
        double dl = nl - *ll;
        *ll = nl;
        if (fabs(dl) < tol) {
            *conv = 1;
            break;
        }
    }
    return 0;
}

void hmm_free(hmm_t *m)
{
    if (!m)
        return;
    free(m->pi);
    free(m->A);
    free(m->mu);
    free(m->sd);
    free(m->outlier);
    memset(m, 0, sizeof(*m));
}

static int check_x(const double *x, size_t T, char *why, size_t nwhy)
{
    if (!x && T)
        return why_fail(why, nwhy, "no data");
    for (size_t t = 0; t < T; t++)
        if (!isfinite(x[t]))
            return why_fail(why, nwhy, "sample %zu is %s", t, isnan(x[t]) ? "NaN" : "infinite");
    return 0;
}

static int check_opts(const hmm_opts_t *o, char *why, size_t nwhy)
{
    if (o && (isnan(o->tol) || isnan(o->var_floor) || isinf(o->tol) || isinf(o->var_floor)))
        return why_fail(why, nwhy, "tol or var_floor is not finite");
    return 0;
}

/* Sorts the states of m by mean ascending, permuting pi and A alike (A: K*K scratch). */
static void sort_states(par_t *m, int K, double *A)
{
    int ord[HMM_MAX_K];
    for (int k = 0; k < K; k++)
        ord[k] = k;
    for (int i = 1; i < K; i++) /* insertion sort: K is small */
        for (int j = i; j > 0 && m->mu[ord[j]] < m->mu[ord[j - 1]]; j--) {
            int tmp = ord[j];
            ord[j] = ord[j - 1], ord[j - 1] = tmp;
        }
    double pi[HMM_MAX_K], mu[HMM_MAX_K], sd[HMM_MAX_K];
    for (int k = 0; k < K; k++)
        pi[k] = m->pi[ord[k]], mu[k] = m->mu[ord[k]], sd[k] = m->sd[ord[k]];
    memcpy(m->pi, pi, (size_t)K * sizeof(double));
    memcpy(m->mu, mu, (size_t)K * sizeof(double));
    memcpy(m->sd, sd, (size_t)K * sizeof(double));
    for (int i = 0; i < K; i++)
        for (int j = 0; j < K; j++)
            A[i * K + j] = m->A[ord[i] * K + ord[j]];
    memcpy(m->A, A, (size_t)K * (size_t)K * sizeof(double));
}

/* Fills d from x and skip: the samples not skipped, sorted, their mean and variance, the
 * variance floor (o's, or (1e-3 sd)^2). -1 when out of memory or every sample is skipped. */
static int data_prep(data_t *d, const double *x, size_t T, const uint8_t *skip,
                     const hmm_opts_t *o, char *why, size_t nwhy)
{
    memset(d, 0, sizeof(*d));
    d->x = x, d->skip = skip, d->T = T;
    d->sorted = malloc((T ? T : 1) * sizeof(double));
    if (!d->sorted)
        return why_fail(why, nwhy, "out of memory");
    double s1 = 0, s2 = 0;
    for (size_t t = 0; t < T; t++)
        if (!(skip && skip[t]))
            d->sorted[d->n++] = x[t], s1 += x[t];
    if (d->n == 0) {
        free(d->sorted);
        d->sorted = NULL;
        return why_fail(why, nwhy, "no samples");
    }
    d->xbar = s1 / (double)d->n;
    for (size_t t = 0; t < d->n; t++)
        s2 += (d->sorted[t] - d->xbar) * (d->sorted[t] - d->xbar);
    d->var = s2 / (double)d->n;
    qsort(d->sorted, d->n, sizeof(double), cmp_dbl);
    if (o && o->var_floor > 0) {
        d->var_floor = o->var_floor;
    } else {
        double s = sqrt(d->var);
        if (!(s > 0))
            s = fabs(d->xbar) > 1 ? fabs(d->xbar) : 1;
        d->var_floor = (1e-3 * s) * (1e-3 * s);
    }
    return 0;
}

static int fit_data(const data_t *d, int K, const hmm_t *init, const hmm_opts_t *o,
                    hmm_t *out, char *why, size_t nwhy);

/* A series longer than HMM_SUB_BLOCKS x HMM_SUB_LEN samples: the K-state fit of its
 * evenly spread blocks (laid end to end: one spurious transition per block), quiet (no
 * on_iter), with the whole series' variance floor, into *sub. The caller goes on from it. */
static int fit_blocks(const data_t *d, int K, const hmm_opts_t *o, hmm_t *sub, char *why,
                      size_t nwhy)
{
    const size_t B = HMM_SUB_BLOCKS, L = HMM_SUB_LEN, step = d->T / B;
    double *xs = malloc(B * L * sizeof(double));
    uint8_t *ss = d->skip ? malloc(B * L) : NULL;
    int rc = -1;
    if (!xs || (d->skip && !ss)) {
        why_fail(why, nwhy, "out of memory");
        goto done;
    }
    for (size_t b = 0; b < B; b++) {
        memcpy(xs + b * L, d->x + b * step, L * sizeof(double));
        if (ss)
            memcpy(ss + b * L, d->skip + b * step, L);
    }
    data_t ds;
    if (data_prep(&ds, xs, B * L, ss, o, why, nwhy))
        goto done;
    ds.var_floor = d->var_floor;
    hmm_opts_t q = o ? *o : (hmm_opts_t){0};
    q.on_iter = NULL;
    if (!(q.max_iter > 0 && q.max_iter < HMM_SUB_ITER))
        q.max_iter = HMM_SUB_ITER; /* a warm start: the whole series decides convergence */
    rc = fit_data(&ds, K, NULL, &q, sub, why, nwhy);
    free(ds.sorted);
done:
    free(xs);
    free(ss);
    return rc;
}

/* Fits K states to d: from init when given (one start), else small EM over the quantile,
 * k-means and random starts; a long series from the fit of its blocks (fit_blocks). */
static int fit_data(const data_t *d, int K, const hmm_t *init, const hmm_opts_t *o,
                    hmm_t *out, char *why, size_t nwhy)
{
    memset(out, 0, sizeof(*out));
    if (K < 1 || K > HMM_MAX_K)
        return why_fail(why, nwhy, "K = %d states (1..%d)", K, HMM_MAX_K);
    if (d->n < (size_t)K)
        return why_fail(why, nwhy, "%zu samples for %d states (need T >= K)", d->n, K);
    if ((size_t)K > SIZE_MAX / sizeof(double) / d->T)
        return why_fail(why, nwhy, "%zu samples x %d states: too large", d->T, K);

    if (!init && d->T >= 2 * HMM_SUB_BLOCKS * HMM_SUB_LEN) {
        hmm_t sub;
        if (fit_blocks(d, K, o, &sub, why, nwhy))
            return -1;
        hmm_opts_t q = o ? *o : (hmm_opts_t){0};
        if (!(q.max_iter > 0 && q.max_iter < HMM_POLISH_ITER))
            q.max_iter = HMM_POLISH_ITER;
        int rc = fit_data(d, K, &sub, &q, out, why, nwhy);
        hmm_free(&sub);
        return rc;
    }
    work_t w = {.d = d, .K = K};
    size_t tk = d->T * (size_t)K;
    w.alpha = malloc(tk * sizeof(double));
    w.b = malloc(tk * sizeof(double));
    w.c = malloc(d->T * sizeof(double));
    w.m = malloc(d->T * sizeof(double));
    w.acc = malloc((size_t)(6 * K + K * K) * sizeof(double));
    par_t cur = {0}, best = {0};
    int rc = -1;
    if (!w.alpha || !w.b || !w.c || !w.m || !w.acc || par_alloc(&cur, K) ||
        par_alloc(&best, K)) {
        why_fail(why, nwhy, "out of memory");
        goto done;
    }
    int max_iter = o && o->max_iter > 0 ? o->max_iter : 500;
    double tol = o && o->tol > 0 ? o->tol : fmax(1e-7 * (double)d->n, 1e-6);
    int starts = init ? 1 : 2 + (o && o->restarts > 0 ? o->restarts : 0);
    int screen = o && o->screen_iter != 0 ? o->screen_iter : HMM_SCREEN_ITER;
    if (screen < 0 || screen > max_iter || starts == 1)
        screen = max_iter;
    uint64_t seed = o ? o->seed : 0;
    double best_ll = -INFINITY, sdf = sqrt(d->var_floor);
    int found = 0, best_s = 0, best_it = 0, best_conv = 0;
    for (int s = 0; s < starts; s++) {
        if (s == 1 && K == 1)
            continue; /* k-means of one cluster is the quantile start again */
        int it = 0, conv = 0;
        if (init) {
            par_t ip = {init->pi, init->A, init->mu, init->sd};
            par_copy(&cur, &ip, K);
            for (int k = 0; k < K; k++)
                if (!(cur.sd[k] > sdf))
                    cur.sd[k] = sdf;
        } else {
            init_start(&w, &cur, s, seed);
        }
        double ll = estep(&w, &cur);
        if (isnan(ll))
            continue;
        if (o && o->on_iter)
            o->on_iter(o->ctx, s, 0, ll);
        if (run_em(&w, &cur, o, s, 0, screen, tol, &ll, &it, &conv) != 0)
            continue;
        if (found && !(ll > best_ll))
            continue;
        par_copy(&best, &cur, K);
        best_ll = ll, best_s = s, best_it = it, best_conv = conv, found = 1;
    }
    if (found && !best_conv && best_it < max_iter) {
        /* small EM: only the best start runs on; its E-step is redone (w holds another's) */
        double ll = estep(&w, &best);
        int it = best_it, conv = 0;
        if (!isnan(ll) &&
            run_em(&w, &best, o, best_s, best_it, max_iter, tol, &ll, &it, &conv) == 0)
            best_ll = ll, best_it = it, best_conv = conv;
    }
    if (!found) {
        why_fail(why, nwhy, "every start of the %d-state fit failed (a vanished likelihood)",
                 K);
        goto done;
    }
    sort_states(&best, K, w.acc);
    out->K = K;
    out->pi = best.pi, out->A = best.A, out->mu = best.mu, out->sd = best.sd;
    out->loglik = best_ll;
    out->iterations = best_it, out->converged = best_conv;
    out->n = d->n;
    memset(&best, 0, sizeof(best));
    rc = 0;
done:
    if (rc)
        memset(out, 0, sizeof(*out));
    par_free(&cur);
    par_free(&best);
    free(w.alpha);
    free(w.b);
    free(w.c);
    free(w.m);
    free(w.acc);
    return rc;
}

int hmm_fit(const double *x, size_t T, int K, const hmm_opts_t *o, hmm_t *out, char *why,
            size_t nwhy)
{
    if (!out)
        return why_fail(why, nwhy, "no output model");
    memset(out, 0, sizeof(*out));
    if (K < 1 || K > HMM_MAX_K)
        return why_fail(why, nwhy, "K = %d states (1..%d)", K, HMM_MAX_K);
    if (T < (size_t)K)
        return why_fail(why, nwhy, "%zu samples for %d states (need T >= K)", T, K);
    if (check_x(x, T, why, nwhy) || check_opts(o, why, nwhy))
        return -1;
    data_t d;
    if (data_prep(&d, x, T, NULL, o, why, nwhy))
        return -1;
    int rc = fit_data(&d, K, NULL, o, out, why, nwhy);
    free(d.sorted);
    return rc;
}

static int check_model(const hmm_t *m)
{
    if (!m || m->K < 1 || m->K > HMM_MAX_K || !m->pi || !m->A || !m->mu || !m->sd)
        return -1;
    for (int k = 0; k < m->K; k++)
        if (!isfinite(m->mu[k]) || !(m->sd[k] > 0) || !isfinite(m->sd[k]) ||
            !(m->pi[k] >= 0))
            return -1;
    for (int i = 0; i < m->K * m->K; i++)
        if (!(m->A[i] >= 0))
            return -1;
    return 0;
}

int hmm_fit_from(const double *x, size_t T, const hmm_t *init, const hmm_opts_t *o,
                 hmm_t *out, char *why, size_t nwhy)
{
    if (!out)
        return why_fail(why, nwhy, "no output model");
    memset(out, 0, sizeof(*out));
    if (check_model(init))
        return why_fail(why, nwhy, "the initial model is not a model");
    if (T < (size_t)init->K)
        return why_fail(why, nwhy, "%zu samples for %d states (need T >= K)", T, init->K);
    if (check_x(x, T, why, nwhy) || check_opts(o, why, nwhy))
        return -1;
    data_t d;
    if (data_prep(&d, x, T, NULL, o, why, nwhy))
        return -1;
    int rc = fit_data(&d, init->K, init, o, out, why, nwhy);
    free(d.sorted);
    return rc;
}

double hmm_loglik(const hmm_t *m, const double *x, size_t T)
{
    if (check_model(m) || check_x(x, T, NULL, 0))
        return NAN;
    const int K = m->K;
    double nh[HMM_MAX_K], isd[HMM_MAX_K], row[2][HMM_MAX_K], ll = 0;
    dens_consts(K, m->sd, nh, isd);
    for (size_t t = 0; t < T; t++) {
        double bt[HMM_MAX_K], mx = emit(x[t], K, m->mu, nh, isd, bt);
        double s = fwd_step(K, m->pi, m->A, t ? row[(t - 1) & 1] : NULL, bt, row[t & 1]);
        if (!(s > 0) || !isfinite(s))
            return -INFINITY;
        ll += log(s) + mx;
    }
    return ll;
}

int hmm_viterbi_mask(const hmm_t *m, const double *x, size_t T, const uint8_t *skip,
                     int *labels)
{
    if (check_model(m) || (T && (!x || !labels)) || check_x(x, T, NULL, 0))
        return -1;
    if (T == 0)
        return 0;
    const int K = m->K;
    if ((size_t)K > SIZE_MAX / sizeof(int) / T)
        return -1;
    int *bp = malloc(T * (size_t)K * sizeof(int));
    double *lA = malloc((size_t)K * (size_t)K * sizeof(double));
    if (!bp || !lA) {
        free(bp);
        free(lA);
        return -1;
    }
    double d[HMM_MAX_K], nd[HMM_MAX_K], nh[HMM_MAX_K], isd[HMM_MAX_K];
    dens_consts(K, m->sd, nh, isd);
    for (int i = 0; i < K * K; i++)
        lA[i] = log(m->A[i]);
    for (size_t t = 0; t < T; t++) {
        int sk = skip && skip[t];
        for (int j = 0; j < K; j++) {
            double z = (x[t] - m->mu[j]) * isd[j], le = sk ? 0 : nh[j] - 0.5 * z * z;
            if (t == 0) {
                nd[j] = log(m->pi[j]) + le;
                continue;
            }
            int arg = 0;
            double bv = d[0] + lA[j];
            for (int i = 1; i < K; i++) {
                double v = d[i] + lA[i * K + j];
                if (v > bv)
                    bv = v, arg = i;
            }
            bp[t * (size_t)K + j] = arg;
            nd[j] = bv + le;
        }
        memcpy(d, nd, (size_t)K * sizeof(double));
    }
    int s = 0;
    for (int k = 1; k < K; k++)
        if (d[k] > d[s])
            s = k;
    for (size_t t = T; t-- > 0;) {
        labels[t] = s;
        if (t > 0)
            s = bp[t * (size_t)K + s];
    }
    if (skip)
        for (size_t t = 0; t < T; t++) {
            if (!skip[t])
                continue;
            int best = 0;
            double bv = -INFINITY;
            for (int k = 0; k < K; k++) {
                double z = (x[t] - m->mu[k]) * isd[k], le = nh[k] - 0.5 * z * z;
                if (le > bv)
                    bv = le, best = k;
            }
            labels[t] = best;
        }
    free(bp);
    free(lA);
    return 0;
}

int hmm_viterbi(const hmm_t *m, const double *x, size_t T, int *labels)
{
    return hmm_viterbi_mask(m, x, T, NULL, labels);
}

double hmm_bic(const hmm_t *m, size_t T)
{
    double K = m->K, p = K * K + 2 * K - 1;
    return -2 * m->loglik + p * log((double)T);
}

/* One selection over K = 1..kmax on d; *out the K of least BIC (emptied first). */
static int select_data(const data_t *d, int kmax, const hmm_opts_t *o, hmm_t *out,
                       double *bic, char *why, size_t nwhy)
{
    double best = INFINITY;
    int found = 0;
    for (int K = 1; K <= kmax; K++) {
        hmm_t m;
        double b = NAN;
        if (fit_data(d, K, NULL, o, &m, why, nwhy) == 0) {
            b = hmm_bic(&m, d->n);
            if (!found || b < best) {
                hmm_free(out);
                *out = m, best = b, found = 1;
            } else {
                hmm_free(&m);
            }
        }
        if (bic)
            bic[K - 1] = b;
    }
    return found ? 0 : -1;
}

int hmm_select(const double *x, size_t T, int kmax, const hmm_opts_t *o, hmm_t *out,
               double *bic, char *why, size_t nwhy)
{
    if (!out)
        return why_fail(why, nwhy, "no output model");
    memset(out, 0, sizeof(*out));
    if (kmax < 1 || kmax > HMM_MAX_K)
        return why_fail(why, nwhy, "kmax = %d (1..%d)", kmax, HMM_MAX_K);
    if (check_x(x, T, why, nwhy) || check_opts(o, why, nwhy))
        return -1;
    if (T == 0)
        return why_fail(why, nwhy, "no samples");
    size_t min_state = (T + 999) / 1000;
    if (min_state < 5)
        min_state = 5;
    if (o && o->min_state != 0)
        min_state = o->min_state < 0 ? 0 : (size_t)o->min_state;
    uint8_t *skip = NULL;
    int *lab = NULL, rc = -1;
    size_t n_out = 0;
    for (int round = 0; round < HMM_OUTLIER_ROUNDS; round++) {
        data_t d;
        hmm_t m = {0};
        rc = -1; /* a round that fails fails the selection: out would not match skip */
        if (data_prep(&d, x, T, skip, o, why, nwhy))
            break;
        int st = select_data(&d, kmax, o, &m, bic, why, nwhy);
        free(d.sorted);
        if (st != 0)
            break;
        hmm_free(out);
        *out = m, rc = 0;
        if (min_state == 0 || m.K == 1 || round + 1 == HMM_OUTLIER_ROUNDS)
            break;
        if (!lab && !(lab = malloc(T * sizeof(int)))) {
            why_fail(why, nwhy, "out of memory");
            rc = -1;
            break;
        }
        if (hmm_viterbi_mask(&m, x, T, skip, lab) != 0) {
            why_fail(why, nwhy, "out of memory");
            rc = -1;
            break;
        }
        size_t occ[HMM_MAX_K] = {0}, add = 0;
        for (size_t t = 0; t < T; t++)
            if (!(skip && skip[t]))
                occ[lab[t]]++;
        for (size_t t = 0; t < T; t++)
            add += !(skip && skip[t]) && occ[lab[t]] < min_state;
        if (add == 0 || add >= d.n)
            break;
        if (!skip && !(skip = calloc(T, 1))) {
            why_fail(why, nwhy, "out of memory");
            rc = -1;
            break;
        }
        for (size_t t = 0; t < T; t++)
            if (!skip[t] && occ[lab[t]] < min_state)
                skip[t] = 1;
        n_out += add;
    }
    free(lab);
    if (rc != 0) {
        hmm_free(out);
        free(skip);
        return -1;
    }
    /* the model of the last round was fitted with every sample set aside so far missing */
    out->n_outliers = n_out;
    out->outlier = n_out ? skip : NULL;
    if (!n_out)
        free(skip);
    if (why && nwhy)
        why[0] = '\0';
    return 0;
}
