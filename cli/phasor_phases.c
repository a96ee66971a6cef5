/* phasor_phases.c: `phasor phases`: its options, and the writers of what the study of a log
 * (analysis/phases_study.h) computes: one CSV file per metric in an output directory, the
 * figures (phases_plot.h) and the summary as text or --json. The files are described in
 * doc/phases-format.md. */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ofile.h"
#include "phases_plot.h"
#include "phases_study.h"
#include "phasor_cmd.h"
#include "phasor_out.h"
#include "phasor_phases.h"
#include "plog_calls.h"
#include "plog_reader.h"
#include "vec.h"

#define PHASES_FORMAT 4       /* version of the files' layout, in the summary; 3: S on the
                               * circle's bins by default (--entropy); 4: the idle wave's
                               * source is the farthest-reaching delay, with its confidence */
#define DEFAULT_POINTS 20000  /* grid points at most, unless --points */

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: phasor phases <log-dir|rank-file> [-o OUT] [options]\n"
        "Phases of the ranks (theta_i(t), unwrapped, on the clock-aligned axis) and the\n"
        "coupled-oscillator metrics over them: order parameter R(t) and psi(t), dR/dt,\n"
        "synchronisation entropy, phase gradients, pairwise phase differences, potential\n"
        "energy, phase-circle and histogram snapshots, the time to resynchronise, the idle\n"
        "wave's speed and each rank's lag (doc/phases-format.md).\n"
        "\n"
        "Iteration boundaries (default: MPI_Pcontrol calls if any rank made two, else the\n"
        "call that occurs once per period of each rank's call sequence):\n"
        "  --marker pcontrol[:LEVEL]   MPI_Pcontrol calls (of one level)\n"
        "  --marker CALL[@SITE]        an MPI call (MPI_Allreduce or Allreduce), optionally at\n"
        "                              one call site (its id, as phasor report lists it)\n"
        "  --marker auto | period      the default / always the detected period\n"
        "  --every N                   every N-th occurrence is a boundary (default 1)\n"
        "  --skip N                    ignore the first N occurrences on each rank\n"
        "  --marker-end                a boundary is the marker call's end, not its start\n"
        "Phases and grid:\n"
        "  --compute-only              the phase advances only outside MPI calls\n"
        "  --dt NS                     grid step (default: median iteration period / 4)\n"
        "  --points N                  at most N grid points (default %d; dt grows)\n"
        "Metrics:\n"
        "  --topology log|all|FILE     T_ij: who received from whom in the log (default),\n"
        "                              every pair, or a file of lines \"i j\" (i receives from j)\n"
        "  --potential SPEC            V for E(t): sin, tanh, tanh:S (default tanh),\n"
        "                              piecewise[:SIGMA], fourier:A,B,N\n"
        "  --pairs auto|all|topo|LIST  pairs for dtheta.csv: LIST is i:j,i:j... (default auto:\n"
        "                              all pairs up to %d ranks, else the topology's)\n"
        "  --wrap                      pairwise differences wrapped to [-pi, pi)\n"
        "  --entropy circle|fd         S over N bins tiling the circle, one centred on psi\n"
        "                              (default), or the paper's Freedman-Diaconis bins over\n"
        "                              the phases' own range\n"

        "  --snapshots N               evenly spaced snapshots (default 5), plus min R\n"
        "  --at T[,T...]               snapshots at these times (ns) instead\n"
        "  --threshold R               resynchronised when R >= this (default 0.9)\n"
        "  --wave-frac F               idle wave: a delay is an excess over F x the source's\n"
        "                              (default 0.5)\n"
        "  --recover-frac F            recovered when R (smoothed over a period) regained F of\n"
        "                              its drop below the R before the delay (default 0.9)\n"
        "  --source R:K                the idle wave starts at rank R, iteration K (default:\n"
        "                              of the largest compute excesses, the one whose wave\n"
        "                              brings the most idle time to other ranks)\n"
        "  --reference LOG             the same run without the delay (same noise): the\n"
        "                              delay's own effect, rank by rank (twin.csv, \"twin\")\n"
        "Output:\n"
        "  -o, --out DIR               write one CSV per metric to DIR (created if needed)\n"
        "  --plots                     also write SVG figures and index.html into DIR (-o)\n"
        "  --heatmap wrapped|unwrapped the heatmap's differences wrapped to [-pi, pi), as the\n"
        "                              paper's (default), or as the phases differ\n"
        "  --json                      the summary as one JSON object on stdout\n"
        "  -h, --help                  this text\n"
        "\n"
        "Exit status: 0 success, 1 unreadable log or no usable iterations, 2 bad usage.\n",
        DEFAULT_POINTS, PH_ALL_PAIRS_UP_TO);
}

/* ---- options ---- */

typedef struct phases_opts {
    ph_study_opts_t study;
    const char *path;     /* the log */
    const char *out;      /* -o DIR, or NULL */
    const char *pot_text; /* --potential as given */
    int json, plots;
    int heat_unwrapped;   /* --heatmap unwrapped */
    int64_t *at;          /* --at, owned (study.at) */
    size_t at_cap;
} phases_opts_t;

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '\0')
        return -1;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno || *end != '\0')
        return -1;
    *v = x;
    return 0;
}

static int parse_dbl(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || *end != '\0' || end == s || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

/* A number in (0, 1] */
static int parse_frac(const char *s, double *v)
{
    return parse_dbl(s, v) != 0 || *v <= 0 || *v > 1 ? -1 : 0;
}

void phases_study_defaults(ph_study_opts_t *so)
{
    *so = (ph_study_opts_t){.spec = {.mode = PH_MARK_AUTO, .level = PH_ANY_LEVEL, .every = 1},
                            .points = DEFAULT_POINTS,
                            .topology = "log",
                            .pairs = "auto",
                            .snapshots = 5,
                            .thr = 0.9,
                            .wave_frac = 0.5,
                            .recover_frac = 0.9,
                            .src_rank = -1};
}

int phases_marker_arg(const char *s, ph_mark_spec_t *sp)
{
    if (strcmp(s, "auto") == 0) {
        sp->mode = PH_MARK_AUTO;
        return 0;
    }
    if (strcmp(s, "period") == 0) {
        sp->mode = PH_MARK_PERIOD;
        return 0;
    }
    if (strncmp(s, "pcontrol", 8) == 0 && (s[8] == '\0' || s[8] == ':')) {
        sp->mode = PH_MARK_PCONTROL;
        sp->level = PH_ANY_LEVEL;
        if (s[8] == ':') {
            char *end;
            errno = 0;
            long l = strtol(s + 9, &end, 10);
            if (errno || *end != '\0' || end == s + 9 || l < INT32_MIN + 1 || l > INT32_MAX)
                return -1;
            sp->level = (int32_t)l;
        }
        return 0;
    }
    char name[128];
    const char *at = strchr(s, '@');
    size_t len = at ? (size_t)(at - s) : strlen(s);
    if (len == 0 || len + 5 > sizeof(name))
        return -1;
    if (strncmp(s, "MPI_", 4) == 0)
        snprintf(name, sizeof(name), "%.*s", (int)len, s);
    else
        snprintf(name, sizeof(name), "MPI_%.*s", (int)len, s);
    int call = plog_call_by_name(name);
    if (call < 0)
        return -1;
    sp->mode = PH_MARK_CALL;
    sp->call = call;
    sp->callsite = 0;
    if (at) {
        uint64_t site;
        if (parse_u64(at + 1, &site) != 0 || site == 0 || site > UINT32_MAX)
            return -1;
        sp->callsite = (uint32_t)site;
    }
    return 0;
}

/* --at T[,T...] into op->at; -1 when it is not times separated by commas, -2 out of memory */
static int parse_at(const char *s, phases_opts_t *op)
{
    op->study.nat = 0;
    if (VEC_GROW(op->at, op->at_cap, 1) != 0) /* at != NULL: even "" means no snapshots */
        return -2;
    while (*s) {
        char *end;
        errno = 0;
        long long t = strtoll(s, &end, 10);
        if (errno || end == s || (*end != ',' && *end != '\0'))
            return -1;
        if (VEC_GROW(op->at, op->at_cap, op->study.nat + 1) != 0)
            return -2;
        op->at[op->study.nat++] = t;
        s = *end == ',' ? end + 1 : end;
    }
    op->study.at = op->at;
    return 0;
}

/* --source RANK:ITERATION */
static int parse_source(const char *s, ph_study_opts_t *so)
{
    char *e;
    errno = 0;
    long r = strtol(s, &e, 10);
    unsigned long k = 0;
    int bad = errno != 0 || e == s || *e != ':' || r < 0 || r > INT32_MAX;
    if (!bad) {
        char *e2;
        k = strtoul(e + 1, &e2, 10);
        bad = errno != 0 || e2 == e + 1 || *e2 != '\0' || e[1] == '-' || k > UINT32_MAX;
    }
    if (bad)
        return -1;
    so->src_rank = (int32_t)r;
    so->src_iter = (uint32_t)k;
    return 0;
}

enum { O_MARKER = 256, O_EVERY, O_SKIP, O_END, O_COMPUTE, O_DT, O_POINTS, O_TOPO, O_POT,
       O_PAIRS, O_WRAP, O_SNAP, O_AT, O_THR, O_WAVE, O_RECOVER, O_REF, O_SRC, O_JSON, O_PLOTS,
       O_ENTROPY, O_HEATMAP };

/* One option (c, with its argument arg) into op: -1 when taken, else the exit status. */
static int take_option(int c, const char *arg, phases_opts_t *op)
{
    ph_study_opts_t *so = &op->study;
    uint64_t u;
    switch (c) {
    case 'h':
        usage(stdout);
        return PHASOR_EXIT_OK;
    case 'o':
        op->out = arg;
        break;
    case O_MARKER:
        if (phases_marker_arg(arg, &so->spec) != 0)
            return phasor_usage_error("phases", "--marker: '%s' is not pcontrol[:LEVEL], "
                                      "auto, period or an MPI call[@SITE]", arg);
        break;
    case O_EVERY:
        if (parse_u64(arg, &u) != 0 || u == 0 || u > UINT32_MAX)
            return phasor_usage_error("phases", "--every needs a number >= 1, not '%s'", arg);
        so->spec.every = (uint32_t)u;
        break;
    case O_SKIP:
        if (parse_u64(arg, &u) != 0 || u > UINT32_MAX)
            return phasor_usage_error("phases", "--skip needs a number >= 0, not '%s'", arg);
        so->spec.skip = (uint32_t)u;
        break;
    case O_END:
        so->spec.use_end = 1;
        break;
    case O_COMPUTE:
        so->compute_only = 1;
        break;
    case O_DT:
        if (parse_u64(arg, &u) != 0 || u == 0 || u > INT64_MAX)
            return phasor_usage_error("phases", "--dt needs a step in ns >= 1, not '%s'", arg);
        so->dt = (int64_t)u;
        break;
    case O_POINTS:
        if (parse_u64(arg, &u) != 0 || u < 2 || u > 100000000)
            return phasor_usage_error("phases", "--points needs a number from 2 to 1e8, not '%s'",
                                      arg);
        so->points = (size_t)u;
        break;
    case O_TOPO:
        so->topology = arg;
        break;
    case O_POT:
        if (osc_pot_parse(arg, &so->pot) != 0)
            return phasor_usage_error("phases", "--potential: '%s' is not sin, tanh, tanh:S, "
                                      "piecewise[:SIGMA] or fourier:A,B,N", arg);
        op->pot_text = arg;
        break;
    case O_PAIRS:
        so->pairs = arg;
        break;
    case O_WRAP:
        so->wrap = 1;
        break;
    case O_ENTROPY:
        if (ph_entropy_parse(arg, &so->entropy) != 0)
            return phasor_usage_error("phases", "--entropy: '%s' is not circle or fd", arg);
        break;
    case O_SNAP:
        if (parse_u64(arg, &u) != 0 || u > 1000)
            return phasor_usage_error("phases", "--snapshots needs a number from 0 to 1000, "
                                      "not '%s'", arg);
        so->snapshots = (unsigned)u;
        break;
    case O_AT: {
        int rc = parse_at(arg, op);
        if (rc == -2) {
            fprintf(stderr, "phasor phases: out of memory\n");
            return PHASOR_EXIT_INPUT;
        }
        if (rc != 0)
            return phasor_usage_error("phases", "--at needs times in ns separated by commas, "
                                      "not '%s'", arg);
        break;
    }
    case O_THR:
        if (parse_frac(arg, &so->thr) != 0)
            return phasor_usage_error("phases", "--threshold needs R in (0, 1], not '%s'", arg);
        break;
    case O_WAVE:
        if (parse_frac(arg, &so->wave_frac) != 0)
            return phasor_usage_error("phases", "--wave-frac needs a number in (0, 1], not '%s'",
                                      arg);
        break;
    case O_RECOVER:
        if (parse_frac(arg, &so->recover_frac) != 0)
            return phasor_usage_error("phases",
                                      "--recover-frac needs a number in (0, 1], not '%s'", arg);
        break;
    case O_REF:
        so->reference = arg;
        break;
    case O_SRC:
        if (parse_source(arg, so) != 0)
            return phasor_usage_error("phases", "--source needs RANK:ITERATION, not '%s'", arg);
        break;
    case O_JSON:
        op->json = 1;
        break;
    case O_PLOTS:
        op->plots = 1;
        break;
    case O_HEATMAP:
        if (strcmp(arg, "wrapped") != 0 && strcmp(arg, "unwrapped") != 0)
            return phasor_usage_error("phases", "--heatmap: '%s' is not wrapped or unwrapped",
                                      arg);
        op->heat_unwrapped = arg[0] == 'u';
        break;
    }
    return -1;
}

/* The command line into *op: -1 to go on, else the exit status (--help, bad usage). */
static int phases_parse(int argc, char **argv, phases_opts_t *op)
{
    memset(op, 0, sizeof(*op));
    phases_study_defaults(&op->study);
    op->pot_text = "tanh";
    osc_pot_parse("tanh", &op->study.pot);
    static const struct option opts[] = {
        {"marker", required_argument, NULL, O_MARKER}, {"every", required_argument, NULL, O_EVERY},
        {"skip", required_argument, NULL, O_SKIP}, {"marker-end", no_argument, NULL, O_END},
        {"compute-only", no_argument, NULL, O_COMPUTE}, {"dt", required_argument, NULL, O_DT},
        {"points", required_argument, NULL, O_POINTS},
        {"topology", required_argument, NULL, O_TOPO},
        {"potential", required_argument, NULL, O_POT}, {"pairs", required_argument, NULL, O_PAIRS},
        {"wrap", no_argument, NULL, O_WRAP}, {"snapshots", required_argument, NULL, O_SNAP},
        {"at", required_argument, NULL, O_AT}, {"threshold", required_argument, NULL, O_THR},
        {"wave-frac", required_argument, NULL, O_WAVE}, {"json", no_argument, NULL, O_JSON},
        {"plots", no_argument, NULL, O_PLOTS}, {"entropy", required_argument, NULL, O_ENTROPY},
        {"heatmap", required_argument, NULL, O_HEATMAP},
        {"recover-frac", required_argument, NULL, O_RECOVER},
        {"reference", required_argument, NULL, O_REF},
        {"source", required_argument, NULL, O_SRC},
        {"out", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        if (c == '?' || c == ':')
            return phasor_getopt_error("phases", c, argv);
        int status = take_option(c, optarg, op);
        if (status >= 0)
            return status;
    }
    int logarg = phasor_log_arg("phases", argc, argv, 0, &op->path);
    if (logarg != PHASOR_EXIT_OK)
        return logarg;
    const char *pairs = op->study.pairs;
    if (strcmp(pairs, "auto") != 0 && strcmp(pairs, "all") != 0 && strcmp(pairs, "topo") != 0 &&
        strchr(pairs, ':') == NULL)
        return phasor_usage_error("phases",
                                  "--pairs: expected auto, all, topo or i:j,..., not '%s'", pairs);
    if (op->plots && op->out == NULL)
        return phasor_usage_error("phases", "%s", "--plots needs -o DIR to write the figures into");
    return -1;
}

/* ---- CSV files ---- */

enum { F_MARKERS, F_PHASES, F_ORDER, F_RATE, F_ENTROPY, F_GRAD, F_GRADS, F_POT, F_DTHETA,
       F_HIST, F_HEAT, F_CIRCLE, F_TOPO, F_LAG, F_WAVE, F_RESYNC, F__N };
static const char *const fname[F__N] = {
    "markers.csv", "phases.csv", "order.csv", "order_rate.csv", "entropy.csv", "gradient.csv",
    "gradient_signed.csv", "potential.csv", "dtheta.csv", "dtheta_hist.csv", "heatmap.csv",
    "circle.csv", "topology.csv", "lag.csv", "wave.csv", "resync.csv"};
/* the header line of each file; NULL: a column per rank or pair (timeline_headers). Each
 * is written when its rows are about to be (a run that fails half way leaves the files it
 * did not reach empty). */
static const char *const fhead[F__N] = {
    [F_MARKERS] = "rank,iteration,t_ns,duration_ns,compute_ns\n",
    [F_ORDER] = "t_ns,R,psi\n",
    [F_RATE] = "t_ns,dR_dt\n",
    [F_ENTROPY] = "t_ns,S,bins\n",
    [F_POT] = "t_ns,E\n",
    [F_HIST] = "t_ns,bin,lo,hi,count\n",
    [F_HEAT] = "t_ns,i,j,dtheta\n",
    [F_CIRCLE] = "t_ns,rank,theta,theta_wrapped,x,y\n",
    [F_TOPO] = "i,j\n",
    [F_LAG] = "rank,iterations,mean_lag,min_lag,max_lag,mean_lag_ns\n",
    [F_WAVE] = "rank,distance,arrival_iteration,arrival_ns,idle_ns\n",
    [F_RESYNC] = "start_ns,min_ns,end_ns,R_min,recovered,duration_ns\n"};

typedef struct csvf {
    out_t *o;
    ofile_t of;
    const char *name;
} csvf_t;

static int csv_open(csvf_t *c, int dirfd, const char *name)
{
    memset(c, 0, sizeof(*c));
    c->name = name;
    c->o = malloc(sizeof(*c->o));
    if (c->o == NULL)
        return -1;
    c->o->n = 0;
    if (ofile_open(&c->of, dirfd, name) != 0)
        return -1;
    c->o->f = c->of.f;
    return 0;
}

/* keep: the file takes its name (else it is removed). 0 on success; on failure a message on
 * stderr naming dir/name. */
static int csv_close(csvf_t *c, const char *dir, int keep)
{
    int rc = 0;
    if (c->o != NULL && c->of.f != NULL) {
        o_flush(c->o);
        if (ofile_close(&c->of, keep) != 0 && keep) {
            fprintf(stderr, "phasor phases: writing %s/%s: %s\n", dir, c->name, strerror(errno));
            rc = -1;
        }
    }
    free(c->o);
    memset(c, 0, sizeof(*c));
    return rc;
}

/* -o DIR: the directory (*dirfd) and every file with its fixed header; prints the error */
static int open_files(const char *dir, int *dirfd, csvf_t *f)
{
    if ((*dirfd = ofile_dir_open(dir)) < 0) {
        fprintf(stderr, "phasor phases: %s: %s\n", dir,
                errno == ELOOP ? "a symbolic link that is not yours; not followed"
                               : strerror(errno));
        return -1;
    }
    for (int k = 0; k < F__N; k++) {
        if (csv_open(&f[k], *dirfd, fname[k]) != 0) {
            fprintf(stderr, "phasor phases: %s/%s: %s\n", dir, fname[k], strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* The fixed header lines of the files which[0..n). */
static void fixed_headers(csvf_t *f, const int *which, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        assert(fhead[which[k]] != NULL);
        o_str(f[which[k]].o, fhead[which[k]]);
    }
}

/* A CSV number: %.10g, nothing for NaN (no value) */
static void o_dbl(out_t *o, double v)
{
    if (isnan(v))
        return;
    char tmp[32];
    int n = snprintf(tmp, sizeof(tmp), "%.10g", v);
    o_mem(o, tmp, (size_t)n);
}

/* A field and the separator after it. */
static void f_i64(out_t *o, int64_t v, char sep)
{
    o_i64(o, v);
    o_chr(o, sep);
}

static void f_u64(out_t *o, uint64_t v, char sep)
{
    o_u64(o, v);
    o_chr(o, sep);
}

static void f_dbl(out_t *o, double v, char sep)
{
    o_dbl(o, v);
    o_chr(o, sep);
}

/* "t_ns,<prefix>0,<prefix>1,..." for n columns */
static void rank_header(out_t *o, const char *prefix, int32_t n)
{
    o_str(o, "t_ns");
    for (int32_t r = 0; r < n; r++) {
        o_chr(o, ',');
        o_str(o, prefix);
        o_i64(o, r);
    }
    o_chr(o, '\n');
}

static void timeline_headers(const ph_study_t *st, csvf_t *f)
{
    static const int fixed[] = {F_ORDER, F_RATE, F_ENTROPY, F_POT};
    fixed_headers(f, fixed, sizeof(fixed) / sizeof(*fixed));
    rank_header(f[F_PHASES].o, "theta_", st->P);
    rank_header(f[F_GRAD].o, "g_", st->P);
    rank_header(f[F_GRADS].o, "g_", st->P);
    out_t *o = f[F_DTHETA].o;
    o_str(o, "t_ns");
    for (size_t p = 0; p < st->npairs; p++) {
        o_str(o, ",dtheta_");
        f_i64(o, st->pairs[2 * p], '_');
        o_i64(o, st->pairs[2 * p + 1]);
    }
    o_chr(o, '\n');
}

/* "t,v_0,...,v_{n-1}" */
static void rank_row(out_t *o, int64_t t, const double *v, int32_t n)
{
    o_i64(o, t);
    for (int32_t r = 0; r < n; r++) {
        o_chr(o, ',');
        o_dbl(o, v[r]);
    }
    o_chr(o, '\n');
}

/* The rows of one grid point in every timeline file. */
static void point_rows(const ph_study_t *st, const ph_point_t *pt, csvf_t *f)
{
    int64_t t = pt->t;
    rank_row(f[F_PHASES].o, t, pt->theta, st->P);
    out_t *o = f[F_ORDER].o;
    f_i64(o, t, ',');
    f_dbl(o, pt->R, ',');
    f_dbl(o, pt->psi, '\n');
    o = f[F_ENTROPY].o;
    f_i64(o, t, ',');
    f_dbl(o, pt->S, ',');
    f_u64(o, pt->nbins, '\n');
    o = f[F_POT].o;
    f_i64(o, t, ',');
    f_dbl(o, pt->E, '\n');
    rank_row(f[F_GRAD].o, t, pt->gabs, st->P);
    rank_row(f[F_GRADS].o, t, pt->gsig, st->P);
    o = f[F_DTHETA].o;
    o_i64(o, t);
    for (size_t p = 0; p < st->npairs; p++) {
        o_chr(o, ',');
        o_dbl(o, ph_dtheta(pt->theta, st->pairs[2 * p], st->pairs[2 * p + 1], st->op->wrap));
    }
    o_chr(o, '\n');
    for (int k = 0; k < pt->nrate; k++) {
        f_i64(f[F_RATE].o, pt->rate_t[k], ',');
        f_dbl(f[F_RATE].o, pt->rate[k], '\n');
    }
}

/* Phase circle, heatmap and histogram rows of one snapshot. */
static void snapshot_rows(const ph_study_t *st, const ph_snapshot_t *sn, csvf_t *f)
{
    const double *theta = sn->theta;
    out_t *o = f[F_CIRCLE].o;
    for (int32_t r = 0; r < st->P; r++) {
        if (isnan(theta[r]))
            continue;
        f_i64(o, sn->t, ',');
        f_i64(o, r, ',');
        f_dbl(o, theta[r], ',');
        f_dbl(o, ph_wrap_pi(theta[r]), ',');
        f_dbl(o, cos(theta[r]), ',');
        f_dbl(o, sin(theta[r]), '\n');
    }
    o = f[F_HEAT].o;
    for (int32_t i = 0; i < st->P; i++)
        for (int32_t j = 0; j < st->P && !isnan(theta[i]); j++) {
            if (isnan(theta[j]))
                continue;
            f_i64(o, sn->t, ',');
            f_i64(o, i, ',');
            f_i64(o, j, ',');
            f_dbl(o, ph_dtheta(theta, i, j, st->op->wrap), '\n');
        }
    o = f[F_HIST].o;
    const ph_bins_t *b = &sn->bins;
    for (uint32_t bin = 0; sn->nd > 0 && bin < b->n; bin++) {
        f_i64(o, sn->t, ',');
        f_u64(o, bin, ',');
        f_dbl(o, b->lo + bin * b->width, ',');
        f_dbl(o, b->n == 1 ? b->lo + b->width : b->lo + (bin + 1) * b->width, ',');
        f_u64(o, sn->count[bin], '\n');
    }
}

static void markers_rows(const ph_study_t *st, out_t *o)
{
    const ph_marks_t *m = &st->marks;
    for (int32_t r = 0; r < st->P; r++)
        for (uint32_t k = 0; k < m->n[r]; k++) {
            f_i64(o, r, ',');
            f_u64(o, k, ',');
            f_i64(o, m->t[r][k], ',');
            if (k + 1 < m->n[r]) {
                f_i64(o, m->t[r][k + 1] - m->t[r][k], ',');
                if (m->comp != NULL && m->comp[r] != NULL)
                    o_dbl(o, m->comp[r][k]);
            } else {
                o_chr(o, ',');
            }
            o_chr(o, '\n');
        }
}

/* markers, topology, lag, wave and resync.csv */
static void small_files(const ph_study_t *st, const ph_summary_t *sm, csvf_t *f)
{
    static const int fixed[] = {F_MARKERS, F_TOPO, F_LAG, F_WAVE, F_RESYNC};
    fixed_headers(f, fixed, sizeof(fixed) / sizeof(*fixed));
    markers_rows(st, f[F_MARKERS].o);
    out_t *o = f[F_TOPO].o;
    for (int32_t i = 0; i < st->topo.n; i++)
        for (uint32_t k = st->topo.off[i]; k < st->topo.off[i + 1]; k++) {
            f_i64(o, i, ',');
            f_i64(o, st->topo.nb[k], '\n');
        }
    o = f[F_LAG].o;
    for (int32_t r = 0; r < st->P; r++) {
        f_i64(o, r, ',');
        o_u64(o, st->marks.n[r] ? st->marks.n[r] - 1 : 0);
        if (st->lag_n[r] == 0) {
            o_str(o, ",,,,\n");
            continue;
        }
        o_chr(o, ',');
        f_dbl(o, sm->lag_mean[r], ',');
        f_dbl(o, st->lag_min[r], ',');
        f_dbl(o, st->lag_max[r], ',');
        f_dbl(o, sm->lag_mean[r] * st->median_period, '\n');
    }
    o = f[F_WAVE].o;
    const ph_wave_t *w = &st->wave;
    for (int32_t r = 0; w->found && r < st->P; r++) {
        if (w->arrival_iter[r] < 0)
            continue;
        f_i64(o, r, ',');
        f_i64(o, w->distance[r], ',');
        f_i64(o, w->arrival_iter[r], ',');
        f_i64(o, w->arrival_ns[r], ',');
        f_dbl(o, w->idle_ns[r], '\n');
    }
    o = f[F_RESYNC].o;
    for (size_t k = 0; k < st->rs.n; k++) {
        const ph_excursion_t *x = &st->rs.v[k];
        f_i64(o, x->start_ns, ',');
        f_i64(o, x->min_ns, ',');
        f_i64(o, x->end_ns, ',');
        f_dbl(o, x->r_min, ',');
        o_chr(o, x->recovered ? '1' : '0');
        o_chr(o, ',');
        if (x->recovered)
            o_i64(o, x->end_ns - x->start_ns);
        o_chr(o, '\n');
    }
}

/* twin.csv (iteration,spread_ns) and twin_ranks.csv (rank,distance,reach_ns) into DIR;
 * prints the error itself */
static int write_twin(const ph_study_t *st, int dirfd, const char *dir)
{
    const ph_twin_t *tw = &st->twin;
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "twin_ranks.csv" : "twin.csv";
        ofile_t of;
        if (ofile_open(&of, dirfd, name) != 0) {
            fprintf(stderr, "phasor phases: %s/%s: %s\n", dir, name, strerror(errno));
            return -1;
        }
        FILE *f = of.f;
        if (k == 0) {
            fputs("iteration,spread_ns\n", f);
            for (uint32_t i = 0; tw->spread_ns != NULL && i < tw->n; i++)
                if (isnan(tw->spread_ns[i]))
                    fprintf(f, "%u,\n", i);
                else
                    fprintf(f, "%u,%.17g\n", i, tw->spread_ns[i]);
        } else {
            fputs("rank,distance,reach_ns\n", f);
            for (int32_t r = 0; tw->reach_ns != NULL && r < st->P; r++) {
                fprintf(f, "%d,%d,", (int)r, (int)st->wave.distance[r]);
                if (!isnan(tw->reach_ns[r]))
                    fprintf(f, "%.17g", tw->reach_ns[r]);
                fputc('\n', f);
            }
        }
        if (ofile_close(&of, 1) != 0) {
            fprintf(stderr, "phasor phases: %s/%s: %s\n", dir, name, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* ---- the summary ---- */


/* %.4g, or "undefined" when not finite (text output; JSON writes null) */
static void g4(char *out, double v)
{
    if (isfinite(v))
        snprintf(out, 32, "%.4g", v);
    else
        snprintf(out, 32, "undefined");
}

static void text_marker(out_t *o, const ph_study_t *st, const ph_summary_t *sm)
{
    const ph_mark_spec_t *u = &st->marks.used;
    o_fmt(o, "iteration marker: %s (%s", ph_mark_mode_name(u->mode), sm->marker_call);
    if (u->mode == PH_MARK_PCONTROL && u->level != PH_ANY_LEVEL)
        o_fmt(o, ", level %d", (int)u->level);
    if (u->mode != PH_MARK_PCONTROL && u->callsite)
        o_fmt(o, " at site %#x", u->callsite);
    if (st->marks.period)
        o_fmt(o, ", period %u calls", st->marks.period);
    o_fmt(o, ", every %u, skip %u, %s)\n", u->every, u->skip, u->use_end ? "end" : "start");
}

static void text_notes(out_t *o, const ph_study_t *st, const ph_summary_t *sm)
{
    for (size_t k = 0; k < sm->nincomplete; k++) {
        int32_t r = sm->incomplete[k];
        o_fmt(o, "note: rank %d's log ended early (%s)\n", (int)r,
              st->marks.n[r] >= 2 ? "its phase ends with its last boundary" : "no phase");
    }
    if (sm->it_min != sm->it_max)
        o_str(o, "note: the ranks have different numbers of iterations: make sure the k-th "
                 "boundary is the same iteration on every rank (--skip, --marker)\n");
    if (st->topo.nnz == 0)
        o_str(o, "note: no rank received from another (collectives do not count): gradients "
                 "and E are 0; --topology all or FILE gives another T\n");
}

static void text_resync(out_t *o, const ph_study_t *st)
{
    o_fmt(o, "resynchronisation (R >= %.3g): %zu excursion(s) below\n", st->op->thr, st->rs.n);
    for (size_t k = 0; k < st->rs.n; k++) {
        const ph_excursion_t *x = &st->rs.v[k];
        if (k == 10) {
            o_fmt(o, "  ... %zu more (resync.csv, --json)\n", st->rs.n - k);
            break;
        }
        if (x->recovered)
            o_fmt(o, "  from %" PRId64 " ns, R min %.4f at %" PRId64 " ns, back at %" PRId64
                  " ns after %.6g s\n", x->start_ns, x->r_min, x->min_ns, x->end_ns,
                  (double)(x->end_ns - x->start_ns) * 1e-9);
        else
            o_fmt(o, "  from %" PRId64 " ns, R min %.4f at %" PRId64 " ns, not recovered\n",
                  x->start_ns, x->r_min, x->min_ns);
    }
}

static void text_wave(out_t *o, const ph_wave_t *w)
{
    if (!w->found) {
        o_str(o, "idle wave: none found\n");
        return;
    }
    /* a wave seen within one iteration, or over too few hops to fit, has no speed or decay:
     * say so rather than print nan */
    char v[4][32];
    g4(v[0], w->ranks_per_iter);
    g4(v[1], w->ranks_per_s);
    g4(v[2], w->decay_ns_per_hop);
    g4(v[3], w->decay_per_hop);
    char conf[32] = "given";
    if (w->candidates > 0)
        snprintf(conf, sizeof(conf), "confidence %.3f", w->confidence);
    o_fmt(o, "idle wave: from rank %d, iteration %u (+%.0f ns, %s), reached %u ranks, %s "
          "ranks/iteration, %s ranks/s\n"
          "  %d of %d hops (%s), idle period decays by %s ns per hop (%s of it)\n",
          (int)w->source, w->source_iter, w->source_excess_ns, conf, w->reached, v[0], v[1],
          (int)w->reach_hops, (int)w->extent_hops,
          w->directed ? "along the messages" : "rank index distance", v[2], v[3]);
    /* what the confidence rests on (none with --source: the source was given) */
    if (w->candidates == 0)
        return;
    if (w->runner_up_source < 0)
        o_fmt(o, "  source: of %u candidate delays the one whose wave brought the most idle time "
              "(%.0f ns past it), the others on its own wave\n", w->candidates,
              w->idle_delivered_ns);
    else
        o_fmt(o, "  source: of %u candidate delays the one whose wave brought the most idle time "
              "(%.0f ns past it); runner-up rank %d, iteration %u: %u ranks, %.0f ns\n",
              w->candidates, w->idle_delivered_ns, (int)w->runner_up_source, w->runner_up_iter,
              w->runner_up_reached, w->runner_up_idle_ns);
}

static void text_recovery(out_t *o, const ph_study_t *st, const ph_summary_t *sm)
{
    const ph_recovery_t *rec = &st->rec;
    double frac = st->op->recover_frac;
    if (rec->found && rec->recovered)
        o_fmt(o, "recovery (R back to %.4g = R_min %.4g + %.3g x the drop from %.4g): after "
              "%.6g s = %.4g iterations\n", rec->r_target, rec->r_min, frac, rec->r_base,
              (double)(rec->t_back - rec->t_from) * 1e-9, sm->recovery_iters);
    else if (rec->found)
        o_fmt(o, "recovery: R (base %.4g) fell to %.4g and did not regain %.3g of the drop\n",
              rec->r_base, rec->r_min, frac);
    else
        o_str(o, "recovery: no drop of R after a delay\n");
}

static void text_twin(out_t *o, const ph_study_t *st)
{
    const ph_twin_t *tw = &st->twin;
    if (st->op->reference == NULL)
        return;
    if (!tw->found) {
        o_str(o, "against the reference: no shift that the delay made\n");
        return;
    }
    o_fmt(o, "against the reference: spread of the delay's shift %.4g ns at iteration %u "
          "(base %.4g ns), ", tw->peak_ns, tw->k_peak, tw->base_ns);
    if (tw->recovered)
        o_fmt(o, "back to %.4g ns %u iterations after the delay; ", tw->target_ns,
              tw->k_back - tw->k0);
    else
        o_fmt(o, "not back to %.4g ns; ", tw->target_ns);
    o_fmt(o, "half the delay reached %d hops\n", (int)tw->survival_hops);
}

static void summary_text(out_t *o, const phases_opts_t *op, const ph_study_t *st,
                         const ph_summary_t *sm)
{
    o_str(o, "log: ");
    o_str(o, op->path);
    o_fmt(o, "\nranks: %d, with a phase: %d\n", (int)st->P, (int)st->with_phase);
    text_marker(o, st, sm);
    o_fmt(o, "iterations per rank: %u..%u, median period %.0f ns\n"
          "grid: %zu points from %" PRId64 " ns, step %" PRId64 " ns%s\n"
          "topology: %zu edges (", sm->it_min, sm->it_max, st->median_period, st->grid.n,
          st->grid.t0, st->grid.dt,
          st->op->compute_only ? ", phase advances during compute only" : "", st->topo.nnz);
    o_str(o, st->op->topology);
    o_str(o, ")\n");
    text_notes(o, st, sm);
    o_fmt(o, "order parameter R: mean %.4f, min %.4f at %" PRId64 " ns, final %.4f\n"
          "entropy S (%s bins): mean %.4f, max %.4f; potential E (", sm->r_mean, st->r_min,
          st->r_min_t, st->r_last, ph_entropy_name(st->op->entropy), sm->s_mean, st->s_max);
    o_str(o, op->pot_text);
    o_fmt(o, "): mean %.6g\n", sm->e_mean);
    text_resync(o, st);
    text_wave(o, &st->wave);
    text_recovery(o, st, sm);
    text_twin(o, st);
    if (sm->lag_rank >= 0)
        o_fmt(o, "most lagging rank: %d (%.4g iterations behind the mean)\n", (int)sm->lag_rank,
              sm->lag_iters);
    for (size_t w = 0; w < sm->nwarnings; w++) {
        o_str(o, "warning: ");
        o_str(o, sm->warnings[w]);
        o_chr(o, '\n');
    }
}

/* JSON numbers: %.10g, null when not finite */
static void j_num(out_t *o, const char *key, double v)
{
    o_str(o, key);
    o_jnum(o, v, 10);
}

static void j_int(out_t *o, const char *key, int64_t v)
{
    o_str(o, key);
    o_i64(o, v);
}

static void j_bool(out_t *o, const char *key, int v)
{
    o_str(o, key);
    o_str(o, v ? "true" : "false");
}

static void j_str(out_t *o, const char *key, const char *v)
{
    o_str(o, key);
    o_jstr(o, v);
}

/* key and an integer, or null unless have */
static void j_int_or_null(out_t *o, const char *key, int have, int64_t v)
{
    o_str(o, key);
    if (have)
        o_i64(o, v);
    else
        o_str(o, "null");
}

static void json_marker(out_t *o, const ph_study_t *st, const ph_summary_t *sm)
{
    const ph_mark_spec_t *u = &st->marks.used;
    j_str(o, ",\"marker\":{\"mode\":", ph_mark_mode_name(u->mode));
    j_str(o, ",\"call\":", sm->marker_call);
    j_int_or_null(o, ",\"level\":", u->mode == PH_MARK_PCONTROL && u->level != PH_ANY_LEVEL,
                  u->level);
    j_int(o, ",\"callsite\":", u->mode == PH_MARK_PCONTROL ? 0 : u->callsite);
    j_int(o, ",\"every\":", u->every);
    j_int(o, ",\"skip\":", u->skip);
    j_str(o, ",\"edge\":", u->use_end ? "end" : "start");
    j_int(o, ",\"period_calls\":", st->marks.period);
    o_chr(o, '}');
}

static void json_resync(out_t *o, const ph_study_t *st)
{
    j_num(o, ",\"resync\":{\"threshold\":", st->op->thr);
    o_str(o, ",\"excursions\":[");
    for (size_t k = 0; k < st->rs.n; k++) {
        const ph_excursion_t *x = &st->rs.v[k];
        j_int(o, k ? ",{\"start_ns\":" : "{\"start_ns\":", x->start_ns);
        j_int(o, ",\"min_ns\":", x->min_ns);
        j_int(o, ",\"end_ns\":", x->end_ns);
        j_num(o, ",\"R_min\":", x->r_min);
        j_bool(o, ",\"recovered\":", x->recovered);
        j_bool(o, ",\"from_start\":", !x->preceded);
        j_int_or_null(o, ",\"duration_ns\":", x->recovered, x->end_ns - x->start_ns);
        o_chr(o, '}');
    }
    o_str(o, "]}");
}

static void json_wave(out_t *o, const ph_wave_t *w)
{
    j_bool(o, ",\"wave\":{\"found\":", w->found);
    if (w->found) {
        j_int(o, ",\"source\":", w->source);
        j_int(o, ",\"source_iteration\":", w->source_iter);
        j_num(o, ",\"source_excess_ns\":", w->source_excess_ns);
        j_int(o, ",\"reached\":", w->reached);
        j_num(o, ",\"ranks_per_iteration\":", w->ranks_per_iter);
        j_num(o, ",\"ranks_per_second\":", w->ranks_per_s);
        j_str(o, ",\"distance\":", w->directed ? "topology" : "index");
        j_int(o, ",\"reach_hops\":", w->reach_hops);
        j_int(o, ",\"extent_hops\":", w->extent_hops);
        j_num(o, ",\"decay_ns_per_hop\":", w->decay_ns_per_hop);
        j_num(o, ",\"decay_per_hop\":", w->decay_per_hop);
        j_num(o, ",\"idle_delivered_ns\":", w->idle_delivered_ns);
        j_int(o, ",\"candidates\":", w->candidates);
        j_num(o, ",\"confidence\":", w->confidence);
        j_int_or_null(o, ",\"runner_up_source\":", w->runner_up_source >= 0,
                      w->runner_up_source);
        j_int_or_null(o, ",\"runner_up_iteration\":", w->runner_up_source >= 0,
                      w->runner_up_iter);
        j_int(o, ",\"runner_up_reached\":", w->runner_up_reached);
        j_num(o, ",\"runner_up_idle_ns\":", w->runner_up_idle_ns);
    }
    o_chr(o, '}');
}

static void json_recovery(out_t *o, const ph_study_t *st, const ph_summary_t *sm)
{
    const ph_recovery_t *rec = &st->rec;
    j_bool(o, ",\"recovery\":{\"found\":", rec->found);
    j_num(o, ",\"fraction\":", st->op->recover_frac);
    j_num(o, ",\"R_base\":", rec->r_base);
    j_num(o, ",\"R_base_sd\":", rec->r_base_sd);
    j_num(o, ",\"R_min\":", rec->r_min);
    j_num(o, ",\"R_target\":", rec->r_target);
    j_num(o, ",\"R_tail\":", rec->r_tail);
    j_int_or_null(o, ",\"from_ns\":", st->wave.source >= 0, rec->t_from);
    j_int_or_null(o, ",\"min_ns\":", rec->found, rec->t_min);
    j_bool(o, ",\"recovered\":", rec->recovered);
    j_int_or_null(o, ",\"duration_ns\":", rec->recovered, rec->t_back - rec->t_from);
    j_num(o, ",\"iterations\":", sm->recovery_iters);
    o_chr(o, '}');
}

static void json_twin(out_t *o, const ph_study_t *st)
{
    const ph_twin_t *tw = &st->twin;
    j_str(o, ",\"twin\":{\"reference\":", st->op->reference);
    j_bool(o, ",\"found\":", tw->found);
    j_int(o, ",\"iteration\":", tw->k0);
    j_num(o, ",\"base_ns\":", tw->base_ns);
    j_num(o, ",\"peak_ns\":", tw->peak_ns);
    j_int(o, ",\"peak_iteration\":", tw->k_peak);
    j_num(o, ",\"target_ns\":", tw->target_ns);
    j_bool(o, ",\"recovered\":", tw->recovered);
    j_int_or_null(o, ",\"iterations\":", tw->recovered, (int64_t)tw->k_back - (int64_t)tw->k0);
    j_num(o, ",\"source_reach_ns\":", tw->source_reach_ns);
    j_num(o, ",\"far_reach_ns\":", tw->far_reach_ns);
    j_int(o, ",\"survival_hops\":", tw->survival_hops);
    o_chr(o, '}');
}

/* "files": what -o and --plots wrote */
static void json_files(out_t *o, const phases_opts_t *op)
{
    o_str(o, ",\"files\":[");
    for (int k = 0; k < F__N && op->out; k++) {
        if (k)
            o_chr(o, ',');
        o_jstr(o, fname[k]);
    }
    for (int k = 0; k < PP_NFILES && op->plots; k++) {
        o_chr(o, ',');
        o_jstr(o, pp_files[k]);
    }
    if (op->out && op->study.reference)
        o_str(o, ",\"twin.csv\",\"twin_ranks.csv\"");
    o_chr(o, ']');
}

static void summary_json(out_t *o, const phases_opts_t *op, const ph_study_t *st,
                         const ph_summary_t *sm)
{
    j_int(o, "{\"format\":", PHASES_FORMAT);
    j_str(o, ",\"log\":", op->path);
    j_int(o, ",\"ranks\":", st->P);
    j_int(o, ",\"ranks_with_phase\":", st->with_phase);
    json_marker(o, st, sm);
    j_int(o, ",\"iterations\":{\"min\":", sm->it_min);
    j_int(o, ",\"max\":", sm->it_max);
    j_num(o, "},\"median_period_ns\":", st->median_period);
    j_int(o, ",\"grid\":{\"t0_ns\":", st->grid.t0);
    j_int(o, ",\"dt_ns\":", st->grid.dt);
    j_int(o, ",\"points\":", (int64_t)st->grid.n);
    j_bool(o, "},\"compute_only\":", st->op->compute_only);
    j_str(o, ",\"topology\":{\"source\":", st->op->topology);
    j_int(o, ",\"edges\":", (int64_t)st->topo.nnz);
    j_str(o, "},\"potential\":", op->pot_text);
    j_num(o, ",\"order\":{\"R_mean\":", sm->r_mean);
    j_num(o, ",\"R_min\":", st->r_min);
    j_int(o, ",\"R_min_t_ns\":", st->r_min_t);
    j_num(o, ",\"R_final\":", st->r_last);
    j_num(o, "},\"entropy\":{\"S_mean\":", sm->s_mean);
    j_num(o, ",\"S_max\":", st->s_max);
    o_str(o, ",\"bins\":");
    o_jstr(o, ph_entropy_name(st->op->entropy));
    j_num(o, "},\"potential_mean\":", sm->e_mean);
    json_resync(o, st);
    json_wave(o, &st->wave);
    json_recovery(o, st, sm);
    if (st->op->reference != NULL)
        json_twin(o, st);
    j_int(o, ",\"lag\":{\"rank\":", sm->lag_rank);
    j_num(o, ",\"mean_iterations\":", sm->lag_iters);
    o_chr(o, '}');
    json_files(o, op);
    o_str(o, ",\"incomplete_ranks\":[");
    for (size_t k = 0; k < sm->nincomplete; k++) {
        if (k)
            o_chr(o, ',');
        o_i64(o, sm->incomplete[k]);
    }
    o_str(o, "],\"warnings\":[");
    for (size_t w = 0; w < sm->nwarnings; w++) {
        if (w)
            o_chr(o, ',');
        o_jstr(o, sm->warnings[w]);
    }
    o_str(o, "]}\n");
}

/* --plots: the figures and index.html, from the aggregates of the passes and the summary. */
static int write_plots(const pp_t *pp, const phases_opts_t *op, int dirfd,
                       const ph_study_t *st, const ph_summary_t *sm, char *why, size_t wn)
{
    const ph_mark_spec_t *u = &st->marks.used;
    char marker[160];
    snprintf(marker, sizeof(marker), "%s (%s%s)", ph_mark_mode_name(u->mode), sm->marker_call,
             u->use_end ? ", end" : "");
    pp_summary_t ps = {.log = op->path, .marker = marker, .topology = st->op->topology,
                       .potential = op->pot_text, .ranks = st->P, .with_phase = st->with_phase,
                       .it_min = sm->it_min, .it_max = sm->it_max,
                       .median_period_ns = st->median_period, .thr = st->op->thr,
                       .r_mean = sm->r_mean, .r_min = st->r_min, .r_min_t = st->r_min_t,
                       .s_mean = sm->s_mean, .e_mean = sm->e_mean,
                       .compute_only = st->op->compute_only, .rs = &st->rs, .wave = &st->wave,
                       .lag_mean = sm->lag_mean, .period_ns = st->median_period};
    if (st->wave.found)
        ps.wave_t = st->marks.t[st->wave.source][st->wave.source_iter];
    return pp_write(pp, &ps, dirfd, op->out, why, wn);
}

/* ---- the command ---- */

/* The walk over the grid into the timeline files (f, NULL without -o) and the figures'
 * aggregates (pp, NULL without --plots). */
static int walk(ph_study_t *st, csvf_t *f, pp_t *pp, plog_error_t *err)
{
    ph_point_t pt;
    int rc;
    if (f != NULL)
        timeline_headers(st, f);
    while ((rc = ph_study_next(st, &pt, err)) > 0) {
        if (pp != NULL)
            pp_add(pp, pt.g, pt.theta, pt.R, pt.S, pt.E, pt.gabs);
        if (f != NULL)
            point_rows(st, &pt, f);
    }
    return rc;
}

/* The snapshots into their files and figures, as walk. */
static plog_err_t snapshots(ph_study_t *st, csvf_t *f, pp_t *pp, plog_error_t *err)
{
    static const int fixed[] = {F_CIRCLE, F_HIST, F_HEAT};
    if (f != NULL)
        fixed_headers(f, fixed, sizeof(fixed) / sizeof(*fixed));
    ph_snapshot_t sn;
    for (size_t k = 0; k < st->nsnap; k++) {
        plog_err_t e = ph_study_snapshot(st, k, f != NULL, &sn, err);
        if (e != PLOG_OK)
            return e;
        if (f != NULL)
            snapshot_rows(st, &sn, f);
        if (pp != NULL && pp_want_snapshot(k, st->nsnap, st->snap[k], (int64_t)st->r_min_g) &&
            pp_snapshot(pp, &sn) != 0)
            return plog_fail(err, PLOG_E_NOMEM, NULL, PLOG_NO_OFFSET, "out of memory");
    }
    return PLOG_OK;
}

/* The summary on stdout, text or JSON: the exit status. */
static int print_summary(const phases_opts_t *op, const ph_study_t *st, const ph_summary_t *sm)
{
    static out_t o;
    o.f = stdout;
    o.n = 0;
    if (op->json)
        summary_json(&o, op, st, sm);
    else
        summary_text(&o, op, st, sm);
    o_flush(&o);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "phasor phases: writing the summary: %s\n", strerror(errno));
        return PHASOR_EXIT_INPUT;
    }
    return PHASOR_EXIT_OK;
}

static int phases_run(const phases_opts_t *op)
{
    plog_error_t err;
    plog_run_t *run;
    int opened = phasor_open_run("phases", op->path, -1, &run);
    if (opened != PHASOR_EXIT_OK)
        return opened;
    int status = PHASOR_EXIT_INPUT;
    ph_study_t st;
    ph_summary_t sm;
    memset(&sm, 0, sizeof(sm));
    csvf_t files[F__N];
    memset(files, 0, sizeof(files));
    int dirfd = -1;
    static pp_t pp;
    pp_t *ppp = NULL;
    char why[1200];
    if (ph_study_prepare(&st, run, &op->study, &err) != PLOG_OK)
        goto fail;
    if (ph_study_pairs(&st, &err) != PLOG_OK) {
        if (err.code == PLOG_E_USAGE)
            status = phasor_usage_error("phases", "%s", err.msg);
        else
            fprintf(stderr, "phasor phases: %s\n", err.msg);
        goto done;
    }
    if (op->out != NULL && open_files(op->out, &dirfd, files) != 0)
        goto done;
    if (op->plots) {
        ppp = &pp;
        if (pp_init(ppp, st.P, &st.grid, st.pairs, st.npairs, op->study.wrap,
                    !op->heat_unwrapped) != 0) {
            fprintf(stderr, "phasor phases: out of memory\n");
            goto done;
        }
    }
    csvf_t *rows = op->out != NULL ? files : NULL;
    if (walk(&st, rows, ppp, &err) != 0 || ph_study_finish(&st, &err) != PLOG_OK ||
        snapshots(&st, rows, ppp, &err) != PLOG_OK ||
        ph_study_summarise(&st, &sm, &err) != PLOG_OK)
        goto fail;
    if (op->out != NULL)
        small_files(&st, &sm, files);
    if (op->out != NULL && op->study.reference != NULL && write_twin(&st, dirfd, op->out) != 0)
        goto done;
    if (ppp != NULL && write_plots(ppp, op, dirfd, &st, &sm, why, sizeof(why)) != 0) {
        fprintf(stderr, "phasor phases: %s\n", why);
        goto done;
    }
    status = PHASOR_EXIT_OK;
    for (int k = 0; k < F__N; k++)
        if (csv_close(&files[k], op->out, 1) != 0)
            status = PHASOR_EXIT_INPUT;
    if (status == PHASOR_EXIT_OK)
        status = print_summary(op, &st, &sm);
    goto done;
fail:
    fprintf(stderr, "phasor phases: %s\n", err.msg);
done:
    for (int k = 0; k < F__N; k++) /* what is still open: a failure, nothing kept */
        csv_close(&files[k], op->out, 0);
    if (dirfd >= 0)
        close(dirfd);
    if (ppp != NULL)
        pp_free(ppp);
    ph_summary_free(&sm);
    ph_study_free(&st);
    plog_run_close(run);
    return status;
}

int phasor_cmd_phases(int argc, char **argv)
{
    phases_opts_t op;
    int status = phases_parse(argc, argv, &op);
    if (status < 0)
        status = phases_run(&op);
    free(op.at);
    return status;
}
