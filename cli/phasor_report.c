/* phasor_report.c: `phasor report`: an mpiP-style profile of a log (time per rank and per
 * MPI function, imbalance, message sizes, collectives by communicator size, the
 * point-to-point matrix as CSV + SVG, how each log ended). The numbers come from
 * analysis/report_stats.h, computed once; this file parses the options, runs the analysis
 * and formats its results as text or JSON. Rules and the JSON schema: doc/report-format.md. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonw.h"
#include "ofile.h"
#include "phasor_cmd.h"
#include "phasor_svg.h"
#include "phasor_symbols.h"
#include "plog_callsites.h"
#include "plog_probeset.h"
#include "blocked.h"
#include "report_stats.h"

#define REPORT_JSON_VERSION 3 /* 2: probe sources carry their way (exchange, one-way); 3: ranks
                                 carry what their logs do not hold (dropped...) */
#define SVG_MAX_CELLS 64 /* more ranks than this are drawn as blocks */
#define TEXT_MAX_WARNINGS 20 /* a 1024-rank run can have a warning per rank */
#define TOP_SITES 20

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

/* Bucket bounds: k = 0 is [0, 0]; k >= 1 is [2^(k-1), 2^k - 1]. */
static void bucket_bounds(unsigned k, uint64_t *lo, uint64_t *hi)
{
    assert(k < REP_NBUCKETS);
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

/* A communication matrix as the writers show it: its entries (by (src, dst)), its summary,
 * and its names. */
typedef struct matrix {
    const rep_map_t *m;
    const rep_pairs_t *sum;
    const char *name; /* file stem under -o: "matrix", "coll_matrix" */
    const char *what; /* for the SVG title */
} matrix_t;

typedef struct ctx {
    const char *path;
    plog_run_t *run;
    rep_t *rep;
    matrix_t p2p;             /* the application's point-to-point messages */
    matrix_t cm;              /* the messages inside collectives (rebuilt steps) */
    const char *outdir;
    int wrote_files;
    plog_callsites_t *cs;     /* the run's call-site table (empty for format-1 logs) */
    phasor_symbols_t *sym;
    plog_probeset_t probe;    /* the network probe's results (PHASOR_PROBE), if run */
    int have_probe;
    rep_probe_t probe_sum;    /* of probe, when have_probe */
    blk_call_t *blk;          /* calls threads were seen blocked in (PHASOR_FLUSH) */
    size_t n_blk;
} ctx_t;

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
    assert(s->nframes <= PLOG_SITE_MAX_FRAMES);
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

static const char *ended(const plog_rank_t *rk, char *buf, size_t cap)
{
    if (rk->complete)
        return "complete";
    snprintf(buf, cap, "truncated@%" PRIu64, rk->end_offset);
    return buf;
}

/* ---- files: matrix.csv and matrix.svg ---- */

/* One rank pair of a matrix: src, dst, messages, bytes_min, bytes_max, bytes_sum, as a CSV
 * line, a text table line or a JSON array. */
enum pair_fmt { PAIR_CSV, PAIR_TEXT, PAIR_JSON };

static void pair_row(FILE *o, enum pair_fmt fmt, const rep_stat_t *s)
{
    fprintf(o,
            fmt == PAIR_CSV    ? "%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n"
            : fmt == PAIR_TEXT ? "%8u %8u %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %16" PRIu64 "\n"
                               : "[%u, %u, %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "]",
            (unsigned)(s->key >> 32), (unsigned)(s->key & 0xffffffffu), s->count, s->bytes_min,
            s->bytes_max, s->bytes_sum);
}

/* What could not be written, named, on stderr; -1. */
static int out_error(const char *dir, const char *name)
{
    fprintf(stderr, "phasor report: %s%s%s: %s\n", dir, name ? "/" : "", name ? name : "",
            errno == ELOOP && !name ? "a symbolic link that is not yours; not followed"
                                    : strerror(errno));
    return -1;
}

static int write_pairs(ctx_t *c, int dirfd, const matrix_t *mx)
{
    const rep_map_t *m = mx->m;
    char name[64];
    snprintf(name, sizeof(name), "%s.csv", mx->name);
    ofile_t of;
    if (ofile_open(&of, dirfd, name) != 0)
        return out_error(c->outdir, name);
    fprintf(of.f, "src,dst,messages,bytes_min,bytes_max,bytes_sum\n");
    for (size_t i = 0; i < m->n; i++)
        pair_row(of.f, PAIR_CSV, &m->v[i]);
    if (ofile_close(&of, 1) != 0)
        return out_error(c->outdir, name);

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
    for (size_t i = 0; i < m->n; i++) {
        const rep_stat_t *s = &m->v[i];
        size_t k = (size_t)((s->key >> 32) / (uint64_t)block) * g +
                   (size_t)((s->key & 0xffffffffu) / (uint64_t)block);
        assert(k < (size_t)g * g);
        val[k] += (double)s->bytes_sum;
        cnt[k] += s->count;
    }
    snprintf(name, sizeof(name), "%s.svg", mx->name);
    int rc = -1;
    if (ofile_open(&of, dirfd, name) == 0) {
        char title[4200];
        snprintf(title, sizeof(title), "phasor: %s of %s (%d ranks)", mx->what, c->path,
                 (int)world);
        rc = svg_heatmap(of.f, title, world, g, block, val, cnt);
        if (ofile_close(&of, rc == 0) != 0)
            rc = -1;
    }
    free(val);
    free(cnt);
    return rc == 0 ? 0 : out_error(c->outdir, name);
}

static int write_matrix(ctx_t *c)
{
    int dirfd = ofile_dir_open(c->outdir);
    if (dirfd < 0)
        return out_error(c->outdir, NULL);
    int rc = write_pairs(c, dirfd, &c->p2p) != 0 || write_pairs(c, dirfd, &c->cm) != 0 ? -1 : 0;
    close(dirfd);
    if (rc == 0)
        c->wrote_files = 1;
    return rc;
}

/* ---- text ---- */

static void text_ranks(FILE *o, const ctx_t *c)
{
    const rep_t *rep = c->rep;
    char buf[64];
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
                rr->app_ns / 1e6, rr->mpi_ns / 1e6, rr->mpi_pct, rr->events, end,
                host ? host : "?");
    }
    fprintf(o, "%6s %14.3f %14.3f %7.2f %12" PRIu64 "\n", "*", rep->app_total / 1e6,
            rep->mpi_total / 1e6, rep->mpi_pct, rep->events);

    fprintf(o, "\n@--- Load imbalance (imbalance = max / mean - 1)\n");
    fprintf(o, "%-8s %14s %14s %14s %10s %9s %9s\n", "", "min_ms", "mean_ms", "max_ms",
            "imbalance", "min_rank", "max_rank");
    for (int w = 0; w < REP_IMB__COUNT; w++) {
        const rep_imb_t *im = &rep->imb[w];
        fprintf(o, "%-8s %14.3f %14.3f %14.3f %10.4f %9d %9d\n", w == REP_IMB_MPI ? "MPI" : "app",
                im->min / 1e6, im->mean / 1e6, im->max / 1e6, im->imbalance, (int)im->min_rank,
                (int)im->max_rank);
    }
}

static void text_functions(FILE *o, const rep_t *rep)
{
    fprintf(o, "\n@--- MPI functions by time (all ranks and threads; %%mpi, %%app of the "
               "totals above)\n");
    fprintf(o, "%-20s %9s %11s %6s %6s %9s %9s %9s %12s\n", "function", "calls", "time_ms",
            "%mpi", "%app", "mean_us", "min_us", "max_us", "bytes");
    for (unsigned i = 0; i < rep->nfunc; i++) {
        const rep_func_t *fn = &rep->funcs[i];
        const rep_stat_t *s = &rep->func[fn->call];
        fprintf(o, "%-20.20s %9" PRIu64 " %11.3f %6.2f %6.2f %9.2f %9.2f %9.2f %12" PRIu64 "\n",
                short_name(fn->call), s->count, s->time_sum / 1e6, fn->pct_mpi, fn->pct_app,
                s->time_sum / 1e3 / (double)s->count, s->time_min / 1e3, s->time_max / 1e3,
                s->bytes_sum);
    }

    fprintf(o, "\n@--- Message sizes (bytes per call, log2 buckets)\n");
    fprintf(o, "%-20s %-22s %12s\n", "function", "bytes", "calls");
    for (unsigned i = 0; i < rep->nfunc; i++) {
        unsigned f = rep->funcs[i].call;
        for (unsigned k = 0; k < REP_NBUCKETS; k++) {
            if (rep->hist[f][k] == 0)
                continue;
            char buf[64];
            bucket_label(k, buf, sizeof(buf));
            fprintf(o, "%-20.20s %-22s %12" PRIu64 "\n", short_name(f), buf, rep->hist[f][k]);
        }
    }

    fprintf(o, "\n@--- Collectives by communicator size (0: unknown communicator)\n");
    fprintf(o, "%-20s %9s %11s %13s %11s %14s\n", "function", "comm_size", "calls", "time_ms",
            "mean_us", "bytes");
    for (size_t i = 0; i < rep->coll.n; i++) {
        const rep_stat_t *s = &rep->coll.v[i];
        fprintf(o, "%-20.20s %9u %11" PRIu64 " %13.3f %11.2f %14" PRIu64 "\n",
                short_name((unsigned)(s->key >> 32)), (unsigned)(s->key & 0xffffffffu),
                s->count, s->time_sum / 1e6, s->time_sum / 1e3 / (double)s->count,
                s->bytes_sum);
    }
    if (rep->coll.n == 0)
        fprintf(o, "(no collectives)\n");
}

/* Totals, where the files went, and the top pairs by bytes. */
static void text_pairs(FILE *o, const ctx_t *c, const matrix_t *mx)
{
    const rep_pairs_t *p = mx->sum;
    fprintf(o, "%zu rank pairs, %" PRIu64 " messages, %" PRIu64 " bytes\n", mx->m->n, p->msgs,
            p->bytes);
    if (c->wrote_files)
        fprintf(o, "written: %s/%s.csv, %s/%s.svg\n", c->outdir, mx->name, c->outdir, mx->name);
    else
        fprintf(o, "(phasor report -o DIR writes the whole matrix as DIR/%s.csv and "
                   "DIR/%s.svg)\n", mx->name, mx->name);
    if (p->ntop == 0)
        return;
    fprintf(o, "top %zu pairs by bytes:\n%8s %8s %12s %14s %14s %16s\n", p->ntop, "src", "dst",
            "messages", "bytes_min", "bytes_max", "bytes_sum");
    for (size_t i = 0; i < p->ntop; i++)
        pair_row(o, PAIR_TEXT, &p->top[i]);
}

static void text_matrices(FILE *o, const ctx_t *c)
{
    const rep_t *rep = c->rep;
    fprintf(o, "\n@--- Point-to-point matrix (sender side: Send/Isend/Sendrecv/Start of a "
               "send)\n");
    text_pairs(o, c, &c->p2p);
    fprintf(o, "\n@--- Collective-internal matrix (the messages inside collective calls, as the "
               "library's\n     algorithms send them: phasor steps)\n");
    fprintf(o, "%" PRIu64 " of %" PRIu64 " collective calls rebuilt", rep->coll_rebuilt,
            rep->coll_calls);
    for (int w = 1; w < RECON__COUNT; w++)
        if (rep->coll_skipped[w])
            fprintf(o, "; %" PRIu64 " not: %s", rep->coll_skipped[w],
                    recon_skip_name((recon_skip_t)w));
    fprintf(o, "\n");
    text_pairs(o, c, &c->cm);
}

static void text_sites(FILE *o, const ctx_t *c)
{
    const rep_map_t *sites = &c->rep->sites;
    fprintf(o, "\n@--- Top call sites\n");
    if (sites->n == 0) {
        fprintf(o, "call sites not recorded\n");
        return;
    }
    size_t n = sites->n < TOP_SITES ? sites->n : TOP_SITES;
    fprintf(o, "%zu of %zu (site, function) pairs by time; callers innermost first\n", n,
            sites->n);
    fprintf(o, "%10s %-20s %11s %13s %14s\n", "site", "function", "calls", "time_ms", "bytes");
    for (size_t i = 0; i < n; i++) {
        const rep_stat_t *s = &sites->v[i];
        uint32_t id = (uint32_t)(s->key >> 16);
        fprintf(o, "%10u %-20.20s %11" PRIu64 " %13.3f %14" PRIu64 "\n", (unsigned)id,
                short_name((unsigned)(s->key & 0xffff)), s->count, s->time_sum / 1e6,
                s->bytes_sum);
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
    const char *path, *why;
    int st;
    for (size_t i = 0; phasor_symbols_unresolved(c->sym, i, &path, &st, &why); i++)
        fprintf(o, "%s  %s: %s: %s\n", i ? "" : "modules not resolved (frames shown as "
                                                 "module+offset):\n",
                path, phasor_sym_status_name(st), why);
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
        const rep_probe_row_t *rows = c->probe_sum.row[way];
        int n = c->probe_sum.nrows[way];
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

static void text_endings(FILE *o, const ctx_t *c)
{
    int32_t world = c->rep->world_size;
    fprintf(o, "\n@--- How the logs ended, and the reader's warnings\n");
    int ntrunc = 0;
    for (int32_t r = 0; r < world; r++) {
        const plog_rank_t *rk = plog_run_rank(c->run, r);
        if (rk != NULL && !rk->complete) {
            fprintf(o, "rank %d: truncated at offset %" PRIu64 ", complete frames read: %s\n",
                    (int)r, rk->end_offset, rk->path);
            ntrunc++;
        }
    }
    fprintf(o, "%d of %d rank logs complete\n", (int)world - ntrunc, (int)world);
    uint64_t all = 0;
    int some = 0, nlost = 0;
    for (int32_t r = 0; r < world; r++) {
        const plog_rank_t *rk = plog_run_rank(c->run, r);
        if (rk == NULL)
            continue;
        plog_drops_t d;
        plog_rank_drops(rk, &d);
        uint64_t n = d.write_dropped + d.thread_dropped;
        if (n == 0 && d.write_errno == 0)
            continue;
        nlost++;
        all += n;
        some |= d.write_count != PLOG_DROPS_EXACT;
        fprintf(o, "rank %d: %s%" PRIu64 " events dropped", (int)r,
                d.write_count == PLOG_DROPS_EXACT ? "" : "at least ", n);
        if (d.write_errno && d.thread_dropped == 0)
            fprintf(o, ": writing the log failed (%s)%s", strerror(d.write_errno),
                    d.write_count == PLOG_DROPS_UNKNOWN ? ", the rank ended before it counted" : "");
        else if (d.write_errno)
            fprintf(o, ", %s%" PRIu64 " because writing the log failed (%s)%s",
                    d.write_count == PLOG_DROPS_EXACT ? "" : "at least ", d.write_dropped,
                    strerror(d.write_errno),
                    d.write_count == PLOG_DROPS_UNKNOWN ? ", the rank ended before it counted" : "");
        else if (d.write_dropped)
            fprintf(o, ", %" PRIu64 " because their buffers could not be written", d.write_dropped);
        if (d.thread_dropped)
            fprintf(o, ", %" PRIu64 " calls of threads over the thread budget", d.thread_dropped);
        fputc('\n', o);
    }
    if (nlost)
        fprintf(o, "%s%" PRIu64 " events dropped by %d rank%s (their logs do not hold them)\n",
                some ? "at least " : "", all, nlost, nlost == 1 ? "" : "s");
    size_t nw = nwarnings(c);
    fprintf(o, "%zu warning%s\n", nw, nw == 1 ? "" : "s");
    for (size_t i = 0; i < nw && i < TEXT_MAX_WARNINGS; i++)
        fprintf(o, "warning: %s\n", warning_at(c, i));
    if (nw > TEXT_MAX_WARNINGS)
        fprintf(o, "... and %zu more (all of them are in --json)\n", nw - TEXT_MAX_WARNINGS);
}

static int blk_is_p2p(const blk_call_t *b)
{
    int cls = plog_call_class(b->call);
    return cls == PLOG_CLASS_SEND || cls == PLOG_CLASS_RECV || cls == PLOG_CLASS_SENDRECV ||
           cls == PLOG_CLASS_PROBE;
}

/* "peer 3", "root 0", "" -- what a blocked call waits on, as the call's class says */
static void blk_peer(const blk_call_t *b, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (b->peer == PLOG_ANY_SOURCE)
        snprintf(buf, cap, "any source");
    else if (b->peer >= 0 && blk_is_p2p(b))
        snprintf(buf, cap, "peer %d", (int)b->peer);
    else if (b->peer >= 0)
        snprintf(buf, cap, "root %d", (int)b->peer);
}

static int blk_is_wait(const blk_call_t *b)
{
    return plog_call_class(b->call) == PLOG_CLASS_COMPLETE;
}

/* Shown only when there is something to show: a hang, at a glance. */
static void text_blocked(FILE *o, const ctx_t *c)
{
    if (c->n_blk == 0)
        return;
    size_t hung = 0;
    for (size_t i = 0; i < c->n_blk; i++)
        hung += c->blk[i].at_end != 0;
    fprintf(o, "\n@--- Blocked calls (inside one MPI call longer than PHASOR_FLUSH): %zu still "
               "blocked when the log ended%s\n",
            hung, hung ? " -- the job hung or was killed there" : "");
    fprintf(o, "  rank thread function          waits on           tag     comm   since_ms  "
               "blocked_ms  state\n");
    for (size_t i = 0; i < c->n_blk; i++) {
        const blk_call_t *b = &c->blk[i];
        char peer[32], tag[24];
        blk_peer(b, peer, sizeof(peer));
        if (blk_is_wait(b))
            snprintf(tag, sizeof(tag), "%d req", (int)b->tag);
        else if (b->tag == PLOG_ANY_TAG)
            snprintf(tag, sizeof(tag), "any");
        else if (blk_is_p2p(b))
            snprintf(tag, sizeof(tag), "%d", (int)b->tag);
        else
            snprintf(tag, sizeof(tag), "-");
        fprintf(o, "%6d %6u %-17s %-18s %-7s %4d %10.3f %11.3f  %s\n", (int)b->rank, b->thread,
                fname(b->call), peer[0] ? peer : "-", tag, (int)b->comm, b->since_ns / 1e6,
                (b->seen_ns - b->since_ns) / 1e6 , b->at_end ? "blocked at the end" : "returned");
    }
}

static void text_report(FILE *o, const ctx_t *c)
{
    fprintf(o, "phasor report: %s\n", c->path);
    fprintf(o, "world size %d, %" PRIu64 " events; times in ms unless marked, clocks aligned\n",
            (int)c->rep->world_size, c->rep->events);
    text_ranks(o, c);
    text_blocked(o, c);
    text_functions(o, c->rep);
    text_matrices(o, c);
    text_sites(o, c);
    text_probe(o, c);
    text_endings(o, c);
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

static void json_ranks(FILE *o, const ctx_t *c)
{
    const rep_t *rep = c->rep;
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
                first ? "\n  " : ",\n  ", (int)r, rr->app_ns, rr->mpi_ns, rr->mpi_pct,
                rr->events, rr->have_init ? "true" : "false",
                rr->have_finalize ? "true" : "false", rk->complete ? "complete" : "truncated");
        if (rk->complete)
            fprintf(o, "null");
        else
            fprintf(o, "%" PRIu64, rk->end_offset);
        const char *host = plog_rank_kv(rk, "hostname");
        fprintf(o, ", \"host\": ");
        jsonw_fstr(o, host);
        plog_drops_t d;
        plog_rank_drops(rk, &d);
        fprintf(o, ", \"dropped\": %" PRIu64 ", \"dropped_exact\": %s, \"dropped_write\": %"
                   PRIu64 ", \"write_error\": ", d.write_dropped + d.thread_dropped,
                d.write_count == PLOG_DROPS_EXACT && (d.threads_known || !d.write_errno) ? "true"
                                                                                       : "false",
                d.write_dropped);
        jsonw_fstr(o, d.write_errno ? strerror(d.write_errno) : NULL);
        fprintf(o, ", \"write_errno\": %d, \"dropped_threads\": ", d.write_errno);
        if (d.threads_known)
            fprintf(o, "%" PRIu64, d.thread_dropped);
        else
            fputs("null", o);
        fprintf(o, "}");
        first = 0;
    }
    fprintf(o, "\n],\n\"imbalance\": {");
    for (int w = 0; w < REP_IMB__COUNT; w++) {
        const rep_imb_t *im = &rep->imb[w];
        fprintf(o, "%s\"%s\": {\"min_ns\": %.0f, \"mean_ns\": %.1f, \"max_ns\": %.0f, "
                   "\"imbalance\": %.6f, \"min_rank\": %d, \"max_rank\": %d}",
                w ? ",\n  " : "\n  ", w == REP_IMB_MPI ? "mpi" : "app", im->min, im->mean,
                im->max, im->imbalance, (int)im->min_rank, (int)im->max_rank);
    }
    fprintf(o, "\n}");
}

static void json_functions(FILE *o, const rep_t *rep)
{
    fprintf(o, "\"functions\": [");
    for (unsigned i = 0; i < rep->nfunc; i++) {
        const rep_func_t *fn = &rep->funcs[i];
        fprintf(o, "%s{\"function\": \"%s\", ", i ? ",\n  " : "\n  ", fname(fn->call));
        jstat(o, &rep->func[fn->call]);
        fprintf(o, ", \"pct_mpi\": %.4f, \"pct_app\": %.4f}", fn->pct_mpi, fn->pct_app);
    }
    fprintf(o, "\n],\n\"histograms\": [");
    int first = 1;
    for (unsigned i = 0; i < rep->nfunc; i++) {
        unsigned f = rep->funcs[i].call;
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
    for (size_t i = 0; i < rep->coll.n; i++) {
        const rep_stat_t *s = &rep->coll.v[i];
        fprintf(o, "%s{\"function\": \"%s\", \"comm_size\": %u, ", i ? ",\n  " : "\n  ",
                fname((unsigned)(s->key >> 32)), (unsigned)(s->key & 0xffffffffu));
        jstat(o, s);
        fprintf(o, "}");
    }
    fprintf(o, "\n]");
}

/* "{pairs, messages, bytes, csv, svg, entries" of a matrix (the caller closes it). */
static void json_pairs(FILE *o, const ctx_t *c, const matrix_t *mx)
{
    const rep_map_t *m = mx->m;
    fprintf(o, "{\"pairs\": %zu, \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64
               ", \"csv\": ", m->n, mx->sum->msgs, mx->sum->bytes);
    if (c->wrote_files) {
        char p[4200];
        snprintf(p, sizeof(p), "%s/%s.csv", c->outdir, mx->name);
        jsonw_fstr(o, p);
        fprintf(o, ", \"svg\": ");
        snprintf(p, sizeof(p), "%s/%s.svg", c->outdir, mx->name);
        jsonw_fstr(o, p);
    } else {
        fprintf(o, "null, \"svg\": null");
    }
    fprintf(o, ",\n  \"entries\": [");
    for (size_t i = 0; i < m->n; i++) {
        fputs(i == 0 ? "" : i % 4 ? ", " : ",\n    ", o);
        pair_row(o, PAIR_JSON, &m->v[i]);
    }
    fprintf(o, "]");
}

static void json_matrices(FILE *o, const ctx_t *c)
{
    const rep_t *rep = c->rep;
    fprintf(o, "\"matrix\": ");
    json_pairs(o, c, &c->p2p);
    fprintf(o, "},\n\"coll_matrix\": ");
    json_pairs(o, c, &c->cm);
    fprintf(o, ",\n  \"calls\": %" PRIu64 ", \"calls_without_steps\": {", rep->coll_calls);
    const char *sep = "";
    for (int w = 1; w < RECON__COUNT; w++)
        if (rep->coll_skipped[w]) {
            fprintf(o, "%s\"%s\": %" PRIu64, sep, recon_skip_name((recon_skip_t)w),
                    rep->coll_skipped[w]);
            sep = ", ";
        }
    fprintf(o, "}}");
}

static void json_sites(FILE *o, const ctx_t *c)
{
    const rep_map_t *sites = &c->rep->sites;
    fprintf(o, "\"callsites_note\": \"%s\",\n\"callsites\": [",
            sites->n ? "top sites by time; stack innermost first" : "call sites not recorded");
    for (size_t i = 0; i < sites->n && i < TOP_SITES; i++) {
        const rep_stat_t *s = &sites->v[i];
        uint32_t id = (uint32_t)(s->key >> 16);
        phasor_sym_t st[PLOG_SITE_MAX_FRAMES];
        uint32_t nf = site_stack(c, id, st);
        const phasor_sym_t *in = nf ? &st[0] : NULL;
        fprintf(o, "%s{\"site\": %u, \"file\": ", i ? ",\n  " : "\n  ", (unsigned)id);
        jsonw_fstr(o, in ? in->file : NULL);
        fprintf(o, ", \"line\": ");
        jint_or_null(o, in ? in->line : 0);
        fprintf(o, ", \"caller\": ");
        jsonw_fstr(o, in ? in->function : NULL);
        fprintf(o, ", \"function\": \"%s\", ", fname((unsigned)(s->key & 0xffff)));
        jstat(o, s);
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
    fprintf(o, "%s],\n\"modules_unresolved\": [", sites->n ? "\n" : "");
    const char *path, *why;
    int st;
    size_t i = 0;
    for (; phasor_symbols_unresolved(c->sym, i, &path, &st, &why); i++) {
        fprintf(o, "%s{\"module\": ", i ? ",\n  " : "\n  ");
        jsonw_fstr(o, path);
        fprintf(o, ", \"status\": \"%s\", \"why\": ", phasor_sym_status_name(st));
        jsonw_fstr(o, why);
        fprintf(o, "}");
    }
    fprintf(o, "%s]", i ? "\n" : "");
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

static void json_report(FILE *o, const ctx_t *c)
{
    const rep_t *rep = c->rep;
    fprintf(o, "{\"format\": \"phasor-report\", \"version\": %d, \"path\": ", REPORT_JSON_VERSION);
    jsonw_fstr(o, c->path);
    fprintf(o, ", \"world_size\": %d, \"events\": %" PRIu64 ",\n", (int)rep->world_size,
            rep->events);
    fprintf(o, "\"totals\": {\"app_ns\": %" PRIu64 ", \"mpi_ns\": %" PRIu64 ", \"mpi_pct\": %.4f},\n",
            rep->app_total, rep->mpi_total, rep->mpi_pct);
    json_ranks(o, c);
    fprintf(o, ",\n");
    json_functions(o, rep);
    fprintf(o, ",\n");
    json_matrices(o, c);
    fprintf(o, ",\n");
    json_sites(o, c);
    fprintf(o, ",\n\"probe\": ");
    json_probe(o, c);
    fprintf(o, ",\n\"blocked\": [");
    for (size_t i = 0; i < c->n_blk; i++) {
        const blk_call_t *b = &c->blk[i];
        fprintf(o, "%s{\"rank\": %d, \"thread\": %u, \"function\": ", i ? ",\n  " : "\n  ",
                (int)b->rank, b->thread);
        jsonw_fstr(o, fname(b->call));
        fprintf(o, ", \"peer\": %d, \"tag\": %d, \"comm\": %d, \"request\": %" PRIu64
                   ", \"since_ns\": %" PRId64 ", \"seen_ns\": %" PRId64 ", \"at_end\": %s}",
                (int)b->peer, (int)b->tag, (int)b->comm, b->request, b->since_ns, b->seen_ns,
                b->at_end ? "true" : "false");
    }
    fprintf(o, "%s]", c->n_blk ? "\n" : "");
    fprintf(o, ",\n\"warnings\": [");
    for (size_t i = 0; i < nwarnings(c); i++) {
        fprintf(o, "%s", i ? ",\n  " : "\n  ");
        jsonw_fstr(o, warning_at(c, i));
    }
    fprintf(o, "%s]}\n", nwarnings(c) ? "\n" : "");
}

/* ---- the command ---- */

static void report_usage(FILE *f)
{
    fprintf(f,
            "Usage: phasor report <log-dir|rank-file> [--json] [-o OUTDIR]\n"
            "Profile of a run, as mpiP gives: application and MPI time per rank, load\n"
            "imbalance, time/calls/bytes per MPI function, message-size histograms,\n"
            "collectives by communicator size, the point-to-point communication matrix,\n"
            "how each rank's log ended, the events it dropped and why (a failed write such\n"
            "as a full disk, the thread budget), and the reader's warnings.\n"
            "\n"
            "  --json        one JSON object instead of text (doc/report-format.md, version %d)\n"
            "  -o, --outdir OUTDIR\n"
            "                write OUTDIR/matrix.csv and OUTDIR/matrix.svg (created if needed)\n"
            "  --symbol-path DIR\n"
            "                look the modules of call sites up under DIR (as DIR/recorded-path,\n"
            "                then DIR/base-name) instead of at their recorded paths; repeatable\n"
            "  --no-symbols  show call sites as module+offset, open no module file\n"
            "  -h, --help    this text\n"
            "\n"
            "A log names the modules its call sites are in; only absolute paths are opened,\n"
            "non-blocking, and read only if they are regular files of 1 byte to 4 GiB (a\n"
            "FIFO or device is never opened; doc/phasor.1). The modules not resolved are\n"
            "listed with the reason.\n"
            "\n"
            "Exit status: 0 success, 1 unreadable or damaged log (the reason names the file),\n"
            "2 bad usage. A log that ended early is read up to its last complete frame.\n",
            REPORT_JSON_VERSION);
}

#define REPORT_MAX_SYMPATHS 16

typedef struct report_opts {
    int json;
    const char *outdir; /* -o, or NULL */
    const char *path;   /* the log */
    int no_symbols;
    const char *sympath[REPORT_MAX_SYMPATHS];
    size_t nsympath;
} report_opts_t;

/* -1 when the command is to run, else the exit status (--help, bad usage). */
static int report_parse(int argc, char **argv, report_opts_t *opt)
{
    memset(opt, 0, sizeof(*opt));
    enum { O_SYMPATH = 256, O_NOSYM };
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"outdir", required_argument, NULL, 'o'},
                                         {"symbol-path", required_argument, NULL, O_SYMPATH},
                                         {"no-symbols", no_argument, NULL, O_NOSYM},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (ch) {
        case 'h':
            report_usage(stdout);
            return PHASOR_EXIT_OK;
        case 'j':
            opt->json = 1;
            break;
        case 'o':
            if (optarg[0] == '\0')
                return phasor_usage_error("report", "%s", "-o needs a directory");
            opt->outdir = optarg;
            break;
        case O_SYMPATH:
            if (optarg[0] == '\0')
                return phasor_usage_error("report", "%s", "--symbol-path needs a directory");
            if (opt->nsympath == REPORT_MAX_SYMPATHS)
                return phasor_usage_error("report", "at most %d --symbol-path directories",
                                          REPORT_MAX_SYMPATHS);
            opt->sympath[opt->nsympath++] = optarg;
            break;
        case O_NOSYM:
            opt->no_symbols = 1;
            break;
        default:
            if (ch == ':' && optopt == O_SYMPATH)
                return phasor_usage_error("report", "%s", "--symbol-path needs a directory");
            if (ch == ':' && optopt == 'o')
                return phasor_usage_error("report", "%s", "-o needs a directory");
            return phasor_getopt_error("report", ch, argv);
        }
    }
    int status = phasor_log_arg("report", argc, argv, 0, &opt->path);
    return status == PHASOR_EXIT_OK ? PHASOR_CONTINUE : status;
}

/* Warn on stderr about every rank whose times do not hang together (rep_inconsistent). */
static void warn_inconsistent(const ctx_t *c)
{
    const rep_t *rep = c->rep;
    for (int32_t r = 0; r < rep->world_size; r++) {
        const rep_rank_t *rr = &rep->ranks[r];
        if (rep_inconsistent(rep, r))
            fprintf(stderr, "phasor report: warning: %s: rank %d's MPI time (%.3f ms) exceeds "
                    "its time from MPI_Init to MPI_Finalize (%.3f ms); its times are "
                    "inconsistent\n", c->path, (int)r, rr->mpi_ns / 1e6, rr->app_ns / 1e6);
    }
}

/* Computes everything first (the statistics, the probe's summary), then writes the matrix
 * files and the report. */
static int report_run(const report_opts_t *opt)
{
    plog_error_t err;
    plog_run_t *run = NULL;
    int opened = phasor_open_run("report", opt->path, -1, &run);
    if (opened != PHASOR_EXIT_OK)
        return opened;
    static rep_t rep;
    static ctx_t c;
    memset(&c, 0, sizeof(c));
    int status = PHASOR_EXIT_INPUT;
    if (rep_compute(run, &rep, &err) != PLOG_OK)
        goto fail;
    if (plog_callsites_load(run, &c.cs, &err) != PLOG_OK)
        goto fail;
    plog_err_t pe = plog_probeset_load(run, &c.probe, &err);
    if (pe != PLOG_OK && pe != PLOG_E_MISSING)
        goto fail;
    c.have_probe = pe == PLOG_OK;
    if (c.have_probe && rep_probe_summarize(&c.probe, plog_run_path(run), &c.probe_sum,
                                            &err) != PLOG_OK)
        goto fail;
    size_t blk_bad = 0;
    if (blk_collect(run, &c.blk, &c.n_blk, &blk_bad) != 0) {
        plog_fail(&err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET, NULL);
        goto fail;
    }
    if (blk_bad)
        fprintf(stderr, "phasor report: %zu blocked-call note%s in %s could not be read\n",
                blk_bad, blk_bad == 1 ? "" : "s", plog_run_path(run));
    phasor_symopts_t so = {opt->no_symbols, opt->sympath, opt->nsympath};
    c.sym = phasor_symbols_new(&so);
    c.path = opt->path;
    c.run = run;
    c.rep = &rep;
    c.outdir = opt->outdir;
    c.p2p = (matrix_t){&rep.matrix, &rep.p2p, "matrix", "point-to-point messages"};
    c.cm = (matrix_t){&rep.coll_matrix, &rep.cm, "coll_matrix", "messages inside collectives"};
    warn_inconsistent(&c);

    status = PHASOR_EXIT_OK;
    if (opt->outdir != NULL && write_matrix(&c) != 0)
        status = PHASOR_EXIT_INPUT;
    if (status == PHASOR_EXIT_OK) {
        if (opt->json)
            json_report(stdout, &c);
        else
            text_report(stdout, &c);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "phasor report: writing the output: %s\n", strerror(errno));
            status = PHASOR_EXIT_INPUT;
        }
    }
    goto out;
fail:
    fprintf(stderr, "phasor report: %s\n", err.msg);
out:
    free(c.blk);
    phasor_symbols_free(c.sym);
    plog_callsites_free(c.cs);
    plog_probeset_free(&c.probe);
    rep_free(&rep);
    plog_run_close(run);
    return status;
}

int phasor_cmd_report(int argc, char **argv)
{
    report_opts_t opt;
    int st = report_parse(argc, argv, &opt);
    return st >= 0 ? st : report_run(&opt);
}
