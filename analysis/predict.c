/* predict.c: a run's collective instances priced by every model and method (see
 * predict.h): the setup from the options, the instance loop, the groups by collective and
 * size, and their statistics. */
#include "predict.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pstat.h"
#include "vec.h"

/* a growable array of values */
typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec_t;

static int dpush(dvec_t *d, double x)
{
    return VEC_PUSH(d->v, d->n, d->cap, x);
}

static double dmedian(dvec_t *d) /* sorts d */
{
    qsort(d->v, d->n, sizeof(double), pstat_cmp_double);
    return pstat_quantile(d->v, d->n, 0.5);
}

/* a group's per-instance values while the run is read (pred_group_t has their statistics) */
typedef struct gvals {
    dvec_t measured;
    dvec_t pred[PRED_MAXMODELS], ratio[PRED_MAXMODELS], abserr[PRED_MAXMODELS];
    dvec_t exiterr[PRED_MAXMODELS]; /* replay: per instance, the members' median exit error */
} gvals_t;

struct pred_state {
    ci_t *ci;               /* from pred_open until pred_run has read the run */
    gvals_t *gv;            /* beside p->g */
    size_t gcap, gvcap;
    size_t scap_m, scap_p;  /* p->scatter_m, scatter_p */
    pred_steps_t steps;
    pr_t rp;                /* replay scratch */
    pr_opts_t ropt;
    pred_row_fn row;
    void *arg;
    int oom;
};

const char *pred_method_name(pred_method_t m)
{
    return m == PRED_STEPS ? "steps" : m == PRED_EXPECTED_MAX ? "expected-max" : "replay";
}

static int bucket_of(uint64_t b)
{
    return b == 0 ? 0 : 64 - __builtin_clzll(b);
}

/* The group of (coll, size, bucket), a new one when there is none; NULL out of memory. */
static pred_group_t *group_at(pred_t *p, pcs_coll_t coll, int32_t size, int bucket,
                              gvals_t **gv)
{
    pred_state_t *st = p->st;
    for (size_t i = 0; i < p->ng; i++) /* few groups: a scan is enough */
        if (p->g[i].coll == coll && p->g[i].size == size && p->g[i].bucket == bucket) {
            *gv = &st->gv[i];
            return &p->g[i];
        }
    if (VEC_GROW(p->g, st->gcap, p->ng + 1) != 0 || VEC_GROW(st->gv, st->gvcap, p->ng + 1) != 0)
        return NULL;
    pred_group_t *g = &p->g[p->ng];
    *gv = &st->gv[p->ng++];
    memset(g, 0, sizeof(*g));
    memset(*gv, 0, sizeof(**gv));
    g->coll = coll;
    g->size = size;
    g->bucket = bucket;
    return g;
}

/* Every model's price of one complete instance that has its steps, into its group. */
static void predict_instance(pred_t *p, const ci_inst_t *in)
{
    pred_state_t *st = p->st;
    double measured = (double)(in->last_end - in->first_start);
    gvals_t *gv;
    pred_group_t *g = group_at(p, in->coll, in->size, bucket_of(in->bytes), &gv);
    if (!g || dpush(&gv->measured, measured) != 0) {
        st->oom = 1;
        return;
    }
    g->count++;
    g->sum_measured += measured;
    p->sum_measured += measured;
    p->predicted++;
    double pt[PRED_MAXMODELS], p9[PRED_MAXMODELS];
    const pred_models_t *pm = &p->models;
    for (int k = 0; k < pm->n; k++) {
        st->ropt.load = pm->m[k].load;
        int rc = p->method == PRED_REPLAY
                     ? pr_replay(&st->rp, in, pm->m[k].time, pm->m[k].ctx, &st->ropt, &pt[k],
                                 &p9[k])
                     : pred_steps_price(&st->steps, in, &pm->m[k], &pt[k], &p9[k]);
        if (rc != 0 || (p->method == PRED_REPLAY && dpush(&gv->exiterr[k], p9[k]) != 0)) {
            st->oom = 1;
            return;
        }
        double ratio = measured > 0 ? pt[k] / measured : NAN;
        if (dpush(&gv->pred[k], pt[k]) != 0 || dpush(&gv->ratio[k], ratio) != 0 ||
            dpush(&gv->abserr[k], fabs(pt[k] - measured)) != 0) {
            st->oom = 1;
            return;
        }
        g->m[k].sum_pred += pt[k];
        p->sum_pred[k] += pt[k];
    }
    if (pm->n > 0) {
        if (VEC_GROW(p->scatter_m, st->scap_m, p->nscatter + 1) != 0 ||
            VEC_GROW(p->scatter_p, st->scap_p, p->nscatter + 1) != 0) {
            st->oom = 1;
        } else {
            p->scatter_m[p->nscatter] = measured;
            p->scatter_p[p->nscatter++] = pt[0];
        }
    }
    if (st->row)
        st->row(st->arg, p, in, measured, pt, p9);
}

/* ci_done_fn: an instance complete, or still open at the end */
static void on_instance(void *arg, const ci_inst_t *in)
{
    pred_t *p = arg;
    p->instances++;
    if (in->seen < in->size) {
        p->incomplete++;
        return;
    }
    if (in->nonblocking) { /* the call returns before the collective ends */
        p->nonblocking++;
        return;
    }
    if (in->why != RECON_OK) {
        p->skipped[in->why < RECON__COUNT ? in->why : RECON__COUNT]++;
        return;
    }
    predict_instance(p, in);
}

static int cmp_group(const void *a, const void *b)
{
    const pred_group_t *x = a, *y = b;
    if (x->coll != y->coll)
        return (int)x->coll - (int)y->coll;
    if (x->size != y->size)
        return x->size - y->size;
    return x->bucket - y->bucket;
}

/* Each group's medians and quantiles from its values, which are freed; the groups
 * sorted. */
static void group_stats(pred_t *p)
{
    pred_state_t *st = p->st;
    for (size_t i = 0; i < p->ng; i++) {
        pred_group_t *g = &p->g[i];
        gvals_t *gv = &st->gv[i];
        g->measured_med = dmedian(&gv->measured);
        for (int k = 0; k < p->models.n; k++) {
            pred_stat_t *s = &g->m[k];
            s->pred_med = dmedian(&gv->pred[k]);
            s->ratio_med = dmedian(&gv->ratio[k]); /* sorted: the quantiles next */
            s->ratio_p10 = pstat_quantile(gv->ratio[k].v, gv->ratio[k].n, 0.1);
            s->ratio_p90 = pstat_quantile(gv->ratio[k].v, gv->ratio[k].n, 0.9);
            s->abserr_med = dmedian(&gv->abserr[k]);
            s->exiterr_med = p->method == PRED_REPLAY ? dmedian(&gv->exiterr[k]) : NAN;
        }
    }
    if (p->ng) /* g is NULL when nothing was predicted */
        qsort(p->g, p->ng, sizeof(*p->g), cmp_group);
}

/* Dense host ids per world rank: a rank of no known host gets its own. */
static void dense_hosts(pred_t *p, const ci_t *ci)
{
    int32_t nh = 0;
    for (int32_t r = 0; r < p->world; r++) {
        p->host[r] = ci_host(ci, r);
        if (p->host[r] >= nh)
            nh = p->host[r] + 1;
    }
    for (int32_t r = 0, h = nh; r < p->world; r++)
        if (p->host[r] < 0)
            p->host[r] = h++, nh = h;
    p->nhosts = nh;
}

/* The library's eager size (o->eager when given): where LogGP's handshake starts (when
 * measured for it, or given, and the ranks are on more than one host: *fit), and what a
 * rendezvous waits for in the replay. */
static void eager_size(pred_t *p, const plog_run_t *run, const pred_opts_t *o, pnm_opts_t *fit)
{
    const char *libstr = NULL;
    for (int32_t r = 0; r < p->world && !libstr; r++) { /* the first rank loaded */
        const plog_rank_t *rk = plog_run_rank(run, r);
        libstr = rk ? plog_rank_kv(rk, "mpi_library") : NULL;
    }
    p->eager = pr_eager_of(libstr, &p->eager_what);
    if (o->eager >= 0) {
        p->eager = (uint64_t)o->eager;
        p->eager_what = "--eager";
    }
    if (strcmp(p->eager_what, PRED_EAGER_UNMEASURED) != 0 && p->nhosts > 1)
        fit->rndv = p->eager; /* between hosts; on one, shared memory's size is another */
}

plog_err_t pred_open(pred_t *p, const plog_run_t *run, const pred_opts_t *o,
                     plog_error_t *err)
{
    memset(p, 0, sizeof(*p));
    p->method = o->method;
    p->world = plog_run_world_size(run);
    /* hosts first: the probe's samples are unshared by them (pns_unshare) */
    p->st = calloc(1, sizeof(*p->st));
    p->host = malloc((size_t)(p->world > 0 ? p->world : 1) * sizeof(*p->host));
    if (!p->st || !p->host || !(p->st->ci = ci_new(run, o->lib)))
        return plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
    pred_state_t *st = p->st;
    dense_hosts(p, st->ci);
    pnm_opts_t fit = o->fit;
    eager_size(p, run, o, &fit);
    plog_err_t e = pred_models_load(&p->models, run, o->model_file, o->kinds, &fit, p->host,
                                    p->nhosts, err);
    if (e != PLOG_OK)
        return e;
    if (o->save_model && (e = pred_models_save(run, &fit, o->save_model, err)) != PLOG_OK)
        return e;
    st->ropt.host = p->host;
    st->ropt.nhosts = p->nhosts;
    if (p->method == PRED_REPLAY) {
        p->gamma_given = !isnan(o->gamma);
        p->gamma = st->ropt.gamma = p->gamma_given ? o->gamma : pr_measure_gamma();
        st->ropt.eager = p->eager;
    }
    if (p->method != PRED_REPLAY &&
        pred_steps_init(&st->steps, p->method, p->host, p->nhosts, p->world) != 0)
        return plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
    return PLOG_OK;
}

plog_err_t pred_run(pred_t *p, plog_run_t *run, pred_row_fn row, void *arg,
                    plog_error_t *err)
{
    pred_state_t *st = p->st;
    assert(st && st->ci); /* pred_open succeeded, and the run is read once */
    st->row = row;
    st->arg = arg;
    plog_iter_t *it = NULL;
    plog_err_t ie = plog_iter_open(run, PLOG_ALL_RANKS, &it, err);
    if (ie != PLOG_OK)
        return ie;
    const plog_rec_t *e;
    while ((ie = plog_iter_next(it, &e, err)) == PLOG_OK && e != NULL && !st->oom)
        if (ci_feed(st->ci, e, on_instance, p) != 0)
            st->oom = 1;
    ci_finish(st->ci, on_instance, p);
    plog_iter_close(it);
    ci_free(st->ci);
    st->ci = NULL;
    if (st->oom)
        return plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
    if (ie != PLOG_OK)
        return ie;
    group_stats(p);
    return PLOG_OK;
}

void pred_free(pred_t *p)
{
    pred_state_t *st = p->st;
    if (st) {
        ci_free(st->ci);
        for (size_t i = 0; i < p->ng; i++) {
            gvals_t *gv = &st->gv[i];
            free(gv->measured.v);
            for (int k = 0; k < PRED_MAXMODELS; k++) {
                free(gv->pred[k].v);
                free(gv->ratio[k].v);
                free(gv->abserr[k].v);
                free(gv->exiterr[k].v);
            }
        }
        free(st->gv);
        pred_steps_free(&st->steps);
        pr_free(&st->rp);
        free(st);
    }
    free(p->g);
    free(p->host);
    free(p->scatter_m);
    free(p->scatter_p);
    pred_models_free(&p->models);
    memset(p, 0, sizeof(*p));
}
