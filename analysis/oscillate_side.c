/* oscillate_side.c: one side of the comparison (oscillate.h): the model integrated on the
 * measured side's grid, its metrics computed by the very functions of the measured side,
 * its iteration boundaries from the dense output, and the figures of either side. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oscillate.h"
#include "pstat.h"
#include "vec.h"

void osf_series_free(osf_series_t *s)
{
    free(s->R);
    free(s->S);
    free(s->E);
    free(s->gmean);
    free(s->g);
    free(s->dev);
    memset(s, 0, sizeof(*s));
}

int osf_series_alloc(osf_series_t *s, size_t n, int32_t P)
{
    memset(s, 0, sizeof(*s));
    s->n = n;
    s->P = P;
    size_t np = n * (size_t)P;
    s->R = malloc((n ? n : 1) * sizeof(double));
    s->S = malloc((n ? n : 1) * sizeof(double));
    s->E = malloc((n ? n : 1) * sizeof(double));
    s->gmean = malloc((n ? n : 1) * sizeof(double));
    s->g = malloc((np ? np : 1) * sizeof(float));
    s->dev = malloc((np ? np : 1) * sizeof(float));
    if (!s->R || !s->S || !s->E || !s->gmean || !s->g || !s->dev) {
        osf_series_free(s);
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        s->R[k] = s->S[k] = s->E[k] = s->gmean[k] = NAN;
    for (size_t k = 0; k < np; k++)
        s->g[k] = s->dev[k] = NAN;
    return 0;
}

void osf_series_set(osf_series_t *s, size_t k, const double *theta, double R, double S,
                    double E, const double *gabs)
{
    assert(k < s->n);
    int32_t P = s->P;
    s->R[k] = R;
    s->S[k] = S;
    s->E[k] = E;
    double mean = 0, gs = 0;
    size_t nf = 0, ng = 0;
    for (int32_t i = 0; i < P; i++) {
        if (!isnan(theta[i])) {
            mean += theta[i];
            nf++;
        }
        if (!isnan(gabs[i])) {
            gs += gabs[i];
            ng++;
        }
    }
    mean = nf ? mean / (double)nf : NAN;
    s->gmean[k] = ng ? gs / (double)ng : NAN;
    float *g = s->g + k * (size_t)P, *d = s->dev + k * (size_t)P;
    for (int32_t i = 0; i < P; i++) {
        g[i] = (float)gabs[i];
        d[i] = (float)(theta[i] - mean);
    }
}

void osf_series_point(osf_series_t *s, size_t k, const double *theta, const ph_topo_t *topo,
                      const ph_potential_t *pot, int entropy, double *scratch, double *gabs,
                      double *gsig)
{
    double R, psi;
    uint32_t nb;
    ph_order(theta, (size_t)s->P, &R, &psi);
    double S = ph_entropy(theta, (size_t)s->P, psi, scratch, &nb, entropy);
    ph_gradient(theta, topo, gabs, gsig);
    osf_series_set(s, k, theta, R, S, ph_energy(theta, topo, pot), gabs);
}

double osf_distance(const osf_series_t *a, const osf_series_t *b)
{
    if (a->n != b->n || a->P != b->P)
        return NAN;
    double sum = 0;
    size_t c = 0, np = a->n * (size_t)a->P;
    for (size_t k = 0; k < np; k++) {
        double d = (double)a->dev[k] - (double)b->dev[k];
        if (!isnan(d)) {
            sum += d * d;
            c++;
        }
    }
    return c ? sqrt(sum / (double)c) : NAN;
}

const char *osf_pattern_name(int p)
{
    static const char *const names[] = {"synchronised", "wavefront", "splay", "disordered"};
    return p >= 0 && p <= OSF_DISORDERED ? names[p] : "disordered";
}

void osf_wave_free(osf_wave_t *w)
{
    free(w->distance);
    free(w->arrival);
    free(w->excess_ns);
    memset(w, 0, sizeof(*w));
    w->ranks_per_iter = NAN;
}

static double median_of(double *x, size_t n)
{
    qsort(x, n, sizeof(*x), pstat_cmp_double);
    return pstat_quantile(x, n, 0.5);
}

int osf_wave_find(const ph_marks_t *m, const ph_topo_t *topo, int32_t src, uint32_t k0,
                  osf_wave_t *w)
{
    int32_t P = m->nranks;
    memset(w, 0, sizeof(*w));
    w->ranks_per_iter = NAN;
    w->k0 = k0;
    w->source_excess_ns = NAN;
    w->distance = malloc((size_t)P * sizeof(*w->distance));
    w->arrival = malloc((size_t)P * sizeof(*w->arrival));
    w->excess_ns = malloc((size_t)P * sizeof(*w->excess_ns));
    uint32_t most = 0;
    for (int32_t r = 0; r < P; r++)
        most = m->n[r] > most ? m->n[r] : most;
    double *d = malloc(((size_t)most + 1) * sizeof(*d));
    if (!w->distance || !w->arrival || !w->excess_ns || !d ||
        src < 0 || src >= P || ph_hop_distance(topo, src, w->distance) != 0) {
        free(d);
        if (src < 0 || src >= P)
            return 0; /* no source: nothing found */
        return -1;
    }
    int32_t dmax = 0;
    for (int32_t r = 0; r < P; r++)
        dmax = w->distance[r] > dmax ? w->distance[r] : dmax;
    uint32_t win = 2 * ((uint32_t)dmax + 2);
    double med_src = NAN;
    double *mad = malloc((size_t)P * sizeof(*mad));
    if (mad == NULL) {
        free(d);
        return -1;
    }
    for (int32_t r = 0; r < P; r++) {
        w->arrival[r] = -1;
        w->excess_ns[r] = NAN;
        mad[r] = NAN;
        uint32_t n = m->n[r];
        if (n < 3 || k0 + 1 >= n)
            continue;
        size_t nd = n - 1;
        for (size_t k = 0; k < nd; k++)
            d[k] = (double)(m->t[r][k + 1] - m->t[r][k]);
        /* the window's durations are read before the sort below reorders d */
        double best = -INFINITY;
        int32_t at = -1;
        for (uint32_t k = k0; k < nd && k <= k0 + win; k++) {
            if (d[k] > best) {
                best = d[k];
                at = (int32_t)k;
            }
        }
        double med = median_of(d, nd);
        for (size_t k = 0; k < nd; k++)
            d[k] = fabs(d[k] - med);
        mad[r] = median_of(d, nd);
        if (r == src)
            med_src = med;
        w->excess_ns[r] = best - med;
        w->arrival[r] = at;
    }
    free(d);
    w->source_excess_ns = w->excess_ns[src];
    double floor_src = 0.05 * w->source_excess_ns;
    if (!(w->source_excess_ns > fmax(5 * mad[src], 0.01 * med_src)))
        floor_src = INFINITY; /* the source's own jitter: no perturbation to follow */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    size_t c = 0;
    int32_t dlo = INT32_MAX, dhi = -1;
    for (int32_t r = 0; r < P; r++) {
        if (r == src || w->arrival[r] < 0 || w->distance[r] < 1 ||
            !(w->source_excess_ns > 0) || !(w->excess_ns[r] > fmax(5 * mad[r], floor_src))) {
            if (r != src)
                w->arrival[r] = -1;
            continue;
        }
        double x = w->distance[r], y = w->arrival[r] - (double)k0;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        c++;
        dlo = w->distance[r] < dlo ? w->distance[r] : dlo;
        dhi = w->distance[r] > dhi ? w->distance[r] : dhi;
    }
    free(mad);
    w->reached = (uint32_t)c;
    w->reach_hops = c ? dhi : 0;
    if (c >= 2 && dhi > dlo) {
        double slope = (c * sxy - sx * sy) / (c * sxx - sx * sx); /* iterations per hop */
        w->found = 1;
        w->ranks_per_iter = slope > 0 ? 1 / slope : INFINITY;
    }
    return 0;
}

void osf_figures_free(osf_figures_t *f)
{
    osf_wave_free(&f->wave);
    memset(f, 0, sizeof(*f));
}

/* Mean of the finite values of x[a..b). */
static double mean_of(const double *x, size_t a, size_t b)
{
    double s = 0;
    size_t c = 0;
    for (size_t k = a; k < b; k++)
        if (!isnan(x[k])) {
            s += x[k];
            c++;
        }
    return c ? s / (double)c : NAN;
}

/* The pattern at the last grid point, with R's mean over the last quarter (enum
 * osf_pattern): the wrapped differences along the edges of topo (each unordered pair once). */
static int pattern_of(const osf_series_t *s, const ph_topo_t *topo, double r_tail)
{
    if (!(r_tail < 0.9))
        return OSF_SYNC;
    if (s->n == 0 || topo->nnz == 0)
        return OSF_DISORDERED;
    /* the phases at the end, from their deviations (a common shift changes no difference) */
    const float *d = s->dev + (s->n - 1) * (size_t)s->P;
    double sum = 0, sq = 0;
    size_t c = 0;
    for (int32_t i = 0; i < topo->n; i++)
        for (uint32_t e = topo->off[i]; e < topo->off[i + 1]; e++) {
            int32_t j = topo->nb[e];
            if (j < i && ph_topo_has(topo, j, i))
                continue; /* both ways: counted once, from the lower rank */
            double x = fabs(ph_wrap_pi((double)d[j] - (double)d[i]));
            if (isnan(x))
                continue;
            sum += x;
            sq += x * x;
            c++;
        }
    if (c == 0)
        return OSF_DISORDERED;
    double m = sum / (double)c, var = sq / (double)c - m * m;
    double cv = m > 0 ? sqrt(var > 0 ? var : 0) / m : INFINITY;
    if (m > 0.1 && cv < 0.5)
        return r_tail < 0.2 ? OSF_SPLAY : OSF_WAVEFRONT;
    return OSF_DISORDERED;
}

int osf_figures_of(const osf_series_t *s, const ph_marks_t *m, const ph_topo_t *topo,
                   const ph_grid_t *grid, int32_t src_rank, int64_t src_t,
                   double recover_frac, int64_t period_ns, osf_figures_t *f)
{
    memset(f, 0, sizeof(*f));
    f->wave.ranks_per_iter = NAN;
    f->r_mean = mean_of(s->R, 0, s->n);
    f->s_mean = mean_of(s->S, 0, s->n);
    f->e_mean = mean_of(s->E, 0, s->n);
    f->g_mean = mean_of(s->gmean, 0, s->n);
    f->r_tail = mean_of(s->R, s->n - s->n / 4, s->n);
    f->pattern = pattern_of(s, topo, f->r_tail);
    f->resync_s = NAN;
    ph_recovery_clear(&f->rec);
    if (src_rank < 0 || src_rank >= m->nranks || m->n[src_rank] < 2)
        return 0;
    /* the iteration the perturbation falls in: the last boundary at or before it */
    uint32_t it = 0;
    while (it + 1 < m->n[src_rank] && m->t[src_rank][it + 1] <= src_t)
        it++;
    if (osf_wave_find(m, topo, src_rank, it, &f->wave) != 0)
        return -1;
    if (ph_recovery_find(s->R, grid, src_t, period_ns, recover_frac, &f->rec) != 0)
        return -1;
    if (f->rec.found && f->rec.recovered)
        f->resync_s = (double)(f->rec.t_back - f->rec.t_from) / 1e9;
    return 0;
}

void osf_side_free(osf_side_t *s)
{
    osf_series_free(&s->ser);
    ph_marks_free(&s->marks);
    osf_figures_free(&s->fig);
    memset(s, 0, sizeof(*s));
}

typedef struct side_ctx {
    const osf_setup_t *su;
    osf_series_t *ser;
    size_t next;
    double *scratch, *gabs, *gsig;
} side_ctx_t;

static int on_sample(void *vctx, double t, const double *theta)
{
    side_ctx_t *c = vctx;
    (void)t;
    if (c->next >= c->ser->n)
        return 0; /* rounding gave one more sample than grid points */
    osf_series_point(c->ser, c->next++, theta, c->su->topo, c->su->epot, c->su->entropy,
                     c->scratch, c->gabs, c->gsig);
    return 0;
}

/* The model's boundaries: level k of rank i at index k - kbase; levels before the first
 * crossing from su->past or, without, free running backwards from theta0. */
static int model_marks(const osf_setup_t *su, const osc_crossings_t *cx, ph_marks_t *m)
{
    int32_t P = su->model->n;
    int64_t kbase = 0;
    if (su->past == NULL) {
        kbase = INT64_MAX;
        for (int32_t i = 0; i < P; i++)
            if (cx->first[i] - 1 < kbase)
                kbase = cx->first[i] - 1;
    }
    memset(m, 0, sizeof(*m));
    m->nranks = P;
    m->n = calloc((size_t)P, sizeof(*m->n));
    m->t = calloc((size_t)P, sizeof(*m->t));
    if (m->n == NULL || m->t == NULL)
        return -1;
    double t0 = (double)su->grid->t0;
    for (int32_t i = 0; i < P; i++) {
        int64_t before = cx->first[i] - kbase; /* levels kbase .. first - 1 */
        if (su->past != NULL) {
            if (i >= su->past->nranks || (int64_t)su->past->n[i] < before)
                before = i < su->past->nranks ? su->past->n[i] : 0;
        }
        if (before < 0)
            before = 0;
        size_t n = (size_t)before + cx->count[i];
        m->t[i] = malloc((n ? n : 1) * sizeof(int64_t));
        if (m->t[i] == NULL)
            return -1;
        int64_t *out = m->t[i];
        size_t k = 0;
        for (int64_t l = cx->first[i] - before; l < cx->first[i]; l++) {
            if (su->past != NULL)
                out[k++] = su->past->t[i][l];
            else
                out[k++] = (int64_t)llround(
                    t0 + (2 * M_PI * (double)l - su->theta0[i]) / su->model->omega[i] * 1e9);
        }
        for (uint32_t c = 0; c < cx->count[i]; c++)
            out[k++] = (int64_t)llround(t0 + cx->t[i][c] * 1e9);
        m->n[i] = (uint32_t)k;
    }
    return 0;
}

plog_err_t osf_side_run(const osf_setup_t *su, osf_side_t *out, plog_error_t *err)
{
    memset(out, 0, sizeof(*out));
    const osc_model_t *mo = su->model;
    int32_t P = mo->n;
    char why[256];
    if (osc_model_check(mo, why, sizeof(why)) != 0)
        return plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET, "the model: %s", why);
    const ph_grid_t *G = su->grid;
    if (G->n < 2 || G->dt <= 0)
        return plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET, "the model: a grid of %zu "
                         "points", G->n);
    side_ctx_t c = {.su = su, .ser = &out->ser};
    osc_crossings_t cx;
    memset(&cx, 0, sizeof(cx));
    plog_err_t e = PLOG_OK;
    c.scratch = malloc((size_t)P * sizeof(double));
    c.gabs = malloc((size_t)P * sizeof(double));
    c.gsig = malloc((size_t)P * sizeof(double));
    if (!c.scratch || !c.gabs || !c.gsig || osf_series_alloc(&out->ser, G->n, P) != 0) {
        e = plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
        goto done;
    }
    double dt = (double)G->dt / 1e9;
    /* half a step past the last point, so that rounding never drops it */
    osc_run_t r = {.t0 = 0, .t1 = dt * ((double)G->n - 0.5), .theta0 = su->theta0,
                   .dt_out = dt, .sample = on_sample, .ctx = &c, .crossings = 1};
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int rc = osc_integrate(mo, su->solver, &r, &cx, &out->stats, why, sizeof(why));
    clock_gettime(CLOCK_MONOTONIC, &b);
    out->cpu_s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    if (rc != 0) {
        e = plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET, "integrating the model: %s", why);
        goto done;
    }
    if (model_marks(su, &cx, &out->marks) != 0 ||
        osf_figures_of(&out->ser, &out->marks, su->topo, G, su->src_rank, su->src_t,
                       su->recover_frac, su->period_ns, &out->fig) != 0)
        e = plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
done:
    osc_crossings_free(&cx);
    free(c.scratch);
    free(c.gabs);
    free(c.gsig);
    if (e != PLOG_OK)
        osf_side_free(out);
    return e;
}

int osf_graph_of_topo(const ph_topo_t *t, osc_graph_t *g)
{
    memset(g, 0, sizeof(*g));
    g->n = t->n;
    g->nnz = t->nnz;
    g->off = malloc(((size_t)t->n + 1) * sizeof(*g->off));
    g->nb = malloc((t->nnz ? t->nnz : 1) * sizeof(*g->nb));
    if (g->off == NULL || g->nb == NULL) {
        osc_graph_free(g);
        return -1;
    }
    memcpy(g->off, t->off, ((size_t)t->n + 1) * sizeof(*g->off));
    if (t->nnz)
        memcpy(g->nb, t->nb, t->nnz * sizeof(*g->nb));
    return 0;
}

int osf_topo_of_graph(const osc_graph_t *g, ph_topo_t *t)
{
    memset(t, 0, sizeof(*t));
    t->n = g->n;
    t->nnz = g->nnz;
    t->off = malloc(((size_t)g->n + 1) * sizeof(*t->off));
    t->nb = malloc((g->nnz ? g->nnz : 1) * sizeof(*t->nb));
    if (t->off == NULL || t->nb == NULL) {
        ph_topo_free(t);
        return -1;
    }
    memcpy(t->off, g->off, ((size_t)g->n + 1) * sizeof(*t->off));
    if (g->nnz)
        memcpy(t->nb, g->nb, g->nnz * sizeof(*t->nb));
    return 0;
}

/* ---- topologies from a spec or a CSV matrix ---- */

plog_err_t osf_graph_read_csv(const char *path, int32_t P, osc_graph_t *g, int32_t *rows,
                              plog_error_t *err)
{
    memset(g, 0, sizeof(*g));
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return plog_fail(err, PLOG_E_IO, path, PLOG_NO_OFFSET, "%s", strerror(errno));
    int32_t *pairs = NULL;
    size_t np = 0, cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    int32_t row = 0, cols = -1;
    long lineno = 0;
    plog_err_t e = PLOG_OK;
    while (getline(&line, &lcap, f) >= 0) {
        lineno++;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0')
            continue;
        int32_t col = 0;
        for (;;) {
            char *end;
            errno = 0;
            double v = strtod(s, &end);
            if (end == s || errno || !isfinite(v)) {
                e = plog_fail(err, PLOG_E_CORRUPT, path, PLOG_NO_OFFSET,
                              "line %ld, column %d: not a number", lineno, (int)col + 1);
                goto out;
            }
            if (v != 0) {
                if (col == row) {
                    e = plog_fail(err, PLOG_E_CORRUPT, path, PLOG_NO_OFFSET,
                                  "line %ld: T_%d%d is not 0 (a rank does not couple to itself)",
                                  lineno, (int)row, (int)col);
                    goto out;
                }
                if (np == cap && VEC_GROW(pairs, cap, 2 * (np + 1)) != 0) {
                    e = plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
                    goto out;
                }
                pairs[2 * np] = row;
                pairs[2 * np + 1] = col;
                np++;
            }
            col++;
            s = end;
            while (*s == ' ' || *s == '\t')
                s++;
            if (*s == ',') {
                s++;
                continue;
            }
            if (*s == '\n' || *s == '\r' || *s == '\0')
                break;
            e = plog_fail(err, PLOG_E_CORRUPT, path, PLOG_NO_OFFSET,
                          "line %ld, column %d: not a number", lineno, (int)col + 1);
            goto out;
        }
        if (cols >= 0 && col != cols) {
            e = plog_fail(err, PLOG_E_CORRUPT, path, PLOG_NO_OFFSET,
                          "line %ld: %d columns, the rows before have %d", lineno, (int)col,
                          (int)cols);
            goto out;
        }
        cols = col;
        if (++row > (1 << 20)) {
            e = plog_fail(err, PLOG_E_CORRUPT, path, PLOG_NO_OFFSET, "more than 2^20 rows");
            goto out;
        }
    }
    if (ferror(f)) {
        e = plog_fail(err, PLOG_E_IO, path, PLOG_NO_OFFSET, "%s", strerror(errno));
        goto out;
    }
    if (row == 0 || cols != row) {
        e = plog_fail(err, PLOG_E_CORRUPT, path, PLOG_NO_OFFSET,
                      "%d rows of %d columns: not a square matrix", (int)row, (int)cols);
        goto out;
    }
    if (P > 0 && row != P) {
        e = plog_fail(err, PLOG_E_USAGE, path, PLOG_NO_OFFSET, "a %d x %d matrix for %d ranks",
                      (int)row, (int)row, (int)P);
        goto out;
    }
    char why[160];
    if (osc_graph_from_pairs(row, pairs, np, g, why, sizeof(why)) != 0)
        e = plog_fail(err, PLOG_E_CORRUPT, path, PLOG_NO_OFFSET, "%s", why);
    else if (rows != NULL)
        *rows = row;
out:
    free(line);
    free(pairs);
    fclose(f);
    return e;
}

plog_err_t osf_graph_spec(const char *spec, int32_t P, osc_graph_t *g, plog_error_t *err)
{
    osc_topo_spec_t ts;
    char why[160];
    memset(g, 0, sizeof(*g));
    if (osc_topo_parse(spec, &ts) == 0) {
        if (osc_graph_named(P, &ts, g, why, sizeof(why)) != 0)
            return plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET, "topology %s: %s", spec,
                             why);
        return PLOG_OK;
    }
    return osf_graph_read_csv(spec, P, g, NULL, err);
}
