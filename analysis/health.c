/* health.c: windows, slowdowns and departures of health.h's samples, per link. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "pstat.h"
#include "vec.h"

#define HL_MAX_HOST_LINKS 64 /* more hosts: the link kinds only */

int64_t hl_auto_window(size_t n, int64_t t0, int64_t t1)
{
    int64_t span = t1 > t0 ? t1 - t0 : 1;
    if (n < 2 * HL_PER_WINDOW)
        return span;
    static const int64_t m[3] = {1, 2, 5};
    for (int64_t dec = 1000000; dec <= span; dec *= 10)
        for (int k = 0; k < 3; k++) {
            int64_t w = m[k] * dec;
            double per = (double)n * (double)w / (double)span;
            if (per >= HL_PER_WINDOW && span / w <= 2000)
                return w;
        }
    return span;
}

/* the smallest 1-2-5 x 10^k ns (>= 1 ms) at least g */
static int64_t nice_at_least(int64_t g)
{
    static const int64_t m[3] = {1, 2, 5};
    for (int64_t dec = 1000000;; dec *= 10)
        for (int k = 0; k < 3; k++)
            if (m[k] * dec >= g || dec > INT64_MAX / 100)
                return m[k] * dec;
}

typedef struct ent {
    uint32_t k, cls;
    double value, ratio, dur_s;
    uint64_t bytes;
} ent_t;

static int cmp_cls_k(const void *a, const void *b)
{
    const ent_t *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

static int cmp_k(const void *a, const void *b)
{
    const ent_t *x = a, *y = b;
    return (x->k > y->k) - (x->k < y->k);
}


static double median_sorted(const double *v, size_t n)
{
    return n ? pstat_quantile(v, n, 0.5) : NAN;
}

/* One link's windows from its entries (destroyed: sorted, ratios filled). */
static int link_windows(ent_t *e, size_t n, size_t nw, int64_t t0, int64_t w, int min_n,
                        double threshold, hl_link_t *L)
{
    L->samples = n;
    L->nw = nw;
    L->w = calloc(nw ? nw : 1, sizeof(hl_window_t));
    double *tmp = malloc((n ? n : 1) * sizeof(double));
    double *med = malloc((nw ? nw : 1) * sizeof(double));
    if (L->w == NULL || tmp == NULL || med == NULL) {
        free(tmp);
        free(med);
        return -1;
    }
    /* the run's best per class: the 25th percentile of its window medians, the level a
     * quarter of the run reached; lower quantiles follow a few lucky windows, and timings
     * that sit at several sharp values (TCP pacing, two flows sharing a link) make those
     * lucky windows common */
    qsort(e, n, sizeof(ent_t), cmp_cls_k);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && e[b].cls == e[a].cls)
            b++;
        if (!isfinite(e[a].value)) { /* a class kept for latency alone (health_probe.c) */
            for (size_t q = a; q < b; q++)
                e[q].ratio = NAN;
            a = b;
            continue;
        }
        size_t nm = 0;
        for (size_t i = a; i < b;) {
            size_t j = i;
            while (j < b && e[j].k == e[i].k)
                j++;
            if (j - i >= (size_t)min_n) {
                for (size_t q = i; q < j; q++)
                    tmp[q - i] = e[q].value; /* sorted by value within (cls, k) */
                med[nm++] = median_sorted(tmp, j - i);
            }
            i = j;
        }
        double ref;
        if (nm >= 3) {
            qsort(med, nm, sizeof(double), pstat_cmp_double);
            ref = pstat_quantile(med, nm, HL_BEST_Q);
        } else {
            for (size_t q = a; q < b; q++)
                tmp[q - a] = e[q].value;
            qsort(tmp, b - a, sizeof(double), pstat_cmp_double);
            ref = median_sorted(tmp, b - a);
        }
        for (size_t q = a; q < b; q++)
            e[q].ratio = ref > 0 ? e[q].value / ref : NAN;
        a = b;
    }
    for (size_t k = 0; k < nw; k++) {
        L->w[k] = (hl_window_t){.start_ns = t0 + (int64_t)k * w, .end_ns = t0 + (int64_t)(k + 1) * w,
                                .slowdown = NAN, .lat_p50_s = NAN, .lat_p90_s = NAN,
                                .bw_p50_bps = NAN};
    }
    qsort(e, n, sizeof(ent_t), cmp_k);
    L->best_lat_s = NAN;
    L->best_bw_bps = NAN;
    size_t nsd = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && e[b].k == e[a].k)
            b++;
        hl_window_t *W = &L->w[e[a].k];
        W->n = (uint32_t)(b - a);
        size_t m = 0;
        for (size_t q = a; q < b; q++)
            if (isfinite(e[q].ratio))
                tmp[m++] = e[q].ratio;
        if (m >= (size_t)min_n) {
            qsort(tmp, m, sizeof(double), pstat_cmp_double);
            W->slowdown = median_sorted(tmp, m);
            W->departed = W->slowdown >= threshold;
            med[nsd++] = W->slowdown;
        }
        m = 0;
        for (size_t q = a; q < b; q++)
            if (e[q].bytes <= HL_SMALL_MAX && e[q].dur_s > 0)
                tmp[m++] = e[q].dur_s;
        if (m >= (size_t)min_n) {
            qsort(tmp, m, sizeof(double), pstat_cmp_double);
            W->lat_p50_s = median_sorted(tmp, m);
            W->lat_p90_s = pstat_quantile(tmp, m, 0.9);
            if (!(W->lat_p50_s >= L->best_lat_s))
                L->best_lat_s = W->lat_p50_s;
        }
        m = 0;
        for (size_t q = a; q < b; q++)
            if (e[q].bytes >= HL_LARGE_MIN && e[q].dur_s > 0)
                tmp[m++] = 8.0 * (double)e[q].bytes / e[q].dur_s;
        if (m >= (size_t)min_n) {
            qsort(tmp, m, sizeof(double), pstat_cmp_double);
            W->bw_p50_bps = median_sorted(tmp, m);
            if (!(W->bw_p50_bps <= L->best_bw_bps))
                L->best_bw_bps = W->bw_p50_bps;
        }
        a = b;
    }
    L->slowdown_p50 = L->slowdown_max = NAN;
    if (nsd) {
        qsort(med, nsd, sizeof(double), pstat_cmp_double);
        L->slowdown_p50 = median_sorted(med, nsd);
        L->slowdown_max = med[nsd - 1];
    }
    free(tmp);
    free(med);
    return 0;
}

int64_t hl_source_window(const hl_samples_t *s, hl_source_t src)
{
    int64_t t0 = s->t_first, t1 = s->t_last;
    const hl_sample_t *v = s->s[src];
    size_t n = s->n[src];
    if (src != HL_SRC_PROBE)
        return hl_auto_window(n, t0, t1);
    /* one probe per window at least: the median gap between the probes' times */
    size_t np = 0, cap = 0;
    int64_t *gaps = NULL;
    for (size_t i = 1; i < n; i++)
        if (v[i].t_ns != v[i - 1].t_ns) {
            if (VEC_GROW(gaps, cap, np + 1) != 0)
                break;
            gaps[np++] = v[i].t_ns - v[i - 1].t_ns;
        }
    int64_t w = t1 - t0 > 0 ? t1 - t0 : 1;
    if (np >= 2) {
        double *g = malloc(np * sizeof(double));
        if (g != NULL) {
            for (size_t i = 0; i < np; i++)
                g[i] = (double)gaps[i];
            qsort(g, np, sizeof(double), pstat_cmp_double);
            w = nice_at_least((int64_t)median_sorted(g, np));
            free(g);
        }
    }
    free(gaps);
    return w;
}

static int add_span(hl_health_t *h, size_t *cap, size_t link, const hl_link_t *L, size_t a,
                    size_t b)
{
    if (VEC_GROW(h->span, *cap, h->nspan + 1) != 0)
        return -1;
    double *v = malloc((b - a) * sizeof(double));
    if (v == NULL)
        return -1;
    size_t m = 0;
    for (size_t k = a; k < b; k++)
        if (!isnan(L->w[k].slowdown)) /* the empty windows a span went through */
            v[m++] = L->w[k].slowdown;
    assert(m > 0);
    qsort(v, m, sizeof(double), pstat_cmp_double);
    h->span[h->nspan++] = (hl_span_t){.start_ns = L->w[a].start_ns, .end_ns = L->w[b - 1].end_ns,
                                      .link = link, .slowdown = median_sorted(v, m),
                                      .max_slowdown = v[m - 1], .windows = (uint32_t)(b - a)};
    free(v);
    return 0;
}

static int cmp_span(const void *a, const void *b)
{
    const hl_span_t *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return (x->link > y->link) - (x->link < y->link);
}

/* The links sample x belongs to (link ids: 0 within hosts, 1 between hosts, 2 + h host h's
 * link; collectives: 0 alone) into ids; how many. */
static int links_of(const hl_samples_t *s, hl_source_t src, const hl_sample_t *x, int host_links,
                    size_t ids[3])
{
    if (src == HL_SRC_COLLECTIVES) {
        ids[0] = 0;
        return 1;
    }
    int32_t hs = s->host[x->src], hd = s->host[x->dst];
    if (hs == hd) {
        ids[0] = 0;
        return 1;
    }
    ids[0] = 1;
    if (!host_links)
        return 1;
    ids[1] = 2 + (size_t)(hs < hd ? hs : hd);
    ids[2] = 2 + (size_t)(hs < hd ? hd : hs);
    return 3;
}

/* The departed spans of link L (index li), into h. 0, or -1 out of memory. */
static int link_spans(hl_health_t *h, size_t *scap, size_t li, const hl_link_t *L)
{
    for (size_t a = 0; a < L->nw;) {
        if (!L->w[a].departed) {
            a++;
            continue;
        }
        /* a span goes on through windows with too few samples to say (no probe fell in
         * them, say) when a departed window follows: missing data is no sign of recovery */
        size_t b = a + 1, c = a + 1;
        while (c < L->nw && (L->w[c].departed || isnan(L->w[c].slowdown))) {
            if (L->w[c].departed)
                b = c + 1;
            c++;
        }
        if (add_span(h, scap, li, L, a, b) != 0)
            return -1;
        a = b;
    }
    return 0;
}

int hl_health(const hl_samples_t *s, const hl_opts_t *o, hl_health_t *out)
{
    memset(out, 0, sizeof(*out));
    double thr = o && o->threshold > 0 ? o->threshold : HL_THRESHOLD;
    int min_n = o && o->min_samples > 0 ? o->min_samples : 5;
    out->threshold = thr;
    int64_t t0 = s->t_first, t1 = s->t_last;
    int host_links = s->nhosts > 1 && s->nhosts <= HL_MAX_HOST_LINKS;
    size_t lcap = 0, scap = 0, maxl = 2 + (host_links ? (size_t)s->nhosts : 0);
    size_t *off = calloc(maxl + 1, sizeof(size_t));
    ent_t *e = NULL;
    int rc = -1;
    if (off == NULL)
        goto fail;
    for (int src = 0; src < 3; src++) {
        size_t n = s->n[src];
        if (n == 0)
            continue;
        int64_t w = o && o->window_ns > 0 ? o->window_ns : hl_source_window(s, src);
        if (w <= 0)
            w = 1;
        out->window_ns[src] = w;
        size_t nw = (size_t)((t1 - t0) / w) + 1;
        /* every sample into the entries of each of its links, in one pass: count, place */
        size_t ids[3];
        memset(off, 0, (maxl + 1) * sizeof(size_t));
        for (size_t i = 0; i < n; i++)
            for (int j = links_of(s, (hl_source_t)src, &s->s[src][i], host_links, ids); j-- > 0;)
                off[ids[j] + 1]++;
        for (size_t l = 0; l < maxl; l++)
            off[l + 1] += off[l];
        free(e);
        if ((e = malloc((off[maxl] ? off[maxl] : 1) * sizeof(ent_t))) == NULL)
            goto fail;
        for (size_t i = 0; i < n; i++) {
            const hl_sample_t *x = &s->s[src][i];
            int64_t k = (x->t_ns - t0) / w;
            ent_t en = {.k = (uint32_t)(k < 0 ? 0 : (size_t)k >= nw ? nw - 1 : (size_t)k),
                        .cls = x->cls, .value = x->value, .dur_s = (double)x->dur_ns * 1e-9,
                        .bytes = src == HL_SRC_COLLECTIVES ? 0 : x->bytes};
            for (int j = links_of(s, (hl_source_t)src, x, host_links, ids); j-- > 0;)
                e[off[ids[j]]++] = en;
        }
        /* off[l] is now where link l + 1 begins */
        for (size_t l = 0, from = 0; l < maxl; from = off[l++]) {
            size_t m = off[l] - from;
            if (m == 0)
                continue;
            if (VEC_GROW(out->link, lcap, out->nlink + 1) != 0)
                goto fail;
            hl_link_t *L = &out->link[out->nlink];
            memset(L, 0, sizeof(*L));
            L->source = (hl_source_t)src;
            if (src == HL_SRC_COLLECTIVES)
                snprintf(L->name, sizeof(L->name), "collectives");
            else if (l < 2)
                snprintf(L->name, sizeof(L->name), "%s", l == 0 ? "intra-host" : "inter-host");
            else
                snprintf(L->name, sizeof(L->name), "host %s", s->host_name[l - 2]);
            out->nlink++;
            if (link_windows(e + from, m, nw, t0, w, min_n, thr, L) != 0 ||
                link_spans(out, &scap, out->nlink - 1, L) != 0)
                goto fail;
        }
    }
    if (out->nspan > 1)
        qsort(out->span, out->nspan, sizeof(hl_span_t), cmp_span);
    rc = 0;
fail:
    free(e);
    free(off);
    if (rc != 0)
        hl_health_free(out);
    return rc;
}

void hl_health_free(hl_health_t *h)
{
    if (h == NULL)
        return;
    for (size_t l = 0; l < h->nlink; l++)
        free(h->link[l].w);
    free(h->link);
    free(h->span);
    memset(h, 0, sizeof(*h));
}
