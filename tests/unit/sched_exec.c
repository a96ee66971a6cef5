/* sched_exec.c: the symbolic executor of sched_exec.h. */
#include "sched_exec.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

/* 2x2 matrices of uint8 mod 256, in x inout: associative, not commutative */
void op_matmul(const uint8_t *in, uint8_t *io, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i += 4) {
        const uint8_t *a = in + i;
        uint8_t *b = io + i, r[4];
        r[0] = (uint8_t)(a[0] * b[0] + a[1] * b[2]);
        r[1] = (uint8_t)(a[0] * b[1] + a[1] * b[3]);
        r[2] = (uint8_t)(a[2] * b[0] + a[3] * b[2]);
        r[3] = (uint8_t)(a[2] * b[1] + a[3] * b[3]);
        memcpy(b, r, 4);
    }
}
/* double addition on small integers: exact whatever the order */
void op_dsum(const uint8_t *in, uint8_t *io, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        double a, b;
        memcpy(&a, in + i, 8);
        memcpy(&b, io + i, 8);
        b = a + b;
        memcpy(io + i, &b, 8);
    }
}

static uint8_t *region(exec_t *x, int r, int buf, uint64_t off, uint64_t len)
{
    if (buf < 0 || buf >= PCS_NBUFS || off + len > x->bsz[r][buf] ||
        (len > 0 && !x->buf[r][buf])) {
        snprintf(x->err, sizeof x->err, "rank %d: region buf %d off %llu len %llu outside %llu",
                 r, buf, (unsigned long long)off, (unsigned long long)len,
                 (unsigned long long)(buf < PCS_NBUFS && buf >= 0 ? x->bsz[r][buf] : 0));
        return NULL;
    }
    return x->buf[r][buf] + off;
}

/* gather a transfer's bytes (contiguous, or its pieces) */
static int xfer_io(exec_t *x, int r, size_t i, uint8_t *data, int out)
{
    const pcs_op_t *o = &x->s[r].ops[i];
    if (o->a.buf != PCS_BUF_IOV) {
        uint8_t *p = region(x, r, o->a.buf, o->a.off, o->len);
        if (!p)
            return -1;
        if (out)
            memcpy(data, p, o->len);
        else
            memcpy(p, data, o->len);
        return 0;
    }
    uint64_t done = 0;
    for (size_t j = i + 1; j < x->s[r].n && x->s[r].ops[j].kind == PCS_OP_PIECE; j++) {
        const pcs_op_t *q = &x->s[r].ops[j];
        uint8_t *p = region(x, r, q->a.buf, q->a.off, q->len);
        if (!p || done + q->len > o->len)
            return -1;
        if (out)
            memcpy(data + done, p, q->len);
        else
            memcpy(p, data + done, q->len);
        done += q->len;
    }
    return done == o->len ? 0 : -1;
}

static void try_match(exec_t *x)
{
    for (int k = 0; k < x->nrp; k++) {
        rpost_t *rp = &x->rp[k];
        if (rp->msg >= 0)
            continue;
        for (int m = 0; m < x->nmsgs; m++) {
            msg_t *g = &x->msgs[m];
            if (g->matched || g->dst != rp->rank || g->tag != rp->tag ||
                (rp->src != PCS_ANY_SOURCE && rp->src != g->src))
                continue;
            /* non-overtaking: the earliest unmatched message from that source */
            g->matched = 1;
            g->recv_id = k;
            rp->msg = m;
            const pcs_op_t *o = &x->s[rp->rank].ops[rp->op];
            if (o->len != g->len && !x->err[0])
                snprintf(x->err, sizeof x->err, "%d->%d: sent %llu bytes, receive says %llu",
                         g->src, g->dst, (unsigned long long)g->len,
                         (unsigned long long)o->len);
            if (g->step != rp->step && !x->err[0])
                snprintf(x->err, sizeof x->err, "%d->%d: send step %d, receive step %d",
                         g->src, g->dst, g->step, rp->step);
            break;
        }
    }
}

static int post_send(exec_t *x, int r, size_t i)
{
    const pcs_op_t *o = &x->s[r].ops[i];
    cr_assert_lt(x->nmsgs, EXEC_MAX_MSGS);
    msg_t *g = &x->msgs[x->nmsgs];
    *g = (msg_t){.src = r, .dst = o->peer, .tag = o->tag, .step = (int)o->step, .len = o->len,
                 .recv_id = -1};
    g->data = malloc(o->len ? o->len : 1);
    if (o->peer < 0 || o->peer >= x->P || (o->peer == r && !x->self_ok))
        snprintf(x->err, sizeof x->err, "rank %d sends to bad peer %d", r, o->peer);
    if (xfer_io(x, r, i, g->data, 1) && !x->err[0])
        snprintf(x->err, sizeof x->err, "rank %d op %zu: bad send region", r, i);
    x->nmsgs++;
    try_match(x);
    return x->nmsgs - 1;
}

static int post_recv(exec_t *x, int r, size_t i)
{
    const pcs_op_t *o = &x->s[r].ops[i];
    cr_assert_lt(x->nrp, EXEC_MAX_MSGS);
    x->rp[x->nrp] = (rpost_t){.rank = r, .src = o->peer, .tag = o->tag, .step = (int)o->step,
                              .op = i, .msg = -1};
    x->nrp++;
    try_match(x);
    return x->nrp - 1;
}

static int deliver(exec_t *x, int id)
{
    rpost_t *rp = &x->rp[id];
    if (rp->msg < 0)
        return 0;
    msg_t *g = &x->msgs[rp->msg];
    const pcs_op_t *o = &x->s[rp->rank].ops[rp->op];
    uint64_t keep = o->len;
    if (g->len < keep)
        ((pcs_op_t *)o)->len = g->len;
    if (xfer_io(x, rp->rank, rp->op, g->data, 0) && !x->err[0])
        snprintf(x->err, sizeof x->err, "rank %d: bad receive region", rp->rank);
    ((pcs_op_t *)o)->len = keep;
    return 1;
}

static int advance(exec_t *x, int r)
{
    rstate_t *st = &x->st[r];
    pcs_sched_t *s = &x->s[r];
    int moved = 0;
    while (st->pc < s->n && !x->err[0]) {
        const pcs_op_t *o = &s->ops[st->pc];
        size_t next = st->pc + 1;
        if (o->kind <= PCS_OP_IRECV && o->a.buf == PCS_BUF_IOV)
            while (next < s->n && s->ops[next].kind == PCS_OP_PIECE)
                next++;
        switch (o->kind) {
        case PCS_OP_SEND:
        case PCS_OP_RECV:
            if (!st->posted) {
                st->cur = o->kind == PCS_OP_SEND ? post_send(x, r, st->pc) : post_recv(x, r, st->pc);
                st->posted = 1;
                moved = 1;
            }
            if (o->kind == PCS_OP_SEND ? !x->msgs[st->cur].matched : !deliver(x, st->cur))
                return moved;
            st->posted = 0;
            break;
        case PCS_OP_ISEND:
        case PCS_OP_IRECV:
            if (o->req >= 1024 || st->req_kind[o->req]) {
                snprintf(x->err, sizeof x->err, "rank %d: request slot %u busy", r, o->req);
                return 0;
            }
            st->req_kind[o->req] = o->kind == PCS_OP_ISEND ? 1 : 2;
            st->req_id[o->req] = o->kind == PCS_OP_ISEND ? post_send(x, r, st->pc)
                                                         : post_recv(x, r, st->pc);
            break;
        case PCS_OP_WAIT:
            if (!st->req_kind[o->req]) {
                snprintf(x->err, sizeof x->err, "rank %d: wait on free slot %u", r, o->req);
                return 0;
            }
            if (st->req_kind[o->req] == 1 ? !x->msgs[st->req_id[o->req]].matched
                                          : !deliver(x, st->req_id[o->req]))
                return moved;
            st->req_kind[o->req] = 0;
            break;
        case PCS_OP_COPY: {
            uint8_t *a = region(x, r, o->a.buf, o->a.off, o->len);
            uint8_t *b = region(x, r, o->b.buf, o->b.off, o->len);
            if (!a || !b)
                return 0;
            memmove(b, a, o->len);
            break;
        }
        case PCS_OP_REDUCE: {
            uint8_t *a = region(x, r, o->a.buf, o->a.off, o->len);
            uint8_t *b = region(x, r, o->b.buf, o->b.off, o->len);
            if (!a || !b)
                return 0;
            x->op(a, b, o->len);
            break;
        }
        default:
            snprintf(x->err, sizeof x->err, "rank %d: stray op kind %d", r, o->kind);
            return 0;
        }
        st->pc = next;
        moved = 1;
    }
    return moved;
}

/* Runs all ranks; returns NULL or a one-line reason. */
const char *execute(exec_t *x)
{
    for (int progress = 1; progress && !x->err[0];) {
        progress = 0;
        for (int r = 0; r < x->P; r++)
            progress |= advance(x, r);
    }
    if (x->err[0])
        return x->err;
    for (int r = 0; r < x->P; r++)
        if (x->st[r].pc < x->s[r].n) {
            snprintf(x->err, sizeof x->err, "deadlock: rank %d stuck at op %zu (kind %d peer %d)",
                     r, x->st[r].pc, x->s[r].ops[x->st[r].pc].kind, x->s[r].ops[x->st[r].pc].peer);
            return x->err;
        }
    for (int m = 0; m < x->nmsgs; m++)
        if (!x->msgs[m].matched) {
            snprintf(x->err, sizeof x->err, "unmatched message %d->%d", x->msgs[m].src,
                     x->msgs[m].dst);
            return x->err;
        }
    for (int k = 0; k < x->nrp; k++)
        if (x->rp[k].msg < 0) {
            snprintf(x->err, sizeof x->err, "unmatched receive at rank %d", x->rp[k].rank);
            return x->err;
        }
    return NULL;
}

/* ---- data and expected results ---- */
uint8_t val(int rank, uint64_t i, int which)
{
    uint64_t h = (uint64_t)rank * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull +
                 (uint64_t)which * 0x94D049BB133111EBull;
    h ^= h >> 31;
    return (uint8_t)(h * 0x2545F4914F6CDD1Dull >> 56);
}

void fill(uint8_t *p, uint64_t n, int rank, int which, op_fn *op, uint64_t ts)
{
    for (uint64_t i = 0; i < n; i++)
        p[i] = val(rank, i, which);
    if (op == op_dsum)
        for (uint64_t i = 0; i + 8 <= n; i += 8) {
            double d = (double)(val(rank, i, which + 7) % 64);
            memcpy(p + i, &d, 8);
        }
    (void)ts;
}
