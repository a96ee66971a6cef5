/* phasor_report.c: `phasor report`: an mpiP-style profile of a log (time per rank and per
 * MPI function, imbalance, message sizes, collectives by communicator size, the
 * point-to-point matrix as CSV + SVG, how each log ended). One streaming pass over the
 * events; rules and the JSON schema: doc/report-format.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jsonw.h"
#include "phasor_cmd.h"
#include "phasor_report.h"
#include "pstat.h"
#include "plog_probeset.h"
#include "phasor_svg.h"
#include "phasor_symbols.h"
#include "plog_callsites.h"

#define REPORT_JSON_VERSION 2 /* 2: probe sources carry their way (exchange, one-way) */
#define SVG_MAX_CELLS 64 /* more ranks than this are drawn as blocks */
#define TEXT_MAX_WARNINGS 20 /* a 1024-rank run can have a warning per rank */

/* ==== the statistics =================================================================== */

static void stat_add(rep_stat_t *s, uint64_t t, uint64_t bytes)
{
    if (s->count == 0) {
        s->time_min = s->time_max = t;
        s->bytes_min = s->bytes_max = bytes;
    } else {
        if (t < s->time_min)
            s->time_min = t;
        if (t > s->time_max)
            s->time_max = t;
        if (bytes < s->bytes_min)
            s->bytes_min = bytes;
        if (bytes > s->bytes_max)
            s->bytes_max = bytes;
    }
    s->count++;
    s->time_sum += t;
    s->bytes_sum += bytes;
}

static size_t map_hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

/* The entry for key (created empty if absent); NULL only when out of memory. */
static rep_stat_t *map_at(rep_map_t *m, uint64_t key)
{
    if (m->n + 1 > m->cap / 2) { /* grow: load factor <= 1/2 */
        size_t ncap = m->cap ? m->cap * 2 : 64;
        rep_stat_t *ns = calloc(ncap, sizeof(*ns));
        if (ns == NULL)
            return NULL;
        for (size_t i = 0; i < m->cap; i++) {
            if (m->slot[i].key == 0)
                continue;
            size_t j = map_hash(m->slot[i].key - 1, ncap);
            while (ns[j].key != 0)
                j = (j + 1) & (ncap - 1);
            ns[j] = m->slot[i];
        }
        free(m->slot);
        m->slot = ns;
        m->cap = ncap;
    }
    size_t j = map_hash(key, m->cap);
    while (m->slot[j].key != 0) {
        if (m->slot[j].key == key + 1)
            return &m->slot[j];
        j = (j + 1) & (m->cap - 1);
    }
    m->slot[j].key = key + 1;
    m->n++;
    return &m->slot[j];
}

/* The last few entries looked up in a map, by key: a rank sends to a few peers, again and
 * again. Entries move when the map grows, so the cache holds for one capacity. */
#define MCACHE_N 8
typedef struct mcache {
    size_t cap;
    uint64_t key[MCACHE_N];
    rep_stat_t *st[MCACHE_N];
} mcache_t;

static rep_stat_t *map_at_cached(rep_map_t *m, mcache_t *c, uint64_t key)
{
    unsigned h = (unsigned)(key ^ key >> 32) & (MCACHE_N - 1);
    if (c->cap == m->cap && c->st[h] != NULL && c->key[h] == key)
        return c->st[h];
    rep_stat_t *s = map_at(m, key);
    if (s == NULL)
        return NULL;
    if (c->cap != m->cap) {
        memset(c, 0, sizeof(*c));
        c->cap = m->cap;
    }
    c->key[h] = key;
    c->st[h] = s;
    return s;
}

const rep_stat_t *rep_map_get(const rep_map_t *m, uint64_t key)
{
    if (m->cap == 0)
        return NULL;
    size_t j = map_hash(key, m->cap);
    while (m->slot[j].key != 0) {
        if (m->slot[j].key == key + 1)
            return &m->slot[j];
        j = (j + 1) & (m->cap - 1);
    }
    return NULL;
}

rep_stat_t *rep_map_list(const rep_map_t *m)
{
    if (m->n == 0)
        return NULL;
    rep_stat_t *v = malloc(m->n * sizeof(*v));
    if (v == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i].key != 0) {
            v[k] = m->slot[i];
            v[k++].key--;
        }
    return v;
}

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
    uint64_t key = ((uint64_t)(uint32_t)src << 32) | (uint32_t)dst;
    rep_stat_t *s = c != NULL ? map_at_cached(m, c, key) : map_at(m, key);
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
 * for ids without a name; one load per event, no range check */
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
    /* MPI time: the union of this rank's call intervals (local clock) */
    uint64_t u_start = 0, u_end = 0, mpi = 0;
    int in_union = 0;
    int64_t last_end = INT64_MIN;
    mcache_t mc = {0}, cmc = {0};
    const plog_rec_t *e;
    while ((ie = plog_iter_next(it, &e, err)) == PLOG_OK && e != NULL) {
        unsigned call = func_row[e->call];
        uint64_t dur = e->t_end > e->t_start ? e->t_end - e->t_start : 0;
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
        stat_add(&rep->func[call], dur, b == PLOG_BYTES_UNKNOWN ? 0 : b);
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
            stat_add(s, dur, b == PLOG_BYTES_UNKNOWN ? 0 : b);
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
    if (err) {
        err->code = PLOG_E_NOMEM;
        err->offset = 0;
        snprintf(err->msg, sizeof(err->msg), "%s: out of memory", rk->path);
    }
    return PLOG_E_NOMEM;
}

plog_err_t rep_compute(plog_run_t *run, rep_t *rep, plog_error_t *err)
{
    memset(rep, 0, sizeof(*rep));
    rep->world_size = plog_run_world_size(run);
    rep->ranks = calloc((size_t)rep->world_size, sizeof(*rep->ranks));
    rep->hist = calloc(REP_NFUNC, sizeof(*rep->hist));
    if (rep->ranks == NULL || rep->hist == NULL) {
        if (err) {
            err->code = PLOG_E_NOMEM;
            snprintf(err->msg, sizeof(err->msg), "%s: out of memory", plog_run_path(run));
        }
        return PLOG_E_NOMEM;
    }
    for (unsigned c = 0; c <= UINT16_MAX; c++)
        func_row[c] = c < PLOG_CALL__MAX && plog_call_name(c) != NULL ? (uint16_t)c
                                                                     : REP_UNKNOWN_CALL;
    recon_t *rc = recon_new(run, RECON_LIB_AUTO);
    if (rc == NULL) {
        if (err) {
            err->code = PLOG_E_NOMEM;
            snprintf(err->msg, sizeof(err->msg), "%s: out of memory", plog_run_path(run));
        }
        return PLOG_E_NOMEM;
    }
    pcs_sched_t sched = PCS_SCHED_INIT;
    plog_err_t e = PLOG_OK;
    for (int32_t r = 0; r < rep->world_size && e == PLOG_OK; r++)
        if (plog_run_rank(run, r) != NULL)
            e = rank_pass(run, rep, r, rc, &sched, err);
    pcs_sched_free(&sched);
    recon_free(rc);
    return e;
}

void rep_free(rep_t *rep)
{
    free(rep->ranks);
    free(rep->hist);
    free(rep->coll.slot);
    free(rep->matrix.slot);
    free(rep->sites.slot);
    free(rep->coll_matrix.slot);
    memset(rep, 0, sizeof(*rep));
}

void rep_imbalance(const rep_t *rep, enum rep_imb_what what, rep_imb_t *out)
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

/* ==== output ============================================================================ */

static const char *fname(unsigned call)
{
    const char *s = call < PLOG_CALL__MAX ? plog_call_name(call) : NULL;
    return s ? s : "unknown";
}

/* "Send" for "MPI_Send": the text tables drop the prefix, as mpiP does */
static const char *short_name(unsigned call)
{
    const char *s = fname(call);
    return strncmp(s, "MPI_", 4) == 0 ? s + 4 : s;
}

static double pct(double a, double b) { return b > 0 ? 100.0 * a / b : 0; }

/* Bucket bounds: k = 0 is [0, 0]; k >= 1 is [2^(k-1), 2^k - 1]. */
static void bucket_bounds(unsigned k, uint64_t *lo, uint64_t *hi)
{
    *lo = k == 0 ? 0 : 1ull << (k - 1);
    *hi = k == 0 ? 0 : k == 64 ? UINT64_MAX : (1ull << k) - 1;
}

static void pow2_label(unsigned e, char *out, size_t cap)
{
    static const char *const u[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    snprintf(out, cap, "%llu%s", 1ull << (e % 10), u[e / 10]);
}

static void bucket_label(unsigned k, char *out, size_t cap)
{
    if (k == 0) {
        snprintf(out, cap, "0");
        return;
    }
    char a[16], b[16];
    pow2_label(k - 1, a, sizeof(a));
    pow2_label(k, b, sizeof(b));
    if (k == 64)
        snprintf(b, sizeof(b), "2^64");
    snprintf(out, cap, "[%s, %s)", a, b);
}

/* A communication matrix: its entries sorted by (src, dst), and totals. */
typedef struct pairs {
    rep_stat_t *v;
    size_t n;
    uint64_t msgs, bytes;
    const char *name;         /* file stem under -o: "matrix", "coll_matrix" */
    const char *what;         /* for the SVG title */
} pairs_t;

typedef struct ctx {
    const char *path;
    plog_run_t *run;
    rep_t *rep;
    unsigned order[REP_NFUNC]; /* functions by time, descending */
    unsigned nfunc;
    rep_stat_t *coll, *sites;
    size_t ncoll, nsites;
    pairs_t p2p;              /* the application's point-to-point messages */
    pairs_t cm;               /* the messages inside collectives (rebuilt steps) */
    const char *outdir;
    int wrote_files;
    plog_callsites_t *cs;     /* the run's call-site table (empty for format-1 logs) */
    phasor_symbols_t *sym;
    plog_probeset_t probe;    /* the network probe's results (PHASOR_PROBE), if run */
    int have_probe;
} ctx_t;

#define TOP_SITES 20

/* Reader warnings, then the call-site table's. */
static size_t nwarnings(const ctx_t *c)
{
    return plog_run_nwarnings(c->run) + plog_callsites_nwarnings(c->cs);
}

static const char *warning_at(const ctx_t *c, size_t i)
{
    size_t n = plog_run_nwarnings(c->run);
    return i < n ? plog_run_warning(c->run, i) : plog_callsites_warning(c->cs, i - n);
}

/* The frames of a site resolved; returns how many (0 if the id is not in the table). */
static uint32_t site_stack(const ctx_t *c, uint32_t id, phasor_sym_t *out)
{
    const plog_csite_t *s = plog_callsites_find(c->cs, id);
    if (!s)
        return 0;
    for (uint32_t i = 0; i < s->nframes; i++)
        phasor_symbols_resolve(c->sym, &s->frames[i], &out[i]);
    return s->nframes;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* "function (file:line)", "function (module+0xoff)" or "module+0xoff". */
static void frame_text(const phasor_sym_t *f, char *buf, size_t cap)
{
    if (f->status == PHASOR_SYM_LINE)
        snprintf(buf, cap, "%s (%s:%d)", f->function, base_name(f->file), f->line);
    else if (f->status == PHASOR_SYM_FUNCTION)
        snprintf(buf, cap, "%s (%s+0x%" PRIx64 ")", f->function, base_name(f->module), f->offset);
    else if (f->module)
        snprintf(buf, cap, "%s+0x%" PRIx64, base_name(f->module), f->offset);
    else
        snprintf(buf, cap, "0x%" PRIx64, f->offset);
}

static const rep_t *g_rep; /* qsort comparators have no context argument */

static int cmp_func(const void *a, const void *b)
{
    const rep_stat_t *x = &g_rep->func[*(const unsigned *)a], *y = &g_rep->func[*(const unsigned *)b];
    if (x->time_sum != y->time_sum)
        return x->time_sum > y->time_sum ? -1 : 1;
    return (*(const unsigned *)a > *(const unsigned *)b) - (*(const unsigned *)a < *(const unsigned *)b);
}

static int cmp_key(const void *a, const void *b)
{
    const rep_stat_t *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int cmp_time(const void *a, const void *b)
{
    const rep_stat_t *x = a, *y = b;
    if (x->time_sum != y->time_sum)
        return x->time_sum > y->time_sum ? -1 : 1;
    return cmp_key(a, b);
}

static int cmp_bytes(const void *a, const void *b)
{
    const rep_stat_t *x = a, *y = b;
    if (x->bytes_sum != y->bytes_sum)
        return x->bytes_sum > y->bytes_sum ? -1 : 1;
    return cmp_key(a, b);
}

static const char *ended(const plog_rank_t *rk, char *buf, size_t cap)
{
    if (rk->complete)
        return "complete";
    snprintf(buf, cap, "truncated@%" PRIu64, rk->end_offset);
    return buf;
}

/* ---- files: matrix.csv and matrix.svg ---- */

static int write_pairs(ctx_t *c, const pairs_t *pm)
{
    char path[4096];
    if (mkdir(c->outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "phasor report: %s: cannot create the directory: %s\n", c->outdir,
                strerror(errno));
        return -1;
    }
    snprintf(path, sizeof(path), "%s/%s.csv", c->outdir, pm->name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        goto fail;
    fprintf(f, "src,dst,messages,bytes_min,bytes_max,bytes_sum\n");
    for (size_t i = 0; i < pm->n; i++) {
        const rep_stat_t *s = &pm->v[i];
        fprintf(f, "%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
                (unsigned)(s->key >> 32), (unsigned)(s->key & 0xffffffffu), s->count,
                s->bytes_min, s->bytes_max, s->bytes_sum);
    }
    if (fclose(f) != 0)
        goto fail;

    int32_t world = c->rep->world_size;
    int32_t block = world > SVG_MAX_CELLS ? (world + SVG_MAX_CELLS - 1) / SVG_MAX_CELLS : 1;
    int g = (int)((world + block - 1) / block);
    double *val = calloc((size_t)g * g, sizeof(*val));
    uint64_t *cnt = calloc((size_t)g * g, sizeof(*cnt));
    if (val == NULL || cnt == NULL) {
        free(val);
        free(cnt);
        fprintf(stderr, "phasor report: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < pm->n; i++) {
        const rep_stat_t *s = &pm->v[i];
        size_t k = (size_t)((s->key >> 32) / (uint64_t)block) * g +
                   (size_t)((s->key & 0xffffffffu) / (uint64_t)block);
        val[k] += (double)s->bytes_sum;
        cnt[k] += s->count;
    }
    snprintf(path, sizeof(path), "%s/%s.svg", c->outdir, pm->name);
    f = fopen(path, "w");
    int rc = -1;
    if (f != NULL) {
        char title[4200];
        snprintf(title, sizeof(title), "phasor: %s of %s (%d ranks)", pm->what, c->path,
                 (int)world);
        rc = svg_heatmap(f, title, world, g, block, val, cnt);
        if (fclose(f) != 0)
            rc = -1;
    }
    free(val);
    free(cnt);
    if (rc != 0)
        goto fail;
    return 0;
fail:
    fprintf(stderr, "phasor report: %s: %s\n", path, strerror(errno));
    return -1;
}

static int write_matrix(ctx_t *c)
{
    if (write_pairs(c, &c->p2p) != 0 || write_pairs(c, &c->cm) != 0)
        return -1;
    c->wrote_files = 1;
    return 0;
}

/* ---- text ---- */

/* Totals, where the files went, and the top pairs by bytes. */
static void text_pairs(FILE *o, const ctx_t *c, const pairs_t *pm)
{
    fprintf(o, "%zu rank pairs, %" PRIu64 " messages, %" PRIu64 " bytes\n", pm->n, pm->msgs,
            pm->bytes);
    if (c->wrote_files)
        fprintf(o, "written: %s/%s.csv, %s/%s.svg\n", c->outdir, pm->name, c->outdir, pm->name);
    else
        fprintf(o, "(phasor report -o DIR writes the whole matrix as DIR/%s.csv and "
                   "DIR/%s.svg)\n", pm->name, pm->name);
    if (pm->n > 0) {
        rep_stat_t *top = malloc(pm->n * sizeof(*top));
        if (top != NULL) {
            memcpy(top, pm->v, pm->n * sizeof(*top));
            qsort(top, pm->n, sizeof(*top), cmp_bytes);
            size_t n = pm->n < 10 ? pm->n : 10;
            fprintf(o, "top %zu pairs by bytes:\n%8s %8s %12s %14s %14s %16s\n", n, "src",
                    "dst", "messages", "bytes_min", "bytes_max", "bytes_sum");
            for (size_t i = 0; i < n; i++)
                fprintf(o, "%8u %8u %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %16" PRIu64 "\n",
                        (unsigned)(top[i].key >> 32), (unsigned)(top[i].key & 0xffffffffu),
                        top[i].count, top[i].bytes_min, top[i].bytes_max, top[i].bytes_sum);
            free(top);
        }
    }

}

/* Per size over the sources: the median of the sources' medians, and the slowest and
 * fastest source by median (a slow node shows up here). */
typedef struct probe_row {
    uint64_t size;
    int nsrc;
    double med, slow, fast;
    int32_t slow_src, fast_src;
} probe_row_t;

static int probe_rows(const plog_probeset_t *ps, uint32_t way, probe_row_t *rows)
{
    int n = 0;
    double *v = malloc(((size_t)ps->world + 1) * sizeof(double));
    if (!v)
        return -1;
    for (unsigned z = 0; z < ps->info.nsizes; z++) {
        probe_row_t *r = &rows[n];
        memset(r, 0, sizeof(*r));
        r->size = ps->info.sizes[z];
        for (size_t i = 0; i < ps->n; i++) {
            const plog_probe_entry_t *e = &ps->e[i];
            if (e->dst >= 0 || e->size_idx != z || e->way != way)
                continue; /* one per source: plog_probeset_load refuses repeats */
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

static void text_probe(FILE *o, const ctx_t *c)
{
    fprintf(o, "\n@--- Network probe at MPI_Init\n");
    if (!c->have_probe) {
        fprintf(o, "not run (PHASOR_PROBE=quick or full runs it)\n");
        return;
    }
    const plog_probeset_t *ps = &c->probe;
    fprintf(o, "%s: %d of %d ranks, %u sizes, %u repetitions, %.3f s\n",
            plog_probe_mode_name(ps->info.mode), (int)ps->ranks, (int)ps->world, ps->info.nsizes,
            ps->info.reps, ps->info.elapsed_s);
    for (uint32_t way = PLOG_PROBE_EXCHANGE; way <= PLOG_PROBE_ONEWAY; way++) {
        probe_row_t rows[PLOG_PROBE_MAXSIZES];
        int n = probe_rows(ps, way, rows);
        if (n < 0) {
            fprintf(o, "(out of memory)\n");
            return;
        }
        if (n == 0)
            continue;
        fprintf(o, "%s\n", way == PLOG_PROBE_EXCHANGE
                               ? "exchange: time to exchange both ways, every pair of a round at once"
                           : ps->info.mode == PLOG_PROBE_FULL
                               ? "one way: one message in flight"
                               : "one way: one direction, every pair of a round at once");
        fprintf(o, "%10s %8s %14s %14s %10s %14s %10s %10s\n", "bytes", "sources",
                "median_us", "slowest_us", "slow_rank", "fastest_us", "fast_rank", "slow/med");
        for (int i = 0; i < n; i++)
            fprintf(o, "%10" PRIu64 " %8d %14.2f %14.2f %10d %14.2f %10d %10.2f\n",
                    rows[i].size, rows[i].nsrc, rows[i].med / 1e3, rows[i].slow / 1e3,
                    (int)rows[i].slow_src, rows[i].fast / 1e3, (int)rows[i].fast_src,
                    rows[i].med > 0 ? rows[i].slow / rows[i].med : 0);
    }
}

static void text_report(FILE *o, ctx_t *c)
{
    const rep_t *rep = c->rep;
    char buf[64];
    fprintf(o, "phasor report: %s\n", c->path);
    fprintf(o, "world size %d, %" PRIu64 " events; times in ms unless marked, clocks aligned\n",
            (int)rep->world_size, rep->events);

    fprintf(o, "\n@--- Time per rank (app: MPI_Init return to MPI_Finalize start; MPI: union "
               "of call intervals)\n");
    fprintf(o, "%6s %14s %14s %7s %12s  %-18s %s\n", "rank", "app_ms", "mpi_ms", "mpi%",
            "events", "log ended", "host");
    for (int32_t r = 0; r < rep->world_size; r++) {
        const rep_rank_t *rr = &rep->ranks[r];
        const plog_rank_t *rk = plog_run_rank(c->run, r);
        if (!rr->loaded || rk == NULL)
            continue;
        const char *host = plog_rank_kv(rk, "hostname");
        char end[96];
        snprintf(end, sizeof(end), "%s%s", ended(rk, buf, sizeof(buf)),
                 rr->have_finalize ? "" : " (no MPI_Finalize)");
        fprintf(o, "%6d %14.3f %14.3f %7.2f %12" PRIu64 "  %-18s %s\n", (int)r,
                rr->app_ns / 1e6, rr->mpi_ns / 1e6, pct((double)rr->mpi_ns, (double)rr->app_ns),
                rr->events, end, host ? host : "?");
    }
    fprintf(o, "%6s %14.3f %14.3f %7.2f %12" PRIu64 "\n", "*", rep->app_total / 1e6,
            rep->mpi_total / 1e6, pct((double)rep->mpi_total, (double)rep->app_total),
            rep->events);

    fprintf(o, "\n@--- Load imbalance (imbalance = max / mean - 1)\n");
    fprintf(o, "%-8s %14s %14s %14s %10s %9s %9s\n", "", "min_ms", "mean_ms", "max_ms",
            "imbalance", "min_rank", "max_rank");
    for (int w = 0; w < 2; w++) {
        rep_imb_t im;
        rep_imbalance(rep, w == 0 ? REP_IMB_MPI : REP_IMB_APP, &im);
        fprintf(o, "%-8s %14.3f %14.3f %14.3f %10.4f %9d %9d\n", w == 0 ? "MPI" : "app",
                im.min / 1e6, im.mean / 1e6, im.max / 1e6, im.imbalance, (int)im.min_rank,
                (int)im.max_rank);
    }

    fprintf(o, "\n@--- MPI functions by time (all ranks and threads; %%mpi, %%app of the "
               "totals above)\n");
    fprintf(o, "%-20s %9s %11s %6s %6s %9s %9s %9s %12s\n", "function", "calls", "time_ms",
            "%mpi", "%app", "mean_us", "min_us", "max_us", "bytes");
    for (unsigned i = 0; i < c->nfunc; i++) {
        const rep_stat_t *s = &rep->func[c->order[i]];
        fprintf(o, "%-20.20s %9" PRIu64 " %11.3f %6.2f %6.2f %9.2f %9.2f %9.2f %12" PRIu64 "\n",
                short_name(c->order[i]), s->count, s->time_sum / 1e6,
                pct((double)s->time_sum, (double)rep->mpi_total),
                pct((double)s->time_sum, (double)rep->app_total),
                s->time_sum / 1e3 / (double)s->count, s->time_min / 1e3, s->time_max / 1e3,
                s->bytes_sum);
    }

    fprintf(o, "\n@--- Message sizes (bytes per call, log2 buckets)\n");
    fprintf(o, "%-20s %-22s %12s\n", "function", "bytes", "calls");
    for (unsigned i = 0; i < c->nfunc; i++) {
        unsigned f = c->order[i];
        for (unsigned k = 0; k < REP_NBUCKETS; k++) {
            if (rep->hist[f][k] == 0)
                continue;
            bucket_label(k, buf, sizeof(buf));
            fprintf(o, "%-20.20s %-22s %12" PRIu64 "\n", short_name(f), buf, rep->hist[f][k]);
        }
    }

    fprintf(o, "\n@--- Collectives by communicator size (0: unknown communicator)\n");
    fprintf(o, "%-20s %9s %11s %13s %11s %14s\n", "function", "comm_size", "calls", "time_ms",
            "mean_us", "bytes");
    for (size_t i = 0; i < c->ncoll; i++) {
        const rep_stat_t *s = &c->coll[i];
        fprintf(o, "%-20.20s %9u %11" PRIu64 " %13.3f %11.2f %14" PRIu64 "\n",
                short_name((unsigned)(s->key >> 32)), (unsigned)(s->key & 0xffffffffu),
                s->count, s->time_sum / 1e6, s->time_sum / 1e3 / (double)s->count,
                s->bytes_sum);
    }
    if (c->ncoll == 0)
        fprintf(o, "(no collectives)\n");

    fprintf(o, "\n@--- Point-to-point matrix (sender side: Send/Isend/Sendrecv/Start of a "
               "send)\n");
    text_pairs(o, c, &c->p2p);
    fprintf(o, "\n@--- Collective-internal matrix (the messages inside collective calls, as the "
               "library's\n     algorithms send them: phasor steps)\n");
    const rep_t *rep0 = c->rep;
    uint64_t without = 0;
    for (int w = 1; w < RECON__COUNT; w++)
        without += rep0->coll_skipped[w];
    fprintf(o, "%" PRIu64 " of %" PRIu64 " collective calls rebuilt", rep0->coll_calls - without,
            rep0->coll_calls);
    for (int w = 1; w < RECON__COUNT; w++)
        if (rep0->coll_skipped[w])
            fprintf(o, "; %" PRIu64 " not: %s", rep0->coll_skipped[w],
                    recon_skip_name((recon_skip_t)w));
    fprintf(o, "\n");
    text_pairs(o, c, &c->cm);

    fprintf(o, "\n@--- Top call sites\n");
    if (c->nsites == 0) {
        fprintf(o, "call sites not recorded\n");
    } else {
        size_t n = c->nsites < TOP_SITES ? c->nsites : TOP_SITES;
        fprintf(o, "%zu of %zu (site, function) pairs by time; callers innermost first\n", n,
                c->nsites);
        fprintf(o, "%10s %-20s %11s %13s %14s\n", "site", "function", "calls", "time_ms",
                "bytes");
        for (size_t i = 0; i < n; i++) {
            uint32_t id = (uint32_t)(c->sites[i].key >> 16);
            fprintf(o, "%10u %-20.20s %11" PRIu64 " %13.3f %14" PRIu64 "\n", (unsigned)id,
                    short_name((unsigned)(c->sites[i].key & 0xffff)), c->sites[i].count,
                    c->sites[i].time_sum / 1e6, c->sites[i].bytes_sum);
            phasor_sym_t st[PLOG_SITE_MAX_FRAMES];
            uint32_t nf = site_stack(c, id, st);
            if (nf == 0)
                fprintf(o, "%11s(not in the call-site table)\n", "");
            for (uint32_t k = 0; k < nf; k++) {
                char where[512];
                frame_text(&st[k], where, sizeof(where));
                fprintf(o, "%11s%s %s\n", "", k ? "  from" : "at", where);
            }
        }
    }

    text_probe(o, c);

    fprintf(o, "\n@--- How the logs ended, and the reader's warnings\n");
    int ntrunc = 0;
    for (int32_t r = 0; r < rep->world_size; r++) {
        const plog_rank_t *rk = plog_run_rank(c->run, r);
        if (rk != NULL && !rk->complete) {
            fprintf(o, "rank %d: truncated at offset %" PRIu64 ", complete frames read: %s\n",
                    (int)r, rk->end_offset, rk->path);
            ntrunc++;
        }
    }
    fprintf(o, "%d of %d rank logs complete\n", (int)rep->world_size - ntrunc,
            (int)rep->world_size);
    size_t nw = nwarnings(c);
    fprintf(o, "%zu warning%s\n", nw, nw == 1 ? "" : "s");
    for (size_t i = 0; i < nw && i < TEXT_MAX_WARNINGS; i++)
        fprintf(o, "warning: %s\n", warning_at(c, i));
    if (nw > TEXT_MAX_WARNINGS)
        fprintf(o, "... and %zu more (all of them are in --json)\n", nw - TEXT_MAX_WARNINGS);
}

/* ---- JSON ---- */

static void jint_or_null(FILE *o, int v) /* 0 means unknown (line numbers start at 1) */
{
    if (v)
        fprintf(o, "%d", v);
    else
        fputs("null", o);
}

static void jstat(FILE *o, const rep_stat_t *s)
{
    fprintf(o, "\"calls\": %" PRIu64 ", \"time_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64
               ", \"mean_ns\": %.1f, \"max_ns\": %" PRIu64 ", \"bytes\": %" PRIu64,
            s->count, s->time_sum, s->time_min, s->count ? (double)s->time_sum / s->count : 0.0,
            s->time_max, s->bytes_sum);
}

/* "{pairs, messages, bytes, csv, svg, entries" of a matrix (the caller closes it). */
static void json_pairs(FILE *o, const ctx_t *c, const pairs_t *pm)
{
    fprintf(o, "{\"pairs\": %zu, \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64
               ", \"csv\": ", pm->n, pm->msgs, pm->bytes);
    if (c->wrote_files) {
        char p[4200];
        snprintf(p, sizeof(p), "%s/%s.csv", c->outdir, pm->name);
        jsonw_fstr(o, p);
        fprintf(o, ", \"svg\": ");
        snprintf(p, sizeof(p), "%s/%s.svg", c->outdir, pm->name);
        jsonw_fstr(o, p);
    } else {
        fprintf(o, "null, \"svg\": null");
    }
    fprintf(o, ",\n  \"entries\": [");
    for (size_t i = 0; i < pm->n; i++) {
        const rep_stat_t *s = &pm->v[i];
        fprintf(o, "%s[%u, %u, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "]",
                i == 0 ? "" : i % 4 ? ", " : ",\n    ", (unsigned)(s->key >> 32),
                (unsigned)(s->key & 0xffffffffu), s->count, s->bytes_min, s->bytes_max,
                s->bytes_sum);
    }
    fprintf(o, "]");
}

/* Every source's pooled quantiles per size (the per-pair ones go to model files). */
static void json_probe(FILE *o, const ctx_t *c)
{
    if (!c->have_probe) {
        fprintf(o, "null");
        return;
    }
    const plog_probeset_t *ps = &c->probe;
    fprintf(o, "{\"mode\": \"%s\", \"ranks\": %d, \"repetitions\": %u, \"elapsed_s\": %.6f, "
               "\"sizes\": [", plog_probe_mode_name(ps->info.mode), (int)ps->ranks, ps->info.reps,
            ps->info.elapsed_s);
    for (unsigned z = 0; z < ps->info.nsizes; z++)
        fprintf(o, "%s%" PRIu64, z ? ", " : "", ps->info.sizes[z]);
    fprintf(o, "], \"sources\": [");
    int first = 1;
    for (size_t i = 0; i < ps->n; i++) {
        const plog_probe_entry_t *e = &ps->e[i];
        if (e->dst >= 0)
            continue;
        fprintf(o, "%s{\"src\": %d, \"way\": \"%s\", \"bytes\": %" PRIu64 ", \"n\": %u, "
                   "\"min_ns\": %.1f, "
                   "\"q10_ns\": %.1f, \"q25_ns\": %.1f, \"q50_ns\": %.1f, \"q75_ns\": %.1f, "
                   "\"q90_ns\": %.1f, \"max_ns\": %.1f, \"mean_ns\": %.1f}",
                first ? "\n  " : ",\n  ", (int)e->src,
                plog_probe_way_name(e->way), ps->info.sizes[e->size_idx],
                e->q.n,
                e->q.min, e->q.q10, e->q.q25, e->q.q50, e->q.q75, e->q.q90, e->q.max,
                e->q.mean);
        first = 0;
    }
    fprintf(o, "%s]}", first ? "" : "\n");
}

static void json_report(FILE *o, ctx_t *c)
{
    const rep_t *rep = c->rep;
    fprintf(o, "{\"format\": \"phasor-report\", \"version\": %d, \"path\": ", REPORT_JSON_VERSION);
    jsonw_fstr(o, c->path);
    fprintf(o, ", \"world_size\": %d, \"events\": %" PRIu64 ",\n", (int)rep->world_size,
            rep->events);
    fprintf(o, "\"totals\": {\"app_ns\": %" PRIu64 ", \"mpi_ns\": %" PRIu64 ", \"mpi_pct\": %.4f},\n",
            rep->app_total, rep->mpi_total, pct((double)rep->mpi_total, (double)rep->app_total));
    fprintf(o, "\"ranks\": [");
    int first = 1;
    for (int32_t r = 0; r < rep->world_size; r++) {
        const rep_rank_t *rr = &rep->ranks[r];
        const plog_rank_t *rk = plog_run_rank(c->run, r);
        if (!rr->loaded || rk == NULL)
            continue;
        fprintf(o, "%s{\"rank\": %d, \"app_ns\": %" PRIu64 ", \"mpi_ns\": %" PRIu64
                   ", \"mpi_pct\": %.4f, \"events\": %" PRIu64 ", \"init_seen\": %s, "
                   "\"finalize_seen\": %s, \"ended\": \"%s\", \"truncated_at\": ",
                first ? "\n  " : ",\n  ", (int)r, rr->app_ns, rr->mpi_ns,
                pct((double)rr->mpi_ns, (double)rr->app_ns), rr->events,
                rr->have_init ? "true" : "false", rr->have_finalize ? "true" : "false",
                rk->complete ? "complete" : "truncated");
        if (rk->complete)
            fprintf(o, "null");
        else
            fprintf(o, "%" PRIu64, rk->end_offset);
        const char *host = plog_rank_kv(rk, "hostname");
        fprintf(o, ", \"host\": ");
        jsonw_fstr(o, host);
        fprintf(o, "}");
        first = 0;
    }
    fprintf(o, "\n],\n\"imbalance\": {");
    for (int w = 0; w < 2; w++) {
        rep_imb_t im;
        rep_imbalance(rep, w == 0 ? REP_IMB_MPI : REP_IMB_APP, &im);
        fprintf(o, "%s\"%s\": {\"min_ns\": %.0f, \"mean_ns\": %.1f, \"max_ns\": %.0f, "
                   "\"imbalance\": %.6f, \"min_rank\": %d, \"max_rank\": %d}",
                w ? ",\n  " : "\n  ", w == 0 ? "mpi" : "app", im.min, im.mean, im.max,
                im.imbalance, (int)im.min_rank, (int)im.max_rank);
    }
    fprintf(o, "\n},\n\"functions\": [");
    for (unsigned i = 0; i < c->nfunc; i++) {
        const rep_stat_t *s = &rep->func[c->order[i]];
        fprintf(o, "%s{\"function\": \"%s\", ", i ? ",\n  " : "\n  ", fname(c->order[i]));
        jstat(o, s);
        fprintf(o, ", \"pct_mpi\": %.4f, \"pct_app\": %.4f}",
                pct((double)s->time_sum, (double)rep->mpi_total),
                pct((double)s->time_sum, (double)rep->app_total));
    }
    fprintf(o, "\n],\n\"histograms\": [");
    first = 1;
    for (unsigned i = 0; i < c->nfunc; i++) {
        unsigned f = c->order[i];
        int any = 0;
        for (unsigned k = 0; k < REP_NBUCKETS; k++) {
            if (rep->hist[f][k] == 0)
                continue;
            if (!any)
                fprintf(o, "%s{\"function\": \"%s\", \"buckets\": [", first ? "\n  " : ",\n  ",
                        fname(f));
            uint64_t lo, hi;
            bucket_bounds(k, &lo, &hi);
            fprintf(o, "%s{\"lo\": %" PRIu64 ", \"hi\": %" PRIu64 ", \"calls\": %" PRIu64 "}",
                    any ? ", " : "", lo, hi, rep->hist[f][k]);
            any = 1;
            first = 0;
        }
        if (any)
            fprintf(o, "]}");
    }
    fprintf(o, "\n],\n\"collectives\": [");
    for (size_t i = 0; i < c->ncoll; i++) {
        const rep_stat_t *s = &c->coll[i];
        fprintf(o, "%s{\"function\": \"%s\", \"comm_size\": %u, ", i ? ",\n  " : "\n  ",
                fname((unsigned)(s->key >> 32)), (unsigned)(s->key & 0xffffffffu));
        jstat(o, s);
        fprintf(o, "}");
    }
    fprintf(o, "\n],\n\"matrix\": ");
    json_pairs(o, c, &c->p2p);
    fprintf(o, "},\n\"coll_matrix\": ");
    json_pairs(o, c, &c->cm);
    const rep_t *rep0 = c->rep;
    fprintf(o, ",\n  \"calls\": %" PRIu64 ", \"calls_without_steps\": {", rep0->coll_calls);
    const char *sep = "";
    for (int w = 1; w < RECON__COUNT; w++)
        if (rep0->coll_skipped[w]) {
            fprintf(o, "%s\"%s\": %" PRIu64, sep, recon_skip_name((recon_skip_t)w),
                    rep0->coll_skipped[w]);
            sep = ", ";
        }
    fprintf(o, "}");
    fprintf(o, "},\n\"callsites_note\": \"%s\",\n\"callsites\": [",
            c->nsites ? "top sites by time; stack innermost first"
                      : "call sites not recorded");
    for (size_t i = 0; i < c->nsites && i < TOP_SITES; i++) {
        uint32_t id = (uint32_t)(c->sites[i].key >> 16);
        phasor_sym_t st[PLOG_SITE_MAX_FRAMES];
        uint32_t nf = site_stack(c, id, st);
        const phasor_sym_t *in = nf ? &st[0] : NULL;
        fprintf(o, "%s{\"site\": %u, \"file\": ", i ? ",\n  " : "\n  ", (unsigned)id);
        jsonw_fstr(o, in ? in->file : NULL);
        fprintf(o, ", \"line\": ");
        jint_or_null(o, in ? in->line : 0);
        fprintf(o, ", \"caller\": ");
        jsonw_fstr(o, in ? in->function : NULL);
        fprintf(o, ", \"function\": \"%s\", ", fname((unsigned)(c->sites[i].key & 0xffff)));
        jstat(o, &c->sites[i]);
        fprintf(o, ", \"stack\": [");
        for (uint32_t k = 0; k < nf; k++) {
            const phasor_sym_t *f = &st[k];
            fprintf(o, "%s{\"status\": \"%s\", \"function\": ", k ? ", " : "",
                    phasor_sym_status_name(f->status));
            jsonw_fstr(o, f->function);
            fprintf(o, ", \"file\": ");
            jsonw_fstr(o, f->file);
            fprintf(o, ", \"line\": ");
            jint_or_null(o, f->line);
            fprintf(o, ", \"module\": ");
            jsonw_fstr(o, f->module);
            fprintf(o, ", \"offset\": %" PRIu64 "}", f->offset);
        }
        fprintf(o, "]}");
    }
    fprintf(o, "%s],\n\"probe\": ", c->nsites ? "\n" : "");
    json_probe(o, c);
    fprintf(o, ",\n\"warnings\": [");
    for (size_t i = 0; i < nwarnings(c); i++) {
        fprintf(o, "%s", i ? ",\n  " : "\n  ");
        jsonw_fstr(o, warning_at(c, i));
    }
    fprintf(o, "%s]}\n", nwarnings(c) ? "\n" : "");
}

static void pairs_init(pairs_t *pm, const rep_map_t *m, const char *name, const char *what)
{
    memset(pm, 0, sizeof(*pm));
    pm->name = name;
    pm->what = what;
    pm->v = rep_map_list(m);
    pm->n = pm->v ? m->n : 0;
    if (pm->v)
        qsort(pm->v, pm->n, sizeof(*pm->v), cmp_key);
    for (size_t i = 0; i < pm->n; i++) {
        pm->msgs += pm->v[i].count;
        pm->bytes += pm->v[i].bytes_sum;
    }
}

/* ---- the command ---- */

static void report_usage(FILE *f)
{
    fprintf(f,
            "Usage: phasor report <log-dir|rank-file> [--json] [-o OUTDIR]\n"
            "Profile of a run, as mpiP gives: application and MPI time per rank, load\n"
            "imbalance, time/calls/bytes per MPI function, message-size histograms,\n"
            "collectives by communicator size, the point-to-point communication matrix,\n"
            "how each rank's log ended and the reader's warnings.\n"
            "\n"
            "  --json        one JSON object instead of text (doc/report-format.md, version %d)\n"
            "  -o, --outdir OUTDIR\n"
            "                write OUTDIR/matrix.csv and OUTDIR/matrix.svg (created if needed)\n"
            "  -h, --help    this text\n"
            "\n"
            "Exit status: 0 success, 1 unreadable or damaged log (the reason names the file),\n"
            "2 bad usage. A log that ended early is read up to its last complete frame.\n",
            REPORT_JSON_VERSION);
}

int rep_inconsistent(const rep_t *rep, int32_t r)
{
    const rep_rank_t *rr = &rep->ranks[r];
    return rr->loaded && rr->mpi_ns > rr->app_ns + rr->app_ns / 100 + 1000000;
}

int phasor_cmd_report(int argc, char **argv)
{
    int json = 0;
    const char *outdir = NULL;
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"outdir", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (ch) {
        case 'h':
            report_usage(stdout);
            return PHASOR_EXIT_OK;
        case 'j':
            json = 1;
            break;
        case 'o':
            if (optarg[0] == '\0')
                return phasor_usage_error("report", "%s", "-o needs a directory");
            outdir = optarg;
            break;
        default:
            if (optopt == 'o')
                return phasor_usage_error("report", "%s", "-o needs a directory");
            return phasor_usage_error("report", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return phasor_usage_error("report", "%s", "which log? give a log directory or a rank file");
    if (argc - optind > 1)
        return phasor_usage_error("report", "unexpected argument '%s'", argv[optind + 1]);
    const char *path = argv[optind];

    plog_error_t err;
    plog_run_t *run = NULL;
    if (plog_run_open(path, &run, &err) != PLOG_OK) {
        fprintf(stderr, "phasor report: %s\n", err.msg);
        return err.code == PLOG_E_USAGE ? PHASOR_EXIT_USAGE : PHASOR_EXIT_INPUT;
    }
    static rep_t rep;
    if (rep_compute(run, &rep, &err) != PLOG_OK) {
        fprintf(stderr, "phasor report: %s\n", err.msg);
        rep_free(&rep);
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }

    static ctx_t c;
    memset(&c, 0, sizeof(c));
    if (plog_callsites_load(run, &c.cs, &err) != PLOG_OK) {
        fprintf(stderr, "phasor report: %s\n", err.msg);
        rep_free(&rep);
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }
    plog_err_t pe = plog_probeset_load(run, &c.probe, &err);
    if (pe != PLOG_OK && pe != PLOG_E_MISSING) {
        fprintf(stderr, "phasor report: %s\n", err.msg);
        plog_callsites_free(c.cs);
        rep_free(&rep);
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }
    c.have_probe = pe == PLOG_OK;
    c.sym = phasor_symbols_new();
    c.path = path;
    c.run = run;
    c.rep = &rep;
    c.outdir = outdir;
    for (unsigned f = 0; f < REP_NFUNC; f++)
        if (rep.func[f].count > 0)
            c.order[c.nfunc++] = f;
    g_rep = &rep;
    qsort(c.order, c.nfunc, sizeof(c.order[0]), cmp_func);
    c.coll = rep_map_list(&rep.coll);
    c.ncoll = c.coll ? rep.coll.n : 0;
    if (c.coll)
        qsort(c.coll, c.ncoll, sizeof(*c.coll), cmp_time);
    pairs_init(&c.p2p, &rep.matrix, "matrix", "point-to-point messages");
    pairs_init(&c.cm, &rep.coll_matrix, "coll_matrix", "messages inside collectives");
    c.sites = rep_map_list(&rep.sites);
    c.nsites = c.sites ? rep.sites.n : 0;
    if (c.sites)
        qsort(c.sites, c.nsites, sizeof(*c.sites), cmp_time);

    for (int32_t r = 0; r < rep.world_size; r++) {
        const rep_rank_t *rr = &rep.ranks[r];
        if (rep_inconsistent(&rep, r))
            fprintf(stderr, "phasor report: warning: %s: rank %d's MPI time (%.3f ms) exceeds "
                    "its time from MPI_Init to MPI_Finalize (%.3f ms); its times are "
                    "inconsistent\n", path, (int)r, rr->mpi_ns / 1e6, rr->app_ns / 1e6);
    }

    int status = PHASOR_EXIT_OK;
    if (outdir != NULL && write_matrix(&c) != 0)
        status = PHASOR_EXIT_INPUT;
    if (status == PHASOR_EXIT_OK) {
        if (json)
            json_report(stdout, &c);
        else
            text_report(stdout, &c);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "phasor report: writing the output: %s\n", strerror(errno));
            status = PHASOR_EXIT_INPUT;
        }
    }
    free(c.coll);
    free(c.p2p.v);
    free(c.cm.v);
    free(c.sites);
    phasor_symbols_free(c.sym);
    plog_callsites_free(c.cs);
    plog_probeset_free(&c.probe);
    rep_free(&rep);
    plog_run_close(run);
    return status;
}
