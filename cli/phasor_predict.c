/* phasor_predict.c: `phasor predict`: every collective instance of a log replayed against
 * network models, next to the time the same instance took (doc/predict-format.md).
 *
 * The steps method (science.md §1): T = Σ_steps max over the step's messages of
 * t(src, dst, bytes), the messages being the library's own schedule rebuilt per member
 * (coll_instances.h). expected-max replaces each step's max of point estimates by the
 * expected maximum of the messages' time distributions (order statistics of independent
 * variables), and gives its 90th percentile too. replay runs every member's schedule from
 * its own entry (predict_replay.h). Measured: the last member's exit minus the first
 * member's entry on the aligned clock. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "coll_instances.h"
#include "jsonw.h"
#include "phasor_cmd.h"
#include "predict_models.h"
#include "plog_reader.h"
#include "pstat.h"
#include "predict_replay.h"

/* ---- per group: (collective, communicator size, size bucket) ---- */

typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec_t;

static int dpush(dvec_t *d, double x)
{
    if (d->n == d->cap) {
        size_t c = d->cap ? 2 * d->cap : 16;
        double *nv = realloc(d->v, c * sizeof(*nv));
        if (!nv)
            return -1;
        d->v = nv;
        d->cap = c;
    }
    d->v[d->n++] = x;
    return 0;
}

static double dmedian(dvec_t *d) /* sorts d */
{
    qsort(d->v, d->n, sizeof(double), pstat_cmp_double);
    return pstat_quantile(d->v, d->n, 0.5);
}

static double dquant(dvec_t *d, double q) /* after dmedian (sorted) */
{
    return pstat_quantile(d->v, d->n, q);
}

typedef struct group {
    pcs_coll_t coll;
    int32_t size;
    int bucket;              /* bytes in [2^(b-1), 2^b); 0: 0 bytes */
    uint64_t count;
    dvec_t measured;
    dvec_t pred[PRED_MAXMODELS], ratio[PRED_MAXMODELS], abserr[PRED_MAXMODELS];
    dvec_t exiterr[PRED_MAXMODELS]; /* replay: per instance, the members' median exit error */
    double sum_measured, sum_pred[PRED_MAXMODELS];
} group_t;

typedef struct pctx {
    const pred_model_t *models;
    int nmodels;
    pred_method_t method;
    group_t *g;
    size_t ng, gcap;
    uint64_t instances, predicted, nonblocking, incomplete;
    uint64_t skipped[RECON__COUNT + 1];
    double sum_measured, sum_pred[PRED_MAXMODELS];
    FILE *csv;               /* per instance rows, or NULL */
    int oom;
    /* scratch: one step's messages */
    const ci_xfer_t **step;
    ci_xfer_t *agg, **aggp;   /* one step's aggregated transfers */
    uint64_t *aggbig;         /* theirs: the largest single message in each */
    double *aggshift;         /* expected-max: each one's time past its largest message's */
    uint8_t *twoway;          /* theirs: data also flows the other way at an end */
    int32_t *snd, *rcv;       /* the step's senders and receivers (pr_link_key), sorted */
    int32_t world;
    const int32_t *host;      /* per world rank, a host id in [0, nhosts) */
    int32_t nhosts;
    pr_links_t links;         /* per host, between hosts; allocated when ranks share one */
    size_t stepcap;
    dvec_t scatter_m, scatter_p; /* first model: for the SVG */
    pr_t rp;                 /* replay scratch */
    pr_opts_t ropt;
    int gamma_given;
    const char *eager_what; /* whose eager size (pr_eager_of), or "--eager" */
} pctx_t;

static int bucket_of(uint64_t b)
{
    return b == 0 ? 0 : 64 - __builtin_clzll(b);
}

static group_t *group_at(pctx_t *c, pcs_coll_t coll, int32_t size, int bucket)
{
    for (size_t i = 0; i < c->ng; i++) /* few groups: a scan is enough */
        if (c->g[i].coll == coll && c->g[i].size == size && c->g[i].bucket == bucket)
            return &c->g[i];
    if (c->ng == c->gcap) {
        size_t nc = c->gcap ? 2 * c->gcap : 32;
        group_t *ng = realloc(c->g, nc * sizeof(*ng));
        if (!ng)
            return NULL;
        c->g = ng;
        c->gcap = nc;
    }
    group_t *g = &c->g[c->ng++];
    memset(g, 0, sizeof(*g));
    g->coll = coll;
    g->size = size;
    g->bucket = bucket;
    return g;
}

static int cmp_step(const void *a, const void *b)
{
    const ci_xfer_t *x = *(const ci_xfer_t *const *)a, *y = *(const ci_xfer_t *const *)b;
    if (x->step != y->step)
        return (x->step > y->step) - (x->step < y->step);
    return (x->src > y->src) - (x->src < y->src);
}

static int cmp_dst(const void *a, const void *b)
{
    const ci_xfer_t *x = *(const ci_xfer_t *const *)a, *y = *(const ci_xfer_t *const *)b;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int has_key(const int32_t *v, size_t n, int32_t k)
{
    return bsearch(&k, v, n, sizeof(*v), cmp_i32) != NULL;
}

/* x is two-way: the data also flows the other way, on the same kind of path (between hosts,
 * or within one), at one of its ends in the step */
static int is_twoway(const pctx_t *c, size_t n, const ci_xfer_t *x)
{
    int net = pr_crosses(c->host, x->src, x->dst);
    return has_key(c->rcv, n, pr_link_key(x->src, net)) ||
           has_key(c->snd, n, pr_link_key(x->dst, net));
}

/* A rank's messages of one step go out (come in) through its one link at the same time:
 * they count as one message of their summed bytes, on the path of the slowest of them
 * alone (science.md §2, concurrency); when that path is between hosts, of the bytes all
 * ranks of the host send (receive) between hosts in the step, which share its link.
 * out[] gets one transfer per source of x[0..n) sorted by source (by_dst: per destination,
 * x sorted by destination), big[] the largest single message in it, and tw[] whether it
 * is two-way. */
static size_t aggregate(const pctx_t *c, const pred_model_t *md, const ci_xfer_t *const *x,
                        size_t n, int by_dst, ci_xfer_t *out, uint64_t *big, uint8_t *tw)
{
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        int32_t key = by_dst ? x[i]->dst : x[i]->src;
        ci_xfer_t a = *x[i];
        a.bytes = 0;
        uint64_t b = 0;
        double slow = -1;
        int slow_tw = 0;
        size_t j = i;
        for (; j < n && (by_dst ? x[j]->dst : x[j]->src) == key; j++) {
            a.bytes += x[j]->bytes;
            if (x[j]->bytes > b)
                b = x[j]->bytes;
            int t2 = is_twoway(c, n, x[j]);
            double t = md->time(md->ctx, x[j]->src, x[j]->dst, x[j]->bytes, t2);
            if (t > slow) {
                slow = t;
                slow_tw = t2;
                a.src = x[j]->src;
                a.dst = x[j]->dst;
            }
        }
        if (c->links.cap && pr_crosses(c->host, a.src, a.dst)) {
            a.bytes = by_dst ? c->links.in[c->host[a.dst]] : c->links.out[c->host[a.src]];
            b = by_dst ? c->links.bigin[c->host[a.dst]] : c->links.bigout[c->host[a.src]];
        }
        big[m] = b;
        tw[m] = (uint8_t)slow_tw;
        out[m++] = a;
        i = j;
    }
    return m;
}

/* The step's time (and its P90): the slowest of the per-source and per-destination
 * aggregated transfers, by point estimates (steps) or as the expected maximum. x comes
 * sorted by source. */
static int step_time(pctx_t *c, const pred_model_t *m, const ci_xfer_t **x, size_t n,
                     double *e, double *q)
{
    *e = *q = 0;
    for (size_t i = 0; i < n; i++) {
        int net = pr_crosses(c->host, x[i]->src, x[i]->dst);
        c->snd[i] = pr_link_key(x[i]->src, net);
        c->rcv[i] = pr_link_key(x[i]->dst, net);
        if (c->links.cap)
            pr_links_add(&c->links, c->host, x[i]);
    }
    qsort(c->snd, n, sizeof(*c->snd), cmp_i32);
    qsort(c->rcv, n, sizeof(*c->rcv), cmp_i32);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            qsort(x, n, sizeof(*x), cmp_dst);
        size_t na = aggregate(c, m, x, n, pass, c->agg, c->aggbig, c->twoway);
        for (size_t k = 0; k < na; k++)
            c->aggp[k] = &c->agg[k];
        double ee = 0, qq = 0;
        for (size_t k = 0; k < na; k++) {
            /* several messages: the largest alone plus the rest at the bandwidth and under
             * the links' load, as the replay prices them (no eager size here: all priced as
             * sent) */
            double t = pr_aggregate_time(m->time, m->ctx, c->agg[k].src, c->agg[k].dst,
                                         c->agg[k].bytes, c->aggbig[k], c->twoway[k], 0,
                                         &m->load,
                                         pr_load_slow(&m->load, c->host, c->agg[k].src,
                                                      c->agg[k].dst, pass));
            ee = fmax(ee, t);
            if (c->method == PRED_EXPECTED_MAX) {
                /* the largest one's distribution, shifted by what the rest add to it */
                c->aggshift[k] =
                    fmax(0, t - m->time(m->ctx, c->agg[k].src, c->agg[k].dst, c->aggbig[k],
                                        c->twoway[k]));
                c->agg[k].bytes = c->aggbig[k];
            }
        }
        qq = ee;
        if (c->method == PRED_EXPECTED_MAX &&
            m->max_of(m->ctx, (const ci_xfer_t *const *)c->aggp, c->twoway, c->aggshift, na,
                      &ee, &qq) != 0)
            return -1;
        if (ee > *e)
            *e = ee;
        if (qq > *q)
            *q = qq;
    }
    for (size_t i = 0; c->links.cap && i < n; i++)
        pr_links_clear(&c->links, c->host, x[i]);
    return 0;
}

/* Σ over steps of the step's max (steps) or expected max (expected-max); *p90: Σ of the
 * steps' P90 of the max (expected-max only, else the same as the return value). */
static int predict_one(pctx_t *c, const ci_inst_t *in, const pred_model_t *m, double *t,
                       double *p90)
{
    if (in->nx > c->stepcap) {
        const ci_xfer_t **ns = realloc(c->step, in->nx * sizeof(*ns));
        ci_xfer_t *ag = realloc(c->agg, in->nx * sizeof(*ag));
        ci_xfer_t **ap = realloc(c->aggp, in->nx * sizeof(*ap));
        uint64_t *ab = realloc(c->aggbig, in->nx * sizeof(*ab));
        double *ash = realloc(c->aggshift, in->nx * sizeof(*ash));
        uint8_t *tw = realloc(c->twoway, in->nx * sizeof(*tw));
        int32_t *sn = realloc(c->snd, in->nx * sizeof(*sn));
        int32_t *rc = realloc(c->rcv, in->nx * sizeof(*rc));
        if (ns)
            c->step = ns;
        if (ag)
            c->agg = ag;
        if (ap)
            c->aggp = ap;
        if (ab)
            c->aggbig = ab;
        if (ash)
            c->aggshift = ash;
        if (tw)
            c->twoway = tw;
        if (sn)
            c->snd = sn;
        if (rc)
            c->rcv = rc;
        if (!ns || !ag || !ap || !ab || !ash || !tw || !sn || !rc)
            return -1;
        c->stepcap = in->nx;
    }
    for (size_t i = 0; i < in->nx; i++)
        c->step[i] = &in->x[i];
    if (in->nx) /* step is NULL until an instance has transfers */
        qsort(c->step, in->nx, sizeof(*c->step), cmp_step);
    double sum = 0, sum90 = 0;
    for (size_t i = 0; i < in->nx;) {
        size_t j = i;
        while (j < in->nx && c->step[j]->step == c->step[i]->step)
            j++;
        double e, q;
        if (step_time(c, m, c->step + i, j - i, &e, &q) != 0)
            return -1;
        sum += e;
        sum90 += q;
        i = j;
    }
    *t = sum;
    *p90 = sum90;
    return 0;
}

static void csv_header(FILE *f, const pctx_t *c)
{
    fprintf(f, "comm,instance,collective,algorithm,comm_size,bytes,steps,messages,measured_ns");
    for (int k = 0; k < c->nmodels; k++) {
        fprintf(f, ",predicted_ns_%s", c->models[k].name);
        if (c->method == PRED_EXPECTED_MAX)
            fprintf(f, ",p90_ns_%s", c->models[k].name);
        if (c->method == PRED_REPLAY)
            fprintf(f, ",exit_err_ns_%s", c->models[k].name);
    }
    fprintf(f, "\n");
}

static void on_instance(void *arg, const ci_inst_t *in)
{
    pctx_t *c = arg;
    c->instances++;
    if (in->seen < in->size) {
        c->incomplete++;
        return;
    }
    if (in->nonblocking) { /* the call returns before the collective ends */
        c->nonblocking++;
        return;
    }
    if (in->why != RECON_OK) {
        c->skipped[in->why < RECON__COUNT ? in->why : RECON__COUNT]++;
        return;
    }
    double measured = (double)(in->last_end - in->first_start);
    group_t *g = group_at(c, in->coll, in->size, bucket_of(in->bytes));
    if (!g || dpush(&g->measured, measured) != 0) {
        c->oom = 1;
        return;
    }
    g->count++;
    g->sum_measured += measured;
    c->sum_measured += measured;
    c->predicted++;
    double pt[PRED_MAXMODELS], p9[PRED_MAXMODELS];
    for (int k = 0; k < c->nmodels; k++) {
        c->ropt.load = c->models[k].load;
        int rc = c->method == PRED_REPLAY
                     ? pr_replay(&c->rp, in, c->models[k].time, c->models[k].ctx, &c->ropt,
                                 &pt[k], &p9[k])
                     : predict_one(c, in, &c->models[k], &pt[k], &p9[k]);
        if (rc != 0 || (c->method == PRED_REPLAY && dpush(&g->exiterr[k], p9[k]) != 0)) {
            c->oom = 1;
            return;
        }
        double ratio = measured > 0 ? pt[k] / measured : NAN;
        if (dpush(&g->pred[k], pt[k]) != 0 || dpush(&g->ratio[k], ratio) != 0 ||
            dpush(&g->abserr[k], fabs(pt[k] - measured)) != 0) {
            c->oom = 1;
            return;
        }
        g->sum_pred[k] += pt[k];
        c->sum_pred[k] += pt[k];
    }
    if (c->nmodels > 0 &&
        (dpush(&c->scatter_m, measured) != 0 || dpush(&c->scatter_p, pt[0]) != 0))
        c->oom = 1;
    if (c->csv) {
        fprintf(c->csv, "%d,%" PRIu64 ",%s,%s,%d,%" PRIu64 ",%u,%zu,%.0f", (int)in->comm,
                in->ordinal, pcs_coll_name(in->coll), pcs_alg_name(in->alg), (int)in->size,
                in->bytes, in->nsteps, in->nx, measured);
        for (int k = 0; k < c->nmodels; k++) {
            fprintf(c->csv, ",%.0f", pt[k]);
            if (c->method != PRED_STEPS) /* p90, or replay's exit error */
                fprintf(c->csv, ",%.0f", p9[k]);
        }
        fprintf(c->csv, "\n");
    }
}

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

static int cmp_group(const void *a, const void *b)
{
    const group_t *x = a, *y = b;
    if (x->coll != y->coll)
        return (int)x->coll - (int)y->coll;
    if (x->size != y->size)
        return x->size - y->size;
    return x->bucket - y->bucket;
}

static const char *method_name(pred_method_t m)
{
    return m == PRED_STEPS ? "steps" : m == PRED_EXPECTED_MAX ? "expected-max" : "replay";
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
static void links_text(FILE *o, const pctx_t *c, const pr_load_t *l)
{
    if (!(l->per_byte > 0) || !l->out || !l->in) {
        fprintf(o, "no pair between hosts to read a load from\n");
        return;
    }
    fprintf(o, "unloaded %.2f ns/B (2-4 MiB, first quartile of the pairs between hosts)",
            l->per_byte);
    size_t n = 0;
    for (int32_t r = 0; r < c->world; r++)
        n += (l->out[r] > 1) + (l->in[r] > 1);
    slow_link_t *v = n ? malloc(n * sizeof(*v)) : NULL;
    if (n && !v) { /* no memory: the count alone */
        fprintf(o, "; %zu links slower\n", n);
        return;
    }
    size_t k = 0;
    for (int32_t r = 0; r < c->world; r++)
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

static void text_out(FILE *o, pctx_t *c, const char *path, const char *source)
{
    fprintf(o, "phasor predict: %s\nmodel: %s; method: ", path, source);
    if (c->method == PRED_STEPS)
        fprintf(o, "steps (sum over steps of the slowest message)\n");
    else if (c->method == PRED_EXPECTED_MAX)
        fprintf(o, "expected-max (sum over steps of the expected maximum)\n");
    else
        fprintf(o, "replay (every member from its entry, step by step; reductions %.4g ns/B "
                   "(%s), eager up to %" PRIu64 " B (%s))\n",
                c->ropt.gamma, c->gamma_given ? "--gamma" : "measured here", c->ropt.eager,
                c->eager_what);
    if (c->nmodels > 0 && c->models[0].load.t) { /* one load for all: the pairs' */
        fprintf(o, "links (every model): ");
        links_text(o, c, &c->models[0].load);
    } else {
        for (int k = 0; k < c->nmodels; k++) {
            fprintf(o, "links (%s): ", c->models[k].name);
            links_text(o, c, &c->models[k].load);
        }
    }
    fprintf(o, "%" PRIu64 " collective instances, %" PRIu64 " predicted", c->instances,
            c->predicted);
    if (c->nonblocking)
        fprintf(o, ", %" PRIu64 " nonblocking (not timed: the call returns first)", c->nonblocking);
    if (c->incomplete)
        fprintf(o, ", %" PRIu64 " incomplete (a member's log is missing or ended)", c->incomplete);
    fprintf(o, "\n");
    for (int w = 0; w <= RECON__COUNT; w++)
        if (c->skipped[w])
            fprintf(o, "  %" PRIu64 " without steps: %s\n", c->skipped[w],
                    w < RECON__COUNT ? recon_skip_name((recon_skip_t)w) : "?");
    for (int k = 0; k < c->nmodels; k++) {
        fprintf(o, "\n@--- %s: predicted vs measured (medians over instances)\n",
                c->models[k].name);
        fprintf(o, "%-22s %6s %8s %8s %14s %14s %9s %9s %14s%s\n", "collective", "ranks",
                "bytes", "count", "measured_us", "predicted_us", "ratio", "ratio_p90",
                "abs_err_us", c->method == PRED_REPLAY ? "    exit_err_us" : "");
        for (size_t i = 0; i < c->ng; i++) {
            group_t *g = &c->g[i];
            char b[16];
            bucket_text(g->bucket, b, sizeof(b));
            double r = dmedian(&g->ratio[k]);
            double r90 = dquant(&g->ratio[k], 0.9);
            fprintf(o, "%-22s %6d %8s %8" PRIu64 " %14.2f %14.2f %9.3f %9.3f %14.2f",
                    pcs_coll_name(g->coll), (int)g->size, b, g->count,
                    dmedian(&g->measured) / 1e3, dmedian(&g->pred[k]) / 1e3, r, r90,
                    dmedian(&g->abserr[k]) / 1e3);
            if (c->method == PRED_REPLAY)
                fprintf(o, " %14.2f", dmedian(&g->exiterr[k]) / 1e3);
            fprintf(o, "\n");
        }
        if (c->sum_measured > 0)
            fprintf(o, "whole run: collectives took %.6f s, predicted %.6f s (ratio %.3f)\n",
                    c->sum_measured / 1e9, c->sum_pred[k] / 1e9,
                    c->sum_pred[k] / c->sum_measured);
        else
            fprintf(o, "whole run: no predicted collective took any time\n");
    }
}

static void json_num(FILE *o, double x)
{
    if (isfinite(x))
        fprintf(o, "%.6g", x);
    else
        fprintf(o, "null");
}

static void json_out(FILE *o, pctx_t *c, const pred_models_t *pm)
{
    fprintf(o, "{\"format\": \"phasor-predict\", \"version\": 5, \"model\": ");
    jsonw_fstr(o, pm->source);
    if (pm->probe_samples >= 0)
        fprintf(o, ", \"probe\": {\"samples\": %ld, \"pooled\": %ld, \"unshared\": %ld}",
                pm->probe_samples, pm->probe_pooled, pm->probe_unshared);
    fprintf(o, ", \"method\": \"%s\", \"instances\": %" PRIu64 ", \"predicted\": %" PRIu64
               ", \"nonblocking\": %" PRIu64 ", \"incomplete\": %" PRIu64 ", \"without_steps\": {",
            method_name(c->method), c->instances, c->predicted,
            c->nonblocking, c->incomplete);
    int first = 1;
    for (int w = 0; w < RECON__COUNT; w++)
        if (c->skipped[w]) {
            fprintf(o, "%s\"%s\": %" PRIu64, first ? "" : ", ", recon_skip_name((recon_skip_t)w),
                    c->skipped[w]);
            first = 0;
        }
    fprintf(o, "}");
    if (c->method == PRED_REPLAY) {
        fprintf(o, ", \"gamma_ns_per_byte\": ");
        json_num(o, c->ropt.gamma);
        fprintf(o, ", \"gamma_source\": \"%s\", \"eager_bytes\": %" PRIu64
                   ", \"eager_source\": ",
                c->gamma_given ? "option" : "measured", c->ropt.eager);
        fprintf(o, "\"%s\"", c->eager_what); /* our own words: nothing to escape */
    }
    fprintf(o, ",\n\"measured_ns\": ");
    json_num(o, c->sum_measured);
    fprintf(o, ",\n\"models\": [");
    for (int k = 0; k < c->nmodels; k++) {
        fprintf(o, "%s{\"model\": \"%s\", \"predicted_ns\": ", k ? ",\n " : "\n ",
                c->models[k].name);
        json_num(o, c->sum_pred[k]);
        const pr_load_t *l = &c->models[k].load;
        if (l->per_byte > 0 && l->out && l->in) {
            fprintf(o, ", \"links\": {\"unloaded_ns_per_byte\": ");
            json_num(o, l->per_byte);
            fprintf(o, ", \"from\": \"%s\", \"slower\": [", l->t ? "pairs" : "model");
            int n = 0;
            for (int32_t r = 0; r < c->world; r++)
                for (int in = 0; in < 2; in++) {
                    double v = (in ? l->in : l->out)[r];
                    if (v > 1) {
                        fprintf(o, "%s{\"rank\": %d, \"link\": \"%s\", \"slowdown\": ",
                                n++ ? ", " : "", (int)r, in ? "in" : "out");
                        json_num(o, v);
                        fprintf(o, "}");
                    }
                }
            fprintf(o, "]}");
        } else {
            fprintf(o, ", \"links\": null");
        }
        fprintf(o, ", \"groups\": [");
        for (size_t i = 0; i < c->ng; i++) {
            group_t *g = &c->g[i];
            uint64_t lo = g->bucket ? 1ull << (g->bucket - 1) : 0;
            fprintf(o, "%s{\"collective\": \"%s\", \"comm_size\": %d, \"bytes_lo\": %" PRIu64
                       ", \"count\": %" PRIu64 ", \"measured_med_ns\": ",
                    i ? ",\n   " : "\n   ", pcs_coll_name(g->coll), (int)g->size, lo, g->count);
            json_num(o, dmedian(&g->measured));
            fprintf(o, ", \"predicted_med_ns\": ");
            json_num(o, dmedian(&g->pred[k]));
            fprintf(o, ", \"ratio_med\": ");
            json_num(o, dmedian(&g->ratio[k]));
            fprintf(o, ", \"ratio_p10\": ");
            json_num(o, dquant(&g->ratio[k], 0.1));
            fprintf(o, ", \"ratio_p90\": ");
            json_num(o, dquant(&g->ratio[k], 0.9));
            fprintf(o, ", \"abs_err_med_ns\": ");
            json_num(o, dmedian(&g->abserr[k]));
            fprintf(o, ", \"measured_ns\": ");
            json_num(o, g->sum_measured);
            fprintf(o, ", \"predicted_ns\": ");
            json_num(o, g->sum_pred[k]);
            if (c->method == PRED_REPLAY) {
                fprintf(o, ", \"exit_err_med_ns\": ");
                json_num(o, dmedian(&g->exiterr[k]));
            }
            fprintf(o, "}");
        }
        fprintf(o, "]}");
    }
    fprintf(o, "]}\n");
}

/* Log-log scatter of predicted vs measured (the first model), with the diagonal. */
static int svg_scatter(FILE *f, const pctx_t *c)
{
    const int W = 640, H = 640, L = 70, B = 60, R = 20, T = 40;
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < c->scatter_m.n; i++) {
        double v[2] = {c->scatter_m.v[i], c->scatter_p.v[i]};
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
            c->nmodels ? c->models[0].name : "");
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"14\">predicted vs measured, %s model, "
               "%zu instances</text>\n", L, c->nmodels ? c->models[0].name : "", c->scatter_m.n);
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
    for (size_t i = 0; i < c->scatter_m.n; i++) {
        double m = c->scatter_m.v[i], p = c->scatter_p.v[i];
        if (!(m > 0) || !(p > 0))
            continue;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"#1f77b4\" "
                   "fill-opacity=\"0.5\"/>\n", PX(m), PY(p));
    }
    fprintf(f, "</svg>\n");
#undef PX
#undef PY
    return ferror(f) ? -1 : 0;
}

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

int phasor_cmd_predict(int argc, char **argv)
{
    static const struct option opts[] = {
        {"model", required_argument, NULL, 'm'}, {"kind", required_argument, NULL, 'k'},
        {"method", required_argument, NULL, 'M'}, {"csv", no_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'}, {"library", required_argument, NULL, 'l'},
        {"breaks", required_argument, NULL, 'B'},
        {"gamma", required_argument, NULL, 'g'}, {"eager", required_argument, NULL, 'e'},
        {"save-model", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *model_file = NULL, *kinds = NULL, *outdir = NULL, *save_model = NULL;
    pred_method_t method = PRED_STEPS;
    double gamma = NAN;
    long long eager = -1;
    int csv = 0, json = 0;
    recon_lib_t lib = RECON_LIB_AUTO;
    pnm_opts_t fit;
    memset(&fit, 0, sizeof(fit));
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'm': model_file = optarg; break;
        case 'S': save_model = optarg; break;
        case 'k': kinds = optarg; break;
        case 'M':
            if (!strcmp(optarg, "steps"))
                method = PRED_STEPS;
            else if (!strcmp(optarg, "expected-max"))
                method = PRED_EXPECTED_MAX;
            else if (!strcmp(optarg, "replay"))
                method = PRED_REPLAY;
            else
                return phasor_usage_error("predict", "--method: '%s' is not steps, expected-max "
                                          "or replay", optarg);
            break;
        case 'g': {
            char *end;
            errno = 0;
            gamma = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(gamma >= 0) || !isfinite(gamma))
                return phasor_usage_error("predict", "--gamma: '%s' is not a number of ns per "
                                          "byte >= 0", optarg);
            break;
        }
        case 'e': {
            char *end;
            errno = 0;
            eager = strtoll(optarg, &end, 10);
            if (errno || end == optarg || *end || eager < 0)
                return phasor_usage_error("predict", "--eager: '%s' is not a size in bytes",
                                          optarg);
            break;
        }
        case 'B':
            if (pnm_opts_parse_breaks(optarg, &fit) != 0)
                return phasor_usage_error("predict", "--breaks: '%s' is not study, detect or "
                                          "increasing sizes in bytes (8192,131072)", optarg);
            break;
        case 'c': csv = 1; break;
        case 'j': json = 1; break;
        case 'o': outdir = optarg; break;
        case 'l': {
            int l = recon_lib_parse(optarg);
            if (l < 0)
                return phasor_usage_error("predict", "--library: unknown rules '%s' (auto, "
                                                     "ompi41, mpich40)", optarg);
            lib = (recon_lib_t)l;
            break;
        }
        case 'h': usage(stdout); return PHASOR_EXIT_OK;
        default:
            if (optopt)
                return phasor_usage_error("predict", "%s needs a value", argv[optind - 1]);
            return phasor_usage_error("predict", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (csv && json)
        return phasor_usage_error("predict", "%s", "--csv and --json: choose one");
    if (method != PRED_REPLAY && !isnan(gamma))
        return phasor_usage_error("predict", "%s", "--gamma applies to --method replay");
    if (model_file && save_model)
        return phasor_usage_error("predict", "%s", "--save-model writes the run's probe; "
                                  "with --model there is no fit to save");
    if (optind >= argc)
        return phasor_usage_error("predict", "%s", "which log? give a log directory");
    if (optind + 1 < argc)
        return phasor_usage_error("predict", "unexpected argument '%s'", argv[optind + 1]);
    const char *path = argv[optind];

    plog_error_t err;
    plog_run_t *run = NULL;
    if (plog_run_open(path, &run, &err) != PLOG_OK) {
        fprintf(stderr, "phasor predict: %s\n", err.msg);
        return PHASOR_EXIT_INPUT;
    }
    pred_models_t pm;
    if (model_file && (fit.detect || fit.nbreak)) {
        plog_run_close(run);
        return phasor_usage_error("predict", "%s", "--breaks applies to fitting the run's probe; "
                                  "a model file holds its own segments");
    }
    /* hosts first: the probe's samples are unshared by them (pmf_unshare) */
    int32_t world = plog_run_world_size(run), nhosts = 0;
    ci_t *ci = ci_new(run, lib);
    int32_t *hosts = malloc((size_t)(world > 0 ? world : 1) * sizeof(*hosts));
    if (!ci || !hosts) {
        fprintf(stderr, "phasor predict: out of memory\n");
        ci_free(ci);
        free(hosts);
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }
    for (int32_t r = 0; r < world; r++) { /* dense ids: a rank of no known host gets its own */
        hosts[r] = ci_host(ci, r);
        if (hosts[r] >= nhosts)
            nhosts = hosts[r] + 1;
    }
    for (int32_t r = 0, h = nhosts; r < world; r++)
        if (hosts[r] < 0)
            hosts[r] = h++, nhosts = h;
    /* the library's eager size: where LogGP's handshake starts (when measured for it, or
     * given, and the ranks are on more than one host), and what a rendezvous waits for in
     * the replay */
    const char *libstr = NULL, *eager_what = NULL;
    for (int32_t r = 0; r < world && !libstr; r++) { /* the first rank loaded */
        const plog_rank_t *rk = plog_run_rank(run, r);
        libstr = rk ? plog_rank_kv(rk, "mpi_library") : NULL;
    }
    uint64_t eager_size = pr_eager_of(libstr, &eager_what);
    if (eager >= 0) {
        eager_size = (uint64_t)eager;
        eager_what = "--eager";
    }
    if (strcmp(eager_what, PRED_EAGER_UNMEASURED) != 0 && nhosts > 1)
        fit.rndv = eager_size; /* between hosts; on one, shared memory's size is another */
    if (pred_models_load(&pm, run, model_file, kinds, &fit, hosts, nhosts, &err) != PLOG_OK) {
        fprintf(stderr, "phasor predict: %s\n", err.msg);
        ci_free(ci);
        free(hosts);
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }
    if (save_model && pred_models_save(run, &fit, save_model, &err) != PLOG_OK) {
        fprintf(stderr, "phasor predict: %s\n", err.msg);
        pred_models_free(&pm);
        ci_free(ci);
        free(hosts);
        plog_run_close(run);
        return PHASOR_EXIT_INPUT;
    }
    pctx_t c;
    memset(&c, 0, sizeof(c));
    c.models = pm.m;
    c.nmodels = pm.n;
    c.method = method;
    c.world = world;
    c.host = c.ropt.host = hosts;
    c.nhosts = c.ropt.nhosts = nhosts;
    if (method == PRED_REPLAY) {
        c.gamma_given = !isnan(gamma);
        c.ropt.gamma = c.gamma_given ? gamma : pr_measure_gamma();
        c.ropt.eager = eager_size;
        c.eager_what = eager_what;
        if (strcmp(c.eager_what, PRED_EAGER_UNMEASURED) == 0) { /* --csv too */
            fprintf(stderr, "phasor predict: %s: no eager size measured for its MPI library; "
                            "replaying with Open MPI's, %" PRIu64 " B: give --eager BYTES "
                            "(bench/cluster/eager measures it)\n", path, c.ropt.eager);
        }
    }
    FILE *csvf = NULL;
    int status = PHASOR_EXIT_OK;
    if (method != PRED_REPLAY && nhosts < world) { /* some ranks share a host */
        if (pr_links_reserve(&c.links, (size_t)nhosts) != 0) {
            fprintf(stderr, "phasor predict: out of memory\n");
            status = PHASOR_EXIT_INPUT;
            goto done;
        }
    }
    if (outdir) {
        if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "phasor predict: %s: %s\n", outdir, strerror(errno));
            status = PHASOR_EXIT_INPUT;
            goto done;
        }
        char p[4096];
        snprintf(p, sizeof(p), "%s/predict.csv", outdir);
        csvf = fopen(p, "w");
        if (!csvf) {
            fprintf(stderr, "phasor predict: %s: %s\n", p, strerror(errno));
            status = PHASOR_EXIT_INPUT;
            goto done;
        }
        c.csv = csvf;
        csv_header(csvf, &c);
    } else if (csv) {
        c.csv = stdout;
        csv_header(stdout, &c);
    }
    plog_iter_t *it = NULL;
    if (plog_iter_open(run, PLOG_ALL_RANKS, &it, &err) != PLOG_OK) {
        fprintf(stderr, "phasor predict: %s\n", err.msg);
        status = PHASOR_EXIT_INPUT;
        goto done;
    }
    const plog_rec_t *e;
    plog_err_t ie;
    while ((ie = plog_iter_next(it, &e, &err)) == PLOG_OK && e != NULL && !c.oom)
        if (ci_feed(ci, e, on_instance, &c) != 0)
            c.oom = 1;
    ci_finish(ci, on_instance, &c);
    plog_iter_close(it);
    ci_free(ci);
    ci = NULL;
    if (ie != PLOG_OK || c.oom) {
        fprintf(stderr, "phasor predict: %s\n", c.oom ? "out of memory" : err.msg);
        status = PHASOR_EXIT_INPUT;
        goto done;
    }
    if (outdir) {
        char p[4096];
        snprintf(p, sizeof(p), "%s/predict.svg", outdir);
        FILE *f = fopen(p, "w");
        if (!f || svg_scatter(f, &c) != 0 || fclose(f) != 0) {
            fprintf(stderr, "phasor predict: %s: %s\n", p, strerror(errno));
            status = PHASOR_EXIT_INPUT;
            goto done;
        }
    }
    if (c.ng) /* g is NULL when nothing was predicted */
        qsort(c.g, c.ng, sizeof(*c.g), cmp_group);
    if (json)
        json_out(stdout, &c, &pm);
    else if (!csv)
        text_out(stdout, &c, path, pm.source);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "phasor predict: writing the output: %s\n", strerror(errno));
        status = PHASOR_EXIT_INPUT;
    }
done:
    ci_free(ci);
    pr_links_free(&c.links);
    if (csvf && fclose(csvf) != 0 && status == PHASOR_EXIT_OK) {
        fprintf(stderr, "phasor predict: %s/predict.csv: %s\n", outdir, strerror(errno));
        status = PHASOR_EXIT_INPUT;
    }
    for (size_t i = 0; i < c.ng; i++) {
        free(c.g[i].measured.v);
        for (int k = 0; k < PRED_MAXMODELS; k++) {
            free(c.g[i].pred[k].v);
            free(c.g[i].ratio[k].v);
            free(c.g[i].abserr[k].v);
            free(c.g[i].exiterr[k].v);
        }
    }
    free(c.g);
    free(c.step);
    free(c.agg);
    free(c.aggp);
    free(c.aggbig);
    free(c.aggshift);
    free(c.twoway);
    free(hosts);
    free(c.snd);
    free(c.rcv);
    free(c.scatter_m.v);
    free(c.scatter_p.v);
    pr_free(&c.rp);
    pred_models_free(&pm);
    if (status == PHASOR_EXIT_OK)
        phasor_print_warnings("predict", run);
    plog_run_close(run);
    return status;
}
