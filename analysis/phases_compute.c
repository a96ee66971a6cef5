/* phases_compute.c: time outside MPI calls: each iteration's compute time
 * (ph_marks_compute, which also gathers the receive topology in the same pass) and the
 * phase that advances only while a rank computes (ph_compute_fill). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phases_priv.h"
#include "plog_calls.h"
#include "vec.h"

void ph_compute_free(ph_compute_t *c)
{
    if (c == NULL)
        return;
    if (c->frac != NULL)
        for (int32_t r = 0; r < c->nranks; r++)
            free(c->frac[r]);
    free(c->frac);
    memset(c, 0, sizeof(*c));
}

/* Cumulative compute time C(q) = q - busy(q), busy the union of MPI calls before q, answered
 * for non-decreasing queries while the rank's events stream by start time. A run of polls
 * is busy for its time inside them, from its start (its boundaries and totals exact). */
typedef struct busy {
    int have;
    int64_t bs, be;
    double closed;
} busy_t;

static double busy_compute(const busy_t *b, int64_t q)
{
    double busy = b->closed;
    if (b->have && q > b->bs)
        busy += (double)((q < b->be ? q : b->be) - b->bs);
    return (double)q - busy;
}

/* One pass over rank r: C at the boundaries t[0..n) into cm and, with g, at the grid points
 * into cg. */
static plog_err_t busy_pass(plog_run_t *run, int32_t r, const int64_t *t, uint32_t n,
                            const ph_grid_t *g, double *cm, double *cg, ph_topo_acc_t *acc,
                            plog_error_t *err)
{
    plog_iter_t *it = NULL;
    plog_err_t e = plog_iter_open(run, r, &it, err);
    if (e != PLOG_OK)
        return e;
    size_t ng = g ? g->n : 0;
    busy_t b = {0};
    uint32_t qm = 0; /* next boundary query */
    size_t qg = 0;   /* next grid query */
    const plog_rec_t *ev;
    for (;;) {
        e = plog_iter_next(it, &ev, err);
        if (e != PLOG_OK)
            break;
        int64_t s = ev != NULL ? ev->start_ns : INT64_MAX;
        /* queries before this start are settled by the calls seen so far */
        for (;;) {
            int64_t tm = qm < n ? t[qm] : INT64_MAX;
            int64_t tg = qg < ng ? g->t0 + (int64_t)qg * g->dt : INT64_MAX;
            int64_t q = tm < tg ? tm : tg;
            if (q == INT64_MAX || (q >= s && ev != NULL))
                break;
            if (tm <= tg)
                cm[qm++] = busy_compute(&b, tm);
            else
                cg[qg++] = busy_compute(&b, tg);
        }
        if (ev == NULL) {
            assert(qm == n && qg == ng); /* every query answered: cm and cg are filled */
            break;
        }
        if (acc != NULL && ph_acc_event(acc, ev) != 0) {
            e = ph_nomem(run, err);
            break;
        }
        if (ev->cls == PLOG_CLASS_STEP || ev->call == PLOG_CALL_MPI_Pcontrol)
            continue;
        int64_t f = ev->end_ns > s ? ev->end_ns : s;
        if (ev->ncalls > 1 && (uint64_t)(f - s) > ev->inside_ns)
            f = s + (int64_t)ev->inside_ns; /* a run of polls: between them the rank computed;
                                             * its time inside counted from its start */
        if (!b.have) {
            b.have = 1;
            b.bs = s;
            b.be = f;
        } else if (s <= b.be) {
            if (f > b.be)
                b.be = f;
        } else {
            b.closed += (double)(b.be - b.bs);
            b.bs = s;
            b.be = f;
        }
    }
    plog_iter_close(it);
    return e;
}

plog_err_t ph_marks_compute(plog_run_t *run, ph_marks_t *m, ph_topo_t *topo,
                            plog_error_t *err)
{
    if (topo != NULL)
        memset(topo, 0, sizeof(*topo));
    if (m->comp == NULL && (m->comp = calloc((size_t)m->nranks, sizeof(*m->comp))) == NULL)
        return ph_nomem(run, err);
    ph_topo_acc_t a = {.P = m->nranks};
    plog_err_t e = PLOG_OK;
    for (int32_t r = 0; r < m->nranks && e == PLOG_OK; r++) {
        uint32_t n = m->n[r];
        if (plog_run_rank(run, r) == NULL || (topo == NULL && (n < 2 || m->comp[r] != NULL)))
            continue;
        double *cm = malloc((n ? n : 1) * sizeof(*cm));
        if (cm == NULL) {
            e = ph_nomem(run, err);
            break;
        }
        ph_acc_rank(&a);
        e = busy_pass(run, r, m->t[r], n, NULL, cm, NULL, topo ? &a : NULL, err);
        if (e != PLOG_OK || n < 2 || m->comp[r] != NULL) {
            free(cm);
            continue;
        }
        for (uint32_t k = 0; k + 1 < n; k++)
            cm[k] = cm[k + 1] - cm[k];
        m->comp[r] = cm; /* n - 1 values used */
    }
    if (e == PLOG_OK && topo != NULL && ph_topo_build(a.P, a.pairs, a.np, topo) != 0)
        e = ph_nomem(run, err);
    free(a.pairs);
    return e;
}

plog_err_t ph_compute_fill(plog_run_t *run, const ph_marks_t *m, const ph_grid_t *g,
                           ph_compute_t *out, plog_error_t *err)
{
    memset(out, 0, sizeof(*out));
    out->nranks = m->nranks;
    out->frac = calloc((size_t)m->nranks, sizeof(*out->frac));
    double *cg = malloc((g->n ? g->n : 1) * sizeof(*cg));
    double *cm = NULL;
    size_t cmcap = 0;
    plog_err_t e = PLOG_OK;
    if (out->frac == NULL || cg == NULL) {
        free(cg);
        return ph_nomem(run, err);
    }
    for (int32_t r = 0; r < m->nranks && e == PLOG_OK; r++) {
        uint32_t n = m->n[r];
        if (n < 2 || plog_run_rank(run, r) == NULL)
            continue;
        const int64_t *t = m->t[r];
        out->frac[r] = malloc((g->n ? g->n : 1) * sizeof(float));
        if (VEC_GROW(cm, cmcap, n) != 0 || out->frac[r] == NULL) {
            e = ph_nomem(run, err);
            break;
        }
        if ((e = busy_pass(run, r, t, n, g, cm, cg, NULL, err)) != PLOG_OK)
            break;
        ph_cursor_t c = {t, n, 0};
        for (size_t i = 0; i < g->n; i++) {
            int64_t at = g->t0 + (int64_t)i * g->dt;
            int64_t k = ph_cursor_iter(&c, at);
            float fr = NAN;
            if (k >= 0 && (uint32_t)k == n - 1) {
                fr = 0;
            } else if (k >= 0) {
                double den = cm[k + 1] - cm[k];
                double x = den > 0 ? (cg[i] - cm[k]) / den
                                   : (double)(at - t[k]) / (double)(t[k + 1] - t[k]);
                fr = (float)(x < 0 ? 0 : x > 1 ? 1 : x);
            }
            out->frac[r][i] = fr;
        }
    }
    free(cg);
    free(cm);
    return e;
}
