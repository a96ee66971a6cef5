/* coll_sched.c: names, the schedule array and the builder shared by the generators. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "coll_build.h"
#include "vec.h"

const char *pcs_strerror(pcs_err_t e)
{
    switch (e) {
    case PCS_OK: return "ok";
    case PCS_E_NOMEM: return "out of memory";
    case PCS_E_ARG: return "invalid collective arguments";
    case PCS_E_UNSUPPORTED: return "algorithm not in the catalogue";
    }
    return "unknown error";
}

static const char *const coll_names[] = {
#define PCS_X_(id, name) name,
    PCS_COLLS(PCS_X_)
#undef PCS_X_
};
const char *pcs_coll_name(pcs_coll_t c)
{
    return (unsigned)c < PCS_NCOLLS ? coll_names[c] : "?";
}

static const char *const alg_names[] = {
#define PCS_X_(id, coll, name) name,
    PCS_ALGS(PCS_X_)
#undef PCS_X_
};
static const pcs_coll_t alg_colls[] = {
#define PCS_X_(id, coll, name) PCS_##coll,
    PCS_ALGS(PCS_X_)
#undef PCS_X_
};
const char *pcs_alg_name(pcs_alg_t a) { return (unsigned)a < PCS_NALGS ? alg_names[a] : "?"; }
pcs_coll_t pcs_alg_coll(pcs_alg_t a) { return (unsigned)a < PCS_NALGS ? alg_colls[a] : PCS_NCOLLS; }

void pcs_sched_reset(pcs_sched_t *s)
{
    pcs_op_t *ops = s->ops;
    size_t cap = s->cap;
    memset(s, 0, sizeof *s);
    s->ops = ops;
    s->cap = cap;
}

void pcs_sched_free(pcs_sched_t *s)
{
    free(s->ops);
    memset(s, 0, sizeof *s);
}

/* ---- builder ---- */

void pcs_ctx_init(pcs_ctx_t *c, const pcs_args_t *a, pcs_sched_t *s, int32_t tag)
{
    c->s = s;
    c->a = a;
    c->rank = a->rank;
    c->size = a->size;
    c->ts = a->type_size;
    c->tag = tag;
    c->step_base = 0;
    for (int i = 0; i < PCS_NBUFS; i++) {
        c->map[i] = (uint8_t)i;
        c->shift[i] = 0;
    }
    c->nv = 0;
    c->vcounts = c->vdispls = NULL;
    c->vts = 0;
    c->vbuf = 0;
}

void pcs_fail(pcs_ctx_t *c, pcs_err_t e)
{
    if (e && !c->s->err)
        c->s->err = e;
}

void pcs_at(pcs_ctx_t *c, int64_t step)
{
    /* steps count up from the (sub-)collective's first one */
    assert(step >= 0 && (uint64_t)c->step_base + (uint64_t)step <= UINT32_MAX);
    c->s->cur_step = c->step_base + (uint32_t)step;
}

static pcs_op_t *push(pcs_ctx_t *c, uint8_t kind)
{
    pcs_sched_t *s = c->s;
    if (s->err)
        return NULL;
    if (s->n == s->cap && VEC_GROW(s->ops, s->cap, s->n + 1) != 0) {
        s->err = PCS_E_NOMEM;
        return NULL;
    }
    pcs_op_t *o = &s->ops[s->n++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->step = s->cur_step;
    o->tag = c->tag;
    if (s->cur_step + 1 > s->nsteps)
        s->nsteps = s->cur_step + 1;
    return o;
}

static uint8_t mapbuf(const pcs_ctx_t *c, int buf)
{
    assert((buf >= 0 && buf < PCS_NBUFS) || buf == PCS_BUF_IOV);
    return buf >= 0 && buf < PCS_NBUFS ? c->map[buf] : (uint8_t)buf;
}
static uint64_t mapoff(const pcs_ctx_t *c, int buf, uint64_t off)
{
    return buf >= 0 && buf < PCS_NBUFS ? off + c->shift[buf] : off;
}

static void use_req(pcs_ctx_t *c, unsigned req)
{
    if (req >= UINT16_MAX)
        c->s->err = PCS_E_ARG;
    else if (req + 1 > c->s->nreqs)
        c->s->nreqs = (uint16_t)(req + 1);
}

static void xfer(pcs_ctx_t *c, uint8_t kind, unsigned req, int peer, int buf, uint64_t off,
                 uint64_t len, uint8_t flags)
{
    pcs_op_t *o = push(c, kind);
    if (!o)
        return;
    o->peer = peer;
    o->req = (uint16_t)req;
    o->len = len;
    o->flags = flags;
    o->a.buf = mapbuf(c, buf);
    /* an empty message may point past its buffer's end (Open MPI's empty blocks): offset 0 */
    o->a.off = len ? mapoff(c, buf, off) : 0;
    if (kind == PCS_OP_ISEND || kind == PCS_OP_IRECV)
        use_req(c, req);
    if (o->a.buf != PCS_BUF_VIEW)
        return;
    /* packed bytes [off, off+len) of the view -> pieces of the underlying buffer */
    o->a.buf = PCS_BUF_IOV;
    o->a.off = 0;
    uint64_t pos = 0, lo = off, hi = off + len, d = 0;
    for (int i = 0; i < c->nv && pos < hi; i++) {
        uint64_t n = (uint64_t)c->vcounts[i] * c->vts;
        uint64_t at = c->vdispls ? (uint64_t)c->vdispls[i] * c->vts : d;
        d += n;
        uint64_t a = pos > lo ? pos : lo, b = pos + n < hi ? pos + n : hi;
        if (a < b) {
            pcs_op_t *q = push(c, PCS_OP_PIECE);
            if (!q)
                return;
            q->a.buf = c->vbuf;
            q->a.off = at + (a - pos);
            q->len = b - a;
        }
        pos += n;
    }
}

void pcs_send(pcs_ctx_t *c, int peer, int buf, uint64_t off, uint64_t len)
{
    xfer(c, PCS_OP_SEND, 0, peer, buf, off, len, 0);
}
void pcs_ssend(pcs_ctx_t *c, int peer, int buf, uint64_t off, uint64_t len)
{
    xfer(c, PCS_OP_SEND, 0, peer, buf, off, len, PCS_F_SYNC);
}
void pcs_recv(pcs_ctx_t *c, int peer, int buf, uint64_t off, uint64_t len)
{
    xfer(c, PCS_OP_RECV, 0, peer, buf, off, len, 0);
}
void pcs_isend(pcs_ctx_t *c, unsigned req, int peer, int buf, uint64_t off, uint64_t len)
{
    xfer(c, PCS_OP_ISEND, req, peer, buf, off, len, 0);
}
void pcs_isend_flags(pcs_ctx_t *c, unsigned req, int peer, int buf, uint64_t off, uint64_t len,
                     uint8_t flags)
{
    xfer(c, PCS_OP_ISEND, req, peer, buf, off, len, flags);
}
void pcs_irecv(pcs_ctx_t *c, unsigned req, int peer, int buf, uint64_t off, uint64_t len)
{
    xfer(c, PCS_OP_IRECV, req, peer, buf, off, len, 0);
}
void pcs_xfer(pcs_ctx_t *c, pcs_opkind_t kind, unsigned req, int peer, uint64_t len,
              uint8_t flags)
{
    xfer(c, (uint8_t)kind, req, peer, PCS_BUF_IOV, 0, len, flags);
}
void pcs_piece(pcs_ctx_t *c, int buf, uint64_t off, uint64_t len)
{
    pcs_op_t *o = push(c, PCS_OP_PIECE);
    if (!o)
        return;
    /* pieces follow their PCS_BUF_IOV transfer */
    assert(c->s->n >= 2 && (o[-1].kind == PCS_OP_PIECE || o[-1].a.buf == PCS_BUF_IOV));
    o->a.buf = mapbuf(c, buf);
    o->a.off = mapoff(c, buf, off);
    o->len = len;
}

void pcs_wait(pcs_ctx_t *c, unsigned req)
{
    pcs_op_t *o = push(c, PCS_OP_WAIT);
    if (!o)
        return;
    assert(req < c->s->nreqs); /* a slot some isend or irecv used */
    o->req = (uint16_t)req;
}

static void local(pcs_ctx_t *c, uint8_t kind, int sbuf, uint64_t soff, int dbuf, uint64_t doff,
                  uint64_t len)
{
    pcs_op_t *o = push(c, kind);
    if (!o)
        return;
    o->tag = 0;
    o->len = len;
    o->a.buf = mapbuf(c, sbuf);
    o->a.off = mapoff(c, sbuf, soff);
    o->b.buf = mapbuf(c, dbuf);
    o->b.off = mapoff(c, dbuf, doff);
    /* local operations work on real buffers, never on a message's pieces or a view */
    assert(o->a.buf < PCS_NBUFS && o->b.buf < PCS_NBUFS);
}

void pcs_copy(pcs_ctx_t *c, int sbuf, uint64_t soff, int dbuf, uint64_t doff, uint64_t len)
{
    if (len == 0 ||
        (mapbuf(c, sbuf) == mapbuf(c, dbuf) && mapoff(c, sbuf, soff) == mapoff(c, dbuf, doff)))
        return;
    local(c, PCS_OP_COPY, sbuf, soff, dbuf, doff, len);
}

void pcs_reduce(pcs_ctx_t *c, int inbuf, uint64_t inoff, int iobuf, uint64_t iooff,
                uint64_t len)
{
    if (len == 0)
        return;
    local(c, PCS_OP_REDUCE, inbuf, inoff, iobuf, iooff, len);
}

void pcs_sendrecv_actual(pcs_ctx_t *c, unsigned req, int dest, int sbuf, uint64_t soff,
                         uint64_t slen, int src, int rbuf, uint64_t roff, uint64_t rlen)
{
    pcs_irecv(c, req, src, rbuf, roff, rlen);
    pcs_send(c, dest, sbuf, soff, slen);
    pcs_wait(c, req);
}

void pcs_sendrecv(pcs_ctx_t *c, unsigned req, int dest, int sbuf, uint64_t soff, uint64_t slen,
                  int src, int rbuf, uint64_t roff, uint64_t rlen)
{
    if (dest == c->rank && src == c->rank)
        pcs_copy(c, sbuf, soff, rbuf, roff, slen < rlen ? slen : rlen);
    else
        pcs_sendrecv_actual(c, req, dest, sbuf, soff, slen, src, rbuf, roff, rlen);
}

void pcs_need_tmp(pcs_ctx_t *c, int buf, uint64_t n)
{
    int b = mapbuf(c, buf);
    if (buf >= 0 && buf < PCS_NBUFS)
        n += c->shift[buf];
    if (b >= PCS_BUF_TMP && b <= PCS_BUF_TMP3) {
        uint64_t *t = &c->s->tmp_bytes[b - PCS_BUF_TMP];
        if (n > *t)
            *t = n;
    }
}

/* ---- arithmetic ---- */

int64_t pcs_sum(const int64_t *counts, int from, int to)
{
    int64_t s = 0;
    for (int i = from; i < to; i++)
        s += counts[i];
    return s;
}

uint64_t pcs_vdisp(uint64_t ts, const int64_t *counts, const int64_t *displs, int i)
{
    if (displs)
        return (uint64_t)displs[i] * ts;
    uint64_t d = 0;
    for (int j = 0; j < i; j++)
        d += (uint64_t)counts[j];
    return d * ts;
}

int pcs_mirror(int x, int nbits)
{
    assert(nbits >= 0 && nbits < 31);
    int r = 0;
    for (int i = 0; i < nbits; i++)
        if (x & (1 << i))
            r |= 1 << (nbits - 1 - i);
    return r;
}

int pcs_pow2_floor(int n)
{
    assert(n >= 1);
    int p = 1;
    while (p <= n / 2)
        p <<= 1;
    return p;
}

int pcs_log2_floor(int n)
{
    assert(n >= 1);
    int l = 0;
    while ((1 << (l + 1)) <= n)
        l++;
    return l;
}

bool pcs_is_pow2(int n) { return n > 0 && !(n & (n - 1)); }

int pcs_log2_ceil(int n)
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

void pcs_blockcount(int64_t count, int nblocks, int *split, int64_t *early, int64_t *late)
{
    assert(nblocks > 0);
    *early = *late = count / nblocks;
    *split = (int)(count % nblocks);
    if (*split)
        (*early)++;
}

int64_t pcs_segcount(uint64_t segsize, uint64_t ts, int64_t count)
{
    int64_t seg = count;
    if (ts > 0 && segsize >= ts && segsize < ts * (uint64_t)count) {
        seg = (int64_t)(segsize / ts);
        if (segsize - (uint64_t)seg * ts > ts / 2)
            seg++;
    }
    return seg;
}
