/* phasor_regimes.c: `phasor regimes <dir>`: the latency regimes of a run's timing series,
 * a Gaussian HMM on log time with K chosen by BIC (analysis/regimes.h;
 * doc/regimes-format.md). */
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
#include "phasor_phases.h"
#include "phasor_svg.h"
#include "plog_reader.h"
#include "regimes.h"

#define REGIMES_FORMAT_VERSION 1
#define PLOT_POINTS 20000 /* a series plot shows at most this many points, evenly thinned */

static void usage(FILE *o)
{
    fprintf(o,
            "Usage: phasor regimes <log-dir> [--series LIST] [--kmax K] [--restarts N]\n"
            "                      [--seed S] [--max-samples N] [--fit-ranks N] [--marker SPEC]\n"
            "                      [--model FILE] [--max-switches N] [--window DURATION]\n"
            "                      [--per-sample] [--json] [-o DIR]\n"
            "Latency regimes of the run's timing series: a Gaussian hidden Markov model of the\n"
            "log of each time, K regimes chosen by BIC, every sample labelled (Viterbi).\n"
            "  --series LIST   comma-separated: messages (matched point-to-point messages the\n"
            "                  receiver was waiting for), collectives (blocking instances, their\n"
            "                  own time), probe (the periodic probes' medians), iterations (each\n"
            "                  rank's iteration times, as phasor phases finds them), or all;\n"
            "                  default: every series the log has samples for\n"
            "  --kmax K        largest number of regimes tried, 1..%d (default 6)\n"
            "  --restarts N    random starts of the fit besides the quantile and k-means ones\n"
            "                  (default 5)\n"
            "  --seed S        seed of the random starts (default 0)\n"
            "  --window DURATION  messages, collectives, probe: the series is the median of each\n"
            "                  window (a single message's time sits at several sharp values even\n"
            "                  on a steady network); default: 100 samples a window on average\n"
            "                  (probe: one probe a window); fewer than 20 windows: every sample\n"
            "  --per-sample    fit every sample instead of window medians\n"
            "  --resolution X  regimes closer than a factor X in time are one (default 1.25;\n"
            "                  1: BIC alone)\n"
            "  --max-samples N with --per-sample, longer series are thinned evenly to N samples\n"
            "                  (default 1000000)\n"
            "  --fit-ranks N   iterations: fit on N ranks picked evenly by median iteration\n"
            "                  time, then label every rank (default 20)\n"
            "  --marker SPEC   iterations: the boundaries, as phasor phases --marker (auto,\n"
            "                  period, pcontrol[:LEVEL], CALL[@SITE]; default auto)\n"
            "  --model FILE    price the collectives with this model file (as phasor health)\n"
            "  --max-switches N  list at most N regime switches per series (default 1000)\n"
            "  --json          the results as JSON (doc/regimes-format.md)\n"
            "  -o DIR          also write per series DIR/regimes-NAME.csv (time, value, regime)\n"
            "                  and DIR/regimes-NAME.svg (the series coloured by regime, BIC\n"
            "                  against K)\n"
            "Exit status: 0 ok, 1 bad input (a one-line reason naming the file), 2 bad usage.\n",
            RG_KMAX);
}

typedef struct regimes_args {
    rg_opts_t o;
    hl_opts_t h;
    int want[RG_NKINDS];
    int explicit_series;
    long max_switches;
    const char *path, *outdir;
    int json;
} regimes_args_t;

static int num_arg(const char *opt, const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi)
        return phasor_usage_error("regimes", "%s: '%s' is not a whole number in %ld..%ld", opt,
                                  s, lo, hi);
    *v = x;
    return PHASOR_EXIT_OK;
}

static int series_arg(const char *s, regimes_args_t *a)
{
    char buf[256];
    if (strlen(s) >= sizeof(buf))
        return phasor_usage_error("regimes", "--series: '%s' is too long", s);
    strcpy(buf, s);
    memset(a->want, 0, sizeof(a->want));
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "all") == 0) {
            for (int k = 0; k < RG_NKINDS; k++)
                a->want[k] = 1;
            continue;
        }
        int k = rg_kind_parse(tok);
        if (k < 0)
            return phasor_usage_error("regimes", "--series: '%s' is not probe, messages, "
                                      "collectives, iterations or all", tok);
        a->want[k] = 1;
    }
    a->explicit_series = 1;
    return PHASOR_EXIT_OK;
}

static int parse_args(int argc, char **argv, regimes_args_t *a)
{
    static const struct option opts[] = {
        {"series", required_argument, NULL, 'S'},      {"kmax", required_argument, NULL, 'k'},
        {"restarts", required_argument, NULL, 'r'},    {"seed", required_argument, NULL, 's'},
        {"max-samples", required_argument, NULL, 'n'}, {"fit-ranks", required_argument, NULL, 'f'},
        {"marker", required_argument, NULL, 'M'},      {"model", required_argument, NULL, 'm'},
        {"max-switches", required_argument, NULL, 'w'}, {"json", no_argument, NULL, 'j'},
        {"window", required_argument, NULL, 'W'},      {"per-sample", no_argument, NULL, 'P'},
        {"resolution", required_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof(*a));
    for (int k = 0; k < RG_NKINDS; k++)
        a->want[k] = 1;
    a->o.restarts = -1;
    a->o.marks.mode = PH_MARK_AUTO;
    a->o.marks.every = 1;
    a->max_switches = 1000;
    optind = 1;
    opterr = 0;
    int ch, st = PHASOR_EXIT_OK;
    long v = 0;
    while ((ch = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'S': st = series_arg(optarg, a); break;
        case 'k':
            if ((st = num_arg("--kmax", optarg, 1, RG_KMAX, &v)) == PHASOR_EXIT_OK)
                a->o.kmax = (int)v;
            break;
        case 'r':
            if ((st = num_arg("--restarts", optarg, 0, 1000, &v)) == PHASOR_EXIT_OK)
                a->o.restarts = (int)v;
            break;
        case 's': {
            char *end;
            errno = 0;
            unsigned long long u = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || optarg[0] == '-')
                return phasor_usage_error("regimes", "--seed: '%s' is not a whole number >= 0",
                                          optarg);
            a->o.seed = u;
            break;
        }
        case 'n':
            if ((st = num_arg("--max-samples", optarg, 100, 100000000, &v)) == PHASOR_EXIT_OK)
                a->o.max_samples = (size_t)v;
            break;
        case 'f':
            if ((st = num_arg("--fit-ranks", optarg, 1, 1000000, &v)) == PHASOR_EXIT_OK)
                a->o.fit_ranks = (int)v;
            break;
        case 'M':
            if (phases_marker_arg(optarg, &a->o.marks) != 0)
                return phasor_usage_error("regimes", "--marker: '%s' is not auto, period, "
                                          "pcontrol[:LEVEL] or an MPI call[@SITE]", optarg);
            break;
        case 'm': a->h.model_file = optarg; break;
        case 'w': st = num_arg("--max-switches", optarg, 0, 100000000, &a->max_switches); break;
        case 'W':
            if ((a->o.window_ns = phasor_duration_ns(optarg)) < 0)
                return phasor_usage_error("regimes", "--window: '%s' is not a duration (200ms, "
                                          "1s, 5000us, 100000ns)", optarg);
            break;
        case 'P': a->o.per_sample = 1; break;
        case 'R': {
            char *end;
            errno = 0;
            a->o.resolution = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(a->o.resolution >= 1) ||
                !isfinite(a->o.resolution))
                return phasor_usage_error("regimes", "--resolution: '%s' is not a factor >= 1",
                                          optarg);
            break;
        }
        case 'j': a->json = 1; break;
        case 'o': a->outdir = optarg; break;
        case 'h': usage(stdout); return PHASOR_EXIT_OK;
        default: return phasor_getopt_error("regimes", ch, argv);
        }
        if (st != PHASOR_EXIT_OK)
            return st;
    }
    int status = phasor_log_arg("regimes", argc, argv, 1, &a->path);
    return status == PHASOR_EXIT_OK ? PHASOR_CONTINUE : status;
}

static void json_series(FILE *f, const rg_series_t *s, long max_sw)
{
    fputs("{\"name\": ", f);
    jsonw_fstr(f, s->name);
    fputs(", \"quantity\": ", f);
    jsonw_fstr(f, s->quantity);
    fprintf(f, ", \"samples\": %zu, \"total\": %zu, \"window_ns\": %" PRId64
               ", \"outliers\": %zu, \"kmax\": %d, \"k\": %d, \"k_bic\": %d",
            s->samples, s->total, s->window_ns, s->outliers, s->kmax, s->k, s->k_bic);
    const char *key[2] = {"loglik", "bic"};
    for (int q = 0; q < 2; q++) {
        fprintf(f, ", \"%s\": {", key[q]);
        int first = 1;
        for (int k = 1; k <= s->kmax && s->samples > 0; k++) {
            fprintf(f, "%s\"%d\": ", first ? "" : ", ", k);
            jsonw_fnum(f, q ? s->bic[k - 1] : s->loglik[k - 1], 9);
            first = 0;
        }
        fputs("}", f);
    }
    fputs(", \"regimes\": [", f);
    for (int k = 0; k < s->k; k++) {
        const rg_regime_t *r = &s->reg[k];
        fputs(k ? ", {\"mean\": " : "{\"mean\": ", f);
        jsonw_fnum(f, r->mean_s, 9);
        fputs(", \"sd\": ", f);
        jsonw_fnum(f, r->sd_s, 9);
        fputs(", \"share\": ", f);
        jsonw_fnum(f, r->share, 9);
        fprintf(f, ", \"count\": %" PRIu64 ", \"log_mean\": ", r->count);
        jsonw_fnum(f, r->log_mu, 9);
        fputs(", \"log_sd\": ", f);
        jsonw_fnum(f, r->log_sd, 9);
        fputs("}", f);
    }
    fputs("], \"transitions\": [", f);
    for (int i = 0; i < s->k; i++) {
        fputs(i ? ", [" : "[", f);
        for (int j = 0; j < s->k; j++) {
            if (j)
                fputs(", ", f);
            jsonw_fnum(f, s->model.A[i * s->k + j], 9);
        }
        fputs("]", f);
    }
    fprintf(f, "], \"switches_total\": %zu, \"switches\": [", s->nsw);
    for (size_t k = 0; k < s->nsw && (long)k < max_sw; k++)
        fprintf(f, "%s{\"t_ns\": %" PRId64 ", \"from\": %d, \"to\": %d}", k ? ", " : "",
                s->sw[k].t_ns, s->sw[k].from, s->sw[k].to);
    fputs("]", f);
    if (s->kind == RG_ITERATIONS) {
        fprintf(f, ", \"ranks_labelled\": %d, \"fit_ranks\": [", (int)s->ranks_labelled);
        for (int32_t i = 0; i < s->nfit; i++)
            fprintf(f, "%s%d", i ? ", " : "", (int)s->fit_rank[i]);
        fputs("]", f);
    }
    fputs("}", f);
}

static void text_series(FILE *f, const rg_series_t *s, int64_t t0, long max_sw)
{
    fprintf(f, "\nseries %s: %s\n", s->name, s->quantity);
    if (s->samples == 0) {
        fprintf(f, "  no samples\n");
        return;
    }
    if (s->window_ns)
        fprintf(f, "  %zu windows of %.3f s (%zu samples)", s->samples, s->window_ns * 1e-9,
                s->total);
    else
        fprintf(f, "  %zu samples", s->samples);
    if (s->total != s->samples && s->kind != RG_ITERATIONS && !s->window_ns)
        fprintf(f, " (every %zu-th of %zu)", (s->total + s->samples - 1) / s->samples, s->total);
    if (s->kind == RG_ITERATIONS)
        fprintf(f, " of %d ranks fitted (picked evenly by median), %d ranks labelled, %zu "
                   "iterations in all", (int)s->nfit, (int)s->ranks_labelled, s->total);
    if (s->outliers)
        fprintf(f, ", %zu outliers set aside", s->outliers);
    if (s->k == s->k_bic)
        fprintf(f, "; K = %d by BIC\n", s->k);
    else
        fprintf(f, "; K = %d (BIC alone: %d, of which some closer than the resolution)\n", s->k,
                s->k_bic);
    fprintf(f, "  %3s %16s %16s\n", "K", "log L", "BIC");
    for (int k = 1; k <= s->kmax; k++)
        fprintf(f, "  %3d %16.2f %16.2f%s\n", k, s->loglik[k - 1], s->bic[k - 1],
                k == s->k ? "  <-" : k == s->k_bic ? "  (BIC)" : "");
    fprintf(f, "  %-7s %12s %12s %8s   stay\n", "regime", "mean", "sd", "share");
    for (int k = 0; k < s->k; k++) {
        char m[32], d[32];
        phasor_fmt_seconds(m, sizeof(m), s->reg[k].mean_s);
        phasor_fmt_seconds(d, sizeof(d), s->reg[k].sd_s);
        fprintf(f, "  %-7d %12s %12s %7.1f%%   %.4f\n", k, m, d, 100 * s->reg[k].share,
                s->model.A[k * s->k + k]);
    }
    fprintf(f, "  %zu switch%s", s->nsw, s->nsw == 1 ? "" : "es");
    size_t show = s->nsw < 10 && (long)s->nsw <= max_sw ? s->nsw : 0;
    if (show) {
        fprintf(f, ":");
        for (size_t k = 0; k < show; k++)
            fprintf(f, " %.3f s %d->%d%s", (s->sw[k].t_ns - t0) * 1e-9, s->sw[k].from,
                    s->sw[k].to, k + 1 < show ? "," : "");
    } else if (s->nsw) {
        fprintf(f, " (listed with --json or -o)");
    }
    fprintf(f, "\n");
}

static int svg_series(FILE *f, const rg_series_t *s, int64_t t0)
{
    char title[128];
    snprintf(title, sizeof(title), "phasor regimes: %s, K = %d", s->name, s->k);
    svg_begin(f, 980, 760, title, s->quantity);
    double lo = INFINITY, hi = -INFINITY, tmax = 1;
    for (size_t i = 0; i < s->npoints; i++) {
        if (s->v[i] > 0) {
            lo = fmin(lo, log10(s->v[i]));
            hi = fmax(hi, log10(s->v[i]));
        }
        tmax = fmax(tmax, (double)(s->t[i] - t0));
    }
    if (!(hi >= lo))
        lo = -6, hi = 0;
    if (hi - lo < 0.1)
        lo -= 0.05, hi += 0.05;
    svg_plot_t p = {f, 0, tmax, lo, hi, 80, 60, 860, 380};
    svg_axes(&p, 1e9, 1, "time from the log's start (s)", "log10 of the value (s)");
    size_t stride = s->npoints > PLOT_POINTS ? (s->npoints + PLOT_POINTS - 1) / PLOT_POINTS : 1;
    for (size_t i = 0; i < s->npoints; i += stride)
        if (s->v[i] > 0 && s->label[i] >= 0)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.6\" fill=\"%s\"/>\n",
                    svg_px(&p, (double)(s->t[i] - t0)), svg_py(&p, log10(s->v[i])),
                    svg_category((size_t)s->label[i]));
    svg_key_t key[RG_KMAX];
    char lab[RG_KMAX][64];
    for (int k = 0; k < s->k; k++) {
        char m[32];
        phasor_fmt_seconds(m, sizeof(m), s->reg[k].mean_s);
        snprintf(lab[k], sizeof(lab[k]), "regime %d: mean %s, %.1f%%", k, m, 100 * s->reg[k].share);
        key[k] = (svg_key_t){lab[k], svg_category(k), NULL, 0};
    }
    svg_legend(&p, key, (size_t)s->k);
    /* BIC against K */
    double blo = INFINITY, bhi = -INFINITY;
    for (int k = 1; k <= s->kmax; k++)
        if (isfinite(s->bic[k - 1])) {
            blo = fmin(blo, s->bic[k - 1]);
            bhi = fmax(bhi, s->bic[k - 1]);
        }
    if (!(bhi >= blo))
        blo = 0, bhi = 1;
    if (bhi == blo)
        bhi = blo + 1;
    svg_plot_t q = {f, 0.5, s->kmax + 0.5, blo - 0.05 * (bhi - blo), bhi + 0.05 * (bhi - blo),
                    80, 540, 400, 160};
    svg_axes(&q, 1, 1, "K (regimes)", "BIC");
    double xs[RG_KMAX], ys[RG_KMAX];
    for (int k = 1; k <= s->kmax; k++) {
        xs[k - 1] = k;
        ys[k - 1] = s->bic[k - 1];
    }
    svg_polyline(&q, xs, ys, (size_t)s->kmax, "#1f77b4", 1.5, NULL);
    if (s->k >= 1)
        svg_vline(&q, s->k, "#d62728", "4 3", "chosen");
    return svg_end(f);
}

static int write_series(int dirfd, const char *outdir, const rg_series_t *s, int64_t t0)
{
    char name[2][96];
    char base[64];
    snprintf(base, sizeof(base), "%s", s->name);
    for (char *c = base; *c; c++)
        if (*c == '/')
            *c = '-'; /* messages/inter-host -> regimes-messages-inter-host.csv */
    snprintf(name[0], sizeof(name[0]), "regimes-%s.csv", base);
    snprintf(name[1], sizeof(name[1]), "regimes-%s.svg", base);
    for (int k = 0; k < 2; k++) {
        ofile_t of;
        int ok = ofile_open(&of, dirfd, name[k]) == 0, wr = 0;
        if (ok) {
            if (k == 0) {
                fprintf(of.f, "t_ns,value_s,regime\n");
                for (size_t i = 0; i < s->npoints; i++)
                    fprintf(of.f, "%" PRId64 ",%.9g,%d\n", s->t[i], s->v[i], s->label[i]);
            } else {
                wr = svg_series(of.f, s, t0);
            }
            ok = ofile_close(&of, wr == 0 && !ferror(of.f)) == 0 && wr == 0;
        }
        if (!ok) {
            fprintf(stderr, "phasor regimes: %s/%s: %s\n", outdir, name[k],
                    strerror(errno ? errno : EIO));
            return PHASOR_EXIT_INPUT;
        }
    }
    return PHASOR_EXIT_OK;
}

int phasor_cmd_regimes(int argc, char **argv)
{
    regimes_args_t a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    plog_run_t *run = NULL;
    if ((status = phasor_open_run("regimes", a.path, -1, &run)) != PHASOR_EXIT_OK)
        return status;
    hl_samples_t hs;
    memset(&hs, 0, sizeof(hs));
    /* per kind up to two series (messages and probe: within a host, between hosts) */
    rg_series_t ser[2 * RG_NKINDS];
    memset(ser, 0, sizeof(ser));
    int have[2 * RG_NKINDS] = {0};
    plog_error_t err;
    int dirfd = -1;
    if (a.want[RG_PROBE] || a.want[RG_MESSAGES] || a.want[RG_COLLECTIVES]) {
        if (hl_collect(run, &a.h, &hs, &err) != PLOG_OK) {
            fprintf(stderr, "phasor regimes: %s\n", err.msg);
            status = PHASOR_EXIT_INPUT;
            goto done;
        }
    }
    for (int k = 0; k < RG_NKINDS; k++) {
        if (!a.want[k])
            continue;
        rg_link_t links[2] = {RG_LINK_ANY, RG_LINK_ANY};
        int nl = 1;
        size_t intra, inter;
        rg_link_counts(&hs, (rg_kind_t)k, &intra, &inter);
        if (intra && inter) {
            links[0] = RG_LINK_INTER;
            links[1] = RG_LINK_INTRA;
            nl = 2;
        } else if (intra || inter) {
            links[0] = inter ? RG_LINK_INTER : RG_LINK_INTRA;
        }
        for (int l = 0; l < nl; l++) {
            rg_series_t *sr = &ser[2 * k + l];
            plog_err_t rc = rg_series_fit(run, &hs, (rg_kind_t)k, links[l], &a.o, sr, &err);
            if (rc != PLOG_OK) {
                if (!a.explicit_series && k == RG_ITERATIONS && rc == PLOG_E_USAGE)
                    continue; /* no iterations found: the default leaves the series out */
                fprintf(stderr, "phasor regimes: %s\n", err.msg);
                status = PHASOR_EXIT_INPUT;
                goto done;
            }
            /* by default, only the series the log has samples for */
            if (sr->samples == 0 && !a.explicit_series) {
                rg_series_free(sr);
                continue;
            }
            have[2 * k + l] = 1;
        }
    }
    int64_t t0 = hs.t_first;
    if (a.outdir) {
        if ((dirfd = ofile_dir_open(a.outdir)) < 0) {
            fprintf(stderr, "phasor regimes: %s: %s\n", a.outdir,
                    errno == ELOOP ? "a symbolic link that is not yours; not followed"
                                   : strerror(errno));
            status = PHASOR_EXIT_INPUT;
            goto done;
        }
        for (int k = 0; k < 2 * RG_NKINDS && status == PHASOR_EXIT_OK; k++)
            if (have[k] && ser[k].samples > 0)
                status = write_series(dirfd, a.outdir, &ser[k], t0);
        if (status != PHASOR_EXIT_OK)
            goto done;
    }
    if (a.json) {
        printf("{\"format\": \"phasor-regimes\", \"version\": %d, \"log\": ", REGIMES_FORMAT_VERSION);
        jsonw_fstr(stdout, a.path);
        printf(", \"time_ref_monotonic_ns\": %" PRIu64 ", \"first_ns\": %" PRId64
               ",\n\"series\": [", plog_run_time_ref(run), t0);
        int first = 1;
        for (int k = 0; k < 2 * RG_NKINDS; k++)
            if (have[k]) {
                fputs(first ? "\n " : ",\n ", stdout);
                json_series(stdout, &ser[k], a.max_switches);
                first = 0;
            }
        printf("]}\n");
    } else {
        printf("phasor regimes: %s\n", a.path);
        int any = 0;
        for (int k = 0; k < 2 * RG_NKINDS; k++)
            if (have[k]) {
                text_series(stdout, &ser[k], t0, a.max_switches);
                any = 1;
            }
        if (!any)
            printf("no timing series in this log (no matched messages, collectives, probes or "
                   "iterations)\n");
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "phasor regimes: writing the output: %s\n", strerror(errno));
        status = PHASOR_EXIT_INPUT;
    }
    if (status == PHASOR_EXIT_OK)
        phasor_print_warnings("regimes", run);
done:
    if (dirfd >= 0)
        close(dirfd);
    for (int k = 0; k < 2 * RG_NKINDS; k++)
        rg_series_free(&ser[k]);
    hl_samples_free(&hs);
    plog_run_close(run);
    return status;
}
