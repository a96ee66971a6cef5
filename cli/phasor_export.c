/* phasor_export.c: `phasor export`: a log as a Chrome/Perfetto trace (Trace Event Format
 * JSON) or as CSV (doc/export-format.md). Streams the merged iterator: memory holds one event,
 * per-thread state, and the point-to-point messages still in flight (sends not yet matched to
 * a receive completion or the reverse), never the whole log. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hmap.h"
#include "ofile.h"
#include "phasor_cmd.h"
#include "phasor_export.h"
#include "phasor_out.h"
#include "phases.h"
#include "plog_reader.h"
#include "msg_match.h"
#include "tablew.h"
#include "vec.h"

enum { FMT_CHROME, FMT_CSV, FMT_OTF2, FMT_SIMGRID };

/* ---- per-thread state: where the last MPI call ended (compute = the gap) ---- */
typedef struct tstate {
    int32_t rank;
    uint16_t thread;
    int64_t last_end;
    int seen;
} tstate_t;

typedef struct rstate { /* per rank: MPI-time fraction counter window */
    int64_t win;        /* current window index */
    int64_t acc;        /* MPI ns in it */
    int named, active;
    tstate_t *t;
    size_t nt, cap;
} rstate_t;

static tstate_t *thread_of(rstate_t *r, int32_t rank, uint16_t thread)
{
    for (size_t i = 0; i < r->nt; i++)
        if (r->t[i].thread == thread)
            return &r->t[i];
    if (VEC_GROW(r->t, r->cap, r->nt + 1) != 0)
        return NULL;
    r->t[r->nt] = (tstate_t){rank, thread, 0, 0};
    return &r->t[r->nt++];
}

typedef struct xctx {
    out_t *o;      /* events / trace */
    out_t *msg;    /* messages CSV, or NULL */
    tablew_t csv;  /* --format csv: the events, on o */
    tablew_t mcsv; /* the messages, on msg */
    int fmt;
    int first;     /* JSON: no comma before the next element */
    int64_t W;     /* window of the MPI-time fraction */
    int32_t nr;    /* world size */
    rstate_t *rs;  /* by world rank */
    mm_t *m;       /* messages matched (analysis/msg_match.h) */
    uint64_t flows;
} xctx_t;

/* ---- Chrome / Perfetto: Trace Event Format JSON ---- */

/* Microseconds with ns precision, as the Trace Event Format expects. */
static void o_us(out_t *o, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        o_chr(o, '-');
    o_u64(o, a / 1000);
    o_chr(o, '.');
    char f[3] = {(char)('0' + a % 1000 / 100), (char)('0' + a % 100 / 10), (char)('0' + a % 10)};
    o_mem(o, f, 3);
}

static void j_open(xctx_t *x)
{
    if (!x->first)
        o_str(x->o, ",\n");
    x->first = 0;
}

static void j_pidtid(out_t *o, int32_t rank, uint16_t thread)
{
    o_str(o, "\"pid\":");
    o_i64(o, rank);
    o_str(o, ",\"tid\":");
    o_u64(o, thread);
}

/* The opening of a trace event: {"ph":"<ph>","name":<name> (the caller adds the rest). */
static void j_event(xctx_t *x, const char *ph, const char *name)
{
    j_open(x);
    o_str(x->o, "{\"ph\":\"");
    o_str(x->o, ph);
    o_str(x->o, "\",\"name\":");
    o_jstr(x->o, name);
}

/* A metadata event naming process pid. */
static void chrome_process_name(xctx_t *x, int32_t pid, const char *name)
{
    j_event(x, "M", "process_name");
    o_str(x->o, ",\"pid\":");
    o_i64(x->o, pid);
    o_str(x->o, ",\"args\":{\"name\":");
    o_jstr(x->o, name);
    o_str(x->o, "}}");
}

/* A counter track sample ("C" event): one named track per process, one series per name in
 * args. Phase metrics (theta_i per rank, R/S/E on a run-wide process) are further calls. */
static void chrome_counter(xctx_t *x, int32_t pid, const char *track, int64_t ts_ns,
                           const char *series, double value)
{
    char v[40];
    snprintf(v, sizeof(v), "%.6g", value);
    j_event(x, "C", track);
    o_str(x->o, ",\"pid\":");
    o_i64(x->o, pid);
    o_str(x->o, ",\"ts\":");
    o_us(x->o, ts_ns);
    o_str(x->o, ",\"args\":{");
    o_jstr(x->o, series);
    o_chr(x->o, ':');
    o_str(x->o, v);
    o_str(x->o, "}}");
}

/* The phase tracks (doc/phases-format.md, as `phasor phases` with its defaults): theta_i in
 * iterations on each rank's process, and the order parameter R, the synchronisation entropy
 * S and the potential energy E (tanh) on a process of their own ("phases", pid = world
 * size). A log without iterations to go by gets none; that is said on stderr, not an error. */
#define PHASE_POINTS 2000
static void phase_tracks(xctx_t *x, plog_run_t *run, int32_t nr)
{
    ph_mark_spec_t spec = {.mode = PH_MARK_AUTO, .level = PH_ANY_LEVEL, .every = 1};
    ph_marks_t m;
    ph_grid_t g;
    ph_topo_t topo;
    ph_timeline_t tl;
    plog_error_t err;
    memset(&m, 0, sizeof(m));
    memset(&topo, 0, sizeof(topo));
    memset(&tl, 0, sizeof(tl));
    double *theta = NULL, *scratch = NULL;
    if (ph_marks_find(run, &spec, &m, &err) != PLOG_OK) {
        fprintf(stderr, "phasor export: no phase tracks: %s\n", err.msg);
        goto out; /* m may hold what the search allocated */
    }
    if (ph_grid_make(&m, 0, PHASE_POINTS, &g) != 0 ||
        ph_marks_compute(run, &m, &topo, &err) != PLOG_OK ||
        ph_timeline_init(&tl, &m, NULL, &g) != 0 ||
        !(theta = malloc((size_t)nr * sizeof(double))) ||
        !(scratch = malloc((size_t)nr * sizeof(double)))) {
        fprintf(stderr, "phasor export: no phase tracks: the ranks' iterations do not "
                        "overlap, or out of memory\n");
        goto out;
    }
    ph_potential_t pot;
    osc_pot_parse("tanh", &pot);
    chrome_process_name(x, nr, "phases");
    for (size_t k = 0; k < g.n; k++) {
        int64_t t = g.t0 + (int64_t)k * g.dt;
        ph_timeline_at(&tl, k, theta);
        for (int32_t r = 0; r < nr; r++)
            if (theta[r] == theta[r]) /* not NaN: the rank has a phase here */
                chrome_counter(x, r, "phase", t, "theta_iterations", theta[r] / (2 * M_PI));
        double R, psi;
        ph_order(theta, (size_t)nr, &R, &psi);
        uint32_t nb;
        double S = ph_entropy(theta, (size_t)nr, psi, scratch, &nb, PH_ENTROPY_CIRCLE);
        double E = ph_energy(theta, &topo, &pot);
        chrome_counter(x, nr, "R", t, "R", R);
        chrome_counter(x, nr, "S", t, "S", S);
        chrome_counter(x, nr, "E", t, "E", E);
    }
out:
    free(theta);
    free(scratch);
    ph_timeline_free(&tl);
    ph_topo_free(&topo);
    ph_marks_free(&m);
}

static void chrome_slice(xctx_t *x, const char *name, const char *cat, int32_t rank,
                         uint16_t thread, int64_t s, int64_t e)
{
    j_event(x, "X", name);
    o_str(x->o, ",\"cat\":\"");
    o_str(x->o, cat);
    o_str(x->o, "\",");
    j_pidtid(x->o, rank, thread);
    o_str(x->o, ",\"ts\":");
    o_us(x->o, s);
    o_str(x->o, ",\"dur\":");
    o_us(x->o, e - s);
}

static void chrome_event(xctx_t *x, const plog_rec_t *e, int64_t s, int64_t end)
{
    out_t *o = x->o;
    chrome_slice(x, e->call_name, e->cls == PLOG_CLASS_STEP ? "step" : plog_class_name(e->cls),
                 e->rank, e->thread, s, end);
    o_str(o, ",\"args\":{\"comm\":");
    o_i64(o, e->comm);
    if (e->peer != PLOG_NONE)
        o_str(o, ",\"peer\":"), o_i64(o, e->peer);
    if (e->root != PLOG_NONE)
        o_str(o, ",\"root\":"), o_i64(o, e->root);
    if (e->tag != PLOG_NONE)
        o_str(o, ",\"tag\":"), o_i64(o, e->tag);
    o_str(o, ",\"bytes\":"), o_u64(o, e->bytes);
    o_str(o, ",\"rbytes\":"), o_u64(o, e->rbytes);
    o_str(o, ",\"callsite\":"), o_u64(o, e->callsite);
    if (e->n_status > 0 && e->status[0].source >= 0)
        o_str(o, ",\"source\":"), o_i64(o, e->status[0].source);
    if (e->ncalls > 1) /* a run of polls: its calls and the ns inside them */
        o_str(o, ",\"ncalls\":"), o_u64(o, e->ncalls), o_str(o, ",\"inside_ns\":"),
            o_u64(o, e->inside_ns);
    o_str(o, "}}");
}

static int64_t fdiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

static void frac_flush(xctx_t *x, int32_t rank, rstate_t *r, int64_t W)
{
    chrome_counter(x, rank, "MPI time fraction", r->win * W, "mpi", (double)r->acc / (double)W);
}

/* The start of window w + 1, or INT64_MAX past the end of time. */
static int64_t win_end(int64_t w, int64_t W)
{
    int64_t b;
    return __builtin_mul_overflow(w + 1, W, &b) ? INT64_MAX : b;
}

/* ns of a call's span [s, e) that were in MPI, at rate (1: all of them) */
static int64_t frac_part(int64_t ns, double rate)
{
    return rate == 1.0 ? ns : llround((double)ns * rate);
}

/* A counter holds its value until the next sample, so the windows a call covers whole get
 * one sample of 1.0 between them: the output grows with the calls, not with their length.
 * A run of polls is in MPI for a part of its span only (rate: its time inside over its
 * span), spread evenly over it: the application ran between its polls. */
static void frac_add(xctx_t *x, int32_t rank, rstate_t *r, int64_t s, int64_t e, int64_t W,
                     double rate)
{
    while (s < e) {
        int64_t w = fdiv(s, W);
        if (!r->active) {
            r->active = 1, r->win = w, r->acc = 0;
        } else if (w != r->win) {
            frac_flush(x, rank, r, W);
            if (w > r->win + 1)
                chrome_counter(x, rank, "MPI time fraction", win_end(r->win, W), "mpi", 0.0);
            r->win = w, r->acc = 0;
        }
        int64_t stop = win_end(w, W) < e ? win_end(w, W) : e;
        r->acc += frac_part(stop - s, rate);
        s = stop;
        int64_t last = fdiv(e, W); /* the window e falls in */
        if (s < e && last > w + 1) { /* windows w + 1 .. last - 1 are whole */
            frac_flush(x, rank, r, W);
            chrome_counter(x, rank, "MPI time fraction", s, "mpi", rate);
            r->win = last - 1, r->acc = frac_part(W, rate);
            s = win_end(last - 1, W);
        }
    }
}

/* Name a rank's process (on its first event) and a thread (on its first call). */
static void chrome_names(xctx_t *x, const plog_rec_t *e, rstate_t *r, const tstate_t *t)
{
    out_t *o = x->o;
    if (!r->named) {
        char nm[32];
        snprintf(nm, sizeof(nm), "rank %d", (int)e->rank);
        chrome_process_name(x, e->rank, nm);
        j_event(x, "M", "process_sort_index");
        o_str(o, ",\"pid\":");
        o_i64(o, e->rank);
        o_str(o, ",\"args\":{\"sort_index\":");
        o_i64(o, e->rank);
        o_str(o, "}}");
        r->named = 1;
    }
    if (!t->seen && e->cls != PLOG_CLASS_STEP) {
        char nm[32];
        snprintf(nm, sizeof(nm), "thread %u", (unsigned)e->thread);
        j_event(x, "M", "thread_name");
        o_chr(o, ',');
        j_pidtid(o, e->rank, e->thread);
        o_str(o, ",\"args\":{\"name\":");
        o_jstr(o, nm);
        o_str(o, "}}");
    }
}

/* One event into the trace: its slice, the compute gap before it, the MPI-time fraction.
 * 0, or -1 when out of memory. */
static int chrome_on_event(xctx_t *x, const plog_rec_t *e)
{
    if (e->rank < 0 || e->rank >= x->nr)
        return 0;
    rstate_t *r = &x->rs[e->rank];
    tstate_t *t = thread_of(r, e->rank, e->thread);
    if (!t)
        return -1;
    chrome_names(x, e, r, t);
    if (e->cls == PLOG_CLASS_STEP) {
        /* a transfer inside the collective being recorded: nests in its slice */
        chrome_event(x, e, e->start_ns, e->end_ns > e->start_ns ? e->end_ns : e->start_ns);
        return 0;
    }
    /* clock alignment rounds: a call may begin a ns before its predecessor ended; clamp so
     * that siblings never overlap */
    int64_t s = e->start_ns, end = e->end_ns;
    if (t->seen && s < t->last_end)
        s = t->last_end;
    if (end < s)
        end = s;
    if (t->seen && s > t->last_end) {
        chrome_slice(x, "compute", "compute", e->rank, e->thread, t->last_end, s);
        o_chr(x->o, '}');
    }
    chrome_event(x, e, s, end);
    double rate = 1.0;
    if (e->ncalls > 1 && e->t_end > e->t_start && e->inside_ns < e->t_end - e->t_start)
        rate = (double)e->inside_ns / (double)(e->t_end - e->t_start);
    frac_add(x, e->rank, r, s, end, x->W, rate);
    t->seen = 1;
    t->last_end = end;
    return 0;
}

/* ---- messages: matched ends become flows (Chrome) and rows (-m) ---- */

/* One end of a flow event: head (its "ph" and the fields before "id"), then id, the
 * slice's process and thread, and the time. */
static void flow_end(out_t *o, const char *head, uint64_t id, const mm_end_t *m, int64_t ts)
{
    o_str(o, head);
    o_u64(o, id);
    o_chr(o, ',');
    j_pidtid(o, m->rank, m->thread);
    o_str(o, ",\"ts\":");
    o_us(o, ts);
    o_chr(o, '}');
}

static const tablew_col_t msg_cols[] = {
    {"src", TABLEW_INT, 0},  {"dst", TABLEW_INT, 0},           {"tag", TABLEW_INT, 0},
    {"comm", TABLEW_INT, 0}, {"bytes", TABLEW_INT, 0},         {"send_start_ns", TABLEW_INT, 0},
    {"send_end_ns", TABLEW_INT, 0}, {"recv_end_ns", TABLEW_INT, 0}};

/* A matched message: a flow from the send's start to the receive's completion (Chrome) and
 * a row (-m). */
static int on_message(void *arg, const mm_msg_t *k)
{
    xctx_t *x = arg;
    uint64_t id = ++x->flows;
    if (x->fmt == FMT_CHROME) {
        j_open(x);
        flow_end(x->o, "{\"ph\":\"s\",\"name\":\"message\",\"cat\":\"p2p\",\"id\":", id,
                 &k->send, k->send.start);
        o_str(x->o, ",\n");
        flow_end(x->o, "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"message\",\"cat\":\"p2p\",\"id\":",
                 id, &k->recv, k->recv.end);
    }
    if (!x->msg)
        return 0;
    tablew_row_t w = TABLEW_ROW(&x->mcsv, msg_cols);
    tablew_i64(&w, k->src);
    tablew_i64(&w, k->dst);
    tablew_i64(&w, k->tag);
    tablew_i64(&w, k->comm);
    tablew_u64(&w, k->send.bytes);
    tablew_i64(&w, k->send.start);
    tablew_i64(&w, k->send.end);
    tablew_i64(&w, k->recv.end);
    tablew_row_end(&w);
    return 0;
}

/* ---- CSV: one row per event ---- */

static const tablew_col_t export_cols[] = {
    {"rank", TABLEW_INT, 0},  {"thread", TABLEW_INT, 0},  {"call", TABLEW_NAME, 0},
    {"start_ns", TABLEW_INT, 0}, {"end_ns", TABLEW_INT, 0}, {"comm", TABLEW_INT, 0},
    {"peer", TABLEW_INT, 0},  {"tag", TABLEW_INT, 0},     {"bytes", TABLEW_INT, 0},
    {"root", TABLEW_INT, 0},  {"request", TABLEW_INT, 0}, {"rbytes", TABLEW_INT, 0},
    {"rc", TABLEW_INT, 0},    {"flags", TABLEW_INT, 0},   {"class", TABLEW_NAME, 0},
    {"source", TABLEW_INT, 0}, {"callsite", TABLEW_INT, 0}};

static void csv_event(tablew_t *t, const plog_rec_t *e)
{
    tablew_row_t r = TABLEW_ROW(t, export_cols);
    tablew_i64(&r, e->rank);
    tablew_u64(&r, e->thread);
    tablew_name(&r, e->call_name);
    tablew_i64(&r, e->start_ns);
    tablew_i64(&r, e->end_ns);
    tablew_i64(&r, e->comm);
    tablew_i64(&r, e->peer);
    tablew_i64(&r, e->tag);
    tablew_u64(&r, e->bytes);
    tablew_i64(&r, e->root);
    tablew_u64(&r, e->request);
    tablew_u64(&r, e->rbytes);
    tablew_i64(&r, e->rc);
    tablew_u64(&r, e->flags);
    tablew_name(&r, plog_class_name(e->cls));
    tablew_i64(&r, e->n_status > 0 ? e->status[0].source : PLOG_NONE);
    tablew_u64(&r, e->callsite);
    tablew_row_end(&r);
}

/* ---- options ---- */

typedef struct export_opts {
    int fmt;
    const char *opath, *mpath; /* -o, -m (NULL: none) */
    int64_t window;
    const char *path;
} export_opts_t;

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: phasor export [options] LOG_DIR\n"
            "Writes a log in another format (doc/export-format.md), streaming.\n\n"
            "  -f, --format FMT      otf2: an OTF2 archive in the new directory -o DIR (when built\n"
            "                        with libotf2; read it with otf2-print, Vampir, Score-P tools);\n"
            "                        chrome: Trace Event Format JSON for Perfetto / chrome://tracing\n"
            "                        (MPI slices, compute gaps, message flows, counter tracks);\n"
            "                        csv: one row per event;\n"
            "                        simgrid: SimGrid 3.32 time-independent traces (one per rank,\n"
            "                        traces.txt), platform.xml with the probe's links, hostfile\n"
            "                        and run.sh (smpirun -replay) in the directory -o DIR\n"
            "  -o, --output FILE     write there instead of standard output\n"
            "  -m, --messages FILE   also write the matched messages as CSV\n"
            "  -w, --window NS       window of the MPI-time-fraction counter (default 1000000)\n"
            "  -h, --help            this text\n\n"
            "Exit status: 0 success, 1 unreadable or damaged log or unwritable output, 2 bad usage.\n");
}

/* PHASOR_CONTINUE with *op filled, or the exit status (--help, bad usage). */
static int export_parse(int argc, char **argv, export_opts_t *op)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"messages", required_argument, NULL, 'm'},
                                         {"window", required_argument, NULL, 'w'},
                                         {NULL, 0, NULL, 0}};
    *op = (export_opts_t){.fmt = -1, .window = 1000000};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hf:o:m:w:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return PHASOR_EXIT_OK;
        case 'f':
            if (strcmp(optarg, "chrome") == 0 || strcmp(optarg, "perfetto") == 0)
                op->fmt = FMT_CHROME;
            else if (strcmp(optarg, "csv") == 0)
                op->fmt = FMT_CSV;
            else if (strcmp(optarg, "otf2") == 0)
                op->fmt = FMT_OTF2;
            else if (strcmp(optarg, "simgrid") == 0)
                op->fmt = FMT_SIMGRID;
            else
                return phasor_usage_error("export", "unknown format '%s' (otf2, chrome, csv, "
                                                    "simgrid)", optarg);
            break;
        case 'o':
            op->opath = optarg;
            break;
        case 'm':
            op->mpath = optarg;
            break;
        case 'w': {
            char *end;
            long long v = strtoll(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v <= 0)
                return phasor_usage_error("export", "--window needs a positive number of ns, "
                                                    "not '%s'", optarg);
            op->window = v;
            break;
        }
        default:
            return phasor_getopt_error("export", c, argv);
        }
    }
    if (op->fmt < 0)
        return phasor_usage_error("export", "%s", "which format? give --format otf2, chrome, csv "
                                                  "or simgrid");
    int st = phasor_log_arg("export", argc, argv, 1, &op->path);
    if (st != PHASOR_EXIT_OK)
        return st;
    if (op->fmt == FMT_OTF2 && (!op->opath || op->mpath))
        return phasor_usage_error("export", "%s", "--format otf2 needs -o DIR (a new directory) "
                                                  "and takes no -m");
    if (op->fmt == FMT_SIMGRID && (!op->opath || op->mpath || strcmp(op->opath, "-") == 0))
        return phasor_usage_error("export", "%s", "--format simgrid needs -o DIR (the directory "
                                                  "for its files) and takes no -m");
    return PHASOR_CONTINUE;
}

/* ---- outputs ---- */

/* An output file (ofile.h: written beside its name, renamed over it only when the whole
 * export succeeded; a failed export leaves no partial file, and a file already there is
 * replaced by a complete one or left as it was). NULL or "-": standard output. */
static int open_out(const char *path, ofile_t *of)
{
    if (ofile_open(of, AT_FDCWD, path ? path : "-") != 0) {
        fprintf(stderr, "phasor export: %s: cannot write: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Every byte out of the buffers; -1 (said on stderr) when they did not all get out. */
static int flush_out(out_t *o, const char *path)
{
    o_flush(o);
    if (fflush(o->f) != 0 || ferror(o->f)) {
        fprintf(stderr, "phasor export: %s: write failed: %s\n", path ? path : "standard output",
                strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

/* keep: the whole export succeeded, every output included: the file takes its name;
 * otherwise it is removed. -1 (said on stderr) when that failed. */
static int close_out(ofile_t *of, const char *path, int keep)
{
    if (ofile_close(of, keep) != 0 && keep) {
        fprintf(stderr, "phasor export: %s: cannot write: %s\n", path ? path : "standard output",
                strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- running ---- */

/* One event into the outputs; 0, or -1 when out of memory (said here). */
static int export_event(void *ctx, const plog_rec_t *e)
{
    xctx_t *x = ctx;
    if (mm_event(x->m, e, on_message, x) != 0 || (x->fmt == FMT_CHROME && chrome_on_event(x, e) != 0)) {
        fprintf(stderr, "phasor export: out of memory\n");
        return -1;
    }
    if (x->fmt == FMT_CSV)
        csv_event(&x->csv, e);
    return 0;
}

/* Every event of the run, merged by time, into the outputs, then the trace's run-wide
 * tracks and end; the exit status. */
static int export_stream(xctx_t *x, plog_run_t *run)
{
    int status = phasor_each_event("export", run, export_event, x);
    if (x->fmt == FMT_CHROME) {
        for (int32_t i = 0; i < x->nr; i++)
            if (x->rs[i].active)
                frac_flush(x, i, &x->rs[i], x->W);
        if (status == PHASOR_EXIT_OK)
            phase_tracks(x, run, x->nr);
        o_str(x->o, "\n]}\n");
    }
    return status;
}

/* The Chrome or CSV export of the opened run, with its messages; the exit status. Both
 * outputs or neither: the trace and its messages come from one pass. */
static int export_run(const export_opts_t *op, plog_run_t *run)
{
    static out_t o, mo;
    ofile_t of, mf = {0};
    if (open_out(op->opath, &of) != 0)
        return PHASOR_EXIT_INPUT;
    o.f = of.f, o.n = 0;
    if (op->mpath && open_out(op->mpath, &mf) != 0) {
        close_out(&of, op->opath, 0);
        return PHASOR_EXIT_INPUT;
    }
    mo.f = mf.f, mo.n = 0;
    int32_t nr = plog_run_world_size(run);
    xctx_t x = {.o = &o, .msg = op->mpath ? &mo : NULL, .fmt = op->fmt, .first = 1,
                .W = op->window, .nr = nr, .m = mm_new(nr)};
    x.rs = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*x.rs));
    int status = PHASOR_EXIT_OK;
    if (!x.rs || !x.m) {
        fprintf(stderr, "phasor export: out of memory\n");
        status = PHASOR_EXIT_INPUT;
    } else {
        if (x.msg)
            tablew_begin(&x.mcsv, x.msg, TABLEW_CSV, msg_cols,
                         TABLEW_NCOLS(msg_cols), NULL, 0);
        if (op->fmt == FMT_CSV)
            tablew_begin(&x.csv, &o, TABLEW_CSV, export_cols,
                         TABLEW_NCOLS(export_cols), NULL, 0);
        else
            o_str(&o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"format\":"
                      "\"phasor-export-chrome\",\"version\":1},\"traceEvents\":[\n");
        status = export_stream(&x, run);
    }
    /* both or neither: each file takes its name only when both were written whole */
    if (flush_out(&o, op->opath) != 0)
        status = PHASOR_EXIT_INPUT;
    if (mf.f && flush_out(&mo, op->mpath) != 0)
        status = PHASOR_EXIT_INPUT;
    if (close_out(&of, op->opath, status == PHASOR_EXIT_OK) != 0)
        status = PHASOR_EXIT_INPUT;
    if (mf.f && close_out(&mf, op->mpath, status == PHASOR_EXIT_OK) != 0)
        status = PHASOR_EXIT_INPUT;
    mm_counts_t mc = {0};
    if (x.m)
        mm_counts(x.m, &mc, NULL, NULL);
    if (status == PHASOR_EXIT_OK && mc.in_flight > 0)
        fprintf(stderr, "phasor export: %" PRIu64 " message ends left unmatched (peak %" PRIu64
                        " in flight)\n", mc.in_flight, mc.peak);
    mm_free(x.m);
    if (x.rs)
        for (int32_t i = 0; i < nr; i++)
            free(x.rs[i].t);
    free(x.rs);
    return status;
}

int phasor_cmd_export(int argc, char **argv)
{
    export_opts_t op;
    int status = export_parse(argc, argv, &op);
    if (status != PHASOR_CONTINUE)
        return status;
    plog_run_t *run;
    status = phasor_open_run("export", op.path, -1, &run);
    if (status != PHASOR_EXIT_OK)
        return status;
    status = op.fmt == FMT_OTF2      ? phasor_export_otf2(run, op.opath)
             : op.fmt == FMT_SIMGRID ? phasor_export_simgrid(run, op.opath)
                                     : export_run(&op, run);
    if (status == PHASOR_EXIT_OK && op.fmt != FMT_OTF2)
        phasor_print_warnings("export", run);
    plog_run_close(run);
    return status;
}
