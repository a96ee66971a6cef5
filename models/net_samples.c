/* net_samples.c: a probe's samples made fit for the models (see net_samples.h). */
#include "net_samples.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The distinct sizes of s[0..n) into sz[0..cap), in the order they come; their count, or
 * 0 when there are more than cap (not a quick probe's handful of sizes). */
static size_t sizes_of(const pnm_sample_t *s, size_t n, uint64_t *sz, size_t cap)
{
    size_t nsz = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < nsz && sz[k] != s[i].bytes)
            k++;
        if (k == nsz) {
            if (nsz == cap)
                return 0;
            sz[nsz++] = s[i].bytes;
        }
    }
    return nsz;
}

/* pns_unshare's view of the samples: as measured, by pair, and by round */
typedef struct unshare {
    size_t n;
    int32_t nranks, nhosts;
    const int32_t *host;
    int nrounds;
    const pnm_sample_t **ix; /* orig sorted by cmp_pairp */
    pnm_sample_t *orig;      /* the samples as measured */
    int *rnd;                /* per sample, the round of its pair between hosts, else -1 */
    uint32_t *load;          /* per sample, the flows on its busier host link */
    /* per sample, its busier link is its source host's way out (also when both are as
     * busy: the sample is timed at its source, whose way out its per-source models price),
     * not its destination host's way in */
    uint8_t *outlink;
    size_t *first, *byr;     /* the samples by round: round k is byr[first[k] .. first[k+1]) */
    /* per host, the round's pairs between hosts: all, by their lower rank, by their higher */
    uint32_t *cnt;
    int32_t *meet;           /* per rank, the round it meets the source at hand in, or -1 */
} unshare_t;

static void unshare_free(unshare_t *u)
{
    free(u->ix);
    free(u->orig);
    free(u->rnd);
    free(u->load);
    free(u->outlink);
    free(u->first);
    free(u->byr);
    free(u->cnt);
    free(u->meet);
}

/* Each sample's round (the round its pair meets in, by partner; -1 for a pooled sample or
 * a pair within a host), source by source through ix. */
static void rounds_of(unshare_t *u, pns_partner_fn partner)
{
    int32_t src = -1;
    for (size_t j = 0; j < u->n; j++) {
        const pnm_sample_t *x = u->ix[j];
        size_t i = (size_t)(x - u->orig);
        if (x->src != src) { /* the rounds of the source's partners */
            src = x->src;
            for (int32_t r = 0; r < u->nranks; r++)
                u->meet[r] = -1;
            for (int k = 0; k < u->nrounds; k++) {
                int q = partner(src, k, u->nranks);
                if (q >= 0 && q < u->nranks)
                    u->meet[q] = k;
            }
        }
        u->rnd[i] = x->dst >= 0 && x->src != x->dst && u->host[x->src] != u->host[x->dst]
                        ? u->meet[x->dst] : -1;
    }
}

/* The samples by round (a counting sort; slot k + 1 for round k, 0 for the others). 0, or
 * -1 out of memory. */
static int by_round(unshare_t *u)
{
    u->first = calloc((size_t)u->nrounds + 2, sizeof(*u->first));
    u->byr = malloc(u->n * sizeof(*u->byr));
    if (!u->first || !u->byr)
        return -1;
    for (size_t i = 0; i < u->n; i++)
        u->first[u->rnd[i] + 2]++; /* rnd -1 (not shared) counts in slot 1 */
    for (int k = 0; k <= u->nrounds; k++)
        u->first[k + 1] += u->first[k];
    for (size_t i = 0; i < u->n; i++)
        u->byr[u->first[u->rnd[i] + 1]++] = i;
    /* each slot's counter has moved to its end: round k is byr[first[k] .. first[k + 1]) */
    return 0;
}

/* Each sample's load: the flows on the busier of its two host links in its round. */
static void round_loads(unshare_t *u, const pnm_sample_t *s, pns_partner_fn partner)
{
    const int32_t *host = u->host;
    size_t nh = (size_t)u->nhosts;
    for (int k = 0; k < u->nrounds; k++) {
        memset(u->cnt, 0, 3 * nh * sizeof(*u->cnt));
        int any = 0;
        for (int32_t r = 0; r < u->nranks; r++) {
            int q = partner(r, k, u->nranks);
            if (q < 0 || host[r] == host[q])
                continue;
            any = 1;
            u->cnt[host[r]]++; /* r's exchange goes out and comes in through its host's link */
            u->cnt[nh * (r < q ? 1 : 2) + (size_t)host[r]]++;
        }
        for (size_t t = u->first[k]; any && t < u->first[k + 1]; t++) {
            size_t i = u->byr[t];
            int32_t a = s[i].src, b = s[i].dst;
            uint32_t up, down;
            if (s[i].way == PNM_EXCHANGE) {
                up = u->cnt[host[a]];
                down = u->cnt[host[b]];
            } else { /* one way: the lower ranks of the round's pairs send together, or the
                        higher ones, and the others receive */
                up = u->cnt[nh * (a < b ? 1 : 2) + (size_t)host[a]];
                down = u->cnt[nh * (a < b ? 2 : 1) + (size_t)host[b]];
            }
            u->load[i] = up > down ? up : down;
            u->outlink[i] = up >= down;
        }
    }
}

/* A sample of b bytes at load L: what its own pair took for s0 + (b - s0) / L bytes, s0
 * the smallest size, linear in the size between the pair's measured sizes (the smallest
 * size's time below them): the L flows share the link's bandwidth, not each one's
 * latency, which the smallest size's time stands for (b / L read the 16 KiB of a pair at
 * L = 2 as 8 KiB, halfway down to the 4 KiB time, and priced 16 KiB at 165 us where one
 * flow alone takes about 225: doc/models.md); one way, with slowest, what the slowest of
 * the flows on its busier link took (outlink[]): the link is busy until the last of them
 * is through, and they start apart (each sender times its own 0-byte round trip first),
 * so a flow that had the link alone for a while shows the link faster than it is.
 * Returns the samples changed. */
static size_t unshare_pairs(const unshare_t *u, pnm_sample_t *s, double s0, int slowest)
{
    const int32_t *host = u->host;
    size_t changed = 0;
    for (size_t i = 0; i < u->n; i++) {
        if (u->load[i] <= 1)
            continue;
        assert(u->rnd[i] >= 0); /* loaded: a pair between hosts in its round */
        double want = s0 + ((double)s[i].bytes - s0) / u->load[i];
        pnm_q_t q;
        pair_at(u->ix, u->n, &u->orig[i], want, &q);
        const pnm_sample_t *x = &u->orig[i];
        for (size_t t = u->first[u->rnd[i]];
             slowest && x->way == PNM_ONEWAY && t < u->first[u->rnd[i] + 1]; t++) {
            const pnm_sample_t *y = &u->orig[u->byr[t]];
            if (u->byr[t] == i || y->way != PNM_ONEWAY || y->bytes != x->bytes ||
                (y->src < y->dst) != (x->src < x->dst) ||
                (u->outlink[i] ? host[y->src] != host[x->src] : host[y->dst] != host[x->dst]))
                continue; /* not sent in the same repetitions over its busier link */
            pnm_q_t o;
            pair_at(u->ix, u->n, y, want, &o);
            for (int k = 0; k < PNM_NQ; k++)
                q.v[k] = fmax(q.v[k], o.v[k]);
            q.mean = fmax(q.mean, o.mean);
        }
        for (int j = 0; j < PNM_NQ; j++)
            s[i].q.v[j] = q.v[j];
        s[i].q.mean = q.mean;
        changed++;
    }
    return changed;
}

/* Pooled samples again, from the source's pairs between hosts (what its per-source models
 * price): each quantile the sample-weighted mean of the pairs'. sz: the nsz sizes; acc:
 * zeroed, per (source, way, size) the weighted sums rebuilding a pooled sample. */
static void repool(pnm_sample_t *s, size_t n, const int32_t *host, const uint64_t *sz,
                   size_t nsz, double *acc)
{
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
}

size_t pns_unshare(pnm_sample_t *s, size_t n, int32_t nranks, const int32_t *host,
                   int32_t nhosts, unsigned how, pns_partner_fn partner)
{
    if (n == 0 || nranks < 3 || nhosts < 1 || nhosts >= nranks)
        return 0; /* a host per rank: every link carries its own pair alone */
    uint64_t sz[64];
    size_t nsz = sizes_of(s, n, sz, sizeof(sz) / sizeof(sz[0]));
    if (nsz == 0)
        return 0; /* not a quick probe's handful of sizes */
    unshare_t u = {n, nranks, nhosts, host, nranks % 2 ? nranks : nranks - 1, NULL, NULL,
                   NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    u.ix = malloc(n * sizeof(*u.ix));
    u.orig = malloc(n * sizeof(*u.orig));
    u.rnd = malloc(n * sizeof(*u.rnd));
    u.load = calloc(n, sizeof(*u.load));
    u.outlink = calloc(n, sizeof(*u.outlink));
    u.cnt = calloc(3 * (size_t)nhosts, sizeof(*u.cnt));
    u.meet = malloc((size_t)nranks * sizeof(*u.meet));
    double *acc = calloc((size_t)nranks * 2 * nsz * (PNM_NQ + 2), sizeof(*acc));
    size_t changed = 0;
    if (!u.ix || !u.orig || !u.rnd || !u.load || !u.outlink || !u.cnt || !u.meet || !acc)
        goto out; /* no memory: the samples stay as measured */
    memcpy(u.orig, s, n * sizeof(*s));
    for (size_t i = 0; i < n; i++)
        u.ix[i] = &u.orig[i];
    qsort(u.ix, n, sizeof(*u.ix), cmp_pairp);
    rounds_of(&u, partner);
    if (by_round(&u) != 0)
        goto out;
    round_loads(&u, s, partner);
    double s0 = (double)sz[0];
    for (size_t k = 1; k < nsz; k++)
        s0 = fmin(s0, (double)sz[k]);
    if (!(how & PNS_SMALLEST))
        s0 = 0; /* version 7 and before */
    changed = unshare_pairs(&u, s, s0, (how & PNS_SLOWEST) != 0);
    if (changed)
        repool(s, n, host, sz, nsz, acc);
out:
    unshare_free(&u);
    free(acc);
    return changed;
}

/* ---- few samples: each median pooled toward its group ---- */

/* a sample's group in pns_shrink: pooled samples by (way, size); pairs by (source, way,
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

int pns_shrink(pnm_sample_t *s, size_t n, const int32_t *host, size_t *moved)
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
