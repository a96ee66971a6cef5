/* phasor_replay.c: `phasor replay <dir>`: the whole run replayed against a network model,
 * with what-ifs (analysis/whole_replay.h; doc/replay.md, doc/replay-format.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonw.h"
#include "ofile.h"
#include "phasor_cmd.h"
#include "plog_calls.h"
#include "plog_reader.h"
#include "whole_replay.h"

#define REPLAY_FORMAT_VERSION 1

static void usage(FILE *o)
{
    fprintf(o,
            "Usage: phasor replay <log-dir> [--model FILE] [--kind lookup|hockney|loggp]\n"
            "                     [--collectives steps|whole] [--bandwidth K] [--latency K]\n"
            "                     [--compute-scale X] [--slow-rank R:X] [--eager BYTES]\n"
            "                     [--gamma NS_PER_BYTE] [--library auto|ompi41|mpich40]\n"
            "                     [--path-rows N] [--no-path] [--json] [-o DIR]\n"
            "The whole run replayed against a network model: every rank's calls in its own\n"
            "order, the compute between them as measured, its messages matched as the log\n"
            "recorded them and priced by the model (a message above the eager size waits for\n"
            "its receive), its collectives as their rebuilt steps; each call ends when what it\n"
            "waits for has arrived. Prints the run's predicted end and each rank's, their time\n"
            "in MPI, and the critical path, each beside what was measured.\n"
            "  --model FILE    the network: a model file (doc/model-format.md), e.g. another\n"
            "                  network measured by phasor-probe; default: the run's own probe.\n"
            "                  When the run has a probe, a model file is a what-if\n"
            "  --kind K        the model to price with (default: lookup where the source has\n"
            "                  it, else hockney)\n"
            "  --collectives M steps: each collective's steps replayed from its members'\n"
            "                  predicted entries (default); whole: priced as a whole by the\n"
            "                  steps method from the last member's entry\n"
            "  --bandwidth K   what-if: every link K times as fast (a message's bytes at\n"
            "                  the link's rate, the model's at 2-4 MiB, take 1/K as long)\n"
            "  --latency K     what-if: the rest of a message's time multiplied by K\n"
            "  --compute-scale X  what-if: every rank's compute between calls times X\n"
            "  --slow-rank R:X what-if: rank R's compute times X\n"
            "  --eager BYTES   the largest message sent eagerly (default: the run's library's)\n"
            "  --gamma NS      ns per byte a reduction takes (default: measured here)\n"
            "  --library NAME  the MPI library's rules for the collectives' steps\n"
            "  --path-rows N   the critical path's longest N stretches in the text (default\n"
            "                  10; JSON and -o have all)\n"
            "  --no-path       no critical path (less memory on a very long run)\n"
            "  --json          the results as JSON (doc/replay-format.md)\n"
            "  -o DIR          also write DIR/replay_ranks.csv, DIR/replay_path.csv and\n"
            "                  DIR/replay_path.json (the critical path as a Perfetto trace)\n"
            "With a what-if the replay runs twice: on the run's own network as it was (the\n"
            "baseline) and with the what-if, and prints the predicted change beside the\n"
            "measured run.\n"
            "Exit status: 0 ok, 1 bad input (a one-line reason naming the file), 2 bad usage.\n");
}

typedef struct replay_args {
    const char *path, *model, *kind, *outdir;
    int whole, json, path_rows, no_path;
    double bw, lat, cscale, slow_factor;
    int32_t slow_rank;
    double gamma;
    long long eager;
    recon_lib_t lib;
} replay_args_t;

/* a number above 0 (strict) or at least 0: PHASOR_CONTINUE, or the usage error's status */
static int num_arg(const char *opt, const char *s, double *v, int strict)
{
    return phasor_num_arg("replay", opt, s, 0, strict, v) == PHASOR_EXIT_OK ? PHASOR_CONTINUE
                                                                            : PHASOR_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, replay_args_t *a)
{
    static const struct option opts[] = {
        {"model", required_argument, NULL, 'm'}, {"kind", required_argument, NULL, 'k'},
        {"collectives", required_argument, NULL, 'C'},
        {"bandwidth", required_argument, NULL, 'b'}, {"latency", required_argument, NULL, 'L'},
        {"compute-scale", required_argument, NULL, 's'},
        {"slow-rank", required_argument, NULL, 'r'}, {"eager", required_argument, NULL, 'e'},
        {"gamma", required_argument, NULL, 'g'}, {"library", required_argument, NULL, 'l'},
        {"path-rows", required_argument, NULL, 'p'}, {"no-path", no_argument, NULL, 'P'},
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof(*a));
    a->bw = a->lat = a->cscale = a->slow_factor = 1;
    a->slow_rank = -1;
    a->gamma = NAN;
    a->eager = -1;
    a->path_rows = 10;
    a->lib = RECON_LIB_AUTO;
    optind = 1;
    opterr = 0;
    int ch, st;
    while ((ch = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'm': a->model = optarg; break;
        case 'k':
            if (pnm_kind_parse(optarg) < 0)
                return phasor_usage_error("replay", "--kind: '%s' is not lookup, hockney or "
                                          "loggp", optarg);
            a->kind = optarg;
            break;
        case 'C':
            if (!strcmp(optarg, "steps"))
                a->whole = 0;
            else if (!strcmp(optarg, "whole"))
                a->whole = 1;
            else
                return phasor_usage_error("replay", "--collectives: '%s' is not steps or whole",
                                          optarg);
            break;
        case 'b':
            if ((st = num_arg("--bandwidth", optarg, &a->bw, 1)) >= 0)
                return st;
            break;
        case 'L':
            if ((st = num_arg("--latency", optarg, &a->lat, 1)) >= 0)
                return st;
            break;
        case 's':
            if ((st = num_arg("--compute-scale", optarg, &a->cscale, 0)) >= 0)
                return st;
            break;
        case 'r': {
            char *end;
            errno = 0;
            long r = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end != ':' || r < 0 || r > INT32_MAX)
                return phasor_usage_error("replay", "--slow-rank: '%s' is not RANK:FACTOR "
                                          "(e.g. 3:1.5)", optarg);
            if ((st = num_arg("--slow-rank", end + 1, &a->slow_factor, 1)) >= 0)
                return st;
            a->slow_rank = (int32_t)r;
            break;
        }
        case 'e': {
            char *end;
            errno = 0;
            a->eager = strtoll(optarg, &end, 10);
            if (errno || end == optarg || *end || a->eager < 0)
                return phasor_usage_error("replay", "--eager: '%s' is not a size in bytes",
                                          optarg);
            break;
        }
        case 'g':
            if ((st = num_arg("--gamma", optarg, &a->gamma, 0)) >= 0)
                return st;
            break;
        case 'l': {
            int l = recon_lib_parse(optarg);
            if (l < 0)
                return phasor_usage_error("replay", "--library: unknown rules '%s' (auto, "
                                                    "ompi41, mpich40)", optarg);
            a->lib = (recon_lib_t)l;
            break;
        }
        case 'p': {
            char *end;
            errno = 0;
            long n = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || n < 0 || n > 1000000)
                return phasor_usage_error("replay", "--path-rows: '%s' is not a count", optarg);
            a->path_rows = (int)n;
            break;
        }
        case 'P': a->no_path = 1; break;
        case 'j': a->json = 1; break;
        case 'o': a->outdir = optarg; break;
        case 'h': usage(stdout); return PHASOR_EXIT_OK;
        default: return phasor_getopt_error("replay", ch, argv);
        }
    }
    st = phasor_log_arg("replay", argc, argv, 1, &a->path);
    return st == PHASOR_EXIT_OK ? PHASOR_CONTINUE : st;
}

/* ---- the network ---- */

/* The network of model_file (NULL: the run's probe) as pred_open sets it up, and the model
 * to price with (*m). */
static plog_err_t open_net(pred_t *p, plog_run_t *run, const replay_args_t *a,
                           const char *model_file, const pred_model_t **m, plog_error_t *err)
{
    pred_opts_t po = {.model_file = model_file, .kinds = a->kind, .method = PRED_REPLAY,
                      .gamma = a->gamma, .eager = a->eager, .lib = a->lib};
    plog_err_t rc = pred_open(p, run, &po, err);
    if (rc != PLOG_OK)
        return rc;
    *m = NULL;
    /* lookup first where the source has it: a pair's own times */
    for (int want = PNM_LOOKUP; want <= PNM_LOGGP && !*m; want++)
        for (int k = 0; k < p->models.n; k++)
            if (pnm_kind_parse(p->models.m[k].name) == want) {
                *m = &p->models.m[k];
                break;
            }
    if (!*m)
        return plog_fail(err, PLOG_E_MISSING, model_file ? model_file : plog_run_path(run),
                         PLOG_NO_OFFSET, "no network model to replay with");
    return PLOG_OK;
}

/* ---- output ---- */

static double ratio(double p, double m)
{
    return m > 0 ? p / m : NAN;
}

typedef struct whatif {
    int on;                 /* any what-if */
    int has_base;           /* a baseline replay was made */
    double base_predicted;  /* ns */
    const char *model;      /* the what-if's model file, NULL: none */
} whatif_t;

static void fmt_s(char *b, size_t n, double ns)
{
    phasor_fmt_seconds(b, n, ns / 1e9);
}

static int cmp_seg_len(const void *x, const void *y)
{
    const wr_seg_t *a = *(const wr_seg_t *const *)x, *b = *(const wr_seg_t *const *)y;
    double la = a->p_end - a->p_start + a->edge, lb = b->p_end - b->p_start + b->edge;
    return (la < lb) - (la > lb);
}

static void path_totals(const wr_result_t *r, double *comp, double *mpi, double *edge)
{
    *comp = *mpi = *edge = 0;
    for (size_t i = 0; i < r->npath; i++) {
        *comp += r->path[i].compute;
        *mpi += r->path[i].mpi;
        *edge += r->path[i].edge;
    }
}

/* The calls with any time, the longest measured first: ids into v (WR_NCALLS room). */
static size_t calls_by_time(const wr_result_t *r, uint16_t *v)
{
    size_t n = 0;
    for (size_t c = 0; c < WR_NCALLS; c++)
        if (r->calls[c].count) {
            size_t i = n++;
            while (i > 0 && r->calls[v[i - 1]].measured < r->calls[c].measured) {
                v[i] = v[i - 1];
                i--;
            }
            v[i] = (uint16_t)c;
        }
    return n;
}

static void text_out(FILE *o, const replay_args_t *a, const pred_t *p, const pred_model_t *m,
                     const wr_result_t *r, const whatif_t *w)
{
    char b1[32], b2[32], b3[32];
    fprintf(o, "phasor replay: %s\n", a->path);
    fprintf(o, "network: %s, the %s model; eager up to %" PRIu64 " B (%s); reductions %.4g "
               "ns/B\n", p->models.source, m->name, p->eager, p->eager_what, p->gamma);
    fprintf(o, "collectives: %s\n", a->whole ? "priced whole by the steps method"
                                              : "their steps replayed from the members' entries");
    fprintf(o, "replayed %" PRIu64 " calls: %" PRIu64 " messages (%" PRIu64 " eager, %" PRIu64
               " rendezvous), %" PRIu64 " collectives (%" PRIu64 " by steps, %" PRIu64
               " priced, %" PRIu64 " without steps, %" PRIu64 " as measured)\n",
            r->events, r->messages, r->eager, r->rendezvous, r->colls, r->colls_steps,
            r->colls_priced, r->colls_tail, r->colls_local);
    if (r->wildcard || r->polls)
        fprintf(o, "  %" PRIu64 " receives took their source from their status; %" PRIu64
                   " unsuccessful tests and probes as measured\n", r->wildcard, r->polls);
    if (r->forced || r->forced_eager || r->unmatched_sends || r->unmatched_recvs)
        fprintf(o, "  not resolved: %" PRIu64 " waits taken as measured, %" PRIu64
                   " rendezvous sends taken as eager, %" PRIu64 " sends and %" PRIu64
                   " receives without their other end\n", r->forced, r->forced_eager,
                r->unmatched_sends, r->unmatched_recvs);
    fmt_s(b1, sizeof(b1), r->measured);
    fmt_s(b2, sizeof(b2), r->predicted);
    fprintf(o, "\nrun (end of MPI_Init to MPI_Finalize): measured %s, predicted %s (ratio %.3f)\n",
            b1, b2, ratio(r->predicted, r->measured));
    if (r->probes > 0) {
        fmt_s(b3, sizeof(b3), r->probes);
        fprintf(o, "  phasor's own probes (%s, run by the shim between the application's calls) "
                   "are left out of both\n", b3);
    }
    if (w->on) {
        fprintf(o, "what-if:");
        if (w->model)
            fprintf(o, " network %s;", w->model);
        if (a->bw != 1)
            fprintf(o, " bandwidth x%g;", a->bw);
        if (a->lat != 1)
            fprintf(o, " latency x%g;", a->lat);
        if (a->cscale != 1)
            fprintf(o, " compute x%g;", a->cscale);
        if (a->slow_rank >= 0)
            fprintf(o, " rank %d's compute x%g;", (int)a->slow_rank, a->slow_factor);
        if (w->has_base) {
            fmt_s(b3, sizeof(b3), w->base_predicted);
            fprintf(o, " predicted %s against %s on the run's own network (%+.1f %%); "
                       "measured %s\n", b2, b3,
                    (r->predicted / w->base_predicted - 1) * 100, b1);
        } else {
            fprintf(o, " predicted %s; measured %s\n", b2, b1);
        }
    }
    fprintf(o, "\n%6s %14s %14s %7s %14s %14s %7s\n", "rank", "measured_end", "predicted_end",
            "ratio", "measured_mpi", "predicted_mpi", "ratio");
    for (int32_t i = 0; i < r->world; i++) {
        const wr_rank_t *k = &r->ranks[i];
        if (!k->present)
            continue;
        char c1[32], c2[32], c3[32], c4[32];
        fmt_s(c1, sizeof(c1), k->m_end - r->t0);
        fmt_s(c2, sizeof(c2), k->p_end - r->t0);
        fmt_s(c3, sizeof(c3), k->m_mpi);
        fmt_s(c4, sizeof(c4), k->p_mpi);
        fprintf(o, "%6d %14s %14s %7.3f %14s %14s %7.3f\n", (int)k->rank, c1, c2,
                ratio(k->p_end - r->t0, k->m_end - r->t0), c3, c4, ratio(k->p_mpi, k->m_mpi));
    }
    uint16_t cv[WR_NCALLS];
    size_t nc = calls_by_time(r, cv);
    if (nc) {
        fprintf(o, "\n%-24s %10s %14s %14s %7s\n", "MPI time by call", "calls", "measured",
                "predicted", "ratio");
        for (size_t i = 0; i < nc && i < 10; i++) {
            const wr_call_t *c = &r->calls[cv[i]];
            char c1[32], c2[32];
            fmt_s(c1, sizeof(c1), c->measured);
            fmt_s(c2, sizeof(c2), c->predicted);
            fprintf(o, "%-24s %10" PRIu64 " %14s %14s %7.3f\n", plog_call_name(cv[i]), c->count,
                    c1, c2, ratio(c->predicted, c->measured));
        }
    }
    if (r->npath == 0)
        return;
    double comp, mpi, edge;
    path_totals(r, &comp, &mpi, &edge);
    const wr_seg_t *l = &r->path[r->npath - 1], *f = &r->path[0];
    fmt_s(b1, sizeof(b1), l->p_end - f->p_start);
    fprintf(o, "\ncritical path: %zu stretches over %s: computing %.1f %%, in MPI calls %.1f %%, "
               "between ranks (messages, waits) %.1f %%\n", r->npath, b1,
            100 * comp / (l->p_end - f->p_start), 100 * mpi / (l->p_end - f->p_start),
            100 * edge / (l->p_end - f->p_start));
    /* the ranks it passes through */
    size_t *on = calloc((size_t)(r->world > 0 ? r->world : 1), sizeof(size_t));
    if (on) {
        fprintf(o, "  ranks on it (stretches):");
        for (size_t i = 0; i < r->npath; i++)
            if (r->path[i].rank >= 0 && r->path[i].rank < r->world)
                on[r->path[i].rank]++;
        int n = 0;
        for (int32_t i = 0; i < r->world; i++)
            if (on[i])
                fprintf(o, "%s %d (%zu)", n++ ? "," : "", (int)i, on[i]);
        fprintf(o, "\n");
        free(on);
    }
    size_t nr = (size_t)a->path_rows < r->npath ? (size_t)a->path_rows : r->npath;
    const wr_seg_t **v = malloc(r->npath * sizeof(*v));
    if (!v || nr == 0) {
        free(v);
        return;
    }
    for (size_t i = 0; i < r->npath; i++)
        v[i] = &r->path[i];
    qsort(v, r->npath, sizeof(*v), cmp_seg_len);
    fprintf(o, "  its %zu longest stretches (predicted; the same calls measured):\n", nr);
    fprintf(o, "  %6s %12s %12s %12s  %s\n", "rank", "from_s", "length", "measured", "came by");
    for (size_t i = 0; i < nr; i++) {
        const wr_seg_t *g = v[i];
        char c1[32], c2[32];
        fmt_s(c1, sizeof(c1), g->p_end - g->p_start + g->edge);
        fmt_s(c2, sizeof(c2), g->m_end - g->m_start);
        fprintf(o, "  %6d %12.6f %12s %12s  ", (int)g->rank, (g->p_start - r->t0) / 1e9, c1, c2);
        if (g->from == WR_FROM_START)
            fprintf(o, "start\n");
        else
            fprintf(o, "%s from rank %d, %" PRIu64 " B, ended %s (%.1f us)\n",
                    wr_from_name(g->from), (int)g->peer, g->bytes, plog_call_name(g->call),
                    g->edge / 1e3);
    }
    free(v);
}

static void jnum(FILE *o, const char *name, double v)
{
    fprintf(o, ", \"%s\": ", name);
    jsonw_fnum(o, v, 9);
}

static void json_out(FILE *o, const replay_args_t *a, const pred_t *p, const pred_model_t *m,
                     const wr_result_t *r, const whatif_t *w)
{
    fprintf(o, "{\"format\": \"phasor-replay\", \"version\": %d, \"model\": ",
            REPLAY_FORMAT_VERSION);
    jsonw_fstr(o, p->models.source);
    fprintf(o, ", \"model_kind\": \"%s\", \"collectives\": \"%s\", \"eager_bytes\": %" PRIu64,
            m->name, a->whole ? "whole" : "steps", p->eager);
    jnum(o, "gamma_ns_per_byte", p->gamma);
    fprintf(o, ",\n\"whatif\": ");
    if (w->on) {
        fprintf(o, "{\"model\": ");
        if (w->model)
            jsonw_fstr(o, w->model);
        else
            fprintf(o, "null");
        jnum(o, "bandwidth", a->bw);
        jnum(o, "latency", a->lat);
        jnum(o, "compute_scale", a->cscale);
        fprintf(o, ", \"slow_rank\": %d", (int)a->slow_rank);
        jnum(o, "slow_factor", a->slow_factor);
        fprintf(o, "}");
    } else {
        fprintf(o, "null");
    }
    fprintf(o, ",\n\"measured_s\": ");
    jsonw_fnum(o, r->measured / 1e9, 9);
    jnum(o, "predicted_s", r->predicted / 1e9);
    jnum(o, "probes_s", r->probes / 1e9);
    if (w->has_base) {
        jnum(o, "baseline_predicted_s", w->base_predicted / 1e9);
        jnum(o, "change", r->predicted / w->base_predicted - 1);
    }
    fprintf(o, ",\n\"counts\": {\"events\": %" PRIu64 ", \"messages\": %" PRIu64
               ", \"eager\": %" PRIu64 ", \"rendezvous\": %" PRIu64 ", \"collectives\": %" PRIu64
               ", \"collectives_steps\": %" PRIu64 ", \"collectives_priced\": %" PRIu64
               ", \"collectives_without_steps\": %" PRIu64 ", \"collectives_as_measured\": %" PRIu64
               ", \"wildcard_receives\": %" PRIu64 ", \"polls\": %" PRIu64
               ", \"forced\": %" PRIu64 ", \"forced_eager\": %" PRIu64
               ", \"unmatched_sends\": %" PRIu64 ", \"unmatched_receives\": %" PRIu64
               ", \"peak_messages\": %zu, \"peak_requests\": %zu, \"peak_path_nodes\": %zu}",
            r->events, r->messages, r->eager, r->rendezvous, r->colls, r->colls_steps,
            r->colls_priced, r->colls_tail, r->colls_local, r->wildcard, r->polls, r->forced,
            r->forced_eager, r->unmatched_sends, r->unmatched_recvs, r->peak_messages,
            r->peak_requests, r->peak_nodes);
    fprintf(o, ",\n\"ranks\": [");
    int n = 0;
    for (int32_t i = 0; i < r->world; i++) {
        const wr_rank_t *k = &r->ranks[i];
        if (!k->present)
            continue;
        fprintf(o, "%s{\"rank\": %d", n++ ? ",\n  " : "\n  ", (int)k->rank);
        jnum(o, "measured_end_s", (k->m_end - r->t0) / 1e9);
        jnum(o, "predicted_end_s", (k->p_end - r->t0) / 1e9);
        jnum(o, "measured_mpi_s", k->m_mpi / 1e9);
        jnum(o, "predicted_mpi_s", k->p_mpi / 1e9);
        fprintf(o, ", \"events\": %" PRIu64 "}", k->events);
    }
    fprintf(o, "],\n\"calls\": [");
    uint16_t cv[WR_NCALLS];
    size_t nc = calls_by_time(r, cv);
    for (size_t i = 0; i < nc; i++) {
        const wr_call_t *c = &r->calls[cv[i]];
        fprintf(o, "%s{\"call\": \"%s\", \"count\": %" PRIu64, i ? ", " : "",
                plog_call_name(cv[i]), c->count);
        jnum(o, "measured_s", c->measured / 1e9);
        jnum(o, "predicted_s", c->predicted / 1e9);
        fprintf(o, "}");
    }
    fprintf(o, "]");
    if (r->npath) {
        double comp, mpi, edge;
        path_totals(r, &comp, &mpi, &edge);
        fprintf(o, ",\n\"critical_path\": {\"predicted_s\": ");
        jsonw_fnum(o, (r->path[r->npath - 1].p_end - r->path[0].p_start) / 1e9, 9);
        jnum(o, "compute_s", comp / 1e9);
        jnum(o, "mpi_s", mpi / 1e9);
        jnum(o, "between_ranks_s", edge / 1e9);
        fprintf(o, ", \"stretches\": [");
        for (size_t i = 0; i < r->npath; i++) {
            const wr_seg_t *g = &r->path[i];
            fprintf(o, "%s{\"rank\": %d, \"from\": \"%s\", \"peer\": %d, \"bytes\": %" PRIu64
                       ", \"call\": \"%s\"", i ? ",\n  " : "\n  ", (int)g->rank,
                    wr_from_name(g->from), (int)g->peer, g->bytes,
                    g->from == WR_FROM_START ? "" : plog_call_name(g->call));
            jnum(o, "edge_s", g->edge / 1e9);
            jnum(o, "predicted_start_s", (g->p_start - r->t0) / 1e9);
            jnum(o, "predicted_end_s", (g->p_end - r->t0) / 1e9);
            jnum(o, "measured_start_s", (g->m_start - r->t0) / 1e9);
            jnum(o, "measured_end_s", (g->m_end - r->t0) / 1e9);
            jnum(o, "compute_s", g->compute / 1e9);
            jnum(o, "mpi_s", g->mpi / 1e9);
            fprintf(o, ", \"first_event\": %" PRIu64 ", \"last_event\": %" PRIu64 "}",
                    g->ev_first, g->ev_last);
        }
        fprintf(o, "]}");
    }
    fprintf(o, "}\n");
}

/* The critical path as a Chrome/Perfetto trace: a track per rank, a slice per stretch and
 * per edge into it, and a flow arrow along every edge. Times in us from the run's start. */
static int trace_out(FILE *o, const wr_result_t *r)
{
    fprintf(o, "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"format\": \"phasor-replay-path\", "
               "\"version\": %d}, \"traceEvents\": [\n", REPLAY_FORMAT_VERSION);
    fprintf(o, "{\"ph\": \"M\", \"pid\": 0, \"name\": \"process_name\", \"args\": "
               "{\"name\": \"critical path (predicted)\"}}");
    for (size_t i = 0; i < r->npath; i++) {
        const wr_seg_t *g = &r->path[i];
        double ts = (g->p_start - r->t0) / 1e3, dur = (g->p_end - g->p_start) / 1e3;
        if (g->from != WR_FROM_START) {
            double es = ts - g->edge / 1e3;
            fprintf(o, ",\n{\"ph\": \"X\", \"pid\": 0, \"tid\": %d, \"name\": \"%s from %d\", "
                       "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"bytes\": %" PRIu64
                       ", \"call\": \"%s\"}}", (int)g->rank, wr_from_name(g->from), (int)g->peer,
                    es, g->edge / 1e3, g->bytes, plog_call_name(g->call));
            fprintf(o, ",\n{\"ph\": \"s\", \"pid\": 0, \"tid\": %d, \"id\": %zu, \"name\": "
                       "\"path\", \"cat\": \"path\", \"ts\": %.3f}", (int)g->peer, i, es);
            fprintf(o, ",\n{\"ph\": \"f\", \"bp\": \"e\", \"pid\": 0, \"tid\": %d, \"id\": %zu, "
                       "\"name\": \"path\", \"cat\": \"path\", \"ts\": %.3f}", (int)g->rank, i, ts);
        }
        fprintf(o, ",\n{\"ph\": \"X\", \"pid\": 0, \"tid\": %d, \"name\": \"rank %d\", "
                   "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"compute_us\": %.3f, \"mpi_us\": "
                   "%.3f, \"measured_us\": %.3f}}", (int)g->rank, (int)g->rank, ts, dur,
                g->compute / 1e3, g->mpi / 1e3, (g->m_end - g->m_start) / 1e3);
    }
    fprintf(o, "\n]}\n");
    return ferror(o) ? -1 : 0;
}

static int csv_ranks(FILE *o, const wr_result_t *r)
{
    fprintf(o, "rank,measured_end_s,predicted_end_s,measured_mpi_s,predicted_mpi_s,events\n");
    for (int32_t i = 0; i < r->world; i++) {
        const wr_rank_t *k = &r->ranks[i];
        if (k->present)
            fprintf(o, "%d,%.9f,%.9f,%.9f,%.9f,%" PRIu64 "\n", (int)k->rank,
                    (k->m_end - r->t0) / 1e9, (k->p_end - r->t0) / 1e9, k->m_mpi / 1e9,
                    k->p_mpi / 1e9, k->events);
    }
    return ferror(o) ? -1 : 0;
}

static int csv_path(FILE *o, const wr_result_t *r)
{
    fprintf(o, "rank,from,peer,bytes,call,edge_s,predicted_start_s,predicted_end_s,"
               "measured_start_s,measured_end_s,compute_s,mpi_s,first_event,last_event\n");
    for (size_t i = 0; i < r->npath; i++) {
        const wr_seg_t *g = &r->path[i];
        fprintf(o, "%d,%s,%d,%" PRIu64 ",%s,%.9f,%.9f,%.9f,%.9f,%.9f,%.9f,%.9f,%" PRIu64
                   ",%" PRIu64 "\n", (int)g->rank, wr_from_name(g->from), (int)g->peer,
                g->bytes, g->from == WR_FROM_START ? "" : plog_call_name(g->call),
                g->edge / 1e9, (g->p_start - r->t0) / 1e9, (g->p_end - r->t0) / 1e9,
                (g->m_start - r->t0) / 1e9, (g->m_end - r->t0) / 1e9, g->compute / 1e9,
                g->mpi / 1e9, g->ev_first, g->ev_last);
    }
    return ferror(o) ? -1 : 0;
}

static int write_outdir(const char *dir, const wr_result_t *r)
{
    int fd = ofile_dir_open(dir);
    if (fd < 0) {
        fprintf(stderr, "phasor replay: %s: %s\n", dir,
                errno == ELOOP ? "a symbolic link that is not yours; not followed"
                               : strerror(errno));
        return -1;
    }
    static const char *const names[] = {"replay_ranks.csv", "replay_path.csv",
                                        "replay_path.json"};
    int rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++) {
        ofile_t f;
        if (ofile_open(&f, fd, names[i]) != 0) {
            fprintf(stderr, "phasor replay: %s/%s: %s\n", dir, names[i], strerror(errno));
            rc = -1;
            break;
        }
        int ok = (i == 0 ? csv_ranks(f.f, r) : i == 1 ? csv_path(f.f, r) : trace_out(f.f, r)) == 0;
        if (ofile_close(&f, ok) != 0 || !ok) {
            fprintf(stderr, "phasor replay: %s/%s: %s\n", dir, names[i],
                    strerror(errno ? errno : EIO));
            rc = -1;
        }
    }
    close(fd);
    return rc;
}

/* ---- running ---- */

static int replay(plog_run_t *run, const replay_args_t *a)
{
    plog_error_t err;
    pred_t net = {0}, own = {0};
    const pred_model_t *m = NULL, *om = NULL;
    wr_result_t r = {0}, base = {0};
    whatif_t w = {0};
    int status = PHASOR_EXIT_INPUT;
    if (open_net(&net, run, a, a->model, &m, &err) != PLOG_OK) {
        fprintf(stderr, "phasor replay: %s\n", err.msg);
        goto out;
    }
    if (strcmp(net.eager_what, PRED_EAGER_UNMEASURED) == 0 && a->eager < 0)
        fprintf(stderr, "phasor replay: %s: no eager size measured for its MPI library; "
                        "replaying with Open MPI's, %" PRIu64 " B: give --eager BYTES\n",
                a->path, net.eager);
    /* a model file is a what-if when the run has a probe of its own */
    int own_ok = 0;
    if (a->model) {
        plog_error_t e2;
        own_ok = open_net(&own, run, a, NULL, &om, &e2) == PLOG_OK;
        if (own_ok)
            w.model = a->model;
    }
    w.on = w.model || a->bw != 1 || a->lat != 1 || a->cscale != 1 || a->slow_rank >= 0;
    wr_opts_t o = {.model = m, .lat = a->lat, .bw = a->bw, .pred = &net, .whole = a->whole,
                   .compute_scale = a->cscale, .slow_rank = a->slow_rank,
                   .slow_factor = a->slow_factor, .path = !a->no_path, .lib = a->lib};
    if (a->slow_rank >= 0 && a->slow_rank >= plog_run_world_size(run)) {
        fprintf(stderr, "phasor replay: %s: --slow-rank %d: the run has %d ranks\n", a->path,
                (int)a->slow_rank, (int)plog_run_world_size(run));
        status = PHASOR_EXIT_USAGE;
        goto out;
    }
    if (wr_run(run, &o, &r, &err) != PLOG_OK) {
        fprintf(stderr, "phasor replay: %s\n", err.msg);
        goto out;
    }
    if (w.on) {
        wr_opts_t b = {.model = own_ok ? om : m, .lat = 1, .bw = 1,
                       .pred = own_ok ? &own : &net, .whole = a->whole, .compute_scale = 1,
                       .slow_rank = -1, .slow_factor = 1, .path = 0, .lib = a->lib};
        if (wr_run(run, &b, &base, &err) != PLOG_OK) {
            fprintf(stderr, "phasor replay: %s\n", err.msg);
            goto out;
        }
        w.has_base = base.predicted > 0;
        w.base_predicted = base.predicted;
    }
    if (a->outdir && write_outdir(a->outdir, &r) != 0)
        goto out;
    if (a->json)
        json_out(stdout, a, &net, m, &r, &w);
    else
        text_out(stdout, a, &net, m, &r, &w);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "phasor replay: writing the output: %s\n", strerror(errno));
        goto out;
    }
    status = PHASOR_EXIT_OK;
out:
    wr_result_free(&r);
    wr_result_free(&base);
    pred_free(&net);
    if (a->model)
        pred_free(&own);
    return status;
}

int phasor_cmd_replay(int argc, char **argv)
{
    replay_args_t a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    plog_run_t *run = NULL;
    status = phasor_open_run("replay", a.path, -1, &run);
    if (status != PHASOR_EXIT_OK)
        return status;
    status = replay(run, &a);
    if (status == PHASOR_EXIT_OK)
        phasor_print_warnings("replay", run);
    plog_run_close(run);
    return status;
}
