/* phases.c: iteration boundaries, phases on a grid and oscillator metrics (phases.h). */
#include "phases.h"
#include "pstat.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plog_calls.h"

#define TAU 6.283185307179586476925

static plog_err_t ph_fail(plog_error_t *err, plog_err_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static plog_err_t ph_fail(plog_error_t *err, plog_err_t code, const char *fmt, ...)
{
    if (err != NULL) {
        err->code = code;
        err->offset = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

/* ---- growable arrays ---- */

typedef struct vec64 {
    int64_t *v;
    size_t n, cap;
} vec64_t;

static int vec_push(vec64_t *a, int64_t x)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 64;
        int64_t *p = realloc(a->v, nc * sizeof(*p));
        if (p == NULL)
            return -1;
        a->v = p;
        a->cap = nc;
    }
    a->v[a->n++] = x;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- period detection ---- */

/* Fraction of positions i >= from with s[i] == s[i + p]; stops early (returning what it has,
 * below PH_PERIOD_MATCH) once the mismatches alone rule the threshold out. */
static double match_fraction(const uint64_t *s, size_t n, size_t p, size_t from)
{
    if (p == 0 || from + p >= n)
        return 0;
    size_t total = n - p - from, miss = 0;
    size_t limit = (size_t)((1 - PH_PERIOD_MATCH) * (double)total);
    for (size_t i = from; i + p < n; i++)
        if (s[i] != s[i + p] && ++miss > limit)
            return 0;
    return (double)(total - miss) / (double)total;
}

typedef struct sigpos {
    uint64_t sig;
    size_t pos;
} sigpos_t;

static int cmp_sigpos(const void *a, const void *b)
{
    const sigpos_t *x = a, *y = b;
    if (x->sig != y->sig)
        return x->sig < y->sig ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

typedef struct sigrun {
    size_t count, first, last;
} sigrun_t;

static int cmp_run_count(const void *a, const void *b)
{
    const sigrun_t *x = a, *y = b;
    return x->count > y->count ? -1 : x->count < y->count;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

#define PH_PERIOD_SIGS 32 /* the most frequent signatures propose periods */

uint32_t ph_detect_period(const uint64_t *s, size_t n, uint64_t *anchors, size_t max_anchors,
                          size_t *n_anchors)
{
    if (n_anchors)
        *n_anchors = 0;
    if (n < 3)
        return 0;
    sigpos_t *sp = malloc(n * sizeof(*sp));
    sigrun_t *runs = malloc(n * sizeof(*runs));
    size_t *cand = malloc(4 * PH_PERIOD_SIGS * sizeof(*cand));
    size_t best = 0;
    if (sp == NULL || runs == NULL || cand == NULL)
        goto out;
    for (size_t i = 0; i < n; i++)
        sp[i] = (sigpos_t){s[i], i};
    qsort(sp, n, sizeof(*sp), cmp_sigpos);
    size_t nruns = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && sp[j].sig == sp[i].sig)
            j++;
        runs[nruns++] = (sigrun_t){j - i, sp[i].pos, sp[j - 1].pos};
        i = j;
    }
    qsort(runs, nruns, sizeof(*runs), cmp_run_count);
    /* candidates: a signature seen c >= 3 times proposes its mean gap times m = 1..4 (it may
     * occur m times per period) */
    size_t ncand = 0;
    for (size_t k = 0; k < nruns && k < PH_PERIOD_SIGS && runs[k].count >= 3; k++) {
        double gap = (double)(runs[k].last - runs[k].first) / (double)(runs[k].count - 1);
        for (int m = 1; m <= 4; m++) {
            size_t p = (size_t)llround(gap * m);
            if (p != 0 && 3 * p <= n)
                cand[ncand++] = p;
        }
    }
    qsort(cand, ncand, sizeof(*cand), cmp_size);
    /* the smallest candidate that repeats the sequence; a set-up prefix is allowed: the match
     * is measured past the first p positions */
    for (size_t a = 0; a < ncand && best == 0; a++)
        if ((a == 0 || cand[a] != cand[a - 1]) &&
            match_fraction(s, n, cand[a], cand[a]) >= PH_PERIOD_MATCH)
            best = cand[a];
    /* the true period may divide the one found (from m >= 2): try its divisors */
    for (size_t d = 2; best != 0 && d <= best; d++)
        if (best % d == 0 && match_fraction(s, n, best / d, best / d) >= PH_PERIOD_MATCH) {
            best /= d;
            d = 1;
        }
    if (best != 0 && anchors != NULL && n_anchors != NULL) {
        /* periodic part: the last whole periods; count occurrences there */
        size_t periods = (n - best) / best, from = n - periods * best, m = periods * best;
        uint64_t *sorted = (uint64_t *)runs; /* no longer needed; n words fit */
        memcpy(sorted, s + from, m * sizeof(*s));
        qsort(sorted, m, sizeof(*sorted), cmp_u64);
        for (size_t i = 0; i < m;) {
            size_t j = i;
            while (j < m && sorted[j] == sorted[i])
                j++;
            if (j - i == periods && *n_anchors < max_anchors)
                anchors[(*n_anchors)++] = sorted[i];
            i = j;
        }
    }
out:
    free(sp);
    free(runs);
    free(cand);
    return (uint32_t)best;
}

/* ---- boundaries ---- */

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

static int is_marker(const ph_mark_spec_t *sp, const plog_rec_t *e)
{
    if (sp->mode == PH_MARK_PCONTROL)
        return e->call == PLOG_CALL_MPI_Pcontrol &&
               (sp->level == PH_ANY_LEVEL || e->tag == sp->level);
    return e->call == sp->call && (sp->callsite == 0 || e->callsite == sp->callsite);
}

/* Events that take part in period detection: what the application calls, not the shim's
 * own records, Pcontrol or the lifecycle calls. */
static int is_signature_event(const plog_rec_t *e)
{
    return e->cls != PLOG_CLASS_STEP && e->cls != PLOG_CLASS_ENV && e->call < 900;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Most frequent non-zero value (sorts v); ties to the smaller; 0 if all are 0. */
static uint32_t mode_nonzero(uint32_t *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_u32);
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
static plog_err_t scan_rank(plog_run_t *run, int32_t r, const ph_mark_spec_t *sp, vec64_t *out,
                            uint64_t *sig, size_t *nsig, vec64_t *pctl, plog_error_t *err)
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
            if (ev->call == PLOG_CALL_MPI_Pcontrol &&
                (sp->level == PH_ANY_LEVEL || ev->tag == sp->level)) {
                if (pocc >= sp->skip && (pocc - sp->skip) % sp->every == 0 &&
                    vec_push(pctl, at) != 0) {
                    e = ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
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
        if (occ >= sp->skip && (occ - sp->skip) % sp->every == 0 && vec_push(out, at) != 0) {
            e = ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
            break;
        }
        occ++;
    }
    plog_iter_close(it);
    return e;
}

static int take_vec(ph_marks_t *m, int32_t r, vec64_t *v)
{
    /* threads of a rank may interleave markers with end times out of order */
    if (v->n > 1)
        qsort(v->v, v->n, sizeof(*v->v), cmp_i64);
    m->t[r] = v->v;
    m->n[r] = (uint32_t)v->n;
    memset(v, 0, sizeof(*v));
    return 0;
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
        return ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
    ph_mark_spec_t *sp = &m->used;
    plog_err_t e = PLOG_OK;
    vec64_t v = {0};
    if (sp->mode == PH_MARK_PCONTROL || sp->mode == PH_MARK_CALL) {
        for (int32_t r = 0; r < P && e == PLOG_OK; r++) {
            if (plog_run_rank(run, r) == NULL)
                continue;
            e = scan_rank(run, r, sp, &v, NULL, NULL, NULL, err);
            if (e == PLOG_OK)
                take_vec(m, r, &v);
        }
        free(v.v);
        return e;
    }
    /* AUTO / PERIOD: one pass for Pcontrol and each rank's signature window */
    uint64_t *sig = malloc(PH_DETECT_WINDOW * sizeof(*sig));
    uint64_t *anc = malloc(PH_DETECT_WINDOW * sizeof(*anc));
    anchor_count_t *ac = NULL;
    size_t nac = 0, capac = 0;
    uint32_t *periods = calloc((size_t)P, sizeof(*periods));
    int pcontrol_ranks = 0;
    if (sig == NULL || anc == NULL || periods == NULL) {
        e = ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
        goto out;
    }
    for (int32_t r = 0; r < P && e == PLOG_OK; r++) {
        if (plog_run_rank(run, r) == NULL)
            continue;
        size_t nsig = 0;
        e = scan_rank(run, r, sp, NULL, sig, &nsig, &v, err);
        if (e != PLOG_OK)
            break;
        if (sp->mode == PH_MARK_AUTO && v.n >= 2)
            pcontrol_ranks++;
        take_vec(m, r, &v); /* Pcontrol boundaries, used if any rank has them */
        if (sp->mode == PH_MARK_AUTO && pcontrol_ranks > 0)
            continue;
        size_t na = 0;
        periods[r] = ph_detect_period(sig, nsig, anc, PH_DETECT_WINDOW, &na);
        for (size_t i = 0; i < na; i++) {
            size_t k = 0;
            while (k < nac && ac[k].key != anc[i])
                k++;
            if (k == nac) {
                if (nac == capac) {
                    size_t nc = capac ? 2 * capac : 64;
                    anchor_count_t *p = realloc(ac, nc * sizeof(*p));
                    if (p == NULL) {
                        e = ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
                        goto out;
                    }
                    ac = p;
                    capac = nc;
                }
                ac[nac++] = (anchor_count_t){anc[i], 0};
            }
            ac[k].ranks++;
        }
    }
    if (e != PLOG_OK)
        goto out;
    if (sp->mode == PH_MARK_AUTO && pcontrol_ranks > 0) {
        sp->mode = PH_MARK_PCONTROL;
        goto out;
    }
    /* the anchor: once per period on the most ranks; ties to the lowest signature, so that
     * every rank uses the same call and site and the iterations are numbered alike */
    size_t best = nac;
    for (size_t k = 0; k < nac; k++)
        if (best == nac || ac[k].ranks > ac[best].ranks ||
            (ac[k].ranks == ac[best].ranks && ac[k].key < ac[best].key))
            best = k;
    if (best == nac) {
        e = ph_fail(err, PLOG_E_USAGE,
                    "%s: no MPI_Pcontrol markers and no rank repeats a call sequence with a "
                    "period; choose the iteration marker (--marker CALL[@SITE], --every N)",
                    plog_run_path(run));
        goto out;
    }
    m->period = mode_nonzero(periods, (size_t)P); /* the most common period */
    sp->mode = PH_MARK_PERIOD;
    sp->call = (int)(ac[best].key >> 32);
    sp->callsite = (uint32_t)ac[best].key;
    for (int32_t r = 0; r < P && e == PLOG_OK; r++) {
        free(m->t[r]);
        m->t[r] = NULL;
        m->n[r] = 0;
        if (plog_run_rank(run, r) == NULL)
            continue;
        ph_mark_spec_t call = *sp;
        call.mode = PH_MARK_CALL;
        e = scan_rank(run, r, &call, &v, NULL, NULL, NULL, err);
        if (e == PLOG_OK)
            take_vec(m, r, &v);
    }
out:
    free(v.v);
    free(sig);
    free(anc);
    free(ac);
    free(periods);
    return e;
}

/* ---- grid and phases ---- */

static double median_diff(const int64_t *t, uint32_t n, int64_t *scratch)
{
    if (n < 2)
        return 0;
    for (uint32_t k = 0; k + 1 < n; k++)
        scratch[k] = t[k + 1] - t[k];
    qsort(scratch, n - 1, sizeof(*scratch), cmp_i64);
    uint32_t h = (n - 1) / 2;
    return (n - 1) % 2 ? (double)scratch[h] : 0.5 * ((double)scratch[h - 1] + (double)scratch[h]);
}

double ph_median_period(const ph_marks_t *m)
{
    uint32_t maxn = 0, nr = 0;
    for (int32_t r = 0; r < m->nranks; r++)
        if (m->n[r] >= 2) {
            nr++;
            if (m->n[r] > maxn)
                maxn = m->n[r];
        }
    if (nr == 0)
        return 0;
    int64_t *scratch = malloc(maxn * sizeof(*scratch));
    double *med = malloc(nr * sizeof(*med));
    double out = 0;
    if (scratch != NULL && med != NULL) {
        uint32_t i = 0;
        for (int32_t r = 0; r < m->nranks; r++)
            if (m->n[r] >= 2)
                med[i++] = median_diff(m->t[r], m->n[r], scratch);
        qsort(med, nr, sizeof(*med), pstat_cmp_double);
        out = nr % 2 ? med[nr / 2] : 0.5 * (med[nr / 2 - 1] + med[nr / 2]);
    }
    free(scratch);
    free(med);
    return out;
}

int ph_grid_make(const ph_marks_t *m, int64_t dt_ns, size_t max_points, ph_grid_t *g)
{
    memset(g, 0, sizeof(*g));
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    int any = 0;
    for (int32_t r = 0; r < m->nranks; r++) {
        if (m->n[r] < 2)
            continue;
        any = 1;
        if (m->t[r][0] > lo)
            lo = m->t[r][0];
        if (m->t[r][m->n[r] - 1] < hi)
            hi = m->t[r][m->n[r] - 1];
    }
    if (!any || lo > hi)
        return -1;
    if (dt_ns <= 0) {
        double p = ph_median_period(m);
        dt_ns = p >= 4 ? (int64_t)(p / 4) : 1;
    }
    if (max_points < 2)
        max_points = 2;
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span / (uint64_t)dt_ns + 1 > max_points)
        dt_ns = (int64_t)((span + max_points - 2) / (max_points - 1));
    if (dt_ns <= 0)
        dt_ns = 1;
    g->t0 = lo;
    g->dt = dt_ns;
    g->n = (size_t)(span / (uint64_t)dt_ns) + 1;
    return 0;
}

void ph_cursor_init(ph_cursor_t *c, const ph_marks_t *m, int32_t rank)
{
    c->t = m->t[rank];
    c->n = m->n[rank];
    c->k = 0;
}

/* Largest k with t[k] <= at (walking from c->k; at must not decrease), -1 outside. */
static int64_t cursor_iter(ph_cursor_t *c, int64_t at)
{
    if (c->n < 2 || at < c->t[0] || at > c->t[c->n - 1])
        return -1;
    if (c->t[c->k] > at)
        c->k = 0;
    while (c->k + 1 < c->n && c->t[c->k + 1] <= at)
        c->k++;
    return c->k;
}

static double phase_in(const int64_t *t, uint32_t n, int64_t k, int64_t at)
{
    if ((uint32_t)k == n - 1)
        return TAU * (double)k;
    return TAU * ((double)k + (double)(at - t[k]) / (double)(t[k + 1] - t[k]));
}

double ph_cursor_phase(ph_cursor_t *c, int64_t at)
{
    int64_t k = cursor_iter(c, at);
    return k < 0 ? NAN : phase_in(c->t, c->n, k, at);
}

double ph_phase_at(const int64_t *t, uint32_t n, int64_t at)
{
    if (n < 2 || at < t[0] || at > t[n - 1])
        return NAN;
    uint32_t lo = 0, hi = n - 1; /* largest k with t[k] <= at */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (t[mid] <= at)
            lo = mid;
        else
            hi = mid - 1;
    }
    return phase_in(t, n, lo, at);
}

/* ---- receive pairs ---- */

static int topo_build(int32_t n, int32_t *pairs, size_t np, ph_topo_t *out);

static int cmp_pair(const void *a, const void *b)
{
    const int32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int recv_source(const plog_rec_t *e, const plog_rstatus_t *st)
{
    if (st->source < 0 || st->source == e->rank || st->cancelled)
        return 0;
    if (st->start == NULL)
        return e->cls == PLOG_CLASS_RECV || e->cls == PLOG_CLASS_SENDRECV;
    return st->start->cls == PLOG_CLASS_IRECV || st->start->cls == PLOG_CLASS_PRECV_INIT;
}

/* Receive pairs (i, j), gathered event by event, deduplicated per rank as the list grows. */
typedef struct topo_acc {
    int32_t P;
    int32_t *pairs;
    size_t np, cap;
    size_t first, next_dedup; /* this rank's pairs start at first */
    int32_t last;
} topo_acc_t;

static void acc_rank(topo_acc_t *a)
{
    a->first = a->np;
    a->next_dedup = a->np + 4096;
    a->last = -1;
}

static void acc_dedup(topo_acc_t *a)
{
    size_t n = a->np - a->first;
    if (n > 1)
        qsort(a->pairs + 2 * a->first, n, 2 * sizeof(int32_t), cmp_pair);
    size_t k = a->first;
    for (size_t p = a->first; p < a->np; p++)
        if (k == a->first || a->pairs[2 * p + 1] != a->pairs[2 * k - 1]) {
            a->pairs[2 * k] = a->pairs[2 * p];
            a->pairs[2 * k + 1] = a->pairs[2 * p + 1];
            k++;
        }
    a->np = k;
    a->next_dedup = a->np + (a->np - a->first) + 4096; /* amortised: the list at least doubles */
}

static int acc_event(topo_acc_t *a, const plog_rec_t *ev)
{
    if (ev->cls == PLOG_CLASS_PROBE)
        return 0;
    for (uint32_t s = 0; s < ev->n_status; s++) {
        const plog_rstatus_t *st = &ev->status[s];
        if (!recv_source(ev, st) || st->source >= a->P || st->source == a->last)
            continue;
        a->last = st->source;
        if (a->np == a->cap) {
            size_t nc = a->cap ? 2 * a->cap : 256;
            int32_t *p = realloc(a->pairs, nc * 2 * sizeof(*p));
            if (p == NULL)
                return -1;
            a->pairs = p;
            a->cap = nc;
        }
        a->pairs[2 * a->np] = ev->rank;
        a->pairs[2 * a->np + 1] = st->source;
        a->np++;
    }
    if (a->np > a->next_dedup)
        acc_dedup(a);
    return 0;
}

/* ---- timelines ---- */

int ph_timeline_init(ph_timeline_t *tl, const ph_marks_t *m, const ph_compute_t *comp,
                     const ph_grid_t *g)
{
    tl->m = m;
    tl->comp = comp;
    tl->grid = *g;
    tl->cur = calloc((size_t)m->nranks, sizeof(*tl->cur));
    if (tl->cur == NULL)
        return -1;
    ph_timeline_rewind(tl);
    return 0;
}

void ph_timeline_rewind(ph_timeline_t *tl)
{
    for (int32_t r = 0; r < tl->m->nranks; r++)
        ph_cursor_init(&tl->cur[r], tl->m, r);
}

void ph_timeline_at(ph_timeline_t *tl, size_t g, double *theta)
{
    int64_t t = tl->grid.t0 + (int64_t)g * tl->grid.dt;
    for (int32_t r = 0; r < tl->m->nranks; r++) {
        ph_cursor_t *c = &tl->cur[r];
        int64_t k = cursor_iter(c, t);
        if (k < 0) {
            theta[r] = NAN;
        } else if (tl->comp == NULL || tl->comp->frac == NULL || tl->comp->frac[r] == NULL ||
                   (uint32_t)k == c->n - 1) {
            theta[r] = phase_in(c->t, c->n, k, t);
        } else {
            /* the iteration from the boundaries, the fraction from the compute time */
            float fr = tl->comp->frac[r][g];
            theta[r] = isnan(fr) ? NAN : TAU * ((double)k + (double)fr);
        }
    }
}

void ph_timeline_free(ph_timeline_t *tl)
{
    free(tl->cur);
    tl->cur = NULL;
}

/* ---- compute-only phases ---- */

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
 * for non-decreasing queries while the rank's events stream by start time. */
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
                            const ph_grid_t *g, double *cm, double *cg, topo_acc_t *acc,
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
        if (ev == NULL)
            break;
        if (acc != NULL && acc_event(acc, ev) != 0) {
            e = ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
            break;
        }
        if (ev->cls == PLOG_CLASS_STEP || ev->call == PLOG_CALL_MPI_Pcontrol)
            continue;
        int64_t f = ev->end_ns > s ? ev->end_ns : s;
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
        return ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
    topo_acc_t a = {.P = m->nranks};
    plog_err_t e = PLOG_OK;
    for (int32_t r = 0; r < m->nranks && e == PLOG_OK; r++) {
        uint32_t n = m->n[r];
        if (plog_run_rank(run, r) == NULL || (topo == NULL && (n < 2 || m->comp[r] != NULL)))
            continue;
        double *cm = malloc((n ? n : 1) * sizeof(*cm));
        if (cm == NULL) {
            e = ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
            break;
        }
        acc_rank(&a);
        e = busy_pass(run, r, m->t[r], n, NULL, cm, NULL, topo ? &a : NULL, err);
        if (e != PLOG_OK || n < 2 || m->comp[r] != NULL) {
            free(cm);
            continue;
        }
        for (uint32_t k = 0; k + 1 < n; k++)
            cm[k] = cm[k + 1] - cm[k];
        m->comp[r] = cm; /* n - 1 values used */
    }
    if (e == PLOG_OK && topo != NULL && topo_build(a.P, a.pairs, a.np, topo) != 0)
        e = ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
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
    plog_err_t e = PLOG_OK;
    if (out->frac == NULL || cg == NULL) {
        free(cg);
        return ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
    }
    for (int32_t r = 0; r < m->nranks && e == PLOG_OK; r++) {
        uint32_t n = m->n[r];
        if (n < 2 || plog_run_rank(run, r) == NULL)
            continue;
        const int64_t *t = m->t[r];
        double *ncm = realloc(cm, n * sizeof(*cm));
        out->frac[r] = malloc((g->n ? g->n : 1) * sizeof(float));
        if (ncm == NULL || out->frac[r] == NULL) {
            cm = ncm != NULL ? ncm : cm;
            e = ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
            break;
        }
        cm = ncm;
        if ((e = busy_pass(run, r, t, n, g, cm, cg, NULL, err)) != PLOG_OK)
            break;
        ph_cursor_t c = {t, n, 0};
        for (size_t i = 0; i < g->n; i++) {
            int64_t at = g->t0 + (int64_t)i * g->dt;
            int64_t k = cursor_iter(&c, at);
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

/* ---- topology ---- */

void ph_topo_free(ph_topo_t *t)
{
    if (t == NULL)
        return;
    free(t->off);
    free(t->nb);
    memset(t, 0, sizeof(*t));
}

int ph_topo_has(const ph_topo_t *t, int32_t i, int32_t j)
{
    if (i < 0 || i >= t->n)
        return 0;
    uint32_t lo = t->off[i], hi = t->off[i + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->nb[mid] == j)
            return 1;
        if (t->nb[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* pairs (i, j) sorted and deduplicated in place into CSR */
static int topo_build(int32_t n, int32_t *pairs, size_t np, ph_topo_t *out)
{
    memset(out, 0, sizeof(*out));
    if (np > 1)
        qsort(pairs, np, 2 * sizeof(int32_t), cmp_pair);
    out->n = n;
    out->off = calloc((size_t)n + 1, sizeof(*out->off));
    out->nb = malloc((np ? np : 1) * sizeof(*out->nb));
    if (out->off == NULL || out->nb == NULL) {
        ph_topo_free(out);
        return -1;
    }
    size_t k = 0;
    for (size_t p = 0; p < np; p++) {
        if (p > 0 && pairs[2 * p] == pairs[2 * p - 2] && pairs[2 * p + 1] == pairs[2 * p - 1])
            continue;
        out->off[pairs[2 * p] + 1]++;
        out->nb[k++] = pairs[2 * p + 1];
    }
    for (int32_t i = 0; i < n; i++)
        out->off[i + 1] += out->off[i];
    out->nnz = k;
    return 0;
}

int ph_topo_from_pairs(int32_t n, const int32_t *pairs, size_t np, ph_topo_t *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t p = 0; p < np; p++)
        if (pairs[2 * p] < 0 || pairs[2 * p] >= n || pairs[2 * p + 1] < 0 ||
            pairs[2 * p + 1] >= n || pairs[2 * p] == pairs[2 * p + 1])
            return -1;
    int32_t *cp = malloc((np ? np : 1) * 2 * sizeof(*cp));
    if (cp == NULL)
        return -1;
    if (np > 0)
        memcpy(cp, pairs, np * 2 * sizeof(*cp));
    int rc = topo_build(n, cp, np, out);
    free(cp);
    return rc;
}

int ph_topo_all(int32_t n, ph_topo_t *out)
{
    memset(out, 0, sizeof(*out));
    out->n = n;
    size_t nn = (size_t)n * (size_t)(n > 0 ? n - 1 : 0);
    out->off = calloc((size_t)n + 1, sizeof(*out->off));
    out->nb = malloc((nn ? nn : 1) * sizeof(*out->nb));
    if (out->off == NULL || out->nb == NULL) {
        ph_topo_free(out);
        return -1;
    }
    size_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        for (int32_t j = 0; j < n; j++)
            if (j != i)
                out->nb[k++] = j;
        out->off[i + 1] = (uint32_t)k;
    }
    out->nnz = k;
    return 0;
}

plog_err_t ph_topo_from_log(plog_run_t *run, ph_topo_t *out, plog_error_t *err)
{
    memset(out, 0, sizeof(*out));
    topo_acc_t a = {.P = plog_run_world_size(run)};
    plog_err_t e = PLOG_OK;
    for (int32_t r = 0; r < a.P && e == PLOG_OK; r++) {
        if (plog_run_rank(run, r) == NULL)
            continue;
        plog_iter_t *it = NULL;
        if ((e = plog_iter_open(run, r, &it, err)) != PLOG_OK)
            break;
        acc_rank(&a);
        const plog_rec_t *ev;
        while ((e = plog_iter_next(it, &ev, err)) == PLOG_OK && ev != NULL)
            if (acc_event(&a, ev) != 0) {
                e = ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
                break;
            }
        plog_iter_close(it);
    }
    if (e == PLOG_OK && topo_build(a.P, a.pairs, a.np, out) != 0)
        e = ph_fail(err, PLOG_E_NOMEM, "%s: out of memory", plog_run_path(run));
    free(a.pairs);
    return e;
}

/* ---- metrics ---- */

void ph_order(const double *theta, size_t n, double *R, double *psi)
{
    double c = 0, s = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(theta[i])) {
            c += cos(theta[i]);
            s += sin(theta[i]);
            k++;
        }
    if (k == 0) {
        *R = 0;
        *psi = 0;
        return;
    }
    c /= (double)k;
    s /= (double)k;
    *R = hypot(c, s);
    if (*R > 1)
        *R = 1;
    *psi = *R > 1e-12 ? atan2(s, c) : 0;
}

void ph_fd_bins(double *x, size_t n, ph_bins_t *b)
{
    memset(b, 0, sizeof(*b));
    b->n = 1;
    if (n == 0)
        return;
    qsort(x, n, sizeof(*x), pstat_cmp_double);
    double range = x[n - 1] - x[0];
    b->lo = x[0];
    if (!(range > 0)) {
        b->width = 0;
        return;
    }
    double iqr = pstat_quantile(x, n, 0.75) - pstat_quantile(x, n, 0.25);
    if (iqr < range / 10) /* the MATLAB guard, also for an IQR that rounds to nearly 0 */
        iqr = range / 10;
    double h = 2 * iqr * pow((double)n, -1.0 / 3.0);
    double nb = ceil(range / h - 1e-9);
    if (nb < 1)
        nb = 1;
    if (nb > PH_MAX_BINS)
        nb = PH_MAX_BINS;
    b->n = (uint32_t)nb;
    b->width = range / nb;
}

uint32_t ph_bin_of(const ph_bins_t *b, double x)
{
    if (b->n <= 1 || !(b->width > 0))
        return 0;
    double k = floor((x - b->lo) / b->width);
    if (k < 0)
        return 0;
    if (k >= b->n)
        return b->n - 1;
    return (uint32_t)k;
}

double ph_entropy(const double *theta, size_t n, double psi, double *x, uint32_t *nbins)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(theta[i]))
            x[k++] = ph_wrap_pi(theta[i] - psi);
    ph_bins_t b;
    ph_fd_bins(x, k, &b);
    *nbins = b.n;
    if (k == 0 || b.n == 1)
        return 0;
    /* x is sorted: count runs of equal bins */
    double S = 0;
    size_t i = 0;
    while (i < k) {
        uint32_t bin = ph_bin_of(&b, x[i]);
        size_t j = i;
        while (j < k && ph_bin_of(&b, x[j]) == bin)
            j++;
        double p = (double)(j - i) / (double)k;
        S -= p * log(p);
        i = j;
    }
    return S;
}

void ph_gradient(const double *theta, const ph_topo_t *t, double *g_abs, double *g_signed)
{
    for (int32_t i = 0; i < t->n; i++) {
        double a = 0, s = 0;
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            double d = theta[t->nb[k]] - theta[i];
            a += fabs(d);
            s += d;
        }
        g_abs[i] = a;
        g_signed[i] = s;
    }
}

int ph_potential_parse(const char *s, ph_potential_t *p)
{
    memset(p, 0, sizeof(*p));
    char tail;
    if (strcmp(s, "sin") == 0) {
        p->kind = PH_POT_SIN;
        return 0;
    }
    if (strcmp(s, "tanh") == 0) {
        p->kind = PH_POT_TANH;
        p->s = 1;
        return 0;
    }
    if (sscanf(s, "tanh:%lf%c", &p->s, &tail) == 1 && p->s > 0 && isfinite(p->s)) {
        p->kind = PH_POT_TANH;
        return 0;
    }
    if (strcmp(s, "piecewise") == 0) {
        p->kind = PH_POT_PIECEWISE;
        p->sigma = M_PI;
        return 0;
    }
    if (sscanf(s, "piecewise:%lf%c", &p->sigma, &tail) == 1 && p->sigma > 0 &&
        isfinite(p->sigma)) {
        p->kind = PH_POT_PIECEWISE;
        return 0;
    }
    if (sscanf(s, "fourier:%lf,%lf,%d%c", &p->a, &p->b, &p->harmonic, &tail) == 3 &&
        isfinite(p->a) && isfinite(p->b) && p->harmonic >= 1) {
        p->kind = PH_POT_FOURIER;
        return 0;
    }
    return -1;
}

double ph_potential_eval(const ph_potential_t *p, double x)
{
    switch (p->kind) {
    case PH_POT_TANH:
        return tanh(p->s * x);
    case PH_POT_PIECEWISE:
        if (fabs(x) < p->sigma)
            return -sin(3 * M_PI * x / (2 * p->sigma));
        return x > 0 ? 1 : x < 0 ? -1 : 0;
    case PH_POT_FOURIER:
        return sin(x) - p->a * sin(p->harmonic * x) + p->b * sin(2 * p->harmonic * x);
    default:
        return sin(x);
    }
}

double ph_energy(const double *theta, const ph_topo_t *t, const ph_potential_t *p)
{
    double E = 0;
    for (int32_t i = 0; i < t->n; i++) {
        if (isnan(theta[i]))
            continue;
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            double th = theta[t->nb[k]];
            if (isnan(th))
                continue;
            double v = ph_potential_eval(p, th - theta[i]);
            E += v * v;
        }
    }
    return E;
}

/* ---- resynchronisation ---- */

void ph_resync_init(ph_resync_t *r, double thr)
{
    memset(r, 0, sizeof(*r));
    r->thr = thr;
}

static int resync_close(ph_resync_t *r, int64_t t, int recovered)
{
    if (r->n == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 16;
        ph_excursion_t *p = realloc(r->v, nc * sizeof(*p));
        if (p == NULL)
            return -1;
        r->v = p;
        r->cap = nc;
    }
    r->cur.end_ns = t;
    r->cur.recovered = recovered;
    r->v[r->n++] = r->cur;
    r->in = 0;
    return 0;
}

int ph_resync_add(ph_resync_t *r, int64_t t, double R)
{
    int first = !r->started;
    r->started = 1;
    if (isnan(R))
        return 0;
    if (r->in) {
        if (R < r->cur.r_min) {
            r->cur.r_min = R;
            r->cur.min_ns = t;
        }
        if (R >= r->thr)
            return resync_close(r, t, 1);
        return 0;
    }
    if (R < r->thr) {
        r->in = 1;
        r->cur = (ph_excursion_t){t, t, t, R, 0, !first};
    }
    return 0;
}

void ph_resync_finish(ph_resync_t *r, int64_t t_end)
{
    if (r->in)
        resync_close(r, t_end, 0);
}

void ph_resync_free(ph_resync_t *r)
{
    free(r->v);
    memset(r, 0, sizeof(*r));
}

/* ---- idle wave ---- */

void ph_wave_free(ph_wave_t *w)
{
    free(w->arrival_iter);
    free(w->arrival_ns);
    free(w->distance);
    free(w->idle_ns);
    memset(w, 0, sizeof(*w));
}

/* breadth-first levels from src over the out-edges in (off, nb); dist -1 = not reached */
static int bfs_levels(int32_t n, const uint32_t *off, const int32_t *nb, int32_t src,
                      int32_t *dist)
{
    int32_t *q = malloc((size_t)n * sizeof(*q));
    if (q == NULL)
        return -1;
    for (int32_t i = 0; i < n; i++)
        dist[i] = -1;
    size_t h = 0, e = 0;
    dist[src] = 0;
    q[e++] = src;
    while (h < e) {
        int32_t j = q[h++];
        for (uint32_t k = off[j]; k < off[j + 1]; k++)
            if (dist[nb[k]] < 0) {
                dist[nb[k]] = dist[j] + 1;
                q[e++] = nb[k];
            }
    }
    free(q);
    return 0;
}

int ph_hop_distance(const ph_topo_t *t, int32_t src, int32_t *dist)
{
    int32_t n = t->n;
    if (src < 0 || src >= n)
        return -1;
    if (t->nnz == 0) {
        for (int32_t i = 0; i < n; i++)
            dist[i] = i > src ? i - src : src - i;
        return 0;
    }
    /* T lists in-neighbours (i receives from j); the wave runs j -> i: the reverse CSR.
     * The undirected graph (both ways) is the fallback for ranks the messages miss. */
    uint32_t *off = calloc((size_t)n + 1, sizeof(*off)), *uoff = calloc((size_t)n + 1, sizeof(*uoff));
    int32_t *nb = malloc((t->nnz ? t->nnz : 1) * sizeof(*nb)),
            *unb = malloc(2 * (t->nnz ? t->nnz : 1) * sizeof(*unb)),
            *ud = malloc((size_t)n * sizeof(*ud));
    int rc = -1;
    if (!off || !uoff || !nb || !unb || !ud)
        goto out;
    for (int32_t i = 0; i < n; i++)
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            off[t->nb[k] + 1]++;
            uoff[t->nb[k] + 1]++;
            uoff[i + 1]++;
        }
    for (int32_t i = 0; i < n; i++) {
        off[i + 1] += off[i];
        uoff[i + 1] += uoff[i];
    }
    {
        uint32_t *fill = calloc((size_t)n, sizeof(*fill)), *ufill = calloc((size_t)n, sizeof(*ufill));
        if (!fill || !ufill) {
            free(fill);
            free(ufill);
            goto out;
        }
        for (int32_t i = 0; i < n; i++)
            for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
                int32_t j = t->nb[k];
                nb[off[j] + fill[j]++] = i;
                unb[uoff[j] + ufill[j]++] = i;
                unb[uoff[i] + ufill[i]++] = j;
            }
        free(fill);
        free(ufill);
    }
    if (bfs_levels(n, off, nb, src, dist) != 0 || bfs_levels(n, uoff, unb, src, ud) != 0)
        goto out;
    for (int32_t i = 0; i < n; i++)
        if (dist[i] < 0)
            dist[i] = ud[i];
    rc = 0;
out:
    free(off);
    free(uoff);
    free(nb);
    free(unb);
    free(ud);
    return rc;
}

/* slope of y over x by least squares; NaN when x has no spread */
static double ls_slope(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    return sxx > 0 ? sxy / sxx : NAN;
}

/* neighbours either way of every rank (CSR); without edges the open chain i - 1, i + 1 */
static int sym_csr(const ph_topo_t *t, int32_t n, uint32_t **offp, int32_t **nbp)
{
    int chain = t == NULL || t->nnz == 0 || t->n != n;
    size_t cap = chain ? 2 * (size_t)n : 2 * t->nnz;
    uint32_t *off = calloc((size_t)n + 1, sizeof(*off)), *fill = calloc((size_t)n, sizeof(*fill));
    int32_t *nb = malloc((cap ? cap : 1) * sizeof(*nb));
    if (!off || !fill || !nb) {
        free(off);
        free(fill);
        free(nb);
        return -1;
    }
    for (int32_t i = 0; i < n; i++) {
        if (chain) {
            off[i + 1] += (i > 0) + (i + 1 < n);
            continue;
        }
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            off[i + 1]++;
            off[t->nb[k] + 1]++;
        }
    }
    for (int32_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    for (int32_t i = 0; i < n; i++) {
        if (chain) {
            if (i > 0)
                nb[off[i] + fill[i]++] = i - 1;
            if (i + 1 < n)
                nb[off[i] + fill[i]++] = i + 1;
            continue;
        }
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++) {
            int32_t j = t->nb[k];
            nb[off[i] + fill[i]++] = j;
            nb[off[j] + fill[j]++] = i;
        }
    }
    free(fill);
    *offp = off;
    *nbp = nb;
    return 0;
}

static int wave_find(const ph_marks_t *m, const ph_topo_t *topo, double frac, int32_t given,
                     uint32_t given_iter, ph_wave_t *w);

int ph_wave_find(const ph_marks_t *m, const ph_topo_t *topo, double frac, ph_wave_t *w)
{
    return wave_find(m, topo, frac, -1, 0, w);
}

int ph_wave_find_at(const ph_marks_t *m, const ph_topo_t *topo, double frac, int32_t source,
                    uint32_t iter, ph_wave_t *w)
{
    return wave_find(m, topo, frac, source, iter, w);
}

static int wave_find(const ph_marks_t *m, const ph_topo_t *topo, double frac, int32_t given,
                     uint32_t given_iter, ph_wave_t *w)
{
    memset(w, 0, sizeof(*w));
    int32_t P = m->nranks;
    w->source = -1;
    w->ranks_per_iter = w->ranks_per_s = NAN;
    w->decay_ns_per_hop = w->decay_per_hop = NAN;
    w->directed = topo != NULL && topo->nnz > 0 && topo->n == P;
    w->arrival_iter = malloc((size_t)P * sizeof(*w->arrival_iter));
    w->arrival_ns = malloc((size_t)P * sizeof(*w->arrival_ns));
    w->distance = malloc((size_t)P * sizeof(*w->distance));
    w->idle_ns = malloc((size_t)P * sizeof(*w->idle_ns));
    double *med = calloc((size_t)P, sizeof(*med)), *mad = calloc((size_t)P, sizeof(*mad));
    uint32_t maxn = 2;
    for (int32_t r = 0; r < P; r++)
        if (m->n[r] > maxn)
            maxn = m->n[r];
    int64_t *scr = malloc(maxn * sizeof(*scr));
    double *xs = malloc((size_t)P * sizeof(*xs)), *yi = malloc((size_t)P * sizeof(*yi)),
           *yt = malloc((size_t)P * sizeof(*yt));
    int32_t *order = malloc((size_t)P * sizeof(*order));
    uint32_t *soff = NULL;
    int32_t *snb = NULL;
    int rc = -1;
    if (!w->arrival_iter || !w->arrival_ns || !w->distance || !w->idle_ns || !med || !mad ||
        !scr || !xs || !yi || !yt || !order)
        goto out;
    rc = 0;
    /* per rank: median duration and its median absolute deviation */
    for (int32_t r = 0; r < P; r++) {
        w->arrival_iter[r] = -1;
        w->arrival_ns[r] = 0;
        w->distance[r] = -1;
        w->idle_ns[r] = NAN;
        uint32_t n = m->n[r];
        if (n < 3)
            continue;
        const int64_t *t = m->t[r];
        med[r] = median_diff(t, n, scr);
        for (uint32_t k = 0; k + 1 < n; k++) {
            int64_t d = t[k + 1] - t[k] - (int64_t)med[r];
            scr[k] = d < 0 ? -d : d;
        }
        qsort(scr, n - 1, sizeof(*scr), cmp_i64);
        mad[r] = (double)scr[(n - 1) / 2];
    }
    /* the source: given, or the largest excess of compute time (where the delay was made),
     * else of duration */
    double best = 0;
    if (given >= 0) {
        if (given >= P || m->n[given] < 3 || given_iter + 1 >= m->n[given])
            goto out;
        w->source = given;
        w->source_iter = given_iter;
    }
    for (int32_t r = 0; given < 0 && m->comp != NULL && r < P; r++) {
        uint32_t n = m->n[r];
        if (n < 3 || m->comp[r] == NULL)
            continue;
        double cmed;
        {
            double *c = malloc((n - 1) * sizeof(*c));
            if (c == NULL) {
                rc = -1;
                goto out;
            }
            memcpy(c, m->comp[r], (n - 1) * sizeof(*c));
            qsort(c, n - 1, sizeof(*c), pstat_cmp_double);
            cmed = (n - 1) % 2 ? c[(n - 1) / 2] : 0.5 * (c[(n - 1) / 2 - 1] + c[(n - 1) / 2]);
            free(c);
        }
        /* equal excesses (a delay that stays compute downstream): the earliest is the source */
        for (uint32_t k = 0; k + 1 < n; k++)
            if (m->comp[r][k] - cmed > best ||
                (w->source >= 0 && m->comp[r][k] - cmed == best &&
                 m->t[r][k] < m->t[w->source][w->source_iter])) {
                best = m->comp[r][k] - cmed;
                w->source = r;
                w->source_iter = k;
            }
    }
    if (w->source < 0 && given < 0)
        for (int32_t r = 0; r < P; r++) {
            uint32_t n = m->n[r];
            for (uint32_t k = 0; n >= 3 && k + 1 < n; k++) {
                double ex = (double)(m->t[r][k + 1] - m->t[r][k]) - med[r];
                if (ex > best) {
                    best = ex;
                    w->source = r;
                    w->source_iter = k;
                }
            }
        }
    if (w->source < 0)
        goto out;
    {
        const int64_t *ts = m->t[w->source];
        double ex = (double)(ts[w->source_iter + 1] - ts[w->source_iter]) - med[w->source];
        best = ex > 0 ? ex : best;
    }
    if (best <= 0) { /* a given source without an excess */
        w->source = -1;
        goto out;
    }
    w->source_excess_ns = best;
    if (ph_hop_distance(w->directed ? topo : &(ph_topo_t){.n = P}, w->source, w->distance) != 0 ||
        sym_csr(w->directed ? topo : NULL, P, &soff, &snb) != 0) {
        rc = -1;
        goto out;
    }
    /* ranks by distance (counting sort), the unreachable ones left out */
    {
        size_t no = 0;
        uint32_t *cnt = calloc((size_t)P + 1, sizeof(*cnt));
        if (cnt == NULL) {
            rc = -1;
            goto out;
        }
        for (int32_t r = 0; r < P; r++)
            if (w->distance[r] >= 0) {
                cnt[w->distance[r] + 1]++;
                no++;
            }
        for (int32_t d = 0; d < P; d++)
            cnt[d + 1] += cnt[d];
        for (int32_t r = 0; r < P; r++)
            if (w->distance[r] >= 0)
                order[cnt[w->distance[r]]++] = r;
        free(cnt);
        w->arrival_iter[w->source] = (int32_t)w->source_iter;
        w->arrival_ns[w->source] = m->t[w->source][w->source_iter + 1];
        w->idle_ns[w->source] = best;
        for (size_t q = 0; q < no; q++) {
            int32_t r = order[q];
            uint32_t n = m->n[r];
            if (n < 3)
                continue;
            if (w->distance[r] > w->extent_hops)
                w->extent_hops = w->distance[r];
            if (r == w->source)
                continue;
            /* the earliest arrival among the reached neighbours one hop nearer */
            int64_t kp = -1;
            for (uint32_t e = soff[r]; e < soff[r + 1]; e++) {
                int32_t j = snb[e];
                if (w->distance[j] == w->distance[r] - 1 && w->arrival_iter[j] >= 0 &&
                    (kp < 0 || w->arrival_iter[j] < kp))
                    kp = w->arrival_iter[j];
            }
            if (kp < 0)
                continue;
            const int64_t *t = m->t[r];
            double thr = frac * best;
            if (5 * mad[r] > thr)
                thr = 5 * mad[r];
            for (uint32_t k = (uint32_t)kp; k + 1 < n && k <= (uint32_t)kp + PH_WAVE_SLACK; k++) {
                double ex = (double)(t[k + 1] - t[k]) - med[r];
                if (ex > thr) {
                    w->arrival_iter[r] = (int32_t)k;
                    w->arrival_ns[r] = t[k + 1];
                    w->idle_ns[r] = ex;
                    break;
                }
            }
        }
    }
    size_t nx = 0;
    for (int32_t r = 0; r < P; r++) {
        if (w->arrival_iter[r] < 0)
            continue;
        w->reached++;
        if (w->distance[r] > w->reach_hops)
            w->reach_hops = w->distance[r];
        xs[nx] = (double)w->distance[r];
        yi[nx] = (double)w->arrival_iter[r];
        yt[nx] = (double)(w->arrival_ns[r] - w->arrival_ns[w->source]) * 1e-9;
        nx++;
    }
    w->found = w->reached >= 2;
    if (w->found) {
        /* arrival over distance; the speed is its inverse */
        double bi = ls_slope(xs, yi, nx), bt = ls_slope(xs, yt, nx);
        w->ranks_per_iter = bi > 0 ? 1 / bi : NAN;
        w->ranks_per_s = bt > 0 ? 1 / bt : NAN;
        /* the idle period over the distance, past the source */
        size_t nd = 0, n1 = 0;
        double a1 = 0;
        for (int32_t r = 0; r < P; r++)
            if (w->arrival_iter[r] >= 0 && w->distance[r] >= 1) {
                xs[nd] = (double)w->distance[r];
                yi[nd] = w->idle_ns[r];
                nd++;
                if (w->distance[r] == 1) {
                    a1 += w->idle_ns[r];
                    n1++;
                }
            }
        double sl = ls_slope(xs, yi, nd);
        if (!isnan(sl)) {
            w->decay_ns_per_hop = -sl;
            if (n1 > 0 && a1 > 0)
                w->decay_per_hop = -sl / (a1 / (double)n1);
        }
    }
out:
    free(med);
    free(mad);
    free(scr);
    free(xs);
    free(yi);
    free(yt);
    free(order);
    free(soff);
    free(snb);
    return rc;
}

/* ---- recovery relative to the run's own R ---- */

int ph_recovery_find(const double *R, const ph_grid_t *g, int64_t t_from, int64_t period_ns,
                     double frac, ph_recovery_t *o)
{
    memset(o, 0, sizeof(*o));
    o->r_base = o->r_base_sd = o->r_min = o->r_target = o->r_tail = NAN;
    o->t_from = t_from;
    size_t n = g->n;
    if (n == 0)
        return 0;
    double *rs = malloc(n * sizeof(*rs));
    if (rs == NULL)
        return -1;
    /* R over one period: the points within half a period either side */
    size_t h = period_ns > 0 && g->dt > 0 ? (size_t)(period_ns / 2 / g->dt) : 0;
    for (size_t i = 0; i < n; i++) {
        size_t a = i > h ? i - h : 0, b = i + h < n ? i + h : n - 1, c = 0;
        double sum = 0;
        for (size_t k = a; k <= b; k++)
            if (!isnan(R[k])) {
                sum += R[k];
                c++;
            }
        rs[i] = c ? sum / (double)c : NAN;
    }
    double sum = 0, sq = 0, tail = 0;
    size_t nt = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        int64_t t = g->t0 + (int64_t)i * g->dt;
        if (i >= n - n / 4 && !isnan(R[i])) {
            tail += R[i];
            nt++;
        }
        if (t < t_from) {
            if (!isnan(R[i])) {
                sum += R[i];
                sq += R[i] * R[i];
                o->n_base++;
            }
        } else if (first == n)
            first = i;
    }
    o->r_tail = nt ? tail / (double)nt : NAN;
    if (o->n_base >= 4 && first < n) {
        o->r_base = sum / (double)o->n_base;
        double var = sq / (double)o->n_base - o->r_base * o->r_base;
        o->r_base_sd = var > 0 ? sqrt(var) : 0;
        size_t imin = first;
        for (size_t i = first; i < n; i++)
            if (!isnan(rs[i]) && (isnan(rs[imin]) || rs[i] < rs[imin]))
                imin = i;
        /* a drop within the baseline's own jitter is no perturbation */
        if (!isnan(rs[imin]) && o->r_base - rs[imin] > fmax(2 * o->r_base_sd, 1e-9)) {
            o->found = 1;
            o->r_min = rs[imin];
            o->t_min = g->t0 + (int64_t)imin * g->dt;
            o->r_target = o->r_min + frac * (o->r_base - o->r_min);
            for (size_t i = imin; i < n; i++)
                if (!isnan(rs[i]) && rs[i] >= o->r_target) {
                    o->recovered = 1;
                    o->t_back = g->t0 + (int64_t)i * g->dt;
                    break;
                }
        }
    }
    free(rs);
    return 0;
}

/* ---- twin runs ---- */

void ph_twin_free(ph_twin_t *tw)
{
    free(tw->spread_ns);
    free(tw->reach_ns);
    memset(tw, 0, sizeof(*tw));
}

static double median_of(double *v, size_t n) /* sorts v */
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof(*v), pstat_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int ph_twin_find(const ph_marks_t *m, const ph_marks_t *ref, const int32_t *distance,
                 int32_t source, uint32_t k0, double frac, ph_twin_t *tw)
{
    memset(tw, 0, sizeof(*tw));
    tw->base_ns = tw->peak_ns = tw->target_ns = tw->source_reach_ns = tw->far_reach_ns = NAN;
    tw->k0 = k0;
    int32_t P = m->nranks < ref->nranks ? m->nranks : ref->nranks;
    uint32_t n = 0;
    for (int32_t r = 0; r < P; r++) {
        uint32_t c = m->n[r] < ref->n[r] ? m->n[r] : ref->n[r];
        if (c > n)
            n = c;
    }
    tw->n = n;
    tw->reach_ns = malloc((size_t)(m->nranks > 0 ? m->nranks : 1) * sizeof(double));
    tw->spread_ns = malloc((n ? n : 1) * sizeof(double));
    double *v = malloc(((size_t)n + (size_t)P + 1) * sizeof(double));
    if (!tw->reach_ns || !tw->spread_ns || !v) {
        free(v);
        return -1;
    }
    for (int32_t r = 0; r < m->nranks; r++)
        tw->reach_ns[r] = NAN;
    for (uint32_t k = 0; k < n; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int32_t r = 0; r < P; r++) {
            if (k >= m->n[r] || k >= ref->n[r])
                continue;
            double sh = (double)(m->t[r][k] - m->t[r][0]) - (double)(ref->t[r][k] - ref->t[r][0]);
            lo = sh < lo ? sh : lo;
            hi = sh > hi ? sh : hi;
        }
        tw->spread_ns[k] = hi >= lo ? hi - lo : NAN;
    }
    if (k0 < 2 || k0 + 1 >= n || source < 0 || source >= P) {
        free(v);
        return 0;
    }
    /* per rank: the delay it took, within the time a wave of half a rank per iteration needs
     * to the farthest rank (what comes later is other perturbations: the machine's) */
    int32_t maxd = 0;
    for (int32_t r = 0; distance != NULL && r < P; r++)
        maxd = distance[r] > maxd ? distance[r] : maxd;
    uint64_t kend = (uint64_t)k0 + 2 + 2 * (uint64_t)(distance != NULL ? maxd : P) + PH_WAVE_SLACK;
    for (int32_t r = 0; r < P; r++) {
        uint32_t c = m->n[r] < ref->n[r] ? m->n[r] : ref->n[r];
        if (c <= k0 + 1)
            continue;
        if (c > kend)
            c = (uint32_t)kend;
        size_t nb = 0;
        double mx = -INFINITY;
        for (uint32_t k = 1; k < c; k++) {
            double sh = (double)(m->t[r][k] - m->t[r][0]) - (double)(ref->t[r][k] - ref->t[r][0]);
            if (k <= k0)
                v[nb++] = sh;
            else if (sh > mx)
                mx = sh;
        }
        tw->reach_ns[r] = mx - median_of(v, nb);
    }
    tw->source_reach_ns = tw->reach_ns[source];
    if (distance != NULL) {
        int32_t fard = -1;
        double sum = 0;
        size_t c = 0;
        for (int32_t r = 0; r < P; r++)
            if (!isnan(tw->reach_ns[r]) && distance[r] > fard)
                fard = distance[r];
        for (int32_t r = 0; r < P; r++)
            if (!isnan(tw->reach_ns[r]) && distance[r] == fard) {
                sum += tw->reach_ns[r];
                c++;
            }
        tw->far_reach_ns = c ? sum / (double)c : NAN;
    }
    /* survival: contiguous distances with a rank that took half the source's */
    if (distance != NULL && tw->source_reach_ns > 0) {
        for (int32_t d = 1; d <= maxd; d++) {
            int ok = 0;
            for (int32_t r = 0; r < P && !ok; r++)
                ok = distance[r] == d && tw->reach_ns[r] >= 0.5 * tw->source_reach_ns;
            if (!ok)
                break;
            tw->survival_hops = d;
        }
    }
    /* the spread: base, peak (where the delayed iteration ends, give or take the slack),
     * back */
    size_t nb = 0;
    for (uint32_t k = 1; k <= k0; k++)
        if (!isnan(tw->spread_ns[k]))
            v[nb++] = tw->spread_ns[k];
    tw->base_ns = median_of(v, nb);
    tw->k_peak = k0 + 1;
    for (uint32_t k = k0 + 1; k < n && k <= k0 + 1 + PH_WAVE_SLACK; k++)
        if (!isnan(tw->spread_ns[k]) &&
            (isnan(tw->spread_ns[tw->k_peak]) || tw->spread_ns[k] > tw->spread_ns[tw->k_peak]))
            tw->k_peak = k;
    tw->peak_ns = tw->spread_ns[tw->k_peak];
    /* the delay's jump must stand above the spread the runs already had before it (the
     * machine's jitter differs between the runs): peak - base > base */
    if (!isnan(tw->base_ns) && !isnan(tw->peak_ns) && tw->peak_ns > 2 * tw->base_ns &&
        tw->peak_ns > tw->base_ns) {
        tw->found = 1;
        tw->target_ns = tw->base_ns + (1 - frac) * (tw->peak_ns - tw->base_ns);
        for (uint32_t k = tw->k_peak + 1; k < n; k++) {
            int ok = 1;
            for (uint32_t q = k; q < n && q < k + 3 && ok; q++)
                ok = isnan(tw->spread_ns[q]) || tw->spread_ns[q] <= tw->target_ns;
            if (ok && !isnan(tw->spread_ns[k])) {
                tw->recovered = 1;
                tw->k_back = k;
                break;
            }
        }
    }
    free(v);
    return 0;
}
