/* phases_marks.c: the iteration boundaries of every rank (phases.h, ph_marks_find): the
 * chosen marker's occurrences, or the Pcontrol markers, or the call that the detected period
 * of the ranks' call sequences has once per period. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "phases_priv.h"
#include "plog_calls.h"
#include "vec.h"

void ph_marks_free(ph_marks_t *m)
{
    if (m == NULL)
        return;
    if (m->t != NULL)
        for (int32_t r = 0; r < m->nranks; r++)
            free(m->t[r]);
    if (m->comp != NULL)
        for (int32_t r = 0; r < m->nranks; r++)
            free(m->comp[r]);
    free(m->comp);
    free(m->t);
    free(m->n);
    memset(m, 0, sizeof(*m));
}

/* The boundaries of one rank as they are found. */
typedef struct times {
    int64_t *v;
    size_t n, cap;
} times_t;

static int times_push(times_t *a, int64_t x)
{
    return VEC_PUSH(a->v, a->n, a->cap, x);
}

static int is_pcontrol(const ph_mark_spec_t *sp, const plog_rec_t *e)
{
    return e->call == PLOG_CALL_MPI_Pcontrol && (sp->level == PH_ANY_LEVEL || e->tag == sp->level);
}

static int is_marker(const ph_mark_spec_t *sp, const plog_rec_t *e)
{
    if (sp->mode == PH_MARK_PCONTROL)
        return is_pcontrol(sp, e);
    return e->call == sp->call && (sp->callsite == 0 || e->callsite == sp->callsite);
}

/* The occurrence'th marker (counted from 0) is a boundary: past the skipped ones, every
 * n-th. */
static int is_boundary(const ph_mark_spec_t *sp, uint64_t occurrence)
{
    assert(sp->every >= 1);
    return occurrence >= sp->skip && (occurrence - sp->skip) % sp->every == 0;
}

/* Events that take part in period detection: what the application calls, not the shim's
 * own records, Pcontrol or the lifecycle calls. */
static int is_signature_event(const plog_rec_t *e)
{
    return e->cls != PLOG_CLASS_STEP && e->cls != PLOG_CLASS_ENV && e->call < 900;
}

/* Most frequent non-zero value (sorts v); ties to the smaller; 0 if all are 0. */
static uint32_t mode_nonzero(uint32_t *v, size_t n)
{
    qsort(v, n, sizeof(*v), ph_cmp_u32);
    uint32_t best = 0;
    size_t bestc = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j] == v[i])
            j++;
        if (v[i] != 0 && j - i > bestc) {
            best = v[i];
            bestc = j - i;
        }
        i = j;
    }
    return best;
}

typedef struct anchor_count {
    uint64_t key;
    uint32_t ranks;
} anchor_count_t;

/* One pass over a rank: boundaries by spec (mode PCONTROL or CALL), and with sig != NULL
 * the first PH_DETECT_WINDOW signatures plus the Pcontrol boundaries (AUTO). */
static plog_err_t scan_rank(plog_run_t *run, int32_t r, const ph_mark_spec_t *sp, times_t *out,
                            uint64_t *sig, size_t *nsig, times_t *pctl, plog_error_t *err)
{
    plog_iter_t *it = NULL;
    plog_err_t e = plog_iter_open(run, r, &it, err);
    if (e != PLOG_OK)
        return e;
    const plog_rec_t *ev;
    uint64_t occ = 0, pocc = 0;
    while ((e = plog_iter_next(it, &ev, err)) == PLOG_OK && ev != NULL) {
        int64_t at = sp->use_end ? ev->end_ns : ev->start_ns;
        if (sig != NULL) {
            if (is_pcontrol(sp, ev)) {
                if (is_boundary(sp, pocc) && times_push(pctl, at) != 0) {
                    e = ph_nomem(run, err);
                    break;
                }
                pocc++;
            }
            if (*nsig < PH_DETECT_WINDOW && is_signature_event(ev))
                sig[(*nsig)++] = ph_signature(ev->call, ev->callsite);
            continue;
        }
        if (!is_marker(sp, ev))
            continue;
        if (is_boundary(sp, occ) && times_push(out, at) != 0) {
            e = ph_nomem(run, err);
            break;
        }
        occ++;
    }
    plog_iter_close(it);
    return e;
}

static void take_times(ph_marks_t *m, int32_t r, times_t *v)
{
    assert(m->t[r] == NULL && v->n <= UINT32_MAX);
    /* threads of a rank may interleave markers with end times out of order */
    if (v->n > 1)
        qsort(v->v, v->n, sizeof(*v->v), ph_cmp_i64);
    m->t[r] = v->v;
    m->n[r] = (uint32_t)v->n;
    memset(v, 0, sizeof(*v));
}

/* Every loaded rank's boundaries by sp (mode PCONTROL or CALL), replacing what m has. */
static plog_err_t scan_all(plog_run_t *run, const ph_mark_spec_t *sp, ph_marks_t *m,
                           plog_error_t *err)
{
    assert(sp->mode == PH_MARK_PCONTROL || sp->mode == PH_MARK_CALL);
    plog_err_t e = PLOG_OK;
    times_t v = {0};
    for (int32_t r = 0; r < m->nranks && e == PLOG_OK; r++) {
        free(m->t[r]);
        m->t[r] = NULL;
        m->n[r] = 0;
        if (plog_run_rank(run, r) == NULL)
            continue;
        e = scan_rank(run, r, sp, &v, NULL, NULL, NULL, err);
        if (e == PLOG_OK)
            take_times(m, r, &v);
    }
    free(v.v);
    return e;
}

/* Signatures occurring once per period, with the number of ranks they do so on. */
typedef struct anchors {
    anchor_count_t *v;
    size_t n, cap;
} anchors_t;

static int anchors_add(anchors_t *a, const uint64_t *key, size_t nkey)
{
    for (size_t i = 0; i < nkey; i++) {
        size_t k = 0;
        while (k < a->n && a->v[k].key != key[i])
            k++;
        if (k == a->n) {
            if (VEC_GROW(a->v, a->cap, a->n + 1) != 0)
                return -1;
            a->v[a->n++] = (anchor_count_t){key[i], 0};
        }
        a->v[k].ranks++;
    }
    return 0;
}

/* The anchor: once per period on the most ranks; ties to the lowest signature, so that
 * every rank uses the same call and site and the iterations are numbered alike. a->n when
 * there is none. */
static size_t anchors_best(const anchors_t *a)
{
    size_t best = a->n;
    for (size_t k = 0; k < a->n; k++)
        if (best == a->n || a->v[k].ranks > a->v[best].ranks ||
            (a->v[k].ranks == a->v[best].ranks && a->v[k].key < a->v[best].key))
            best = k;
    return best;
}

/* AUTO / PERIOD: one pass over each rank for its Pcontrol boundaries (into m) and its
 * signature window; the periods (per rank) and the anchors of the ranks' periods, unless
 * AUTO found Pcontrol markers (*pcontrol_ranks > 0: m holds them). */
static plog_err_t detect(plog_run_t *run, ph_marks_t *m, uint32_t *periods, anchors_t *ac,
                         int *pcontrol_ranks, plog_error_t *err)
{
    const ph_mark_spec_t *sp = &m->used;
    uint64_t *sig = malloc(PH_DETECT_WINDOW * sizeof(*sig));
    uint64_t *anc = malloc(PH_DETECT_WINDOW * sizeof(*anc));
    times_t v = {0};
    plog_err_t e = PLOG_OK;
    if (sig == NULL || anc == NULL)
        e = ph_nomem(run, err);
    for (int32_t r = 0; r < m->nranks && e == PLOG_OK; r++) {
        if (plog_run_rank(run, r) == NULL)
            continue;
        size_t nsig = 0;
        if ((e = scan_rank(run, r, sp, NULL, sig, &nsig, &v, err)) != PLOG_OK)
            break;
        if (sp->mode == PH_MARK_AUTO && v.n >= 2)
            (*pcontrol_ranks)++;
        take_times(m, r, &v); /* Pcontrol boundaries, used if any rank has them */
        if (sp->mode == PH_MARK_AUTO && *pcontrol_ranks > 0)
            continue;
        size_t na = 0;
        periods[r] = ph_detect_period(sig, nsig, anc, PH_DETECT_WINDOW, &na);
        if (anchors_add(ac, anc, na) != 0)
            e = ph_nomem(run, err);
    }
    free(v.v);
    free(sig);
    free(anc);
    return e;
}

plog_err_t ph_marks_find(plog_run_t *run, const ph_mark_spec_t *spec, ph_marks_t *m,
                         plog_error_t *err)
{
    memset(m, 0, sizeof(*m));
    int32_t P = plog_run_world_size(run);
    m->nranks = P;
    m->used = *spec;
    if (m->used.every == 0)
        m->used.every = 1;
    m->n = calloc((size_t)P, sizeof(*m->n));
    m->t = calloc((size_t)P, sizeof(*m->t));
    if (m->n == NULL || m->t == NULL)
        return ph_nomem(run, err);
    ph_mark_spec_t *sp = &m->used;
    if (sp->mode == PH_MARK_PCONTROL || sp->mode == PH_MARK_CALL)
        return scan_all(run, sp, m, err);
    anchors_t ac = {0};
    int pcontrol_ranks = 0;
    uint32_t *periods = calloc((size_t)P, sizeof(*periods));
    plog_err_t e = periods == NULL ? ph_nomem(run, err)
                                   : detect(run, m, periods, &ac, &pcontrol_ranks, err);
    if (e != PLOG_OK)
        goto out;
    if (sp->mode == PH_MARK_AUTO && pcontrol_ranks > 0) {
        sp->mode = PH_MARK_PCONTROL;
        goto out;
    }
    size_t best = anchors_best(&ac);
    if (best == ac.n) {
        e = plog_fail(err, PLOG_E_USAGE, NULL, PLOG_NO_OFFSET,
                      "%s: no MPI_Pcontrol markers and no rank repeats a call sequence with a "
                      "period; choose the iteration marker (--marker CALL[@SITE], --every N)",
                      plog_run_path(run));
        goto out;
    }
    m->period = mode_nonzero(periods, (size_t)P); /* the most common period */
    sp->mode = PH_MARK_PERIOD;
    sp->call = (int)(ac.v[best].key >> 32);
    sp->callsite = (uint32_t)ac.v[best].key;
    ph_mark_spec_t call = *sp;
    call.mode = PH_MARK_CALL;
    e = scan_all(run, &call, m, err);
out:
    free(ac.v);
    free(periods);
    return e;
}
