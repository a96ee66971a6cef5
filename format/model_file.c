/* model_file.c: read and write the network model file (see model_file.h and
 * doc/model-format.md) with jansson. */
#include "model_file.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int bad(char *why, size_t cap, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad(char *why, size_t cap, const char *path, const char *fmt, ...)
{
    char d[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d, sizeof(d), fmt, ap);
    va_end(ap);
    snprintf(why, cap, "%s: %s", path, d);
    return -1;
}

void pmf_free(pmf_t *f)
{
    free(f->hosts);
    free(f->s);
    for (int k = 0; k <= PNM_LOGGP; k++)
        pnm_free(&f->m[k]);
    memset(f, 0, sizeof(*f));
}

void pmf_samples_from_probe(pnm_sample_t *s, const plog_probe_entry_t *e, size_t n,
                            const uint64_t *sizes)
{
    for (size_t i = 0; i < n; i++) {
        s[i].src = e[i].src;
        s[i].dst = e[i].dst;
        s[i].bytes = sizes[e[i].size_idx];
        s[i].q.n = e[i].q.n;
        const plog_probe_q_t *q = &e[i].q;
        const double v[PNM_NQ] = {q->min, q->q10, q->q25, q->q50, q->q75, q->q90, q->max};
        memcpy(s[i].q.v, v, sizeof(v));
        s[i].q.mean = e[i].q.mean;
        s[i].way = e[i].way == PLOG_PROBE_ONEWAY ? PNM_ONEWAY : PNM_EXCHANGE;
    }
}

int pmf_from_probe(pmf_t *f, const plog_probe_info_t *info, int32_t nranks,
                   const plog_probe_entry_t *e, size_t n)
{
    memset(f, 0, sizeof(*f));
    f->s = calloc(n ? n : 1, sizeof(*f->s));
    if (!f->s)
        return -1;
    f->mode = (int)info->mode;
    f->nranks = nranks;
    f->reps = info->reps;
    f->elapsed_s = info->elapsed_s;
    f->seed = info->seed;
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(f->created, sizeof(f->created), "%Y-%m-%dT%H:%M:%SZ", &tm);
    f->n = n;
    pmf_samples_from_probe(f->s, e, n, info->sizes);
    return 0;
}

void pmf_set_library(pmf_t *f, const char *lib)
{
    snprintf(f->library, sizeof(f->library), "%.*s", (int)strcspn(lib, "\n"), lib);
}

int pmf_fit_samples(pnm_sample_t *s, size_t n, int mode, int32_t nranks, const int32_t *host,
                    int32_t nhosts, unsigned how, size_t *unshared, size_t *pooled)
{
    *unshared = 0;
    *pooled = 0;
    if (mode == PLOG_PROBE_QUICK && host)
        *unshared = pmf_unshare(s, n, nranks, host, nhosts, how);
    return how & PMF_FIT_POOL ? pmf_shrink(s, n, host, pooled) : 0;
}

int32_t pmf_host_ids(const pmf_t *f, int32_t *id)
{
    int32_t nh = 0;
    for (int32_t r = 0; r < f->nranks; r++) {
        int32_t k = 0;
        if (f->hosts[r][0]) /* ranks are few here: a scan per rank */
            while (k < r && strcmp(f->hosts[k], f->hosts[r]) != 0)
                k++;
        else
            k = r;
        id[r] = k < r ? id[k] : nh++;
    }
    return nh;
}

/* f's samples as its models are fitted to them (a copy, pmf_fit_samples, with hosts by
 * their names, an empty name a host of its own); *changed: pair samples unshared. NULL:
 * no memory. */
static pnm_sample_t *fit_samples(const pmf_t *f, unsigned how, size_t *changed)
{
    pnm_sample_t *s = malloc((f->n ? f->n : 1) * sizeof(*s));
    int32_t *id = f->hosts ? malloc((size_t)f->nranks * sizeof(*id)) : NULL, nh = 0;
    if (!s || (f->hosts && !id)) {
        free(s);
        free(id);
        return NULL;
    }
    memcpy(s, f->s, f->n * sizeof(*s));
    if (id)
        nh = pmf_host_ids(f, id);
    size_t pooled;
    if (pmf_fit_samples(s, f->n, f->mode, f->nranks, id, nh, how, changed, &pooled) != 0) {
        free(s);
        s = NULL;
    }
    free(id);
    return s;
}

int pmf_fit_all(pmf_t *f, const pnm_opts_t *o, char *why, size_t cap)
{
    size_t changed;
    pnm_sample_t *s = fit_samples(f, PMF_FIT_NOW, &changed);
    if (!s) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    pnm_samples_t in = {f->nranks, f->mode, f->n, s};
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++) {
        char w[256];
        pnm_free(&f->m[k]);
        f->has[k] = 0;
        pnm_err_t e = pnm_fit((pnm_kind_t)k, &in, o, &f->m[k], w, sizeof(w));
        if (e == PNM_OK)
            f->has[k] = 1;
        else if (k == PNM_LOOKUP || e != PNM_E_NODATA) {
            snprintf(why, cap, "%s model: %s", pnm_kind_name((pnm_kind_t)k), w);
            free(s);
            return -1;
        }
    }
    free(s);
    return 0;
}

/* ---- link sharing in quick probes ---- */

/* by pair (source, way, destination), then size */
static int cmp_pair(const pnm_sample_t *x, const pnm_sample_t *y)
{
    if (x->src != y->src)
        return (x->src > y->src) - (x->src < y->src);
    if (x->way != y->way)
        return (x->way > y->way) - (x->way < y->way);
    if (x->dst != y->dst)
        return (x->dst > y->dst) - (x->dst < y->dst);
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

static int cmp_pairp(const void *a, const void *b)
{
    return cmp_pair(*(const pnm_sample_t *const *)a, *(const pnm_sample_t *const *)b);
}

/* The tournament round in which ranks a != b meet (plog_probe_partner inverted), -1 if none:
 * for r, q below n-1, q = 2k - r mod n-1, and n-1 is odd, so k = (q + r) n/2 mod n-1. */
static int round_of(int32_t a, int32_t b, int32_t p)
{
    int64_t n = p % 2 ? p + 1 : p, k;
    if (a == n - 1)
        k = b;
    else if (b == n - 1)
        k = a;
    else
        k = ((int64_t)a + b) % (n - 1) * (n / 2) % (n - 1);
    return plog_probe_partner(a, (int)k, p) == b ? (int)k : -1;
}

/* What pair x (its source, way, destination) took for want bytes: its samples' quantiles
 * linear in the size between its measured sizes, the smallest size's below them. ix: the
 * samples sorted by cmp_pairp. */
static void pair_at(const pnm_sample_t *const *ix, size_t n, const pnm_sample_t *x,
                    double want, pnm_q_t *q)
{
    pnm_sample_t key = *x;
    key.bytes = 0;
    size_t lo = 0, hi = n; /* the pair's first sample */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cmp_pair(ix[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    const pnm_sample_t *p0 = NULL, *p1 = NULL;
    for (size_t j = lo;
         j < n && ix[j]->src == key.src && ix[j]->way == key.way && ix[j]->dst == key.dst; j++) {
        if ((double)ix[j]->bytes <= want)
            p0 = ix[j];
        else if (!p1)
            p1 = ix[j];
    }
    double w = 0;
    if (!p0)
        p0 = p1; /* p1 exists: x itself is above want */
    else if (p1)
        w = (want - (double)p0->bytes) / (double)(p1->bytes - p0->bytes);
    else
        p1 = p0;
    *q = x->q;
    for (int j = 0; j < PNM_NQ; j++)
        q->v[j] = (1 - w) * p0->q.v[j] + w * p1->q.v[j];
    q->mean = (1 - w) * p0->q.mean + w * p1->q.mean;
}

size_t pmf_unshare(pnm_sample_t *s, size_t n, int32_t nranks, const int32_t *host,
                   int32_t nhosts, unsigned how)
{
    int slowest = (how & PMF_FIT_SLOWEST) != 0;
    if (n == 0 || nranks < 3 || nhosts < 1 || nhosts >= nranks)
        return 0; /* a host per rank: every link carries its own pair alone */
    size_t changed = 0, nsz = 0;
    uint64_t sz[64];
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < nsz && sz[k] != s[i].bytes)
            k++;
        if (k == nsz) {
            if (nsz == sizeof(sz) / sizeof(sz[0]))
                return 0; /* not a quick probe's handful of sizes */
            sz[nsz++] = s[i].bytes;
        }
    }
    const pnm_sample_t **ix = malloc(n * sizeof(*ix));
    pnm_sample_t *orig = malloc(n * sizeof(*orig));
    int *rnd = malloc(n * sizeof(*rnd));
    uint32_t *load = calloc(n, sizeof(*load));
    /* per sample, its busier link is its source host's way out (also when both are as
     * busy: the sample is timed at its source, whose way out its per-source models price),
     * not its destination host's way in */
    uint8_t *outlink = calloc(n, sizeof(*outlink));
    size_t *first = NULL, *byr = NULL; /* the samples by round */
    /* per host, the round's pairs between hosts: all, by their lower rank, by their higher */
    uint32_t *cnt = calloc(3 * (size_t)nhosts, sizeof(*cnt));
    /* per (source, way, size): the weighted sums rebuilding a pooled sample */
    size_t nacc = (size_t)nranks * 2 * nsz;
    double *acc = calloc(nacc * (PNM_NQ + 2), sizeof(*acc));
    if (!ix || !orig || !rnd || !load || !cnt || !acc || !outlink)
        goto out; /* no memory: the samples stay as measured */
    memcpy(orig, s, n * sizeof(*s));
    int nrounds = nranks % 2 ? nranks : nranks - 1;
    for (size_t i = 0; i < n; i++) {
        ix[i] = &orig[i];
        const pnm_sample_t *x = &s[i];
        rnd[i] = x->dst >= 0 && x->src != x->dst && host[x->src] != host[x->dst]
                     ? round_of(x->src, x->dst, nranks) : -1;
    }
    /* the samples by round (a counting sort; slot k + 1 for round k, 0 for the others) */
    first = calloc((size_t)nrounds + 2, sizeof(*first));
    byr = malloc(n * sizeof(*byr));
    if (!first || !byr)
        goto out;
    for (size_t i = 0; i < n; i++)
        first[rnd[i] + 2]++; /* rnd -1 (not shared) counts in slot 1 */
    for (int k = 0; k <= nrounds; k++)
        first[k + 1] += first[k];
    for (size_t i = 0; i < n; i++)
        byr[first[rnd[i] + 1]++] = i;
    /* each slot's counter has moved to its end: round k is byr[first[k] .. first[k + 1]) */
    /* each sample's load: the flows on the busier of its two host links in its round */
    for (int k = 0; k < nrounds; k++) {
        memset(cnt, 0, 3 * (size_t)nhosts * sizeof(*cnt));
        int any = 0;
        for (int32_t r = 0; r < nranks; r++) {
            int q = plog_probe_partner(r, k, nranks);
            if (q < 0 || host[r] == host[q])
                continue;
            any = 1;
            cnt[host[r]]++; /* r's exchange goes out and comes in through its host's link */
            cnt[(size_t)nhosts * (r < q ? 1 : 2) + (size_t)host[r]]++;
        }
        for (size_t t = first[k]; any && t < first[k + 1]; t++) {
            size_t i = byr[t];
            int32_t a = s[i].src, b = s[i].dst;
            uint32_t up, down;
            if (s[i].way == PNM_EXCHANGE) {
                up = cnt[host[a]];
                down = cnt[host[b]];
            } else { /* one way: the lower ranks of the round's pairs send together, or the
                        higher ones, and the others receive */
                up = cnt[(size_t)nhosts * (a < b ? 1 : 2) + (size_t)host[a]];
                down = cnt[(size_t)nhosts * (a < b ? 2 : 1) + (size_t)host[b]];
            }
            load[i] = up > down ? up : down;
            outlink[i] = up >= down;
        }
    }
    /* a sample of b bytes at load L: what its own pair took for s0 + (b - s0) / L bytes,
     * s0 the smallest size, linear in the size between the pair's measured sizes (the
     * smallest size's time below them): the L flows share the link's bandwidth, not each
     * one's latency, which the smallest size's time stands for (b / L read the 16 KiB of
     * a pair at L = 2 as 8 KiB, halfway down to the 4 KiB time, and priced 16 KiB at
     * 165 us where one flow alone takes about 225: doc/models.md); one way, with slowest,
     * what the slowest of the flows on its busier link took (outlink[]): the link is busy
     * until the last of them is through, and they start apart (each sender times its own
     * 0-byte round trip first), so a flow that had the link alone for a while shows the
     * link faster than it is */
    double s0 = (double)sz[0];
    for (size_t k = 1; k < nsz; k++)
        s0 = fmin(s0, (double)sz[k]);
    if (!(how & PMF_FIT_SMALLEST))
        s0 = 0; /* version 7 and before */
    qsort(ix, n, sizeof(*ix), cmp_pairp);
    for (size_t i = 0; i < n; i++) {
        if (load[i] <= 1)
            continue;
        double want = s0 + ((double)s[i].bytes - s0) / load[i];
        pnm_q_t q;
        pair_at(ix, n, &orig[i], want, &q);
        const pnm_sample_t *x = &orig[i];
        for (size_t t = first[rnd[i]];
             slowest && x->way == PNM_ONEWAY && t < first[rnd[i] + 1]; t++) {
            const pnm_sample_t *y = &orig[byr[t]];
            if (byr[t] == i || y->way != PNM_ONEWAY || y->bytes != x->bytes ||
                (y->src < y->dst) != (x->src < x->dst) ||
                (outlink[i] ? host[y->src] != host[x->src] : host[y->dst] != host[x->dst]))
                continue; /* not sent in the same repetitions over its busier link */
            pnm_q_t o;
            pair_at(ix, n, y, want, &o);
            for (int k = 0; k < PNM_NQ; k++)
                q.v[k] = fmax(q.v[k], o.v[k]);
            q.mean = fmax(q.mean, o.mean);
        }
        for (int j = 0; j < PNM_NQ; j++)
            s[i].q.v[j] = q.v[j];
        s[i].q.mean = q.mean;
        changed++;
    }
    if (!changed)
        goto out;
    /* pooled samples again, from the source's pairs between hosts (what its per-source
     * models price): each quantile the sample-weighted mean of the pairs' */
    for (size_t i = 0; i < n; i++) {
        if (s[i].dst < 0 || host[s[i].src] == host[s[i].dst])
            continue;
        size_t k = 0;
        while (sz[k] != s[i].bytes)
            k++;
        double *a = &acc[(((size_t)s[i].src * 2 + (s[i].way == PNM_ONEWAY)) * nsz + k) *
                         (PNM_NQ + 2)];
        double wgt = s[i].q.n ? (double)s[i].q.n : 1;
        for (int j = 0; j < PNM_NQ; j++)
            a[j] += wgt * s[i].q.v[j];
        a[PNM_NQ] += wgt * s[i].q.mean;
        a[PNM_NQ + 1] += wgt;
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i].dst >= 0)
            continue;
        size_t k = 0;
        while (sz[k] != s[i].bytes)
            k++;
        const double *a = &acc[(((size_t)s[i].src * 2 + (s[i].way == PNM_ONEWAY)) * nsz + k) *
                               (PNM_NQ + 2)];
        if (a[PNM_NQ + 1] == 0)
            continue; /* no pair between hosts: as measured */
        for (int j = 0; j < PNM_NQ; j++)
            s[i].q.v[j] = a[j] / a[PNM_NQ + 1];
        s[i].q.mean = a[PNM_NQ] / a[PNM_NQ + 1];
    }
out:
    free(ix);
    free(orig);
    free(rnd);
    free(load);
    free(outlink);
    free(first);
    free(byr);
    free(cnt);
    free(acc);
    return changed;
}

/* ---- few samples: each median pooled toward its group ---- */

/* a sample's group in pmf_shrink: pooled samples by (way, size); pairs by (source, way,
 * size, path); idx is the sample */
typedef struct shrink_key {
    int32_t src; /* -1 for pooled samples */
    int way;
    uint64_t bytes;
    int same_host;
    size_t idx;
} shrink_key_t;

static int cmp_shrink(const void *a, const void *b)
{
    const shrink_key_t *x = a, *y = b;
    if (x->src != y->src)
        return (x->src > y->src) - (x->src < y->src);
    if (x->way != y->way)
        return x->way - y->way;
    if (x->bytes != y->bytes)
        return (x->bytes > y->bytes) - (x->bytes < y->bytes);
    if (x->same_host != y->same_host)
        return x->same_host - y->same_host;
    /* then as given, so that the sums run in one order whatever qsort does */
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int same_group(const shrink_key_t *x, const shrink_key_t *y)
{
    shrink_key_t a = *x, b = *y;
    a.idx = b.idx = 0;
    return cmp_shrink(&a, &b) == 0;
}

/* A median's sampling variance, as a normal sample's median's: pi sigma^2 / (2 n), with
 * sigma = IQR / 1.349. */
static double median_se2(const pnm_q_t *q)
{
    double se = 0.929 * (q->v[PNM_Q75] - q->v[PNM_Q25]);
    return se * se / (q->n ? q->n : 1);
}

/* A single sample shows no spread, yet it is the noisiest median of all: it varies as one
 * sample does, sigma^2 = (IQR / 1.349)^2, here averaged over the group's members that show
 * their spread (one: that average, 0 if none does). Two or more samples with equal
 * quartiles did vary that little, and keep their 0. */
static double group_se2(const pnm_q_t *q, double one)
{
    return q->n <= 1 ? one : median_se2(q);
}

/* The members k[0..m) of one group: each median moved toward the members' mean by the
 * share of its sampling variance in the variance it shows (Morris's empirical Bayes:
 * between-member variance tau^2 = the medians' variance less their mean sampling
 * variance, at least 0; weight tau^2 / (tau^2 + se^2)). */
static size_t shrink_group(pnm_sample_t *s, const shrink_key_t *k, size_t m)
{
    if (m < 3) /* fewer than 3 members: the mean does not improve on them */
        return 0;
    double mean = 0, msev = 0, var = 0, one = 0;
    size_t spread = 0;
    for (size_t a = 0; a < m; a++) {
        const pnm_q_t *q = &s[k[a].idx].q;
        mean += q->v[PNM_Q50];
        double iqr = (q->v[PNM_Q75] - q->v[PNM_Q25]) / 1.349;
        if (q->n > 1 && iqr > 0) {
            one += iqr * iqr;
            spread++;
        }
    }
    mean /= (double)m;
    one = spread ? one / (double)spread : 0;
    for (size_t a = 0; a < m; a++) {
        const pnm_q_t *q = &s[k[a].idx].q;
        double d = q->v[PNM_Q50] - mean;
        var += d * d;
        msev += group_se2(q, one);
    }
    var /= (double)(m - 1);
    msev /= (double)m;
    if (!isfinite(mean) || !isfinite(var) || !isfinite(msev))
        return 0; /* the readers refuse such times; a direct caller gets them back as given */
    double tau2 = var > msev ? var - msev : 0;
    size_t changed = 0;
    for (size_t a = 0; a < m; a++) {
        pnm_q_t *q = &s[k[a].idx].q;
        double se2 = group_se2(q, one);
        if (se2 == 0)
            continue; /* no spread to weigh it by */
        double w = tau2 / (tau2 + se2), d = (1 - w) * (mean - q->v[PNM_Q50]);
        if (d == 0)
            continue;
        for (int j = 0; j < PNM_NQ; j++)
            q->v[j] = q->v[j] + d > 0 ? q->v[j] + d : 0;
        q->mean = q->mean + d > 0 ? q->mean + d : 0;
        changed++;
    }
    return changed;
}

int pmf_shrink(pnm_sample_t *s, size_t n, const int32_t *host, size_t *moved)
{
    *moved = 0;
    shrink_key_t *k = malloc((n ? n : 1) * sizeof(*k));
    if (!k)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const pnm_sample_t *x = &s[i];
        k[i] = (shrink_key_t){x->dst >= 0 ? x->src : -1, x->way, x->bytes,
                              x->dst >= 0 && host && host[x->src] == host[x->dst], i};
    }
    qsort(k, n, sizeof(*k), cmp_shrink);
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && same_group(&k[a], &k[b]); b++)
            ;
        *moved += shrink_group(s, k + a, b - a);
    }
    free(k);
    return 0;
}

/* ---- writing ---- */

static json_t *jnum(double x) { return json_real(x); }

static json_t *segs_json(const pnm_hockney_src_t *h)
{
    json_t *a = json_array();
    for (int s = 0; s < h->nseg; s++)
        json_array_append_new(a, json_pack("{s:o, s:o, s:o}", "hi",
                                           h->hi[s] == UINT64_MAX ? json_null()
                                                                  : json_integer((json_int_t)h->hi[s]),
                                           "a_ns", jnum(h->a[s]), "b_ns_per_byte", jnum(h->b[s])));
    return a;
}

static json_t *loggp_json(const pnm_loggp_t *g)
{
    json_t *b = json_array();
    for (int i = 0; i < g->nband; i++)
        json_array_append_new(b, json_pack("{s:o, s:o, s:o}", "hi",
                                           g->band_hi[i] == UINT64_MAX
                                               ? json_null()
                                               : json_integer((json_int_t)g->band_hi[i]),
                                           "L2o_ns", jnum(g->L2o[i]), "G_ns_per_byte",
                                           jnum(g->G[i])));
    return json_pack("{s:o, s:I, s:o, s:o}", "bands", b, "rndv", (json_int_t)g->rndv,
                     "handshake_ns", jnum(g->handshake), "g_ns", jnum(g->g));
}

/* A model's parameters: {} for the lookup table (its samples are the model) */
static json_t *params_json(const pnm_model_t *m)
{
    json_t *src = json_array();
    if (m->kind == PNM_HOCKNEY) {
        for (int32_t r = 0; r < m->nranks; r++)
            if (m->hock[r].nseg)
                json_array_append_new(src, json_pack("{s:i, s:o}", "src", (int)r, "segments",
                                                     segs_json(&m->hock[r])));
        return json_pack("{s:o, s:o}", "sources", src, "all",
                         json_pack("{s:o}", "segments", segs_json(&m->hock_all)));
    }
    if (m->kind == PNM_LOGGP) {
        for (int32_t r = 0; r < m->nranks; r++)
            if (m->lgp[r].nband) {
                json_t *o = loggp_json(&m->lgp[r]);
                json_object_set_new(o, "src", json_integer(r));
                json_array_append_new(src, o);
            }
        return json_pack("{s:o, s:o}", "sources", src, "all", loggp_json(&m->lgp_all));
    }
    json_decref(src);
    return json_object();
}

int pmf_write(const char *path, const pmf_t *f, char *why, size_t cap)
{
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string(PMF_FORMAT));
    json_object_set_new(root, "version", json_integer(PMF_VERSION));
    char seedhex[24];
    snprintf(seedhex, sizeof(seedhex), "0x%016llx", (unsigned long long)f->seed);
    json_t *hosts = json_array();
    for (int32_t r = 0; f->hosts && r < f->nranks; r++)
        json_array_append_new(hosts, json_string(f->hosts[r]));
    json_object_set_new(root, "probe",
                        json_pack("{s:s, s:i, s:I, s:o, s:s, s:s, s:s, s:o}", "mode",
                                  f->mode == 2 ? "full" : "quick", "ranks", (int)f->nranks,
                                  "repetitions", (json_int_t)f->reps, "elapsed_s",
                                  jnum(f->elapsed_s), "seed", seedhex,
                                  "created", f->created, "library", f->library, "hosts",
                                  hosts));
    /* "samples": the way the mode is named for; a quick probe's one-way samples apart */
    int main_way = f->mode == 2 ? PNM_ONEWAY : PNM_EXCHANGE;
    json_t *samples = json_array(), *oneway = json_array();
    for (size_t i = 0; i < f->n; i++) {
        const pnm_sample_t *s = &f->s[i];
        json_t *row = json_pack("[i, i, I, I]", (int)s->src, (int)s->dst, (json_int_t)s->bytes,
                                (json_int_t)s->q.n);
        for (int k = 0; k < PNM_NQ; k++)
            json_array_append_new(row, jnum(s->q.v[k]));
        json_array_append_new(row, jnum(s->q.mean));
        json_array_append_new(s->way == main_way ? samples : oneway, row);
    }
    json_object_set_new(root, "samples", samples);
    if (json_array_size(oneway))
        json_object_set_new(root, "oneway_samples", oneway);
    else
        json_decref(oneway);
    json_t *models = json_object();
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++) {
        if (!f->has[k])
            continue;
        json_t *mj = params_json(&f->m[k]);
        if (f->m[k].oneway)
            json_object_set_new(mj, "oneway", params_json(f->m[k].oneway));
        json_object_set_new(models, pnm_kind_name((pnm_kind_t)k), mj);
    }
    json_object_set_new(root, "models", models);
    /* beside it, then renamed over it: a failed write leaves a file already there whole */
    char tmp[4096];
    int n = snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof(tmp)) {
        json_decref(root);
        return bad(why, cap, path, "the path is too long");
    }
    errno = 0;
    int rc = json_dump_file(root, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    int e = errno;
    json_decref(root);
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0) {
        unlink(tmp);
        return bad(why, cap, path, "cannot write the file%s%s", e ? ": " : "",
                   e ? strerror(e) : "");
    }
    return 0;
}

/* ---- reading ---- */

static int num(json_t *v, double *out)
{
    if (!json_is_number(v))
        return 0;
    *out = json_number_value(v);
    return isfinite(*out);
}

static int read_segs(const char *path, const char *where, json_t *a, pnm_hockney_src_t *h,
                     char *why, size_t cap)
{
    if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > PNM_MAXSEG)
        return bad(why, cap, path, "%s.segments: not an array of 1 to %d segments", where,
                   PNM_MAXSEG);
    memset(h, 0, sizeof(*h));
    h->nseg = (int)json_array_size(a);
    for (int s = 0; s < h->nseg; s++) {
        json_t *seg = json_array_get(a, (size_t)s), *hi = json_object_get(seg, "hi");
        int last = s == h->nseg - 1;
        if (last ? !json_is_null(hi) : !json_is_integer(hi) || json_integer_value(hi) <= 0)
            return bad(why, cap, path, "%s.segments[%d].hi: %s", where, s,
                       last ? "must be null (the last segment is unbounded)"
                            : "not a positive integer");
        h->hi[s] = last ? UINT64_MAX : (uint64_t)json_integer_value(hi);
        if (s > 0 && h->hi[s] <= h->hi[s - 1])
            return bad(why, cap, path, "%s.segments[%d].hi: not increasing", where, s);
        if (!num(json_object_get(seg, "a_ns"), &h->a[s]) ||
            !num(json_object_get(seg, "b_ns_per_byte"), &h->b[s]))
            return bad(why, cap, path, "%s.segments[%d]: a_ns and b_ns_per_byte must be "
                       "finite numbers", where, s);
    }
    return 0;
}

static int read_loggp(const char *path, const char *where, json_t *o, pnm_loggp_t *g,
                      char *why, size_t cap)
{
    json_t *b = json_object_get(o, "bands");
    if (!json_is_array(b) || json_array_size(b) == 0 || json_array_size(b) > PNM_MAXBAND)
        return bad(why, cap, path, "%s.bands: not an array of 1 to %d bands", where,
                   PNM_MAXBAND);
    memset(g, 0, sizeof(*g));
    g->nband = (int)json_array_size(b);
    for (int i = 0; i < g->nband; i++) {
        json_t *band = json_array_get(b, (size_t)i), *hi = json_object_get(band, "hi");
        int last = i == g->nband - 1;
        if (last ? !json_is_null(hi) : !json_is_integer(hi) || json_integer_value(hi) <= 0)
            return bad(why, cap, path, "%s.bands[%d].hi: %s", where, i,
                       last ? "must be null" : "not a positive integer");
        g->band_hi[i] = last ? UINT64_MAX : (uint64_t)json_integer_value(hi);
        if (i > 0 && g->band_hi[i] <= g->band_hi[i - 1])
            return bad(why, cap, path, "%s.bands[%d].hi: not increasing", where, i);
        /* a band above the first starts where the band below ends, so its L2o (its line
         * at 0 bytes) can be below 0 (version 7 on); its line must not be where it starts */
        if (!num(json_object_get(band, "L2o_ns"), &g->L2o[i]) ||
            !num(json_object_get(band, "G_ns_per_byte"), &g->G[i]) || g->G[i] < 0 ||
            (i == 0 ? g->L2o[i] < 0
                    : g->L2o[i] + g->G[i] * (double)(g->band_hi[i - 1] - 1) < -1e-6))
            return bad(why, cap, path, "%s.bands[%d]: L2o_ns and G_ns_per_byte must be "
                       "numbers, G_ns_per_byte >= 0 and the band's line >= 0 where it "
                       "starts (L2o_ns >= 0 in the first band)", where, i);
    }
    json_t *r = json_object_get(o, "rndv");
    if (!json_is_integer(r) || json_integer_value(r) < 0)
        return bad(why, cap, path, "%s.rndv: not an integer >= 0", where);
    g->rndv = (uint64_t)json_integer_value(r);
    if (!num(json_object_get(o, "handshake_ns"), &g->handshake) || g->handshake < 0 ||
        !num(json_object_get(o, "g_ns"), &g->g) || g->g < 0)
        return bad(why, cap, path, "%s: handshake_ns and g_ns must be numbers >= 0", where);
    return 0;
}

/* Appends the rows of array a (named where) to f->s as samples of the given way. */
static int read_samples(const char *path, const char *where, json_t *a, int way, pmf_t *f,
                        char *why, size_t cap)
{
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *row = json_array_get(a, i);
        pnm_sample_t *s = &f->s[f->n];
        if (!json_is_array(row) || json_array_size(row) != 4 + PNM_NQ + 1 ||
            !json_is_integer(json_array_get(row, 0)) || !json_is_integer(json_array_get(row, 1)) ||
            !json_is_integer(json_array_get(row, 2)) || !json_is_integer(json_array_get(row, 3)))
            return bad(why, cap, path, "%s[%zu]: not [src, dst, bytes, n, 7 quantiles, mean]",
                       where, i);
        json_int_t src = json_integer_value(json_array_get(row, 0)),
                   dst = json_integer_value(json_array_get(row, 1)),
                   bytes = json_integer_value(json_array_get(row, 2)),
                   n = json_integer_value(json_array_get(row, 3));
        if (src < 0 || src >= f->nranks || dst < -1 || dst >= f->nranks || dst == src ||
            bytes < 0 || n <= 0 || n > UINT32_MAX)
            return bad(why, cap, path, "%s[%zu]: src %lld, dst %lld, bytes %lld or n %lld out "
                       "of range (%d ranks)", where, i, (long long)src, (long long)dst,
                       (long long)bytes, (long long)n, (int)f->nranks);
        s->src = (int32_t)src;
        s->dst = (int32_t)dst;
        s->bytes = (uint64_t)bytes;
        s->q.n = (uint32_t)n;
        s->way = way;
        for (int k = 0; k <= PNM_NQ; k++) {
            double x;
            if (!num(json_array_get(row, 4 + (size_t)k), &x) || x < 0 ||
                (k > 0 && k < PNM_NQ && x < s->q.v[k - 1]))
                return bad(why, cap, path, "%s[%zu][%d]: times must be numbers >= 0, the "
                           "quantiles non-decreasing", where, i, 4 + k);
            if (k < PNM_NQ)
                s->q.v[k] = x;
            else
                s->q.mean = x;
        }
        f->n++;
    }
    return 0;
}

/* A model's parameters from mj (named where) over the fitted ones of m. */
static int read_params(const char *path, const char *where, json_t *mj, pnm_model_t *m,
                       char *why, size_t cap)
{
    if (m->kind == PNM_LOOKUP)
        return 0;
    json_t *srcs = json_object_get(mj, "sources"), *all = json_object_get(mj, "all");
    if (!json_is_array(srcs) || !json_is_object(all))
        return bad(why, cap, path, "%s: needs \"sources\" (array) and \"all\"", where);
    char w[128];
    snprintf(w, sizeof(w), "%s.all", where);
    if (m->kind == PNM_HOCKNEY ? read_segs(path, w, json_object_get(all, "segments"),
                                           &m->hock_all, why, cap)
                               : read_loggp(path, w, all, &m->lgp_all, why, cap))
        return -1;
    for (size_t i = 0; i < json_array_size(srcs); i++) {
        json_t *so = json_array_get(srcs, i), *sr = json_object_get(so, "src");
        if (!json_is_integer(sr) || json_integer_value(sr) < 0 ||
            json_integer_value(sr) >= m->nranks)
            return bad(why, cap, path, "%s.sources[%zu].src: not a rank of the %d", where, i,
                       (int)m->nranks);
        int32_t r = (int32_t)json_integer_value(sr);
        snprintf(w, sizeof(w), "%s.sources[%zu]", where, i);
        if (m->kind == PNM_HOCKNEY ? read_segs(path, w, json_object_get(so, "segments"),
                                               &m->hock[r], why, cap)
                                   : read_loggp(path, w, so, &m->lgp[r], why, cap))
            return -1;
    }
    return 0;
}

int pmf_read(const char *path, pmf_t *f, char *why, size_t cap)
{
    memset(f, 0, sizeof(*f));
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return bad(why, cap, path, "line %d: %s", je.line, je.text);
    int rc = -1;
    pnm_sample_t *fs = NULL;
    json_t *fmt = json_object_get(root, "format"), *ver = json_object_get(root, "version");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), PMF_FORMAT) != 0) {
        bad(why, cap, path, "not a phasor model file (format is not \"%s\")", PMF_FORMAT);
        goto out;
    }
    if (!json_is_integer(ver) || json_integer_value(ver) < 1 ||
        json_integer_value(ver) > PMF_VERSION) {
        bad(why, cap, path, "version %lld: this phasor reads model files of versions 1 to %d",
            json_is_integer(ver) ? (long long)json_integer_value(ver) : -1LL, PMF_VERSION);
        goto out;
    }
    json_t *probe = json_object_get(root, "probe");
    json_t *mode = json_object_get(probe, "mode"), *ranks = json_object_get(probe, "ranks");
    if (!json_is_string(mode) || (strcmp(json_string_value(mode), "quick") != 0 &&
                                  strcmp(json_string_value(mode), "full") != 0)) {
        bad(why, cap, path, "probe.mode: not \"quick\" or \"full\"");
        goto out;
    }
    f->mode = strcmp(json_string_value(mode), "full") == 0 ? 2 : 1;
    if (!json_is_integer(ranks) || json_integer_value(ranks) <= 0 ||
        json_integer_value(ranks) > (1 << 24)) {
        bad(why, cap, path, "probe.ranks: not a rank count");
        goto out;
    }
    f->nranks = (int32_t)json_integer_value(ranks);
    json_t *v;
    if ((v = json_object_get(probe, "repetitions")) && json_is_integer(v))
        f->reps = (uint32_t)json_integer_value(v);
    if ((v = json_object_get(probe, "elapsed_s")))
        num(v, &f->elapsed_s);
    if ((v = json_object_get(probe, "seed")) && json_is_string(v))
        f->seed = strtoull(json_string_value(v), NULL, 16);
    if ((v = json_object_get(probe, "created")) && json_is_string(v))
        snprintf(f->created, sizeof(f->created), "%s", json_string_value(v));
    if ((v = json_object_get(probe, "library")) && json_is_string(v))
        snprintf(f->library, sizeof(f->library), "%s", json_string_value(v));

    json_t *samples = json_object_get(root, "samples");
    json_t *owj = json_object_get(root, "oneway_samples");
    if (!json_is_array(samples) || json_array_size(samples) == 0) {
        bad(why, cap, path, "samples: not a non-empty array");
        goto out;
    }
    if (owj && (json_integer_value(ver) < 2 || f->mode != 1 || !json_is_array(owj) ||
                json_array_size(owj) == 0)) {
        bad(why, cap, path, "oneway_samples: only a quick probe's file of version 2 or later "
            "has them, as a non-empty array");
        goto out;
    }
    f->s = calloc(json_array_size(samples) + (owj ? json_array_size(owj) : 0), sizeof(*f->s));
    if (!f->s) {
        bad(why, cap, path, "out of memory");
        goto out;
    }
    if (read_samples(path, "samples", samples, f->mode == 2 ? PNM_ONEWAY : PNM_EXCHANGE, f,
                     why, cap) ||
        (owj && read_samples(path, "oneway_samples", owj, PNM_ONEWAY, f, why, cap)))
        goto out;
    json_t *hosts = json_object_get(probe, "hosts");
    if (json_is_array(hosts) && json_array_size(hosts) == (size_t)f->nranks) {
        f->hosts = calloc((size_t)f->nranks, sizeof(*f->hosts));
        if (!f->hosts) { /* fitted without them, the models would not be the file's */
            bad(why, cap, path, "out of memory");
            goto out;
        }
        for (int32_t r = 0; r < f->nranks; r++) {
            json_t *h = json_array_get(hosts, (size_t)r);
            snprintf(f->hosts[r], sizeof(f->hosts[r]), "%s", json_is_string(h) ? json_string_value(h) : "");
        }
    }

    /* the models: fitted again from the samples (which sets up their tables), then the
     * parameters the file gives replace the fit's, so an edited file means what it says */
    json_t *models = json_object_get(root, "models");
    if (!json_is_object(models)) {
        bad(why, cap, path, "models: not an object");
        goto out;
    }
    const char *key;
    json_t *val;
    json_object_foreach(models, key, val) {
        if (pnm_kind_parse(key) < 0) {
            bad(why, cap, path, "models.%s: unknown model (lookup, hockney, loggp)", key);
            goto out;
        }
    }
    size_t changed;
    /* as the file was written */
    json_int_t fv = json_integer_value(ver);
    fs = fit_samples(f, (fv >= 4 ? PMF_FIT_POOL : 0u) | (fv >= 6 ? PMF_FIT_SLOWEST : 0u) |
                            (fv >= 8 ? PMF_FIT_SMALLEST : 0u),
                     &changed);
    if (!fs) {
        bad(why, cap, path, "out of memory");
        goto out;
    }
    pnm_samples_t in = {f->nranks, f->mode, f->n, fs};
    for (int k = PNM_LOOKUP; k <= PNM_LOGGP; k++) {
        const char *name = pnm_kind_name((pnm_kind_t)k);
        json_t *mj = json_object_get(models, name);
        if (!mj)
            continue;
        char w[256];
        if (pnm_fit((pnm_kind_t)k, &in, NULL, &f->m[k], w, sizeof(w)) != PNM_OK) {
            bad(why, cap, path, "samples: %s", w);
            goto out;
        }
        f->has[k] = 1;
        /* before version 3, quick models were fitted to the shared times: refitted */
        if (changed && json_integer_value(ver) < 3)
            continue;
        char where[96];
        snprintf(where, sizeof(where), "models.%s", name);
        if (read_params(path, where, mj, &f->m[k], why, cap))
            goto out;
        json_t *oj = json_object_get(mj, "oneway");
        if (oj && !f->m[k].oneway) {
            bad(why, cap, path, "models.%s.oneway: the file has no oneway_samples", name);
            goto out;
        }
        snprintf(where, sizeof(where), "models.%s.oneway", name);
        if (oj && read_params(path, where, oj, f->m[k].oneway, why, cap))
            goto out;
    }
    rc = 0;
out:
    free(fs);
    json_decref(root);
    if (rc != 0)
        pmf_free(f);
    return rc;
}
