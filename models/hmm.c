/* hmm.c: 1-D Gaussian HMM (hmm.h). One fit allocates its work arrays once: the scaled
 * forward variables alpha (T x K), the shifted emissions b (T x K), the scales c and
 * shifts m (T each) and a sorted copy of x; the backward pass keeps two rows of beta and
 * accumulates the M-step's sums as it goes, so no T x K beta or gamma is stored. */
#include "hmm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pstat.h"
#include "why.h"

#define HMM_LOG_2PI 1.8378770664093454836
#define HMM_KMEANS_ITER 10
#define HMM_MAX_K 1024

/* splitmix64: a counter-based generator, its whole state in *s. */
static uint64_t hmm_sm64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Parameters of one start and the work arrays of one fit. */
typedef struct par {
    double *pi, *A, *mu, *sd;
} par_t;

typedef struct work {
    const double *x;
    size_t T;
    int K;
    double *alpha, *b, *c, *m; /* T*K, T*K, T, T */
    double *sorted;            /* T */
    double *acc;               /* M-step sums: g0[K] gs[K] gx[K] gxx[K] xi[K*K] beta 2K */
    double xbar, var, var_floor;
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

/* E-step: forward pass, then backward pass accumulating the sufficient statistics into
 * w->acc. Returns log L of p, or NAN when a scale factor vanished (the start fails). */
static double estep(work_t *w, const par_t *p)
{
    const int K = w->K;
    const size_t T = w->T;
    double lsd[HMM_MAX_K];
    for (int k = 0; k < K; k++)
        lsd[k] = log(p->sd[k]) + 0.5 * HMM_LOG_2PI;
    for (size_t t = 0; t < T; t++) {
        double *bt = w->b + t * (size_t)K, mx = -INFINITY;
        for (int k = 0; k < K; k++) {
            double z = (w->x[t] - p->mu[k]) / p->sd[k];
            bt[k] = -lsd[k] - 0.5 * z * z;
            if (bt[k] > mx)
                mx = bt[k];
        }
        for (int k = 0; k < K; k++)
            bt[k] = exp(bt[k] - mx);
        w->m[t] = mx;
    }
    double ll = 0;
    for (size_t t = 0; t < T; t++) {
        double *at = w->alpha + t * (size_t)K, *bt = w->b + t * (size_t)K, s = 0;
        if (t == 0) {
            for (int k = 0; k < K; k++)
                at[k] = p->pi[k] * bt[k];
        } else {
            const double *ap = at - K;
            for (int j = 0; j < K; j++) {
                double v = 0;
                for (int i = 0; i < K; i++)
                    v += ap[i] * p->A[i * K + j];
                at[j] = v * bt[j];
            }
        }
        for (int k = 0; k < K; k++)
            s += at[k];
        if (!(s > 0) || !isfinite(s))
            return NAN;
        for (int k = 0; k < K; k++)
            at[k] /= s;
        w->c[t] = s;
        ll += log(s) + w->m[t];
    }
    double *g0 = w->acc, *gs = g0 + K, *gx = gs + K, *gxx = gx + K, *xi = gxx + K;
    double *bn = xi + K * K, *bc = bn + K; /* beta at t+1 and at t */
    memset(w->acc, 0, (size_t)(4 * K + K * K) * sizeof(double));
    for (int k = 0; k < K; k++)
        bn[k] = 1;
    for (size_t t = T; t-- > 0;) {
        const double *at = w->alpha + t * (size_t)K;
        double dx = w->x[t] - w->xbar, gsum = 0, gam[HMM_MAX_K];
        if (t + 1 < T) {
            const double *b1 = w->b + (t + 1) * (size_t)K;
            double c1 = w->c[t + 1], bb[HMM_MAX_K];
            for (int j = 0; j < K; j++)
                bb[j] = b1[j] * bn[j] / c1;
            for (int i = 0; i < K; i++) {
                double v = 0;
                for (int j = 0; j < K; j++) {
                    double a = p->A[i * K + j] * bb[j];
                    v += a;
                    xi[i * K + j] += at[i] * a;
                }
                bc[i] = v;
            }
        } else {
            for (int k = 0; k < K; k++)
                bc[k] = 1;
        }
        for (int k = 0; k < K; k++)
            gsum += gam[k] = at[k] * bc[k];
        for (int k = 0; k < K; k++) {
            double g = gsum > 0 ? gam[k] / gsum : 0;
            gs[k] += g;
            gx[k] += g * dx;
            gxx[k] += g * dx * dx;
            if (t == 0)
                g0[k] = g;
        }
        memcpy(bn, bc, (size_t)K * sizeof(double));
    }
    return ll;
}

/* M-step from w->acc; a state or row with no weight keeps its old values. */
static void mstep(work_t *w, par_t *p)
{
    const int K = w->K;
    const double *g0 = w->acc, *gs = g0 + K, *gx = gs + K, *gxx = gx + K, *xi = gxx + K;
    double s0 = 0;
    for (int k = 0; k < K; k++)
        s0 += g0[k];
    for (int k = 0; k < K; k++) {
        if (s0 > 0)
            p->pi[k] = g0[k] / s0;
        if (gs[k] > 1e-300) {
            double mean = gx[k] / gs[k], var = gxx[k] / gs[k] - mean * mean;
            p->mu[k] = w->xbar + mean;
            p->sd[k] = sqrt(var > w->var_floor ? var : w->var_floor);
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
    const size_t T = w->T;
    double sd0 = sqrt(w->var) / K, sdf = sqrt(w->var_floor);
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
            p->mu[k] = w->sorted[hmm_sm64(&st) % T];
        qsort(p->mu, (size_t)K, sizeof(double), cmp_dbl);
        return;
    }
    for (int k = 0; k < K; k++)
        p->mu[k] = pstat_quantile(w->sorted, T, (k + 0.5) / K);
    if (s == 0)
        return;
    /* k-means on the sorted data: the clusters are contiguous runs split at midpoints. */
    double *sum = w->acc, *sq = sum + K, *n = sq + K;
    for (int it = 0; it < HMM_KMEANS_ITER; it++) {
        memset(w->acc, 0, (size_t)(3 * K) * sizeof(double));
        int k = 0;
        for (size_t t = 0; t < T; t++) {
            double v = w->sorted[t];
            while (k + 1 < K && v > 0.5 * (p->mu[k] + p->mu[k + 1]))
                k++;
            double d = v - w->xbar;
            sum[k] += d, sq[k] += d * d, n[k] += 1;
        }
        for (k = 0; k < K; k++)
            if (n[k] > 0)
                p->mu[k] = w->xbar + sum[k] / n[k];
        qsort(p->mu, (size_t)K, sizeof(double), cmp_dbl);
    }
    for (int k = 0; k < K; k++)
        if (n[k] >= 2) {
            double mk = sum[k] / n[k], v = sq[k] / n[k] - mk * mk;
            p->sd[k] = sqrt(v > w->var_floor ? v : w->var_floor);
        }
}

/* Runs EM from p; returns log L of the final p (NAN when the start failed). */
static double run_em(work_t *w, par_t *p, const hmm_opts_t *o, int start, int max_iter,
                     double tol, int *iters, int *conv)
{
    double ll = estep(w, p);
    *iters = 0, *conv = 0;
    if (isnan(ll))
        return NAN;
    while (*iters < max_iter) {
        mstep(w, p);
        ++*iters;
        double nl = estep(w, p);
        if (isnan(nl))
            return NAN;
        if (o && o->on_iter)
            o->on_iter(o->ctx, start, *iters, nl);
        double d = nl - ll;
        ll = nl;
        if (fabs(d) < tol) {
            *conv = 1;
            break;
        }
    }
    return ll;
}

void hmm_free(hmm_t *m)
{
    if (!m)
        return;
    free(m->pi);
    free(m->A);
    free(m->mu);
    free(m->sd);
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
    if (check_x(x, T, why, nwhy))
        return -1;
    if (o && (isnan(o->tol) || isnan(o->var_floor) || isinf(o->tol) || isinf(o->var_floor)))
        return why_fail(why, nwhy, "tol or var_floor is not finite");
    if ((size_t)K > SIZE_MAX / sizeof(double) / T)
        return why_fail(why, nwhy, "%zu samples x %d states: too large", T, K);

    work_t w = {.x = x, .T = T, .K = K};
    size_t tk = T * (size_t)K;
    w.alpha = malloc(tk * sizeof(double));
    w.b = malloc(tk * sizeof(double));
    w.c = malloc(T * sizeof(double));
    w.m = malloc(T * sizeof(double));
    w.sorted = malloc(T * sizeof(double));
    w.acc = malloc((size_t)(6 * K + K * K) * sizeof(double));
    par_t cur = {0}, best = {0};
    int rc = -1;
    if (!w.alpha || !w.b || !w.c || !w.m || !w.sorted || !w.acc || par_alloc(&cur, K) ||
        par_alloc(&best, K)) {
        why_fail(why, nwhy, "out of memory");
        goto done;
    }
    double s1 = 0, s2 = 0;
    for (size_t t = 0; t < T; t++)
        s1 += x[t];
    w.xbar = s1 / (double)T;
    for (size_t t = 0; t < T; t++)
        s2 += (x[t] - w.xbar) * (x[t] - w.xbar);
    w.var = s2 / (double)T;
    memcpy(w.sorted, x, T * sizeof(double));
    qsort(w.sorted, T, sizeof(double), cmp_dbl);
    if (o && o->var_floor > 0) {
        w.var_floor = o->var_floor;
    } else {
        double s = sqrt(w.var);
        if (!(s > 0))
            s = fabs(w.xbar) > 1 ? fabs(w.xbar) : 1;
        w.var_floor = (1e-3 * s) * (1e-3 * s);
    }
    int max_iter = o && o->max_iter > 0 ? o->max_iter : 500;
    double tol = o && o->tol > 0 ? o->tol : fmax(1e-7 * (double)T, 1e-6);
    int starts = 2 + (o && o->restarts > 0 ? o->restarts : 0);
    uint64_t seed = o ? o->seed : 0;
    double best_ll = -INFINITY;
    int found = 0;
    for (int s = 0; s < starts; s++) {
        if (s == 1 && K == 1)
            continue; /* k-means of one cluster is the quantile start again */
        int it, conv;
        init_start(&w, &cur, s, seed);
        double ll = run_em(&w, &cur, o, s, max_iter, tol, &it, &conv);
        if (isnan(ll) || (found && !(ll > best_ll)))
            continue;
        par_copy(&best, &cur, K);
        best_ll = ll, found = 1;
        out->iterations = it, out->converged = conv;
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
    free(w.sorted);
    free(w.acc);
    return rc;
}

int hmm_viterbi(const hmm_t *m, const double *x, size_t T, int *labels)
{
    if (!m || m->K < 1 || m->K > HMM_MAX_K || (T && (!x || !labels)) || check_x(x, T, NULL, 0))
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
    double d[HMM_MAX_K], nd[HMM_MAX_K], lsd[HMM_MAX_K];
    for (int k = 0; k < K; k++)
        lsd[k] = log(m->sd[k]) + 0.5 * HMM_LOG_2PI;
    for (int i = 0; i < K * K; i++)
        lA[i] = log(m->A[i]);
    for (size_t t = 0; t < T; t++) {
        for (int j = 0; j < K; j++) {
            double z = (x[t] - m->mu[j]) / m->sd[j], le = -lsd[j] - 0.5 * z * z;
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
    free(bp);
    free(lA);
    return 0;
}

double hmm_bic(const hmm_t *m, size_t T)
{
    double K = m->K, p = K * K + 2 * K - 1;
    return -2 * m->loglik + p * log((double)T);
}

int hmm_select(const double *x, size_t T, int kmax, const hmm_opts_t *o, hmm_t *out,
               double *bic, char *why, size_t nwhy)
{
    if (!out)
        return why_fail(why, nwhy, "no output model");
    memset(out, 0, sizeof(*out));
    if (kmax < 1 || kmax > HMM_MAX_K)
        return why_fail(why, nwhy, "kmax = %d (1..%d)", kmax, HMM_MAX_K);
    if (check_x(x, T, why, nwhy))
        return -1;
    double best = INFINITY;
    int found = 0;
    for (int K = 1; K <= kmax; K++) {
        hmm_t m;
        double b = NAN;
        if (hmm_fit(x, T, K, o, &m, why, nwhy) == 0) {
            b = hmm_bic(&m, T);
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
    if (found && why && nwhy)
        why[0] = '\0';
    return found ? 0 : -1;
}
