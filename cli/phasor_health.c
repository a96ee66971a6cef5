/* phasor_health.c: `phasor health <dir>`: the network over the whole run, from the run's own
 * messages, collectives and periodic probes (analysis/health.h; doc/health-format.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "health.h"
#include "jsonw.h"
#include "ofile.h"
#include "phasor_cmd.h"
#include "phasor_svg.h"
#include "plog_reader.h"

#define HEALTH_FORMAT_VERSION 1

static void usage(FILE *o)
{
    fprintf(o,
            "Usage: phasor health <log-dir> [--window DURATION] [--threshold X] [--model FILE]\n"
            "                     [--json] [-o DIR]\n"
            "The network over the whole run, from what the run itself did: every point-to-point\n"
            "message matched sender to receiver (only those the receiver was already waiting\n"
            "for), every blocking collective against its price by the run's network model, and\n"
            "the periodic probes of PHASOR_PROBE=quick,every=N. Per link kind (within a host,\n"
            "between hosts) and per host's link: latency, bandwidth and the slowdown against the\n"
            "run's best over time, and the windows where it departed from it.\n"
            "  --window DURATION  window length (e.g. 200ms, 1s, 5000us; a bare number is\n"
            "                  seconds); default: per source, 100 samples a window on average\n"
            "                  (messages, collectives) or one probe a window\n"
            "  --threshold X   a window departed when its slowdown is >= X (default %.1f)\n"
            "  --model FILE    price the collectives with this model file (default: the run's\n"
            "                  probe, if it made one; else collectives are compared within\n"
            "                  their own kind)\n"
            "  --json          the results as JSON (doc/health-format.md)\n"
            "  -o DIR          also write DIR/health.csv (every window of every link) and\n"
            "                  DIR/health.svg (slowdown, latency and bandwidth over time)\n"
            "Exit status: 0 ok, 1 bad input (a one-line reason naming the file), 2 bad usage.\n",
            HL_THRESHOLD);
}

typedef struct health_args {
    hl_opts_t o;
    const char *path, *outdir;
    int json;
} health_args_t;

static int parse_args(int argc, char **argv, health_args_t *a)
{
    static const struct option opts[] = {
        {"window", required_argument, NULL, 'w'}, {"threshold", required_argument, NULL, 't'},
        {"model", required_argument, NULL, 'm'},  {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof(*a));
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'w':
            if ((a->o.window_ns = phasor_duration_ns(optarg)) < 0)
                return phasor_usage_error("health", "--window: '%s' is not a duration (200ms, "
                                          "1s, 5000us, 100000ns)", optarg);
            break;
        case 't': {
            char *end;
            errno = 0;
            a->o.threshold = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(a->o.threshold > 1) ||
                !isfinite(a->o.threshold))
                return phasor_usage_error("health", "--threshold: '%s' is not a slowdown > 1",
                                          optarg);
            break;
        }
        case 'm': a->o.model_file = optarg; break;
        case 'j': a->json = 1; break;
        case 'o': a->outdir = optarg; break;
        case 'h': usage(stdout); return PHASOR_EXIT_OK;
        default: return phasor_getopt_error("health", ch, argv);
        }
    }
    int status = phasor_log_arg("health", argc, argv, 1, &a->path);
    return status == PHASOR_EXIT_OK ? PHASOR_CONTINUE : status;
}

static void counts_json(FILE *f, const hl_counts_t *c)
{
    fprintf(f,
            "{\"events\": %" PRIu64 ", \"sends\": %" PRIu64 ", \"receives\": %" PRIu64
            ", \"matched\": %" PRIu64 ", \"reliable\": %" PRIu64 ", \"late_receiver\": %" PRIu64
            ", \"unmatched_sends\": %" PRIu64 ", \"unmatched_receives\": %" PRIu64
            ", \"skipped_receives\": %" PRIu64 ", \"collectives\": %" PRIu64
            ", \"collectives_kept\": %" PRIu64 ", \"probes\": %" PRIu64 "}",
            c->events, c->sends, c->recvs, c->matched, c->reliable, c->late_receiver,
            c->unmatched_sends, c->unmatched_recvs, c->skipped_recvs, c->colls, c->colls_kept,
            c->probes);
}

static void json_out(FILE *f, plog_run_t *run, const hl_samples_t *s, const hl_health_t *h)
{
    fprintf(f, "{\"format\": \"phasor-health\", \"version\": %d, \"log\": ", HEALTH_FORMAT_VERSION);
    jsonw_fstr(f, plog_run_path(run));
    fprintf(f, ", \"ranks\": %d, \"hosts\": %d, \"time_ref_monotonic_ns\": %" PRIu64
               ", \"first_ns\": %" PRId64 ", \"last_ns\": %" PRId64 ", \"threshold\": ",
            (int)s->world, (int)s->nhosts, plog_run_time_ref(run), s->t_first, s->t_last);
    jsonw_fnum(f, h->threshold, 9);
    fputs(", \"window_ns\": {", f);
    for (int k = 0; k < 3; k++)
        fprintf(f, "%s\"%s\": %" PRId64, k ? ", " : "", hl_source_name((hl_source_t)k),
                h->window_ns[k]);
    fputs("}, \"collectives_model\": ", f);
    if (s->coll_model)
        jsonw_fstr(f, s->model_source);
    else
        fputs("null", f);
    fputs(", \"counts\": ", f);
    counts_json(f, &s->c);
    fputs(",\n\"links\": [", f);
    for (size_t l = 0; l < h->nlink; l++) {
        const hl_link_t *L = &h->link[l];
        fputs(l ? ",\n " : "\n ", f);
        fputs("{\"link\": ", f);
        jsonw_fstr(f, L->name);
        fprintf(f, ", \"source\": \"%s\", \"samples\": %" PRIu64 ", \"windows\": %zu",
                hl_source_name(L->source), L->samples, L->nw);
        fputs(", \"best_latency_s\": ", f);
        jsonw_fnum(f, L->best_lat_s, 9);
        fputs(", \"best_bandwidth_bps\": ", f);
        jsonw_fnum(f, L->best_bw_bps, 9);
        fputs(", \"slowdown_p50\": ", f);
        jsonw_fnum(f, L->slowdown_p50, 9);
        fputs(", \"slowdown_max\": ", f);
        jsonw_fnum(f, L->slowdown_max, 9);
        fputs("}", f);
    }
    fputs("],\n\"windows\": [", f);
    for (size_t k = 0; k < h->nspan; k++) {
        const hl_span_t *sp = &h->span[k];
        const hl_link_t *L = &h->link[sp->link];
        fprintf(f, "%s{\"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64 ", \"link\": ",
                k ? ",\n " : "\n ", sp->start_ns, sp->end_ns);
        jsonw_fstr(f, L->name);
        fprintf(f, ", \"source\": \"%s\", \"slowdown\": ", hl_source_name(L->source));
        jsonw_fnum(f, sp->slowdown, 9);
        fputs(", \"max_slowdown\": ", f);
        jsonw_fnum(f, sp->max_slowdown, 9);
        fprintf(f, ", \"windows\": %u}", sp->windows);
    }
    fputs("]}\n", f);
}

static void fmt_bw(char *b, size_t n, double bps)
{
    if (!isfinite(bps))
        snprintf(b, n, "-");
    else if (bps >= 1e9)
        snprintf(b, n, "%.2f Gbit/s", bps * 1e-9);
    else
        snprintf(b, n, "%.1f Mbit/s", bps * 1e-6);
}

static void text_out(FILE *f, const char *path, const hl_samples_t *s, const hl_health_t *h)
{
    const hl_counts_t *c = &s->c;
    fprintf(f, "phasor health: %s\n%d ranks on %d host%s\n", path, (int)s->world,
            (int)s->nhosts, s->nhosts == 1 ? "" : "s");
    fprintf(f, "messages: %" PRIu64 " kept of %" PRIu64 " matched (%" PRIu64
               " found their receiver not yet waiting); %" PRIu64 " sends and %" PRIu64
               " receives unmatched\n",
            c->reliable, c->matched, c->late_receiver, c->unmatched_sends, c->unmatched_recvs);
    fprintf(f, "collectives: %" PRIu64 " kept of %" PRIu64 " blocking instances, ", c->colls_kept,
            c->colls);
    if (s->coll_model)
        fprintf(f, "against their price by %s\n", s->model_source);
    else
        fprintf(f, "each against its own kind (no network model: the run made no probe)\n");
    fprintf(f, "probe: %" PRIu64 " probe%s (the one at MPI_Init included; more with "
               "PHASOR_PROBE=...,every=N)\n", c->probes, c->probes == 1 ? "" : "s");
    fprintf(f, "windows:");
    for (int k = 0; k < 3; k++)
        if (h->window_ns[k] > 0)
            fprintf(f, " %s %.3f s;", hl_source_name((hl_source_t)k), h->window_ns[k] * 1e-9);
    fprintf(f, " a window departed at slowdown >= %.2f\n\n", h->threshold);
    if (h->nlink == 0) {
        fprintf(f, "no samples of the network in this log\n");
        return;
    }
    fprintf(f, "%-24s %-12s %9s %12s %14s %9s %9s\n", "link", "source", "samples",
            "best latency", "best bandwidth", "slowdown", "worst");
    for (size_t l = 0; l < h->nlink; l++) {
        const hl_link_t *L = &h->link[l];
        char lat[32], bw[32];
        phasor_fmt_seconds(lat, sizeof(lat), L->best_lat_s);
        fmt_bw(bw, sizeof(bw), L->best_bw_bps);
        fprintf(f, "%-24s %-12s %9" PRIu64 " %12s %14s %9.2f %9.2f\n", L->name,
                hl_source_name(L->source), L->samples, lat, bw, L->slowdown_p50,
                L->slowdown_max);
    }
    fprintf(f, "\n");
    if (h->nspan == 0) {
        fprintf(f, "no window departed from the run's best (every slowdown < %.2f)\n",
                h->threshold);
        return;
    }
    fprintf(f, "departed from the run's best (time from the log's start):\n");
    for (size_t k = 0; k < h->nspan; k++) {
        const hl_span_t *sp = &h->span[k];
        const hl_link_t *L = &h->link[sp->link];
        fprintf(f, "  %9.3f s .. %9.3f s  %-24s %-11s slowdown %.2f (worst %.2f), %u window%s\n",
                (sp->start_ns - s->t_first) * 1e-9, (sp->end_ns - s->t_first) * 1e-9, L->name,
                hl_source_name(L->source), sp->slowdown, sp->max_slowdown, sp->windows,
                sp->windows == 1 ? "" : "s");
    }
}

static void csv_out(FILE *f, const hl_health_t *h)
{
    fprintf(f, "link,source,start_ns,end_ns,samples,slowdown,latency_p50_s,latency_p90_s,"
               "bandwidth_p50_bps,departed\n");
    for (size_t l = 0; l < h->nlink; l++) {
        const hl_link_t *L = &h->link[l];
        for (size_t k = 0; k < L->nw; k++) {
            const hl_window_t *w = &L->w[k];
            fprintf(f, "\"%s\",%s,%" PRId64 ",%" PRId64 ",%u,", L->name,
                    hl_source_name(L->source), w->start_ns, w->end_ns, w->n);
            double v[4] = {w->slowdown, w->lat_p50_s, w->lat_p90_s, w->bw_p50_bps};
            for (int q = 0; q < 4; q++) {
                if (isfinite(v[q]))
                    fprintf(f, "%.9g", v[q]);
                fputc(',', f);
            }
            fprintf(f, "%d\n", w->departed);
        }
    }
}

/* One panel: per link a line of what(w) over the windows' middles. */
static void panel(FILE *f, const hl_samples_t *s, const hl_health_t *h, double y, double ph,
                  int what, const char *ylabel)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t l = 0; l < h->nlink; l++)
        for (size_t k = 0; k < h->link[l].nw; k++) {
            const hl_window_t *w = &h->link[l].w[k];
            double v = what == 0 ? w->slowdown : what == 1 ? w->lat_p50_s * 1e6 : w->bw_p50_bps * 1e-6;
            if (isfinite(v)) {
                lo = fmin(lo, v);
                hi = fmax(hi, v);
            }
        }
    if (!(hi >= lo)) {
        lo = 0;
        hi = 1;
    }
    if (what == 0) {
        lo = fmin(lo, 1.0);
        hi = fmax(hi, h->threshold * 1.1);
    }
    if (hi == lo)
        hi = lo + 1;
    double span = (double)(s->t_last - s->t_first);
    svg_plot_t p = {f, 0, span > 0 ? span : 1, what == 0 ? 0 : lo * 0.9, hi * 1.05, 80, y, 860, ph};
    for (size_t k = 0; k < h->nspan; k++)
        svg_vspan(&p, (double)(h->span[k].start_ns - s->t_first),
                  (double)(h->span[k].end_ns - s->t_first), "#ffb0b0", 0.35, h->link[h->span[k].link].name);
    svg_axes(&p, 1e9, 1, "time from the log's start (s)", ylabel);
    if (what == 0)
        svg_hline(&p, h->threshold, "#888888", "4 3", "threshold");
    for (size_t l = 0; l < h->nlink; l++) {
        const hl_link_t *L = &h->link[l];
        double *xs = malloc((L->nw ? L->nw : 1) * sizeof(double));
        double *ys = malloc((L->nw ? L->nw : 1) * sizeof(double));
        if (xs == NULL || ys == NULL) {
            free(xs);
            free(ys);
            continue;
        }
        for (size_t k = 0; k < L->nw; k++) {
            const hl_window_t *w = &L->w[k];
            xs[k] = 0.5 * (double)(w->start_ns + w->end_ns) - (double)s->t_first;
            ys[k] = what == 0 ? w->slowdown : what == 1 ? w->lat_p50_s * 1e6 : w->bw_p50_bps * 1e-6;
        }
        svg_polyline(&p, xs, ys, L->nw, svg_category(l), 1.5,
                     L->source == HL_SRC_MESSAGES ? NULL : L->source == HL_SRC_PROBE ? "6 3" : "2 2");
        free(xs);
        free(ys);
    }
}

static int svg_out(FILE *f, const hl_samples_t *s, const hl_health_t *h)
{
    int H = 3 * 260 + 120 + 20 * (int)((h->nlink + 2) / 3);
    svg_begin(f, 980, H, "phasor health: the network over the run",
              "slowdown against the run's best, latency (messages <= 4 KiB) and bandwidth "
              "(messages >= 64 KiB) per window; departed windows shaded");
    panel(f, s, h, 60, 180, 0, "slowdown");
    panel(f, s, h, 320, 180, 1, "latency p50 (us)");
    panel(f, s, h, 580, 180, 2, "bandwidth p50 (Mbit/s)");
    svg_key_t *k = calloc(h->nlink ? h->nlink : 1, sizeof(svg_key_t));
    char (*lab)[120] = calloc(h->nlink ? h->nlink : 1, sizeof(*lab));
    if (k != NULL && lab != NULL) {
        for (size_t l = 0; l < h->nlink; l++) {
            snprintf(lab[l], sizeof(lab[l]), "%s (%s)", h->link[l].name,
                     hl_source_name(h->link[l].source));
            k[l] = (svg_key_t){lab[l], svg_category(l),
                               h->link[l].source == HL_SRC_MESSAGES ? NULL
                               : h->link[l].source == HL_SRC_PROBE ? "6 3" : "2 2", 1.5};
        }
        svg_plot_t p = {f, 0, 1, 0, 1, 80, 580, 860, 180};
        svg_legend(&p, k, h->nlink);
    }
    free(k);
    free(lab);
    return svg_end(f);
}

static int write_outdir(const health_args_t *a, const hl_samples_t *s, const hl_health_t *h)
{
    int dirfd = ofile_dir_open(a->outdir);
    if (dirfd < 0) {
        fprintf(stderr, "phasor health: %s: %s\n", a->outdir,
                errno == ELOOP ? "a symbolic link that is not yours; not followed"
                               : strerror(errno));
        return PHASOR_EXIT_INPUT;
    }
    static const char *const names[2] = {"health.csv", "health.svg"};
    int status = PHASOR_EXIT_OK;
    for (int k = 0; k < 2 && status == PHASOR_EXIT_OK; k++) {
        ofile_t of;
        int ok = ofile_open(&of, dirfd, names[k]) == 0;
        if (ok) {
            int wr = 0;
            if (k == 0)
                csv_out(of.f, h);
            else
                wr = svg_out(of.f, s, h);
            ok = ofile_close(&of, wr == 0 && !ferror(of.f)) == 0 && wr == 0;
        }
        if (!ok) {
            fprintf(stderr, "phasor health: %s/%s: %s\n", a->outdir, names[k],
                    strerror(errno ? errno : EIO));
            status = PHASOR_EXIT_INPUT;
        }
    }
    close(dirfd);
    return status;
}

int phasor_cmd_health(int argc, char **argv)
{
    health_args_t a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    plog_run_t *run = NULL;
    if ((status = phasor_open_run("health", a.path, -1, &run)) != PHASOR_EXIT_OK)
        return status;
    hl_samples_t s;
    hl_health_t h;
    memset(&h, 0, sizeof(h));
    plog_error_t err;
    if (hl_collect(run, &a.o, &s, &err) != PLOG_OK) {
        fprintf(stderr, "phasor health: %s\n", err.msg);
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }
    if (a.o.window_ns > 0 && (s.t_last - s.t_first) / a.o.window_ns > 1000000) {
        hl_samples_free(&s);
        plog_run_close(run);
        return phasor_usage_error("health", "--window: %.9g s makes more than a million windows "
                                  "of this run", a.o.window_ns * 1e-9);
    }
    if (hl_health(&s, &a.o, &h) != 0) {
        fprintf(stderr, "phasor health: %s: out of memory\n", a.path);
        status = PHASOR_EXIT_INPUT;
        goto done;
    }
    if (a.outdir && (status = write_outdir(&a, &s, &h)) != PHASOR_EXIT_OK)
        goto done;
    if (a.json)
        json_out(stdout, run, &s, &h);
    else
        text_out(stdout, a.path, &s, &h);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "phasor health: writing the output: %s\n", strerror(errno));
        status = PHASOR_EXIT_INPUT;
    }
    if (status == PHASOR_EXIT_OK)
        phasor_print_warnings("health", run);
done:
    hl_health_free(&h);
    hl_samples_free(&s);
    plog_run_close(run);
    return status;
}
