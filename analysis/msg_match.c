/* msg_match.c: point-to-point messages matched sender to receiver (msg_match.h). */
#include <stdlib.h>
#include <string.h>

#include "chan_table.h"
#include "hmap.h"
#include "msg_match.h"
#include "vec.h"

#define NONE (-1)

enum { R_DONE = 1, R_MATCHED = 2, R_INCHAN = 4 };

typedef struct side {
    mm_end_t me;
    mm_end_t send;  /* a receive's matched send */
    int32_t chan;   /* a receive's channel once it joined one */
    int32_t next;   /* next in its queue, or in the free list */
    uint32_t state;
} side_t;

typedef struct chan {
    int32_t sh, st, rh, rt; /* sends and receives waiting: head, tail */
} chan_t;

struct mm {
    ct_t ct;                /* the channels' keys */
    chan_t *ch;             /* per channel (ct's numbers) */
    size_t nch, cch;
    side_t *sd;
    size_t nsd, csd;
    int32_t free;
    hmap_t *open;           /* per world rank: request id + 1 -> its receive's side */
    int32_t world;
    mm_counts_t c;
};

mm_t *mm_new(int32_t world)
{
    mm_t *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return NULL;
    m->world = world;
    m->free = NONE;
    ct_init(&m->ct);
    m->open = calloc((size_t)(world > 0 ? world : 1), sizeof(hmap_t));
    if (m->open == NULL) {
        free(m);
        return NULL;
    }
    return m;
}

void mm_free(mm_t *m)
{
    if (m == NULL)
        return;
    ct_free(&m->ct);
    free(m->ch);
    free(m->sd);
    for (int32_t r = 0; r < m->world; r++)
        hmap_free(&m->open[r]);
    free(m->open);
    free(m);
}

void mm_counts(const mm_t *m, mm_counts_t *c, uint64_t *left_sends, uint64_t *left_recvs)
{
    *c = m->c;
    uint64_t ls = 0, lr = 0;
    for (size_t k = 0; k < m->nch; k++) {
        for (int32_t i = m->ch[k].sh; i != NONE; i = m->sd[i].next)
            ls++;
        for (int32_t i = m->ch[k].rh; i != NONE; i = m->sd[i].next)
            lr++;
    }
    if (left_sends)
        *left_sends = ls;
    if (left_recvs)
        *left_recvs = lr;
}

static int32_t chan_get(mm_t *m, int32_t comm, int32_t src, int32_t dst, int32_t tag)
{
    int32_t i = ct_get(&m->ct, comm, src, dst, tag);
    if (i < 0 || VEC_GROW(m->ch, m->cch, m->ct.n) != 0)
        return NONE;
    while (m->nch < m->ct.n) /* a new one */
        m->ch[m->nch++] = (chan_t){NONE, NONE, NONE, NONE};
    return i;
}

static int32_t side_new(mm_t *m, const mm_end_t *me)
{
    int32_t i = m->free;
    if (i != NONE) {
        m->free = m->sd[i].next;
    } else {
        if (m->nsd >= INT32_MAX || VEC_GROW(m->sd, m->csd, m->nsd + 1) != 0)
            return NONE;
        i = (int32_t)m->nsd++;
    }
    m->sd[i] = (side_t){.me = *me, .chan = NONE, .next = NONE};
    if (++m->c.in_flight > m->c.peak)
        m->c.peak = m->c.in_flight;
    return i;
}

static void side_free(mm_t *m, int32_t i)
{
    m->sd[i].next = m->free;
    m->free = i;
    m->c.in_flight--;
}

static int hand_over(mm_t *m, int32_t ri, mm_fn fn, void *arg)
{
    const side_t *r = &m->sd[ri];
    const ct_key_t *c = &m->ct.key[r->chan];
    mm_msg_t msg = {c->comm, c->src, c->dst, c->tag, r->send, r->me};
    m->c.matched++;
    side_free(m, ri);
    return fn(arg, &msg);
}

/* Pair the heads of channel ci's queues while both have one. */
static int chan_pair(mm_t *m, int32_t ci, mm_fn fn, void *arg)
{
    for (;;) {
        chan_t *c = &m->ch[ci];
        if (c->sh == NONE || c->rh == NONE)
            return 0;
        int32_t si = c->sh, ri = c->rh;
        if ((c->sh = m->sd[si].next) == NONE)
            c->st = NONE;
        if ((c->rh = m->sd[ri].next) == NONE)
            c->rt = NONE;
        side_t *r = &m->sd[ri];
        r->send = m->sd[si].me;
        r->state |= R_MATCHED;
        side_free(m, si);
        if (r->state & R_DONE) {
            int rc = hand_over(m, ri, fn, arg);
            if (rc != 0)
                return rc;
        }
    }
}

static void enqueue(mm_t *m, int32_t i, int32_t *head, int32_t *tail)
{
    m->sd[i].next = NONE;
    if (*tail != NONE)
        m->sd[*tail].next = i;
    else
        *head = i;
    *tail = i;
}

static int send_post(mm_t *m, const plog_rec_t *e, int32_t comm, int32_t dst, int32_t tag,
                     uint64_t bytes, mm_fn fn, void *arg)
{
    if (dst < 0 || dst == e->rank || tag < 0)
        return 0; /* MPI_PROC_NULL, an unknown rank, or to itself: no message */
    m->c.sends++;
    int32_t ci = chan_get(m, comm, e->rank, dst, tag);
    mm_end_t me = {e->start_ns, e->start_ns, e->end_ns, bytes, e->rank, e->thread, 0};
    int32_t si = ci == NONE ? NONE : side_new(m, &me);
    if (si == NONE)
        return -1;
    chan_t *c = &m->ch[ci];
    enqueue(m, si, &c->sh, &c->st);
    return chan_pair(m, ci, fn, arg);
}

/* Receive ri joins channel (comm, src, its rank, tag). */
static int recv_join(mm_t *m, int32_t ri, int32_t comm, int32_t src, int32_t tag, mm_fn fn,
                     void *arg)
{
    int32_t ci = chan_get(m, comm, src, m->sd[ri].me.rank, tag);
    if (ci == NONE)
        return -1;
    m->sd[ri].chan = ci;
    m->sd[ri].state |= R_INCHAN;
    chan_t *c = &m->ch[ci];
    enqueue(m, ri, &c->rh, &c->rt);
    return chan_pair(m, ci, fn, arg);
}

/* Receive ri completed by event e. */
static int recv_done(mm_t *m, int32_t ri, const plog_rec_t *e, int32_t comm,
                     const plog_rstatus_t *st, uint32_t flags, mm_fn fn, void *arg)
{
    side_t *r = &m->sd[ri];
    r->state |= R_DONE;
    r->me.start = e->start_ns;
    r->me.end = e->end_ns;
    r->me.thread = e->thread;
    r->me.flags |= flags;
    if (st->bytes != PLOG_BYTES_UNKNOWN)
        r->me.bytes = st->bytes;
    m->c.recvs++;
    if (!(r->state & R_INCHAN))
        return recv_join(m, ri, comm, st->source, st->tag, fn, arg);
    if (r->state & R_MATCHED)
        return hand_over(m, ri, fn, arg);
    return 0;
}

/* A status names a message that came from another rank. */
static int from_peer(const plog_rec_t *e, const plog_rstatus_t *st)
{
    return !st->cancelled && st->source >= 0 && st->source != e->rank && st->tag >= 0;
}

static int blocking_recv(mm_t *m, const plog_rec_t *e, mm_fn fn, void *arg)
{
    if (e->n_status == 0 || !from_peer(e, &e->status[0])) {
        if (e->n_status > 0 && e->status[0].source != e->rank && e->status[0].source != PLOG_PROC_NULL)
            m->c.skipped_recvs++;
        return 0;
    }
    mm_end_t me = {e->start_ns, e->start_ns, e->end_ns, e->rbytes, e->rank, e->thread, 0};
    int32_t ri = side_new(m, &me);
    if (ri == NONE)
        return -1;
    return recv_done(m, ri, e, e->comm, &e->status[0], (e->flags & PLOG_F_MESSAGE) ? MM_PROBED : 0,
                     fn, arg);
}

/* A nonblocking receive posted (Irecv, Imrecv, or a persistent one started): id its request. */
static int recv_post(mm_t *m, const plog_rec_t *e, uint64_t id, int32_t comm, int32_t peer,
                     int32_t tag, uint64_t bytes, int probed, mm_fn fn, void *arg)
{
    if (id == 0 || e->rank < 0 || e->rank >= m->world || peer == PLOG_PROC_NULL ||
        (peer >= 0 && peer == e->rank))
        return 0;
    mm_end_t me = {e->start_ns, e->start_ns, e->end_ns, bytes, e->rank, e->thread,
                   probed ? MM_PROBED : 0};
    int32_t ri = side_new(m, &me);
    if (ri == NONE || hmap_set(&m->open[e->rank], id + 1, (uint64_t)ri) != 0)
        return -1;
    if (!probed && peer >= 0 && tag >= 0)
        return recv_join(m, ri, comm, peer, tag, fn, arg);
    return 0;
}

static int completion(mm_t *m, const plog_rec_t *e, mm_fn fn, void *arg)
{
    if (e->rank < 0 || e->rank >= m->world)
        return 0;
    uint32_t flags = strncmp(e->call_name, "MPI_Wait", 8) == 0 ? 0 : MM_TESTED;
    for (uint32_t k = 0; k < e->n_status; k++) {
        const plog_rstatus_t *st = &e->status[k];
        if (st->start == NULL ||
            (st->start->cls != PLOG_CLASS_IRECV && st->start->cls != PLOG_CLASS_PRECV_INIT))
            continue;
        size_t slot = hmap_find(&m->open[e->rank], st->request + 1);
        if (slot == SIZE_MAX) {
            m->c.skipped_recvs++; /* its start was not seen (or was no message) */
            continue;
        }
        int32_t ri = (int32_t)m->open[e->rank].vals[slot];
        hmap_del_at(&m->open[e->rank], slot);
        if (!from_peer(e, st)) {
            m->c.skipped_recvs++;
            if (m->sd[ri].state & R_INCHAN) {
                /* cancelled after joining its channel: it takes no message; unlink it */
                chan_t *c = &m->ch[m->sd[ri].chan];
                int32_t prev = NONE;
                for (int32_t i = c->rh; i != NONE; prev = i, i = m->sd[i].next)
                    if (i == ri) {
                        if (prev == NONE)
                            c->rh = m->sd[i].next;
                        else
                            m->sd[prev].next = m->sd[i].next;
                        if (c->rt == ri)
                            c->rt = prev;
                        break;
                    }
                if (m->sd[ri].state & R_MATCHED)
                    continue; /* a matched one cannot have been cancelled; keep it safe */
            }
            side_free(m, ri);
            continue;
        }
        int rc = recv_done(m, ri, e, st->start->comm, st, flags, fn, arg);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int mm_event(mm_t *m, const plog_rec_t *e, mm_fn fn, void *arg)
{
    if (e->rc != 0)
        return 0;
    switch (e->cls) {
    case PLOG_CLASS_SEND:
    case PLOG_CLASS_ISEND: return send_post(m, e, e->comm, e->peer, e->tag, e->bytes, fn, arg);
    case PLOG_CLASS_SENDRECV: {
        int rc = send_post(m, e, e->comm, e->peer, e->tag, e->bytes, fn, arg);
        return rc != 0 ? rc : blocking_recv(m, e, fn, arg);
    }
    case PLOG_CLASS_RECV: return blocking_recv(m, e, fn, arg);
    case PLOG_CLASS_IRECV:
        return recv_post(m, e, e->request, e->comm, e->peer, e->tag, e->rbytes,
                         (e->flags & PLOG_F_MESSAGE) != 0, fn, arg);
    case PLOG_CLASS_START: {
        /* Start names one request (e->request, e->req); Startall names its handles */
        uint32_t n = e->n_handles ? e->n_handles : e->req != NULL;
        for (uint32_t k = 0; k < n; k++) {
            const plog_reqinfo_t *s = e->n_handles ? e->handles[k].start : e->req;
            uint64_t id = e->n_handles ? e->handles[k].id : e->request;
            int rc = 0;
            if (s == NULL)
                continue;
            if (s->cls == PLOG_CLASS_PSEND_INIT)
                rc = send_post(m, e, s->comm, s->peer, s->tag, s->bytes, fn, arg);
            else if (s->cls == PLOG_CLASS_PRECV_INIT)
                rc = recv_post(m, e, id, s->comm, s->peer, s->tag, s->rbytes, 0, fn, arg);
            if (rc != 0)
                return rc;
        }
        return 0;
    }
    case PLOG_CLASS_COMPLETE: return completion(m, e, fn, arg);
    default: return 0;
    }
}
