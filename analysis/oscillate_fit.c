/* oscillate_fit.c: the model of one run (oscillate.h, osf_fit): the measured side from the
 * phase study, the parameters from the log (doc/oscillate.md, "Fitted to a run"), the
 * potential's family and shape and the coupling's gain fitted by the distance between the
 * simulated and the measured phase pattern, and the comparison figure by figure. */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll_sched.h"
#include "oscillate.h"
#include "plog_calls.h"
#include "pstat.h"
#include "vec.h"

void osf_opts_defaults(osf_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->family = OSF_FAM_AUTO;
    o->delay_mode = OSF_DELAY_AUTO;
    o->noise_kind = -1;
    o->seed = 1;
    o->fit_evals = 14;
    osc_solver_defaults(&o->solver);
    o->whatif.noise_share = NAN;
    o->whatif.noise_kind = -1;
    o->whatif.coupling = NAN;
    o->whatif.delay_s = NAN;
    o->whatif.perturb_s = NAN;
    o->start_ns = INT64_MIN;
}

static plog_err_t nomem(plog_error_t *err)
{
    return plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
}

/* Quantile q of x[0..n) (sorted in place, pstat's definition); NaN for n = 0. */
static double quantile(double *x, size_t n, double q)
{
    qsort(x, n, sizeof(*x), pstat_cmp_double);
    return pstat_quantile(x, n, q);
}

/* ---- the measured side ---- */

static plog_err_t measured(osf_fit_t *f, plog_run_t *run, const osf_opts_t *o,
                           plog_error_t *err)
{
    ph_study_t *st = &f->st;
    plog_err_t e = ph_study_prepare(st, run, &o->study, err);
    if (e != PLOG_OK)
        return e;
    if ((e = ph_study_pairs(st, err)) != PLOG_OK)
        return e;
    if (st->with_phase < st->P) {
        int32_t r = 0;
        while (r < st->P && st->marks.n[r] >= 2)
            r++;
        return plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET,
                         "%d of %d ranks have no phase (rank %d has fewer than two iteration "
                         "boundaries): the model needs every rank's",
                         (int)(st->P - st->with_phase), (int)st->P, (int)r);
    }
    /* the grid compared: from the chosen start on (the model starts from the phases there) */
    f->grid = st->grid;
    if (o->start_ns > st->grid.t0) {
        int64_t g0 = (o->start_ns - st->grid.t0 + st->grid.dt - 1) / st->grid.dt;
        if ((size_t)g0 + 2 > st->grid.n)
            return plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET,
                             "--start %lld: past the iterations' common interval (it ends at "
                             "%lld ns)", (long long)o->start_ns,
                             (long long)(st->grid.t0 + (int64_t)(st->grid.n - 1) * st->grid.dt));
        f->g0 = (size_t)g0;
        f->grid.t0 += g0 * st->grid.dt;
        f->grid.n -= (size_t)g0;
    }
    if (osf_series_alloc(&f->meas, f->grid.n, st->P) != 0 ||
        (o->on_prepared != NULL && o->on_prepared(o->hook_ctx, st) != 0))
        return nomem(err);
    f->theta0 = malloc((size_t)st->P * sizeof(double));
    if (f->theta0 == NULL)
        return nomem(err);
    ph_point_t pt;
    int rc;
    while ((rc = ph_study_next(st, &pt, err)) > 0) {
        if (o->on_point != NULL)
            o->on_point(o->hook_ctx, &pt);
        if (pt.g < f->g0)
            continue;
        size_t k = pt.g - f->g0;
        if (k == 0)
            memcpy(f->theta0, pt.theta, (size_t)st->P * sizeof(double));
        osf_series_set(&f->meas, k, pt.theta, pt.R, pt.S, pt.E, pt.gabs);
    }
    if (rc < 0)
        return err->code;
    return ph_study_finish(st, err);
}

/* ---- what the log says of the coupling: beta, kappa, the delays ---- */

typedef struct lg_send { uint32_t k; int32_t peer; int64_t t; } lg_send_t;
typedef struct lg_recv { uint32_t k; int32_t peer; int64_t wait0, end; } lg_recv_t;

typedef struct logfacts {
    uint64_t max_bytes;       /* largest point-to-point message sent */
    double waits_per_iter;    /* median over ranks of the mean blocking completions that
                                 completed receives, per iteration */
    /* per rank: the first send to each peer and the first receive from each peer, per
     * iteration */
    lg_send_t **send;
    size_t *nsend, *csend;
    lg_recv_t **recv;
    size_t *nrecv, *crecv;
} logfacts_t;

static void logfacts_free(logfacts_t *lf, int32_t P)
{
    for (int32_t r = 0; lf->send != NULL && r < P; r++)
        free(lf->send[r]);
    for (int32_t r = 0; lf->recv != NULL && r < P; r++)
        free(lf->recv[r]);
    free(lf->send);
    free(lf->nsend);
    free(lf->csend);
    free(lf->recv);
    free(lf->nrecv);
    free(lf->crecv);
}

static plog_err_t log_facts(plog_run_t *run, const ph_marks_t *m, logfacts_t *lf,
                            plog_error_t *err)
{
    int32_t P = m->nranks;
    memset(lf, 0, sizeof(*lf));
    lf->send = calloc((size_t)P, sizeof(*lf->send));
    lf->recv = calloc((size_t)P, sizeof(*lf->recv));
    lf->nsend = calloc((size_t)P, sizeof(size_t));
    lf->csend = calloc((size_t)P, sizeof(size_t));
    lf->nrecv = calloc((size_t)P, sizeof(size_t));
    lf->crecv = calloc((size_t)P, sizeof(size_t));
    double *wpi = malloc((size_t)P * sizeof(double));
    if (!lf->send || !lf->recv || !lf->nsend || !lf->csend || !lf->nrecv || !lf->crecv || !wpi) {
        free(wpi);
        return nomem(err);
    }
    size_t nw = 0;
    plog_err_t e = PLOG_OK;
    for (int32_t r = 0; r < P && e == PLOG_OK; r++) {
        if (m->n[r] < 2)
            continue;
        plog_iter_t *it;
        if ((e = plog_iter_open(run, r, &it, err)) != PLOG_OK)
            break;
        const plog_rec_t *ev;
        uint32_t k = 0;
        uint64_t waits = 0;
        const int64_t *b = m->t[r];
        while ((e = plog_iter_next(it, &ev, err)) == PLOG_OK && ev != NULL) {
            if (ev->start_ns < b[0])
                continue;
            while (k + 1 < m->n[r] && ev->start_ns >= b[k + 1])
                k++;
            if (k + 1 >= m->n[r])
                break; /* past the last iteration */
            int send = ev->cls == PLOG_CLASS_SEND || ev->cls == PLOG_CLASS_ISEND ||
                       ev->cls == PLOG_CLASS_SENDRECV;
            if (send && ev->peer >= 0 && ev->peer < P && ev->peer != r) {
                if (ev->bytes > lf->max_bytes && ev->bytes != PLOG_BYTES_UNKNOWN)
                    lf->max_bytes = ev->bytes;
                if (lf->nsend[r] == lf->csend[r] &&
                    VEC_GROW(lf->send[r], lf->csend[r], lf->nsend[r] + 1) != 0) {
                    e = nomem(err);
                    break;
                }
                lf->send[r][lf->nsend[r]++] = (lg_send_t){k, ev->peer, ev->start_ns};
            }
            int blocking = ev->cls == PLOG_CLASS_RECV || ev->cls == PLOG_CLASS_SENDRECV ||
                           (ev->cls == PLOG_CLASS_COMPLETE && ev->call_name != NULL &&
                            strncmp(ev->call_name, "MPI_Wait", 8) == 0);
            int got = 0;
            for (uint32_t s = 0; s < ev->n_status; s++) {
                const plog_rstatus_t *rs = &ev->status[s];
                if (!ph_recv_source(ev, rs) || rs->source >= P)
                    continue;
                got = 1;
                if (lf->nrecv[r] == lf->crecv[r] &&
                    VEC_GROW(lf->recv[r], lf->crecv[r], lf->nrecv[r] + 1) != 0) {
                    e = nomem(err);
                    break;
                }
                lf->recv[r][lf->nrecv[r]++] =
                    (lg_recv_t){k, rs->source, ev->start_ns, ev->end_ns};
            }
            waits += blocking && got;
        }
        plog_iter_close(it);
        if (e == PLOG_OK && m->n[r] > 1)
            wpi[nw++] = (double)waits / (double)(m->n[r] - 1);
    }
    lf->waits_per_iter = quantile(wpi, nw, 0.5);
    free(wpi);
    return e;
}

/* tau_ij per edge of g: the median over iterations k of (i's completion of j's message -
 * j's send start), over the iterations where i was already waiting when j sent (else the
 * time measures i's lateness, not the message); edges without a sample get the median of
 * the others. Returns the number of edges measured. */
static size_t delays_from_log(const logfacts_t *lf, osc_graph_t *g, double *median_s)
{
    size_t measured = 0;
    double *all = malloc((g->nnz ? g->nnz : 1) * sizeof(double));
    double *smp = NULL;
    size_t cap = 0;
    if (all == NULL || osc_graph_set_delay(g, 0) != 0) {
        free(all);
        *median_s = 0;
        return 0;
    }
    for (int32_t i = 0; i < g->n; i++)
        for (uint32_t e = g->off[i]; e < g->off[i + 1]; e++) {
            int32_t j = g->nb[e];
            /* both lists are in iteration order (a rank's events are read in time order):
             * one pass over each, not every send for every receive */
            size_t ns = 0, b = 0;
            const lg_send_t *sj = lf->send[j];
            for (size_t a = 0; a < lf->nrecv[i]; a++) {
                const lg_recv_t *rv = &lf->recv[i][a];
                if (rv->peer != j)
                    continue;
                while (b < lf->nsend[j] && sj[b].k < rv->k)
                    b++;
                size_t x = b;
                while (x < lf->nsend[j] && sj[x].k == rv->k && sj[x].peer != i)
                    x++;
                if (x == lf->nsend[j] || sj[x].k != rv->k)
                    continue; /* no send of that iteration to i */
                if (rv->wait0 <= sj[x].t && rv->end >= sj[x].t) {
                    if (ns == cap && VEC_GROW(smp, cap, ns + 1) != 0)
                        break;
                    smp[ns++] = (double)(rv->end - sj[x].t) / 1e9;
                }
            }
            g->tau[e] = ns ? quantile(smp, ns, 0.5) : NAN;
            if (ns)
                all[measured++] = g->tau[e];
        }
    double med = measured ? quantile(all, measured, 0.5) : 0;
    for (size_t e = 0; e < g->nnz; e++)
        if (isnan(g->tau[e]))
            g->tau[e] = med;
    *median_s = med;
    free(all);
    free(smp);
    return measured;
}

/* ---- the fit ---- */

static void add_param(osf_fit_t *f, const char *name, double value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_param(osf_fit_t *f, const char *name, double value, const char *fmt, ...)
{
    assert(f->nparam < OSF_MAX_PARAMS);
    osf_param_t *p = &f->param[f->nparam++];
    p->name = name;
    p->value = value;
    p->d_at = p->d_lo = p->d_hi = NAN;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->how, sizeof(p->how), fmt, ap);
    va_end(ap);
}

static osf_param_t *param(osf_fit_t *f, const char *name)
{
    for (size_t k = 0; k < f->nparam; k++)
        if (strcmp(f->param[k].name, name) == 0)
            return &f->param[k];
    return NULL;
}

typedef struct fitctx {
    osf_fit_t *f;
    const osf_opts_t *o;
    osf_setup_t su;
    plog_error_t *err;
    plog_err_t e;
} fitctx_t;

/* The distance of the model as f->model holds it now; INFINITY when it fails (e set). */
void osf_natural(const osc_model_t *m, const double *rate, double *omega)
{
    const osc_graph_t *g = m->graph;
    double mean_r = m->noise.kind == OSC_NOISE_UNIFORM ? 0.5 : m->noise.kind == OSC_NOISE_EXP ? 1 : 0;
    for (int32_t i = 0; i < m->n; i++) {
        double c = 0;
        for (uint32_t e = g ? g->off[i] : 0; g && g->tau && e < g->off[i + 1]; e++)
            c += osc_pot_eval(&m->pot, -rate[i] * g->tau[e]);
        omega[i] = (rate[i] - m->vp / m->n * c) / (1 + m->noise.share * mean_r);
    }
}

static double evaluate(fitctx_t *c)
{
    osf_side_t side;
    c->f->evals++;
    osf_natural(&c->f->model, c->f->rate, c->f->omega);
    for (int32_t i = 0; i < c->f->model.n; i++)
        if (!(c->f->omega[i] >= 0))
            return INFINITY; /* the locked state needs a rank to run backwards: no model */
    c->su.model = &c->f->model;
    plog_err_t e = osf_side_run(&c->su, &side, c->err);
    if (e != PLOG_OK) {
        c->e = e;
        return INFINITY;
    }
    double d = osf_distance(&side.ser, &c->f->meas);
    osf_side_free(&side);
    return isnan(d) ? INFINITY : d;
}

typedef void (*setter_fn)(osf_fit_t *f, double x);

/* Golden-section search of x in [a, b] (set by set) for the least distance, n evaluations;
 * leaves the best x set and returns its distance. */
static double golden(fitctx_t *c, setter_fn set, double a, double b, unsigned n, double *best)
{
    const double g = 0.6180339887498949;
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    set(c->f, x1);
    double f1 = evaluate(c);
    set(c->f, x2);
    double f2 = evaluate(c);
    for (unsigned k = 2; k < n && c->e == PLOG_OK; k++) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            set(c->f, x1);
            f1 = evaluate(c);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            set(c->f, x2);
            f2 = evaluate(c);
        }
    }
    *best = f1 <= f2 ? x1 : x2;
    set(c->f, *best);
    return f1 <= f2 ? f1 : f2;
}

/* Parameters as the search sees them (logarithms where the scale is multiplicative). */
static void set_tanh(osf_fit_t *f, double x)
{
    f->model.pot = (osc_pot_t){.kind = OSC_POT_TANH, .s = exp(x)};
}
static void set_sigma(osf_fit_t *f, double x)
{
    f->model.pot = (osc_pot_t){.kind = OSC_POT_PIECEWISE, .sigma = x};
}
static void set_gain(osf_fit_t *f, double x)
{
    f->model.vp = f->vp_formula * exp(x);
}
static void set_tau(osf_fit_t *f, double x)
{
    osc_graph_set_delay(&f->graph, x); /* the array exists: the setter cannot fail */
}
/* the wait family's slack beyond the lag of one period, on a log scale: the distance is flat
 * once the slack stops the wave within a few hops, and falls in a narrow region near 0 */
static void set_slack(osf_fit_t *f, double x)
{
    f->model.pot = (osc_pot_t){.kind = OSC_POT_WAIT, .s = 8, .sigma = f->wait_lag + exp(x)};
}
/* the potential of another family: the wait family's clamp goes with it */
static void set_forward(osf_fit_t *f, int fam)
{
    f->model.forward = fam == OSF_FAM_WAIT;
}
/* the delays a family is fitted with: one period for the wait family, else the log's */
static void family_delays(osf_fit_t *f, int fam, double T)
{
    if (fam == OSF_FAM_WAIT)
        set_tau(f, T);
    else if (f->tau_edge != NULL)
        memcpy(f->graph.tau, f->tau_edge, f->graph.nnz * sizeof(double));
    else if (f->graph.tau != NULL)
        set_tau(f, 0);
}

/* The fit's distance with one value scaled by k (0.8, 1.2), then restored exactly (a copy,
 * not a division: an ulp of difference can change a sharp potential's trajectory). */
static double scaled(fitctx_t *c, const char *what, double k)
{
    osf_fit_t *f = c->f;
    osc_model_t keep = f->model;
    osc_perturb_t pk = f->perturb;
    int32_t n = f->model.n;
    size_t ne = f->graph.tau != NULL ? f->graph.nnz : 0;
    double *save = malloc(((size_t)n > ne ? (size_t)n : ne) * sizeof(double) + 1);
    if (save == NULL) {
        c->e = nomem(c->err);
        return INFINITY;
    }
    double d;
    if (strcmp(what, "omega") == 0) {
        memcpy(save, f->rate, (size_t)n * sizeof(double));
        for (int32_t i = 0; i < n; i++)
            f->rate[i] *= k;
        d = evaluate(c);
        memcpy(f->rate, save, (size_t)n * sizeof(double));
    } else if (strcmp(what, "delay") == 0) {
        memcpy(save, f->graph.tau, ne * sizeof(double));
        for (size_t e = 0; e < ne; e++)
            f->graph.tau[e] *= k;
        d = evaluate(c);
        memcpy(f->graph.tau, save, ne * sizeof(double));
    } else {
        if (strcmp(what, "shape") == 0) {
            if (f->model.pot.kind == OSC_POT_TANH)
                f->model.pot.s *= k;
            else if (f->model.pot.kind == OSC_POT_PIECEWISE)
                f->model.pot.sigma *= k;
            else if (f->model.pot.kind == OSC_POT_WAIT)
                f->model.pot.sigma = f->wait_lag + (f->model.pot.sigma - f->wait_lag) * k;
        } else if (strcmp(what, "vp") == 0) {
            f->model.vp *= k;
        } else if (strcmp(what, "noise") == 0) {
            f->model.noise.share *= k;
        } else if (strcmp(what, "perturbation") == 0) {
            f->perturb.delta *= k;
        }
        d = evaluate(c);
    }
    free(save);
    f->model = keep;
    f->perturb = pk;
    return d;
}

static void sensitivity(fitctx_t *c, const char *pname, const char *what, double d_at)
{
    osf_param_t *p = param(c->f, pname);
    if (p == NULL)
        return;
    p->d_at = d_at;
    p->d_lo = scaled(c, what, 0.8);
    p->d_hi = scaled(c, what, 1.2);
}

/* The per-iteration time of rank r without its outliers: the mean of the durations at most
 * median + 3 IQR (the delay and the idle wave's waits are outliers of a steady loop). */
static double steady_period(const ph_marks_t *m, int32_t r, double *scratch, double *iqr)
{
    uint32_t n = m->n[r];
    for (uint32_t k = 0; k + 1 < n; k++)
        scratch[k] = (double)(m->t[r][k + 1] - m->t[r][k]);
    size_t nd = n - 1;
    double med = quantile(scratch, nd, 0.5); /* sorts: the other two read the order */
    double q1 = pstat_quantile(scratch, nd, 0.25), q3 = pstat_quantile(scratch, nd, 0.75);
    double lim = med + 3 * (q3 - q1), sum = 0;
    size_t c = 0;
    for (size_t k = 0; k < nd; k++)
        if (scratch[k] <= lim) {
            sum += scratch[k];
            c++;
        }
    *iqr = q3 - q1;
    return c ? sum / (double)c : med;
}

/* omega, the noise, beta, kappa, v_p, the delays, the perturbation and theta0's model. */
static plog_err_t parameters(osf_fit_t *f, plog_run_t *run, const osf_opts_t *o,
                             plog_error_t *err)
{
    const ph_study_t *st = &f->st;
    int32_t P = st->P;
    const ph_marks_t *m = &st->marks;
    f->omega = malloc((size_t)P * sizeof(double));
    f->rate = malloc((size_t)P * sizeof(double));
    uint32_t most = 0;
    for (int32_t r = 0; r < P; r++)
        most = m->n[r] > most ? m->n[r] : most;
    double *scratch = malloc((size_t)(most + P + 1) * sizeof(double));
    double *per = malloc((size_t)P * sizeof(double)), *iq = malloc((size_t)P * sizeof(double));
    if (!f->omega || !f->rate || !scratch || !per || !iq) {
        free(scratch);
        free(per);
        free(iq);
        return nomem(err);
    }
    for (int32_t r = 0; r < P; r++) {
        per[r] = steady_period(m, r, scratch, &iq[r]);
        iq[r] /= per[r];
    }
    double pmin = INFINITY, pmax = 0, psum = 0;
    for (int32_t r = 0; r < P; r++) {
        pmin = fmin(pmin, per[r]);
        pmax = fmax(pmax, per[r]);
        psum += per[r];
    }
    double T = psum / P / 1e9; /* s */
    memcpy(scratch, iq, (size_t)P * sizeof(double));
    double iqr_rel = quantile(scratch, (size_t)P, 0.5);

    /* noise: uniform noise on [0, 2m] has an IQR of m; share = 2 IQR / period puts the
     * model's per-window spread of the rate on the measured spread of the iteration time */
    osc_noise_t *z = &f->model.noise;
    z->seed = o->seed;
    z->window = T;
    if (o->noise_kind >= 0) {
        z->kind = o->noise_kind;
        z->share = o->noise_share;
        add_param(f, "noise_share", z->share, "given (--noise)");
    } else {
        z->share = 2 * iqr_rel;
        z->kind = z->share >= 0.01 ? OSC_NOISE_UNIFORM : OSC_NOISE_NONE;
        if (z->kind == OSC_NOISE_NONE)
            z->share = 0;
        add_param(f, "noise_share", z->share,
                  "2 x the median over ranks of the IQR of the iteration times / their mean "
                  "(%.3g)%s", iqr_rel, z->kind == OSC_NOISE_NONE ? ": below 0.01, none" : "");
    }
    for (int32_t r = 0; r < P; r++)
        f->rate[r] = f->omega[r] = 2 * M_PI / (per[r] / 1e9);
    add_param(f, "period_s", T,
              "mean over ranks of each rank's mean iteration time without outliers "
              "(> median + 3 IQR): %.6g .. %.6g s", pmin / 1e9, pmax / 1e9);
    add_param(f, "rate_mean_rad_s", 2 * M_PI / T,
              "2 pi / each rank's period; the natural frequencies omega_i make the model's "
              "locked state advance at it (the delayed terms' pull and the noise's mean "
              "taken off)");
    free(per);
    free(iq);
    free(scratch);

    /* beta and kappa from what the ranks sent and how they waited */
    logfacts_t lf;
    plog_err_t e = log_facts(run, m, &lf, err);
    if (e != PLOG_OK) {
        logfacts_free(&lf, P);
        return e;
    }
    const char *lib = NULL;
    for (int32_t r = 0; r < P && lib == NULL; r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        lib = rk ? plog_rank_kv(rk, "mpi_library") : NULL;
    }
    f->eager_limit = pcs_eager_size(lib, &f->eager_what);
    if (f->eager_limit == 0) {
        f->eager_limit = 4096;
        f->eager_what = "not known for this library: 4096 assumed";
    }
    f->max_bytes = lf.max_bytes;
    f->eager = lf.max_bytes <= f->eager_limit;
    double beta = f->eager ? 1 : 2;
    add_param(f, "beta", beta, "largest message %llu B %s the eager limit %llu B (%s)",
              (unsigned long long)lf.max_bytes, f->eager ? "<=" : ">",
              (unsigned long long)f->eager_limit, f->eager_what);
    int dmax = 0;
    uint64_t seen = 0; /* distances 1..64 seen, as bits */
    const ph_topo_t *t = &st->topo;
    for (int32_t i = 0; i < t->n; i++)
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            int d = abs(t->nb[k] - i);
            if (P - d < d)
                d = P - d; /* around a ring */
            dmax = d > dmax ? d : dmax;
            if (d >= 1 && d <= 64)
                seen |= 1ull << (d - 1);
        }
    int dsum = 0;
    for (int d = 1; d <= 64; d++)
        dsum += (seen >> (d - 1) & 1) ? d : 0;
    double wpi = lf.waits_per_iter;
    int one = !(wpi > 1.5);
    double kappa = one ? dmax : dsum;
    if (kappa < 1)
        kappa = 1;
    add_param(f, "kappa", kappa,
              "%.3g blocking completions of receives per iteration (median over ranks): %s "
              "distance (%d)", isnan(wpi) ? 0 : wpi, one ? "the longest" : "the sum of each",
              one ? dmax : dsum);
    f->vp_formula = beta * kappa / T;
    f->model.vp = f->vp_formula;
    add_param(f, "vp_formula_per_s", f->vp_formula, "beta kappa / period");

    /* the graph and its delays */
    if (osf_graph_of_topo(t, &f->graph) != 0) {
        logfacts_free(&lf, P);
        return nomem(err);
    }
    double tau = 0;
    if (o->delay_mode == OSF_DELAY_CONST) {
        tau = o->delay_s;
        if (osc_graph_set_delay(&f->graph, tau) != 0) {
            logfacts_free(&lf, P);
            return nomem(err);
        }
        add_param(f, "delay_s", tau, "given (--delay)");
    } else if (o->delay_mode == OSF_DELAY_NONE) {
        add_param(f, "delay_s", 0, "none (--delay none)");
    } else {
        size_t nm = delays_from_log(&lf, &f->graph, &tau);
        if (o->delay_mode == OSF_DELAY_FIT) {
            f->tau_log = tau;
            add_param(f, "delay_s", tau,
                      "fitted (--delay fit): one delay for every pair, golden section over "
                      "0 .. 1.5 periods; the messages' own: %.3g s (%zu of %zu pairs measured)",
                      tau, nm, f->graph.nnz);
        } else {
            add_param(f, "delay_s", tau,
                      "median over pairs of each pair's median (receive completed - send "
                      "started) where the receiver waited: %zu of %zu pairs measured",
                      nm, f->graph.nnz);
        }
    }
    logfacts_free(&lf, P);

    /* the perturbation: the idle wave's source, held back by its excess after its median
     * compute time (where a delay of the loop's own would fall) */
    f->src_rank = -1;
    const ph_wave_t *w = &st->wave;
    if (w->source >= 0 && w->source_excess_ns > 0) {
        int32_t r = w->source;
        uint32_t k = w->source_iter;
        double comp = 0;
        if (m->comp != NULL && m->comp[r] != NULL && m->n[r] >= 3) {
            double *c = malloc((m->n[r] - 1) * sizeof(double));
            if (c == NULL)
                return nomem(err);
            memcpy(c, m->comp[r], (m->n[r] - 1) * sizeof(double));
            comp = quantile(c, m->n[r] - 1, 0.5);
            free(c);
        }
        int64_t t_inj = m->t[r][k] + (int64_t)comp;
        if (t_inj > f->grid.t0) {
            f->src_rank = r;
            f->src_iter = k;
            f->src_t = t_inj;
            f->src_delta_s = w->source_excess_ns / 1e9;
            f->perturb = (osc_perturb_t){.rank = r,
                                         .t = (double)(t_inj - f->grid.t0) / 1e9,
                                         .delta = f->src_delta_s};
            f->model.perturb = &f->perturb;
            f->model.nperturb = 1;
            add_param(f, "perturbation_s", f->src_delta_s,
                      "the idle wave's source, rank %d iteration %u: its excess over its "
                      "median, injected %.6g s after the grid's start", (int)r, k,
                      f->perturb.t);
        }
    }
    f->model.n = P;
    f->model.omega = f->omega;
    f->model.graph = &f->graph;
    return PLOG_OK;
}

/* E(t) of the measured side again, with the fitted V (the study's walk ran before the fit):
 * E depends on phase differences only, which the deviations keep. -1: out of memory. */
static int measured_energy(osf_fit_t *f)
{
    int32_t P = f->meas.P;
    double *th = malloc((size_t)P * sizeof(double));
    if (th == NULL)
        return -1;
    for (size_t g = 0; g < f->meas.n; g++) {
        const float *d = f->meas.dev + g * (size_t)P;
        for (int32_t i = 0; i < P; i++)
            th[i] = d[i];
        f->meas.E[g] = ph_energy(th, &f->st.topo, &f->model.pot);
    }
    free(th);
    double s = 0;
    size_t c = 0;
    for (size_t g = 0; g < f->meas.n; g++)
        if (!isnan(f->meas.E[g])) {
            s += f->meas.E[g];
            c++;
        }
    f->mfig.e_mean = c ? s / (double)c : NAN;
    return 0;
}

static double mean_of(const double *x, size_t n)
{
    double s = 0;
    for (size_t k = 0; k < n; k++)
        s += x[k];
    return n ? s / (double)n : NAN;
}

static double rms_diff(const double *a, const double *b, size_t n)
{
    double s = 0;
    size_t c = 0;
    for (size_t k = 0; k < n; k++) {
        double d = a[k] - b[k];
        if (!isnan(d)) {
            s += d * d;
            c++;
        }
    }
    return c ? sqrt(s / (double)c) : NAN;
}

static double rel_err(double model, double meas)
{
    return isnan(model) || isnan(meas) || meas == 0 ? NAN : fabs(model - meas) / fabs(meas);
}

static void compare(osf_fit_t *f)
{
    const osf_series_t *a = &f->model_side.ser, *b = &f->meas;
    f->r_rms = rms_diff(a->R, b->R, b->n);
    f->s_rms = rms_diff(a->S, b->S, b->n);
    f->g_rms = rms_diff(a->gmean, b->gmean, b->n);
    f->e_rel = rel_err(f->model_side.fig.e_mean, f->mfig.e_mean);
    f->resync_rel = rel_err(f->model_side.fig.resync_s, f->mfig.resync_s);
    const osf_wave_t *wm = &f->model_side.fig.wave, *wx = &f->mfig.wave;
    f->wave_speed_rel = wm->found && wx->found ? rel_err(wm->ranks_per_iter, wx->ranks_per_iter)
                                               : NAN;
}

/* The what-if model: the fitted one with one thing changed, and its side. */
static plog_err_t whatif(fitctx_t *c)
{
    osf_fit_t *f = c->f;
    const osf_whatif_t *w = &c->o->whatif;
    f->wmodel = f->model;
    osf_setup_t su = c->su;
    if (w->topology != NULL) {
        plog_err_t e = osf_graph_spec(w->topology, f->model.n, &f->wgraph, c->err);
        if (e != PLOG_OK)
            return e;
        double tau = 0;
        if (f->graph.tau != NULL) { /* the median delay, on every new edge */
            double *x = malloc((f->graph.nnz ? f->graph.nnz : 1) * sizeof(double));
            if (x == NULL)
                return nomem(c->err);
            memcpy(x, f->graph.tau, f->graph.nnz * sizeof(double));
            tau = quantile(x, f->graph.nnz, 0.5);
            free(x);
        }
        if (tau > 0 && osc_graph_set_delay(&f->wgraph, tau) != 0)
            return nomem(c->err);
        if (osf_topo_of_graph(&f->wgraph, &f->wtopo) != 0)
            return nomem(c->err);
        f->wmodel.graph = &f->wgraph;
        su.topo = &f->wtopo;
    } else if (!isnan(w->delay_s)) {
        osc_graph_t *g = &f->wgraph;
        if (osf_graph_of_topo(&f->st.topo, g) != 0 || osc_graph_set_delay(g, w->delay_s) != 0)
            return nomem(c->err);
        f->wmodel.graph = g;
    }
    if (!isnan(w->noise_share))
        f->wmodel.noise.share = w->noise_share;
    if (w->noise_kind >= 0)
        f->wmodel.noise.kind = w->noise_kind;
    if (f->wmodel.noise.kind != OSC_NOISE_NONE && f->wmodel.noise.window <= 0)
        f->wmodel.noise.window = param(f, "period_s")->value;
    if (!isnan(w->coupling))
        f->wmodel.vp *= w->coupling;
    if (!isnan(w->perturb_s) && f->model.nperturb == 1) {
        f->wperturb = f->perturb;
        f->wperturb.delta = w->perturb_s;
        f->wmodel.perturb = &f->wperturb;
    }
    su.model = &f->wmodel;
    f->have_whatif = 1;
    return osf_side_run(&su, &f->whatif_side, c->err);
}

plog_err_t osf_fit(plog_run_t *run, const osf_opts_t *o, osf_fit_t *f, plog_error_t *err)
{
    memset(f, 0, sizeof(*f));
    struct timespec t_a, t_b;
    clock_gettime(CLOCK_MONOTONIC, &t_a);
    plog_err_t e = measured(f, run, o, err);
    if (e != PLOG_OK)
        return e;
    if ((e = parameters(f, run, o, err)) != PLOG_OK)
        return e;
    const ph_study_t *st = &f->st;
    fitctx_t c = {.f = f, .o = o, .err = err, .e = PLOG_OK};
    c.su = (osf_setup_t){.solver = &o->solver, .theta0 = f->theta0, .grid = &f->grid,
                         .topo = &st->topo, .epot = &f->model.pot, .entropy = o->study.entropy,
                         .past = &st->marks, .src_rank = f->src_rank, .src_t = f->src_t,
                         .recover_frac = o->study.recover_frac,
                         .period_ns = (int64_t)st->median_period};
    if (osf_figures_of(&f->meas, &st->marks, &st->topo, &f->grid, f->src_rank, f->src_t,
                       o->study.recover_frac, (int64_t)st->median_period,
                       &f->mfig) != 0)
        return nomem(err);

    /* the potential: per family, its shape by golden section at the formula's v_p, then
     * the coupling's gain, then the shape once more at that gain; the family of the
     * smaller distance is kept. A fixed V: the gain alone. */
    unsigned n = o->fit_evals < 4 ? 4 : o->fit_evals;
    double x, d = INFINITY, gx = 0, T = param(f, "period_s")->value;
    static const struct {
        int fam;
        setter_fn set;
        double lo, hi, start;
    } fams[] = {{OSF_FAM_TANH, set_tanh, -2.995732273553991 /* log 0.05 */, 2.995732273553991,
                 0 /* s = 1 */},
                {OSF_FAM_BOTTLENECK, set_sigma, 0.25 * M_PI, 1.5 * M_PI, M_PI},
                {OSF_FAM_WAIT, set_slack, -6.907755278982137 /* log 1e-3 */,
                 1.1447298858494002 /* log pi */, -2.995732273553991 /* 0.05 */}};
    /* the wait family and --delay fit change the delays: keep the log's */
    if (f->graph.tau != NULL) {
        f->tau_edge = malloc((f->graph.nnz ? f->graph.nnz : 1) * sizeof(double));
        if (f->tau_edge == NULL)
            return nomem(err);
        memcpy(f->tau_edge, f->graph.tau, f->graph.nnz * sizeof(double));
    } else if (osc_graph_set_delay(&f->graph, 0) != 0) {
        return nomem(err); /* the wait family needs the array */
    }
    f->wait_lag = param(f, "rate_mean_rad_s")->value * T;
    if (o->family == OSF_FAM_FIXED) {
        unsigned e0 = f->evals;
        f->model.pot = o->pot;
        f->model.forward = o->pot.kind == OSC_POT_WAIT;
        family_delays(f, o->pot.kind == OSC_POT_WAIT ? OSF_FAM_WAIT : OSF_FAM_FIXED, T);
        d = golden(&c, set_gain, log(0.01), log(1000), n, &gx);
        f->fam[OSF_FAM_FIXED] = (osf_family_fit_t){1, o->pot, d, f->evals - e0, exp(gx), NAN};
    } else {
        for (size_t k = 0; k < 3 && c.e == PLOG_OK; k++) {
            int fam = fams[k].fam;
            if (o->family != OSF_FAM_AUTO && o->family != fam &&
                !(o->family == OSF_FAM_PAPER && fam != OSF_FAM_WAIT))
                continue;
            unsigned e0 = f->evals;
            double g, t = fam == OSF_FAM_WAIT ? T : f->tau_log;
            set_gain(f, 0);
            family_delays(f, fam, T);
            set_forward(f, fam);
            if (o->delay_mode == OSF_DELAY_FIT && fam != OSF_FAM_WAIT)
                set_tau(f, t);
            /* the gain first, at the family's usual shape: at the formula's v_p the coupling
             * can be too weak for the shape to matter (a flat search) */
            fams[k].set(f, fams[k].start);
            golden(&c, set_gain, log(0.01), log(1000), n, &g);
            golden(&c, fams[k].set, fams[k].lo, fams[k].hi, n, &x);
            if (o->delay_mode == OSF_DELAY_FIT && fam != OSF_FAM_WAIT)
                golden(&c, set_tau, 0, 1.5 * T, n, &t);
            golden(&c, set_gain, log(0.01), log(1000), n, &g);
            double dk = golden(&c, fams[k].set, fams[k].lo, fams[k].hi, n, &x);
            f->fam[fam] = (osf_family_fit_t){1, f->model.pot, dk, f->evals - e0, exp(g), t};
        }
        int best = -1;
        for (int k = OSF_FAM_TANH; k <= OSF_FAM_WAIT; k++)
            if (f->fam[k].tried && (best < 0 || f->fam[k].distance < f->fam[best].distance))
                best = k;
        if (best < 0)
            return c.e != PLOG_OK ? c.e : nomem(err);
        f->model.pot = f->fam[best].pot;
        gx = log(f->fam[best].gain);
        set_gain(f, gx);
        family_delays(f, best, T);
        set_forward(f, best);
        if (best != OSF_FAM_WAIT && o->delay_mode == OSF_DELAY_FIT) {
            set_tau(f, f->fam[best].tau);
            param(f, "delay_s")->value = f->fam[best].tau;
        }
        d = f->fam[best].distance;
    }
    if (c.e != PLOG_OK)
        return c.e;
    if (f->model.pot.kind == OSC_POT_WAIT) {
        osf_param_t *pd = param(f, "delay_s");
        pd->value = T;
        snprintf(pd->how, sizeof(pd->how),
                 "the wait potential's: one period on every pair (a rank learns of a "
                 "neighbour's progress at their exchange); the messages' own: %.3g s",
                 f->tau_log);
    }
    char pot[80];
    osc_pot_format(&f->model.pot, pot, sizeof(pot));
    add_param(f, "coupling_gain", exp(gx),
              "fitted: v_p = gain x the formula's (golden section over 0.01 .. 1000)");
    add_param(f, "vp_per_s", f->model.vp, "gain x beta kappa / period");
    const osc_pot_t *pv = &f->model.pot;
    add_param(f, "potential_shape",
              pv->kind == OSC_POT_TANH        ? pv->s
              : pv->kind == OSC_POT_PIECEWISE ? pv->sigma
              : pv->kind == OSC_POT_WAIT      ? pv->sigma - f->wait_lag
                                              : NAN,
              "%s: %s%s (distance: tanh %.4g rad, bottleneck %.4g, wait %.4g)", pot,
              o->family == OSF_FAM_FIXED ? "given (--potential)" : "fitted",
              pv->kind == OSC_POT_WAIT ? ", the slack beyond one period's lag" : "",
              f->fam[OSF_FAM_TANH].tried ? f->fam[OSF_FAM_TANH].distance : NAN,
              f->fam[OSF_FAM_BOTTLENECK].tried ? f->fam[OSF_FAM_BOTTLENECK].distance : NAN,
              f->fam[OSF_FAM_WAIT].tried ? f->fam[OSF_FAM_WAIT].distance : NAN);
    /* how well each value is determined: the distance at 0.8 and 1.2 times it */
    sensitivity(&c, "potential_shape", "shape", d);
    sensitivity(&c, "vp_per_s", "vp", d);
    sensitivity(&c, "rate_mean_rad_s", "omega", d);
    if (f->model.noise.kind != OSC_NOISE_NONE)
        sensitivity(&c, "noise_share", "noise", d);
    if (f->graph.tau != NULL && param(f, "delay_s")->value > 0)
        sensitivity(&c, "delay_s", "delay", d);
    if (f->model.nperturb == 1)
        sensitivity(&c, "perturbation_s", "perturbation", d);
    if (c.e != PLOG_OK)
        return c.e;
    c.su.model = &f->model;
    osf_natural(&f->model, f->rate, f->omega);
    add_param(f, "omega_mean_rad_s", mean_of(f->omega, (size_t)f->model.n),
              "the mean natural frequency (rate_mean_rad_s less the locked state's pull)");
    if ((e = osf_side_run(&c.su, &f->model_side, err)) != PLOG_OK)
        return e;
    f->evals++;
    if (measured_energy(f) != 0)
        return nomem(err);
    compare(f);
    if (o->whatif.active && (e = whatif(&c)) != PLOG_OK)
        return e;
    clock_gettime(CLOCK_MONOTONIC, &t_b);
    f->fit_s = (double)(t_b.tv_sec - t_a.tv_sec) + (double)(t_b.tv_nsec - t_a.tv_nsec) / 1e9;
    return PLOG_OK;
}

void osf_fit_free(osf_fit_t *f)
{
    ph_study_free(&f->st);
    osf_series_free(&f->meas);
    osf_figures_free(&f->mfig);
    free(f->omega);
    free(f->rate);
    free(f->tau_edge);
    free(f->theta0);
    osc_graph_free(&f->graph);
    osf_side_free(&f->model_side);
    osf_side_free(&f->whatif_side);
    osc_graph_free(&f->wgraph);
    ph_topo_free(&f->wtopo);
    memset(f, 0, sizeof(*f));
}
