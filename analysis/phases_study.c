/* phases_study.c: the whole computation of `phasor phases` (phases_study.h) over the parts
 * of phases.h, step by step in the order the command runs them; writing the results is the
 * command's (cli/phasor_phases.c). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phases_priv.h"
#include "phases_study.h"
#include "plog_calls.h"
#include "vec.h"

const char *ph_mark_mode_name(int mode)
{
    switch (mode) {
    case PH_MARK_PCONTROL: return "pcontrol";
    case PH_MARK_CALL: return "call";
    case PH_MARK_PERIOD: return "period";
    default: return "auto";
    }
}

/* Out of memory in a step that does not read the log (the message names no file). */
static plog_err_t nomem(plog_error_t *err)
{
    return plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
}

/* Compute times per iteration (the idle wave's source) and T_ij of the log in one pass;
 * then T_ij of the metrics when it is not the log's. */
static plog_err_t topology(ph_study_t *st, plog_error_t *err)
{
    const char *tp = st->op->topology;
    int from_log = strcmp(tp, "log") == 0;
    plog_err_t e = ph_marks_compute(st->run, &st->marks, from_log ? &st->topo : &st->wtopo, err);
    if (e != PLOG_OK || from_log)
        return e;
    if (strcmp(tp, "all") == 0)
        return ph_topo_all(st->P, &st->topo) != 0 ? nomem(err) : PLOG_OK;
    return ph_topo_read(tp, st->P, &st->topo, err);
}

plog_err_t ph_study_prepare(ph_study_t *st, plog_run_t *run, const ph_study_opts_t *op,
                            plog_error_t *err)
{
    memset(st, 0, sizeof(*st));
    st->op = op;
    st->run = run;
    st->P = plog_run_world_size(run);
    st->r_min = 2; /* above any R */
    ph_resync_init(&st->rs, op->thr);
    plog_err_t e = ph_marks_find(run, &op->spec, &st->marks, err);
    if (e != PLOG_OK)
        return e;
    for (int32_t r = 0; r < st->P; r++)
        st->with_phase += st->marks.n[r] >= 2;
    if (ph_grid_make(&st->marks, op->dt, op->points, &st->grid) != 0) {
        if (st->with_phase == 0)
            return plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET,
                             "%s: no rank has two iteration boundaries (%s markers); choose "
                             "them with --marker",
                             plog_run_path(run), ph_mark_mode_name(st->marks.used.mode));
        return plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET,
                         "%s: the ranks' marked intervals do not overlap in time; no common "
                         "grid", plog_run_path(run));
    }
    st->median_period = ph_median_period(&st->marks);
    if ((e = topology(st, err)) != PLOG_OK)
        return e;
    if (op->compute_only &&
        (e = ph_compute_fill(run, &st->marks, &st->grid, &st->comp, err)) != PLOG_OK)
        return e;
    size_t P = (size_t)st->P;
    st->theta = malloc(P * sizeof(double));
    st->scratch = malloc(P * sizeof(double));
    st->gabs = malloc(P * sizeof(double));
    st->gsig = malloc(P * sizeof(double));
    st->lag_sum = calloc(P, sizeof(double));
    st->lag_min = calloc(P, sizeof(double));
    st->lag_max = calloc(P, sizeof(double));
    st->lag_n = calloc(P, sizeof(size_t));
    st->Rg = malloc((st->grid.n ? st->grid.n : 1) * sizeof(double));
    if (ph_timeline_init(&st->tl, &st->marks, op->compute_only ? &st->comp : NULL,
                         &st->grid) != 0 ||
        !st->theta || !st->scratch || !st->gabs || !st->gsig || !st->lag_sum || !st->lag_min ||
        !st->lag_max || !st->lag_n || !st->Rg)
        return nomem(err);
    return PLOG_OK;
}

/* ---- the pairs of dtheta.csv ---- */

static plog_err_t every_pair(ph_study_t *st, plog_error_t *err)
{
    st->npairs = (size_t)st->P * (size_t)(st->P - 1) / 2;
    st->pairs = malloc((st->npairs ? st->npairs : 1) * 2 * sizeof(*st->pairs));
    if (st->pairs == NULL)
        return nomem(err);
    size_t k = 0;
    for (int32_t i = 0; i < st->P; i++)
        for (int32_t j = 0; j < i; j++) {
            st->pairs[2 * k] = i;
            st->pairs[2 * k + 1] = j;
            k++;
        }
    assert(k == st->npairs);
    return PLOG_OK;
}

/* The unordered pairs of the topology, as (larger, smaller). */
static plog_err_t topology_pairs(ph_study_t *st, plog_error_t *err)
{
    const ph_topo_t *T = &st->topo;
    st->pairs = malloc((T->nnz ? T->nnz : 1) * 2 * sizeof(*st->pairs));
    if (st->pairs == NULL)
        return nomem(err);
    for (int32_t i = 0; i < st->P; i++)
        for (uint32_t k = T->off[i]; k < T->off[i + 1]; k++) {
            int32_t j = T->nb[k];
            if (j < i || !ph_topo_has(T, j, i)) {
                assert(st->npairs < T->nnz);
                st->pairs[2 * st->npairs] = j < i ? i : j;
                st->pairs[2 * st->npairs + 1] = j < i ? j : i;
                st->npairs++;
            }
        }
    return PLOG_OK;
}

/* "i:j,i:j..." */
static plog_err_t listed_pairs(ph_study_t *st, const char *p, plog_error_t *err)
{
    size_t cap = 0;
    for (const char *c = p; *c;) {
        char *end;
        long i = strtol(c, &end, 10);
        if (end == c || *end != ':')
            return plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET,
                             "--pairs: expected auto, all, topo or i:j,i:j..., not '%s'", p);
        c = end + 1;
        long j = strtol(c, &end, 10);
        if (end == c || (*end != ',' && *end != '\0') || i < 0 || j < 0 || i >= st->P ||
            j >= st->P || i == j)
            return plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET,
                             "--pairs: '%s': ranks must be two different numbers below %d", p,
                             (int)st->P);
        c = *end == ',' ? end + 1 : end;
        if (VEC_GROW(st->pairs, cap, 2 * (st->npairs + 1)) != 0)
            return nomem(err);
        st->pairs[2 * st->npairs] = (int32_t)i;
        st->pairs[2 * st->npairs + 1] = (int32_t)j;
        st->npairs++;
    }
    return PLOG_OK;
}

plog_err_t ph_study_pairs(ph_study_t *st, plog_error_t *err)
{
    const char *p = st->op->pairs;
    if (strcmp(p, "all") == 0 || (strcmp(p, "auto") == 0 && st->P <= PH_ALL_PAIRS_UP_TO))
        return every_pair(st, err);
    if (strcmp(p, "auto") == 0 || strcmp(p, "topo") == 0)
        return topology_pairs(st, err);
    return listed_pairs(st, p, err);
}

/* ---- the walk over the grid ---- */

/* What the summary needs of grid point g; -1: out of memory. */
static int gather(ph_study_t *st, size_t g, int64_t t, double R, double S, double E)
{
    st->r_sum += R;
    st->s_sum += S;
    st->e_sum += E;
    st->r_n++;
    if (S > st->s_max)
        st->s_max = S;
    if (R < st->r_min) {
        st->r_min = R;
        st->r_min_t = t;
        st->r_min_g = g;
    }
    st->r_last = R;
    st->Rg[g] = R;
    if (ph_resync_add(&st->rs, t, R) != 0)
        return -1;
    /* each rank's lag behind the mean phase, in iterations */
    const double *theta = st->theta;
    double mean = 0;
    size_t nm = 0;
    for (int32_t r = 0; r < st->P; r++)
        if (!isnan(theta[r])) {
            mean += theta[r];
            nm++;
        }
    mean = nm ? mean / (double)nm : 0;
    for (int32_t r = 0; r < st->P; r++) {
        if (isnan(theta[r]))
            continue;
        double lag = (mean - theta[r]) / (2 * M_PI);
        st->lag_sum[r] += lag;
        if (st->lag_n[r] == 0 || lag > st->lag_max[r])
            st->lag_max[r] = lag;
        if (st->lag_n[r] == 0 || lag < st->lag_min[r])
            st->lag_min[r] = lag;
        st->lag_n[r]++;
    }
    return 0;
}

/* dR/dt known at point g: central differences inside, one-sided at the ends, per second. */
static void rates(ph_study_t *st, size_t g, int64_t t, double R, ph_point_t *pt)
{
    const ph_grid_t *G = &st->grid;
    pt->nrate = 0;
    if (g >= 1) {
        double d = g == 1 ? (R - st->r_prev) : (R - st->r_prev2) / 2;
        pt->rate_t[pt->nrate] = st->t_prev;
        pt->rate[pt->nrate++] = d / ((double)G->dt * 1e-9);
    }
    if (g + 1 == G->n) {
        double d = g == 0 ? 0 : R - st->r_prev;
        pt->rate_t[pt->nrate] = t;
        pt->rate[pt->nrate++] = d / ((double)G->dt * 1e-9);
    }
    st->r_prev2 = st->r_prev;
    st->r_prev = R;
    st->t_prev = t;
}

int ph_study_next(ph_study_t *st, ph_point_t *pt, plog_error_t *err)
{
    const ph_grid_t *G = &st->grid;
    size_t g = st->next;
    if (g >= G->n) {
        if (g == G->n) { /* past the last point: close an excursion still open */
            st->next++;
            if (ph_resync_finish(&st->rs, G->t0 + (int64_t)(G->n - 1) * G->dt) != 0) {
                nomem(err);
                return -1;
            }
        }
        return 0;
    }
    int64_t t = G->t0 + (int64_t)g * G->dt;
    size_t P = (size_t)st->P;
    ph_timeline_at(&st->tl, g, st->theta);
    memset(pt, 0, sizeof(*pt));
    pt->g = g;
    pt->t = t;
    pt->theta = st->theta;
    ph_order(st->theta, P, &pt->R, &pt->psi);
    pt->S = ph_entropy(st->theta, P, pt->psi, st->scratch, &pt->nbins, st->op->entropy);
    ph_gradient(st->theta, &st->topo, st->gabs, st->gsig);
    pt->gabs = st->gabs;
    pt->gsig = st->gsig;
    pt->E = ph_energy(st->theta, &st->topo, &st->op->pot);
    if (gather(st, g, t, pt->R, pt->S, pt->E) != 0) {
        nomem(err);
        return -1;
    }
    rates(st, g, t, pt->R, pt);
    st->next++;
    return 1;
}

/* ---- after the walk ---- */

/* --reference: its boundaries by the same (resolved) marker spec, then the twin figures. */
static plog_err_t twin(ph_study_t *st, plog_error_t *err)
{
    const char *ref = st->op->reference;
    plog_run_t *run;
    plog_error_t rerr;
    ph_marks_t rm;
    memset(&rm, 0, sizeof(rm));
    if (plog_run_open(ref, &run, &rerr) != PLOG_OK)
        return plog_fail(err, rerr.code, NULL, PLOG_NO_OFFSET, "--reference: %s", rerr.msg);
    plog_err_t e = PLOG_OK;
    if (plog_run_world_size(run) != st->P) {
        e = plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET,
                      "--reference %s: %d ranks, the log has %d", ref,
                      (int)plog_run_world_size(run), (int)st->P);
        goto out;
    }
    if (ph_marks_find(run, &st->marks.used, &rm, &rerr) != PLOG_OK) {
        e = plog_fail(err, rerr.code, NULL, PLOG_NO_OFFSET, "--reference: %s", rerr.msg);
        goto out;
    }
    int32_t with = 0;
    for (int32_t r = 0; r < st->P; r++)
        with += rm.n[r] >= 2;
    if (with == 0) {
        e = plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET,
                      "--reference %s: no rank has two iteration boundaries by the log's "
                      "marker (%s)", ref, ph_mark_mode_name(st->marks.used.mode));
        goto out;
    }
    if (st->wave.source < 0) {
        ph_twin_clear(&st->twin); /* no delay to follow: nothing found */
        goto out;
    }
    if (ph_twin_find(&st->marks, &rm, st->wave.distance, st->wave.source, st->wave.source_iter,
                     st->op->recover_frac, &st->twin) != 0)
        e = nomem(err);
out:
    ph_marks_free(&rm);
    plog_run_close(run);
    return e;
}

/* The snapshots' grid points: the times asked for (nearest point), else evenly spaced ones
 * and R's minimum; ascending, each once. -1: out of memory. */
static int snapshot_points(ph_study_t *st)
{
    const ph_grid_t *G = &st->grid;
    const ph_study_opts_t *op = st->op;
    size_t cap = op->at != NULL ? op->nat : (size_t)op->snapshots + 1;
    st->snap = malloc((cap ? cap : 1) * sizeof(*st->snap));
    if (st->snap == NULL)
        return -1;
    if (op->at != NULL) {
        for (size_t i = 0; i < op->nat; i++) {
            double gi = ((double)op->at[i] - (double)G->t0) / (double)G->dt;
            long long k = llround(gi);
            if (k < 0)
                k = 0;
            if ((size_t)k >= G->n)
                k = (long long)G->n - 1;
            st->snap[st->nsnap++] = k;
        }
    } else {
        unsigned n = op->snapshots;
        for (unsigned k = 0; k < n; k++)
            st->snap[st->nsnap++] =
                n == 1 ? 0 : llround((double)k * (double)(G->n - 1) / (double)(n - 1));
        if (st->r_n > 0)
            st->snap[st->nsnap++] = (int64_t)st->r_min_g;
    }
    assert(st->nsnap <= cap);
    qsort(st->snap, st->nsnap, sizeof(*st->snap), ph_cmp_i64);
    size_t k = 0;
    for (size_t i = 0; i < st->nsnap; i++)
        if (k == 0 || st->snap[i] != st->snap[k - 1])
            st->snap[k++] = st->snap[i];
    st->nsnap = k;
    return 0;
}

plog_err_t ph_study_finish(ph_study_t *st, plog_error_t *err)
{
    assert(st->next > st->grid.n); /* the walk is over */
    const ph_study_opts_t *op = st->op;
    const ph_topo_t *wt = strcmp(op->topology, "log") == 0 ? &st->topo : &st->wtopo;
    if ((op->src_rank >= 0
             ? ph_wave_find_at(&st->marks, wt, op->wave_frac, op->src_rank, op->src_iter,
                               &st->wave)
             : ph_wave_find(&st->marks, wt, op->wave_frac, &st->wave)) != 0)
        return nomem(err);
    /* recovery from the idle wave's source iteration on (a source suffices: noise can hide
     * the wave's waits and still leave the delay's effect) */
    if (st->wave.source >= 0) {
        if (ph_recovery_find(st->Rg, &st->grid, st->marks.t[st->wave.source][st->wave.source_iter],
                             (int64_t)st->median_period, op->recover_frac, &st->rec) != 0)
            return nomem(err);
    } else {
        ph_recovery_clear(&st->rec);
    }
    plog_err_t e;
    if (op->reference != NULL && (e = twin(st, err)) != PLOG_OK)
        return e;
    return snapshot_points(st) != 0 ? nomem(err) : PLOG_OK;
}

plog_err_t ph_study_snapshot(ph_study_t *st, size_t k, int hist, ph_snapshot_t *sn,
                             plog_error_t *err)
{
    assert(k < st->nsnap);
    memset(sn, 0, sizeof(*sn));
    sn->g = (size_t)st->snap[k];
    sn->t = st->grid.t0 + (int64_t)sn->g * st->grid.dt;
    ph_timeline_rewind(&st->tl);
    ph_timeline_at(&st->tl, sn->g, st->theta);
    sn->theta = st->theta;
    if (!hist)
        return PLOG_OK;
    if (st->d == NULL) {
        size_t np = (size_t)st->P * (size_t)(st->P - 1) / 2;
        st->d = malloc((np ? np : 1) * sizeof(*st->d));
        st->count = malloc(PH_MAX_BINS * sizeof(*st->count));
        if (st->d == NULL || st->count == NULL)
            return nomem(err);
    }
    const double *theta = st->theta;
    size_t n = 0;
    for (int32_t i = 0; i < st->P; i++)
        for (int32_t j = 0; j < i; j++)
            if (!isnan(theta[i]) && !isnan(theta[j]))
                st->d[n++] = ph_dtheta(theta, i, j, st->op->wrap);
    if (n > 0) {
        ph_fd_bins(st->d, n, &sn->bins);
        memset(st->count, 0, sn->bins.n * sizeof(*st->count));
        for (size_t i = 0; i < n; i++)
            st->count[ph_bin_of(&sn->bins, st->d[i])]++;
    }
    sn->d = st->d;
    sn->nd = n;
    sn->count = st->count;
    return PLOG_OK;
}

/* ---- the summary ---- */

/* Every pass over the log adds the reader's warnings to the run again: is warning w the
 * first of its text? */
static int warning_first(const plog_run_t *run, size_t w)
{
    const char *x = plog_run_warning(run, w);
    for (size_t k = 0; k < w; k++)
        if (strcmp(plog_run_warning(run, k), x) == 0)
            return 0;
    return 1;
}

plog_err_t ph_study_summarise(const ph_study_t *st, ph_summary_t *sm, plog_error_t *err)
{
    memset(sm, 0, sizeof(*sm));
    assert(st->with_phase > 0); /* ph_study_prepare has a grid only then */
    const ph_mark_spec_t *u = &st->marks.used;
    sm->marker_call = u->mode == PH_MARK_PCONTROL ? "MPI_Pcontrol"
                                                  : plog_call_name((unsigned)u->call);
    sm->it_min = UINT32_MAX;
    for (int32_t r = 0; r < st->P; r++)
        if (st->marks.n[r] >= 2) {
            if (st->marks.n[r] - 1 < sm->it_min)
                sm->it_min = st->marks.n[r] - 1;
            if (st->marks.n[r] - 1 > sm->it_max)
                sm->it_max = st->marks.n[r] - 1;
        }
    sm->r_mean = st->r_n ? st->r_sum / (double)st->r_n : NAN;
    sm->s_mean = st->r_n ? st->s_sum / (double)st->r_n : NAN;
    sm->e_mean = st->r_n ? st->e_sum / (double)st->r_n : NAN;
    sm->recovery_iters = st->rec.recovered && st->median_period > 0
                             ? (double)(st->rec.t_back - st->rec.t_from) / st->median_period
                             : NAN;
    size_t P = (size_t)st->P, nw = plog_run_nwarnings(st->run);
    sm->lag_mean = malloc((P ? P : 1) * sizeof(*sm->lag_mean));
    sm->incomplete = malloc((P ? P : 1) * sizeof(*sm->incomplete));
    sm->warnings = malloc((nw ? nw : 1) * sizeof(*sm->warnings));
    if (sm->lag_mean == NULL || sm->incomplete == NULL || sm->warnings == NULL) {
        ph_summary_free(sm);
        return nomem(err);
    }
    sm->lag_rank = -1;
    sm->lag_iters = NAN;
    for (int32_t r = 0; r < st->P; r++) {
        sm->lag_mean[r] = st->lag_n[r] ? st->lag_sum[r] / (double)st->lag_n[r] : NAN;
        if (st->lag_n[r] && (sm->lag_rank < 0 || sm->lag_mean[r] > sm->lag_iters)) {
            sm->lag_iters = sm->lag_mean[r];
            sm->lag_rank = r;
        }
        const plog_rank_t *rk = plog_run_rank(st->run, r);
        if (rk != NULL && !rk->complete)
            sm->incomplete[sm->nincomplete++] = r;
    }
    for (size_t w = 0; w < nw; w++)
        if (warning_first(st->run, w))
            sm->warnings[sm->nwarnings++] = plog_run_warning(st->run, w);
    return PLOG_OK;
}

void ph_summary_free(ph_summary_t *sm)
{
    free(sm->lag_mean);
    free(sm->incomplete);
    free(sm->warnings);
    memset(sm, 0, sizeof(*sm));
}

void ph_study_free(ph_study_t *st)
{
    ph_marks_free(&st->marks);
    ph_compute_free(&st->comp);
    ph_topo_free(&st->topo);
    ph_topo_free(&st->wtopo);
    ph_resync_free(&st->rs);
    ph_wave_free(&st->wave);
    ph_twin_free(&st->twin);
    ph_timeline_free(&st->tl);
    free(st->theta);
    free(st->scratch);
    free(st->gabs);
    free(st->gsig);
    free(st->pairs);
    free(st->lag_sum);
    free(st->lag_min);
    free(st->lag_max);
    free(st->lag_n);
    free(st->Rg);
    free(st->snap);
    free(st->d);
    free(st->count);
    memset(st, 0, sizeof(*st));
}
