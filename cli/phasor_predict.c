/* phasor_predict.c: `phasor predict`: its options, and the writers of what the analysis
 * (analysis/predict.h) finds: the text table, CSV rows, JSON (doc/predict-format.md) and
 * the SVG scatter. */
#include "phasor_predict.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "jsonw.h"
#include "ofile.h"
#include "phasor_cmd.h"
#include "plog_reader.h"
#include "predict.h"

/* ---- CSV: one row per instance ---- */

static void csv_header(FILE *f, const pred_t *p)
{
    fprintf(f, "comm,instance,collective,algorithm,comm_size,bytes,steps,messages,measured_ns");
    for (int k = 0; k < p->models.n; k++) {
        fprintf(f, ",predicted_ns_%s", p->models.m[k].name);
        if (p->method == PRED_EXPECTED_MAX)
            fprintf(f, ",p90_ns_%s", p->models.m[k].name);
        if (p->method == PRED_REPLAY)
            fprintf(f, ",exit_err_ns_%s", p->models.m[k].name);
    }
    fprintf(f, "\n");
}

/* pred_row_fn: the instance's row */
static void csv_row(void *arg, const pred_t *p, const ci_inst_t *in, double measured,
                    const double *pt, const double *p9)
{
    FILE *f = arg;
    fprintf(f, "%d,%" PRIu64 ",%s,%s,%d,%" PRIu64 ",%u,%zu,%.0f", (int)in->comm, in->ordinal,
            pcs_coll_name(in->coll), pcs_alg_name(in->alg), (int)in->size, in->bytes,
            in->nsteps, in->nx, measured);
    for (int k = 0; k < p->models.n; k++) {
        fprintf(f, ",%.0f", pt[k]);
        if (p->method != PRED_STEPS) /* p90, or replay's exit error */
            fprintf(f, ",%.0f", p9[k]);
    }
    fprintf(f, "\n");
}

/* ---- text ---- */

static void bucket_text(int b, char *out, size_t cap)
{
    static const char *const u[] = {"", "K", "M", "G", "T"};
    if (b == 0) {
        snprintf(out, cap, "0");
        return;
    }
    unsigned e = (unsigned)b - 1;
    snprintf(out, cap, "%llu%s", 1ull << (e % 10), u[e / 10 < 4 ? e / 10 : 4]);
}

/* A link that looked slower: its rank, in (1) or out (0), and by how much. */
typedef struct slow_link {
    double v;
    int32_t rank;
    int in;
} slow_link_t;

static int cmp_slow(const void *a, const void *b)
{
    const slow_link_t *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? 1 : -1; /* the slowest first */
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->in - y->in;
}

/* The links' load a model prices with (pr_load_t), on one line: the unloaded time per
 * byte and the ranks whose link looked slower, the slowest first, at most 8 of them. */
void phasor_predict_links_text(FILE *o, int32_t world, const pr_load_t *l)
{
    if (!(l->per_byte > 0) || !l->out || !l->in) {
        fprintf(o, "no pair between hosts to read a load from\n");
        return;
    }
    fprintf(o, "unloaded %.2f ns/B (2-4 MiB, first quartile of the pairs between hosts)",
            l->per_byte);
    size_t n = 0;
    for (int32_t r = 0; r < world; r++)
        n += (l->out[r] > 1) + (l->in[r] > 1);
    slow_link_t *v = n ? malloc(n * sizeof(*v)) : NULL;
    if (n && !v) { /* no memory: the count alone */
        fprintf(o, "; %zu links slower\n", n);
        return;
    }
    size_t k = 0;
    for (int32_t r = 0; r < world; r++)
        for (int in = 0; in < 2; in++)
            if ((in ? l->in : l->out)[r] > 1)
                v[k++] = (slow_link_t){(in ? l->in : l->out)[r], r, in};
    if (n)
        qsort(v, n, sizeof(*v), cmp_slow);
    for (size_t i = 0; i < n && i < 8; i++)
        fprintf(o, "%s rank %d %s %.2fx", i ? "," : "; slower:", (int)v[i].rank,
                v[i].in ? "in" : "out", v[i].v);
    if (n > 8)
        fprintf(o, ", and %zu more", n - 8);
    if (!n)
        fprintf(o, "; none slower by %.0f %% or more", (PR_LOAD_NOISE - 1) * 100);
    fprintf(o, "\n");
    free(v);
}

static void text_out(FILE *o, const pred_t *p, const char *path)
{
    const pred_models_t *pm = &p->models;
    fprintf(o, "phasor predict: %s\nmodel: %s; method: ", path, pm->source);
    if (p->method == PRED_STEPS)
        fprintf(o, "steps (sum over steps of the slowest message)\n");
    else if (p->method == PRED_EXPECTED_MAX)
        fprintf(o, "expected-max (sum over steps of the expected maximum)\n");
    else
        fprintf(o, "replay (every member from its entry, step by step; reductions %.4g ns/B "
                   "(%s), eager up to %" PRIu64 " B (%s))\n",
                p->gamma, p->gamma_given ? "--gamma" : "measured here", p->eager,
                p->eager_what);
    if (pm->n > 0 && pm->m[0].load.t) { /* one load for all: the pairs' */
        fprintf(o, "links (every model): ");
        phasor_predict_links_text(o, p->world, &pm->m[0].load);
    } else {
        for (int k = 0; k < pm->n; k++) {
            fprintf(o, "links (%s): ", pm->m[k].name);
            phasor_predict_links_text(o, p->world, &pm->m[k].load);
        }
    }
    fprintf(o, "%" PRIu64 " collective instances, %" PRIu64 " predicted", p->instances,
            p->predicted);
    if (p->nonblocking)
        fprintf(o, ", %" PRIu64 " nonblocking (not timed: the call returns first)", p->nonblocking);
    if (p->incomplete)
        fprintf(o, ", %" PRIu64 " incomplete (a member's log is missing or ended)", p->incomplete);
    fprintf(o, "\n");
    for (int w = 0; w <= RECON__COUNT; w++)
        if (p->skipped[w])
            fprintf(o, "  %" PRIu64 " without steps: %s\n", p->skipped[w],
                    w < RECON__COUNT ? recon_skip_name((recon_skip_t)w) : "?");
    for (int k = 0; k < pm->n; k++) {
        fprintf(o, "\n@--- %s: predicted vs measured (medians over instances)\n",
                pm->m[k].name);
        fprintf(o, "%-22s %6s %8s %8s %14s %14s %9s %9s %14s%s\n", "collective", "ranks",
                "bytes", "count", "measured_us", "predicted_us", "ratio", "ratio_p90",
                "abs_err_us", p->method == PRED_REPLAY ? "    exit_err_us" : "");
        for (size_t i = 0; i < p->ng; i++) {
            const pred_group_t *g = &p->g[i];
            const pred_stat_t *s = &g->m[k];
            char b[16];
            bucket_text(g->bucket, b, sizeof(b));
            fprintf(o, "%-22s %6d %8s %8" PRIu64 " %14.2f %14.2f %9.3f %9.3f %14.2f",
                    pcs_coll_name(g->coll), (int)g->size, b, g->count, g->measured_med / 1e3,
                    s->pred_med / 1e3, s->ratio_med, s->ratio_p90, s->abserr_med / 1e3);
            if (p->method == PRED_REPLAY)
                fprintf(o, " %14.2f", s->exiterr_med / 1e3);
            fprintf(o, "\n");
        }
        if (p->sum_measured > 0)
            fprintf(o, "whole run: collectives took %.6f s, predicted %.6f s (ratio %.3f)\n",
                    p->sum_measured / 1e9, p->sum_pred[k] / 1e9,
                    p->sum_pred[k] / p->sum_measured);
        else
            fprintf(o, "whole run: no predicted collective took any time\n");
    }
}

/* ---- JSON ---- */

/* , "name": x */
static void json_field(FILE *o, const char *name, double x)
{
    fprintf(o, ", \"%s\": ", name); /* our own names: nothing to escape */
    jsonw_fnum(o, x, 6);
}

/* , "links": the links' load a model prices with (pr_load_t), or null */
static void json_links(FILE *o, int32_t world, const pr_load_t *l)
{
    if (l->per_byte > 0 && l->out && l->in) {
        fprintf(o, ", \"links\": {\"unloaded_ns_per_byte\": ");
        jsonw_fnum(o, l->per_byte, 6);
        fprintf(o, ", \"from\": \"%s\", \"slower\": [", l->t ? "pairs" : "model");
        int n = 0;
        for (int32_t r = 0; r < world; r++)
            for (int in = 0; in < 2; in++) {
                double v = (in ? l->in : l->out)[r];
                if (v > 1) {
                    fprintf(o, "%s{\"rank\": %d, \"link\": \"%s\", \"slowdown\": ",
                            n++ ? ", " : "", (int)r, in ? "in" : "out");
                    jsonw_fnum(o, v, 6);
                    fprintf(o, "}");
                }
            }
        fprintf(o, "]}");
    } else {
        fprintf(o, ", \"links\": null");
    }
}

static void json_out(FILE *o, const pred_t *p)
{
    const pred_models_t *pm = &p->models;
    fprintf(o, "{\"format\": \"phasor-predict\", \"version\": 5, \"model\": ");
    jsonw_fstr(o, pm->source);
    if (pm->probe_samples >= 0)
        fprintf(o, ", \"probe\": {\"samples\": %ld, \"pooled\": %ld, \"unshared\": %ld}",
                pm->probe_samples, pm->probe_pooled, pm->probe_unshared);
    fprintf(o, ", \"method\": \"%s\", \"instances\": %" PRIu64 ", \"predicted\": %" PRIu64
               ", \"nonblocking\": %" PRIu64 ", \"incomplete\": %" PRIu64 ", \"without_steps\": {",
            pred_method_name(p->method), p->instances, p->predicted,
            p->nonblocking, p->incomplete);
    int first = 1;
    for (int w = 0; w < RECON__COUNT; w++)
        if (p->skipped[w]) {
            fprintf(o, "%s\"%s\": %" PRIu64, first ? "" : ", ", recon_skip_name((recon_skip_t)w),
                    p->skipped[w]);
            first = 0;
        }
    fprintf(o, "}");
    if (p->method == PRED_REPLAY) {
        json_field(o, "gamma_ns_per_byte", p->gamma);
        fprintf(o, ", \"gamma_source\": \"%s\", \"eager_bytes\": %" PRIu64
                   ", \"eager_source\": ",
                p->gamma_given ? "option" : "measured", p->eager);
        fprintf(o, "\"%s\"", p->eager_what); /* our own words: nothing to escape */
    }
    fprintf(o, ",\n\"measured_ns\": ");
    jsonw_fnum(o, p->sum_measured, 6);
    fprintf(o, ",\n\"models\": [");
    for (int k = 0; k < pm->n; k++) {
        fprintf(o, "%s{\"model\": \"%s\", \"predicted_ns\": ", k ? ",\n " : "\n ",
                pm->m[k].name);
        jsonw_fnum(o, p->sum_pred[k], 6);
        json_links(o, p->world, &pm->m[k].load);
        fprintf(o, ", \"groups\": [");
        for (size_t i = 0; i < p->ng; i++) {
            const pred_group_t *g = &p->g[i];
            const pred_stat_t *s = &g->m[k];
            fprintf(o, "%s{\"collective\": \"%s\", \"comm_size\": %d, \"bytes_lo\": %" PRIu64
                       ", \"count\": %" PRIu64 ", \"measured_med_ns\": ",
                    i ? ",\n   " : "\n   ", pcs_coll_name(g->coll), (int)g->size,
                    pred_bucket_lo(g->bucket), g->count);
            jsonw_fnum(o, g->measured_med, 6);
            json_field(o, "predicted_med_ns", s->pred_med);
            json_field(o, "ratio_med", s->ratio_med);
            json_field(o, "ratio_p10", s->ratio_p10);
            json_field(o, "ratio_p90", s->ratio_p90);
            json_field(o, "abs_err_med_ns", s->abserr_med);
            json_field(o, "measured_ns", g->sum_measured);
            json_field(o, "predicted_ns", s->sum_pred);
            if (p->method == PRED_REPLAY)
                json_field(o, "exit_err_med_ns", s->exiterr_med);
            fprintf(o, "}");
        }
        fprintf(o, "]}");
    }
    fprintf(o, "]}\n");
}

/* ---- SVG ---- */

/* Log-log scatter of predicted vs measured (the first model), with the diagonal. */
static int svg_scatter(FILE *f, const pred_t *p)
{
    const int W = 640, H = 640, L = 70, B = 60, R = 20, T = 40;
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < p->nscatter; i++) {
        double v[2] = {p->scatter_m[i], p->scatter_p[i]};
        for (int k = 0; k < 2; k++)
            if (v[k] > 0) {
                lo = fmin(lo, v[k]);
                hi = fmax(hi, v[k]);
            }
    }
    if (!(hi > 0)) {
        lo = 1e3;
        hi = 1e6;
    }
    double l0 = floor(log10(lo)), l1 = ceil(log10(hi));
    if (l1 <= l0)
        l1 = l0 + 1;
#define PX(v) (L + (log10(v) - l0) / (l1 - l0) * (W - L - R))
#define PY(v) (H - B - (log10(v) - l0) / (l1 - l0) * (H - B - T))
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
    fprintf(f, "<title>phasor predict: predicted vs measured (%s)</title>\n",
            p->models.n ? p->models.m[0].name : "");
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"14\">predicted vs measured, %s model, "
               "%zu instances</text>\n", L, p->models.n ? p->models.m[0].name : "", p->nscatter);
    for (double d = l0; d <= l1 + 1e-9; d++) {
        double v = pow(10, d);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n",
                PX(v), T, PX(v), H - B);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L,
                PY(v), W - R, PY(v));
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g us</text>\n", PX(v),
                H - B + 16, v / 1e3);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g us</text>\n", L - 4,
                PY(v) + 4, v / 1e3);
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
               "stroke-dasharray=\"4 3\"/>\n", PX(pow(10, l0)), PY(pow(10, l0)),
            PX(pow(10, l1)), PY(pow(10, l1)));
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">measured</text>\n",
            (L + W - R) / 2, H - 16);
    fprintf(f, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" "
               "text-anchor=\"middle\">predicted</text>\n", (T + H - B) / 2, (T + H - B) / 2);
    for (size_t i = 0; i < p->nscatter; i++) {
        double m = p->scatter_m[i], pr = p->scatter_p[i];
        if (!(m > 0) || !(pr > 0))
            continue;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"#1f77b4\" "
                   "fill-opacity=\"0.5\"/>\n", PX(m), PY(pr));
    }
    fprintf(f, "</svg>\n");
#undef PX
#undef PY
    return ferror(f) ? -1 : 0;
}

/* ---- options and running ---- */

static void usage(FILE *o)
{
    fprintf(o,
            "Usage: phasor predict <log-dir> [--model FILE] [--kind K[,K...]]\n"
            "                      [--method steps|expected-max|replay] [--csv | --json]\n"
            "                      [-o DIR] [--library auto|ompi41|mpich40] [--breaks SPEC]\n"
            "                      [--gamma NS_PER_BYTE] [--eager BYTES] [--save-model FILE]\n"
            "Replays every collective instance of the log against network models and compares\n"
            "the prediction with the time the instance took (last member's exit - first\n"
            "member's entry, clocks aligned).\n"
            "  --model FILE    a model file (doc/model-format.md); default: fit the models to\n"
            "                  the probe the run made at MPI_Init (PHASOR_PROBE=quick|full)\n"
            "  --kind LIST     models to use: lookup, hockney, loggp (default: every model\n"
            "                  the source can give)\n"
            "  --method M      steps: sum over steps of the slowest message (default);\n"
            "                  expected-max: sum over steps of the expected maximum of the\n"
            "                  messages' time distributions (and their 90th percentile);\n"
            "                  replay: every member's schedule from its own entry, a rank\n"
            "                  waiting only for its own messages, plus its reductions\n"
            "  --gamma NS      replay: ns per byte a reduction takes (default: measured when\n"
            "                  predict starts, a sum of doubles on this machine)\n"
            "  --eager BYTES   the largest message sent eagerly: where LogGP's handshake\n"
            "                  starts, and in the replay a larger one waits for its\n"
            "                  receiver (rendezvous), and only eager messages share a\n"
            "                  link both ways at once; default: the run's library's,\n"
            "                  65480 for Open MPI 4.1 (its 64 KiB TCP eager limit less\n"
            "                  its 56-byte header), 19522 for MPICH 4.0 ch4:ucx over TCP,\n"
            "                  else Open MPI's with a warning (bench/cluster/eager\n"
            "                  measures it)\n"
            "  --csv           one row per instance, with a header row\n"
            "  --json          the summary as JSON (doc/predict-format.md)\n"
            "  -o DIR          also write DIR/predict.csv and DIR/predict.svg (scatter)\n"
            "  --library NAME  the MPI library's rules (as phasor steps)\n"
            "  --breaks SPEC   Hockney segments when fitting the run's probe: study (8 KiB and\n"
            "                  128 KiB, the default), detect (where the fit's residual doubles)\n"
            "                  or sizes in bytes, e.g. 16384,65536\n"
            "  --save-model FILE  also write the models fitted to the run's probe as a model\n"
            "                  file, with its samples (for --model with another run, or to\n"
            "                  read the fitted parameters); not with --model\n"
            "Exit status: 0 ok, 1 bad input (a one-line reason naming the file), 2 bad usage.\n");
}

/* The options: the analysis's, the log, and where the results go. */
typedef struct predict_args {
    pred_opts_t o;
    const char *path;   /* the log directory */
    const char *outdir; /* -o: also predict.csv and predict.svg there; NULL: no */
    int csv, json;
} predict_args_t;

/* The options that go together, and the one log directory (argv[optind]); -1 when right,
 * else the exit status. */
static int check_args(int argc, char **argv, const predict_args_t *a)
{
    if (a->csv && a->json)
        return phasor_usage_error("predict", "%s", "--csv and --json exclude each other");
    if (a->o.method != PRED_REPLAY && !isnan(a->o.gamma))
        return phasor_usage_error("predict", "%s", "--gamma applies to --method replay");
    if (a->o.model_file && a->o.save_model)
        return phasor_usage_error("predict", "%s", "--save-model writes the run's probe; "
                                  "with --model there is no fit to save");
    const char *path;
    int status = phasor_log_arg("predict", argc, argv, 1, &path);
    return status == PHASOR_EXIT_OK ? PHASOR_CONTINUE : status;
}

/* The command line into a; -1 to go on, else the exit status (--help, bad usage). */
static int parse_args(int argc, char **argv, predict_args_t *a)
{
    static const struct option opts[] = {
        {"model", required_argument, NULL, 'm'}, {"kind", required_argument, NULL, 'k'},
        {"method", required_argument, NULL, 'M'}, {"csv", no_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'}, {"library", required_argument, NULL, 'l'},
        {"breaks", required_argument, NULL, 'B'},
        {"gamma", required_argument, NULL, 'g'}, {"eager", required_argument, NULL, 'e'},
        {"save-model", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof(*a));
    pred_opts_t *o = &a->o;
    o->method = PRED_STEPS;
    o->gamma = NAN;
    o->eager = -1;
    o->lib = RECON_LIB_AUTO;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'm': o->model_file = optarg; break;
        case 'S': o->save_model = optarg; break;
        case 'k': o->kinds = optarg; break;
        case 'M':
            if (!strcmp(optarg, "steps"))
                o->method = PRED_STEPS;
            else if (!strcmp(optarg, "expected-max"))
                o->method = PRED_EXPECTED_MAX;
            else if (!strcmp(optarg, "replay"))
                o->method = PRED_REPLAY;
            else
                return phasor_usage_error("predict", "--method: '%s' is not steps, expected-max "
                                          "or replay", optarg);
            break;
        case 'g': {
            char *end;
            errno = 0;
            o->gamma = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o->gamma >= 0) || !isfinite(o->gamma))
                return phasor_usage_error("predict", "--gamma: '%s' is not a number of ns per "
                                          "byte >= 0", optarg);
            break;
        }
        case 'e': {
            char *end;
            errno = 0;
            o->eager = strtoll(optarg, &end, 10);
            if (errno || end == optarg || *end || o->eager < 0)
                return phasor_usage_error("predict", "--eager: '%s' is not a size in bytes",
                                          optarg);
            break;
        }
        case 'B':
            if (pnm_opts_parse_breaks(optarg, &o->fit) != 0)
                return phasor_usage_error("predict", "--breaks: '%s' is not study, detect or "
                                          "increasing sizes in bytes (8192,131072)", optarg);
            break;
        case 'c': a->csv = 1; break;
        case 'j': a->json = 1; break;
        case 'o': a->outdir = optarg; break;
        case 'l': {
            int l = recon_lib_parse(optarg);
            if (l < 0)
                return phasor_usage_error("predict", "--library: unknown rules '%s' (auto, "
                                                     "ompi41, mpich40)", optarg);
            o->lib = (recon_lib_t)l;
            break;
        }
        case 'h': usage(stdout); return PHASOR_EXIT_OK;
        default:
            return phasor_getopt_error("predict", ch, argv);
        }
    }
    int status = check_args(argc, argv, a);
    if (status >= 0)
        return status;
    a->path = argv[optind];
    return -1;
}

/* -o DIR: the directory (*dirfd), and DIR/predict.csv opened with its header into *csv. */
static int open_outdir(const char *outdir, const pred_t *p, int *dirfd, ofile_t *csv)
{
    if ((*dirfd = ofile_dir_open(outdir)) < 0) {
        fprintf(stderr, "phasor predict: %s: %s\n", outdir,
                errno == ELOOP ? "a symbolic link that is not yours; not followed"
                               : strerror(errno));
        return -1;
    }
    if (ofile_open(csv, *dirfd, "predict.csv") != 0) {
        fprintf(stderr, "phasor predict: %s/predict.csv: %s\n", outdir, strerror(errno));
        return -1;
    }
    csv_header(csv->f, p);
    return 0;
}

/* Predicts the run's instances and writes the results as a asks. The exit status. */
static int predict(plog_run_t *run, const predict_args_t *a)
{
    pred_t p;
    plog_error_t err;
    if (pred_open(&p, run, &a->o, &err) != PLOG_OK) {
        fprintf(stderr, "phasor predict: %s\n", err.msg);
        pred_free(&p);
        return PHASOR_EXIT_INPUT;
    }
    if (p.method == PRED_REPLAY && strcmp(p.eager_what, PRED_EAGER_UNMEASURED) == 0) {
        /* --csv too */
        fprintf(stderr, "phasor predict: %s: no eager size measured for its MPI library; "
                        "replaying with Open MPI's, %" PRIu64 " B: give --eager BYTES "
                        "(bench/cluster/eager measures it)\n", a->path, p.eager);
    }
    FILE *rows = NULL;
    ofile_t csv = {0};
    int dirfd = -1;
    int status = PHASOR_EXIT_OK;
    if (a->outdir) {
        if (open_outdir(a->outdir, &p, &dirfd, &csv) != 0) {
            status = PHASOR_EXIT_INPUT;
            goto done;
        }
        rows = csv.f;
    } else if (a->csv) {
        rows = stdout;
        csv_header(stdout, &p);
    }
    if (pred_run(&p, run, rows ? csv_row : NULL, rows, &err) != PLOG_OK) {
        fprintf(stderr, "phasor predict: %s\n", err.msg);
        status = PHASOR_EXIT_INPUT;
        goto done;
    }
    if (a->outdir) {
        ofile_t svg;
        int ok = ofile_open(&svg, dirfd, "predict.svg") == 0;
        if (ok)
            ok = ofile_close(&svg, svg_scatter(svg.f, &p) == 0) == 0;
        if (!ok) {
            fprintf(stderr, "phasor predict: %s/predict.svg: %s\n", a->outdir,
                    strerror(errno ? errno : EIO));
            status = PHASOR_EXIT_INPUT;
            goto done;
        }
    }
    if (a->json)
        json_out(stdout, &p);
    else if (!a->csv)
        text_out(stdout, &p, a->path);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "phasor predict: writing the output: %s\n", strerror(errno));
        status = PHASOR_EXIT_INPUT;
    }
done:
    /* a predict.csv is kept only when the whole prediction succeeded */
    if (csv.f && ofile_close(&csv, status == PHASOR_EXIT_OK) != 0 &&
        status == PHASOR_EXIT_OK) {
        fprintf(stderr, "phasor predict: %s/predict.csv: %s\n", a->outdir, strerror(errno));
        status = PHASOR_EXIT_INPUT;
    }
    if (dirfd >= 0)
        close(dirfd);
    pred_free(&p);
    return status;
}

int phasor_cmd_predict(int argc, char **argv)
{
    predict_args_t a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    plog_run_t *run = NULL;
    status = phasor_open_run("predict", a.path, -1, &run);
    if (status != PHASOR_EXIT_OK)
        return status;
    if (a.o.model_file && (a.o.fit.detect || a.o.fit.nbreak)) {
        plog_run_close(run);
        return phasor_usage_error("predict", "%s", "--breaks applies to fitting the run's probe; "
                                  "a model file holds its own segments");
    }
    status = predict(run, &a);
    if (status == PHASOR_EXIT_OK)
        phasor_print_warnings("predict", run);
    plog_run_close(run);
    return status;
}
