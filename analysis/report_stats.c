/* report_stats.c: the statistics of `phasor report` (report_stats.h): one streaming pass over
 * every loaded rank's events, then the summary the writers format. */
#include "report_stats.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "pstat.h"
#include "vec.h"

/* n calls of t ns and bytes bytes in all (n > 1: a run of polls, whose calls' own times and
 * bytes are not known apart: each counts as the run's mean in the minimum and maximum). */
static inline void stat_add_n(rep_stat_t *s, uint64_t n, uint64_t t, uint64_t bytes)
{
    /* no division for the one call of almost every event */
    uint64_t t1 = n == 1 ? t : t / n, b1 = n == 1 ? bytes : bytes / n;
    if (s->count == 0) {
        s->time_min = s->time_max = t1;
        s->bytes_min = s->bytes_max = b1;
    } else {
        if (t1 < s->time_min)
            s->time_min = t1;
        if (t1 > s->time_max)
            s->time_max = t1;
        if (b1 < s->bytes_min)
            s->bytes_min = b1;
        if (b1 > s->bytes_max)
            s->bytes_max = b1;
    }
    s->count += n;
    s->time_sum += t;
    s->bytes_sum += bytes;
}

/* One call (the divisions fold away). */
static inline void stat_add(rep_stat_t *s, uint64_t t, uint64_t bytes)
{
    stat_add_n(s, 1, t, bytes);
}

/* ==== maps ============================================================================= */

/* The index of key's entry (created empty if absent); SIZE_MAX only when out of memory. */
static size_t map_index(rep_map_t *m, uint64_t key)
{
    assert(key != UINT64_MAX); /* stored as key + 1 */
    int found;
    size_t slot = hmap_probe(&m->idx, key + 1, &found);
    if (found)
        return (size_t)m->idx.vals[slot];
    if (VEC_GROW(m->v, m->cap, m->n + 1) != 0 || hmap_put_at(&m->idx, slot, key + 1, m->n) != 0)
        return SIZE_MAX;
    memset(&m->v[m->n], 0, sizeof(m->v[m->n]));
    m->v[m->n].key = key;
    return m->n++;
}

static rep_stat_t *map_at(rep_map_t *m, uint64_t key)
{
    size_t i = map_index(m, key);
    return i == SIZE_MAX ? NULL : &m->v[i];
}

/* The last few entries looked up in a map, by key: a rank sends to a few peers, again and
 * again, and one compare here saves the hash map's two loads. key + 1 is kept (0: empty). */
#define MCACHE_N 8
typedef struct mcache {
    uint64_t key[MCACHE_N];
    size_t at[MCACHE_N];
} mcache_t;

static rep_stat_t *map_at_cached(rep_map_t *m, mcache_t *c, uint64_t key)
{
    unsigned h = (unsigned)(key ^ key >> 32) & (MCACHE_N - 1);
    if (c->key[h] == key + 1)
        return &m->v[c->at[h]];
    size_t i = map_index(m, key);
    if (i == SIZE_MAX)
        return NULL;
    c->key[h] = key + 1;
    c->at[h] = i;
    return &m->v[i];
}

const rep_stat_t *rep_map_get(const rep_map_t *m, uint64_t key)
{
    const uint64_t *i = hmap_get(&m->idx, key + 1);
    return i == NULL ? NULL : &m->v[*i];
}

/* Put the entries in the order cmp gives and index them anew. 0, or -1 when out of memory. */
static int map_order(rep_map_t *m, int (*cmp)(const void *, const void *))
{
    if (m->n == 0)
        return 0;
    qsort(m->v, m->n, sizeof(*m->v), cmp);
    hmap_free(&m->idx);
    for (size_t i = 0; i < m->n; i++)
        if (hmap_set(&m->idx, m->v[i].key + 1, i) != 0)
            return -1;
    return 0;
}

static void map_free(rep_map_t *m)
{
    hmap_free(&m->idx);
    free(m->v);
    memset(m, 0, sizeof(*m));
}

static int cmp_key(const void *a, const void *b)
{
    const rep_stat_t *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

/* Descending by vx/vy, then by key: a total order, since a map's keys are unique. */
static int cmp_desc(const rep_stat_t *x, const rep_stat_t *y, uint64_t vx, uint64_t vy)
{
    if (vx != vy)
        return vx > vy ? -1 : 1;
    return cmp_key(x, y);
}

static int cmp_time(const void *a, const void *b)
{
    const rep_stat_t *x = a, *y = b;
    return cmp_desc(x, y, x->time_sum, y->time_sum);
}

static int cmp_bytes(const void *a, const void *b)
{
    const rep_stat_t *x = a, *y = b;
    return cmp_desc(x, y, x->bytes_sum, y->bytes_sum);
}

/* ==== the pass ========================================================================= */

unsigned rep_bucket(uint64_t bytes)
{
    return bytes == 0 ? 0 : 64u - (unsigned)__builtin_clzll(bytes);
}

/* Bytes an event moves, as the per-function table and the histograms count them. */
static uint64_t ev_bytes(const plog_rec_t *e, int *has)
{
    *has = 1;
    switch (e->cls) {
    case PLOG_CLASS_SEND:
    case PLOG_CLASS_ISEND:
    case PLOG_CLASS_SENDRECV:
    case PLOG_CLASS_COLL:
    case PLOG_CLASS_ICOLL:
        return e->bytes;
    case PLOG_CLASS_RECV:
        if (e->n_status > 0 && e->status[0].bytes != PLOG_BYTES_UNKNOWN)
            return e->status[0].bytes;
        return e->rbytes;
    case PLOG_CLASS_IRECV:
        return e->rbytes;
    case PLOG_CLASS_START: {
        uint64_t b = 0;
        if (e->call == PLOG_CALL_MPI_Start) {
            if (e->req != NULL)
                b = e->req->cls == PLOG_CLASS_PSEND_INIT ? e->req->bytes : e->req->rbytes;
        } else {
            for (uint32_t i = 0; i < e->n_handles; i++) {
                const plog_reqinfo_t *q = e->handles[i].start;
                if (q != NULL)
                    b += q->cls == PLOG_CLASS_PSEND_INIT ? q->bytes : q->rbytes;
            }
        }
        return b;
    }
    case PLOG_CLASS_PSEND_INIT:
        *has = 0; /* set-up only: bytes counted, no histogram (the Starts move the data) */
        return e->bytes;
    case PLOG_CLASS_PRECV_INIT:
        *has = 0;
        return e->rbytes;
    default:
        *has = 0;
        return 0;
    }
}

static int matrix_add(rep_map_t *m, mcache_t *c, int32_t src, int32_t dst, int32_t world,
                      uint64_t bytes)
{
    if (dst < 0 || dst >= world || bytes == PLOG_BYTES_UNKNOWN)
        return 0; /* MPI_PROC_NULL, untranslatable ranks: no message */
    assert(src >= 0 && src < world);
    uint64_t key = ((uint64_t)(uint32_t)src << 32) | (uint32_t)dst;
    rep_stat_t *s = map_at_cached(m, c, key);
    if (s == NULL)
        return -1;
    stat_add(s, 0, bytes);
    return 0;
}

/* Sender-side rule: each user message is counted once, by the call that sends it. */
static int matrix_event(rep_t *rep, mcache_t *c, const plog_rec_t *e)
{
    switch (e->cls) {
    case PLOG_CLASS_SEND:
    case PLOG_CLASS_ISEND:
    case PLOG_CLASS_SENDRECV:
        return matrix_add(&rep->matrix, c, e->rank, e->peer, rep->world_size, e->bytes);
    case PLOG_CLASS_START:
        if (e->call == PLOG_CALL_MPI_Start) {
            if (e->req != NULL && e->req->cls == PLOG_CLASS_PSEND_INIT)
                return matrix_add(&rep->matrix, c, e->rank, e->req->peer, rep->world_size,
                                  e->req->bytes);
            return 0;
        }
        for (uint32_t i = 0; i < e->n_handles; i++) {
            const plog_reqinfo_t *q = e->handles[i].start;
            if (q != NULL && q->cls == PLOG_CLASS_PSEND_INIT &&
                matrix_add(&rep->matrix, c, e->rank, q->peer, rep->world_size, q->bytes) != 0)
                return -1;
        }
        return 0;
    default:
        return 0;
    }
}

/* The messages inside a collective call, as its rank's schedule sends them. */
static int coll_matrix_event(rep_t *rep, recon_t *rc, pcs_sched_t *s, mcache_t *c,
                             const plog_rec_t *e)
{
    pcs_args_t a;
    pcs_choice_t ch;
    recon_skip_t why = recon_event(rc, e, &a, &ch, s);
    if (why == RECON_NOT_COLL)
        return 0;
    rep->coll_calls++;
    if (why != RECON_OK) {
        assert((unsigned)why < RECON__COUNT);
        rep->coll_skipped[why]++;
        return 0;
    }
    for (size_t i = 0; i < s->n; i++) {
        const pcs_op_t *op = &s->ops[i];
        if ((op->kind == PCS_OP_SEND || op->kind == PCS_OP_ISEND) &&
            matrix_add(&rep->coll_matrix, c, e->rank, recon_world(e, op->peer),
                       rep->world_size, op->len) != 0)
            return -1;
    }
    return 0;
}

/* the per-function row of each recorded call id (a uint16_t): the id, or REP_UNKNOWN_CALL
 * for ids without a name; one load per event, no range check. The same every run: filled
 * by rep_compute before the pass. */
static uint16_t func_row[UINT16_MAX + 1];
_Static_assert(REP_UNKNOWN_CALL <= UINT16_MAX, "function rows are uint16_t");

static plog_err_t rank_pass(plog_run_t *run, rep_t *rep, int32_t r, recon_t *rc,
                            pcs_sched_t *sched, plog_error_t *err)
{
    const plog_rank_t *rk = plog_run_rank(run, r);
    rep_rank_t *rr = &rep->ranks[r];
    rr->loaded = 1;
    plog_iter_t *it = NULL;
    /* starts only: the report never reads completions, and linking them is a sixth of the
     * reading time (plog_reader.h) */
    plog_err_t ie = plog_iter_open_opts(run, r, PLOG_ITER_NOLINK, &it, err);
    if (ie != PLOG_OK)
        return ie;
    /* MPI time: the union of this rank's call intervals (local clock); a run of polls is
     * inside MPI for inside_ns of its span, taken from its start (on one thread nothing
     * else is recorded between its polls: the union's length is then exact) */
    uint64_t u_start = 0, u_end = 0, mpi = 0;
    int in_union = 0;
    int64_t last_end = INT64_MIN;
    mcache_t mc = {0}, cmc = {0};
    const plog_rec_t *e;
    while ((ie = plog_iter_next(it, &e, err)) == PLOG_OK && e != NULL) {
        unsigned call = func_row[e->call];
        /* the time inside the call, or inside a run's polls: not the time between them,
         * which was the application's (an ordinary call's: t_end - t_start) */
        uint64_t dur = e->inside_ns;
        rr->events++;
        if (e->cls == PLOG_CLASS_STEP)
            continue; /* a transfer inside a collective phasor performed: not an MPI call */
        if (e->end_ns > last_end)
            last_end = e->end_ns;
        /* Init and Finalize bound the application time; they are not MPI time */
        if (call == PLOG_CALL_MPI_Init || call == PLOG_CALL_MPI_Init_thread) {
            rr->have_init = 1;
            rr->app_start = e->end_ns;
            continue;
        }
        if (call == PLOG_CALL_MPI_Finalize) {
            if (!rr->have_finalize)
                rr->app_end = e->start_ns;
            rr->have_finalize = 1;
            continue;
        }
        uint64_t t1 = e->t_start + dur;
        if (!in_union || e->t_start > u_end) {
            mpi += u_end - u_start;
            u_start = e->t_start;
            u_end = t1;
            in_union = 1;
        } else if (t1 > u_end) {
            u_end = t1;
        }
        int has;
        uint64_t b = ev_bytes(e, &has);
        /* a run of polls is ncalls calls that found nothing: no bytes, no message */
        stat_add_n(&rep->func[call], e->ncalls, dur, b == PLOG_BYTES_UNKNOWN ? 0 : b);
        if (has && b != PLOG_BYTES_UNKNOWN)
            rep->hist[call][rep_bucket(b)]++;
        if (e->cls == PLOG_CLASS_COLL || e->cls == PLOG_CLASS_ICOLL) {
            uint64_t size = e->lcomm ? (uint64_t)e->lcomm->n_local + e->lcomm->n_remote : 0;
            rep_stat_t *s = map_at(&rep->coll, ((uint64_t)call << 32) | size);
            if (s == NULL)
                goto nomem;
            stat_add(s, dur, b);
            if (coll_matrix_event(rep, rc, sched, &cmc, e) != 0)
                goto nomem;
        }
        if (matrix_event(rep, &mc, e) != 0)
            goto nomem;
        if (e->callsite != 0) {
            rep_stat_t *s = map_at(&rep->sites, ((uint64_t)e->callsite << 16) | call);
            if (s == NULL)
                goto nomem;
            stat_add_n(s, e->ncalls, dur, b == PLOG_BYTES_UNKNOWN ? 0 : b);
        }
    }
    plog_iter_close(it);
    if (ie != PLOG_OK)
        return ie;
    mpi += u_end - u_start;
    if (!rr->have_init)
        rr->app_start = plog_clock_align(&rk->clock, rk->hdr.t_init_ns, plog_run_time_ref(run));
    if (!rr->have_finalize)
        rr->app_end = last_end > rr->app_start ? last_end : rr->app_start;
    rr->app_ns = rr->app_end > rr->app_start ? (uint64_t)(rr->app_end - rr->app_start) : 0;
    rr->mpi_ns = mpi;
    rep->events += rr->events;
    rep->mpi_total += mpi;
    rep->app_total += rr->app_ns;
    return PLOG_OK;
nomem:
    plog_iter_close(it);
    return plog_fail(err, PLOG_E_NOMEM, rk->path, PLOG_NO_OFFSET, NULL);
}

/* ==== the summary ====================================================================== */

static double pct(double a, double b) { return b > 0 ? 100.0 * a / b : 0; }

static void imbalance(const rep_t *rep, enum rep_imb_what what, rep_imb_t *out)
{
    memset(out, 0, sizeof(*out));
    out->min_rank = out->max_rank = -1;
    double sum = 0;
    int n = 0;
    for (int32_t r = 0; r < rep->world_size; r++) {
        if (!rep->ranks[r].loaded)
            continue;
        double v = (double)(what == REP_IMB_MPI ? rep->ranks[r].mpi_ns : rep->ranks[r].app_ns);
        if (n == 0 || v < out->min) {
            out->min = v;
            out->min_rank = r;
        }
        if (n == 0 || v > out->max) {
            out->max = v;
            out->max_rank = r;
        }
        sum += v;
        n++;
    }
    if (n > 0)
        out->mean = sum / n;
    out->imbalance = out->mean > 0 ? out->max / out->mean - 1 : 0;
}

/* The functions called, by time descending then id: a copy of each row keyed by its id
 * sorts as the maps do. */
static void order_functions(rep_t *rep)
{
    rep_stat_t row[REP_NFUNC];
    unsigned n = 0;
    for (unsigned f = 0; f < REP_NFUNC; f++)
        if (rep->func[f].count > 0) {
            row[n] = rep->func[f];
            row[n++].key = f;
        }
    qsort(row, n, sizeof(row[0]), cmp_time);
    for (unsigned i = 0; i < n; i++)
        rep->funcs[i] = (rep_func_t){(unsigned)row[i].key,
                                     pct((double)row[i].time_sum, (double)rep->mpi_total),
                                     pct((double)row[i].time_sum, (double)rep->app_total)};
    rep->nfunc = n;
}

/* Totals and the heaviest pairs, kept sorted in place: no copy of a large matrix. */
static void sum_pairs(const rep_map_t *m, rep_pairs_t *p)
{
    memset(p, 0, sizeof(*p));
    for (size_t i = 0; i < m->n; i++) {
        const rep_stat_t *s = &m->v[i];
        p->msgs += s->count;
        p->bytes += s->bytes_sum;
        size_t k = p->ntop;
        if (k == REP_TOP_PAIRS) {
            if (cmp_bytes(s, &p->top[k - 1]) >= 0)
                continue;
            k--;
        } else {
            p->ntop++;
        }
        for (; k > 0 && cmp_bytes(s, &p->top[k - 1]) < 0; k--)
            p->top[k] = p->top[k - 1];
        p->top[k] = *s;
    }
    assert(p->ntop == (m->n < REP_TOP_PAIRS ? m->n : REP_TOP_PAIRS));
}

static plog_err_t summarize(rep_t *rep, const char *path, plog_error_t *err)
{
    for (int32_t r = 0; r < rep->world_size; r++) {
        rep_rank_t *rr = &rep->ranks[r];
        rr->mpi_pct = pct((double)rr->mpi_ns, (double)rr->app_ns);
    }
    rep->mpi_pct = pct((double)rep->mpi_total, (double)rep->app_total);
    uint64_t without = 0;
    for (int w = 1; w < RECON__COUNT; w++)
        without += rep->coll_skipped[w];
    assert(without <= rep->coll_calls);
    rep->coll_rebuilt = rep->coll_calls - without;
    imbalance(rep, REP_IMB_MPI, &rep->imb[REP_IMB_MPI]);
    imbalance(rep, REP_IMB_APP, &rep->imb[REP_IMB_APP]);
    order_functions(rep);
    if (map_order(&rep->coll, cmp_time) != 0 || map_order(&rep->sites, cmp_time) != 0 ||
        map_order(&rep->matrix, cmp_key) != 0 || map_order(&rep->coll_matrix, cmp_key) != 0)
        return plog_fail(err, PLOG_E_NOMEM, path, PLOG_NO_OFFSET, NULL);
    sum_pairs(&rep->matrix, &rep->p2p);
    sum_pairs(&rep->coll_matrix, &rep->cm);
    return PLOG_OK;
}

plog_err_t rep_compute(plog_run_t *run, rep_t *rep, plog_error_t *err)
{
    memset(rep, 0, sizeof(*rep));
    rep->world_size = plog_run_world_size(run);
    assert(rep->world_size > 0);
    rep->ranks = calloc((size_t)rep->world_size, sizeof(*rep->ranks));
    rep->hist = calloc(REP_NFUNC, sizeof(*rep->hist));
    if (rep->ranks == NULL || rep->hist == NULL)
        return plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET, NULL);
    for (unsigned c = 0; c <= UINT16_MAX; c++)
        func_row[c] = c < PLOG_CALL__MAX && plog_call_name(c) != NULL ? (uint16_t)c
                                                                     : REP_UNKNOWN_CALL;
    recon_t *rc = recon_new(run, RECON_LIB_AUTO);
    if (rc == NULL)
        return plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET, NULL);
    pcs_sched_t sched = PCS_SCHED_INIT;
    plog_err_t e = PLOG_OK;
    for (int32_t r = 0; r < rep->world_size && e == PLOG_OK; r++)
        if (plog_run_rank(run, r) != NULL)
            e = rank_pass(run, rep, r, rc, &sched, err);
    pcs_sched_free(&sched);
    recon_free(rc);
    if (e != PLOG_OK)
        return e;
    return summarize(rep, plog_run_path(run), err);
}

void rep_free(rep_t *rep)
{
    free(rep->ranks);
    free(rep->hist);
    map_free(&rep->coll);
    map_free(&rep->matrix);
    map_free(&rep->sites);
    map_free(&rep->coll_matrix);
    memset(rep, 0, sizeof(*rep));
}

int rep_inconsistent(const rep_t *rep, int32_t r)
{
    assert(r >= 0 && r < rep->world_size);
    const rep_rank_t *rr = &rep->ranks[r];
    return rr->loaded && rr->mpi_ns > rr->app_ns + rr->app_ns / 100 + 1000000;
}

/* ==== the network probe ================================================================ */

static int probe_rows(const plog_probeset_t *ps, uint32_t way, rep_probe_row_t *rows)
{
    int n = 0;
    double *v = malloc(((size_t)ps->world + 1) * sizeof(double));
    if (!v)
        return -1;
    for (unsigned z = 0; z < ps->info.nsizes; z++) {
        rep_probe_row_t *r = &rows[n];
        memset(r, 0, sizeof(*r));
        r->size = ps->info.sizes[z];
        for (size_t i = 0; i < ps->n; i++) {
            const plog_probe_entry_t *e = &ps->e[i];
            if (e->dst >= 0 || e->size_idx != z || e->way != way)
                continue; /* one per source: plog_probeset_load refuses repeats */
            assert(r->nsrc <= ps->world);
            if (r->nsrc == 0 || e->q.q50 > r->slow) {
                r->slow = e->q.q50;
                r->slow_src = e->src;
            }
            if (r->nsrc == 0 || e->q.q50 < r->fast) {
                r->fast = e->q.q50;
                r->fast_src = e->src;
            }
            v[r->nsrc++] = e->q.q50;
        }
        if (r->nsrc == 0)
            continue;
        qsort(v, (size_t)r->nsrc, sizeof(*v), pstat_cmp_double);
        r->med = pstat_quantile(v, (size_t)r->nsrc, 0.5);
        n++;
    }
    free(v);
    return n;
}

plog_err_t rep_probe_summarize(const plog_probeset_t *ps, const char *path, rep_probe_t *out,
                               plog_error_t *err)
{
    memset(out, 0, sizeof(*out));
    assert(ps->info.nsizes <= PLOG_PROBE_MAXSIZES);
    for (uint32_t way = PLOG_PROBE_EXCHANGE; way <= PLOG_PROBE_ONEWAY; way++) {
        out->nrows[way] = probe_rows(ps, way, out->row[way]);
        if (out->nrows[way] < 0)
            return plog_fail(err, PLOG_E_NOMEM, path, PLOG_NO_OFFSET, NULL);
    }
    return PLOG_OK;
}
