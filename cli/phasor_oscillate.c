/* phasor_oscillate.c: `phasor oscillate`: the coupled-oscillator model fitted to a run and run
 * side by side with it (analysis/oscillate.h), or, with --model, the model alone from options
 * or a configuration file. Text or --json on stdout; -o DIR: CSV files, and with --plots SVG
 * overlays (measured solid, model dashed) and the phases page with a section of the model.
 * The outputs and the configuration file are described in doc/oscillate.md. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofile.h"
#include "oscillate.h"
#include "phases_plot.h"
#include "phasor_cmd.h"
#include "phasor_out.h"
#include "phasor_phases.h"
#include "phasor_svg.h"
#include "plog_reader.h"

#define OSC_FORMAT 1        /* version of the JSON summary and the files' layout */
#define CONFIG_VERSION 1    /* the configuration file's version */
#define DEFAULT_POINTS 4000 /* grid points at most */

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: phasor oscillate <log-dir> [-o OUT] [--json] [options]\n"
        "       phasor oscillate --model [CONFIG.json] [-o OUT] [--json] [options]\n"
        "The coupled-oscillator model d theta_i/dt = omega_i + zeta_i(t)\n"
        "  + (v_p/P) sum_j T_ij V(theta_j(t - tau_ij) - theta_i(t)) (doc/oscillate.md).\n"
        "With a log: the model fitted to the run (omega, v_p, T, tau, noise, the\n"
        "perturbation, the potential and its shape), integrated from the measured phases at\n"
        "the start, and compared with the run figure by figure: R(t), S(t), E(t), g_i(t),\n"
        "the resynchronisation time, the idle wave's speed and reach, the final pattern.\n"
        "With --model: the model alone, for exploring it.\n"
        "\n"
        "Fit (with a log):\n"
        "  --marker SPEC, --every N, --skip N, --marker-end   iteration boundaries, as for\n"
        "                              phasor phases (default: Pcontrol markers, else period)\n"
        "  --source R:K                the perturbation: rank R, iteration K (default: the\n"
        "                              idle wave's source)\n"
        "  --potential auto|paper|tanh|bottleneck|wait|SPEC  the family fitted (default auto:\n"
        "                              the best of the paper's tanh(s x) and bottleneck\n"
        "                              piecewise form and phasor's wait potential; paper: the\n"
        "                              paper's two), or a fixed V (sin, tanh:S, piecewise:SIGMA,\n"
        "                              fourier:A,B,N, wait:SIGMA:S)\n"
        "  --delay auto|fit|none|SECONDS  tau_ij: per pair from the log's messages (default),\n"
        "                              one value for every pair fitted with the shape, none,\n"
        "                              or one value given\n"
        "  --noise auto|none|uniform:SHARE|exp:SHARE  zeta: from the iteration times' spread\n"
        "                              (default), or as given (SHARE of omega)\n"
        "  --start NS                  the model starts from the measured phases at this time\n"
        "                              (aligned ns, as phasor phases prints them; default: the\n"
        "                              iterations' common start)\n"
        "  --seed N                    the noise's seed (default 1)\n"
        "  --fit-evals N               integrations per golden-section search (default 14)\n"
        "  --what-if CHANGE            also run the fitted model with one change:\n"
        "                              noise=SHARE, coupling=FACTOR, topology=SPEC, delay=S,\n"
        "                              perturbation=S\n"
        "Model alone (--model; a CONFIG file's values come first, options override them):\n"
        "  -P, --ranks N               oscillators (default 16)\n"
        "  --topology SPEC|FILE.csv    chain[:uni|bi][:dD], ring[...], stencil2d[:AxB][:periodic],\n"
        "                              stencil3d[:AxBxC][:periodic], all (default chain:bi), or\n"
        "                              a CSV matrix: row i nonzero in column j if i receives\n"
        "                              from j (its size gives P unless -P is given)\n"
        "  --potential SPEC            V (default tanh; also wait[:SIGMA[:S]])\n"
        "  --period S                  2 pi / omega, seconds (default 0.01)\n"
        "  --vp V                      v_p, 1/s (default 2 / period: beta = 1, kappa = 2)\n"
        "  --noise none|uniform:SHARE|exp:SHARE, --seed N\n"
        "  --delay S                   tau for every pair (default 0)\n"
        "  --perturb R:T:D             rank R held back D seconds at time T (default none)\n"
        "  --init zero|random[:SEED]|splay|local:K:V   initial phases (default zero)\n"
        "  --periods N                 integrate N periods (default 100)\n"
        "Integrator (Dormand-Prince 5(4)):\n"
        "  --rtol X, --atol X          tolerances (default 1e-3, 1e-6, as ode45)\n"
        "  --max-step S                longest step, seconds (default a tenth of a period)\n"
        "Output:\n"
        "  --points N                  grid points at most (default %d)\n"
        "  -o, --out DIR               CSV files (and with --plots the figures) into DIR\n"
        "  --plots                     SVG overlays and index.html (with a log: the phases\n"
        "                              page with a section of the model)\n"
        "  --json                      the summary as one JSON object on stdout\n"
        "  -h, --help                  this text\n"
        "\n"
        "Exit status: 0 success, 1 unreadable log or input, 2 bad usage.\n",
        DEFAULT_POINTS);
}

/* ---- options ---- */

typedef struct osc_opts {
    osf_opts_t fit;
    const char *path;       /* the log, or the configuration file with --model */
    const char *out;
    int json, plots, model_only;
    const char *whatif;     /* --what-if as given */
    /* --model */
    int32_t P;
    const char *topology, *potential, *init;
    double period, vp, delay, perturb[3];
    int have_perturb, have_vp;
    osc_noise_t noise;
    double periods;
    size_t points;
    /* which of them were given on the command line (they override the file) */
    unsigned given;
} osc_opts_t;

enum {
    G_P = 1, G_TOPO = 2, G_POT = 4, G_PERIOD = 8, G_VP = 16, G_NOISE = 32, G_DELAY = 64,
    G_PERTURB = 128, G_INIT = 256, G_PERIODS = 512, G_SEED = 1024
};

enum {
    O_MARKER = 256, O_EVERY, O_SKIP, O_MARKER_END, O_SOURCE, O_POTENTIAL, O_DELAY, O_NOISE,
    O_SEED, O_FIT_EVALS, O_WHATIF, O_MODEL, O_TOPOLOGY, O_PERIOD, O_VP, O_PERTURB, O_INIT,
    O_PERIODS, O_RTOL, O_ATOL, O_MAX_STEP, O_POINTS, O_PLOTS, O_JSON, O_START
};

static int num_arg(const char *opt, const char *s, double lo, double *v)
{
    return phasor_num_arg("oscillate", opt, s, lo, 0, v);
}

static int uint_arg(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || end == s || *end != '\0' || s[0] == '-' || x < lo || x > hi)
        return phasor_usage_error("oscillate", "%s: '%s' is not an integer in %" PRIu64
                                  " .. %" PRIu64, opt, s, lo, hi);
    *v = x;
    return PHASOR_EXIT_OK;
}

/* "none", "uniform:SHARE", "exp:SHARE" (and "auto" when allow_auto: kind -1). */
static int noise_arg(const char *s, int allow_auto, int *kind, double *share)
{
    char tail;
    if (allow_auto && strcmp(s, "auto") == 0) {
        *kind = -1;
        return 0;
    }
    if (strcmp(s, "none") == 0) {
        *kind = OSC_NOISE_NONE;
        *share = 0;
        return 0;
    }
    if (sscanf(s, "uniform:%lf%c", share, &tail) == 1 && *share >= 0 && isfinite(*share)) {
        *kind = OSC_NOISE_UNIFORM;
        return 0;
    }
    if (sscanf(s, "exp:%lf%c", share, &tail) == 1 && *share >= 0 && isfinite(*share)) {
        *kind = OSC_NOISE_EXP;
        return 0;
    }
    return -1;
}

static int whatif_arg(const char *s, osf_whatif_t *w)
{
    const char *eq = strchr(s, '=');
    if (eq == NULL)
        return -1;
    size_t k = (size_t)(eq - s);
    const char *v = eq + 1;
    char *end;
    double x = strtod(v, &end);
    int num = end != v && *end == '\0' && isfinite(x) && x >= 0;
    w->active = 1;
    if (k == 5 && strncmp(s, "noise", 5) == 0) {
        if (noise_arg(v, 0, &w->noise_kind, &w->noise_share) == 0)
            return 0;
        if (!num)
            return -1;
        w->noise_share = x;
        return 0;
    }
    if (k == 8 && strncmp(s, "coupling", 8) == 0 && num) {
        w->coupling = x;
        return 0;
    }
    if (k == 5 && strncmp(s, "delay", 5) == 0 && num) {
        w->delay_s = x;
        return 0;
    }
    if (k == 12 && strncmp(s, "perturbation", 12) == 0 && num) {
        w->perturb_s = x;
        return 0;
    }
    if (k == 8 && strncmp(s, "topology", 8) == 0) {
        osc_topo_spec_t t;
        if (osc_topo_parse(v, &t) != 0 && access(v, F_OK) != 0)
            return -1; /* neither a topology nor a file (read with the run) */
        w->topology = v;
        return 0;
    }
    return -1;
}

static int take(int c, const char *arg, osc_opts_t *op)
{
    osf_opts_t *fo = &op->fit;
    ph_study_opts_t *so = &fo->study;
    uint64_t u = 0;
    double x = 0;
    int st;
    switch (c) {
    case 'o': op->out = arg; return PHASOR_EXIT_OK;
    case O_JSON: op->json = 1; return PHASOR_EXIT_OK;
    case O_PLOTS: op->plots = 1; return PHASOR_EXIT_OK;
    case O_MODEL: op->model_only = 1; return PHASOR_EXIT_OK;
    case O_MARKER:
        if (phases_marker_arg(arg, &so->spec) != 0)
            return phasor_usage_error("oscillate", "--marker: '%s' is not auto, period, "
                                      "pcontrol[:LEVEL] or an MPI call[@SITE]", arg);
        return PHASOR_EXIT_OK;
    case O_EVERY:
        if ((st = uint_arg("--every", arg, 1, UINT32_MAX, &u)) != 0)
            return st;
        so->spec.every = (uint32_t)u;
        return PHASOR_EXIT_OK;
    case O_SKIP:
        if ((st = uint_arg("--skip", arg, 0, UINT32_MAX, &u)) != 0)
            return st;
        so->spec.skip = (uint32_t)u;
        return PHASOR_EXIT_OK;
    case O_MARKER_END: so->spec.use_end = 1; return PHASOR_EXIT_OK;
    case O_SOURCE: {
        long r;
        unsigned long k;
        char tail;
        if (sscanf(arg, "%ld:%lu%c", &r, &k, &tail) != 2 || r < 0 || r > INT32_MAX ||
            k > UINT32_MAX)
            return phasor_usage_error("oscillate", "--source: '%s' is not RANK:ITERATION", arg);
        so->src_rank = (int32_t)r;
        so->src_iter = (uint32_t)k;
        return PHASOR_EXIT_OK;
    }
    case O_POTENTIAL:
        op->potential = arg;
        op->given |= G_POT;
        if (strcmp(arg, "auto") == 0)
            fo->family = OSF_FAM_AUTO;
        else if (strcmp(arg, "tanh") == 0)
            fo->family = OSF_FAM_TANH;
        else if (strcmp(arg, "bottleneck") == 0)
            fo->family = OSF_FAM_BOTTLENECK;
        else if (strcmp(arg, "wait") == 0)
            fo->family = OSF_FAM_WAIT;
        else if (strcmp(arg, "paper") == 0)
            fo->family = OSF_FAM_PAPER;
        else if (osc_pot_parse(arg, &fo->pot) == 0)
            fo->family = OSF_FAM_FIXED;
        else
            return phasor_usage_error("oscillate", "--potential: '%s' is not auto, paper, tanh, "
                                      "bottleneck, wait, sin, tanh:S, piecewise[:SIGMA], "
                                      "fourier:A,B,N or wait:SIGMA[:S]", arg);
        return PHASOR_EXIT_OK;
    case O_DELAY:
        op->given |= G_DELAY;
        if (strcmp(arg, "auto") == 0) {
            fo->delay_mode = OSF_DELAY_AUTO;
            return PHASOR_EXIT_OK;
        }
        if (strcmp(arg, "fit") == 0) {
            fo->delay_mode = OSF_DELAY_FIT;
            return PHASOR_EXIT_OK;
        }
        if (strcmp(arg, "none") == 0) {
            fo->delay_mode = OSF_DELAY_NONE;
            op->delay = 0;
            return PHASOR_EXIT_OK;
        }
        if ((st = num_arg("--delay", arg, 0, &x)) != 0)
            return st;
        fo->delay_mode = OSF_DELAY_CONST;
        fo->delay_s = op->delay = x;
        return PHASOR_EXIT_OK;
    case O_NOISE: {
        int kind;
        double share = 0;
        if (noise_arg(arg, 1, &kind, &share) != 0)
            return phasor_usage_error("oscillate", "--noise: '%s' is not auto, none, "
                                      "uniform:SHARE or exp:SHARE", arg);
        fo->noise_kind = kind;
        fo->noise_share = share;
        op->noise.kind = kind < 0 ? OSC_NOISE_NONE : kind;
        op->noise.share = share;
        op->given |= G_NOISE;
        return PHASOR_EXIT_OK;
    }
    case O_SEED:
        if ((st = uint_arg("--seed", arg, 0, UINT64_MAX, &u)) != 0)
            return st;
        fo->seed = op->noise.seed = u;
        op->given |= G_SEED;
        return PHASOR_EXIT_OK;
    case O_START: {
        char *end;
        errno = 0;
        long long t = strtoll(arg, &end, 10);
        if (errno || end == arg || *end != '\0')
            return phasor_usage_error("oscillate", "--start: '%s' is not a time in ns", arg);
        fo->start_ns = t;
        return PHASOR_EXIT_OK;
    }
    case O_FIT_EVALS:
        if ((st = uint_arg("--fit-evals", arg, 4, 200, &u)) != 0)
            return st;
        fo->fit_evals = (unsigned)u;
        return PHASOR_EXIT_OK;
    case O_WHATIF:
        op->whatif = arg;
        if (whatif_arg(arg, &fo->whatif) != 0)
            return phasor_usage_error("oscillate", "--what-if: '%s' is not noise=SHARE, "
                                      "coupling=FACTOR, topology=SPEC, delay=S or "
                                      "perturbation=S", arg);
        return PHASOR_EXIT_OK;
    case 'P':
        if ((st = uint_arg("--ranks", arg, 1, 1 << 24, &u)) != 0)
            return st;
        op->P = (int32_t)u;
        op->given |= G_P;
        return PHASOR_EXIT_OK;
    case O_TOPOLOGY: {
        osc_topo_spec_t t;
        if (osc_topo_parse(arg, &t) != 0 && access(arg, F_OK) != 0)
            return phasor_usage_error("oscillate", "--topology: '%s' is not a topology nor a "
                                      "file", arg);
        op->topology = arg;
        op->given |= G_TOPO;
        return PHASOR_EXIT_OK;
    }
    case O_PERIOD:
        if ((st = num_arg("--period", arg, 1e-9, &op->period)) != 0)
            return st;
        op->given |= G_PERIOD;
        return PHASOR_EXIT_OK;
    case O_VP:
        if ((st = num_arg("--vp", arg, 0, &op->vp)) != 0)
            return st;
        op->have_vp = 1;
        op->given |= G_VP;
        return PHASOR_EXIT_OK;
    case O_PERTURB: {
        long r;
        char tail;
        if (sscanf(arg, "%ld:%lf:%lf%c", &r, &op->perturb[1], &op->perturb[2], &tail) != 3 ||
            r < 0 || !(op->perturb[1] >= 0) || !(op->perturb[2] > 0) ||
            !isfinite(op->perturb[1]) || !isfinite(op->perturb[2]))
            return phasor_usage_error("oscillate", "--perturb: '%s' is not RANK:TIME:DELAY "
                                      "(seconds, the delay > 0)", arg);
        op->perturb[0] = (double)r;
        op->have_perturb = 1;
        op->given |= G_PERTURB;
        return PHASOR_EXIT_OK;
    }
    case O_INIT: {
        osc_init_t in;
        if (osc_init_parse(arg, &in) != 0)
            return phasor_usage_error("oscillate", "--init: '%s' is not zero, random[:SEED], "
                                      "splay or local:K:V", arg);
        op->init = arg;
        op->given |= G_INIT;
        return PHASOR_EXIT_OK;
    }
    case O_PERIODS:
        if ((st = num_arg("--periods", arg, 1e-3, &op->periods)) != 0)
            return st;
        op->given |= G_PERIODS;
        return PHASOR_EXIT_OK;
    case O_RTOL: return num_arg("--rtol", arg, 1e-14, &fo->solver.rtol);
    case O_ATOL: return num_arg("--atol", arg, 1e-14, &fo->solver.atol);
    case O_MAX_STEP: return num_arg("--max-step", arg, 1e-12, &fo->solver.h_max);
    case O_POINTS:
        if ((st = uint_arg("--points", arg, 2, 10000000, &u)) != 0)
            return st;
        op->points = (size_t)u;
        return PHASOR_EXIT_OK;
    }
    return PHASOR_EXIT_USAGE;
}

static int parse(int argc, char **argv, osc_opts_t *op)
{
    static const struct option lo[] = {
        {"out", required_argument, NULL, 'o'},      {"json", no_argument, NULL, O_JSON},
        {"plots", no_argument, NULL, O_PLOTS},      {"model", no_argument, NULL, O_MODEL},
        {"marker", required_argument, NULL, O_MARKER},
        {"every", required_argument, NULL, O_EVERY}, {"skip", required_argument, NULL, O_SKIP},
        {"marker-end", no_argument, NULL, O_MARKER_END},
        {"source", required_argument, NULL, O_SOURCE},
        {"potential", required_argument, NULL, O_POTENTIAL},
        {"delay", required_argument, NULL, O_DELAY}, {"noise", required_argument, NULL, O_NOISE},
        {"seed", required_argument, NULL, O_SEED},
        {"fit-evals", required_argument, NULL, O_FIT_EVALS},
        {"start", required_argument, NULL, O_START},
        {"what-if", required_argument, NULL, O_WHATIF},
        {"ranks", required_argument, NULL, 'P'},
        {"topology", required_argument, NULL, O_TOPOLOGY},
        {"period", required_argument, NULL, O_PERIOD}, {"vp", required_argument, NULL, O_VP},
        {"perturb", required_argument, NULL, O_PERTURB},
        {"init", required_argument, NULL, O_INIT},
        {"periods", required_argument, NULL, O_PERIODS},
        {"rtol", required_argument, NULL, O_RTOL}, {"atol", required_argument, NULL, O_ATOL},
        {"max-step", required_argument, NULL, O_MAX_STEP},
        {"points", required_argument, NULL, O_POINTS},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
    memset(op, 0, sizeof(*op));
    osf_opts_defaults(&op->fit);
    ph_study_opts_t *so = &op->fit.study;
    phases_study_defaults(so);
    op->P = 16;
    op->topology = "chain:bi";
    op->potential = "tanh";
    op->init = "zero";
    op->period = 0.01;
    op->periods = 100;
    op->points = DEFAULT_POINTS;
    op->noise.seed = 1;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":o:P:h", lo, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return PHASOR_EXIT_OK;
        }
        if (c == '?' || c == ':')
            return phasor_getopt_error("oscillate", c, argv);
        int st = take(c, optarg, op);
        if (st != PHASOR_EXIT_OK)
            return st;
    }
    if (op->plots && op->out == NULL)
        return phasor_usage_error("oscillate", "--plots writes into the directory of -o");
    if (op->model_only) {
        if (optind + 1 < argc)
            return phasor_usage_error("oscillate", "--model takes at most one configuration "
                                      "file, not '%s'", argv[optind + 1]);
        op->path = optind < argc ? argv[optind] : NULL;
        if (op->fit.whatif.active)
            return phasor_usage_error("oscillate", "--what-if changes a fitted run: give the "
                                      "change itself to --model");
        return PHASOR_CONTINUE;
    }
    if (op->given & (G_P | G_TOPO | G_PERIOD | G_VP | G_PERTURB | G_INIT | G_PERIODS))
        return phasor_usage_error("oscillate", "--ranks, --topology, --period, --vp, "
                                  "--perturb, --init and --periods describe a model alone: "
                                  "add --model");
    so->points = op->points;
    return phasor_log_arg("oscillate", argc, argv, 1, &op->path) == PHASOR_EXIT_OK
               ? PHASOR_CONTINUE
               : PHASOR_EXIT_USAGE;
}

/* ---- the configuration file of --model ---- */

/* A key of the file, unless the command line gave it (bit). */
static int cfg_want(const osc_opts_t *op, unsigned bit) { return !(op->given & bit); }

static int cfg_fail(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfg_fail(const char *path, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "phasor oscillate: %s: ", path);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return PHASOR_EXIT_INPUT;
}

static int cfg_num(json_t *root, const char *path, const char *key, double lo, double *v,
                   int *had)
{
    json_t *x = json_object_get(root, key);
    if (x == NULL)
        return 0;
    if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < lo)
        return cfg_fail(path, "\"%s\" is not a number >= %g", key, lo);
    *v = json_number_value(x);
    if (had)
        *had = 1;
    return 0;
}

static int cfg_str(json_t *root, const char *path, const char *key, const char **v)
{
    json_t *x = json_object_get(root, key);
    if (x == NULL)
        return 0;
    if (!json_is_string(x))
        return cfg_fail(path, "\"%s\" is not a string", key);
    *v = json_string_value(x);
    return 0;
}

/* Reads op->path into op (keys the command line did not give); the strings stay in *doc. */
static int read_config(osc_opts_t *op, json_t **doc)
{
    const char *p = op->path;
    json_error_t je;
    json_t *root = json_load_file(p, JSON_REJECT_DUPLICATES, &je);
    *doc = root;
    if (root == NULL)
        return cfg_fail(p, "line %d: %s", je.line, je.text);
    if (!json_is_object(root))
        return cfg_fail(p, "not a JSON object");
    const char *fmt = NULL;
    json_t *ver = json_object_get(root, "version");
    if (cfg_str(root, p, "format", &fmt) || fmt == NULL ||
        strcmp(fmt, "phasor-oscillator-config") != 0)
        return cfg_fail(p, "\"format\" is not \"phasor-oscillator-config\"");
    if (!json_is_integer(ver) || json_integer_value(ver) != CONFIG_VERSION)
        return cfg_fail(p, "\"version\" is not %d (this phasor reads version %d)",
                        CONFIG_VERSION, CONFIG_VERSION);
    static const char *const known[] = {"format", "version", "ranks", "topology", "potential",
                                        "period_s", "vp_per_s", "noise", "seed", "delay_s",
                                        "perturbation", "init", "periods"};
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        size_t k = 0;
        while (k < sizeof(known) / sizeof(*known) && strcmp(key, known[k]) != 0)
            k++;
        if (k == sizeof(known) / sizeof(*known))
            return cfg_fail(p, "unknown key \"%s\"", key);
    }
    double x;
    int had = 0, rc;
    if (cfg_want(op, G_P)) {
        if ((rc = cfg_num(root, p, "ranks", 1, &x, &had)) != 0)
            return rc;
        if (had) {
            if (x != floor(x) || x > (1 << 24))
                return cfg_fail(p, "\"ranks\" is not an integer in 1 .. %d", 1 << 24);
            op->P = (int32_t)x;
        }
    }
    const char *s = NULL;
    if (cfg_want(op, G_TOPO) && (rc = cfg_str(root, p, "topology", &s)) != 0)
        return rc;
    if (s != NULL) {
        osc_topo_spec_t t;
        if (osc_topo_parse(s, &t) != 0 && access(s, F_OK) != 0)
            return cfg_fail(p, "\"topology\": '%s' is not a topology nor a file", s);
        op->topology = s;
    }
    s = NULL;
    if (cfg_want(op, G_POT) && (rc = cfg_str(root, p, "potential", &s)) != 0)
        return rc;
    if (s != NULL) {
        osc_pot_t pot;
        if (osc_pot_parse(s, &pot) != 0)
            return cfg_fail(p, "\"potential\": '%s' is not a potential", s);
        op->potential = s;
    }
    if (cfg_want(op, G_PERIOD) && (rc = cfg_num(root, p, "period_s", 1e-9, &op->period, NULL)))
        return rc;
    if (cfg_want(op, G_VP) && (rc = cfg_num(root, p, "vp_per_s", 0, &op->vp, &op->have_vp)))
        return rc;
    if (cfg_want(op, G_DELAY) && (rc = cfg_num(root, p, "delay_s", 0, &op->delay, NULL)))
        return rc;
    if (cfg_want(op, G_PERIODS) && (rc = cfg_num(root, p, "periods", 1e-3, &op->periods, NULL)))
        return rc;
    s = NULL;
    if (cfg_want(op, G_NOISE) && (rc = cfg_str(root, p, "noise", &s)) != 0)
        return rc;
    if (s != NULL && noise_arg(s, 0, &op->noise.kind, &op->noise.share) != 0)
        return cfg_fail(p, "\"noise\": '%s' is not none, uniform:SHARE or exp:SHARE", s);
    had = 0;
    if (cfg_want(op, G_SEED) && (rc = cfg_num(root, p, "seed", 0, &x, &had)) != 0)
        return rc;
    if (had)
        op->noise.seed = (uint64_t)x;
    s = NULL;
    if (cfg_want(op, G_INIT) && (rc = cfg_str(root, p, "init", &s)) != 0)
        return rc;
    if (s != NULL) {
        osc_init_t in;
        if (osc_init_parse(s, &in) != 0)
            return cfg_fail(p, "\"init\": '%s' is not zero, random[:SEED], splay or local:K:V",
                            s);
        op->init = s;
    }
    json_t *pe = json_object_get(root, "perturbation");
    if (pe != NULL && cfg_want(op, G_PERTURB)) {
        double r = -1;
        if (!json_is_object(pe) || cfg_num(pe, p, "rank", 0, &r, NULL) ||
            cfg_num(pe, p, "t_s", 0, &op->perturb[1], NULL) ||
            cfg_num(pe, p, "delta_s", 1e-12, &op->perturb[2], NULL) || r < 0 ||
            r != floor(r) || op->perturb[2] <= 0)
            return cfg_fail(p, "\"perturbation\" is not {\"rank\": R, \"t_s\": T, "
                            "\"delta_s\": D} with D > 0");
        op->perturb[0] = r;
        op->have_perturb = 1;
    }
    return 0;
}

/* ---- writing ---- */

static void j_key(out_t *o, const char *key)
{
    o_jstr(o, key);
    o_chr(o, ':');
}

static void j_num(out_t *o, const char *key, double v)
{
    j_key(o, key);
    o_jnum(o, v, 10);
}

static void j_pair(out_t *o, const char *key, double model, double meas, int last)
{
    j_key(o, key);
    o_str(o, "{\"model\":");
    o_jnum(o, model, 10);
    o_str(o, ",\"measured\":");
    o_jnum(o, meas, 10);
    o_str(o, last ? "}" : "},");
}

static void j_stats(out_t *o, const osc_stats_t *s, double cpu)
{
    o_str(o, "{\"steps\":");
    o_u64(o, s->steps);
    o_str(o, ",\"rejected\":");
    o_u64(o, s->rejected);
    o_str(o, ",\"evaluations\":");
    o_u64(o, s->evals);
    o_str(o, ",\"history_peak\":");
    o_u64(o, s->history_peak);
    o_str(o, ",\"bytes_peak\":");
    o_u64(o, s->bytes_peak);
    o_str(o, ",\"seconds\":");
    o_jnum(o, cpu, 6);
    o_chr(o, '}');
}

static double wave_speed(const osf_figures_t *f)
{
    return f->wave.found ? f->wave.ranks_per_iter : NAN;
}

static double wave_reach(const osf_figures_t *f)
{
    return f->wave.reached ? (double)f->wave.reach_hops : NAN;
}

static void j_figures(out_t *o, const osf_figures_t *f)
{
    o_str(o, "{\"r_mean\":");
    o_jnum(o, f->r_mean, 10);
    o_str(o, ",\"s_mean\":");
    o_jnum(o, f->s_mean, 10);
    o_str(o, ",\"e_mean\":");
    o_jnum(o, f->e_mean, 10);
    o_str(o, ",\"g_mean\":");
    o_jnum(o, f->g_mean, 10);
    o_str(o, ",\"r_tail\":");
    o_jnum(o, f->r_tail, 10);
    o_str(o, ",\"resync_s\":");
    o_jnum(o, f->resync_s, 10);
    o_str(o, ",\"wave_speed_ranks_per_iteration\":");
    o_jnum(o, wave_speed(f), 10);
    o_str(o, ",\"wave_reach_hops\":");
    o_jnum(o, wave_reach(f), 10);
    o_str(o, ",\"final_pattern\":");
    o_jstr(o, osf_pattern_name(f->pattern));
    o_chr(o, '}');
}

static void model_json(out_t *o, const osc_model_t *m)
{
    char pot[80];
    osc_pot_format(&m->pot, pot, sizeof(pot));
    o_str(o, "{\"ranks\":");
    o_i64(o, m->n);
    o_str(o, ",\"potential\":");
    o_jstr(o, pot);
    o_str(o, ",\"vp_per_s\":");
    o_jnum(o, m->vp, 10);
    o_str(o, ",\"edges\":");
    o_u64(o, m->graph->nnz);
    o_str(o, m->forward ? ",\"forward\":true" : ",\"forward\":false");
    o_str(o, ",\"noise\":{\"kind\":");
    o_jstr(o, m->noise.kind == OSC_NOISE_UNIFORM ? "uniform"
              : m->noise.kind == OSC_NOISE_EXP   ? "exp"
                                                 : "none");
    o_str(o, ",\"share\":");
    o_jnum(o, m->noise.share, 10);
    o_str(o, "},\"perturbations\":[");
    for (size_t k = 0; k < m->nperturb; k++) {
        o_str(o, k ? ",{\"rank\":" : "{\"rank\":");
        o_i64(o, m->perturb[k].rank);
        o_str(o, ",\"t_s\":");
        o_jnum(o, m->perturb[k].t, 10);
        o_str(o, ",\"delta_s\":");
        o_jnum(o, m->perturb[k].delta, 10);
        o_chr(o, '}');
    }
    o_str(o, "]}");
}

/* ---- CSV files ---- */

typedef struct csv {
    ofile_t of;
    out_t *o;
} csv_t;

static int csv_open(csv_t *c, int dirfd, const char *dir, const char *name)
{
    memset(c, 0, sizeof(*c));
    c->o = malloc(sizeof(*c->o));
    if (c->o == NULL || ofile_open(&c->of, dirfd, name) != 0) {
        fprintf(stderr, "phasor oscillate: %s/%s: %s\n", dir, name,
                c->o ? strerror(errno) : "out of memory");
        free(c->o);
        c->o = NULL;
        return -1;
    }
    c->o->f = c->of.f;
    c->o->n = 0;
    return 0;
}

static int csv_close(csv_t *c, const char *dir, const char *name)
{
    o_flush(c->o);
    int rc = ofile_close(&c->of, 1);
    if (rc != 0)
        fprintf(stderr, "phasor oscillate: writing %s/%s: %s\n", dir, name, strerror(errno));
    free(c->o);
    return rc;
}

static void c_num(out_t *o, double v)
{
    o_chr(o, ',');
    if (isfinite(v)) {
        char b[32];
        int n = snprintf(b, sizeof(b), "%.9g", v);
        o_mem(o, b, (size_t)n);
    }
}

/* The sides of a comparison, NULL where there is none. */
typedef struct sides {
    const ph_grid_t *grid;
    const osf_series_t *meas, *model, *whatif;
} sides_t;

static int write_series(const sides_t *sd, int dirfd, const char *dir)
{
    static const char name[] = "oscillate.csv";
    csv_t c;
    if (csv_open(&c, dirfd, dir, name) != 0)
        return -1;
    const osf_series_t *v[3] = {sd->meas, sd->model, sd->whatif};
    static const char *const side[3] = {"measured", "model", "whatif"};
    static const char *const what[4] = {"R", "S", "E", "g_mean"};
    o_str(c.o, "t_ns");
    for (int w = 0; w < 4; w++)
        for (int k = 0; k < 3; k++)
            if (v[k] != NULL) {
                o_chr(c.o, ',');
                o_str(c.o, what[w]);
                o_chr(c.o, '_');
                o_str(c.o, side[k]);
            }
    o_chr(c.o, '\n');
    for (size_t g = 0; g < sd->grid->n; g++) {
        o_i64(c.o, sd->grid->t0 + (int64_t)g * sd->grid->dt);
        for (int w = 0; w < 4; w++)
            for (int k = 0; k < 3; k++)
                if (v[k] != NULL) {
                    const double *x = w == 0 ? v[k]->R : w == 1 ? v[k]->S : w == 2 ? v[k]->E
                                                                            : v[k]->gmean;
                    c_num(c.o, x[g]);
                }
        o_chr(c.o, '\n');
    }
    return csv_close(&c, dir, name);
}

/* One value per rank and grid point (x: n x P, row by row). */
static int write_ranks(const ph_grid_t *grid, int32_t P, const float *x, int dirfd,
                       const char *dir, const char *name, const char *prefix)
{
    csv_t c;
    if (csv_open(&c, dirfd, dir, name) != 0)
        return -1;
    o_str(c.o, "t_ns");
    for (int32_t i = 0; i < P; i++) {
        o_chr(c.o, ',');
        o_str(c.o, prefix);
        o_i64(c.o, i);
    }
    o_chr(c.o, '\n');
    for (size_t g = 0; g < grid->n; g++) {
        o_i64(c.o, grid->t0 + (int64_t)g * grid->dt);
        for (int32_t i = 0; i < P; i++)
            c_num(c.o, x[g * (size_t)P + (size_t)i]);
        o_chr(c.o, '\n');
    }
    return csv_close(&c, dir, name);
}

static int write_marks(const ph_marks_t *m, int dirfd, const char *dir, const char *name)
{
    csv_t c;
    if (csv_open(&c, dirfd, dir, name) != 0)
        return -1;
    o_str(c.o, "rank,iteration,t_ns\n");
    for (int32_t r = 0; r < m->nranks; r++)
        for (uint32_t k = 0; k < m->n[r]; k++) {
            o_i64(c.o, r);
            o_chr(c.o, ',');
            o_u64(c.o, k);
            o_chr(c.o, ',');
            o_i64(c.o, m->t[r][k]);
            o_chr(c.o, '\n');
        }
    return csv_close(&c, dir, name);
}

static int write_params(const osf_fit_t *f, int dirfd, const char *dir)
{
    static const char name[] = "parameters.csv";
    csv_t c;
    if (csv_open(&c, dirfd, dir, name) != 0)
        return -1;
    o_str(c.o, "name,value,distance,distance_at_0.8,distance_at_1.2,how\n");
    for (size_t k = 0; k < f->nparam; k++) {
        const osf_param_t *p = &f->param[k];
        o_str(c.o, p->name);
        c_num(c.o, p->value);
        c_num(c.o, p->d_at);
        c_num(c.o, p->d_lo);
        c_num(c.o, p->d_hi);
        o_str(c.o, ",\"");
        for (const char *s = p->how; *s; s++) {
            if (*s == '"')
                o_chr(c.o, '"');
            o_chr(c.o, *s);
        }
        o_str(c.o, "\"\n");
    }
    return csv_close(&c, dir, name);
}

/* ---- figures ---- */

#define OVL_N 4
static const char *const ovl_file[OVL_N] = {"osc_r.svg", "osc_s.svg", "osc_e.svg", "osc_g.svg"};
static const char *const ovl_title[OVL_N] = {
    "Order parameter R(t): model against measured", "Synchronisation entropy S(t)",
    "Potential energy E(t)", "Mean phase gradient over ranks, g(t)"};
static const char *const ovl_ylab[OVL_N] = {"R", "S (nats)", "E", "mean g_i (rad)"};

static const double *ovl_values(const osf_series_t *s, int w)
{
    return w == 0 ? s->R : w == 1 ? s->S : w == 2 ? s->E : s->gmean;
}

/* Measured solid, model dashed, what-if dotted, over time in seconds from the grid's start;
 * a vertical line at the perturbation. */
static int overlay(const sides_t *sd, int w, double t_perturb, FILE *f)
{
    size_t n = sd->grid->n;
    double *x = malloc((n ? n : 1) * sizeof(double));
    if (x == NULL)
        return -1;
    for (size_t g = 0; g < n; g++)
        x[g] = (double)g * (double)sd->grid->dt / 1e9;
    const osf_series_t *v[3] = {sd->meas, sd->model, sd->whatif};
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < 3; k++)
        for (size_t g = 0; v[k] != NULL && g < n; g++) {
            double y = ovl_values(v[k], w)[g];
            if (isfinite(y)) {
                lo = fmin(lo, y);
                hi = fmax(hi, y);
            }
        }
    if (!isfinite(lo)) {
        lo = 0;
        hi = 1;
    }
    if (w == 0) {
        lo = fmin(lo, 0);
        hi = fmax(hi, 1);
    }
    if (!(hi > lo))
        hi = lo + 1;
    const int W = 900, H = 420;
    svg_begin(f, W, H, ovl_title[w], "measured: solid; model: dashed; what-if: dotted");
    svg_plot_t p = {.f = f, .x0 = 0, .x1 = n > 1 ? x[n - 1] : 1, .y0 = lo, .y1 = hi,
                    .x = 80, .y = 56, .w = W - 110, .h = H - 56 - 110};
    svg_axes(&p, 1, 1, "time since the grid's start (s)", ovl_ylab[w]);
    if (isfinite(t_perturb))
        svg_vline(&p, t_perturb, "#d62728", "4,3", "perturbation");
    static const char *const col[3] = {"#1f77b4", "#ff7f0e", "#2ca02c"};
    static const char *const dash[3] = {NULL, "6,4", "2,3"};
    static const char *const lab[3] = {"measured", "model", "what-if"};
    svg_key_t keys[3];
    size_t nk = 0;
    for (int k = 0; k < 3; k++)
        if (v[k] != NULL) {
            svg_polyline(&p, x, ovl_values(v[k], w), n, col[k], 1.5, dash[k]);
            keys[nk++] = (svg_key_t){lab[k], col[k], dash[k], 1.5};
        }
    svg_legend(&p, keys, nk);
    free(x);
    return svg_end(f);
}

static int write_overlays(const sides_t *sd, double t_perturb, int dirfd, const char *dir)
{
    for (int w = 0; w < OVL_N; w++) {
        ofile_t of;
        if (ofile_open(&of, dirfd, ovl_file[w]) != 0) {
            fprintf(stderr, "phasor oscillate: %s/%s: %s\n", dir, ovl_file[w], strerror(errno));
            return -1;
        }
        int rc = overlay(sd, w, t_perturb, of.f);
        if (ofile_close(&of, rc == 0) != 0 || rc != 0) {
            fprintf(stderr, "phasor oscillate: writing %s/%s: %s\n", dir, ovl_file[w],
                    rc != 0 && errno == 0 ? "out of memory" : strerror(errno ? errno : EIO));
            return -1;
        }
    }
    return 0;
}

/* The model's section of the page: the overlays and the comparison's table (HTML). */
static char *html_section(const osf_fit_t *f, const char *pot)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *h = open_memstream(&buf, &len);
    if (h == NULL)
        return NULL;
    fprintf(h, "<h2 id=\"model\">The coupled-oscillator model against the run</h2>\n"
               "<p>Fitted by <code>phasor oscillate</code>: V = <code>%s</code>, v_p = %.4g /s "
               "(gain %.3g on the formula's), %zu integrations in %.2f s. Measured solid, model "
               "dashed (doc/oscillate.md).</p>\n<table>\n<tr><th></th><th>model</th>"
               "<th>measured</th></tr>\n", pot, f->model.vp,
            f->model.vp / f->vp_formula, (size_t)f->evals, f->fit_s);
    const osf_figures_t *a = &f->model_side.fig, *b = &f->mfig;
    struct { const char *name; double m, x; } row[] = {
        {"R mean", a->r_mean, b->r_mean},
        {"S mean (nats)", a->s_mean, b->s_mean},
        {"E mean", a->e_mean, b->e_mean},
        {"resynchronisation (s)", a->resync_s, b->resync_s},
        {"idle wave (ranks / iteration)", wave_speed(a), wave_speed(b)},
        {"idle wave reach (hops)", wave_reach(a), wave_reach(b)}};
    for (size_t k = 0; k < sizeof(row) / sizeof(*row); k++)
        fprintf(h, "<tr><th>%s</th><td>%.4g</td><td>%.4g</td></tr>\n", row[k].name, row[k].m,
                row[k].x);
    fprintf(h, "<tr><th>final pattern</th><td>%s</td><td>%s</td></tr>\n</table>\n"
               "<p>RMS of R(t) model - measured: %.4g; of S(t): %.4g; phase pattern distance "
               "%.4g rad.</p>\n", osf_pattern_name(a->pattern), osf_pattern_name(b->pattern),
            f->r_rms, f->s_rms, osf_distance(&f->model_side.ser, &f->meas));
    for (int w = 0; w < OVL_N; w++)
        fprintf(h, "<figure><img src=\"%s\" alt=\"%s\"></figure>\n", ovl_file[w], ovl_file[w]);
    if (fclose(h) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- the summary ---- */

static void t_row(out_t *o, const char *name, double model, const double *meas, const char *dist)
{
    char b[200];
    if (meas == NULL)
        snprintf(b, sizeof(b), "  %-34s %12.5g\n", name, model);
    else
        snprintf(b, sizeof(b), "  %-34s %12.5g %12.5g  %s\n", name, model, *meas, dist);
    o_str(o, b);
}


/* The figures of the model (a), beside the measured ones (b) and their distances (f) when
 * there is a run. */
static void text_figures(out_t *o, const osf_figures_t *a, const osf_figures_t *b,
                         const osf_fit_t *f)
{
    char d[80] = "";
    double x;
#define MEAS(v) (b != NULL ? (x = (v), &x) : NULL)
#define DIST(...) (f != NULL ? snprintf(d, sizeof(d), __VA_ARGS__) : 0)
    if (b != NULL)
        o_fmt(o, "  %-34s %12s %12s  %s\n", "", "model", "measured", "distance");
    DIST("RMS of R(t): %.4g", f->r_rms);
    t_row(o, "R mean", a->r_mean, MEAS(b->r_mean), d);
    DIST("RMS of S(t): %.4g", f->s_rms);
    t_row(o, "S mean (nats)", a->s_mean, MEAS(b->s_mean), d);
    DIST("relative: %.3g", f->e_rel);
    t_row(o, "E mean", a->e_mean, MEAS(b->e_mean), d);
    DIST("RMS of mean g(t): %.4g", f->g_rms);
    t_row(o, "g mean (rad)", a->g_mean, MEAS(b->g_mean), d);
    DIST("relative: %.3g", f->resync_rel);
    t_row(o, "resynchronisation (s)", a->resync_s, MEAS(b->resync_s), d);
    DIST("relative: %.3g", f->wave_speed_rel);
    t_row(o, "idle wave speed (ranks/iteration)", wave_speed(a), MEAS(wave_speed(b)), d);
    t_row(o, "idle wave reach (hops)", wave_reach(a), MEAS(wave_reach(b)), "");
    t_row(o, "R over the last quarter", a->r_tail, MEAS(b->r_tail), "");
#undef MEAS
#undef DIST
    if (b != NULL)
        o_fmt(o, "  %-34s %12s %12s\n", "final pattern", osf_pattern_name(a->pattern),
              osf_pattern_name(b->pattern));
    else
        o_fmt(o, "  %-34s %12s\n", "final pattern", osf_pattern_name(a->pattern));
}

static void text_fit(out_t *o, const osc_opts_t *op, const osf_fit_t *f)
{
    const ph_study_t *st = &f->st;
    char pot[80];
    osc_pot_format(&f->model.pot, pot, sizeof(pot));
    o_fmt(o, "phasor oscillate: %s: %d ranks, %zu grid points of %.4g ms, T_ij %zu edges\n",
          op->path, (int)st->P, f->grid.n, (double)f->grid.dt / 1e6, f->graph.nnz);
    o_fmt(o, "\nFitted model (V = %s; %u integrations, %.2f s)\n", pot, f->evals, f->fit_s);
    o_fmt(o, "  %-22s %12s  %-27s %s\n", "parameter", "value", "distance at 0.8x 1x 1.2x",
          "how");
    for (size_t k = 0; k < f->nparam; k++) {
        const osf_param_t *p = &f->param[k];
        char dd[64] = "";
        if (!isnan(p->d_at))
            snprintf(dd, sizeof(dd), "%.3g %.3g %.3g", p->d_lo, p->d_at, p->d_hi);
        o_fmt(o, "  %-22s %12.5g  %-27s %s\n", p->name, p->value, dd, p->how);
    }
    o_fmt(o, "  families: tanh %.4g rad, bottleneck %.4g rad, wait %.4g rad (distance of the "
             "phase pattern)\n",
          f->fam[OSF_FAM_TANH].tried ? f->fam[OSF_FAM_TANH].distance : NAN,
          f->fam[OSF_FAM_BOTTLENECK].tried ? f->fam[OSF_FAM_BOTTLENECK].distance : NAN,
          f->fam[OSF_FAM_WAIT].tried ? f->fam[OSF_FAM_WAIT].distance : NAN);
    o_fmt(o, "\nModel against measured (perturbation: ");
    if (f->src_rank >= 0)
        o_fmt(o, "rank %d, iteration %u, %.4g ms)\n", (int)f->src_rank, f->src_iter,
              f->src_delta_s * 1e3);
    else
        o_fmt(o, "none found)\n");
    text_figures(o, &f->model_side.fig, &f->mfig, f);
    o_fmt(o, "  phase pattern distance %.4g rad (RMS of theta_i - mean, model - measured)\n",
          osf_distance(&f->model_side.ser, &f->meas));
    if (f->have_whatif) {
        o_fmt(o, "\nWhat if %s (the fitted model with that one change):\n", op->whatif);
        o_fmt(o, "  %-34s %12s %12s %12s\n", "", "what-if", "model", "measured");
        const osf_figures_t *w = &f->whatif_side.fig, *a = &f->model_side.fig, *b = &f->mfig;
        o_fmt(o, "  %-34s %12.5g %12.5g %12.5g\n", "R mean", w->r_mean, a->r_mean, b->r_mean);
        o_fmt(o, "  %-34s %12.5g %12.5g %12.5g\n", "resynchronisation (s)", w->resync_s,
              a->resync_s, b->resync_s);
        o_fmt(o, "  %-34s %12.5g %12.5g %12.5g\n", "idle wave speed (ranks/iteration)",
              wave_speed(w), wave_speed(a), wave_speed(b));
        o_fmt(o, "  %-34s %12s %12s %12s\n", "final pattern", osf_pattern_name(w->pattern),
              osf_pattern_name(a->pattern), osf_pattern_name(b->pattern));
    }
    for (size_t k = 0; k < plog_run_nwarnings(st->run); k++)
        o_fmt(o, "warning: %s\n", plog_run_warning(st->run, k));
}

static void json_params(out_t *o, const osf_fit_t *f)
{
    o_str(o, "\"parameters\":[");
    for (size_t k = 0; k < f->nparam; k++) {
        const osf_param_t *p = &f->param[k];
        o_str(o, k ? ",{" : "{");
        j_key(o, "name");
        o_jstr(o, p->name);
        o_chr(o, ',');
        j_num(o, "value", p->value);
        o_chr(o, ',');
        j_num(o, "distance", p->d_at);
        o_chr(o, ',');
        j_num(o, "distance_at_0.8", p->d_lo);
        o_chr(o, ',');
        j_num(o, "distance_at_1.2", p->d_hi);
        o_chr(o, ',');
        j_key(o, "how");
        o_jstr(o, p->how);
        o_chr(o, '}');
    }
    o_str(o, "]");
}

static void json_fit(out_t *o, const osc_opts_t *op, const osf_fit_t *f)
{
    const osf_figures_t *a = &f->model_side.fig, *b = &f->mfig;
    o_str(o, "{\"format\":\"phasor-oscillate\",\"version\":");
    o_i64(o, OSC_FORMAT);
    o_str(o, ",\"log\":");
    o_jstr(o, op->path);
    o_str(o, ",\"ranks\":");
    o_i64(o, f->st.P);
    o_str(o, ",\"grid\":{\"t0_ns\":");
    o_i64(o, f->grid.t0);
    o_str(o, ",\"dt_ns\":");
    o_i64(o, f->grid.dt);
    o_str(o, ",\"points\":");
    o_u64(o, f->grid.n);
    o_str(o, "},\"model\":");
    model_json(o, &f->model);
    o_chr(o, ',');
    json_params(o, f);
    o_str(o, ",\"families\":{");
    static const char *const fam[5] = {NULL, "tanh", "bottleneck", NULL, "wait"};
    int first = 1;
    for (int k = 1; k <= 4; k++) {
        if (fam[k] == NULL || !f->fam[k].tried)
            continue;
        char pot[80];
        osc_pot_format(&f->fam[k].pot, pot, sizeof(pot));
        if (!first)
            o_chr(o, ',');
        first = 0;
        j_key(o, fam[k]);
        o_str(o, "{\"potential\":");
        o_jstr(o, pot);
        o_chr(o, ',');
        j_num(o, "distance", f->fam[k].distance);
        o_str(o, ",\"integrations\":");
        o_u64(o, f->fam[k].evals);
        o_chr(o, '}');
    }
    o_str(o, "},\"perturbation\":");
    if (f->src_rank >= 0) {
        o_str(o, "{\"rank\":");
        o_i64(o, f->src_rank);
        o_str(o, ",\"iteration\":");
        o_u64(o, f->src_iter);
        o_str(o, ",\"t_ns\":");
        o_i64(o, f->src_t);
        o_chr(o, ',');
        j_num(o, "delta_s", f->src_delta_s);
        o_chr(o, '}');
    } else {
        o_str(o, "null");
    }
    o_str(o, ",\"comparison\":{");
    j_pair(o, "r_mean", a->r_mean, b->r_mean, 0);
    j_pair(o, "s_mean", a->s_mean, b->s_mean, 0);
    j_pair(o, "e_mean", a->e_mean, b->e_mean, 0);
    j_pair(o, "g_mean", a->g_mean, b->g_mean, 0);
    j_pair(o, "r_tail", a->r_tail, b->r_tail, 0);
    j_pair(o, "resync_s", a->resync_s, b->resync_s, 0);
    j_pair(o, "wave_speed_ranks_per_iteration", wave_speed(a), wave_speed(b), 0);
    j_pair(o, "wave_reach_hops", wave_reach(a), wave_reach(b), 0);
    j_key(o, "final_pattern");
    o_str(o, "{\"model\":");
    o_jstr(o, osf_pattern_name(a->pattern));
    o_str(o, ",\"measured\":");
    o_jstr(o, osf_pattern_name(b->pattern));
    o_str(o, "},");
    j_num(o, "r_rms", f->r_rms);
    o_chr(o, ',');
    j_num(o, "s_rms", f->s_rms);
    o_chr(o, ',');
    j_num(o, "g_rms", f->g_rms);
    o_chr(o, ',');
    j_num(o, "e_rel", f->e_rel);
    o_chr(o, ',');
    j_num(o, "resync_rel", f->resync_rel);
    o_chr(o, ',');
    j_num(o, "wave_speed_rel", f->wave_speed_rel);
    o_chr(o, ',');
    j_num(o, "phase_distance_rad", osf_distance(&f->model_side.ser, &f->meas));
    o_str(o, "},\"whatif\":");
    if (f->have_whatif) {
        o_str(o, "{\"change\":");
        o_jstr(o, op->whatif);
        o_str(o, ",\"model\":");
        model_json(o, &f->wmodel);
        o_str(o, ",\"figures\":");
        j_figures(o, &f->whatif_side.fig);
        o_chr(o, '}');
    } else {
        o_str(o, "null");
    }
    o_str(o, ",\"integrator\":");
    j_stats(o, &f->model_side.stats, f->model_side.cpu_s);
    o_str(o, ",\"fit\":{\"integrations\":");
    o_u64(o, f->evals);
    o_chr(o, ',');
    j_num(o, "seconds", f->fit_s);
    o_str(o, "},\"warnings\":[");
    for (size_t k = 0; k < plog_run_nwarnings(f->st.run); k++) {
        if (k)
            o_chr(o, ',');
        o_jstr(o, plog_run_warning(f->st.run, k));
    }
    o_str(o, "]}\n");
}

/* ---- the phases page of a fitted run (--plots) ---- */

typedef struct page {
    pp_t pp;
    int on;
} page_t;

static int page_prepared(void *ctx, const ph_study_t *st)
{
    page_t *pg = ctx;
    if (pp_init(&pg->pp, st->P, &st->grid, st->pairs, st->npairs, st->op->wrap, 1) != 0)
        return -1;
    pg->on = 1;
    return 0;
}

static void page_point(void *ctx, const ph_point_t *pt)
{
    page_t *pg = ctx;
    pp_add(&pg->pp, pt->g, pt->theta, pt->R, pt->S, pt->E, pt->gabs);
}

static int page_write(page_t *pg, osf_fit_t *f, const osc_opts_t *op, int dirfd)
{
    ph_study_t *st = &f->st;
    plog_error_t err;
    ph_summary_t sm;
    memset(&sm, 0, sizeof(sm));
    int rc = -1;
    char *section = NULL;
    for (size_t k = 0; k < st->nsnap; k++) {
        ph_snapshot_t sn;
        if (ph_study_snapshot(st, k, 1, &sn, &err) != PLOG_OK) {
            fprintf(stderr, "phasor oscillate: %s\n", err.msg);
            goto out;
        }
        if (pp_want_snapshot(k, st->nsnap, st->snap[k], (int64_t)st->r_min_g) &&
            pp_snapshot(&pg->pp, &sn) != 0)
            goto nomem;
    }
    if (ph_study_summarise(st, &sm, &err) != PLOG_OK) {
        fprintf(stderr, "phasor oscillate: %s\n", err.msg);
        goto out;
    }
    char pot[80], marker[160], why[1200];
    osc_pot_format(&f->model.pot, pot, sizeof(pot));
    const ph_mark_spec_t *u = &st->marks.used;
    snprintf(marker, sizeof(marker), "%s (%s%s)", ph_mark_mode_name(u->mode), sm.marker_call,
             u->use_end ? ", end" : "");
    if ((section = html_section(f, pot)) == NULL)
        goto nomem;
    pp_summary_t ps = {.log = op->path, .marker = marker, .topology = st->op->topology,
                       .potential = "tanh", .ranks = st->P, .with_phase = st->with_phase,
                       .it_min = sm.it_min, .it_max = sm.it_max,
                       .median_period_ns = st->median_period, .thr = st->op->thr,
                       .r_mean = sm.r_mean, .r_min = st->r_min, .r_min_t = st->r_min_t,
                       .s_mean = sm.s_mean, .e_mean = sm.e_mean,
                       .compute_only = st->op->compute_only, .rs = &st->rs, .wave = &st->wave,
                       .lag_mean = sm.lag_mean, .period_ns = st->median_period,
                       .extra_html = section};
    if (st->wave.found)
        ps.wave_t = st->marks.t[st->wave.source][st->wave.source_iter];
    if (pp_write(&pg->pp, &ps, dirfd, op->out, why, sizeof(why)) != 0) {
        fprintf(stderr, "phasor oscillate: %s\n", why);
        goto out;
    }
    rc = 0;
    goto out;
nomem:
    fprintf(stderr, "phasor oscillate: out of memory\n");
out:
    free(section);
    ph_summary_free(&sm);
    return rc;
}

/* ---- the two modes ---- */

static int print_out(out_t *o)
{
    o_flush(o);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "phasor oscillate: writing the summary: %s\n", strerror(errno));
        return PHASOR_EXIT_INPUT;
    }
    return PHASOR_EXIT_OK;
}

static int fit_run(osc_opts_t *op)
{
    plog_run_t *run;
    int opened = phasor_open_run("oscillate", op->path, -1, &run);
    if (opened != PHASOR_EXIT_OK)
        return opened;
    static osf_fit_t f;
    static page_t pg;
    static out_t o;
    int status = PHASOR_EXIT_INPUT, dirfd = -1;
    plog_error_t err;
    osc_pot_parse("tanh", &op->fit.study.pot);
    if (op->plots) {
        op->fit.on_prepared = page_prepared;
        op->fit.on_point = page_point;
        op->fit.hook_ctx = &pg;
    }
    plog_err_t e = osf_fit(run, &op->fit, &f, &err);
    if (e != PLOG_OK) {
        if (e == PLOG_E_USAGE && f.st.P == 0)
            status = phasor_usage_error("oscillate", "%s", err.msg);
        else
            fprintf(stderr, "phasor oscillate: %s: %s\n", op->path, err.msg);
        goto done;
    }
    if (op->out != NULL) {
        if ((dirfd = ofile_dir_open(op->out)) < 0) {
            fprintf(stderr, "phasor oscillate: %s: %s\n", op->out, strerror(errno));
            goto done;
        }
        sides_t sd = {&f.grid, &f.meas, &f.model_side.ser,
                      f.have_whatif ? &f.whatif_side.ser : NULL};
        int32_t P = f.st.P;
        double tp = f.src_rank >= 0 ? (double)(f.src_t - f.grid.t0) / 1e9 : NAN;
        if (write_series(&sd, dirfd, op->out) != 0 || write_params(&f, dirfd, op->out) != 0 ||
            write_ranks(&f.grid, P, f.meas.g, dirfd, op->out, "gradient_measured.csv", "g_") ||
            write_ranks(&f.grid, P, f.model_side.ser.g, dirfd, op->out, "gradient_model.csv",
                        "g_") ||
            write_ranks(&f.grid, P, f.meas.dev, dirfd, op->out, "deviation_measured.csv",
                        "d_") ||
            write_ranks(&f.grid, P, f.model_side.ser.dev, dirfd, op->out,
                        "deviation_model.csv", "d_") ||
            write_marks(&f.model_side.marks, dirfd, op->out, "boundaries_model.csv") != 0)
            goto done;
        if (op->plots && (write_overlays(&sd, tp, dirfd, op->out) != 0 ||
                          page_write(&pg, &f, op, dirfd) != 0))
            goto done;
    }
    o.f = stdout;
    o.n = 0;
    if (op->json)
        json_fit(&o, op, &f);
    else
        text_fit(&o, op, &f);
    status = print_out(&o);
done:
    if (dirfd >= 0)
        close(dirfd);
    if (pg.on)
        pp_free(&pg.pp);
    osf_fit_free(&f);
    plog_run_close(run);
    return status;
}

/* The model alone: a grid of about op->points over the periods asked for. */
static int model_run(osc_opts_t *op)
{
    json_t *doc = NULL;
    int status = PHASOR_EXIT_INPUT, dirfd = -1;
    double *omega = NULL, *theta0 = NULL;
    osc_graph_t g;
    ph_topo_t topo;
    osf_side_t side;
    memset(&g, 0, sizeof(g));
    memset(&topo, 0, sizeof(topo));
    memset(&side, 0, sizeof(side));
    char why[256];
    plog_error_t err;
    static out_t o;
    if (op->path != NULL && (status = read_config(op, &doc)) != 0)
        goto done;
    status = PHASOR_EXIT_USAGE;
    osc_topo_spec_t ts;
    osc_pot_t pot;
    osc_init_t in;
    osc_pot_parse(op->potential, &pot);
    osc_init_parse(op->init, &in);
    if (osc_topo_parse(op->topology, &ts) == 0) {
        if (osc_graph_named(op->P, &ts, &g, why, sizeof(why)) != 0) {
            status = phasor_usage_error("oscillate", "--topology %s: %s", op->topology, why);
            goto done;
        }
    } else {
        int32_t rows;
        plog_err_t e = osf_graph_read_csv(op->topology, (op->given & G_P) ? op->P : 0, &g, &rows,
                                          &err);
        if (e != PLOG_OK) {
            fprintf(stderr, "phasor oscillate: %s\n", err.msg);
            status = e == PLOG_E_USAGE ? PHASOR_EXIT_USAGE : PHASOR_EXIT_INPUT;
            goto done;
        }
        op->P = rows;
    }
    if (op->delay > 0 && osc_graph_set_delay(&g, op->delay) != 0)
        goto nomem;
    omega = malloc((size_t)op->P * sizeof(double));
    theta0 = malloc((size_t)op->P * sizeof(double));
    if (!omega || !theta0 || osf_topo_of_graph(&g, &topo) != 0)
        goto nomem;
    for (int32_t i = 0; i < op->P; i++)
        omega[i] = 2 * M_PI / op->period;
    if (osc_init_fill(&in, op->P, theta0) != 0) {
        status = phasor_usage_error("oscillate", "--init %s: not for %d ranks", op->init,
                                    (int)op->P);
        goto done;
    }
    osc_perturb_t pe = {(int32_t)op->perturb[0], op->perturb[1], op->perturb[2]};
    if (op->have_perturb && pe.rank >= op->P) {
        status = phasor_usage_error("oscillate", "--perturb: rank %d of %d ranks",
                                    (int)pe.rank, (int)op->P);
        goto done;
    }
    osc_model_t m = {.n = op->P, .omega = omega,
                     .vp = op->have_vp ? op->vp : 2 / op->period, .pot = pot, .graph = &g,
                     .noise = op->noise, .perturb = op->have_perturb ? &pe : NULL,
                     .nperturb = op->have_perturb ? 1 : 0,
                     .forward = pot.kind == OSC_POT_WAIT};
    if (m.noise.kind != OSC_NOISE_NONE)
        m.noise.window = op->period;
    double span = op->periods * op->period;
    size_t n = op->points;
    ph_grid_t grid = {.t0 = 0, .dt = (int64_t)llround(span * 1e9 / (double)(n - 1)), .n = n};
    if (grid.dt < 1) {
        status = phasor_usage_error("oscillate", "--points %zu over %g s: a step under 1 ns", n,
                                    span);
        goto done;
    }
    osf_setup_t su = {.model = &m, .solver = &op->fit.solver, .theta0 = theta0, .grid = &grid,
                      .topo = &topo, .epot = &pot, .entropy = PH_ENTROPY_CIRCLE, .past = NULL,
                      .src_rank = op->have_perturb ? pe.rank : -1,
                      .src_t = (int64_t)llround(pe.t * 1e9),
                      .recover_frac = 0.9, .period_ns = (int64_t)llround(op->period * 1e9)};
    if (osf_side_run(&su, &side, &err) != PLOG_OK) {
        if (err.code == PLOG_E_NOMEM)
            goto nomem;
        status = phasor_usage_error("oscillate", "%s", err.msg);
        goto done;
    }
    status = PHASOR_EXIT_INPUT;
    if (op->out != NULL) {
        if ((dirfd = ofile_dir_open(op->out)) < 0) {
            fprintf(stderr, "phasor oscillate: %s: %s\n", op->out, strerror(errno));
            goto done;
        }
        sides_t sd = {&grid, NULL, &side.ser, NULL};
        if (write_series(&sd, dirfd, op->out) != 0 ||
            write_ranks(&grid, op->P, side.ser.g, dirfd, op->out, "gradient_model.csv", "g_") ||
            write_ranks(&grid, op->P, side.ser.dev, dirfd, op->out, "deviation_model.csv", "d_") ||
            write_marks(&side.marks, dirfd, op->out, "boundaries_model.csv") != 0)
            goto done;
        if (op->plots && write_overlays(&sd, op->have_perturb ? pe.t : NAN, dirfd, op->out))
            goto done;
    }
    o.f = stdout;
    o.n = 0;
    if (op->json) {
        o_str(&o, "{\"format\":\"phasor-oscillate\",\"version\":");
        o_i64(&o, OSC_FORMAT);
        o_str(&o, ",\"log\":null,\"model\":");
        model_json(&o, &m);
        o_str(&o, ",\"figures\":");
        j_figures(&o, &side.fig);
        o_str(&o, ",\"integrator\":");
        j_stats(&o, &side.stats, side.cpu_s);
        o_str(&o, "}\n");
    } else {
        char ps[80];
        osc_pot_format(&pot, ps, sizeof(ps));
        o_fmt(&o, "phasor oscillate --model: %d oscillators, %s (%zu edges), V = %s, "
                  "v_p = %.5g /s, period %.5g s, %.5g periods\n", (int)op->P, op->topology,
              g.nnz, ps, m.vp, op->period, op->periods);
        o_fmt(&o, "  integrator: %zu steps (%zu rejected), %zu evaluations, %.3f s\n\n",
              side.stats.steps, side.stats.rejected, side.stats.evals, side.cpu_s);
        text_figures(&o, &side.fig, NULL, NULL);
    }
    status = print_out(&o);
    goto done;
nomem:
    fprintf(stderr, "phasor oscillate: out of memory\n");
    status = PHASOR_EXIT_INPUT;
done:
    if (dirfd >= 0)
        close(dirfd);
    osf_side_free(&side);
    ph_topo_free(&topo);
    osc_graph_free(&g);
    free(omega);
    free(theta0);
    json_decref(doc);
    return status;
}

int phasor_cmd_oscillate(int argc, char **argv)
{
    static osc_opts_t op;
    int status = parse(argc, argv, &op);
    if (status != PHASOR_CONTINUE)
        return status;
    return op.model_only ? model_run(&op) : fit_run(&op);
}
