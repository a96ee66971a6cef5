/* plog_rd_rec.c: building a record from a decoded event: the fields as recorded, aligned
 * times, the communicator and world ranks, the extras (posted source, handles, statuses, byte
 * lists, new communicator, datatype sizes and op, a run of polls' count and time inside
 * them), and the linking of requests: starts get ids, completions find the starts they
 * complete (req_, plog_rd_req.c). Runs once per event: no memset of the record, no call on
 * the common path that can be avoided. */
#include "plog_rd.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec_parts { /* an event's extras, split by its flags */
    int has_recvspec, has_newcomm, has_collinfo, has_polls;
    uint64_t recvspec, newcomm, collinfo[2], polls[2];
    const uint64_t *handles, *status, *vsend, *vrecv;
    const uint64_t *before; /* RENEWED: the handles before the Start(all), nh of them */
    uint32_t nh, ns, nvs, nvr;
} rec_parts_t;

/* Count a warning of category c about r; the first is described as "thread T, CALL at N ns"
 * followed by what fmt (may be NULL) adds. */
static void rec_warn(rstream_t *s, enum stream_wcat c, const plog_rec_t *r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));
static void rec_warn(rstream_t *s, enum stream_wcat c, const plog_rec_t *r, const char *fmt, ...)
{
    assert((unsigned)c < W__COUNT);
    if (s->wcount[c] != 0) {
        s->wcount[c]++;
        return;
    }
    char buf[sizeof(s->wfirst[0])];
    int n = snprintf(buf, sizeof(buf), "thread %u, %s at %lld ns", r->thread, r->call_name,
                     (long long)r->start_ns);
    if (fmt != NULL && n >= 0 && (size_t)n < sizeof(buf)) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
        va_end(ap);
    }
    stream_warn(s, c, "%s", buf);
}

/* Rank v of lc as a world rank, counting the ones that cannot be translated. */
static inline int32_t rec_xlate(rstream_t *s, const plog_rec_t *r, const plog_lcomm_t *lc,
                                int inter, int32_t v, const char *what)
{
    int32_t w = comm_world(lc, inter, v);
    if (__builtin_expect(w == PLOG_R_BADRANK, 0) && (lc != NULL || r->comm == 0))
        rec_warn(s, W_BADRANK, r, ": %s %d in communicator %d of size %u", what, (int)v,
                 (int)r->comm, lc ? (inter ? lc->n_remote : lc->n_local) : 0);
    return w;
}

/* Split the extras by the flags the rank's format defines (fmask; order: RECVSPEC, HANDLES,
 * STATUS, VSEND, VRECV, NEWCOMM, COLLINFO, POLLS). With PLOG_F_TRUNCATED the shim may have cut
 * lists short; without it every word must be accounted for. -1: they do not match; -2: a run
 * of fewer than two polls. */
static int rec_parse_extras(const plog_event_t *ev, const uint64_t *x, rec_parts_t *p,
                            uint16_t fmask)
{
    /* field by field: a memset here compiled to rep stos, slow to start, once per event */
    p->has_recvspec = p->has_newcomm = p->has_collinfo = p->has_polls = 0;
    p->handles = p->status = p->vsend = p->vrecv = p->before = NULL;
    p->nh = p->ns = p->nvs = p->nvr = 0;
    uint16_t f = ev->flags & fmask;
    if (ev->nextra == 0)
        return f & PLOG_EXTRAS_FLAGS ? ((f & PLOG_F_TRUNCATED) ? 0 : -1) : 0;
    uint32_t n = ev->nextra, i = 0;
    int cut = (f & PLOG_F_TRUNCATED) != 0;
    if (f & PLOG_F_RECVSPEC) {
        if (i == n)
            return cut ? 0 : -1;
        p->recvspec = x[i++];
        p->has_recvspec = 1;
    }
    static const uint16_t lists[4] = {PLOG_F_HANDLES, PLOG_F_STATUS, PLOG_F_VSEND, PLOG_F_VRECV};
    for (int l = 0; l < 4; l++) {
        if (!(f & lists[l]))
            continue;
        if (i == n)
            return cut ? 0 : -1;
        uint64_t k = x[i++];
        uint64_t per = lists[l] == PLOG_F_STATUS ? PLOG_STATUS_WORDS : 1;
        if (k > (n - i) / per) {
            if (!cut)
                return -1;
            k = (n - i) / per;
        }
        const uint64_t *base = x + i;
        i += (uint32_t)(k * per);
        switch (lists[l]) {
        case PLOG_F_HANDLES: p->handles = base; p->nh = (uint32_t)k; break;
        case PLOG_F_STATUS: p->status = base; p->ns = (uint32_t)k; break;
        case PLOG_F_VSEND: p->vsend = base; p->nvs = (uint32_t)k; break;
        default: p->vrecv = base; p->nvr = (uint32_t)k; break;
        }
    }
    if ((f & PLOG_F_RENEWED) && p->handles != NULL) { /* after, then before: never cut */
        if (p->nh % 2 != 0 && !cut)
            return -1;
        if (p->nh % 2 == 0) {
            p->nh /= 2;
            p->before = p->handles + p->nh;
        }
    }
    if (f & PLOG_F_NEWCOMM) {
        if (i == n)
            return cut ? 0 : -1;
        p->newcomm = x[i++];
        p->has_newcomm = 1;
    }
    if (f & PLOG_F_COLLINFO) {
        if (n - i < PLOG_COLLINFO_WORDS)
            return cut ? 0 : -1;
        p->collinfo[0] = x[i++];
        p->collinfo[1] = x[i++];
        p->has_collinfo = 1;
    }
    if (f & PLOG_F_POLLS) {
        if (n - i < PLOG_POLLS_WORDS)
            return cut ? 0 : -1;
        p->polls[0] = x[i++];
        p->polls[1] = x[i++];
        if (p->polls[0] < 2)
            return -2;
        p->has_polls = 1;
    }
    return i == n ? 0 : -1;
}

static void rec_info(const plog_rec_t *r, uint64_t id, plog_reqinfo_t *inf)
{
    /* one assignment (padding included), often into a reused table entry */
    *inf = (plog_reqinfo_t){.id = id, .def_id = 0, .call = r->call, .cls = (uint16_t)r->cls,
                            .comm = r->comm, .peer = r->peer, .tag = r->tag, .root = r->root,
                            .bytes = r->bytes, .rbytes = r->rbytes, .start_ns = r->start_ns,
                            .end_ns = r->end_ns};
}

static int rec_cmp_stord(const void *a, const void *b)
{
    const stream_stord_t *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* For an event with several statuses: their positions in index order (s->ord). */
static int rec_order_statuses(rstream_t *s, const rec_parts_t *p)
{
    if (p->ns <= 1)
        return 0;
    if (p->ns > s->ordcap && VEC_GROW(s->ord, s->ordcap, p->ns) != 0) /* no call per event */
        return -1;
    for (uint32_t i = 0; i < p->ns; i++)
        s->ord[i] = (stream_stord_t){p->status[(size_t)i * PLOG_STATUS_WORDS + 3], i};
    if (p->ns > 16) {
        qsort(s->ord, p->ns, sizeof(*s->ord), rec_cmp_stord);
        return 0;
    }
    /* a few statuses (the usual Waitall), mostly in order already: qsort's call overhead
     * showed in profiles; the keys are distinct, so any sort gives the same order */
    for (uint32_t i = 1; i < p->ns; i++) {
        stream_stord_t v = s->ord[i];
        uint32_t j = i;
        for (; j > 0 && rec_cmp_stord(&s->ord[j - 1], &v) > 0; j--)
            s->ord[j] = s->ord[j - 1];
        s->ord[j] = v;
    }
    return 0;
}

/* Decode a status entry's words (source left to the caller, which knows the communicator). */
static int32_t rec_status_fill(plog_rstatus_t *st, const uint64_t *w)
{
    memset(st, 0, sizeof(*st)); /* padding too: consumers may hash or compare statuses */
    st->handle = w[0];
    st->tag = plog_extras_lo(w[1]);
    st->cancelled = (w[2] & PLOG_STATUS_CANCELLED) != 0;
    uint64_t b = w[2] & ~PLOG_STATUS_CANCELLED;
    st->bytes = b == PLOG_BYTES_UNKNOWN ? PLOG_BYTES_UNKNOWN : b;
    st->index = w[3];
    return plog_extras_hi(w[1]);
}

static int rec_is_recv(int cls)
{
    return cls == PLOG_CLASS_IRECV || cls == PLOG_CLASS_PRECV_INIT || cls == PLOG_CLASS_RECV ||
           cls == PLOG_CLASS_SENDRECV || cls == PLOG_CLASS_PROBE;
}

/* ==== the record's fields ================================================================ */

/* The fields as recorded, and the aligned times. Every field is assigned, no memset:
 * zero-filling the ~220-byte record per event (rep stos) was the reader's largest single
 * cost. Communicator, ranks and lists are left to the steps after. */
static inline plog_err_t rec_fill_recorded(rstream_t *s, const tstream_t *t,
                                           const plog_event_t *ev, uint8_t cinfo,
                                           plog_error_t *err)
{
    const plog_run_t *run = s->run;
    plog_rec_t *r = &s->rec;
    r->rank = s->rk->rank;
    r->thread = t->thread;
    r->call = ev->call;
    r->call_name = cinfo ? run->call_name[ev->call] : "unknown";
    r->cls = cinfo ? cinfo - 1 : PLOG_CLASS_OTHER;
    r->flags = ev->flags;
    if ((ev->t_start | ev->t_end) >> 62) /* 146 years of CLOCK_MONOTONIC; doc/log-format.md */
        return stream_error(s, PLOG_E_CORRUPT, t->frame_off, err,
                            "an event time past 2^62 ns");
    if (ev->t_end < ev->t_start) /* one monotonic clock read twice */
        return stream_error(s, PLOG_E_CORRUPT, t->frame_off, err,
                            "an event that ends before it starts");
    clock_align2(&s->rk->clock, run->time_ref, &s->clk, ev->t_start, ev->t_end, &r->start_ns,
                 &r->end_ns);
    r->t_start = ev->t_start;
    r->t_end = ev->t_end;
    r->local_comm = ev->comm;
    r->tag = ev->tag;
    r->bytes = ev->bytes;
    r->rbytes = ev->rbytes;
    r->rc = ev->rc;
    r->callsite = ev->callsite;
    r->handle = ev->request;
    r->request = 0;
    r->req = NULL;
    r->message = 0;
    r->frame_offset = t->frame_off;
    if (!cinfo)
        stream_warn(s, W_UNKNOWN_CALL, "thread %u, call id %u at %lld ns", t->thread, ev->call,
                    (long long)r->start_ns);
    if (ev->flags & PLOG_F_TRUNCATED)
        rec_warn(s, W_CUT, r, NULL);
    return PLOG_OK;
}

/* The event's communicator (NULL: none or unknown), and r->comm. */
static inline const plog_lcomm_t *rec_comm(rstream_t *s, const plog_event_t *ev, plog_rec_t *r)
{
    if (ev->comm == PLOG_COMM_NONE) {
        r->comm = 0;
        return NULL;
    }
    if (ev->comm == PLOG_COMM_UNKNOWN) {
        r->comm = PLOG_R_COMM_UNKNOWN;
        rec_warn(s, W_UNKNOWN_COMM, r, NULL);
        return NULL;
    }
    const plog_lcomm_t *lc = s->lc_cache != NULL && s->lc_cache->local_id == ev->comm
                                 ? s->lc_cache
                                 : comm_find(s->rk, ev->comm);
    if (lc == NULL) {
        r->comm = PLOG_R_COMM_UNKNOWN;
        rec_warn(s, W_UNDEF_COMM, r, ", communicator id %u", ev->comm);
        return NULL;
    }
    r->comm = lc->gid;
    s->lc_cache = lc;
    return lc;
}

/* Matched probes: Mprobe/Improbe name a message handle h, Mrecv/Imrecv (which have no
 * communicator argument) consume it; the message carries its communicator across.
 * -1: out of memory. */
static int rec_message(rstream_t *s, const plog_event_t *ev, uint64_t h, plog_rec_t *r,
                       const plog_lcomm_t **lc, int *inter)
{
    if (r->cls == PLOG_CLASS_PROBE) {
        r->message = s->next_msg_id++;
        return req_msg_put(&s->req, h, *lc, *inter, r->message);
    }
    const plog_lcomm_t *mlc;
    int minter;
    if (req_msg_take(&s->req, h, &r->message, &mlc, &minter) && ev->comm == PLOG_COMM_NONE &&
        mlc != NULL) {
        *lc = mlc;
        *inter = minter;
        r->comm = mlc->gid;
    }
    return 0;
}

/* Peer, root and the posted source as world ranks. */
static inline void rec_fill_ranks(rstream_t *s, plog_rec_t *r, const plog_event_t *ev,
                                  const rec_parts_t *p, const plog_lcomm_t *lc, int inter)
{
    r->lcomm = lc;
    r->peer = rec_xlate(s, r, lc, inter, ev->peer, "peer");
    r->root = rec_xlate(s, r, lc, inter, ev->root, "root");
    if (p->has_recvspec) {
        r->recv_source = rec_xlate(s, r, lc, inter, plog_extras_hi(p->recvspec),
                                   "posted source");
        r->recv_tag = plog_extras_lo(p->recvspec);
    } else {
        r->recv_source = r->recv_tag = PLOG_NONE;
    }
}

/* The communicator the call created, as a global id. */
static inline void rec_fill_newcomm(rstream_t *s, plog_rec_t *r, const plog_event_t *ev,
                                    const rec_parts_t *p)
{
    r->newcomm = 0;
    if (!(ev->flags & PLOG_F_NEWCOMM))
        return;
    r->newcomm = PLOG_R_COMM_UNKNOWN;
    if (p->has_newcomm && p->newcomm == PLOG_COMM_NONE) {
        r->newcomm = 0;
    } else if (p->has_newcomm) {
        const plog_lcomm_t *nc =
            p->newcomm <= UINT32_MAX ? comm_find(s->rk, (uint32_t)p->newcomm) : NULL;
        if (nc != NULL)
            r->newcomm = nc->gid;
        else
            rec_warn(s, W_NEWCOMM, r, ", communicator id %llu", (unsigned long long)p->newcomm);
    }
}

/* The calls the record stands for and their time inside MPI: one call and its duration, or a
 * run of unsuccessful polls (PLOG_F_POLLS, defined when polls says so): n calls and the time
 * inside them (no more than the span; a run whose words the shim cut counts as the two calls
 * it stands for at least, its span inside). */
static inline void rec_fill_polls(rstream_t *s, plog_rec_t *r, const rec_parts_t *p, int polls,
                                  uint8_t cflags)
{
    uint64_t span = r->t_end - r->t_start;
    r->ncalls = 1;
    r->inside_ns = span;
    if (__builtin_expect(!polls, 1))
        return;
    if (!(cflags & CALLF_POLL)) { /* a call that cannot poll: one call, as it could only be */
        rec_warn(s, W_POLLS, r, NULL);
        return;
    }
    r->ncalls = 2;
    if (p->has_polls) {
        r->ncalls = p->polls[0];
        r->inside_ns = p->polls[1] < span ? p->polls[1] : span;
    }
    if ((r->flags & PLOG_F_FLAG_TRUE) || r->rc != 0)
        rec_warn(s, W_POLLS, r, NULL);
}

/* Byte lists, datatype sizes and the op. */
static inline void rec_fill_lists(plog_rec_t *r, const rec_parts_t *p)
{
    r->n_vsend = p->nvs;
    r->vsend = p->vsend;
    r->n_vrecv = p->nvr;
    r->vrecv = p->vrecv;
    if (p->has_collinfo) {
        r->stype_size = (uint32_t)p->collinfo[0];
        r->rtype_size = (uint32_t)(p->collinfo[0] >> 32);
        r->op = (uint16_t)(p->collinfo[1] & PLOG_COLLINFO_OP_MASK);
        r->op_commutative = (p->collinfo[1] & PLOG_OP_COMMUTATIVE) != 0;
    } else {
        r->stype_size = r->rtype_size = 0;
        r->op = 0;
        r->op_commutative = 0;
    }
}

/* Room for the handles, statuses and the starts they link to; the handles as recorded.
 * -1: out of memory. */
static inline int rec_fill_handles(rstream_t *s, plog_rec_t *r, const rec_parts_t *p)
{
    if (__builtin_expect((p->nh | p->ns) != 0 || s->iv == NULL, 0) && /* else room for 1 */
        ((size_t)p->nh + 1 > s->hcap || (size_t)p->ns + 1 > s->scap ||
         (size_t)p->nh + p->ns + 1 > s->icap) &&
        (VEC_GROW(s->hv, s->hcap, (size_t)p->nh + 1) != 0 ||
         VEC_GROW(s->sv, s->scap, (size_t)p->ns + 1) != 0 ||
         VEC_GROW(s->iv, s->icap, (size_t)p->nh + p->ns + 1) != 0))
        return -1;
    r->n_handles = p->nh;
    r->handles = s->hv;
    r->n_status = p->ns;
    r->status = s->sv;
    for (uint32_t i = 0; i < p->nh; i++)
        s->hv[i] = (plog_rreq_t){p->handles[i], 0, NULL};
    return 0;
}

/* Statuses of blocking receives and probes: the source is a rank in the event's comm. */
static void rec_blocking_statuses(rstream_t *s, plog_rec_t *r, const rec_parts_t *p,
                                  const plog_lcomm_t *lc, int inter)
{
    for (uint32_t i = 0; i < p->ns; i++) {
        plog_rstatus_t *st = &s->sv[i];
        int32_t src = rec_status_fill(st, p->status + (size_t)i * PLOG_STATUS_WORDS);
        st->source = rec_xlate(s, r, lc, inter, src, "status source");
        if (st->cancelled) { /* no request: nothing to cancel */
            rec_warn(s, W_CANCEL, r, NULL);
            st->cancelled = 0;
        }
    }
}

/* ==== linking requests, in this rank's time order ======================================== */

/* Send_init/Recv_init: a persistent definition. */
static __attribute__((noinline)) plog_err_t
rec_link_persistent(rstream_t *s, const tstream_t *t, const plog_event_t *ev, plog_rec_t *r,
                    const plog_lcomm_t *lc, int inter, plog_error_t *err)
{
    if (ev->request == 0)
        return PLOG_OK;
    rec_info(r, s->next_id++, &s->rinfo);
    if (req_pers_put(&s->req, ev->request, lc, inter, ev->t_end, r->thread, &s->rinfo) != 0)
        return stream_error(s, PLOG_E_NOMEM, t->frame_off, err, "request table");
    r->request = s->rinfo.id;
    r->req = &s->rinfo;
    return PLOG_OK;
}

/* A Start of persistent handle h: a new instance, its info in *out; its id, 0 when h has no
 * definition (or out of memory). */
static uint64_t rec_start_instance(rstream_t *s, const plog_rec_t *r, uint64_t h,
                                   uint64_t t_end, plog_reqinfo_t *out)
{
    const req_ent_t *def = req_pers_get(&s->req, h);
    if (def == NULL) {
        rec_warn(s, W_START_NODEF, r, ", handle 0x%llx", (unsigned long long)h);
        return 0;
    }
    plog_reqinfo_t inf = def->info;
    inf.def_id = def->info.id;
    inf.id = s->next_id++;
    inf.start_ns = r->start_ns;
    inf.end_ns = r->end_ns;
    if (!s->nolink) {
        plog_reqinfo_t *q = req_open_new(&s->req, h, def->lc, def->inter, t_end, r->thread);
        if (q == NULL)
            return 0;
        *q = inf;
    }
    *out = inf;
    return inf.id;
}

/* MPI gave the persistent request `before` the handle `after` inside a Start: its
 * definition goes by the new handle from now on (the old one is the library's again). */
static void rec_renew(rstream_t *s, uint64_t before, uint64_t after)
{
    const req_ent_t *def = req_pers_get(&s->req, before);
    if (def == NULL || after == 0)
        return; /* the start then names no definition, and says so */
    const req_ent_t e = *def;
    req_pers_drop(&s->req, before);
    (void)req_pers_put(&s->req, after, e.lc, e.inter, e.t_end, e.thread, &e.info);
}

/* Start/Startall: an instance of each persistent request named, under the handle it has
 * after the call. */
static __attribute__((noinline)) void
rec_link_start(rstream_t *s, const plog_event_t *ev, plog_rec_t *r, const rec_parts_t *p)
{
    if (p->nh == 0) {
        if (ev->request != 0 &&
            (r->request = rec_start_instance(s, r, ev->request, ev->t_end, &s->rinfo)) != 0)
            r->req = &s->rinfo;
        return;
    }
    size_t ni = 0;
    for (uint32_t i = 0; i < p->nh; i++) {
        if (p->handles[i] == 0)
            continue;
        if (p->before != NULL && p->before[i] != p->handles[i])
            rec_renew(s, p->before[i], p->handles[i]);
        uint64_t id = rec_start_instance(s, r, p->handles[i], ev->t_end, &s->iv[ni]);
        if (id != 0) {
            s->hv[i].id = id;
            s->hv[i].start = &s->iv[ni++];
        }
    }
    if (ev->call == PLOG_CALL_MPI_Start && p->nh == 1 && s->hv[0].start != NULL) {
        r->request = s->hv[0].id; /* a renewed Start: its one instance */
        r->req = s->hv[0].start;
    }
}

/* Request_free ends the request (and a persistent definition); Cancel and
 * Grequest_complete only name it. */
static __attribute__((noinline)) void
rec_link_free(rstream_t *s, const plog_event_t *ev, plog_rec_t *r, uint8_t cflags)
{
    if (ev->request == 0)
        return;
    req_tab_t *q = &s->req;
    if (s->nolink) { /* only persistent definitions are kept */
        const req_ent_t *def = req_pers_get(q, ev->request);
        if (def != NULL) {
            s->rinfo = def->info;
            r->request = s->rinfo.id;
            r->req = &s->rinfo;
            if (!(cflags & (CALLF_CANCEL | CALLF_NAMES)))
                req_pers_drop(q, ev->request);
        }
        return;
    }
    size_t slot;
    q->serial++; /* an event of its own: before the rank's first completion every entry's
                  * picked (0) would equal the serial and count as named already */
    uint32_t k = req_open_choose(q, ev->request, ev->t_start, r->thread, 0, &slot);
    const req_ent_t *def = req_pers_get(q, ev->request);
    if (k != REQ_NONE || def != NULL) {
        s->rinfo = k != REQ_NONE ? q->pool[k].info : def->info;
        r->request = s->rinfo.id;
        r->req = &s->rinfo;
    } else {
        rec_warn(s, W_UNMATCHED, r, ", handle 0x%llx", (unsigned long long)ev->request);
    }
    if (cflags & CALLF_CANCEL) {
        if (k != REQ_NONE)
            q->pool[k].cancelled = 1;
    } else if (!(cflags & CALLF_NAMES)) {
        if (k != REQ_NONE)
            req_open_close_at(q, k, slot);
        req_pers_drop(q, ev->request);
    }
}

/* The completion's inputs (a failed Waitall's array, Wait's request): named, not closed;
 * each position its own start even when a handle repeats. After a failure the library may
 * have ended them anyway: they become uncertain (see req_open_new). Returns the entry of
 * the call's own request (REQ_NONE: none). */
static uint32_t rec_complete_inputs(rstream_t *s, const plog_event_t *ev, plog_rec_t *r,
                                    const rec_parts_t *p)
{
    req_tab_t *q = &s->req;
    q->serial++;
    for (uint32_t i = 0; i < p->nh; i++) {
        size_t slot;
        uint32_t k = req_open_choose(q, p->handles[i], ev->t_start, r->thread, 1, &slot);
        if (k != REQ_NONE) {
            q->pool[k].picked = q->serial;
            q->pool[k].uncertain |= ev->rc != 0;
            s->hv[i].id = q->pool[k].info.id;
            s->hv[i].start = &q->pool[k].info; /* completions add no entries: stays */
        }
    }
    size_t slot;
    uint32_t k = req_open_choose(q, ev->request, ev->t_start, r->thread, 0, &slot);
    if (k != REQ_NONE) {
        q->pool[k].uncertain |= ev->rc != 0;
        r->request = q->pool[k].info.id;
        r->req = &q->pool[k].info;
    }
    return k;
}

/* Source, tag and bytes of status st (source src as recorded) completing start e. */
static void rec_status_of(rstream_t *s, const plog_rec_t *r, plog_rstatus_t *st, int32_t src,
                          const req_ent_t *e)
{
    if (rec_is_recv(e->info.cls) && e->info.peer == PLOG_PROC_NULL) {
        if (src != PLOG_PROC_NULL || st->tag != PLOG_ANY_TAG || st->bytes != 0)
            rec_warn(s, W_PROCNULL, r, ", request %llu: %d:%d:%llu",
                     (unsigned long long)e->info.id, (int)src, (int)st->tag,
                     (unsigned long long)st->bytes);
        st->source = PLOG_PROC_NULL; /* MPI 3.1 sec. 3.11: the empty status */
        st->tag = PLOG_ANY_TAG;
        st->bytes = 0;
    } else if (rec_is_recv(e->info.cls)) {
        st->source = rec_xlate(s, r, e->lc, e->inter, src, "status source");
    } else { /* MPI leaves a send's or a collective's status undefined */
        st->source = PLOG_NONE;
        st->tag = PLOG_NONE;
        st->bytes = PLOG_BYTES_UNKNOWN;
    }
}

/* Each status names the request it completed (a lone status of a single-request call may
 * leave the handle 0: it is the call's request). Taken in index order; the array calls take
 * starts sharing a handle in posting order (see req_open_choose). -1: out of memory. */
static int rec_complete_statuses(rstream_t *s, const plog_event_t *ev, plog_rec_t *r,
                                 const rec_parts_t *p, uint8_t cflags)
{
    req_tab_t *q = &s->req;
    q->serial++;
    if (rec_order_statuses(s, p) != 0)
        return -1;
    for (uint32_t j = 0; j < p->ns; j++) {
        uint32_t i = p->ns > 1 ? s->ord[j].pos : j;
        plog_rstatus_t *st = &s->sv[i];
        int32_t src = rec_status_fill(st, p->status + (size_t)i * PLOG_STATUS_WORDS);
        if (st->handle == 0 && p->ns == 1)
            st->handle = ev->request;
        size_t slot;
        uint32_t k = req_open_choose(q, st->handle, ev->t_start, r->thread,
                                     (cflags & CALLF_ARRAY) != 0, &slot);
        if (k == REQ_NONE) {
            st->source = comm_world(NULL, 0, src); /* specials pass, else bad */
            if (st->handle != 0 && req_pers_get(q, st->handle) == NULL)
                rec_warn(s, W_UNMATCHED, r, ", handle 0x%llx", (unsigned long long)st->handle);
            continue;
        }
        req_ent_t *e = &q->pool[k];
        st->start = &e->info; /* closed entries keep their info until reused */
        st->request = e->info.id;
        if (st->cancelled && !e->cancelled) {
            rec_warn(s, W_CANCEL, r, ", request %llu", (unsigned long long)e->info.id);
            st->cancelled = 0; /* only MPI_Cancel can cancel */
        }
        rec_status_of(s, r, st, src, e);
        if (!(cflags & CALLF_GETSTATUS))
            req_open_close_at(q, k, slot);
        else
            e->picked = q->serial;
    }
    return 0;
}

/* No statuses recorded: Wait/Test closes its request (entry k), Waitall/Testall all. */
static void rec_complete_unrecorded(rstream_t *s, const plog_event_t *ev, const plog_rec_t *r,
                                    const rec_parts_t *p, uint8_t cflags, uint32_t k)
{
    req_tab_t *q = &s->req;
    if (k != REQ_NONE)
        req_open_close_at(q, k, SIZE_MAX);
    else if (ev->request != 0 && req_pers_get(q, ev->request) == NULL)
        rec_warn(s, W_UNMATCHED, r, ", handle 0x%llx", (unsigned long long)ev->request);
    if (cflags & CALLF_ALL)
        for (uint32_t i = 0; i < p->nh; i++) {
            size_t slot;
            uint32_t c = req_open_choose(q, p->handles[i], ev->t_start, r->thread, 1, &slot);
            if (c != REQ_NONE)
                req_open_close_at(q, c, slot);
        }
}

/* Wait/Test families (not under PLOG_ITER_NOLINK). The request linkers but the common new
 * start are kept out of rec_build's body: the per-event path stays short. */
static __attribute__((noinline)) plog_err_t
rec_link_complete(rstream_t *s, const tstream_t *t, const plog_event_t *ev, plog_rec_t *r,
                  const rec_parts_t *p, uint8_t cflags, plog_error_t *err)
{
    uint32_t k = rec_complete_inputs(s, ev, r, p);
    if (rec_complete_statuses(s, ev, r, p, cflags) != 0)
        return stream_error(s, PLOG_E_NOMEM, t->frame_off, err, "status scratch");
    /* (after an error MPI may have completed some requests and not others: leave them) */
    int completes = ev->rc == 0 && !(cflags & CALLF_GETSTATUS) &&
                    (!(cflags & CALLF_TEST) || (ev->flags & PLOG_F_FLAG_TRUE));
    if (!(ev->flags & PLOG_F_STATUS) && completes)
        rec_complete_unrecorded(s, ev, r, p, cflags, k);
    if (r->request == 0) { /* Waitany/Testany: the one completed */
        const plog_rstatus_t *only = NULL;
        int n = 0;
        for (uint32_t i = 0; i < p->ns; i++)
            if (s->sv[i].request != 0) {
                only = &s->sv[i];
                n++;
            }
        if (n == 1) {
            r->request = only->request;
            r->req = only->start;
        }
    }
    return PLOG_OK;
}

/* Isend, Irecv, Ibcast..., and any other call that made a request (Comm_idup): a new open
 * start, filled in the table and pointed to from there (no copy): the table changes next in
 * this stream's next event, as the record's pointers may. */
static inline plog_err_t rec_link_new(rstream_t *s, const tstream_t *t, const plog_event_t *ev,
                                      plog_rec_t *r, const plog_lcomm_t *lc, int inter,
                                      plog_error_t *err)
{
    if (ev->request == 0)
        return PLOG_OK;
    if (s->nolink) {
        r->request = s->next_id++; /* numbered as when linking, no table entry */
        return PLOG_OK;
    }
    plog_reqinfo_t *inf = req_open_new(&s->req, ev->request, lc, inter, ev->t_end, r->thread);
    if (inf == NULL)
        return stream_error(s, PLOG_E_NOMEM, t->frame_off, err, "request table");
    rec_info(r, s->next_id++, inf);
    r->request = inf->id;
    r->req = inf;
    return PLOG_OK;
}

/* ==== the record ========================================================================= */

plog_err_t rec_build(rstream_t *s, tstream_t *t, const plog_event_t *ev, const uint64_t *x,
                     plog_error_t *err)
{
    plog_rec_t *r = &s->rec;
    uint8_t cinfo = s->run->call_cls[ev->call];
    uint8_t cflags = s->run->call_flags[ev->call];
    plog_err_t e = rec_fill_recorded(s, t, ev, cinfo, err);
    if (e != PLOG_OK)
        return e;
    rec_parts_t p;
    int polls = (ev->flags & s->fmask & PLOG_F_POLLS) != 0;
    int pe = 0;
    if (s->nolink && r->cls == PLOG_CLASS_COMPLETE) {
        p = (rec_parts_t){0}; /* not read: the decoder may have stepped over them, but for
                               * a run of polls' words (plog_rd_stream.c) */
        if (polls && (cflags & CALLF_POLL) && (pe = rec_parse_extras(ev, x, &p, s->fmask)) == 0)
            p = (rec_parts_t){.has_polls = p.has_polls, .polls = {p.polls[0], p.polls[1]}};
    } else {
        pe = rec_parse_extras(ev, x, &p, s->fmask);
    }
    if (pe != 0) {
        char what[128];
        if (pe == -2)
            snprintf(what, sizeof(what), "thread %u, %s at %lld ns: a run of %llu polls "
                     "(PLOG_F_POLLS stands for 2 or more)", t->thread, r->call_name,
                     (long long)r->start_ns, (unsigned long long)p.polls[0]);
        else
            snprintf(what, sizeof(what), "thread %u, %s at %lld ns: %u extra words do not "
                     "match flags 0x%x", t->thread, r->call_name, (long long)r->start_ns,
                     ev->nextra, ev->flags);
        return stream_error(s, PLOG_E_CORRUPT, t->frame_off, err, what);
    }
    rec_fill_polls(s, r, &p, polls, cflags);
    const plog_lcomm_t *lc = rec_comm(s, ev, r);
    int inter = (ev->flags & PLOG_F_INTER) != 0;
    if ((ev->flags & PLOG_F_MESSAGE) && p.nh >= 1 && p.handles[0] != 0 &&
        rec_message(s, ev, p.handles[0], r, &lc, &inter) != 0)
        return stream_error(s, PLOG_E_NOMEM, t->frame_off, err, "message table");
    rec_fill_ranks(s, r, ev, &p, lc, inter);
    rec_fill_newcomm(s, r, ev, &p);
    rec_fill_lists(r, &p);
    if (rec_fill_handles(s, r, &p) != 0)
        return stream_error(s, PLOG_E_NOMEM, t->frame_off, err, "request scratch");
    switch (r->cls) {
    case PLOG_CLASS_PSEND_INIT:
    case PLOG_CLASS_PRECV_INIT: e = rec_link_persistent(s, t, ev, r, lc, inter, err); break;
    case PLOG_CLASS_START: rec_link_start(s, ev, r, &p); break;
    case PLOG_CLASS_REQFREE: rec_link_free(s, ev, r, cflags); break;
    case PLOG_CLASS_COMPLETE:
        if (s->nolink) /* the handles as recorded; statuses need their starts' communicators */
            r->n_status = 0;
        else
            e = rec_link_complete(s, t, ev, r, &p, cflags, err);
        break;
    default: e = rec_link_new(s, t, ev, r, lc, inter, err); break;
    }
    if (e != PLOG_OK)
        return e;
    if (r->cls != PLOG_CLASS_COMPLETE)
        rec_blocking_statuses(s, r, &p, lc, inter);
    return PLOG_OK;
}
