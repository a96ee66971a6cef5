/* phasor_phases.c: `phasor phases`: phase timelines of the ranks and the coupled-oscillator
 * metrics over them, as CSV files in an output directory and a summary (text or --json).
 * The computations are in phases.h; the files are described in doc/phases-format.md. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "phases.h"
#include "phases_plot.h"
#include "phasor_cmd.h"
#include "phasor_out.h"
#include "plog_calls.h"
#include "plog_reader.h"

#define PHASES_FORMAT 2       /* version of the files' layout, in the summary */
#define DEFAULT_POINTS 20000  /* grid points at most, unless --points */
#define ALL_PAIRS_UP_TO 16    /* default --pairs: all pairs up to this many ranks */

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

        "  --snapshots N               evenly spaced snapshots (default 5), plus min R\n"
        "  --at T[,T...]               snapshots at these times (ns) instead\n"
        "  --threshold R               resynchronised when R >= this (default 0.9)\n"
        "  --wave-frac F               idle wave: a delay is an excess over F x the source's\n"
        "                              (default 0.5)\n"
        "  --recover-frac F            recovered when R (smoothed over a period) regained F of\n"
        "                              its drop below the R before the delay (default 0.9)\n"
        "  --source R:K                the idle wave starts at rank R, iteration K (default:\n"
        "                              the largest compute excess)\n"
        "  --reference LOG             the same run without the delay (same noise): the\n"
        "                              delay's own effect, rank by rank (twin.csv, \"twin\")\n"
        "Output:\n"
        "  -o, --out DIR               write one CSV per metric to DIR (created if needed)\n"
        "  --plots                     also write SVG figures and index.html into DIR (-o)\n"
        "  --json                      the summary as one JSON object on stdout\n"
        "  -h, --help                  this text\n"
        "\n"
        "Exit status: 0 success, 1 unreadable log or no usable iterations, 2 bad usage.\n",
        DEFAULT_POINTS, ALL_PAIRS_UP_TO);
}

typedef struct opts {
    ph_mark_spec_t spec;
    int compute_only, json, wrap, plots;
    int64_t dt;
    size_t points;
    const char *topology, *out, *pairs, *at, *reference;
    ph_potential_t pot;
    const char *pot_text;
    unsigned snapshots;
    double thr, wave_frac, recover_frac;
    int32_t src_rank; /* --source, -1 none */
    uint32_t src_iter;
} opts_t;

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

static int parse_marker(const char *s, ph_mark_spec_t *sp)
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

/* "i j" per line, '#' comments; returns the topology or -1 with a message in why. */
static int read_topology(const char *path, int32_t P, ph_topo_t *t, char *why, size_t wn)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(why, wn, "%s: %s", path, strerror(errno));
        return -1;
    }
    int32_t *pairs = NULL;
    size_t np = 0, cap = 0;
    char line[256];
    unsigned lineno = 0;
    int rc = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        char *h = strchr(line, '#');
        if (h)
            *h = '\0';
        long i, j;
        char extra;
        int k = sscanf(line, "%ld %ld %c", &i, &j, &extra);
        if (k <= 0)
            continue; /* blank */
        if (k != 2 || i < 0 || j < 0 || i >= P || j >= P || i == j) {
            snprintf(why, wn, "%s: line %u: expected \"i j\" with two different ranks below %d",
                     path, lineno, (int)P);
            rc = -1;
            break;
        }
        if (np == cap) {
            size_t nc = cap ? 2 * cap : 64;
            int32_t *p = realloc(pairs, nc * 2 * sizeof(*p));
            if (p == NULL) {
                snprintf(why, wn, "%s: out of memory", path);
                rc = -1;
                break;
            }
            pairs = p;
            cap = nc;
        }
        pairs[2 * np] = (int32_t)i;
        pairs[2 * np + 1] = (int32_t)j;
        np++;
    }
    fclose(f);
    if (rc == 0 && ph_topo_from_pairs(P, pairs, np, t) != 0) {
        snprintf(why, wn, "%s: out of memory", path);
        rc = -1;
    }
    free(pairs);
    return rc;
}

/* ---- output helpers ---- */

static void o_dbl(out_t *o, double v)
{
    if (isnan(v))
        return; /* empty field */
    char tmp[32];
    int n = snprintf(tmp, sizeof(tmp), "%.10g", v);
    o_mem(o, tmp, (size_t)n);
}

static void j_dbl(out_t *o, double v) /* JSON: null for NaN/inf */
{
    if (!isfinite(v))
        o_str(o, "null");
    else
        o_dbl(o, v);
}

typedef struct csvf {
    out_t *o;
    char *path;
} csvf_t;

static int csv_open(csvf_t *c, const char *dir, const char *name)
{
    memset(c, 0, sizeof(*c));
    size_t len = strlen(dir) + strlen(name) + 2;
    c->path = malloc(len);
    c->o = malloc(sizeof(*c->o));
    if (c->path == NULL || c->o == NULL)
        return -1;
    snprintf(c->path, len, "%s/%s", dir, name);
    c->o->n = 0;
    c->o->f = fopen(c->path, "w");
    return c->o->f ? 0 : -1;
}

/* 0 on success; on failure a message on stderr */
static int csv_close(csvf_t *c)
{
    int rc = 0;
    if (c->o != NULL && c->o->f != NULL) {
        o_flush(c->o);
        if (ferror(c->o->f) || fclose(c->o->f) != 0) {
            fprintf(stderr, "phasor phases: writing %s: %s\n", c->path, strerror(errno));
            rc = -1;
        }
    }
    free(c->o);
    free(c->path);
    memset(c, 0, sizeof(*c));
    return rc;
}

enum { F_MARKERS, F_PHASES, F_ORDER, F_RATE, F_ENTROPY, F_GRAD, F_GRADS, F_POT, F_DTHETA,
       F_HIST, F_HEAT, F_CIRCLE, F_TOPO, F_LAG, F_WAVE, F_RESYNC, F__N };
static const char *const fname[F__N] = {
    "markers.csv", "phases.csv", "order.csv", "order_rate.csv", "entropy.csv", "gradient.csv",
    "gradient_signed.csv", "potential.csv", "dtheta.csv", "dtheta_hist.csv", "heatmap.csv",
    "circle.csv", "topology.csv", "lag.csv", "wave.csv", "resync.csv"};

/* ---- the computation ---- */

typedef struct state {
    const opts_t *op;
    plog_run_t *run;
    ph_marks_t marks;
    ph_grid_t grid;
    ph_compute_t comp;
    ph_topo_t topo;
    ph_topo_t wtopo;      /* T from the log for the idle wave when --topology is not log */
    int32_t P, with_phase;
    ph_timeline_t tl;
    double *theta, *scratch, *gabs, *gsig;
    int32_t *pairs;       /* (i, j) with j < i for dtheta.csv */
    size_t npairs;
    double median_period;
    /* summaries */
    double r_sum, r_min, r_last, s_sum, s_max, e_sum;
    int64_t r_min_t;
    size_t r_n;
    double *lag_sum, *lag_max, *lag_min;
    size_t *lag_n;
    ph_resync_t rs;
    ph_wave_t wave;
    double *Rg;           /* R at every grid point (the recovery) */
    ph_recovery_t rec;
    ph_twin_t twin;       /* --reference */
    int64_t *snap;        /* snapshot grid indices */
    size_t nsnap;
    pp_t *pp;             /* --plots: the figures' aggregates, else NULL */
} state_t;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int choose_pairs(state_t *s, char *why, size_t wn)
{
    const char *p = s->op->pairs;
    int all = strcmp(p, "all") == 0 || (strcmp(p, "auto") == 0 && s->P <= ALL_PAIRS_UP_TO);
    size_t cap = 0;
    if (all) {
        s->npairs = (size_t)s->P * (size_t)(s->P - 1) / 2;
        s->pairs = malloc((s->npairs ? s->npairs : 1) * 2 * sizeof(*s->pairs));
        if (s->pairs == NULL)
            return -1;
        size_t k = 0;
        for (int32_t i = 0; i < s->P; i++)
            for (int32_t j = 0; j < i; j++) {
                s->pairs[2 * k] = i;
                s->pairs[2 * k + 1] = j;
                k++;
            }
        return 0;
    }
    if (strcmp(p, "auto") == 0 || strcmp(p, "topo") == 0) {
        /* unordered pairs of the topology, as (larger, smaller) */
        s->pairs = malloc((s->topo.nnz ? s->topo.nnz : 1) * 2 * sizeof(*s->pairs));
        if (s->pairs == NULL)
            return -1;
        for (int32_t i = 0; i < s->P; i++)
            for (uint32_t k = s->topo.off[i]; k < s->topo.off[i + 1]; k++) {
                int32_t j = s->topo.nb[k];
                if (j < i || !ph_topo_has(&s->topo, j, i)) {
                    s->pairs[2 * s->npairs] = j < i ? i : j;
                    s->pairs[2 * s->npairs + 1] = j < i ? j : i;
                    s->npairs++;
                }
            }
        return 0;
    }
    /* i:j,i:j... */
    const char *c = p;
    while (*c) {
        char *end;
        long i = strtol(c, &end, 10);
        if (end == c || *end != ':') {
            snprintf(why, wn, "--pairs: expected auto, all, topo or i:j,i:j..., not '%s'", p);
            return -2;
        }
        c = end + 1;
        long j = strtol(c, &end, 10);
        if (end == c || (*end != ',' && *end != '\0') || i < 0 || j < 0 || i >= s->P ||
            j >= s->P || i == j) {
            snprintf(why, wn, "--pairs: '%s': ranks must be two different numbers below %d", p,
                     (int)s->P);
            return -2;
        }
        c = *end == ',' ? end + 1 : end;
        if (s->npairs == cap) {
            cap = cap ? 2 * cap : 16;
            int32_t *np = realloc(s->pairs, cap * 2 * sizeof(*np));
            if (np == NULL)
                return -1;
            s->pairs = np;
        }
        s->pairs[2 * s->npairs] = (int32_t)i;
        s->pairs[2 * s->npairs + 1] = (int32_t)j;
        s->npairs++;
    }
    return 0;
}

/* One pass over the grid: every timeline file and the running summaries. */
static int grid_pass(state_t *s, csvf_t *f)
{
    const ph_grid_t *G = &s->grid;
    out_t *oph = f[F_PHASES].o, *oor = f[F_ORDER].o, *ort = f[F_RATE].o, *oen = f[F_ENTROPY].o,
          *ogr = f[F_GRAD].o, *ogs = f[F_GRADS].o, *opt = f[F_POT].o, *odt = f[F_DTHETA].o;
    char tmp[64];
    if (oph) {
        o_str(oph, "t_ns");
        for (int32_t r = 0; r < s->P; r++) {
            snprintf(tmp, sizeof(tmp), ",theta_%d", (int)r);
            o_str(oph, tmp);
        }
        o_chr(oph, '\n');
    }
    if (oor)
        o_str(oor, "t_ns,R,psi\n");
    if (ort)
        o_str(ort, "t_ns,dR_dt\n");
    if (oen)
        o_str(oen, "t_ns,S,bins\n");
    if (opt)
        o_str(opt, "t_ns,E\n");
    for (int k = 0; k < 2; k++) {
        out_t *o = k ? ogs : ogr;
        if (!o)
            continue;
        o_str(o, "t_ns");
        for (int32_t r = 0; r < s->P; r++) {
            snprintf(tmp, sizeof(tmp), ",g_%d", (int)r);
            o_str(o, tmp);
        }
        o_chr(o, '\n');
    }
    if (odt) {
        o_str(odt, "t_ns");
        for (size_t p = 0; p < s->npairs; p++) {
            snprintf(tmp, sizeof(tmp), ",dtheta_%d_%d", (int)s->pairs[2 * p],
                     (int)s->pairs[2 * p + 1]);
            o_str(odt, tmp);
        }
        o_chr(odt, '\n');
    }
    ph_timeline_rewind(&s->tl);
    double R_prev2 = NAN, R_prev = NAN;
    int64_t t_prev = 0;
    s->r_min = 2;
    for (size_t g = 0; g < G->n; g++) {
        int64_t t = G->t0 + (int64_t)g * G->dt;
        ph_timeline_at(&s->tl, g, s->theta);
        double R, psi;
        ph_order(s->theta, (size_t)s->P, &R, &psi);
        uint32_t nb;
        double S = ph_entropy(s->theta, (size_t)s->P, psi, s->scratch, &nb);
        ph_gradient(s->theta, &s->topo, s->gabs, s->gsig);
        double E = ph_energy(s->theta, &s->topo, &s->op->pot);
        /* running summaries */
        s->r_sum += R;
        s->s_sum += S;
        s->e_sum += E;
        s->r_n++;
        if (S > s->s_max)
            s->s_max = S;
        if (R < s->r_min) {
            s->r_min = R;
            s->r_min_t = t;
        }
        s->r_last = R;
        s->Rg[g] = R;
        if (ph_resync_add(&s->rs, t, R) != 0)
            return -1;
        double mean = 0;
        size_t nm = 0;
        for (int32_t r = 0; r < s->P; r++)
            if (!isnan(s->theta[r])) {
                mean += s->theta[r];
                nm++;
            }
        mean = nm ? mean / (double)nm : 0;
        for (int32_t r = 0; r < s->P; r++) {
            if (isnan(s->theta[r]))
                continue;
            double lag = (mean - s->theta[r]) / (2 * M_PI);
            s->lag_sum[r] += lag;
            if (s->lag_n[r] == 0 || lag > s->lag_max[r])
                s->lag_max[r] = lag;
            if (s->lag_n[r] == 0 || lag < s->lag_min[r])
                s->lag_min[r] = lag;
            s->lag_n[r]++;
        }
        if (s->pp)
            pp_add(s->pp, g, s->theta, R, S, E, s->gabs);
        /* rows */
        if (oph) {
            o_i64(oph, t);
            for (int32_t r = 0; r < s->P; r++) {
                o_chr(oph, ',');
                o_dbl(oph, s->theta[r]);
            }
            o_chr(oph, '\n');
        }
        if (oor) {
            o_i64(oor, t);
            o_chr(oor, ',');
            o_dbl(oor, R);
            o_chr(oor, ',');
            o_dbl(oor, psi);
            o_chr(oor, '\n');
        }
        if (oen) {
            o_i64(oen, t);
            o_chr(oen, ',');
            o_dbl(oen, S);
            o_chr(oen, ',');
            o_u64(oen, nb);
            o_chr(oen, '\n');
        }
        if (opt) {
            o_i64(opt, t);
            o_chr(opt, ',');
            o_dbl(opt, E);
            o_chr(opt, '\n');
        }
        for (int k = 0; k < 2; k++) {
            out_t *o = k ? ogs : ogr;
            if (!o)
                continue;
            o_i64(o, t);
            for (int32_t r = 0; r < s->P; r++) {
                o_chr(o, ',');
                o_dbl(o, k ? s->gsig[r] : s->gabs[r]);
            }
            o_chr(o, '\n');
        }
        if (odt) {
            o_i64(odt, t);
            for (size_t p = 0; p < s->npairs; p++) {
                double d = s->theta[s->pairs[2 * p + 1]] - s->theta[s->pairs[2 * p]];
                o_chr(odt, ',');
                o_dbl(odt, s->op->wrap ? ph_wrap_pi(d) : d);
            }
            o_chr(odt, '\n');
        }
        /* dR/dt: central differences inside, one-sided at the ends, per second */
        if (ort && g >= 1) {
            double d = g == 1 ? (R - R_prev) : (R - R_prev2) / 2;
            o_i64(ort, t_prev);
            o_chr(ort, ',');
            o_dbl(ort, d / ((double)G->dt * 1e-9));
            o_chr(ort, '\n');
        }
        if (ort && g + 1 == G->n) {
            double d = g == 0 ? 0 : R - R_prev;
            o_i64(ort, t);
            o_chr(ort, ',');
            o_dbl(ort, d / ((double)G->dt * 1e-9));
            o_chr(ort, '\n');
        }
        R_prev2 = R_prev;
        R_prev = R;
        t_prev = t;
    }
    ph_resync_finish(&s->rs, G->t0 + (int64_t)(G->n - 1) * G->dt);
    return 0;
}

static void choose_snapshots(state_t *s)
{
    const ph_grid_t *G = &s->grid;
    size_t cap = s->op->snapshots + 1;
    if (s->op->at != NULL)
        for (const char *c = s->op->at; *c; c++)
            cap += *c == ',';
    s->snap = malloc((cap + 1) * sizeof(*s->snap));
    if (s->snap == NULL)
        return;
    if (s->op->at != NULL) {
        const char *c = s->op->at;
        while (*c) {
            char *end;
            long long t = strtoll(c, &end, 10);
            /* validated by the caller; nearest grid point, clamped */
            double gi = ((double)t - (double)G->t0) / (double)G->dt;
            long long k = llround(gi);
            if (k < 0)
                k = 0;
            if ((size_t)k >= G->n)
                k = (long long)G->n - 1;
            s->snap[s->nsnap++] = k;
            c = *end == ',' ? end + 1 : end;
        }
    } else {
        unsigned n = s->op->snapshots;
        for (unsigned k = 0; k < n; k++)
            s->snap[s->nsnap++] =
                n == 1 ? 0 : llround((double)k * (double)(G->n - 1) / (double)(n - 1));
        if (s->r_n > 0)
            s->snap[s->nsnap++] = (s->r_min_t - G->t0) / G->dt;
    }
    qsort(s->snap, s->nsnap, sizeof(*s->snap), cmp_i64);
    size_t k = 0;
    for (size_t i = 0; i < s->nsnap; i++)
        if (k == 0 || s->snap[i] != s->snap[k - 1])
            s->snap[k++] = s->snap[i];
    s->nsnap = k;
}

/* Snapshots: phase circle, histogram of all pairwise differences (j < i), heatmap. */
static int snapshot_pass(state_t *s, csvf_t *f)
{
    out_t *oc = f[F_CIRCLE].o, *oh = f[F_HIST].o, *om = f[F_HEAT].o;
    if (oc)
        o_str(oc, "t_ns,rank,theta,theta_wrapped,x,y\n");
    if (oh)
        o_str(oh, "t_ns,bin,lo,hi,count\n");
    if (om)
        o_str(om, "t_ns,i,j,dtheta\n");
    size_t np = (size_t)s->P * (size_t)(s->P - 1) / 2;
    double *d = oh ? malloc((np ? np : 1) * sizeof(*d)) : NULL;
    if (oh && d == NULL)
        return -1;
    for (size_t k = 0; k < s->nsnap; k++) {
        size_t g = (size_t)s->snap[k];
        int64_t t = s->grid.t0 + (int64_t)g * s->grid.dt;
        ph_timeline_rewind(&s->tl);
        ph_timeline_at(&s->tl, g, s->theta);
        for (int32_t r = 0; r < s->P && oc; r++) {
            double th = s->theta[r];
            if (isnan(th))
                continue;
            o_i64(oc, t);
            o_chr(oc, ',');
            o_i64(oc, r);
            o_chr(oc, ',');
            o_dbl(oc, th);
            o_chr(oc, ',');
            o_dbl(oc, ph_wrap_pi(th));
            o_chr(oc, ',');
            o_dbl(oc, cos(th));
            o_chr(oc, ',');
            o_dbl(oc, sin(th));
            o_chr(oc, '\n');
        }
        size_t n = 0;
        for (int32_t i = 0; i < s->P; i++)
            for (int32_t j = 0; j < s->P; j++) {
                if (isnan(s->theta[i]) || isnan(s->theta[j]))
                    continue;
                double v = s->theta[j] - s->theta[i];
                if (s->op->wrap)
                    v = ph_wrap_pi(v);
                if (om) {
                    o_i64(om, t);
                    o_chr(om, ',');
                    o_i64(om, i);
                    o_chr(om, ',');
                    o_i64(om, j);
                    o_chr(om, ',');
                    o_dbl(om, v);
                    o_chr(om, '\n');
                }
                if (d && j < i)
                    d[n++] = v;
            }
        ph_bins_t b = {0};
        if (oh && n > 0)
            ph_fd_bins(d, n, &b);
        if (s->pp && pp_want_snapshot(k, s->nsnap, s->snap[k], (s->r_min_t - s->grid.t0) /
                                      s->grid.dt) &&
            pp_snapshot(s->pp, t, s->theta, d, oh ? n : 0, &b) != 0) {
            free(d);
            return -1;
        }
        if (oh && n > 0) {
            size_t i = 0;
            for (uint32_t bin = 0; bin < b.n; bin++) {
                size_t c = 0;
                while (i < n && ph_bin_of(&b, d[i]) == bin) {
                    c++;
                    i++;
                }
                o_i64(oh, t);
                o_chr(oh, ',');
                o_u64(oh, bin);
                o_chr(oh, ',');
                o_dbl(oh, b.lo + bin * b.width);
                o_chr(oh, ',');
                o_dbl(oh, b.n == 1 ? b.lo + b.width : b.lo + (bin + 1) * b.width);
                o_chr(oh, ',');
                o_u64(oh, c);
                o_chr(oh, '\n');
            }
        }
    }
    free(d);
    return 0;
}

static void write_small_files(state_t *s, csvf_t *f)
{
    out_t *o;
    if ((o = f[F_MARKERS].o) != NULL) {
        o_str(o, "rank,iteration,t_ns,duration_ns,compute_ns\n");
        for (int32_t r = 0; r < s->P; r++)
            for (uint32_t k = 0; k < s->marks.n[r]; k++) {
                o_i64(o, r);
                o_chr(o, ',');
                o_u64(o, k);
                o_chr(o, ',');
                o_i64(o, s->marks.t[r][k]);
                o_chr(o, ',');
                if (k + 1 < s->marks.n[r]) {
                    o_i64(o, s->marks.t[r][k + 1] - s->marks.t[r][k]);
                    o_chr(o, ',');
                    if (s->marks.comp != NULL && s->marks.comp[r] != NULL)
                        o_dbl(o, s->marks.comp[r][k]);
                } else {
                    o_chr(o, ',');
                }
                o_chr(o, '\n');
            }
    }
    if ((o = f[F_TOPO].o) != NULL) {
        o_str(o, "i,j\n");
        for (int32_t i = 0; i < s->topo.n; i++)
            for (uint32_t k = s->topo.off[i]; k < s->topo.off[i + 1]; k++) {
                o_i64(o, i);
                o_chr(o, ',');
                o_i64(o, s->topo.nb[k]);
                o_chr(o, '\n');
            }
    }
    if ((o = f[F_LAG].o) != NULL) {
        o_str(o, "rank,iterations,mean_lag,min_lag,max_lag,mean_lag_ns\n");
        for (int32_t r = 0; r < s->P; r++) {
            o_i64(o, r);
            o_chr(o, ',');
            o_u64(o, s->marks.n[r] ? s->marks.n[r] - 1 : 0);
            if (s->lag_n[r] == 0) {
                o_str(o, ",,,,\n");
                continue;
            }
            double mean = s->lag_sum[r] / (double)s->lag_n[r];
            o_chr(o, ',');
            o_dbl(o, mean);
            o_chr(o, ',');
            o_dbl(o, s->lag_min[r]);
            o_chr(o, ',');
            o_dbl(o, s->lag_max[r]);
            o_chr(o, ',');
            o_dbl(o, mean * s->median_period);
            o_chr(o, '\n');
        }
    }
    if ((o = f[F_WAVE].o) != NULL) {
        o_str(o, "rank,distance,arrival_iteration,arrival_ns,idle_ns\n");
        for (int32_t r = 0; s->wave.found && r < s->P; r++) {
            if (s->wave.arrival_iter[r] < 0)
                continue;
            o_i64(o, r);
            o_chr(o, ',');
            o_i64(o, s->wave.distance[r]);
            o_chr(o, ',');
            o_i64(o, s->wave.arrival_iter[r]);
            o_chr(o, ',');
            o_i64(o, s->wave.arrival_ns[r]);
            o_chr(o, ',');
            o_dbl(o, s->wave.idle_ns[r]);
            o_chr(o, '\n');
        }
    }
    if ((o = f[F_RESYNC].o) != NULL) {
        o_str(o, "start_ns,min_ns,end_ns,R_min,recovered,duration_ns\n");
        for (size_t k = 0; k < s->rs.n; k++) {
            const ph_excursion_t *x = &s->rs.v[k];
            o_i64(o, x->start_ns);
            o_chr(o, ',');
            o_i64(o, x->min_ns);
            o_chr(o, ',');
            o_i64(o, x->end_ns);
            o_chr(o, ',');
            o_dbl(o, x->r_min);
            o_chr(o, ',');
            o_chr(o, x->recovered ? '1' : '0');
            o_chr(o, ',');
            if (x->recovered)
                o_i64(o, x->end_ns - x->start_ns);
            o_chr(o, '\n');
        }
    }
}

/* Every pass over the log adds the reader's warnings to the run again: list each once. */
static int warning_first(plog_run_t *run, size_t w)
{
    const char *x = plog_run_warning(run, w);
    for (size_t k = 0; k < w; k++)
        if (strcmp(plog_run_warning(run, k), x) == 0)
            return 0;
    return 1;
}

static const char *mode_name(int mode)
{
    switch (mode) {
    case PH_MARK_PCONTROL: return "pcontrol";
    case PH_MARK_CALL: return "call";
    case PH_MARK_PERIOD: return "period";
    default: return "auto";
    }
}

/* %.4g, or "undefined" when not finite (text output; JSON writes null) */
static void g4(char *out, double v)
{
    if (isfinite(v))
        snprintf(out, 32, "%.4g", v);
    else
        snprintf(out, 32, "undefined");
}

static void summary(state_t *s, out_t *o, int json, const char *path)
{
    const ph_mark_spec_t *u = &s->marks.used;
    uint32_t itmin = UINT32_MAX, itmax = 0;
    for (int32_t r = 0; r < s->P; r++)
        if (s->marks.n[r] >= 2) {
            if (s->marks.n[r] - 1 < itmin)
                itmin = s->marks.n[r] - 1;
            if (s->marks.n[r] - 1 > itmax)
                itmax = s->marks.n[r] - 1;
        }
    int32_t lag_rank = -1;
    double lag_best = -INFINITY;
    for (int32_t r = 0; r < s->P; r++)
        if (s->lag_n[r] && s->lag_sum[r] / (double)s->lag_n[r] > lag_best) {
            lag_best = s->lag_sum[r] / (double)s->lag_n[r];
            lag_rank = r;
        }
    const char *marker_call = u->mode == PH_MARK_PCONTROL ? "MPI_Pcontrol" : plog_call_name((unsigned)u->call);
    double rmean = s->r_n ? s->r_sum / (double)s->r_n : NAN;
    double smean = s->r_n ? s->s_sum / (double)s->r_n : NAN;
    double emean = s->r_n ? s->e_sum / (double)s->r_n : NAN;
    char tmp[512];
    if (!json) {
        snprintf(tmp, sizeof(tmp), "log: %s\nranks: %d, with a phase: %d\n", path, (int)s->P,
                 (int)s->with_phase);
        o_str(o, tmp);
        snprintf(tmp, sizeof(tmp), "iteration marker: %s (%s", mode_name(u->mode), marker_call);
        o_str(o, tmp);
        if (u->mode == PH_MARK_PCONTROL && u->level != PH_ANY_LEVEL) {
            snprintf(tmp, sizeof(tmp), ", level %d", (int)u->level);
            o_str(o, tmp);
        }
        if (u->mode != PH_MARK_PCONTROL && u->callsite) {
            snprintf(tmp, sizeof(tmp), " at site %#x", u->callsite);
            o_str(o, tmp);
        }
        if (s->marks.period) {
            snprintf(tmp, sizeof(tmp), ", period %u calls", s->marks.period);
            o_str(o, tmp);
        }
        snprintf(tmp, sizeof(tmp), ", every %u, skip %u, %s)\n", u->every, u->skip,
                 u->use_end ? "end" : "start");
        o_str(o, tmp);
        snprintf(tmp, sizeof(tmp),
                 "iterations per rank: %u..%u, median period %.0f ns\n"
                 "grid: %zu points from %" PRId64 " ns, step %" PRId64 " ns%s\n"
                 "topology: %zu edges (%s)\n",
                 itmin, itmax, s->median_period, s->grid.n, s->grid.t0, s->grid.dt,
                 s->op->compute_only ? ", phase advances during compute only" : "",
                 s->topo.nnz, s->op->topology);
        o_str(o, tmp);
        for (int32_t r = 0; r < s->P; r++) {
            const plog_rank_t *rk = plog_run_rank(s->run, r);
            if (rk != NULL && !rk->complete) {
                snprintf(tmp, sizeof(tmp), "note: rank %d's log ended early (%s)\n", (int)r,
                         s->marks.n[r] >= 2 ? "its phase ends with its last boundary"
                                            : "no phase");
                o_str(o, tmp);
            }
        }
        if (itmin != itmax)
            o_str(o, "note: the ranks have different numbers of iterations: make sure the k-th "
                     "boundary is the same iteration on every rank (--skip, --marker)\n");
        if (s->topo.nnz == 0)
            o_str(o, "note: no rank received from another (collectives do not count): gradients "
                     "and E are 0; --topology all or FILE gives another T\n");
        snprintf(tmp, sizeof(tmp),
                 "order parameter R: mean %.4f, min %.4f at %" PRId64 " ns, final %.4f\n"
                 "entropy S: mean %.4f, max %.4f; potential E (%s): mean %.6g\n",
                 rmean, s->r_min, s->r_min_t, s->r_last, smean, s->s_max, s->op->pot_text, emean);
        o_str(o, tmp);
        snprintf(tmp, sizeof(tmp), "resynchronisation (R >= %.3g): %zu excursion(s) below\n",
                 s->op->thr, s->rs.n);
        o_str(o, tmp);
        for (size_t k = 0; k < s->rs.n; k++) {
            const ph_excursion_t *x = &s->rs.v[k];
            if (k == 10) {
                snprintf(tmp, sizeof(tmp), "  ... %zu more (resync.csv, --json)\n", s->rs.n - k);
                o_str(o, tmp);
                break;
            }
            if (x->recovered)
                snprintf(tmp, sizeof(tmp),
                         "  from %" PRId64 " ns, R min %.4f at %" PRId64 " ns, back at %" PRId64
                         " ns after %.6g s\n",
                         x->start_ns, x->r_min, x->min_ns, x->end_ns,
                         (double)(x->end_ns - x->start_ns) * 1e-9);
            else
                snprintf(tmp, sizeof(tmp),
                         "  from %" PRId64 " ns, R min %.4f at %" PRId64 " ns, not recovered\n",
                         x->start_ns, x->r_min, x->min_ns);
            o_str(o, tmp);
        }
        if (s->wave.found) {
            /* a wave seen within one iteration, or over too few hops to fit, has no speed or
             * decay: say so rather than print nan */
            char v[4][32];
            g4(v[0], s->wave.ranks_per_iter);
            g4(v[1], s->wave.ranks_per_s);
            g4(v[2], s->wave.decay_ns_per_hop);
            g4(v[3], s->wave.decay_per_hop);
            snprintf(tmp, sizeof(tmp),
                     "idle wave: from rank %d, iteration %u (+%.0f ns), reached %u ranks, "
                     "%s ranks/iteration, %s ranks/s\n"
                     "  %d of %d hops (%s), idle period decays by %s ns per hop (%s of it)\n",
                     (int)s->wave.source, s->wave.source_iter, s->wave.source_excess_ns,
                     s->wave.reached, v[0], v[1], (int)s->wave.reach_hops,
                     (int)s->wave.extent_hops,
                     s->wave.directed ? "along the messages" : "rank index distance", v[2],
                     v[3]);
        } else
            snprintf(tmp, sizeof(tmp), "idle wave: none found\n");
        o_str(o, tmp);
        if (s->rec.found && s->rec.recovered)
            snprintf(tmp, sizeof(tmp),
                     "recovery (R back to %.4g = R_min %.4g + %.3g x the drop from %.4g): after "
                     "%.6g s = %.4g iterations\n",
                     s->rec.r_target, s->rec.r_min, s->op->recover_frac, s->rec.r_base,
                     (double)(s->rec.t_back - s->rec.t_from) * 1e-9,
                     s->median_period > 0
                         ? (double)(s->rec.t_back - s->rec.t_from) / s->median_period
                         : NAN);
        else if (s->rec.found)
            snprintf(tmp, sizeof(tmp),
                     "recovery: R (base %.4g) fell to %.4g and did not regain %.3g of the drop\n",
                     s->rec.r_base, s->rec.r_min, s->op->recover_frac);
        else
            snprintf(tmp, sizeof(tmp), "recovery: no drop of R after a delay\n");
        o_str(o, tmp);
        if (s->op->reference != NULL && s->twin.found) {
            snprintf(tmp, sizeof(tmp),
                     "against the reference: spread of the delay's shift %.4g ns at iteration %u "
                     "(base %.4g ns), ",
                     s->twin.peak_ns, s->twin.k_peak, s->twin.base_ns);
            o_str(o, tmp);
            if (s->twin.recovered)
                snprintf(tmp, sizeof(tmp), "back to %.4g ns %u iterations after the delay; ",
                         s->twin.target_ns, s->twin.k_back - s->twin.k0);
            else
                snprintf(tmp, sizeof(tmp), "not back to %.4g ns; ", s->twin.target_ns);
            o_str(o, tmp);
            snprintf(tmp, sizeof(tmp), "half the delay reached %d hops\n",
                     (int)s->twin.survival_hops);
            o_str(o, tmp);
        } else if (s->op->reference != NULL) {
            o_str(o, "against the reference: no shift that the delay made\n");
        }
        if (lag_rank >= 0) {
            snprintf(tmp, sizeof(tmp), "most lagging rank: %d (%.4g iterations behind the mean)\n",
                     (int)lag_rank, lag_best);
            o_str(o, tmp);
        }
        for (size_t w = 0; w < plog_run_nwarnings(s->run); w++)
            if (warning_first(s->run, w)) {
                o_str(o, "warning: ");
                o_str(o, plog_run_warning(s->run, w));
                o_chr(o, '\n');
            }
        return;
    }
    snprintf(tmp, sizeof(tmp), "{\"format\":%d,\"log\":", PHASES_FORMAT);
    o_str(o, tmp);
    o_jstr(o, path);
    snprintf(tmp, sizeof(tmp), ",\"ranks\":%d,\"ranks_with_phase\":%d,\"marker\":{\"mode\":\"%s\","
             "\"call\":\"%s\",\"level\":", (int)s->P, (int)s->with_phase, mode_name(u->mode),
             marker_call);
    o_str(o, tmp);
    if (u->mode == PH_MARK_PCONTROL && u->level != PH_ANY_LEVEL)
        o_i64(o, u->level);
    else
        o_str(o, "null");
    snprintf(tmp, sizeof(tmp), ",\"callsite\":%u,\"every\":%u,\"skip\":%u,\"edge\":\"%s\","
             "\"period_calls\":%u},", u->mode == PH_MARK_PCONTROL ? 0 : u->callsite, u->every,
             u->skip, u->use_end ? "end" : "start", s->marks.period);
    o_str(o, tmp);
    snprintf(tmp, sizeof(tmp), "\"iterations\":{\"min\":%u,\"max\":%u},\"median_period_ns\":",
             itmin == UINT32_MAX ? 0 : itmin, itmax);
    o_str(o, tmp);
    j_dbl(o, s->median_period);
    snprintf(tmp, sizeof(tmp), ",\"grid\":{\"t0_ns\":%" PRId64 ",\"dt_ns\":%" PRId64
             ",\"points\":%zu},\"compute_only\":%s,\"topology\":{\"source\":",
             s->grid.t0, s->grid.dt, s->grid.n, s->op->compute_only ? "true" : "false");
    o_str(o, tmp);
    o_jstr(o, s->op->topology);
    snprintf(tmp, sizeof(tmp), ",\"edges\":%zu},\"potential\":", s->topo.nnz);
    o_str(o, tmp);
    o_jstr(o, s->op->pot_text);
    o_str(o, ",\"order\":{\"R_mean\":");
    j_dbl(o, rmean);
    o_str(o, ",\"R_min\":");
    j_dbl(o, s->r_min);
    o_str(o, ",\"R_min_t_ns\":");
    o_i64(o, s->r_min_t);
    o_str(o, ",\"R_final\":");
    j_dbl(o, s->r_last);
    o_str(o, "},\"entropy\":{\"S_mean\":");
    j_dbl(o, smean);
    o_str(o, ",\"S_max\":");
    j_dbl(o, s->s_max);
    o_str(o, "},\"potential_mean\":");
    j_dbl(o, emean);
    o_str(o, ",\"resync\":{\"threshold\":");
    j_dbl(o, s->op->thr);
    o_str(o, ",\"excursions\":[");
    for (size_t k = 0; k < s->rs.n; k++) {
        const ph_excursion_t *x = &s->rs.v[k];
        snprintf(tmp, sizeof(tmp), "%s{\"start_ns\":%" PRId64 ",\"min_ns\":%" PRId64
                 ",\"end_ns\":%" PRId64 ",\"R_min\":", k ? "," : "", x->start_ns, x->min_ns,
                 x->end_ns);
        o_str(o, tmp);
        j_dbl(o, x->r_min);
        snprintf(tmp, sizeof(tmp), ",\"recovered\":%s,\"from_start\":%s,\"duration_ns\":",
                 x->recovered ? "true" : "false", x->preceded ? "false" : "true");
        o_str(o, tmp);
        if (x->recovered)
            o_i64(o, x->end_ns - x->start_ns);
        else
            o_str(o, "null");
        o_chr(o, '}');
    }
    o_str(o, "]},\"wave\":{\"found\":");
    o_str(o, s->wave.found ? "true" : "false");
    if (s->wave.found) {
        snprintf(tmp, sizeof(tmp), ",\"source\":%d,\"source_iteration\":%u,\"source_excess_ns\":",
                 (int)s->wave.source, s->wave.source_iter);
        o_str(o, tmp);
        j_dbl(o, s->wave.source_excess_ns);
        snprintf(tmp, sizeof(tmp), ",\"reached\":%u,\"ranks_per_iteration\":", s->wave.reached);
        o_str(o, tmp);
        j_dbl(o, s->wave.ranks_per_iter);
        o_str(o, ",\"ranks_per_second\":");
        j_dbl(o, s->wave.ranks_per_s);
        snprintf(tmp, sizeof(tmp), ",\"distance\":\"%s\",\"reach_hops\":%d,\"extent_hops\":%d,"
                 "\"decay_ns_per_hop\":", s->wave.directed ? "topology" : "index",
                 (int)s->wave.reach_hops, (int)s->wave.extent_hops);
        o_str(o, tmp);
        j_dbl(o, s->wave.decay_ns_per_hop);
        o_str(o, ",\"decay_per_hop\":");
        j_dbl(o, s->wave.decay_per_hop);
    }
    o_str(o, "},\"recovery\":{\"found\":");
    o_str(o, s->rec.found ? "true" : "false");
    o_str(o, ",\"fraction\":");
    j_dbl(o, s->op->recover_frac);
    o_str(o, ",\"R_base\":");
    j_dbl(o, s->rec.r_base);
    o_str(o, ",\"R_base_sd\":");
    j_dbl(o, s->rec.r_base_sd);
    o_str(o, ",\"R_min\":");
    j_dbl(o, s->rec.r_min);
    o_str(o, ",\"R_target\":");
    j_dbl(o, s->rec.r_target);
    o_str(o, ",\"R_tail\":");
    j_dbl(o, s->rec.r_tail);
    o_str(o, ",\"from_ns\":");
    if (s->wave.source >= 0)
        o_i64(o, s->rec.t_from);
    else
        o_str(o, "null");
    o_str(o, ",\"min_ns\":");
    if (s->rec.found)
        o_i64(o, s->rec.t_min);
    else
        o_str(o, "null");
    o_str(o, ",\"recovered\":");
    o_str(o, s->rec.recovered ? "true" : "false");
    o_str(o, ",\"duration_ns\":");
    if (s->rec.recovered)
        o_i64(o, s->rec.t_back - s->rec.t_from);
    else
        o_str(o, "null");
    o_str(o, ",\"iterations\":");
    j_dbl(o, s->rec.recovered && s->median_period > 0
                 ? (double)(s->rec.t_back - s->rec.t_from) / s->median_period
                 : NAN);
    if (s->op->reference != NULL) {
        o_str(o, "},\"twin\":{\"reference\":");
        o_jstr(o, s->op->reference);
        o_str(o, ",\"found\":");
        o_str(o, s->twin.found ? "true" : "false");
        snprintf(tmp, sizeof(tmp), ",\"iteration\":%u,\"base_ns\":", s->twin.k0);
        o_str(o, tmp);
        j_dbl(o, s->twin.base_ns);
        o_str(o, ",\"peak_ns\":");
        j_dbl(o, s->twin.peak_ns);
        snprintf(tmp, sizeof(tmp), ",\"peak_iteration\":%u,\"target_ns\":", s->twin.k_peak);
        o_str(o, tmp);
        j_dbl(o, s->twin.target_ns);
        o_str(o, ",\"recovered\":");
        o_str(o, s->twin.recovered ? "true" : "false");
        o_str(o, ",\"iterations\":");
        if (s->twin.recovered)
            o_i64(o, (int64_t)s->twin.k_back - (int64_t)s->twin.k0);
        else
            o_str(o, "null");
        o_str(o, ",\"source_reach_ns\":");
        j_dbl(o, s->twin.source_reach_ns);
        o_str(o, ",\"far_reach_ns\":");
        j_dbl(o, s->twin.far_reach_ns);
        snprintf(tmp, sizeof(tmp), ",\"survival_hops\":%d", (int)s->twin.survival_hops);
        o_str(o, tmp);
    }
    o_str(o, "},\"lag\":{\"rank\":");
    o_i64(o, lag_rank);
    o_str(o, ",\"mean_iterations\":");
    j_dbl(o, lag_rank >= 0 ? lag_best : NAN);
    o_str(o, "},\"files\":[");
    for (int k = 0; k < F__N && s->op->out; k++) {
        if (k)
            o_chr(o, ',');
        o_jstr(o, fname[k]);
    }
    for (int k = 0; k < PP_NFILES && s->pp; k++) {
        o_chr(o, ',');
        o_jstr(o, pp_files[k]);
    }
    if (s->op->out && s->op->reference)
        o_str(o, ",\"twin.csv\",\"twin_ranks.csv\"");
    o_str(o, "],\"incomplete_ranks\":[");
    for (int32_t r = 0, k = 0; r < s->P; r++) {
        const plog_rank_t *rk = plog_run_rank(s->run, r);
        if (rk != NULL && !rk->complete) {
            if (k++)
                o_chr(o, ',');
            o_i64(o, r);
        }
    }
    o_str(o, "],\"warnings\":[");
    for (size_t w = 0, k = 0; w < plog_run_nwarnings(s->run); w++)
        if (warning_first(s->run, w)) {
            if (k++)
                o_chr(o, ',');
            o_jstr(o, plog_run_warning(s->run, w));
        }
    o_str(o, "]}\n");
}

/* --plots: the figures and index.html, from the aggregates of the passes and the summary. */
static int write_plots(state_t *s, const char *path, char *why, size_t wn)
{
    const ph_mark_spec_t *u = &s->marks.used;
    char marker[160];
    snprintf(marker, sizeof(marker), "%s (%s%s)", mode_name(u->mode),
             u->mode == PH_MARK_PCONTROL ? "MPI_Pcontrol" : plog_call_name((unsigned)u->call),
             u->use_end ? ", end" : "");
    pp_summary_t sm = {.log = path, .marker = marker, .topology = s->op->topology,
                       .potential = s->op->pot_text, .ranks = s->P,
                       .with_phase = s->with_phase, .it_min = UINT32_MAX,
                       .median_period_ns = s->median_period, .thr = s->op->thr,
                       .r_mean = s->r_n ? s->r_sum / (double)s->r_n : NAN, .r_min = s->r_min,
                       .r_min_t = s->r_min_t, .s_mean = s->r_n ? s->s_sum / (double)s->r_n : NAN,
                       .e_mean = s->r_n ? s->e_sum / (double)s->r_n : NAN,
                       .compute_only = s->op->compute_only, .rs = &s->rs, .wave = &s->wave,
                       .period_ns = s->median_period};
    for (int32_t r = 0; r < s->P; r++)
        if (s->marks.n[r] >= 2) {
            if (s->marks.n[r] - 1 < sm.it_min)
                sm.it_min = s->marks.n[r] - 1;
            if (s->marks.n[r] - 1 > sm.it_max)
                sm.it_max = s->marks.n[r] - 1;
        }
    if (sm.it_min == UINT32_MAX)
        sm.it_min = 0;
    if (s->wave.found)
        sm.wave_t = s->marks.t[s->wave.source][s->wave.source_iter];
    double *lag = malloc((size_t)s->P * sizeof(double));
    if (lag == NULL) {
        snprintf(why, wn, "out of memory");
        return -1;
    }
    for (int32_t r = 0; r < s->P; r++)
        lag[r] = s->lag_n[r] ? s->lag_sum[r] / (double)s->lag_n[r] : NAN;
    sm.lag_mean = lag;
    int rc = pp_write(s->pp, &sm, s->op->out, why, wn);
    free(lag);
    return rc;
}

/* twin.csv (iteration,spread_ns) and twin_ranks.csv (rank,distance,reach_ns) into DIR;
 * prints the error itself */
static int write_twin(const state_t *s, const char *dir)
{
    for (int k = 0; k < 2; k++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, k ? "twin_ranks.csv" : "twin.csv");
        FILE *f = fopen(path, "w");
        if (f == NULL) {
            fprintf(stderr, "phasor phases: %s: %s\n", path, strerror(errno));
            return -1;
        }
        if (k == 0) {
            fputs("iteration,spread_ns\n", f);
            for (uint32_t i = 0; s->twin.spread_ns != NULL && i < s->twin.n; i++)
                if (isnan(s->twin.spread_ns[i]))
                    fprintf(f, "%u,\n", i);
                else
                    fprintf(f, "%u,%.17g\n", i, s->twin.spread_ns[i]);
        } else {
            fputs("rank,distance,reach_ns\n", f);
            for (int32_t r = 0; s->twin.reach_ns != NULL && r < s->P; r++) {
                fprintf(f, "%d,%d,", (int)r, (int)s->wave.distance[r]);
                if (!isnan(s->twin.reach_ns[r]))
                    fprintf(f, "%.17g", s->twin.reach_ns[r]);
                fputc('\n', f);
            }
        }
        if (fclose(f) != 0) {
            fprintf(stderr, "phasor phases: %s: %s\n", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* --reference: its boundaries by the same (resolved) marker spec, then the twin figures;
 * prints the error itself */
static int twin_pass(state_t *s, const char *ref)
{
    plog_run_t *run;
    plog_error_t err;
    ph_marks_t rm;
    memset(&rm, 0, sizeof(rm));
    if (plog_run_open(ref, &run, &err) != PLOG_OK) {
        fprintf(stderr, "phasor phases: --reference: %s\n", err.msg);
        return -1;
    }
    int rc = -1;
    if (plog_run_world_size(run) != s->P) {
        fprintf(stderr, "phasor phases: --reference %s: %d ranks, the log has %d\n", ref,
                (int)plog_run_world_size(run), (int)s->P);
        goto out;
    }
    if (ph_marks_find(run, &s->marks.used, &rm, &err) != PLOG_OK) {
        fprintf(stderr, "phasor phases: --reference: %s\n", err.msg);
        goto out;
    }
    {
        int32_t with = 0;
        for (int32_t r = 0; r < s->P; r++)
            with += rm.n[r] >= 2;
        if (with == 0) {
            fprintf(stderr, "phasor phases: --reference %s: no rank has two iteration boundaries "
                    "by the log's marker (%s)\n", ref, mode_name(s->marks.used.mode));
            goto out;
        }
    }
    if (s->wave.source < 0) {
        rc = 0; /* no delay to follow: twin.found stays false */
        s->twin.base_ns = s->twin.peak_ns = s->twin.target_ns = s->twin.source_reach_ns =
            s->twin.far_reach_ns = NAN;
        goto out;
    }
    if (ph_twin_find(&s->marks, &rm, s->wave.distance, s->wave.source, s->wave.source_iter,
                     s->op->recover_frac, &s->twin) != 0) {
        fprintf(stderr, "phasor phases: out of memory\n");
        goto out;
    }
    rc = 0;
out:
    ph_marks_free(&rm);
    plog_run_close(run);
    return rc;
}

int phasor_cmd_phases(int argc, char **argv)
{
    opts_t op = {.spec = {.mode = PH_MARK_AUTO, .level = PH_ANY_LEVEL, .every = 1},
                 .points = DEFAULT_POINTS,
                 .topology = "log",
                 .pairs = "auto",
                 .pot_text = "tanh",
                 .snapshots = 5,
                 .thr = 0.9,
                 .wave_frac = 0.5,
                 .recover_frac = 0.9,
                 .src_rank = -1};
    ph_potential_parse("tanh", &op.pot);
    enum { O_MARKER = 256, O_EVERY, O_SKIP, O_END, O_COMPUTE, O_DT, O_POINTS, O_TOPO, O_POT,
           O_PAIRS, O_WRAP, O_SNAP, O_AT, O_THR, O_WAVE, O_RECOVER, O_REF, O_SRC, O_JSON, O_PLOTS };
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
        {"plots", no_argument, NULL, O_PLOTS},
        {"recover-frac", required_argument, NULL, O_RECOVER},
        {"reference", required_argument, NULL, O_REF},
        {"source", required_argument, NULL, O_SRC},
        {"out", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int c;
    uint64_t u;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return PHASOR_EXIT_OK;
        case 'o':
            op.out = optarg;
            break;
        case O_MARKER:
            if (parse_marker(optarg, &op.spec) != 0)
                return phasor_usage_error("phases", "--marker: '%s' is not pcontrol[:LEVEL], "
                                          "auto, period or an MPI call[@SITE]", optarg);
            break;
        case O_EVERY:
            if (parse_u64(optarg, &u) != 0 || u == 0 || u > UINT32_MAX)
                return phasor_usage_error("phases", "--every needs a number >= 1, not '%s'", optarg);
            op.spec.every = (uint32_t)u;
            break;
        case O_SKIP:
            if (parse_u64(optarg, &u) != 0 || u > UINT32_MAX)
                return phasor_usage_error("phases", "--skip needs a number >= 0, not '%s'", optarg);
            op.spec.skip = (uint32_t)u;
            break;
        case O_END:
            op.spec.use_end = 1;
            break;
        case O_COMPUTE:
            op.compute_only = 1;
            break;
        case O_DT:
            if (parse_u64(optarg, &u) != 0 || u == 0 || u > INT64_MAX)
                return phasor_usage_error("phases", "--dt needs a step in ns >= 1, not '%s'", optarg);
            op.dt = (int64_t)u;
            break;
        case O_POINTS:
            if (parse_u64(optarg, &u) != 0 || u < 2 || u > 100000000)
                return phasor_usage_error("phases", "--points needs a number from 2 to 1e8, not '%s'",
                                          optarg);
            op.points = (size_t)u;
            break;
        case O_TOPO:
            op.topology = optarg;
            break;
        case O_POT:
            if (ph_potential_parse(optarg, &op.pot) != 0)
                return phasor_usage_error("phases", "--potential: '%s' is not sin, tanh, tanh:S, "
                                          "piecewise[:SIGMA] or fourier:A,B,N", optarg);
            op.pot_text = optarg;
            break;
        case O_PAIRS:
            op.pairs = optarg;
            break;
        case O_WRAP:
            op.wrap = 1;
            break;
        case O_SNAP:
            if (parse_u64(optarg, &u) != 0 || u > 1000)
                return phasor_usage_error("phases", "--snapshots needs a number from 0 to 1000, "
                                          "not '%s'", optarg);
            op.snapshots = (unsigned)u;
            break;
        case O_AT: {
            const char *p = optarg;
            while (*p) {
                char *end;
                errno = 0;
                strtoll(p, &end, 10);
                if (errno || end == p || (*end != ',' && *end != '\0'))
                    return phasor_usage_error("phases", "--at needs times in ns separated by "
                                              "commas, not '%s'", optarg);
                p = *end == ',' ? end + 1 : end;
            }
            op.at = optarg;
            break;
        }
        case O_THR:
            if (parse_dbl(optarg, &op.thr) != 0 || op.thr <= 0 || op.thr > 1)
                return phasor_usage_error("phases", "--threshold needs R in (0, 1], not '%s'", optarg);
            break;
        case O_WAVE:
            if (parse_dbl(optarg, &op.wave_frac) != 0 || op.wave_frac <= 0 || op.wave_frac > 1)
                return phasor_usage_error("phases", "--wave-frac needs a number in (0, 1], not '%s'",
                                          optarg);
            break;
        case O_RECOVER:
            if (parse_dbl(optarg, &op.recover_frac) != 0 || op.recover_frac <= 0 ||
                op.recover_frac > 1)
                return phasor_usage_error("phases",
                                          "--recover-frac needs a number in (0, 1], not '%s'",
                                          optarg);
            break;
        case O_REF:
            op.reference = optarg;
            break;
        case O_SRC: {
            char *e;
            errno = 0;
            long r = strtol(optarg, &e, 10);
            unsigned long k = 0;
            int bad = errno != 0 || e == optarg || *e != ':' || r < 0 || r > INT32_MAX;
            if (!bad) {
                char *e2;
                k = strtoul(e + 1, &e2, 10);
                bad = errno != 0 || e2 == e + 1 || *e2 != '\0' || e[1] == '-' || k > UINT32_MAX;
            }
            if (bad)
                return phasor_usage_error("phases", "--source needs RANK:ITERATION, not '%s'",
                                          optarg);
            op.src_rank = (int32_t)r;
            op.src_iter = (uint32_t)k;
            break;
        }
        case O_JSON:
            op.json = 1;
            break;
        case O_PLOTS:
            op.plots = 1;
            break;
        default:
            if (optopt == 'o' || (optopt >= O_MARKER && optopt != O_PLOTS))
                return phasor_usage_error("phases", "%s needs a value", argv[optind - 1]);
            return phasor_usage_error("phases", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return phasor_usage_error("phases", "%s", "which log? give a log directory or a rank file");
    if (argc - optind > 1)
        return phasor_usage_error("phases", "unexpected argument '%s'", argv[optind + 1]);
    if (strcmp(op.pairs, "auto") != 0 && strcmp(op.pairs, "all") != 0 &&
        strcmp(op.pairs, "topo") != 0 && strchr(op.pairs, ':') == NULL)
        return phasor_usage_error("phases", "--pairs: expected auto, all, topo or i:j,..., not '%s'",
                                  op.pairs);
    const char *path = argv[optind];
    if (op.plots && op.out == NULL)
        return phasor_usage_error("phases", "%s", "--plots needs -o DIR to write the figures into");

    plog_error_t err;
    state_t s;
    memset(&s, 0, sizeof(s));
    s.op = &op;
    if (plog_run_open(path, &s.run, &err) != PLOG_OK) {
        fprintf(stderr, "phasor phases: %s\n", err.msg);
        return err.code == PLOG_E_USAGE ? PHASOR_EXIT_USAGE : PHASOR_EXIT_INPUT;
    }
    s.P = plog_run_world_size(s.run);
    int status = PHASOR_EXIT_INPUT;
    csvf_t files[F__N];
    memset(files, 0, sizeof(files));
    char why[1200];
    if (ph_marks_find(s.run, &op.spec, &s.marks, &err) != PLOG_OK) {
        fprintf(stderr, "phasor phases: %s\n", err.msg);
        goto done;
    }
    for (int32_t r = 0; r < s.P; r++)
        s.with_phase += s.marks.n[r] >= 2;
    if (ph_grid_make(&s.marks, op.dt, op.points, &s.grid) != 0) {
        if (s.with_phase == 0)
            fprintf(stderr, "phasor phases: %s: no rank has two iteration boundaries (%s "
                    "markers); choose them with --marker\n", path, mode_name(s.marks.used.mode));
        else
            fprintf(stderr, "phasor phases: %s: the ranks' marked intervals do not overlap in "
                    "time; no common grid\n", path);
        goto done;
    }
    s.median_period = ph_median_period(&s.marks);
    /* compute times per iteration (the idle wave's source) and T_ij in one pass */
    int topo_log = strcmp(op.topology, "log") == 0;
    if (ph_marks_compute(s.run, &s.marks, topo_log ? &s.topo : &s.wtopo, &err) != PLOG_OK) {
        fprintf(stderr, "phasor phases: %s\n", err.msg);
        goto done;
    }
    if (topo_log) {
        /* done */
    } else if (strcmp(op.topology, "all") == 0) {
        if (ph_topo_all(s.P, &s.topo) != 0) {
            fprintf(stderr, "phasor phases: out of memory\n");
            goto done;
        }
    } else if (read_topology(op.topology, s.P, &s.topo, why, sizeof(why)) != 0) {
        fprintf(stderr, "phasor phases: %s\n", why);
        goto done;
    }
    if (op.compute_only && ph_compute_fill(s.run, &s.marks, &s.grid, &s.comp, &err) != PLOG_OK) {
        fprintf(stderr, "phasor phases: %s\n", err.msg);
        goto done;
    }
    size_t P = (size_t)s.P;
    s.theta = malloc(P * sizeof(double));
    s.scratch = malloc(P * sizeof(double));
    s.gabs = malloc(P * sizeof(double));
    s.gsig = malloc(P * sizeof(double));
    s.lag_sum = calloc(P, sizeof(double));
    s.lag_min = calloc(P, sizeof(double));
    s.lag_max = calloc(P, sizeof(double));
    s.lag_n = calloc(P, sizeof(size_t));
    s.Rg = malloc((s.grid.n ? s.grid.n : 1) * sizeof(double));
    if (ph_timeline_init(&s.tl, &s.marks, op.compute_only ? &s.comp : NULL, &s.grid) != 0 ||
        !s.theta || !s.scratch || !s.gabs || !s.gsig || !s.lag_sum || !s.lag_min ||
        !s.lag_max || !s.lag_n || !s.Rg) {
        fprintf(stderr, "phasor phases: out of memory\n");
        goto done;
    }
    int pr = choose_pairs(&s, why, sizeof(why));
    if (pr == -2) {
        status = phasor_usage_error("phases", "%s", why);
        goto done;
    }
    if (pr != 0) {
        fprintf(stderr, "phasor phases: out of memory\n");
        goto done;
    }
    if (op.out != NULL) {
        if (mkdir(op.out, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "phasor phases: %s: cannot create: %s\n", op.out, strerror(errno));
            goto done;
        }
        for (int k = 0; k < F__N; k++)
            if (csv_open(&files[k], op.out, fname[k]) != 0) {
                fprintf(stderr, "phasor phases: %s: %s\n",
                        files[k].path ? files[k].path : op.out, strerror(errno));
                goto done;
            }
    }
    static pp_t pp;
    if (op.plots) {
        if (pp_init(&pp, s.P, &s.grid, s.pairs, s.npairs, op.wrap) != 0) {
            pp_free(&pp);
            fprintf(stderr, "phasor phases: out of memory\n");
            goto done;
        }
        s.pp = &pp;
    }
    ph_resync_init(&s.rs, op.thr);
    if (grid_pass(&s, files) != 0 ||
        (op.src_rank >= 0
             ? ph_wave_find_at(&s.marks, topo_log ? &s.topo : &s.wtopo, op.wave_frac, op.src_rank,
                               op.src_iter, &s.wave)
             : ph_wave_find(&s.marks, topo_log ? &s.topo : &s.wtopo, op.wave_frac, &s.wave)) != 0) {
        fprintf(stderr, "phasor phases: out of memory\n");
        goto done;
    }
    /* recovery from the idle wave's source iteration on (a source suffices: noise can hide
     * the wave's waits and still leave the delay's effect) */
    if (s.wave.source >= 0) {
        if (ph_recovery_find(s.Rg, &s.grid, s.marks.t[s.wave.source][s.wave.source_iter],
                             (int64_t)s.median_period, op.recover_frac, &s.rec) != 0) {
            fprintf(stderr, "phasor phases: out of memory\n");
            goto done;
        }
    } else {
        s.rec.r_base = s.rec.r_base_sd = s.rec.r_min = s.rec.r_target = s.rec.r_tail = NAN;
    }
    if (op.reference != NULL && twin_pass(&s, op.reference) != 0)
        goto done;
    choose_snapshots(&s);
    if (s.snap == NULL || snapshot_pass(&s, files) != 0) {
        fprintf(stderr, "phasor phases: out of memory\n");
        goto done;
    }
    write_small_files(&s, files);
    if (op.out != NULL && op.reference != NULL && write_twin(&s, op.out) != 0)
        goto done;
    if (s.pp != NULL && write_plots(&s, path, why, sizeof(why)) != 0) {
        fprintf(stderr, "phasor phases: %s\n", why);
        goto done;
    }
    status = PHASOR_EXIT_OK;
    for (int k = 0; k < F__N; k++)
        if (csv_close(&files[k]) != 0)
            status = PHASOR_EXIT_INPUT;
    if (status == PHASOR_EXIT_OK) {
        static out_t o;
        o.f = stdout;
        o.n = 0;
        summary(&s, &o, op.json, path);
        o_flush(&o);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "phasor phases: writing the summary: %s\n", strerror(errno));
            status = PHASOR_EXIT_INPUT;
        }
    }
done:
    for (int k = 0; k < F__N; k++)
        csv_close(&files[k]);
    ph_marks_free(&s.marks);
    ph_compute_free(&s.comp);
    ph_topo_free(&s.topo);
    ph_topo_free(&s.wtopo);
    ph_resync_free(&s.rs);
    ph_wave_free(&s.wave);
    ph_twin_free(&s.twin);
    ph_timeline_free(&s.tl);
    free(s.theta);
    free(s.scratch);
    free(s.gabs);
    free(s.gsig);
    free(s.pairs);
    free(s.lag_sum);
    free(s.lag_min);
    free(s.lag_max);
    free(s.lag_n);
    free(s.Rg);
    free(s.snap);
    if (s.pp)
        pp_free(s.pp);
    plog_run_close(s.run);
    return status;
}
