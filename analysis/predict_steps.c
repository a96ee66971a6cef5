/* predict_steps.c: the steps and expected-max methods' price of a collective instance
 * (see predict.h, pred_steps_t). */
#include "predict.h"

#include <assert.h>
#include <math.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"

int pred_steps_init(pred_steps_t *s, pred_method_t method, const int32_t *host,
                    int32_t nhosts, int32_t world)
{
    memset(s, 0, sizeof(*s));
    s->method = method;
    s->host = host;
    if (nhosts < world) /* some ranks share a host */
        return pr_links_reserve(&s->links, (size_t)nhosts);
    return 0;
}

void pred_steps_free(pred_steps_t *s)
{
    pr_links_free(&s->links);
    free(s->block);
    memset(s, 0, sizeof(*s));
}

/* bytes of scratch per transfer, the arrays in the block in this order */
#define PER_XFER                                                                              \
    (sizeof(const ci_xfer_t *) + sizeof(ci_xfer_t *) + sizeof(ci_xfer_t) + sizeof(uint64_t) + \
     sizeof(double) + 2 * sizeof(int32_t) + sizeof(uint8_t))
_Static_assert(alignof(ci_xfer_t) <= sizeof(void *) && sizeof(ci_xfer_t) % alignof(uint64_t) == 0,
               "the block's arrays stay aligned: the widest elements come first");

/* Room for n transfers in every scratch array: one block grown by vec_grow (nothing in it
 * outlives a call), carved into the arrays. 0, or -1 out of memory. */
static int reserve(pred_steps_t *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    size_t cap = s->cap;
    if (vec_grow(&s->block, &cap, n, PER_XFER) != 0)
        return -1;
    char *b = s->block;
    s->step = (const ci_xfer_t **)(void *)b;
    b += cap * sizeof(*s->step);
    s->aggp = (ci_xfer_t **)(void *)b;
    b += cap * sizeof(*s->aggp);
    s->agg = (ci_xfer_t *)(void *)b;
    b += cap * sizeof(*s->agg);
    s->aggbig = (uint64_t *)(void *)b;
    b += cap * sizeof(*s->aggbig);
    s->aggshift = (double *)(void *)b;
    b += cap * sizeof(*s->aggshift);
    s->snd = (int32_t *)(void *)b;
    b += cap * sizeof(*s->snd);
    s->rcv = (int32_t *)(void *)b;
    b += cap * sizeof(*s->rcv);
    s->twoway = (uint8_t *)b;
    b += cap * sizeof(*s->twoway);
    assert((size_t)(b - (char *)s->block) == cap * PER_XFER);
    s->cap = cap;
    return 0;
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
static int is_twoway(const pred_steps_t *s, size_t n, const ci_xfer_t *x)
{
    int net = pr_crosses(s->host, x->src, x->dst);
    return has_key(s->rcv, n, pr_link_key(x->src, net)) ||
           has_key(s->snd, n, pr_link_key(x->dst, net));
}

/* The step's messages x[0..n), sorted by source (by_dst: by destination), as one transfer
 * per source (destination) into out[], on the path of the slowest of its messages alone;
 * between hosts with the host links counted, of its host's bytes on its link. big[]: the
 * largest single message in each, tw[]: whether it is two-way. Returns their count. */
static size_t aggregate(const pred_steps_t *s, const pred_model_t *md, const ci_xfer_t *const *x,
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
            int t2 = is_twoway(s, n, x[j]);
            double t = md->time(md->ctx, x[j]->src, x[j]->dst, x[j]->bytes, t2);
            if (t > slow) {
                slow = t;
                slow_tw = t2;
                a.src = x[j]->src;
                a.dst = x[j]->dst;
            }
        }
        if (s->links.cap && pr_crosses(s->host, a.src, a.dst)) {
            a.bytes = by_dst ? s->links.in[s->host[a.dst]] : s->links.out[s->host[a.src]];
            b = by_dst ? s->links.bigin[s->host[a.dst]] : s->links.bigout[s->host[a.src]];
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
static int step_time(pred_steps_t *s, const pred_model_t *m, const ci_xfer_t **x, size_t n,
                     double *e, double *q)
{
    *e = *q = 0;
    for (size_t i = 0; i < n; i++) {
        int net = pr_crosses(s->host, x[i]->src, x[i]->dst);
        s->snd[i] = pr_link_key(x[i]->src, net);
        s->rcv[i] = pr_link_key(x[i]->dst, net);
        if (s->links.cap)
            pr_links_add(&s->links, s->host, x[i]);
    }
    qsort(s->snd, n, sizeof(*s->snd), cmp_i32);
    qsort(s->rcv, n, sizeof(*s->rcv), cmp_i32);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            qsort(x, n, sizeof(*x), cmp_dst);
        size_t na = aggregate(s, m, x, n, pass, s->agg, s->aggbig, s->twoway);
        for (size_t k = 0; k < na; k++)
            s->aggp[k] = &s->agg[k];
        double ee = 0, qq = 0;
        for (size_t k = 0; k < na; k++) {
            double t = pr_aggregate_time(m->time, m->ctx, s->agg[k].src, s->agg[k].dst,
                                         s->agg[k].bytes, s->aggbig[k], s->twoway[k], 0,
                                         &m->load,
                                         pr_load_slow(&m->load, s->host, s->agg[k].src,
                                                      s->agg[k].dst, pass));
            ee = fmax(ee, t);
            if (s->method == PRED_EXPECTED_MAX) {
                /* the largest one's distribution, shifted by what the rest add to it */
                s->aggshift[k] =
                    fmax(0, t - m->time(m->ctx, s->agg[k].src, s->agg[k].dst, s->aggbig[k],
                                        s->twoway[k]));
                s->agg[k].bytes = s->aggbig[k];
            }
        }
        qq = ee;
        if (s->method == PRED_EXPECTED_MAX &&
            m->max_of(m->ctx, (const ci_xfer_t *const *)s->aggp, s->twoway, s->aggshift, na,
                      &ee, &qq) != 0)
            return -1;
        if (ee > *e)
            *e = ee;
        if (qq > *q)
            *q = qq;
    }
    for (size_t i = 0; s->links.cap && i < n; i++)
        pr_links_clear(&s->links, s->host, x[i]);
    return 0;
}

int pred_steps_price(pred_steps_t *s, const ci_inst_t *in, const pred_model_t *m, double *t,
                     double *p90)
{
    assert(s->method != PRED_REPLAY);
    if (reserve(s, in->nx) != 0)
        return -1;
    for (size_t i = 0; i < in->nx; i++)
        s->step[i] = &in->x[i];
    if (in->nx) /* step is NULL until an instance has transfers */
        qsort(s->step, in->nx, sizeof(*s->step), ci_cmp_step_src);
    double sum = 0, sum90 = 0;
    for (size_t i = 0; i < in->nx;) {
        size_t j = i;
        while (j < in->nx && s->step[j]->step == s->step[i]->step)
            j++;
        double e, q;
        if (step_time(s, m, s->step + i, j - i, &e, &q) != 0)
            return -1;
        sum += e;
        sum90 += q;
        i = j;
    }
    *t = sum;
    *p90 = sum90;
    return 0;
}
