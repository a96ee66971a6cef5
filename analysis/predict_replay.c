/* predict_replay.c: one collective instance replayed rank by rank (see predict_replay.h). */
#define _GNU_SOURCE /* qsort_r */
#include "predict_replay.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll_sched.h"
#include "heap.h"
#include "pstat.h"
#include "vec.h"

/* Parallel arrays that share one capacity: each of its elements takes elem bytes. */
typedef struct par {
    void **p;
    size_t elem;
} par_t;
#define PAR(arr, k) {(void **)&(arr), (k) * sizeof(*(arr))}

/* Room for need elements in every array of a[0..n), which share the capacity *cap:
 * vec_grow's doubling, array by array. 0, or -1 out of memory (*cap unchanged: the arrays
 * grown so far hold more). */
static int grow_together(size_t *cap, size_t need, const par_t *a, size_t n)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap;
    for (size_t i = 0; i < n; i++) {
        size_t c = *cap;
        if (vec_grow(a[i].p, &c, need, a[i].elem) != 0)
            return -1;
        assert(i == 0 || c == nc); /* the same growth from the same capacity */
        nc = c;
    }
    *cap = nc;
    return 0;
}

int pr_links_reserve(pr_links_t *l, size_t nh)
{
    if (nh <= l->cap)
        return 0;
    uint64_t *h = calloc(4 * nh, sizeof(*h)); /* the four tallies in one block */
    if (!h)
        return -1;
    pr_links_free(l);
    l->out = h;
    l->in = h + nh;
    l->bigout = h + 2 * nh;
    l->bigin = h + 3 * nh;
    l->cap = nh;
    return 0;
}

void pr_links_free(pr_links_t *l)
{
    free(l->out); /* the block */
    memset(l, 0, sizeof(*l));
}

static int reserve(pr_t *p, size_t nm, size_t nx, size_t nr, size_t nh)
{
    if (pr_links_reserve(&p->links, nh) != 0)
        return -1;
    size_t oh = p->hcap;
    const par_t hosts[] = {PAR(p->lhead, 2), PAR(p->lstamp, 2), PAR(p->hcnt, 1),
                           PAR(p->touched, 1)};
    if (grow_together(&p->hcap, nh, hosts, sizeof(hosts) / sizeof(hosts[0])) != 0)
        return -1;
    if (p->hcap > oh) { /* stamps and counts start at zero */
        memset(p->lstamp + 2 * oh, 0, 2 * (p->hcap - oh) * sizeof(*p->lstamp));
        memset(p->hcnt + oh, 0, (p->hcap - oh) * sizeof(*p->hcnt));
    }
    /* per member, and per (member, kind of path): two elements a member */
    const par_t mem[] = {
        PAR(p->rank, 1),    PAR(p->entry, 1),   PAR(p->mexit, 1),   PAR(p->ready, 1),
        PAR(p->start, 1),   PAR(p->done, 1),    PAR(p->tout, 2),    PAR(p->tin, 2),
        PAR(p->bout, 2),    PAR(p->bin, 2),     PAR(p->bigout, 2),  PAR(p->bigin, 2),
        PAR(p->pout, 2),    PAR(p->pin, 2),     PAR(p->paths, 1),   PAR(p->tw, 2),
        PAR(p->slowout, 2), PAR(p->slowin, 2),  PAR(p->nout, 2),    PAR(p->nin, 2),
        PAR(p->mark, 1),    PAR(p->red, 1),     PAR(p->part, 1),    PAR(p->order, 1),
        PAR(p->xfirst, 1),  PAR(p->sorder, 1)};
    if (grow_together(&p->mcap, nm, mem, sizeof(mem) / sizeof(mem[0])) != 0)
        return -1;
    const par_t xfer[] = {PAR(p->x, 1), PAR(p->xi, 1), PAR(p->xt, 1)};
    if (grow_together(&p->xcap, nx, xfer, sizeof(xfer) / sizeof(xfer[0])) != 0)
        return -1;
    return VEC_GROW(p->r, p->rcap, nr);
}

void pr_free(pr_t *p)
{
    free(p->rank);
    free(p->entry);
    free(p->mexit);
    free(p->ready);
    free(p->start);
    free(p->done);
    free(p->tout);
    free(p->tin);
    free(p->bout);
    free(p->bin);
    free(p->bigout);
    free(p->bigin);
    free(p->pout);
    free(p->pin);
    free(p->paths);
    free(p->tw);
    free(p->slowout);
    free(p->slowin);
    free(p->nout);
    free(p->nin);
    free(p->mark);
    free(p->red);
    free(p->part);
    free(p->order);
    free(p->x);
    free(p->xi);
    free(p->xt);
    free(p->r);
    free(p->sfo);
    free(p->sfi);
    free(p->spb);
    free(p->nf);
    free(p->xfirst);
    free(p->sorder);
    free(p->fl);
    free(p->heap);
    free(p->tag);
    free(p->ffin);
    free(p->hcnt);
    free(p->touched);
    free(p->lhead);
    free(p->lstamp);
    free(p->pool);
    pr_links_free(&p->links);
    memset(p, 0, sizeof(*p));
}

/* by step, source, then destination */
static int cmp_x(const void *a, const void *b)
{
    const ci_xfer_t *x = *(const ci_xfer_t *const *)a, *y = *(const ci_xfer_t *const *)b;
    if (x->step != y->step || x->src != y->src)
        return ci_xfer_order(x, y);
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static int cmp_r(const void *a, const void *b)
{
    const ci_red_t *x = *(const ci_red_t *const *)a, *y = *(const ci_red_t *const *)b;
    return (x->step > y->step) - (x->step < y->step);
}

/* member indices by their world rank (ctx: rank[] per index) */
static int cmp_member(const void *a, const void *b, void *ctx)
{
    const int32_t *rank = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return (rank[i] > rank[j]) - (rank[i] < rank[j]);
}

/* member index of a world rank, -1 if not a member */
static long member_of(const pr_t *p, size_t nm, int32_t rank)
{
    size_t lo = 0, hi = nm;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->rank[mid] < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nm && p->rank[lo] == rank ? (long)lo : -1;
}

/* The slot of member k's messages of one kind of path in the per-member arrays: between
 * hosts (net) and within one apart when the host links are counted (hl), else together. */
static inline size_t pr_slot(const int32_t *hl, size_t k, int net)
{
    return 2 * k + (hl && net ? 1u : 0u);
}

/* member k's messages out in the step, on both kinds of path */
static inline size_t nout_of(const pr_t *p, size_t k)
{
    return (size_t)p->nout[2 * k] + p->nout[2 * k + 1];
}

/* member k takes part in the step being replayed (tag = step + 1) */
static void join(pr_t *p, size_t k, uint32_t tag, size_t *np)
{
    if (p->mark[k] == tag)
        return;
    p->mark[k] = tag;
    p->start[k] = p->done[k] = p->ready[k];
    for (size_t s = 2 * k; s < 2 * k + 2; s++) {
        p->bout[s] = p->bin[s] = 0;
        p->bigout[s] = p->bigin[s] = 0;
        p->nout[s] = p->nin[s] = 0;
        p->tw[s] = 0;
        p->slowout[s] = p->slowin[s] = -1;
    }
    p->paths[k] = 0;
    p->red[k] = 0;
    p->part[(*np)++] = k;
}

/* ---- host links shared flow by flow over time ---- */

static int cmp_flow(const void *a, const void *b)
{
    const pr_flow_t *x = a, *y = b;
    if (x->host != y->host)
        return (x->host > y->host) - (x->host < y->host);
    if (x->start != y->start)
        return (x->start > y->start) - (x->start < y->start);
    return (x->x > y->x) - (x->x < y->x);
}

/* the active flows' heap, by finish tag (ctx: tag[] indexed by flow) */
static inline int tag_less(const void *ctx, uint32_t a, uint32_t b)
{
    const double *tag = ctx;
    return tag[a] < tag[b];
}

/* Virtual time v is the bytes each active flow has been served: a flow arriving at v is
 * through at v + its bytes whatever arrives later, so the next event is the next arrival
 * or the least such tag. */
void pr_share_link(const pr_flow_t *fl, size_t n, double per_byte, uint32_t *heap, double *tag,
                   double *fin)
{
    assert(n <= UINT32_MAX); /* heap entries are uint32_t */
    size_t nh = 0, i = 0;
    double now = n ? fl[0].start : 0, v = 0;
    while (i < n || nh > 0) {
        double k = (double)nh, done = nh ? now + (tag[heap[0]] - v) * k * per_byte : INFINITY;
        if (i < n && fl[i].start <= done) {
            if (nh)
                v += (fl[i].start - now) / (k * per_byte);
            now = fl[i].start;
            tag[i] = v + fl[i].bytes;
            heap_push(heap, &nh, (uint32_t)i++, tag_less, tag);
        } else { /* the top is through (nh > 0: done is finite) */
            v = tag[heap[0]];
            now = done;
            fin[heap[0]] = done;
            heap[0] = heap[--nh]; /* a new top, put in order */
            heap_sift_down(heap, nh, tag_less, tag);
        }
    }
}

/* pr_aggregate_time: see predict_replay.h for why */
double pr_aggregate_time(pr_time_fn t, const void *ctx, int32_t src, int32_t dst,
                         uint64_t bytes, uint64_t big, int two, uint64_t eager,
                         const pr_load_t *load, double link_slow)
{
    if (bytes <= big)
        return t(ctx, src, dst, bytes, two);
    int way = two && big > eager; /* 1: priced as two-way; eager both ways: one way */
    double agg = t(ctx, src, dst, bytes, way);
    double per_byte = pr_per_byte(t, ctx, src, dst, way);
    if (per_byte > 0) { /* not NaN either */
        double extra = (double)(bytes - big) * per_byte;
        double link_pb = load ? load->per_byte : 0;
        if (link_pb > 0 && link_slow >= 1) {
            /* the pair's own slowdown, one-way both ways for a two-way price */
            pr_time_fn lt = load->t ? load->t : t;
            const void *lc = load->t ? load->ctx : ctx;
            double one = way ? fmax(pr_per_byte(lt, lc, src, dst, 0), pr_per_byte(lt, lc, dst, src, 0))
                             : pr_per_byte(lt, lc, src, dst, 0);
            double clean =
                one >= PR_LOAD_NOISE * link_pb ? per_byte * link_pb / one : per_byte;
            double k = (double)bytes / (double)big; /* flows, were they all as large */
            extra = fmax(0, (double)bytes * clean * (1 + (link_slow - 1) / k) -
                                (double)big * per_byte);
        }
        agg = fmin(agg, t(ctx, src, dst, big, way) + extra);
    }
    return two && !way ? fmax(agg, t(ctx, src, dst, big, 1)) : agg;
}

static int cmp_sk(const void *a, const void *b)
{
    const pr_sk_t *x = a, *y = b;
    if (x->start != y->start)
        return (x->start > y->start) - (x->start < y->start);
    return (x->k > y->k) - (x->k < y->k);
}

/* room in the per-step arrays for a step of n transfers */
static int reserve_step(pr_t *p, size_t n)
{
    const par_t a[] = {PAR(p->sfo, 1), PAR(p->sfi, 1), PAR(p->spb, 1), PAR(p->nf, 1)};
    return grow_together(&p->scap, n, a, sizeof(a) / sizeof(a[0]));
}

/* room in the link arrays for one link's n flows */
static int reserve_link(pr_t *p, size_t n)
{
    const par_t a[] = {PAR(p->fl, 1), PAR(p->heap, 1), PAR(p->tag, 1), PAR(p->ffin, 1)};
    return grow_together(&p->fcap, n, a, sizeof(a) / sizeof(a[0]));
}

/* A pool entry for a flow, reusing those of flows through; PR_NO_FLOW out of memory. */
static size_t pool_new(pr_t *p)
{
    if (p->pfree != PR_NO_FLOW) {
        size_t i = p->pfree;
        p->pfree = p->pool[i].next;
        return i;
    }
    if (VEC_GROW(p->pool, p->pcap, p->pn + 1) != 0)
        return PR_NO_FLOW;
    return p->pn++;
}

/* The step's transfers between hosts, x[x0 .. x0 + nxs), as flows on their hosts' links
 * from their senders' starts (sfo out, sfi in: when each is through). A flow's work is the
 * time its bytes take alone at its own time per byte (spb: an exchange's rendezvous moves
 * slower than a message one way), and the link gives its flows equal shares of its time.
 * The flows of earlier steps still on a link share it too: they are kept per (host, way)
 * in pool until one is through before the step's first on its link starts. The step's
 * senders are taken by start, so a counting sort by host leaves each host's flows in
 * order. Memory goes with the step and the flows still on the links, not the instance.
 * 0, or -1 out of memory. */
/* The step's flows between hosts into nf, grouped by the host of their link out (in: in),
 * the groups in touched[0 .. returned) order and each in the order of sorder[0 .. ns), the
 * senders by start (a counting sort); hcnt[h] is left at the end of h's group. */
static size_t bucket_flows(pr_t *p, const pr_opts_t *o, size_t x0, size_t ns, int in)
{
    size_t nt = 0;
    for (int place = 0; place < 2; place++) { /* count per host, then place */
        for (size_t j = 0; j < ns; j++) {
            size_t k = p->sorder[j].k, q0 = p->xfirst[k];
            for (size_t q = q0; q < q0 + nout_of(p, k); q++) {
                const ci_xfer_t *m = p->x[x0 + q];
                if (!pr_crosses(o->host, m->src, m->dst))
                    continue;
                int32_t h = o->host[in ? m->dst : m->src];
                if (!place && p->hcnt[h]++ == 0)
                    p->touched[nt++] = h;
                else if (place)
                    p->nf[p->hcnt[h]++] =
                        (pr_flow_t){h, p->sorder[j].start, (double)m->bytes * p->spb[q], q};
            }
        }
        for (size_t t = 0, at = 0; !place && t < nt; t++) { /* each host's first place */
            uint32_t c = p->hcnt[p->touched[t]];
            p->hcnt[p->touched[t]] = (uint32_t)at;
            at += c;
        }
    }
    return nt;
}

static int share_links(pr_t *p, const pr_opts_t *o, size_t x0, size_t nxs, size_t np)
{
    size_t ns = 0;
    for (size_t q = 0; q < np; q++) {
        size_t k = p->part[q];
        if (nout_of(p, k))
            p->sorder[ns++] = (pr_sk_t){p->start[k], k};
    }
    qsort(p->sorder, ns, sizeof(*p->sorder), cmp_sk);
    for (int in = 0; in < 2; in++) {
        double *fin = in ? p->sfi : p->sfo;
        size_t nt = bucket_flows(p, o, x0, ns, in);
        for (size_t t = 0, g = 0; t < nt; t++) { /* hcnt[h] is now the end of h's flows */
            int32_t h = p->touched[t];
            size_t e = p->hcnt[h], L = 2 * (size_t)h + (size_t)in, m = 0;
            p->hcnt[h] = 0;
            if (p->lstamp[L] != p->epoch) {
                p->lstamp[L] = p->epoch;
                p->lhead[L] = PR_NO_FLOW;
            }
            for (size_t *at = &p->lhead[L]; *at != PR_NO_FLOW;) {
                size_t i = *at;
                pr_live_t *f = &p->pool[i];
                if (f->fin <= p->nf[g].start) { /* through before any of these starts */
                    *at = f->next;
                    f->next = p->pfree;
                    p->pfree = i;
                    continue;
                }
                if (reserve_link(p, m + 1) != 0)
                    return -1;
                p->fl[m++] = (pr_flow_t){h, f->start, f->work, nxs + i};
                at = &f->next;
            }
            if (reserve_link(p, m + e - g) != 0)
                return -1;
            if (m > 1)
                qsort(p->fl, m, sizeof(*p->fl), cmp_flow);
            memcpy(p->fl + m, p->nf + g, (e - g) * sizeof(*p->fl));
            if (m && p->fl[m - 1].start > p->nf[g].start) /* an earlier step's flow started
                                                             later: rare */
                qsort(p->fl, m + e - g, sizeof(*p->fl), cmp_flow);
            pr_share_link(p->fl, m + e - g, 1, p->heap, p->tag, p->ffin);
            for (size_t i = 0; i < m + e - g; i++) {
                size_t x = p->fl[i].x;
                if (x >= nxs)
                    p->pool[x - nxs].fin = p->ffin[i];
                else
                    fin[x] = p->ffin[i];
            }
            for (size_t j = g; j < e; j++) { /* on the link for the steps after */
                size_t i = pool_new(p);
                if (i == PR_NO_FLOW)
                    return -1;
                p->pool[i] = (pr_live_t){p->nf[j].start, p->nf[j].bytes, fin[p->nf[j].x],
                                         p->lhead[L]};
                p->lhead[L] = i;
            }
            g = e;
        }
    }
    return 0;
}

/* The host links' time per byte, for a flow whose own path shows none: the unloaded
 * links' when the load is known, else the first pair between hosts' by t; 0 if none (no
 * transfer between hosts, or a model with no bandwidth at 2-4 MiB: the links' byte totals
 * price then). */
static double links_per_byte(const ci_inst_t *in, pr_time_fn t, const void *ctx,
                             const pr_opts_t *o)
{
    double pb = o->load.per_byte;
    for (size_t i = 0; !(pb > 0) && i < in->nx; i++)
        if (pr_crosses(o->host, in->x[i].src, in->x[i].dst)) {
            pb = pr_per_byte(t, ctx, in->x[i].src, in->x[i].dst, 0);
            break;
        }
    return pb > 0 && isfinite(pb) ? pb : 0;
}

/* The instance's members sorted by world rank, their entries and exits; its transfers
 * and reductions sorted by step. 0, or -1 out of memory. */
static int replay_begin(pr_t *p, const ci_inst_t *in, size_t nhosts)
{
    size_t nm = in->nmem;
    if (reserve(p, nm, in->nx, in->nred, nhosts) != 0)
        return -1;
    /* members sorted by rank (order[] holds the permutation while sorting) */
    for (size_t k = 0; k < nm; k++)
        p->order[k] = k;
    int32_t *key = p->pout; /* scratch */
    for (size_t k = 0; k < nm; k++)
        key[k] = in->mem[k].rank;
    qsort_r(p->order, nm, sizeof(*p->order), cmp_member, key);
    for (size_t k = 0; k < nm; k++) {
        const ci_member_t *m = &in->mem[p->order[k]];
        assert(k == 0 || p->rank[k - 1] < m->rank); /* a rank is a member once */
        p->rank[k] = m->rank;
        p->entry[k] = p->ready[k] = (double)m->start_ns;
        p->mexit[k] = (double)m->end_ns;
        p->mark[k] = 0;
    }
    for (size_t i = 0; i < in->nx; i++)
        p->x[i] = &in->x[i];
    if (in->nx) /* qsort wants a non-null array even when empty */
        qsort(p->x, in->nx, sizeof(*p->x), cmp_x);
    for (size_t i = 0; i < in->nred; i++)
        p->r[i] = &in->red[i];
    if (in->nred)
        qsort(p->r, in->nred, sizeof(*p->r), cmp_r);
    return 0;
}

/* The host links start empty: a new epoch makes every list of flows stale. */
static void links_empty(pr_t *p)
{
    if (++p->epoch == 0) {
        memset(p->lstamp, 0, 2 * p->hcap * sizeof(*p->lstamp));
        p->epoch = 1;
    }
    p->pn = 0;
    p->pfree = PR_NO_FLOW;
}

/* The step being replayed: tag = step + 1; its transfers between members are
 * x[x0 .. x0 + nxs), its members part[0 .. np). */
typedef struct step {
    uint32_t tag;
    size_t x0, nxs, np;
} step_t;

/* The step's transfers from x[*ix] on: their members join the step, and each member's
 * messages out and in are tallied per kind of path; x is compacted to those between
 * members, xi[] gets their members. */
static void gather_sends(pr_t *p, const ci_inst_t *in, const pr_opts_t *o, const int32_t *hl,
                         uint32_t s, size_t *ix, step_t *st)
{
    size_t nm = in->nmem, i = *ix, np = st->np, nxs = 0; /* locals: the arrays are size_t too */
    for (; i < in->nx && p->x[i]->step == s; i++) {
        const ci_xfer_t *m = p->x[i];
        long a = member_of(p, nm, m->src), b = member_of(p, nm, m->dst);
        if (a < 0 || b < 0)
            continue;
        join(p, (size_t)a, st->tag, &np);
        join(p, (size_t)b, st->tag, &np);
        int net = pr_crosses(o->host, m->src, m->dst);
        p->paths[a] |= (uint8_t)(1u << net);
        p->paths[b] |= (uint8_t)(4u << net);
        if (nout_of(p, (size_t)a) == 0) /* a's transfers are together: sorted by source */
            p->xfirst[a] = nxs;
        size_t sa = pr_slot(hl, (size_t)a, net), sb = pr_slot(hl, (size_t)b, net);
        p->nout[sa]++;
        p->nin[sb]++;
        p->bout[sa] += m->bytes;
        p->bin[sb] += m->bytes;
        if (m->bytes > p->bigout[sa])
            p->bigout[sa] = m->bytes;
        if (m->bytes > p->bigin[sb])
            p->bigin[sb] = m->bytes;
        if (hl)
            pr_links_add(&p->links, hl, m);
        size_t q = st->x0 + nxs++;
        p->xi[q] = (uint64_t)a << 32 | (uint64_t)b; /* nm < 2^31 */
        p->x[q] = m; /* compacted: member transfers only */
    }
    assert(st->x0 + nxs <= i); /* compacting never overtakes the reading */
    *ix = i;
    st->np = np;
    st->nxs = nxs;
}

/* The step's reductions from r[*ir] on, by the members that do them. */
static void gather_reductions(pr_t *p, const ci_inst_t *in, uint32_t s, size_t *ir,
                              step_t *st)
{
    for (; *ir < in->nred && p->r[*ir]->step == s; (*ir)++) {
        long a = member_of(p, in->nmem, p->r[*ir]->rank);
        if (a < 0)
            continue;
        join(p, (size_t)a, st->tag, &st->np);
        p->red[a] += (double)p->r[*ir]->bytes;
    }
}

/* Each transfer's time alone (xt), and per member and kind of path the slowest message
 * out and in: a rank's messages of the step of one kind of path share it, as one message
 * out and one in on the path of the slowest alone; two-way when data also flows the other
 * way at either end on the same kind of path. pb > 0: also each transfer between hosts'
 * time per byte on its own path, as it is priced (spb). */
static void price_alone(pr_t *p, pr_time_fn t, const void *ctx, const pr_opts_t *o,
                        const int32_t *hl, double pb, const step_t *st)
{
    const size_t x0 = st->x0, nxs = st->nxs;
    for (size_t q = 0; q < nxs; q++) {
        const ci_xfer_t *m = p->x[x0 + q];
        size_t a = (size_t)(p->xi[x0 + q] >> 32);
        size_t b = (size_t)(p->xi[x0 + q] & 0xffffffffu);
        int net = pr_crosses(o->host, m->src, m->dst);
        size_t sa = pr_slot(hl, a, net), sb = pr_slot(hl, b, net);
        int two = (p->paths[a] & (4u << net)) || (p->paths[b] & (1u << net));
        double tm = p->xt[x0 + q] = t(ctx, m->src, m->dst, m->bytes, two);
        if (pb > 0 && net) {
            double r = pr_per_byte(t, ctx, m->src, m->dst, two && m->bytes > o->eager);
            p->spb[q] = r > 0 && isfinite(r) ? r : pb;
        }
        if (tm > p->slowout[sa]) {
            p->slowout[sa] = tm;
            p->pout[sa] = m->dst;
            p->tw[sa] = (uint8_t)((p->tw[sa] & 2u) | (two ? 1u : 0u));
        }
        if (tm > p->slowin[sb]) {
            p->slowin[sb] = tm;
            p->pin[sb] = m->src;
            p->tw[sb] = (uint8_t)((p->tw[sb] & 1u) | (two ? 2u : 0u));
        }
    }
}

/* Per member and kind of path, the time of its aggregated message out (tout) and in
 * (tin): its own bytes, or between hosts its host link's (with the links shared over
 * time, out: the bytes it could have moved alone while its flows were on the link; in:
 * priced per message by finish_sends). */
static void member_times(pr_t *p, pr_time_fn t, const void *ctx, const pr_opts_t *o,
                         const int32_t *hl, double pb, const step_t *st)
{
    const size_t x0 = st->x0, np = st->np;
    for (size_t q = 0; q < np; q++) {
        size_t k = p->part[q];
        int32_t me = p->rank[k];
        for (int net = 0; net < (hl ? 2 : 1); net++) {
            size_t sl = pr_slot(hl, k, net);
            uint64_t bo = p->bout[sl], bi = p->bin[sl], go = p->bigout[sl], gi = p->bigin[sl];
            int link = hl && net; /* its host's link carries them */
            if (link && p->nout[sl]) {
                bo = p->links.out[hl[me]];
                go = p->links.bigout[hl[me]];
                if (pb > 0) { /* its transfers are xfirst[k] on */
                    double eff = 0;
                    for (size_t j = p->xfirst[k]; j < p->xfirst[k] + nout_of(p, k); j++)
                        if (pr_crosses(hl, me, p->x[x0 + j]->dst))
                            eff = fmax(eff, (p->sfo[j] - p->start[k]) / p->spb[j]);
                    bo = (uint64_t)llround(eff);
                }
            }
            if (link && p->nin[sl]) {
                bi = p->links.in[hl[me]];
                gi = p->links.bigin[hl[me]];
            }
            p->tout[sl] = p->nout[sl]
                              ? pr_aggregate_time(t, ctx, me, p->pout[sl], bo, go,
                                                  p->tw[sl] & 1u, o->eager, &o->load,
                                                  pr_load_slow(&o->load, o->host, me,
                                                               p->pout[sl], 0))
                              : 0;
            p->tin[sl] = p->nin[sl] && !(link && pb > 0)
                             ? pr_aggregate_time(t, ctx, p->pin[sl], me, bi, gi,
                                                 p->tw[sl] & 2u, o->eager, &o->load,
                                                 pr_load_slow(&o->load, o->host,
                                                              p->pin[sl], me, 1))
                             : 0;
        }
    }
}

/* When each transfer of the step is through (the later of its sender's message out and
 * its receiver's in, from the sender's start; a rendezvous whose receiver comes late moves
 * once it is there, alone, as the sender's other messages went out meanwhile): both ends
 * are done with the step no earlier. */
static void finish_sends(pr_t *p, pr_time_fn t, const void *ctx, const pr_opts_t *o,
                         const int32_t *hl, double pb, const step_t *st)
{
    const size_t x0 = st->x0, nxs = st->nxs;
    for (size_t q = 0; q < nxs; q++) {
        size_t a = (size_t)(p->xi[x0 + q] >> 32);
        size_t b = (size_t)(p->xi[x0 + q] & 0xffffffffu);
        const ci_xfer_t *m = p->x[x0 + q];
        int net = pr_crosses(o->host, m->src, m->dst);
        size_t sa = pr_slot(hl, a, net), sb = pr_slot(hl, b, net);
        double tout = p->tout[sa], tin = p->tin[sb];
        if (pb > 0 && net) {
            /* into b's host alongside what the others send it meanwhile */
            uint64_t bi = (uint64_t)llround((p->sfi[q] - p->start[a]) / p->spb[q]);
            tin = pr_aggregate_time(t, ctx, p->pin[sb], m->dst, bi, p->links.bigin[hl[m->dst]],
                                    p->tw[sb] & 2u, o->eager, &o->load,
                                    pr_load_slow(&o->load, o->host, p->pin[sb], m->dst, 1));
        }
        double fin = p->start[a] + fmax(tout, tin);
        if (m->bytes > o->eager && p->start[b] > p->start[a])
            fin = fmax(fin, p->start[b] + p->xt[x0 + q]);
        if (fin > p->done[a])
            p->done[a] = fin;
        if (fin > p->done[b])
            p->done[b] = fin;
    }
}

/* The step's members are ready for the next after their reductions; its host links'
 * tallies are cleared. */
static void end_step(pr_t *p, const pr_opts_t *o, const int32_t *hl, const step_t *st)
{
    const size_t x0 = st->x0, nxs = st->nxs, np = st->np;
    if (hl)
        for (size_t q = 0; q < nxs; q++)
            pr_links_clear(&p->links, hl, p->x[x0 + q]);
    for (size_t q = 0; q < np; q++) {
        size_t k = p->part[q];
        p->ready[k] = p->done[k] + o->gamma * p->red[k];
    }
}

/* The span (last predicted exit - first entry) and the members' median exit error. */
static void replay_end(pr_t *p, size_t nm, double *span, double *exit_err)
{
    double first = INFINITY, last = -INFINITY;
    for (size_t k = 0; k < nm; k++) {
        first = fmin(first, p->entry[k]);
        last = fmax(last, p->ready[k]);
    }
    *span = last - first;
    if (exit_err) {
        for (size_t k = 0; k < nm; k++)
            p->done[k] = fabs(p->ready[k] - p->mexit[k]);
        qsort(p->done, nm, sizeof(double), pstat_cmp_double);
        *exit_err = nm % 2 ? p->done[nm / 2] : (p->done[nm / 2 - 1] + p->done[nm / 2]) / 2;
    }
}

int pr_replay(pr_t *p, const ci_inst_t *in, pr_time_fn t, const void *ctx,
              const pr_opts_t *o, double *span, double *exit_err)
{
    size_t nm = in->nmem;
    *span = 0;
    if (exit_err)
        *exit_err = 0;
    if (nm == 0)
        return 0;
    assert(nm < (size_t)1 << 31); /* xi packs two member indices */
    /* host links: with hosts named and counted */
    const int32_t *hl = o->host && o->nhosts > 0 ? o->host : NULL;
    if (replay_begin(p, in, hl ? (size_t)o->nhosts : 0) != 0)
        return -1;
    double pb = hl ? links_per_byte(in, t, ctx, o) : 0;
    if (pb > 0)
        links_empty(p);
    size_t ix = 0, ir = 0;
    while (ix < in->nx || ir < in->nred) {
        uint32_t s = ix < in->nx ? p->x[ix]->step : UINT32_MAX;
        if (ir < in->nred && p->r[ir]->step < s)
            s = p->r[ir]->step;
        assert(s < UINT32_MAX); /* steps are < nsteps */
        step_t st = {s + 1, ix, 0, 0};
        gather_sends(p, in, o, hl, s, &ix, &st);
        if (pb > 0 && reserve_step(p, st.nxs) != 0)
            return -1;
        gather_reductions(p, in, s, &ir, &st);
        price_alone(p, t, ctx, o, hl, pb, &st);
        if (pb > 0 && share_links(p, o, st.x0, st.nxs, st.np) != 0)
            return -1;
        member_times(p, t, ctx, o, hl, pb, &st);
        finish_sends(p, t, ctx, o, hl, pb, &st);
        end_step(p, o, hl, &st);
    }
    replay_end(p, nm, span, exit_err);
    return 0;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

uint64_t pr_eager_of(const char *lib, const char **what)
{
    uint64_t e = pcs_eager_size(lib, what);
    if (e)
        return e;
    *what = PRED_EAGER_UNMEASURED;
    return PRED_EAGER_DEFAULT;
}

double pr_measure_gamma(void)
{
    enum { N = 32768 }; /* 256 KiB of doubles per operand */
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
    for (size_t i = 0; i < N; i++) {
        a[i] = (double)i * 0.5;
        b[i] = (double)(N - i);
    }
    double best = INFINITY;
    for (int rep = 0; rep < 30; rep++) {
        double t0 = now_ns();
        for (size_t i = 0; i < N; i++)
            b[i] += a[i];
        __asm__ volatile("" : : "r"(b) : "memory"); /* the sums are kept, not elided */
        double dt = now_ns() - t0;
        if (dt < best)
            best = dt;
    }
    free(a);
    free(b);
    return best / (double)(N * sizeof(double));
}
