/* whole_replay.c: the whole run replayed against a network model (whole_replay.h,
 * doc/replay.md has the rules this file follows, call by call). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chan_table.h"
#include "coll_instances.h"
#include "heap.h"
#include "hmap.h"
#include "plog_calls.h"
#include "plog_probeset.h"
#include "vec.h"
#include "whole_replay.h"

#define NONE UINT32_MAX
/* A rank runs at most this many calls before the earliest rank in predicted time is
 * looked for again: ranks stay near one another in time, so the messages open at once are
 * those the run really had open, at one heap operation per this many calls. */
#define SLICE 256

/* Direct-mapped: a run's messages are a few (pair, size) over and over. */
#define NET_CACHE 8192
struct wr_net_cache {
    uint64_t key[NET_CACHE], bytes[NET_CACHE]; /* key 0: empty */
    double t[NET_CACHE];
};

static double net_time(const wr_net_t *n, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    double t = n->t(n->ctx, src, dst, bytes, twoway);
    if (n->lat == 1 && n->bw == 1)
        return t;
    /* its bytes at the link's sustained rate; the rest is latency. t(n) - t(0) would do for
     * Hockney, but a lookup table is flat below its smallest size: none of a small message's
     * time would be its bytes' */
    double b = (double)bytes * pr_per_byte(n->t, n->ctx, src, dst, twoway);
    if (!(b >= 0))
        b = 0;
    if (b > t)
        b = t;
    return (t - b) * n->lat + b / n->bw;
}

double wr_net_time(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    const wr_net_t *n = ctx;
    wr_net_cache_t *c = n->cache;
    if (!c)
        return net_time(n, src, dst, bytes, twoway);
    uint64_t key = ((uint64_t)(uint32_t)src << 33 | (uint64_t)(uint32_t)dst << 1 |
                    (uint64_t)(twoway != 0)) + 1;
    size_t h = (size_t)(hmap_mix(key ^ hmap_mix(bytes)) & (NET_CACHE - 1));
    if (c->key[h] == key && c->bytes[h] == bytes)
        return c->t[h];
    double t = net_time(n, src, dst, bytes, twoway);
    c->key[h] = key;
    c->bytes[h] = bytes;
    c->t[h] = t;
    return t;
}

const char *wr_from_name(int from)
{
    switch (from) {
    case WR_FROM_START: return "start";
    case WR_FROM_MSG: return "message";
    case WR_FROM_RECV: return "receive-posted";
    case WR_FROM_COLL: return "collective";
    case WR_FROM_PROBE: return "probe";
    default: return "unknown";
    }
}

/* ---- the critical path: nodes shared by the paths that run through them ----
 * A node is one stretch of one rank; the path into it is its parent up to a cut (the point
 * on the parent's rank where the dependency left). A rank's own progress extends its head
 * node in place; a node is made only where a call's end was set by another rank. Cuts keep
 * the parent's totals at the time, so a node extended later still yields the stretch as
 * it was when the dependency left it. */
typedef struct cut {
    uint32_t node;
    double p, m;        /* predicted and measured time at the cut */
    uint64_t e;         /* the rank's event ordinal */
    double comp, mpi;   /* the node's totals at the cut */
} cut_t;

typedef struct node {
    cut_t from;         /* parent (from.node NONE: the path starts here) */
    uint32_t refs;
    int32_t rank, peer;
    uint16_t call;
    uint8_t kind;       /* enum wr_from */
    uint64_t bytes;
    double edge;
    double p0, m0, p1, m1, comp, mpi;
    uint64_t e0, e1;
} node_t;

/* ---- messages, channels, requests, collective instances ---- */
typedef struct msg {
    double spost, rpost; /* predicted postings; NAN until posted */
    double t;            /* its time by the model */
    double o, rs;        /* LogGP: each end's overhead, and a rendezvous send's time from
                            its transfer's start (2 L + 3 o); NAN for other models */
    uint64_t bytes;
    int32_t src, dst;
    uint8_t rndv;        /* moves once both ends have posted */
    uint8_t refs;        /* ends still to finish with it */
    uint32_t swait, rwait; /* rank waiting for its send (receive) side, or NONE */
    cut_t scut, rcut;    /* the path at either posting (scut.node/rcut.node NONE: none) */
    uint32_t next;       /* in its channel's queue, or the free list */
} msg_t;

typedef struct chan {     /* per channel of the ct_t */
    uint32_t head, tail; /* unpaired messages, all posted by one side (sends: qsend) */
    uint8_t qsend;
    uint32_t pwait;      /* a rank probing for this channel's next message, or NONE */
} chan_t;

enum { RQ_SEND = 1, RQ_RECV = 2, RQ_RECV_OPEN = 3, RQ_COLL = 4 };
typedef struct req {
    uint8_t kind;
    uint32_t idx;        /* message, or collective instance */
    uint32_t slot;       /* collective: the member's slot */
    double done;         /* send: its local end; otherwise computed */
    /* a receive not yet in a channel (a wildcard one, or a probed message's) */
    double rpost;
    cut_t rcut;
    uint64_t bytes;
    int32_t comm;
    int32_t src, tag;    /* as posted (wildcards included) */
    uint32_t next;       /* free list */
} req_t;

typedef struct coll {
    uint64_t key;
    int32_t size, seen;
    int32_t *rank;
    double *entry, *exit;
    cut_t *cut;
    uint8_t *waiting;    /* the member is blocked on it (blocking collective) */
    uint8_t done;
    uint32_t refs;       /* members still to finish with it */
    uint32_t from_slot;  /* the last member to arrive */
    uint64_t bytes;
    uint32_t next;
} coll_t;

/* One way of a host's link: the transfers between hosts on it, each the span its bytes
 * take (from its start past its latency part to its end). */
typedef wr_span_t span_t;
typedef struct link {
    span_t *v;      /* [h, n) live, sorted by start */
    size_t h, n, cap;
    double dmax;    /* the longest span: one overlaps [t0, t1) only if it starts after
                       t0 - dmax */
} link_t;

enum { ST_RUN = 0, ST_BLOCKED = 1, ST_DONE = 2 };
typedef struct rk {
    plog_iter_t *it;
    const plog_rec_t *e; /* the call being replayed, NULL between calls */
    int posted;          /* its postings were done */
    double now;          /* predicted end of its previous call */
    double start;        /* predicted start of the current call */
    int64_t mprev;       /* measured end of its previous call */
    uint64_t ord;        /* events replayed */
    uint32_t head;       /* its path node */
    uint32_t coll;       /* the blocking collective it is in, or NONE */
    uint32_t slot;       /* its member's slot there */
    uint32_t smsg, rmsg; /* the blocking send's and receive's messages, or NONE */
    uint8_t state, queued, seen_init, ended;
    hmap_t req;          /* request id + 1 -> req index */
    uint32_t *qv;        /* the current completion's requests, status by status (or NONE) */
    size_t pi;           /* the first of phasor's probes that may still lie ahead of it */
    size_t cq;
    hmap_t cnext;        /* communicator -> its next collective ordinal */
} rk_t;

typedef struct st {
    ct_t ct;             /* the channels' keys */
    plog_run_t *run;
    const wr_opts_t *o;
    wr_result_t *r;
    wr_net_t net;
    pr_opts_t pro;
    int32_t world;
    rk_t *rk;
    /* pools */
    msg_t *msg; size_t nmsg, cmsg; uint32_t mfree; size_t mlive;
    chan_t *ch; size_t nch, cch;
    req_t *rq; size_t nrq, crq; uint32_t rfree; size_t rlive;
    coll_t *co; size_t nco, cco; uint32_t cfree; hmap_t comap;
    node_t *nd; size_t nnd, cnd; uint32_t nfree; size_t nlive;
    /* scheduling: ranks by predicted time */
    heap_ent_t *heap; size_t nheap, cheap;
    uint32_t *ready; size_t nready, cready;
    /* collectives */
    link_t *lout, *lin;  /* per host, when messages between hosts share them */
    int32_t nhosts;
    double low;          /* no message starts before this any more (links pruned there) */
    uint64_t adds;
    const pnm_model_t *lgp; /* the model when it is LogGP: sends and receives priced apart */
    span_t *probe;       /* phasor's own probes (PHASOR_PROBE), in time order: the shim's time,
                            not the application's, left out of compute */
    size_t nprobe;
    ci_t *ci;
    pr_t pr;
    pred_steps_t steps;
    ci_member_t *mem; size_t cmem;
    int oom;
    plog_err_t ferr;
} st_t;

static int grow(void *pa, size_t *cap, size_t need, size_t sz)
{
    return vec_reserve((void **)pa, cap, need, sz);
}

/* A new element at the end of a pool's array (its free list was empty): its index, or
 * NONE out of memory (s->oom set). */
static uint32_t pool_end(st_t *s, void *pa, size_t *n, size_t *cap, size_t sz)
{
    if (*n >= NONE - 1 || grow(pa, cap, *n + 1, sz) != 0) {
        s->oom = 1;
        return NONE;
    }
    return (uint32_t)(*n)++;
}

/* ---- nodes ---- */
static uint32_t node_new(st_t *s)
{
    uint32_t i = s->nfree;
    if (i != NONE) {
        s->nfree = (uint32_t)s->nd[i].e0; /* the free list runs through e0 */
    } else if ((i = pool_end(s, &s->nd, &s->nnd, &s->cnd, sizeof(node_t))) == NONE) {
        return NONE;
    }
    if (++s->nlive > s->r->peak_nodes)
        s->r->peak_nodes = s->nlive;
    return i;
}

static void node_unref(st_t *s, uint32_t i)
{
    while (i != NONE) {
        node_t *n = &s->nd[i];
        if (--n->refs > 0)
            return;
        uint32_t parent = n->from.node;
        n->e0 = s->nfree;
        s->nfree = i;
        s->nlive--;
        i = parent;
    }
}

/* The path of rank k at the start of its current call (its compute before the call
 * counted). */
static inline cut_t cut_of(st_t *s, const rk_t *k)
{
    if (!s->o->path || k->head == NONE)
        return (cut_t){.node = NONE};
    node_t *n = &s->nd[k->head];
    n->refs++;
    double gap = k->start > n->p1 ? k->start - n->p1 : 0;
    double m = k->e ? (double)k->e->start_ns : n->m1;
    return (cut_t){k->head, k->start, m, k->ord, n->comp + gap, n->mpi};
}

static inline void cut_drop(st_t *s, cut_t *c)
{
    if (c->node != NONE)
        node_unref(s, c->node);
    c->node = NONE;
}

/* ---- messages and channels ---- */
static uint32_t msg_new(st_t *s, int32_t src, int32_t dst, uint64_t bytes)
{
    uint32_t i = s->mfree;
    if (i != NONE) {
        s->mfree = s->msg[i].next;
    } else if ((i = pool_end(s, &s->msg, &s->nmsg, &s->cmsg, sizeof(msg_t))) == NONE) {
        return NONE;
    }
    s->msg[i] = (msg_t){NAN, NAN, NAN, NAN, NAN, bytes, src, dst, 0, 2, NONE, NONE,
                        {.node = NONE}, {.node = NONE}, NONE};
    if (++s->mlive > s->r->peak_messages)
        s->r->peak_messages = s->mlive;
    return i;
}

static void msg_unref(st_t *s, uint32_t i)
{
    msg_t *m = &s->msg[i];
    if (--m->refs > 0)
        return;
    cut_drop(s, &m->scut);
    cut_drop(s, &m->rcut);
    m->next = s->mfree;
    s->mfree = i;
    s->mlive--;
}

static uint32_t chan_get(st_t *s, int32_t comm, int32_t src, int32_t dst, int32_t tag)
{
    int32_t i = ct_get(&s->ct, comm, src, dst, tag);
    if (i < 0 || grow(&s->ch, &s->cch, s->ct.n, sizeof(chan_t)) != 0) {
        s->oom = 1;
        return NONE;
    }
    while (s->nch < s->ct.n) /* a new one */
        s->ch[s->nch++] = (chan_t){NONE, NONE, 0, NONE};
    return (uint32_t)i;
}

static void wake(st_t *s, uint32_t r);

static void chan_push(st_t *s, chan_t *c, uint32_t m, int send)
{
    s->msg[m].next = NONE;
    if (c->tail != NONE)
        s->msg[c->tail].next = m;
    else
        c->head = m;
    c->tail = m;
    c->qsend = (uint8_t)send;
}

static uint32_t chan_pop(st_t *s, chan_t *c)
{
    uint32_t m = c->head;
    if ((c->head = s->msg[m].next) == NONE)
        c->tail = NONE;
    return m;
}

/* The message's arrival: eager once sent, rendezvous once both ends have posted; NAN
 * while not known. */
static inline double arrival(const msg_t *m)
{
    if (isnan(m->spost))
        return NAN;
    if (!m->rndv)
        return m->spost + m->t;
    if (isnan(m->rpost))
        return NAN;
    return fmax(m->spost, m->rpost) + m->t;
}

/* 1: synchronous (waits for its receive whatever its size); -1: buffered (completes
 * locally whatever its size); 0: by the eager size */
static int send_mode(uint16_t call)
{
    if (call == PLOG_CALL_MPI_Ssend || call == PLOG_CALL_MPI_Issend ||
        call == PLOG_CALL_MPI_Ssend_init)
        return 1;
    if (call == PLOG_CALL_MPI_Bsend || call == PLOG_CALL_MPI_Ibsend ||
        call == PLOG_CALL_MPI_Bsend_init)
        return -1;
    return 0;
}

/* The earliest time any rank can still post: spans ending before it are dropped. */
static double low_mark(const st_t *s)
{
    double t = INFINITY;
    for (int32_t r = 0; r < s->world; r++)
        if (s->rk[r].state != ST_DONE)
            t = fmin(t, s->rk[r].state == ST_BLOCKED ? s->rk[r].start : s->rk[r].now);
    return t;
}

/* The link time the spans on l take within [t0, t1). */
static double link_busy(st_t *s, link_t *l, double t0, double t1)
{
    /* drop what no message can meet any more, the array compacted now and then */
    while (l->h < l->n && l->v[l->h].a + l->dmax < s->low)
        l->h++;
    if (l->h > 64 && l->h * 2 > l->n) {
        memmove(l->v, l->v + l->h, (l->n - l->h) * sizeof(span_t));
        l->n -= l->h;
        l->h = 0;
    }
    size_t lo = l->h, hi = l->n; /* the first span starting after t0 - dmax */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[mid].a <= t0 - l->dmax)
            lo = mid + 1;
        else
            hi = mid;
    }
    double w = 0;
    for (size_t i = lo; i < l->n && l->v[i].a < t1; i++)
        if (l->v[i].b > t0)
            w += fmin(l->v[i].b, t1) - fmax(l->v[i].a, t0);
    return w;
}

static void link_add(st_t *s, link_t *l, double a, double b)
{
    if ((++s->adds & 1023) == 0) /* O(ranks): now and then */
        s->low = low_mark(s);
    if (grow(&l->v, &l->cap, l->n + 1, sizeof(span_t)) != 0) {
        s->oom = 1;
        return;
    }
    size_t i = l->n++; /* spans come nearly in order of start: from the end */
    while (i > l->h && l->v[i - 1].a > a) {
        l->v[i] = l->v[i - 1];
        i--;
    }
    l->v[i] = (span_t){a, b};
    if (b - a > l->dmax)
        l->dmax = b - a;
}

/* Message m between hosts starts moving at t. Its bytes occupy its sender's host link out
 * and its receiver's in for as long as the link's sustained rate takes to move them: the
 * model's time per byte between 2 and 4 MiB (pr_per_byte), where a small message's own
 * time may be shorter (a token bucket lets a burst through faster than its rate). It ends
 * no sooner than its own time alone, and no sooner than the busier link can move both the
 * other transfers' bytes still on it and its own: two equal messages started together end
 * at twice one's occupancy, one that starts after the others are through has the links to
 * itself. Transfers are met in the replay's order, not in time: one met later does not
 * delay those met before it (doc/replay.md). */
static void msg_share(st_t *s, uint32_t m, double t)
{
    msg_t *g = &s->msg[m];
    const int32_t *host = s->o->pred->host;
    if (!s->lout || !host || host[g->src] == host[g->dst])
        return;
    double pb = pr_per_byte(wr_net_time, &s->net, g->src, g->dst, 0);
    double d = (double)g->bytes * pb;
    if (!(d > 0)) { /* no bandwidth at 2-4 MiB: the part of its time beyond an empty one's */
        double lat = wr_net_time(&s->net, g->src, g->dst, 0, 0);
        d = lat >= 0 && lat < g->t ? g->t - lat : 0;
    }
    if (!(d > 0))
        return;
    /* what it leaves on the links for the others is its bytes at the unloaded rate: the
     * links' background load (the probe saw it) slows each flow once, not each of ours
     * again (k flows against B others take k + B shares, not k (1 + B)) */
    double d0 = d;
    if (s->pro.load.per_byte > 0 && s->pro.load.per_byte < pb)
        d0 = (double)g->bytes * s->pro.load.per_byte;
    link_t *o = &s->lout[host[g->src]], *i = &s->lin[host[g->dst]];
    double end = fmax(g->t, d);
    for (int it = 0; it < 2; it++) /* the others' bytes within its own span */
        end = fmax(g->t, d + fmax(link_busy(s, o, t, t + end), link_busy(s, i, t, t + end)));
    g->t = end;
    link_add(s, o, t + end - d0, t + end);
    link_add(s, i, t + end - d0, t + end);
}

/* A send posted at the current call's start by rank k: its message, paired with a receive
 * already waiting in its channel or queued. NONE: no message (to itself, to PROC_NULL). */
static uint32_t post_send(st_t *s, rk_t *k, int32_t me, int32_t comm, int32_t dst, int32_t tag,
                          uint64_t bytes, int sync, int twoway)
{
    if (dst < 0 || dst >= s->world || dst == me || tag < 0)
        return NONE;
    uint32_t ci = chan_get(s, comm, me, dst, tag);
    if (ci == NONE)
        return NONE;
    chan_t *c = &s->ch[ci];
    uint32_t m;
    if (c->head != NONE && !c->qsend) {
        m = chan_pop(s, c);
    } else {
        m = msg_new(s, me, dst, bytes);
        if (m == NONE)
            return NONE;
        chan_push(s, &s->ch[ci], m, 1);
        c = &s->ch[ci];
    }
    msg_t *g = &s->msg[m];
    g->bytes = bytes;
    g->src = me;
    g->spost = k->start;
    g->scut = cut_of(s, k);
    g->rndv = (uint8_t)(sync > 0 || (sync == 0 && bytes > s->pro.eager));
    g->t = wr_net_time(&s->net, me, dst, bytes, twoway);
    pnm_loggp_parts_t pp;
    if (s->lgp && pnm_loggp_parts(s->lgp, me, dst, bytes, &pp) == 0) {
        g->o = pp.o;
        g->rs = 2 * pp.L * s->net.lat + 3 * pp.o;
    }
    if (!g->rndv)
        msg_share(s, m, g->spost);
    else if (!isnan(g->rpost))
        msg_share(s, m, fmax(g->spost, g->rpost));
    s->r->messages++;
    if (g->rndv)
        s->r->rendezvous++;
    else
        s->r->eager++;
    if (g->rwait != NONE)
        wake(s, g->rwait);
    if (c->pwait != NONE) {
        wake(s, c->pwait);
        c->pwait = NONE;
    }
    return m;
}

/* A receive of rank k posted at rpost (its path cut rc, taken over) joins its channel. */
static uint32_t post_recv(st_t *s, int32_t me, int32_t comm, int32_t src, int32_t tag,
                          uint64_t bytes, double rpost, cut_t rc)
{
    if (src < 0 || src >= s->world || src == me || tag < 0) {
        cut_drop(s, &rc);
        return NONE;
    }
    uint32_t ci = chan_get(s, comm, src, me, tag);
    if (ci == NONE) {
        cut_drop(s, &rc);
        return NONE;
    }
    chan_t *c = &s->ch[ci];
    uint32_t m;
    if (c->head != NONE && c->qsend) {
        m = chan_pop(s, c);
    } else {
        m = msg_new(s, src, me, bytes);
        if (m == NONE) {
            cut_drop(s, &rc);
            return NONE;
        }
        chan_push(s, &s->ch[ci], m, 0);
    }
    msg_t *g = &s->msg[m];
    g->rpost = rpost;
    g->rcut = rc;
    if (g->rndv && !isnan(g->spost))
        msg_share(s, m, fmax(g->spost, g->rpost));
    if (g->swait != NONE)
        wake(s, g->swait);
    return m;
}

/* ---- requests ---- */
static uint32_t req_new(st_t *s, rk_t *k, uint64_t id)
{
    if (id == 0)
        return NONE;
    uint32_t i = s->rfree;
    if (i != NONE) {
        s->rfree = s->rq[i].next;
    } else if ((i = pool_end(s, &s->rq, &s->nrq, &s->crq, sizeof(req_t))) == NONE) {
        return NONE;
    }
    if (hmap_set(&k->req, id + 1, i) != 0) {
        s->oom = 1;
        return NONE;
    }
    s->rq[i] = (req_t){.idx = NONE, .rcut = {.node = NONE}, .next = NONE};
    if (++s->rlive > s->r->peak_requests)
        s->r->peak_requests = s->rlive;
    return i;
}

static uint32_t req_find(const rk_t *k, uint64_t id)
{
    size_t slot = hmap_find(&k->req, id + 1);
    return slot == SIZE_MAX ? NONE : (uint32_t)k->req.vals[slot];
}

static void coll_unref(st_t *s, uint32_t c);

/* Rank k is done with request id: its message or instance let go. */
static void req_end(st_t *s, rk_t *k, uint64_t id)
{
    size_t slot = hmap_find(&k->req, id + 1);
    if (slot == SIZE_MAX)
        return;
    uint32_t i = (uint32_t)k->req.vals[slot];
    hmap_del_at(&k->req, slot);
    req_t *q = &s->rq[i];
    if ((q->kind == RQ_SEND || q->kind == RQ_RECV) && q->idx != NONE)
        msg_unref(s, q->idx);
    else if (q->kind == RQ_COLL && q->idx != NONE)
        coll_unref(s, q->idx);
    cut_drop(s, &q->rcut);
    q->next = s->rfree;
    s->rfree = i;
    s->rlive--;
}

/* ---- scheduling ---- */
static void wake(st_t *s, uint32_t r)
{
    rk_t *k = &s->rk[r];
    if (k->state != ST_BLOCKED || k->queued)
        return;
    k->state = ST_RUN;
    k->queued = 1;
    if (grow(&s->ready, &s->cready, s->nready + 1, sizeof(uint32_t)) != 0) {
        s->oom = 1;
        return;
    }
    s->ready[s->nready++] = r;
}

/* ---- collectives ---- */
static uint64_t coll_key(int32_t comm, uint64_t ord)
{
    return ((uint64_t)(uint32_t)comm << 40 | (ord & ((1ull << 40) - 1))) + 1;
}

static uint32_t coll_get(st_t *s, uint64_t key, int32_t size)
{
    uint64_t *v = hmap_put(&s->comap, key);
    if (v == NULL) {
        s->oom = 1;
        return NONE;
    }
    if (*v)
        return (uint32_t)*v - 1;
    uint32_t i = s->cfree;
    if (i != NONE) {
        s->cfree = s->co[i].next;
    } else if ((i = pool_end(s, &s->co, &s->nco, &s->cco, sizeof(coll_t))) == NONE) {
        return NONE;
    }
    coll_t *c = &s->co[i];
    size_t n = (size_t)(size > 0 ? size : 1);
    *c = (coll_t){.key = key, .size = size, .refs = (uint32_t)n, .from_slot = NONE};
    c->rank = malloc(n * sizeof(*c->rank));
    c->entry = malloc(n * sizeof(*c->entry));
    c->exit = malloc(n * sizeof(*c->exit));
    c->cut = malloc(n * sizeof(*c->cut));
    c->waiting = calloc(n, 1);
    if (!c->rank || !c->entry || !c->exit || !c->cut || !c->waiting) {
        s->oom = 1;
        return NONE;
    }
    *v = (uint64_t)i + 1;
    return i;
}

static void coll_unref(st_t *s, uint32_t i)
{
    coll_t *c = &s->co[i];
    if (--c->refs > 0)
        return;
    for (int32_t k = 0; k < c->seen; k++)
        cut_drop(s, &c->cut[k]);
    if (!c->done)
        hmap_del(&s->comap, c->key);
    free(c->rank);
    free(c->entry);
    free(c->exit);
    free(c->cut);
    free(c->waiting);
    c->rank = NULL;
    c->next = s->cfree;
    s->cfree = i;
}

static long slot_of(const coll_t *c, int32_t rank)
{
    for (int32_t k = 0; k < c->seen; k++)
        if (c->rank[k] == rank)
            return k;
    return -1;
}

/* ci hands over an instance once its last member's call was fed: every member's exit. */
static void coll_done(void *arg, const ci_inst_t *in)
{
    st_t *s = arg;
    size_t slot = hmap_find(&s->comap, coll_key(in->comm, in->ordinal));
    if (slot == SIZE_MAX || s->oom)
        return;
    coll_t *c = &s->co[s->comap.vals[slot] - 1];
    hmap_del_at(&s->comap, slot);
    c->done = 1;
    c->bytes = in->bytes;
    double last = -INFINITY;
    for (int32_t k = 0; k < c->seen; k++)
        if (c->entry[k] > last) {
            last = c->entry[k];
            c->from_slot = (uint32_t)k;
        }
    /* the measured entries and exits, by rank, for what cannot be rebuilt */
    if (in->why == RECON_OK && in->nmem == (size_t)c->seen) {
        if (grow(&s->mem, &s->cmem, in->nmem, sizeof(ci_member_t)) != 0) {
            s->oom = 1;
            return;
        }
        for (size_t m = 0; m < in->nmem; m++) {
            long sl = slot_of(c, in->mem[m].rank);
            double e = sl >= 0 ? c->entry[sl] : (double)in->mem[m].start_ns;
            s->mem[m] = (ci_member_t){in->mem[m].rank, (int64_t)llround(e), in->mem[m].end_ns};
        }
        ci_inst_t cp = *in;
        cp.mem = s->mem;
        if (s->o->whole) {
            double t, p90;
            if (pred_steps_price(&s->steps, &cp, s->o->model, &t, &p90) != 0) {
                s->oom = 1;
                return;
            }
            for (int32_t k = 0; k < c->seen; k++)
                c->exit[k] = last + t;
            s->r->colls_priced++;
        } else {
            double span;
            pr_time_fn t = wr_net_time;
            if (pr_replay(&s->pr, &cp, t, &s->net, &s->pro, &span, NULL) != 0) {
                s->oom = 1;
                return;
            }
            /* the members' exits, sorted by rank in pr */
            for (size_t m = 0; m < in->nmem; m++) {
                long sl = slot_of(c, s->pr.rank[m]);
                if (sl >= 0)
                    c->exit[sl] = fmax(s->pr.ready[m], c->entry[sl]);
            }
            s->r->colls_steps++;
        }
    } else {
        /* no schedule: the members leave after the last arrives, each as long after it as
         * measured */
        int64_t mlast = INT64_MIN;
        for (size_t m = 0; m < in->nmem; m++)
            if (in->mem[m].start_ns > mlast)
                mlast = in->mem[m].start_ns;
        for (int32_t k = 0; k < c->seen; k++)
            c->exit[k] = last;
        for (size_t m = 0; m < in->nmem; m++) {
            long sl = slot_of(c, in->mem[m].rank);
            if (sl >= 0)
                c->exit[sl] = last + (double)(in->mem[m].end_ns > mlast ? in->mem[m].end_ns - mlast : 0);
        }
        s->r->colls_tail++;
    }
    for (int32_t k = 0; k < c->seen; k++)
        if (c->waiting[k])
            wake(s, (uint32_t)c->rank[k]);
}

/* Rank k's collective call e enters its instance at k->start. NONE: not an instance
 * (replayed as measured). */
static uint32_t coll_enter(st_t *s, rk_t *k, const plog_rec_t *e, uint32_t *slotp)
{
    if (e->comm <= 0)
        return NONE;
    uint64_t *nx = hmap_put(&k->cnext, (uint64_t)(uint32_t)e->comm + 1);
    if (!nx) {
        s->oom = 1;
        return NONE;
    }
    uint64_t ord = (*nx)++;
    pcs_coll_t pc;
    bool nb;
    uint32_t ci = NONE;
    if (recon_call_coll(e->call, &pc, &nb) && e->lcomm && e->lcomm->n_local > 0) {
        ci = coll_get(s, coll_key(e->comm, ord), (int32_t)e->lcomm->n_local);
        if (ci != NONE && s->co[ci].seen >= s->co[ci].size)
            ci = NONE; /* more members than the communicator has: not trusted */
    }
    if (ci != NONE) {
        coll_t *c = &s->co[ci];
        uint32_t sl = (uint32_t)c->seen++;
        c->rank[sl] = e->rank;
        c->entry[sl] = k->start;
        c->exit[sl] = NAN;
        c->cut[sl] = cut_of(s, k);
        *slotp = sl;
    }
    /* ci counts every collective call as this does (the ordinals must agree); its member
     * times are the measured ones, coll_done puts the predicted in */
    if (ci_feed(s->ci, e, coll_done, s) != 0)
        s->oom = 1;
    return ci;
}

/* ---- phasor's probes ---- */

double wr_spans_within(const wr_span_t *v, size_t n, double a, double b, size_t *from)
{
    double w = 0;
    while (*from < n && v[*from].b <= a)
        (*from)++;
    for (size_t i = *from; i < n && v[i].a < b; i++)
        w += fmin(b, v[i].b) - fmax(a, v[i].a);
    return w;
}

plog_err_t wr_probe_spans(const plog_run_t *run, wr_span_t **out, size_t *n, plog_error_t *err)
{
    *out = NULL;
    *n = 0;
    plog_probe_run_t *pr = NULL;
    size_t npr = 0;
    plog_err_t rc = plog_probeseries_load(run, &pr, &npr, err);
    if (rc != PLOG_OK || npr == 0)
        return rc;
    if ((*out = malloc(npr * sizeof(**out))) == NULL) {
        plog_probeseries_free(pr, npr);
        return plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET,
                         "out of memory reading the probes");
    }
    for (size_t i = 0; i < npr; i++)
        if (pr[i].end_ns > pr[i].start_ns)
            (*out)[(*n)++] = (wr_span_t){(double)pr[i].start_ns, (double)pr[i].end_ns};
    plog_probeseries_free(pr, npr);
    return PLOG_OK;
}

/* t on the clock without phasor's probes: t less the probe time before it */
static double probe_free(const st_t *s, double t)
{
    size_t from = 0;
    return t - wr_spans_within(s->probe, s->nprobe, -INFINITY, t, &from);
}

/* ---- one call ---- */

/* What ended a call: its end, and the dependency that set it (from WR_FROM_START: its own
 * progress). */
typedef struct fin {
    double end;
    int from;
    cut_t via;       /* the path at the other end (not owned) */
    double arrive;   /* when what it waited for came */
    int32_t peer;
    uint64_t bytes;
} fin_t;

static inline void fin_wait(fin_t *f, double t, int from, const cut_t *via, int32_t peer,
                            uint64_t bytes)
{
    if (t > f->end) {
        f->end = t;
        f->from = via && via->node != NONE ? from : WR_FROM_START;
        if (via)
            f->via = *via;
        f->arrive = t;
        f->peer = peer;
        f->bytes = bytes;
    }
}

/* A receive-side message's end for rank k: its arrival, or NAN (k waits, registered). */
static double recv_side(st_t *s, uint32_t r, uint32_t m, fin_t *f)
{
    msg_t *g = &s->msg[m];
    double a = arrival(g);
    if (isnan(a)) {
        g->rwait = r;
        return NAN;
    }
    g->rwait = NONE;
    const cut_t *via = (!g->rndv || g->spost >= g->rpost) ? &g->scut : NULL;
    fin_wait(f, a, WR_FROM_MSG, via, g->src, g->bytes);
    return a;
}

static double send_side(st_t *s, uint32_t r, uint32_t m, fin_t *f)
{
    msg_t *g = &s->msg[m];
    if (!g->rndv)
        return f->end;
    double a = arrival(g);
    if (isnan(a)) {
        g->swait = r;
        return NAN;
    }
    g->swait = NONE;
    if (!isnan(g->rs)) /* LogGP: the sender is done once the data leaves (002, eq 3) */
        a = fmax(g->spost, g->rpost) + fmin(g->rs, g->t);
    const cut_t *via = g->rpost > g->spost ? &g->rcut : NULL;
    fin_wait(f, a, WR_FROM_RECV, via, g->dst, g->bytes);
    return a;
}

/* The local part of a call that waits for messages: its measured time, but no longer than
 * the longest of their own times (the rest of it was waiting); with LogGP, the largest of
 * their overheads o instead. */
typedef struct local {
    double lim; /* the longest message time */
    double lo;  /* the largest o; NAN when a message has none */
} local_t;

static inline void local_add(local_t *l, const msg_t *g)
{
    l->lim = fmax(l->lim, g->t);
    l->lo = isnan(l->lo) || isnan(g->o) ? NAN : fmax(l->lo, g->o);
}

static inline double local_part(double d, double lim, double lo)
{
    return isnan(lo) ? fmin(d, lim) : lo;
}

/* The local part of a call: as measured, but a call that waits for messages no longer than
 * the longest of their own times (the rest of its measured time was waiting). */
static inline double mdur(const plog_rec_t *e)
{
    return e->end_ns > e->start_ns ? (double)(e->end_ns - e->start_ns) : 0;
}

/* How much rank r's compute is scaled (the what-ifs). */
static inline double rank_scale(const st_t *s, uint32_t r)
{
    double scale = s->o->compute_scale;
    if ((int32_t)r == s->o->slow_rank)
        scale *= s->o->slow_factor;
    return scale;
}

/* A run of unsuccessful polls (ncalls > 1) is replayed as measured: its time inside the
 * calls as it was, the time between its polls, which was the application's, as compute
 * (scaled as the rank's compute is, as when each poll is logged on its own). That part of
 * its measured span in *m_app and of its replayed one in *p_app (both 0 for one call). */
static inline void run_app(const st_t *s, uint32_t r, const plog_rec_t *e, double *m_app,
                           double *p_app)
{
    *m_app = *p_app = 0;
    if (__builtin_expect(e->ncalls <= 1, 1))
        return;
    double d = mdur(e);
    *m_app = d > (double)e->inside_ns ? d - (double)e->inside_ns : 0;
    *p_app = *m_app * rank_scale(s, r);
}

/* Postings of call e of rank k at k->start (once per call). */
static void post(st_t *s, rk_t *k, const plog_rec_t *e)
{
    k->coll = k->smsg = k->rmsg = NONE;
    if (e->rc != 0)
        return;
    switch (e->cls) {
    case PLOG_CLASS_SEND:
        k->smsg = post_send(s, k, e->rank, e->comm, e->peer, e->tag, e->bytes,
                            send_mode(e->call), 0);
        break;
    case PLOG_CLASS_SENDRECV:
    case PLOG_CLASS_RECV:
        if (e->cls == PLOG_CLASS_SENDRECV)
            k->smsg = post_send(s, k, e->rank, e->comm, e->peer, e->tag, e->bytes, 0, 1);
        if (e->n_status > 0 && !e->status[0].cancelled) {
            const plog_rstatus_t *st = &e->status[0];
            if ((e->flags & PLOG_F_RECVSPEC) && (e->recv_source < 0 || e->recv_tag < 0))
                s->r->wildcard++;
            k->rmsg = post_recv(s, e->rank, e->comm, st->source, st->tag,
                                st->bytes != PLOG_BYTES_UNKNOWN ? st->bytes : e->rbytes,
                                k->start, cut_of(s, k));
        }
        break;
    case PLOG_CLASS_ISEND: {
        uint32_t m = post_send(s, k, e->rank, e->comm, e->peer, e->tag, e->bytes,
                               send_mode(e->call), 0);
        uint32_t q = req_new(s, k, e->request);
        if (q != NONE) {
            s->rq[q].kind = RQ_SEND; /* the request holds the send's end */
            s->rq[q].idx = m;
        } else if (m != NONE) {
            msg_unref(s, m);
        }
        break;
    }
    case PLOG_CLASS_IRECV: {
        uint32_t q = req_new(s, k, e->request);
        if (q == NONE)
            break;
        req_t *rq = &s->rq[q];
        int probed = (e->flags & PLOG_F_MESSAGE) != 0;
        if (!probed && e->peer >= 0 && e->tag >= 0) {
            rq->kind = RQ_RECV;
            rq->idx = post_recv(s, e->rank, e->comm, e->peer, e->tag, e->rbytes, k->start,
                                cut_of(s, k));
        } else if (e->peer == PLOG_PROC_NULL) {
            rq->kind = RQ_RECV;
        } else {
            rq->kind = RQ_RECV_OPEN;
            rq->rpost = k->start;
            rq->rcut = cut_of(s, k);
            rq->bytes = e->rbytes;
            rq->comm = e->comm;
            rq->src = e->peer;
            rq->tag = e->tag;
            s->r->wildcard++;
        }
        break;
    }
    case PLOG_CLASS_START: {
        uint32_t n = e->n_handles ? e->n_handles : e->req != NULL;
        for (uint32_t h = 0; h < n; h++) {
            const plog_reqinfo_t *ri = e->n_handles ? e->handles[h].start : e->req;
            uint64_t id = e->n_handles ? e->handles[h].id : e->request;
            if (ri == NULL)
                continue;
            uint32_t q = req_new(s, k, id);
            if (ri->cls == PLOG_CLASS_PSEND_INIT) {
                uint32_t m = post_send(s, k, e->rank, ri->comm, ri->peer, ri->tag, ri->bytes,
                                       send_mode(ri->call), 0);
                if (q == NONE) {
                    if (m != NONE)
                        msg_unref(s, m);
                    continue;
                }
                s->rq[q].kind = RQ_SEND;
                s->rq[q].idx = m;
            } else if (ri->cls == PLOG_CLASS_PRECV_INIT && q != NONE) {
                s->rq[q].kind = RQ_RECV;
                if (ri->peer >= 0 && ri->tag >= 0) {
                    s->rq[q].idx = post_recv(s, e->rank, ri->comm, ri->peer, ri->tag,
                                             ri->rbytes, k->start, cut_of(s, k));
                } else {
                    s->rq[q].kind = RQ_RECV_OPEN;
                    s->rq[q].rpost = k->start;
                    s->rq[q].rcut = cut_of(s, k);
                    s->rq[q].bytes = ri->rbytes;
                    s->rq[q].comm = ri->comm;
                    s->rq[q].src = ri->peer;
                    s->rq[q].tag = ri->tag;
                    s->r->wildcard++;
                }
            }
        }
        break;
    }
    case PLOG_CLASS_COMPLETE:
        /* its requests, once; receives not yet in a channel join the one their status names */
        if (grow(&k->qv, &k->cq, e->n_status, sizeof(uint32_t)) != 0) {
            s->oom = 1;
            break;
        }
        for (uint32_t i = 0; i < e->n_status; i++) {
            const plog_rstatus_t *st = &e->status[i];
            uint32_t q = k->qv[i] = req_find(k, st->request);
            if (q == NONE || s->rq[q].kind != RQ_RECV_OPEN)
                continue;
            req_t *rq = &s->rq[q];
            rq->kind = RQ_RECV;
            if (st->cancelled) {
                cut_drop(s, &rq->rcut);
                continue;
            }
            cut_t rc = rq->rcut;
            rq->rcut = (cut_t){.node = NONE};
            uint64_t b = st->bytes != PLOG_BYTES_UNKNOWN ? st->bytes : rq->bytes;
            rq->idx = post_recv(s, e->rank, rq->comm, st->source, st->tag, b, rq->rpost, rc);
        }
        break;
    case PLOG_CLASS_COLL:
        k->coll = coll_enter(s, k, e, &k->slot);
        break;
    case PLOG_CLASS_ICOLL: {
        uint32_t sl = 0, c = coll_enter(s, k, e, &sl);
        uint32_t q = req_new(s, k, e->request);
        if (q != NONE) {
            s->rq[q].kind = RQ_COLL;
            s->rq[q].idx = c;
            s->rq[q].slot = sl;
        } else if (c != NONE) {
            coll_unref(s, c);
        }
        break;
    }
    default:
        break;
    }
}

/* A probe's message: the next one of its channel, once sent. NAN: k waits. */
static double probe_wait(st_t *s, uint32_t r, const plog_rec_t *e, fin_t *f)
{
    const plog_rstatus_t *st = &e->status[0];
    uint32_t ci = chan_get(s, e->comm, st->source, e->rank, st->tag);
    if (ci == NONE)
        return f->end;
    chan_t *c = &s->ch[ci];
    if (c->head == NONE || !c->qsend) {
        if (c->head != NONE) /* receives of its own are ahead of it: not followed */
            return f->end;
        c->pwait = r;
        return NAN;
    }
    msg_t *g = &s->msg[c->head];
    double env = g->spost + wr_net_time(&s->net, g->src, g->dst, 0, 0);
    fin_wait(f, env, WR_FROM_PROBE, &g->scut, g->src, g->bytes);
    return env;
}

/* The end of call e of rank r, started at k->start; NAN while it waits (registered with
 * what it waits for). */
static double finish(st_t *s, uint32_t r, rk_t *k, const plog_rec_t *e, fin_t *f)
{
    double m_app, p_app;
    run_app(s, r, e, &m_app, &p_app);
    double d = mdur(e) - m_app + p_app;
    f->end = k->start + d;
    f->from = WR_FROM_START;
    if (e->rc != 0)
        return f->end;
    switch (e->cls) {
    case PLOG_CLASS_SEND: {
        if (k->smsg == NONE)
            return f->end;
        msg_t *g = &s->msg[k->smsg];
        if (!g->rndv) {
            /* eager: local, no longer than the message's own time; LogGP: its o */
            f->end = k->start + local_part(d, g->t, g->o);
            return f->end;
        }
        f->end = k->start;
        return send_side(s, r, k->smsg, f);
    }
    case PLOG_CLASS_RECV:
    case PLOG_CLASS_SENDRECV: {
        if (k->smsg == NONE && k->rmsg == NONE)
            return f->end;
        local_t l = {0, 0};
        if (k->smsg != NONE)
            local_add(&l, &s->msg[k->smsg]);
        if (k->rmsg != NONE)
            local_add(&l, &s->msg[k->rmsg]);
        f->end = k->start + local_part(d, l.lim, l.lo);
        int wait = k->smsg != NONE && isnan(send_side(s, r, k->smsg, f));
        if (k->rmsg != NONE && isnan(recv_side(s, r, k->rmsg, f)))
            wait = 1;
        return wait ? NAN : f->end;
    }
    case PLOG_CLASS_COMPLETE: {
        if (e->n_status == 0) {
            s->r->polls += e->ncalls;
            return f->end;
        }
        local_t l = {0, 0};
        int any = 0, wait = 0;
        for (uint32_t i = 0; i < e->n_status; i++) {
            uint32_t q = k->qv[i];
            if (q == NONE)
                continue;
            const req_t *rq = &s->rq[q];
            any = 1;
            if ((rq->kind == RQ_SEND || rq->kind == RQ_RECV) && rq->idx != NONE)
                local_add(&l, &s->msg[rq->idx]);
            else
                l.lo = NAN;
        }
        if (!any)
            return f->end;
        f->end = k->start + local_part(d, l.lim, l.lo);
        for (uint32_t i = 0; i < e->n_status; i++) {
            uint32_t q = k->qv[i];
            if (q == NONE)
                continue;
            req_t *rq = &s->rq[q];
            if (rq->idx == NONE)
                continue;
            if (rq->kind == RQ_SEND) {
                if (isnan(send_side(s, r, rq->idx, f)))
                    wait = 1;
            } else if (rq->kind == RQ_RECV) {
                if (isnan(recv_side(s, r, rq->idx, f)))
                    wait = 1;
            } else if (rq->kind == RQ_COLL) {
                coll_t *c = &s->co[rq->idx];
                if (!c->done) {
                    c->waiting[rq->slot] = 1;
                    wait = 1;
                } else {
                    const cut_t *via = c->from_slot != rq->slot ? &c->cut[c->from_slot] : NULL;
                    fin_wait(f, c->exit[rq->slot], WR_FROM_COLL, via,
                             c->rank[c->from_slot], c->bytes);
                }
            }
        }
        return wait ? NAN : f->end;
    }
    case PLOG_CLASS_PROBE: {
        int found = e->n_status > 0 && e->status[0].source >= 0 && e->status[0].tag >= 0 &&
                    (e->call == PLOG_CALL_MPI_Probe || e->call == PLOG_CALL_MPI_Mprobe ||
                     (e->flags & PLOG_F_FLAG_TRUE));
        if (!found) {
            s->r->polls += e->ncalls;
            return f->end;
        }
        if (e->status[0].source == e->rank) /* its own message: no other rank's */
            return f->end;
        f->end = k->start + fmin(d, wr_net_time(&s->net, e->status[0].source, e->rank, 0, 0));
        return probe_wait(s, r, e, f);
    }
    case PLOG_CLASS_COLL: {
        if (k->coll == NONE) {
            s->r->colls_local++;
            return f->end;
        }
        coll_t *c = &s->co[k->coll];
        if (!c->done) {
            c->waiting[k->slot] = 1;
            return NAN;
        }
        f->end = k->start;
        const cut_t *via = c->from_slot != k->slot ? &c->cut[c->from_slot] : NULL;
        fin_wait(f, c->exit[k->slot], WR_FROM_COLL, via, c->rank[c->from_slot], c->bytes);
        if (f->end < k->start)
            f->end = k->start;
        return f->end;
    }
    default:
        return f->end;
    }
}

/* Rank k is done with call e: its messages, requests and instance let go. */
static void release(st_t *s, rk_t *k, const plog_rec_t *e)
{
    if (e->rc != 0)
        return;
    switch (e->cls) {
    case PLOG_CLASS_SEND:
    case PLOG_CLASS_RECV:
    case PLOG_CLASS_SENDRECV:
        if (k->smsg != NONE)
            msg_unref(s, k->smsg);
        if (k->rmsg != NONE)
            msg_unref(s, k->rmsg);
        break;
    case PLOG_CLASS_COMPLETE:
        for (uint32_t i = 0; i < e->n_status; i++) {
            uint32_t q = k->qv[i];
            if (q == NONE)
                continue;
            req_t *rq = &s->rq[q];
            if (rq->kind == RQ_COLL && rq->idx != NONE)
                s->co[rq->idx].waiting[rq->slot] = 0;
            req_end(s, k, e->status[i].request);
        }
        break;
    case PLOG_CLASS_REQFREE:
        /* a freed request's message still goes; only this rank's hold on it ends */
        if (e->request)
            req_end(s, k, e->request);
        break;
    case PLOG_CLASS_COLL:
        if (k->coll != NONE) {
            s->co[k->coll].waiting[k->slot] = 0;
            coll_unref(s, k->coll);
        }
        break;
    default:
        break;
    }
    k->coll = NONE;
}

/* The call's end as the path sees it; app: the part of it that was the application's (the
 * time between the polls of a run, run_app). */
static void path_step(st_t *s, rk_t *k, const plog_rec_t *e, const fin_t *f, double gap,
                      double app)
{
    /* the path runs from the end of MPI_Init to the start of MPI_Finalize */
    if (!s->o->path || k->ended)
        return;
    if (!k->seen_init) {
        uint32_t n = node_new(s);
        if (n == NONE)
            return;
        s->nd[n] = (node_t){.from = {.node = NONE}, .refs = 1, .rank = e->rank, .peer = -1,
                            .call = e->call, .p0 = f->end, .m0 = (double)e->end_ns,
                            .p1 = f->end, .m1 = (double)e->end_ns, .e0 = k->ord, .e1 = k->ord};
        k->head = n;
        return;
    }
    double dur = f->end - k->start;
    if (f->from != WR_FROM_START && f->via.node != NONE) {
        uint32_t n = node_new(s);
        if (n == NONE)
            return;
        node_t *nd = &s->nd[n];
        const cut_t *v = &f->via;
        s->nd[v->node].refs++;
        *nd = (node_t){.from = *v, .refs = 1, .rank = e->rank, .peer = f->peer,
                       .call = e->call, .kind = (uint8_t)f->from, .bytes = f->bytes,
                       .edge = f->end - v->p, .p0 = f->end, .m0 = (double)e->end_ns,
                       .p1 = f->end, .m1 = (double)e->end_ns, .e0 = k->ord, .e1 = k->ord};
        uint32_t old = k->head;
        k->head = n;
        if (old != NONE)
            node_unref(s, old);
        return;
    }
    if (k->head == NONE) {
        uint32_t n = node_new(s);
        if (n == NONE)
            return;
        s->nd[n] = (node_t){.from = {.node = NONE}, .refs = 1, .rank = e->rank, .peer = -1,
                            .call = e->call, .p0 = k->start, .m0 = (double)e->start_ns,
                            .e0 = k->ord};
        k->head = n;
    }
    node_t *nd = &s->nd[k->head];
    nd->p1 = f->end;
    nd->m1 = (double)e->end_ns;
    nd->e1 = k->ord;
    nd->comp += gap + app;
    nd->mpi += dur - app;
}

static int is_finalize(const plog_rec_t *e)
{
    return e->call == PLOG_CALL_MPI_Finalize;
}
static int is_init(const plog_rec_t *e)
{
    return e->call == PLOG_CALL_MPI_Init || e->call == PLOG_CALL_MPI_Init_thread;
}

/* Rank k's call e ended at end: its time counted (but m_app and p_app, the application's
 * part of a run of polls, measured and replayed: run_app), the rank moves on to its next
 * call. */
static void call_done(st_t *s, rk_t *k, wr_rank_t *w, const plog_rec_t *e, double end,
                      double m_app, double p_app)
{
    if (k->seen_init && !k->ended) {
        double d = mdur(e) - m_app;
        double p = end - k->start - p_app;
        w->m_mpi += d;
        w->p_mpi += p;
        if (e->call < WR_NCALLS) {
            wr_call_t *c = &s->r->calls[e->call];
            c->count += e->ncalls;
            c->measured += d;
            c->predicted += p;
        }
    }
    if (is_init(e) || !k->seen_init) {
        if (is_init(e) || k->ord == 0)
            w->m_begin = (double)e->end_ns;
        k->seen_init = 1;
    }
    k->now = end;
    if (e->end_ns > k->mprev)
        k->mprev = e->end_ns;
    k->ord++;
    w->events++;
    s->r->events++;
    k->e = NULL;
}

/* Runs rank r until it waits, ends, or has run SLICE calls. */
static plog_err_t run_rank(st_t *s, uint32_t r, plog_error_t *err)
{
    rk_t *k = &s->rk[r];
    wr_rank_t *w = &s->r->ranks[r];
    for (int n = 0; n < SLICE && !s->oom; n++) {
        const plog_rec_t *e = k->e;
        if (e == NULL) {
            for (;;) {
                plog_err_t rc = plog_iter_next(k->it, &e, err);
                if (rc != PLOG_OK)
                    return rc;
                if (e == NULL || e->cls != PLOG_CLASS_STEP)
                    break;
            }
            if (e == NULL) {
                k->state = ST_DONE;
                if (!k->ended) {
                    w->m_end = (double)k->mprev;
                    w->p_end = k->now;
                }
                return PLOG_OK;
            }
            k->e = e;
            k->posted = 0;
            if (k->ord == 0) { /* a rank starts where it started */
                k->now = (double)e->start_ns;
                k->mprev = e->start_ns;
            }
            double gap = e->start_ns > k->mprev ? (double)(e->start_ns - k->mprev) : 0;
            if (gap > 0 && s->nprobe)
                gap = fmax(0, gap - wr_spans_within(s->probe, s->nprobe, (double)k->mprev,
                                                    (double)e->start_ns, &k->pi));
            k->start = k->now + gap * rank_scale(s, r);
            if (is_finalize(e) && !k->ended) {
                /* the path and the rank's time end where MPI_Finalize starts */
                if (s->o->path && k->head != NONE && k->start > s->nd[k->head].p1) {
                    node_t *nd = &s->nd[k->head];
                    nd->comp += k->start - nd->p1;
                    nd->p1 = k->start;
                    nd->m1 = (double)e->start_ns;
                }
                k->ended = 1;
                w->m_end = (double)e->start_ns;
                w->p_end = k->start;
            }
        }
        if (!k->posted) {
            post(s, k, e);
            k->posted = 1;
            if (s->oom)
                return PLOG_OK;
        }
        fin_t f = {.via = {.node = NONE}};
        double end = finish(s, r, k, e, &f);
        if (isnan(end)) {
            k->state = ST_BLOCKED;
            return PLOG_OK;
        }
        double m_app, p_app;
        run_app(s, r, e, &m_app, &p_app);
        path_step(s, k, e, &f, k->start - k->now, p_app);
        release(s, k, e);
        call_done(s, k, w, e, f.end, m_app, p_app);
    }
    return PLOG_OK;
}

/* A rendezvous message m waits for its receive, and the receiver has wildcard receives
 * whose channel only their completion will name: m takes the earliest posted that accepts
 * it, as MPI matches. 1 if one did. */
static int bind_wildcard(st_t *s, uint32_t m)
{
    msg_t *g = &s->msg[m];
    rk_t *d = &s->rk[g->dst];
    uint32_t ci = NONE;
    for (size_t i = 0; i < s->nch && ci == NONE; i++)
        if (s->ch[i].head == m && s->ch[i].qsend)
            ci = (uint32_t)i;
    if (ci == NONE) /* not the next of its channel: an earlier message takes a receive first */
        return 0;
    chan_t *c = &s->ch[ci];
    const ct_key_t *key = &s->ct.key[ci];
    uint32_t best = NONE;
    for (size_t j = 0; j < d->req.cap; j++) {
        if (d->req.keys[j] == 0)
            continue;
        req_t *q = &s->rq[d->req.vals[j]];
        if (q->kind != RQ_RECV_OPEN || q->comm != key->comm ||
            (q->src >= 0 && q->src != key->src) || (q->tag >= 0 && q->tag != key->tag))
            continue;
        if (best == NONE || q->rpost < s->rq[best].rpost)
            best = (uint32_t)d->req.vals[j];
    }
    if (best == NONE)
        return 0;
    req_t *q = &s->rq[best];
    chan_pop(s, c);
    g->rpost = q->rpost;
    g->rcut = q->rcut;
    msg_share(s, m, fmax(g->spost, g->rpost));
    q->rcut = (cut_t){.node = NONE};
    q->kind = RQ_RECV;
    q->idx = m;
    return 1;
}

/* Forces the earliest waiting call to end as measured: a wait the replay cannot resolve
 * (a partner's log is missing, or an order the log does not tell). 0: none was waiting. */
static int force_one(st_t *s)
{
    /* first, a rendezvous send waiting for a wildcard receive the receiver has posted */
    for (uint32_t r = 0; r < (uint32_t)s->world; r++) {
        rk_t *k = &s->rk[r];
        if (k->state != ST_BLOCKED || !k->e)
            continue;
        const plog_rec_t *e = k->e;
        uint32_t m = NONE;
        if (e->cls == PLOG_CLASS_SEND || e->cls == PLOG_CLASS_SENDRECV)
            m = k->smsg;
        if (e->cls == PLOG_CLASS_COMPLETE)
            for (uint32_t i = 0; i < e->n_status && m == NONE; i++) {
                uint32_t q = k->qv[i];
                if (q != NONE && s->rq[q].kind == RQ_SEND && s->rq[q].idx != NONE &&
                    s->msg[s->rq[q].idx].rndv && isnan(s->msg[s->rq[q].idx].rpost))
                    m = s->rq[q].idx;
            }
        if (m != NONE && s->msg[m].rndv && isnan(s->msg[m].rpost) && bind_wildcard(s, m)) {
            wake(s, r);
            return 1;
        }
    }
    uint32_t best = NONE;
    for (uint32_t r = 0; r < (uint32_t)s->world; r++)
        if (s->rk[r].state == ST_BLOCKED && (best == NONE || s->rk[r].start < s->rk[best].start))
            best = r;
    if (best == NONE)
        return 0;
    rk_t *k = &s->rk[best];
    const plog_rec_t *e = k->e;
    /* a send waiting for its receive to be posted moves eagerly instead */
    if (e->cls == PLOG_CLASS_SEND && k->smsg != NONE && s->msg[k->smsg].rndv &&
        isnan(s->msg[k->smsg].rpost)) {
        s->msg[k->smsg].rndv = 0;
        msg_share(s, k->smsg, s->msg[k->smsg].spost);
        s->r->forced_eager++;
    } else {
        /* as measured: the call's result is taken from the log */
        if (e->cls == PLOG_CLASS_COLL && k->coll != NONE) {
            coll_t *c = &s->co[k->coll];
            c->waiting[k->slot] = 0;
            k->coll = NONE; /* its instance stays for the others; this rank lets go */
        }
        s->r->forced++;
        call_done(s, k, &s->r->ranks[best], e, k->start + mdur(e), 0, 0);
    }
    wake(s, best);
    return 1;
}

/* The critical path: back from the rank that ends last. */
static int path_collect(st_t *s)
{
    wr_result_t *R = s->r;
    uint32_t last = NONE;
    double tl = -INFINITY;
    for (int32_t r = 0; r < s->world; r++)
        if (s->rk[r].head != NONE && s->nd[s->rk[r].head].p1 > tl) {
            tl = s->nd[s->rk[r].head].p1;
            last = s->rk[r].head;
        }
    size_t n = 0;
    for (uint32_t i = last; i != NONE; i = s->nd[i].from.node)
        n++;
    if (n == 0)
        return 0;
    R->path = calloc(n, sizeof(*R->path));
    if (!R->path)
        return -1;
    R->npath = n;
    cut_t c = {.node = last, .p = s->nd[last].p1, .m = s->nd[last].m1, .e = s->nd[last].e1,
               .comp = s->nd[last].comp, .mpi = s->nd[last].mpi};
    for (size_t j = n; j-- > 0;) {
        const node_t *nd = &s->nd[c.node];
        R->path[j] = (wr_seg_t){nd->rank, nd->p0, c.p, probe_free(s, nd->m0), probe_free(s, c.m),
                                c.comp, c.mpi, nd->e0, c.e,
                                nd->kind, nd->peer, nd->bytes, nd->call, nd->edge};
        c = nd->from;
    }
    return 0;
}

static void st_free(st_t *s)
{
    for (int32_t r = 0; r < s->world && s->rk; r++) {
        if (s->rk[r].it)
            plog_iter_close(s->rk[r].it);
        hmap_free(&s->rk[r].req);
        free(s->rk[r].qv);
        hmap_free(&s->rk[r].cnext);
    }
    free(s->rk);
    free(s->msg);
    free(s->ch);
    ct_free(&s->ct);
    free(s->rq);
    for (size_t i = 0; i < s->nco; i++)
        if (s->co[i].rank) {
            free(s->co[i].rank);
            free(s->co[i].entry);
            free(s->co[i].exit);
            free(s->co[i].cut);
            free(s->co[i].waiting);
        }
    free(s->co);
    hmap_free(&s->comap);
    free(s->nd);
    free(s->heap);
    free(s->ready);
    free(s->mem);
    if (s->ci)
        ci_free(s->ci);
    pr_free(&s->pr);
    pred_steps_free(&s->steps);
    free(s->net.cache);
    for (int32_t h = 0; h < s->nhosts && s->lout && s->lin; h++) {
        free(s->lout[h].v);
        free(s->lin[h].v);
    }
    free(s->lout);
    free(s->lin);
    free(s->probe);
}

plog_err_t wr_run(plog_run_t *run, const wr_opts_t *o, wr_result_t *R, plog_error_t *err)
{
    memset(R, 0, sizeof(*R));
    st_t s = {.run = run, .o = o, .r = R, .mfree = NONE, .rfree = NONE, .cfree = NONE,
              .nfree = NONE};
    ct_init(&s.ct);
    s.low = -INFINITY;
    s.world = plog_run_world_size(run);
    R->world = s.world;
    s.net = (wr_net_t){o->model->time, o->model->ctx, o->lat, o->bw,
                       calloc(1, sizeof(wr_net_cache_t))};
    const pnm_model_t *fit = o->model->ctx ? pred_model_fit(o->model) : NULL;
    s.lgp = fit && fit->kind == PNM_LOGGP ? fit : NULL;
    const pred_t *p = o->pred;
    s.pro = (pr_opts_t){p->gamma, p->eager, p->host, p->nhosts < p->world ? p->nhosts : 0,
                        o->model->load};
    if (o->bw != 1 && s.pro.load.per_byte > 0)
        s.pro.load.per_byte /= o->bw;
    plog_err_t rc = PLOG_OK;
    if (p->host && p->nhosts > 0) {
        s.nhosts = p->nhosts;
        s.lout = calloc((size_t)p->nhosts, sizeof(link_t));
        s.lin = calloc((size_t)p->nhosts, sizeof(link_t));
        if (!s.lout || !s.lin) {
            rc = plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET,
                           "out of memory starting the replay");
            goto out;
        }
    }
    R->ranks = calloc((size_t)(s.world > 0 ? s.world : 1), sizeof(*R->ranks));
    R->calls = calloc(WR_NCALLS, sizeof(*R->calls));
    s.rk = calloc((size_t)(s.world > 0 ? s.world : 1), sizeof(*s.rk));
    s.ci = ci_new(run, o->lib);
    if (!R->ranks || !R->calls || !s.rk || !s.ci || !s.net.cache ||
        (o->whole && pred_steps_init(&s.steps, PRED_STEPS, p->host, p->nhosts, p->world) != 0)) {
        rc = plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET,
                       "out of memory starting the replay");
        goto out;
    }
    for (int32_t r = 0; r < s.world; r++) {
        rk_t *k = &s.rk[r];
        R->ranks[r].rank = r;
        k->head = NONE;
        k->coll = NONE;
        if (plog_run_rank(run, r) == NULL) {
            k->state = ST_DONE;
            continue;
        }
        R->ranks[r].present = 1;
        rc = plog_iter_open(run, r, &k->it, err);
        if (rc != PLOG_OK)
            goto out;
        if (grow(&s.heap, &s.cheap, s.nheap + 1, sizeof(heap_ent_t)) != 0) {
            rc = plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET,
                           "out of memory starting the replay");
            goto out;
        }
        s.heap[s.nheap++] = (heap_ent_t){0, (uint32_t)r, (uint32_t)r};
    }
    /* phasor's own probes: their time is the shim's, left out of the ranks' compute */
    rc = wr_probe_spans(run, &s.probe, &s.nprobe, err);
    if (rc != PLOG_OK)
        goto out;
    /* ranks by predicted time: pop the earliest, run a slice, push it back */
    for (;;) {
        while (s.nready > 0) {
            uint32_t r = s.ready[--s.nready];
            s.rk[r].queued = 0;
            if (s.rk[r].state != ST_RUN)
                continue;
            heap_ent_push(s.heap, &s.nheap, (heap_ent_t){(int64_t)s.rk[r].now, r, r});
        }
        if (s.nheap == 0) {
            if (!force_one(&s))
                break;
            continue;
        }
        uint32_t r = heap_ent_pop(s.heap, &s.nheap).val;
        if (s.rk[r].state != ST_RUN)
            continue;
        rc = run_rank(&s, r, err);
        if (rc != PLOG_OK)
            goto out;
        if (s.oom)
            break;
        if (s.rk[r].state == ST_RUN)
            heap_ent_push(s.heap, &s.nheap, (heap_ent_t){(int64_t)s.rk[r].now, r, r});
    }
    if (s.oom) {
        rc = plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET,
                       "out of memory in the replay");
        goto out;
    }
    /* what was left open */
    for (size_t c = 0; c < s.nch; c++)
        for (uint32_t m = s.ch[c].head; m != NONE; m = s.msg[m].next) {
            if (s.ch[c].qsend)
                R->unmatched_sends++;
            else
                R->unmatched_recvs++;
        }
    double t0 = INFINITY, me = -INFINITY, pe = -INFINITY;
    for (size_t i = 0; i < s.nprobe; i++)
        R->probes += s.probe[i].b - s.probe[i].a;
    for (int32_t r = 0; r < s.world; r++) {
        if (!R->ranks[r].present || R->ranks[r].events == 0)
            continue;
        R->ranks[r].m_begin = probe_free(&s, R->ranks[r].m_begin);
        R->ranks[r].m_end = probe_free(&s, R->ranks[r].m_end);
        t0 = fmin(t0, R->ranks[r].m_begin);
        me = fmax(me, R->ranks[r].m_end);
        pe = fmax(pe, R->ranks[r].p_end);
    }
    R->t0 = isfinite(t0) ? t0 : 0;
    R->measured = isfinite(me) ? me - R->t0 : 0;
    R->predicted = isfinite(pe) ? pe - R->t0 : 0;
    R->colls = R->colls_steps + R->colls_priced + R->colls_tail + R->colls_local;
    if (o->path && path_collect(&s) != 0)
        rc = plog_fail(err, PLOG_E_NOMEM, plog_run_path(run), PLOG_NO_OFFSET,
                       "out of memory collecting the critical path");
out:
    st_free(&s);
    return rc;
}

void wr_result_free(wr_result_t *r)
{
    free(r->ranks);
    free(r->calls);
    free(r->path);
    memset(r, 0, sizeof(*r));
}
