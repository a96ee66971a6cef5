/* phasor_export.c: `phasor export`: a log as a Chrome/Perfetto trace (Trace Event Format
 * JSON) or as CSV (doc/export-format.md). Streams the merged iterator: memory holds one event,
 * per-thread state, and the point-to-point messages still in flight (sends not yet matched to
 * a receive completion or the reverse), never the whole log. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "phasor_cmd.h"
#include "phasor_export.h"
#include "phasor_out.h"
#include "phases.h"
#include "plog_reader.h"

#define EXPORT_CSV_HEADER                                                                     \
    "rank,thread,call,start_ns,end_ns,comm,peer,tag,bytes,root,request,rbytes,rc,flags,class," \
    "source,callsite\n"
#define EXPORT_MSG_HEADER "src,dst,tag,comm,bytes,send_start_ns,send_end_ns,recv_end_ns\n"

enum { FMT_CHROME, FMT_CSV, FMT_OTF2 };

/* ---- message matching: FIFO per (comm, src, dst, tag), MPI's non-overtaking order ---- */
typedef struct mend { /* one side of a message not yet matched */
    struct mend *next;
    int64_t start, end; /* the slice it belongs to */
    int32_t rank;
    uint16_t thread;
    uint64_t bytes;
} mend_t;

typedef struct mkey {
    struct mkey *next;
    int32_t comm, src, dst, tag;
    mend_t *sh, *st, *rh, *rt; /* sends and receives waiting, head/tail */
} mkey_t;

typedef struct matcher {
    mkey_t **tab;
    size_t nb;
    uint64_t flows, in_flight, peak;
} matcher_t;

static size_t mhash(int32_t c, int32_t s, int32_t d, int32_t t, size_t nb)
{
    uint64_t h = (uint32_t)c;
    h = h * 0x9E3779B97F4A7C15ull ^ (uint32_t)s;
    h = h * 0x9E3779B97F4A7C15ull ^ (uint32_t)d;
    h = h * 0x9E3779B97F4A7C15ull ^ (uint32_t)t;
    return (size_t)((h * 0x9E3779B97F4A7C15ull) >> 20) % nb;
}

static mkey_t *mkey_get(matcher_t *m, int32_t c, int32_t s, int32_t d, int32_t t)
{
    size_t b = mhash(c, s, d, t, m->nb);
    for (mkey_t *k = m->tab[b]; k; k = k->next)
        if (k->comm == c && k->src == s && k->dst == d && k->tag == t)
            return k;
    mkey_t *k = calloc(1, sizeof(*k));
    if (!k)
        return NULL;
    k->comm = c, k->src = s, k->dst = d, k->tag = t;
    k->next = m->tab[b];
    m->tab[b] = k;
    return k;
}

typedef struct xctx {
    out_t *o;      /* events / trace */
    out_t *msg;    /* messages CSV, or NULL */
    int fmt;
    int first;     /* JSON: no comma before the next element */
    matcher_t m;
} xctx_t;

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

/* A counter track sample ("C" event): one named track per process, one series per name in
 * args. Phase metrics (theta_i per rank, R/S/E on a run-wide process) are further calls. */
static void chrome_counter(xctx_t *x, int32_t pid, const char *track, int64_t ts_ns,
                           const char *series, double value)
{
    char v[40];
    snprintf(v, sizeof(v), "%.6g", value);
    j_open(x);
    o_str(x->o, "{\"ph\":\"C\",\"name\":");
    o_jstr(x->o, track);
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
        return;
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
    ph_potential_parse("tanh", &pot);
    j_open(x);
    o_str(x->o, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
    o_i64(x->o, nr);
    o_str(x->o, ",\"args\":{\"name\":\"phases\"}}");
    for (size_t k = 0; k < g.n; k++) {
        int64_t t = g.t0 + (int64_t)k * g.dt;
        ph_timeline_at(&tl, k, theta);
        for (int32_t r = 0; r < nr; r++)
            if (theta[r] == theta[r]) /* not NaN: the rank has a phase here */
                chrome_counter(x, r, "phase", t, "theta_iterations", theta[r] / (2 * M_PI));
        double R, psi;
        ph_order(theta, (size_t)nr, &R, &psi);
        uint32_t nb;
        double S = ph_entropy(theta, (size_t)nr, psi, scratch, &nb);
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

static void flow_pair(xctx_t *x, const mend_t *s, const mend_t *r)
{
    uint64_t id = ++x->m.flows;
    if (x->fmt == FMT_CHROME) {
        j_open(x);
        o_str(x->o, "{\"ph\":\"s\",\"name\":\"message\",\"cat\":\"p2p\",\"id\":");
        o_u64(x->o, id);
        o_chr(x->o, ',');
        j_pidtid(x->o, s->rank, s->thread);
        o_str(x->o, ",\"ts\":");
        o_us(x->o, s->start);
        o_str(x->o, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"message\",\"cat\":\"p2p\",\"id\":");
        o_u64(x->o, id);
        o_chr(x->o, ',');
        j_pidtid(x->o, r->rank, r->thread);
        o_str(x->o, ",\"ts\":");
        o_us(x->o, r->end);
        o_chr(x->o, '}');
    }
}

static void msg_row(xctx_t *x, const mkey_t *k, const mend_t *s, const mend_t *r)
{
    out_t *o = x->msg;
    if (!o)
        return;
    o_i64(o, k->src), o_chr(o, ','), o_i64(o, k->dst), o_chr(o, ','), o_i64(o, k->tag);
    o_chr(o, ','), o_i64(o, k->comm), o_chr(o, ','), o_u64(o, s->bytes), o_chr(o, ',');
    o_i64(o, s->start), o_chr(o, ','), o_i64(o, s->end), o_chr(o, ','), o_i64(o, r->end);
    o_chr(o, '\n');
}

/* One side of a message: matched against the oldest waiting other side, else queued. */
static int msg_side(xctx_t *x, int is_send, int32_t comm, int32_t src, int32_t dst, int32_t tag,
                    const plog_rec_t *e, uint64_t bytes)
{
    if (src < 0 || dst < 0 || tag < 0)
        return 0; /* PROC_NULL, unresolved source: no message */
    mkey_t *k = mkey_get(&x->m, comm, src, dst, tag);
    if (!k)
        return -1;
    mend_t me = {NULL, e->start_ns, e->end_ns, e->rank, e->thread, bytes};
    mend_t **oh = is_send ? &k->rh : &k->sh, **ot = is_send ? &k->rt : &k->st;
    if (*oh) {
        mend_t *other = *oh;
        *oh = other->next;
        if (!*oh)
            *ot = NULL;
        const mend_t *s = is_send ? &me : other, *r = is_send ? other : &me;
        flow_pair(x, s, r);
        msg_row(x, k, s, r);
        free(other);
        x->m.in_flight--;
        return 0;
    }
    mend_t *n = malloc(sizeof(*n));
    if (!n)
        return -1;
    *n = me;
    mend_t **h = is_send ? &k->sh : &k->rh, **t = is_send ? &k->st : &k->rt;
    if (*t)
        (*t)->next = n;
    else
        *h = n;
    *t = n;
    if (++x->m.in_flight > x->m.peak)
        x->m.peak = x->m.in_flight;
    return 0;
}

static int messages(xctx_t *x, const plog_rec_t *e)
{
    int rc = 0;
    switch (e->cls) {
    case PLOG_CLASS_SEND:
    case PLOG_CLASS_ISEND:
        rc = msg_side(x, 1, e->comm, e->rank, e->peer, e->tag, e, e->bytes);
        break;
    case PLOG_CLASS_SENDRECV:
        rc = msg_side(x, 1, e->comm, e->rank, e->peer, e->tag, e, e->bytes);
        if (rc == 0 && e->n_status > 0)
            rc = msg_side(x, 0, e->comm, e->status[0].source, e->rank, e->status[0].tag, e,
                          e->status[0].bytes);
        break;
    case PLOG_CLASS_RECV: {
        int32_t src = e->peer, tag = e->tag;
        if (e->n_status > 0 && e->status[0].source >= 0)
            src = e->status[0].source, tag = e->status[0].tag;
        rc = msg_side(x, 0, e->comm, src, e->rank, tag, e, e->rbytes);
        break;
    }
    case PLOG_CLASS_COMPLETE:
        /* a nonblocking receive completes here; the status holds its real source */
        for (uint32_t i = 0; i < e->n_status && rc == 0; i++) {
            const plog_rstatus_t *st = &e->status[i];
            if (!st->start || st->start->cls != PLOG_CLASS_IRECV || st->cancelled)
                continue;
            int32_t src = st->source >= 0 ? st->source : st->start->peer;
            int32_t tag = st->tag >= 0 ? st->tag : st->start->tag;
            rc = msg_side(x, 0, st->start->comm, src, e->rank, tag, e, st->bytes);
        }
        break;
    default:
        break;
    }
    return rc;
}

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
    size_t nt;
} rstate_t;

static tstate_t *thread_of(rstate_t *r, int32_t rank, uint16_t thread)
{
    for (size_t i = 0; i < r->nt; i++)
        if (r->t[i].thread == thread)
            return &r->t[i];
    tstate_t *nt = realloc(r->t, (r->nt + 1) * sizeof(*nt));
    if (!nt)
        return NULL;
    r->t = nt;
    r->t[r->nt] = (tstate_t){rank, thread, 0, 0};
    return &r->t[r->nt++];
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

/* A counter holds its value until the next sample, so the windows a call covers whole get
 * one sample of 1.0 between them: the output grows with the calls, not with their length. */
static void frac_add(xctx_t *x, int32_t rank, rstate_t *r, int64_t s, int64_t e, int64_t W)
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
        r->acc += stop - s;
        s = stop;
        int64_t last = fdiv(e, W); /* the window e falls in */
        if (s < e && last > w + 1) { /* windows w + 1 .. last - 1 are whole */
            frac_flush(x, rank, r, W);
            chrome_counter(x, rank, "MPI time fraction", s, "mpi", 1.0);
            r->win = last - 1, r->acc = W;
            s = win_end(last - 1, W);
        }
    }
}

static void chrome_slice(xctx_t *x, const char *name, const char *cat, int32_t rank,
                         uint16_t thread, int64_t s, int64_t e)
{
    j_open(x);
    o_str(x->o, "{\"ph\":\"X\",\"name\":");
    o_jstr(x->o, name);
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
    o_str(o, "}}");
}

static void csv_event(out_t *o, const plog_rec_t *e)
{
    int32_t src = e->n_status > 0 ? e->status[0].source : PLOG_NONE;
    o_i64(o, e->rank), o_chr(o, ','), o_u64(o, e->thread), o_chr(o, ',');
    o_str(o, e->call_name), o_chr(o, ',');
    o_i64(o, e->start_ns), o_chr(o, ','), o_i64(o, e->end_ns), o_chr(o, ',');
    o_i64(o, e->comm), o_chr(o, ','), o_i64(o, e->peer), o_chr(o, ','), o_i64(o, e->tag);
    o_chr(o, ','), o_u64(o, e->bytes), o_chr(o, ','), o_i64(o, e->root), o_chr(o, ',');
    o_u64(o, e->request), o_chr(o, ','), o_u64(o, e->rbytes), o_chr(o, ',');
    o_i64(o, e->rc), o_chr(o, ','), o_u64(o, e->flags), o_chr(o, ',');
    o_str(o, plog_class_name(e->cls)), o_chr(o, ','), o_i64(o, src), o_chr(o, ',');
    o_u64(o, e->callsite), o_chr(o, '\n');
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: phasor export [options] LOG_DIR\n"
            "Writes a log in another format (doc/export-format.md), streaming.\n\n"
            "  -f, --format FMT      otf2: an OTF2 archive in the new directory -o DIR (when built\n"
            "                        with libotf2; read it with otf2-print, Vampir, Score-P tools);\n"
            "                        chrome: Trace Event Format JSON for Perfetto / chrome://tracing\n"
            "                        (MPI slices, compute gaps, message flows, counter tracks);\n"
            "                        csv: one row per event\n"
            "  -o, --output FILE     write there instead of standard output\n"
            "  -m, --messages FILE   also write the matched messages as CSV\n"
            "  -w, --window NS       window of the MPI-time-fraction counter (default 1000000)\n"
            "  -h, --help            this text\n\n"
            "Exit status: 0 success, 1 unreadable or damaged log or unwritable output, 2 bad usage.\n");
}

/* A regular file is written beside its name (PATH.partXXXXXX) and renamed over it only
 * when the whole export succeeded: a failed export leaves no partial file, and a file
 * already there is replaced by a complete one or left as it was. Anything else (a FIFO,
 * /dev/null) is written directly. tmp[0] = 0: written directly. */
static int open_out(const char *path, FILE **f, char *tmp, size_t cap)
{
    tmp[0] = '\0';
    *f = stdout;
    if (!path || strcmp(path, "-") == 0)
        return 0;
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        *f = fopen(path, "w");
    } else if ((size_t)snprintf(tmp, cap, "%s.partXXXXXX", path) >= cap) {
        errno = ENAMETOOLONG;
        *f = NULL;
    } else {
        mode_t um = umask(0);
        umask(um);
        int fd = mkstemp(tmp); /* 0600: given the mode fopen would have */
        *f = fd >= 0 && fchmod(fd, 0666 & ~um) == 0 ? fdopen(fd, "w") : NULL;
        if (!*f && fd >= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            errno = e;
        }
    }
    if (!*f) {
        tmp[0] = '\0';
        fprintf(stderr, "phasor export: %s: cannot write: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Flush and close; -1 (said on stderr) when the bytes did not all get out. */
static int finish_out(out_t *o, const char *path)
{
    o_flush(o);
    int bad = fflush(o->f) != 0 || ferror(o->f);
    if (o->f != stdout && fclose(o->f) != 0)
        bad = 1;
    if (bad)
        fprintf(stderr, "phasor export: %s: write failed: %s\n", path ? path : "standard output",
                strerror(errno));
    return bad ? -1 : 0;
}

/* keep: the whole export succeeded, every output included: the file takes its name;
 * otherwise it is removed. */
static int commit_out(const char *path, const char *tmp, int keep)
{
    if (!tmp[0])
        return 0;
    if (keep && rename(tmp, path) != 0) {
        fprintf(stderr, "phasor export: %s: cannot write: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (!keep)
        unlink(tmp);
    return 0;
}

int phasor_cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"messages", required_argument, NULL, 'm'},
                                         {"window", required_argument, NULL, 'w'},
                                         {NULL, 0, NULL, 0}};
    int fmt = -1, c;
    const char *opath = NULL, *mpath = NULL;
    int64_t W = 1000000;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hf:o:m:w:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return PHASOR_EXIT_OK;
        case 'f':
            if (strcmp(optarg, "chrome") == 0 || strcmp(optarg, "perfetto") == 0)
                fmt = FMT_CHROME;
            else if (strcmp(optarg, "csv") == 0)
                fmt = FMT_CSV;
            else if (strcmp(optarg, "otf2") == 0)
                fmt = FMT_OTF2;
            else
                return phasor_usage_error("export", "unknown format '%s' (otf2, chrome, csv)",
                                          optarg);
            break;
        case 'o':
            opath = optarg;
            break;
        case 'm':
            mpath = optarg;
            break;
        case 'w': {
            char *end;
            long long v = strtoll(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v <= 0)
                return phasor_usage_error("export", "--window needs a positive number of ns, "
                                                    "not '%s'", optarg);
            W = v;
            break;
        }
        case ':':
            return phasor_usage_error("export", "%s needs a value", argv[optind - 1]);
        default:
            return phasor_usage_error("export", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (fmt < 0)
        return phasor_usage_error("export", "%s", "which format? give --format otf2, chrome or csv");
    if (optind >= argc)
        return phasor_usage_error("export", "%s", "which log? give a log directory");
    if (argc - optind > 1)
        return phasor_usage_error("export", "unexpected argument '%s'", argv[optind + 1]);
    const char *path = argv[optind];

    if (fmt == FMT_OTF2 && (!opath || mpath))
        return phasor_usage_error("export", "%s", "--format otf2 needs -o DIR (a new directory) "
                                                  "and takes no -m");
    plog_error_t err;
    plog_run_t *run = NULL;
    if (plog_run_open(path, &run, &err) != PLOG_OK) {
        fprintf(stderr, "phasor export: %s\n", err.msg);
        return err.code == PLOG_E_USAGE ? PHASOR_EXIT_USAGE : PHASOR_EXIT_INPUT;
    }
    if (fmt == FMT_OTF2) {
        int st = phasor_export_otf2(run, opath);
        plog_run_close(run);
        return st;
    }
    static out_t o, mo;
    static char otmp[PATH_MAX + 16], mtmp[PATH_MAX + 16];
    FILE *of = NULL, *mf = NULL;
    if (open_out(opath, &of, otmp, sizeof(otmp)) != 0) {
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }
    if (mpath && open_out(mpath, &mf, mtmp, sizeof(mtmp)) != 0) {
        o.f = of, o.n = 0;
        finish_out(&o, opath);
        commit_out(opath, otmp, 0);
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }
    o.f = of, o.n = 0;
    mo.f = mf, mo.n = 0;
    int32_t nr = plog_run_world_size(run);
    xctx_t x = {&o, mpath ? &mo : NULL, fmt, 1, {NULL, 4096, 0, 0, 0}};
    x.m.tab = calloc(x.m.nb, sizeof(*x.m.tab));
    rstate_t *rs = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*rs));
    int status = PHASOR_EXIT_OK;
    plog_iter_t *it = NULL;
    if (!x.m.tab || !rs) {
        fprintf(stderr, "phasor export: out of memory\n");
        status = PHASOR_EXIT_INPUT;
        goto done;
    }
    if (x.msg)
        o_str(x.msg, EXPORT_MSG_HEADER);
    if (fmt == FMT_CSV)
        o_str(&o, EXPORT_CSV_HEADER);
    else
        o_str(&o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"format\":\"phasor-export-chrome\","
                  "\"version\":1},\"traceEvents\":[\n");
    if (plog_iter_open(run, PLOG_ALL_RANKS, &it, &err) != PLOG_OK) {
        fprintf(stderr, "phasor export: %s\n", err.msg);
        status = PHASOR_EXIT_INPUT;
        goto done;
    }
    const plog_rec_t *e;
    plog_err_t ie;
    while ((ie = plog_iter_next(it, &e, &err)) == PLOG_OK && e != NULL) {
        if (messages(&x, e) != 0) {
            fprintf(stderr, "phasor export: out of memory\n");
            status = PHASOR_EXIT_INPUT;
            break;
        }
        if (fmt == FMT_CSV) {
            csv_event(&o, e);
            continue;
        }
        if (e->rank < 0 || e->rank >= nr)
            continue;
        rstate_t *r = &rs[e->rank];
        if (!r->named) {
            char nm[32];
            snprintf(nm, sizeof(nm), "rank %d", (int)e->rank);
            j_open(&x);
            o_str(&o, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
            o_i64(&o, e->rank);
            o_str(&o, ",\"args\":{\"name\":");
            o_jstr(&o, nm);
            o_str(&o, "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":");
            o_i64(&o, e->rank);
            o_str(&o, ",\"args\":{\"sort_index\":");
            o_i64(&o, e->rank);
            o_str(&o, "}}");
            r->named = 1;
        }
        tstate_t *t = thread_of(r, e->rank, e->thread);
        if (!t) {
            fprintf(stderr, "phasor export: out of memory\n");
            status = PHASOR_EXIT_INPUT;
            break;
        }
        if (e->cls == PLOG_CLASS_STEP) {
            /* a transfer inside the collective being recorded: nests in its slice */
            chrome_event(&x, e, e->start_ns, e->end_ns > e->start_ns ? e->end_ns : e->start_ns);
            continue;
        }
        if (!t->seen) {
            char nm[32];
            snprintf(nm, sizeof(nm), "thread %u", (unsigned)e->thread);
            j_open(&x);
            o_str(&o, "{\"ph\":\"M\",\"name\":\"thread_name\",");
            j_pidtid(&o, e->rank, e->thread);
            o_str(&o, ",\"args\":{\"name\":");
            o_jstr(&o, nm);
            o_str(&o, "}}");
        }
        /* clock alignment rounds: a call may begin a ns before its predecessor ended; clamp so
         * that siblings never overlap */
        int64_t s = e->start_ns, end = e->end_ns;
        if (t->seen && s < t->last_end)
            s = t->last_end;
        if (end < s)
            end = s;
        if (t->seen && s > t->last_end)
            chrome_slice(&x, "compute", "compute", e->rank, e->thread, t->last_end, s),
                o_chr(&o, '}');
        chrome_event(&x, e, s, end);
        frac_add(&x, e->rank, r, s, end, W);
        t->seen = 1;
        t->last_end = end;
    }
    if (ie != PLOG_OK) {
        fprintf(stderr, "phasor export: %s\n", err.msg);
        status = PHASOR_EXIT_INPUT;
    }
    if (fmt == FMT_CHROME) {
        for (int32_t i = 0; i < nr; i++)
            if (rs[i].active)
                frac_flush(&x, i, &rs[i], W);
        if (status == PHASOR_EXIT_OK) {
            plog_iter_close(it);
            it = NULL;
            phase_tracks(&x, run, nr);
        }
        o_str(&o, "\n]}\n");
    }
done:
    if (it)
        plog_iter_close(it);
    if (finish_out(&o, opath) != 0)
        status = PHASOR_EXIT_INPUT;
    if (mf && finish_out(&mo, mpath) != 0)
        status = PHASOR_EXIT_INPUT;
    /* both outputs or neither: the trace and its messages come from one pass */
    if (commit_out(opath, otmp, status == PHASOR_EXIT_OK) != 0)
        status = PHASOR_EXIT_INPUT;
    if (mf && commit_out(mpath, mtmp, status == PHASOR_EXIT_OK) != 0)
        status = PHASOR_EXIT_INPUT;
    if (status == PHASOR_EXIT_OK && x.m.in_flight > 0)
        fprintf(stderr, "phasor export: %" PRIu64 " message ends left unmatched (peak %" PRIu64
                        " in flight)\n", x.m.in_flight, x.m.peak);
    if (x.m.tab) {
        for (size_t b = 0; b < x.m.nb; b++)
            for (mkey_t *k = x.m.tab[b], *kn; k; k = kn) {
                kn = k->next;
                for (mend_t *p = k->sh, *pn; p; p = pn)
                    pn = p->next, free(p);
                for (mend_t *p = k->rh, *pn; p; p = pn)
                    pn = p->next, free(p);
                free(k);
            }
        free(x.m.tab);
    }
    if (rs)
        for (int32_t i = 0; i < nr; i++)
            free(rs[i].t);
    free(rs);
    if (status == PHASOR_EXIT_OK)
        phasor_print_warnings("export", run);
    plog_run_close(run);
    return status;
}
