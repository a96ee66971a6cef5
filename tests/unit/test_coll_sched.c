/* test_coll_sched.c: every generated schedule, executed by all P ranks at once in this
 * process with real data, must compute the collective's result; plus the selection table. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_sched.h"

#define MAXP 9

/* ---- reduction ops on whole elements: inout = in (op) inout ---- */
typedef void op_fn(const uint8_t *in, uint8_t *inout, size_t nbytes);
/* 2x2 matrices of uint8 mod 256, in x inout: associative, not commutative */
static void op_matmul(const uint8_t *in, uint8_t *io, size_t n)
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
static void op_dsum(const uint8_t *in, uint8_t *io, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        double a, b;
        memcpy(&a, in + i, 8);
        memcpy(&b, io + i, 8);
        b = a + b;
        memcpy(io + i, &b, 8);
    }
}

/* ---- the executor ---- */
typedef struct msg {
    int src, dst, tag, step;
    uint64_t len;
    uint8_t *data;
    int matched;     /* 1 once a receive took it */
    int recv_id;     /* which posted receive */
} msg_t;
typedef struct rpost {
    int rank, src, tag, step;
    size_t op;       /* index of the op (for its region / pieces) */
    int msg;         /* matched message, -1 */
} rpost_t;
typedef struct rstate {
    size_t pc;
    int posted;      /* current blocking op already posted (msg or recv id) */
    int cur;         /* id of that post */
    int req_kind[1024], req_id[1024]; /* 0 free, 1 send (msg id), 2 recv (rpost id) */
} rstate_t;

typedef struct exec {
    int P;
    pcs_sched_t *s;
    uint8_t *buf[MAXP][PCS_NBUFS];
    uint64_t bsz[MAXP][PCS_NBUFS];
    msg_t msgs[20000];
    int nmsgs;
    rpost_t rp[20000];
    int nrp;
    rstate_t st[MAXP];
    op_fn *op;
    char err[512];
} exec_t;

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
    cr_assert_lt(x->nmsgs, 20000);
    msg_t *g = &x->msgs[x->nmsgs];
    *g = (msg_t){.src = r, .dst = o->peer, .tag = o->tag, .step = (int)o->step, .len = o->len,
                 .recv_id = -1};
    g->data = malloc(o->len ? o->len : 1);
    if (o->peer < 0 || o->peer >= x->P || o->peer == r)
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
    cr_assert_lt(x->nrp, 20000);
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
static const char *execute(exec_t *x)
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
static uint8_t val(int rank, uint64_t i, int which)
{
    uint64_t h = (uint64_t)rank * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull +
                 (uint64_t)which * 0x94D049BB133111EBull;
    h ^= h >> 31;
    return (uint8_t)(h * 0x2545F4914F6CDD1Dull >> 56);
}

static void fill(uint8_t *p, uint64_t n, int rank, int which, op_fn *op, uint64_t ts)
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

typedef struct run {
    pcs_coll_t coll;
    int P, root, inplace, alg_id; /* alg_id 0: fixed rules */
    int64_t count;
    int64_t segsize;  /* forced segment size (bytes), with alg_id */
    int max_requests; /* forced max_requests, with alg_id */
    op_fn *op;
    uint64_t ts;
    bool commutative;
} run_t;

static int n_run, n_skip, n_fail;

static uint64_t tot_of(const int64_t *c, int P)
{
    uint64_t t = 0;
    for (int i = 0; i < P; i++)
        t += (uint64_t)c[i];
    return t;
}

/* one configuration: build args, schedules, buffers; execute; check */
static void run_one(const run_t *rc)
{
    const int P = rc->P;
    const uint64_t ts = rc->ts;
    exec_t *x = calloc(1, sizeof *x);
    pcs_sched_t s[MAXP];
    memset(s, 0, sizeof s);
    x->P = P;
    x->s = s;
    x->op = rc->op;
    int64_t counts[MAXP] = {0}, displs[MAXP] = {0};
    uint64_t blk = (uint64_t)rc->count * ts;
    for (int i = 0; i < P; i++) {
        counts[i] = (rc->count + i) % 4 == 1 ? 0 : rc->count + i % 3;
        displs[i] = 0;
    }
    int64_t d = 0;
    for (int i = 0; i < P; i++) {
        displs[i] = d;
        d += counts[i] + 1; /* gaps */
    }
    pcs_ompi_forced_t f;
    memset(&f, 0, sizeof f);
    if (rc->alg_id) {
        f.use_dynamic_rules = true;
        f.algorithm[rc->coll] = rc->alg_id;
        f.segsize[rc->coll] = rc->segsize;
        f.max_requests[rc->coll] = rc->max_requests;
    }
    /* alltoallv: rank i sends a2a(i, j) elements to j, symmetric in place (MPI requires
     * equal send and receive counts then); displacements with gaps */
    static int64_t vsc[MAXP][MAXP], vsd[MAXP][MAXP], vrc[MAXP][MAXP], vrd[MAXP][MAXP];
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            int64_t nij = rc->inplace ? (rc->count + i + j) % 4 == 1 ? 0 : rc->count + (i + j) % 3
                                    : (rc->count + i + 2 * j) % 5 == 1 ? 0
                                    : rc->count + (2 * i + j) % 3;
            vsc[i][j] = vrc[j][i] = nij;
        }
    for (int i = 0; i < P; i++) {
        int64_t ds = 0, dr = 0;
        for (int j = 0; j < P; j++) {
            vsd[i][j] = ds;
            vrd[i][j] = dr;
            ds += vsc[i][j] + (j % 2);
            dr += vrc[i][j] + 1;
        }
    }
    uint64_t rs_total = 0;
    for (int i = 0; i < P; i++)
        rs_total += (uint64_t)counts[i];
    pcs_args_t a[MAXP];
    bool skip = false;
    for (int r = 0; r < P; r++) {
        a[r] = (pcs_args_t){.coll = rc->coll, .size = P, .rank = r, .root = rc->root,
                            .type_size = ts, .count = rc->count, .commutative = rc->commutative};
        bool rooted = rc->coll == PCS_REDUCE || rc->coll == PCS_GATHER ||
                      rc->coll == PCS_SCATTER || rc->coll == PCS_GATHERV ||
                      rc->coll == PCS_SCATTERV;
        a[r].in_place = rc->inplace && (!rooted || r == rc->root);
        a[r].counts = counts;
        a[r].displs = displs;
        a[r].own_count = counts[r];
        if (rc->coll == PCS_REDUCE_SCATTER)
            a[r].displs = NULL; /* blocks are packed */
        if (rc->coll == PCS_ALLTOALLV) {
            a[r].scounts = vsc[r];
            a[r].sdispls = vsd[r];
            a[r].counts = vrc[r];
            a[r].displs = vrd[r];
            if (rc->inplace) { /* the data is where it is received */
                a[r].scounts = vrc[r];
                a[r].sdispls = vrd[r];
            }
        }
        pcs_err_t e = pcs_ompi41_schedule(&a[r], rc->alg_id ? &f : NULL, &s[r]);
        if (e == PCS_E_UNSUPPORTED) {
            skip = true;
            break;
        }
        cr_assert_eq(e, PCS_OK, "%s P=%d alg %d rank %d: %s", pcs_coll_name(rc->coll), P,
                     rc->alg_id, r, pcs_strerror(e));
    }
    if (skip) {
        n_skip++;
        goto out;
    }
    /* buffers */
    uint64_t vtot = ((uint64_t)displs[P - 1] + (uint64_t)counts[P - 1]) * ts;
    for (int r = 0; r < P; r++) {
        uint64_t sz[2] = {0, 0};
        switch (rc->coll) {
        case PCS_BCAST: sz[1] = blk; break;
        case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_SCAN: case PCS_EXSCAN:
            sz[0] = sz[1] = blk; break;
        case PCS_ALLGATHER: sz[0] = blk; sz[1] = blk * P; break;
        case PCS_ALLTOALL: sz[0] = sz[1] = blk * P; break;
        case PCS_GATHER: sz[0] = blk; sz[1] = r == rc->root ? blk * P : 0; break;
        case PCS_SCATTER: sz[0] = r == rc->root ? blk * P : 0; sz[1] = blk; break;
        case PCS_GATHERV: sz[0] = (uint64_t)counts[r] * ts; sz[1] = r == rc->root ? vtot : 0; break;
        case PCS_SCATTERV: sz[0] = r == rc->root ? vtot : 0; sz[1] = (uint64_t)counts[r] * ts; break;
        case PCS_ALLGATHERV: sz[0] = (uint64_t)counts[r] * ts; sz[1] = vtot; break;
        case PCS_ALLTOALLV:
            sz[0] = (uint64_t)(vsd[r][P - 1] + vsc[r][P - 1] + 1) * ts;
            sz[1] = (uint64_t)(vrd[r][P - 1] + vrc[r][P - 1]) * ts;
            break;
        case PCS_REDUCE_SCATTER:
            sz[0] = rs_total * ts;
            sz[1] = rc->inplace ? rs_total * ts : (uint64_t)counts[r] * ts;
            break;
        case PCS_REDUCE_SCATTER_BLOCK: sz[0] = blk * P; sz[1] = rc->inplace ? blk * P : blk; break;
        default: break;
        }
        if (a[r].in_place) /* scatter(v): the receive buffer is MPI_IN_PLACE */
            sz[rc->coll == PCS_SCATTER || rc->coll == PCS_SCATTERV ? 1 : 0] = 0;
        x->bsz[r][0] = sz[0];
        x->bsz[r][1] = sz[1];
        for (int b = 0; b < 3; b++)
            x->bsz[r][PCS_BUF_TMP + b] = s[r].tmp_bytes[b];
        for (int b = 0; b < PCS_NBUFS; b++) {
            x->buf[r][b] = calloc(1, x->bsz[r][b] + 1);
            fill(x->buf[r][b], x->bsz[r][b], r, b, rc->op, ts);
        }
    }
    /* the inputs, saved: in place, the input is in R */
    uint8_t *in[MAXP];
    for (int r = 0; r < P; r++) {
        int b = a[r].in_place && rc->coll != PCS_SCATTER && rc->coll != PCS_SCATTERV ? 1 : 0;
        in[r] = malloc(x->bsz[r][b] + 1);
        memcpy(in[r], x->buf[r][b], x->bsz[r][b]);
    }
    uint8_t *r0 = malloc(x->bsz[rc->root][1] + 1);
    memcpy(r0, x->buf[rc->root][1], x->bsz[rc->root][1]);
    const char *why = execute(x);
    n_run++;
    char tagline[200];
    snprintf(tagline, sizeof tagline, "%s alg %d(%s) P=%d count=%lld root=%d inplace=%d ts=%llu",
             pcs_coll_name(rc->coll), rc->alg_id, pcs_alg_name(s[0].alg), P,
             (long long)rc->count, rc->root, rc->inplace, (unsigned long long)ts);
    if (why) {
        n_fail++;
        cr_expect_fail("%s: %s", tagline, why);
        goto free_bufs;
    }
    /* check against the definition */
    uint8_t *exp = malloc(blk * P + vtot + rs_total * ts + 16);
    for (int r = 0; r < P && !why; r++) {
        const uint8_t *got = x->buf[r][1];
        int in_b = a[r].in_place; (void)in_b;
        switch (rc->coll) {
        case PCS_BCAST:
            if (memcmp(got, r0, blk)) why = "bcast data";
            break;
        case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_SCAN: case PCS_EXSCAN: {
            if (rc->coll == PCS_REDUCE && r != rc->root) break;
            int last = rc->coll == PCS_SCAN ? r : rc->coll == PCS_EXSCAN ? r - 1 : P - 1;
            if (last < 0) break;
            /* x0 op x1 op ... : fold from the right with inout = in op inout */
            memcpy(exp, in[last], blk);
            for (int k = last - 1; k >= 0; k--)
                rc->op(in[k], exp, blk);
            if (memcmp(got, exp, blk)) why = "reduction result";
            break;
        }
        case PCS_ALLGATHER:
            for (int k = 0; k < P; k++)
                memcpy(exp + k * blk, a[k].in_place ? in[k] + k * blk : in[k], blk);
            if (memcmp(got, exp, blk * P)) why = "allgather data";
            break;
        case PCS_ALLTOALL:
            for (int k = 0; k < P; k++)
                memcpy(exp + k * blk, in[k] + r * blk, blk);
            if (memcmp(got, exp, blk * P)) why = "alltoall data";
            break;
        case PCS_GATHER:
            if (r != rc->root) break;
            for (int k = 0; k < P; k++)
                memcpy(exp + k * blk, a[k].in_place ? in[k] + k * blk : in[k], blk);
            if (memcmp(got, exp, blk * P)) why = "gather data";
            break;
        case PCS_SCATTER:
            if (a[r].in_place) break;
            if (memcmp(got, in[rc->root] + r * blk, blk)) why = "scatter data";
            break;
        case PCS_GATHERV:
            if (r != rc->root) break;
            for (int k = 0; k < P; k++)
                if (!(k == r && a[r].in_place) &&
                    memcmp(got + displs[k] * ts, in[k], counts[k] * ts)) why = "gatherv data";
            break;
        case PCS_SCATTERV:
            if (a[r].in_place) break;
            if (memcmp(got, in[rc->root] + displs[r] * ts, counts[r] * ts)) why = "scatterv data";
            break;
        case PCS_ALLGATHERV:
            for (int k = 0; k < P; k++)
                if (memcmp(got + displs[k] * ts,
                           a[k].in_place ? in[k] + displs[k] * ts : in[k], counts[k] * ts))
                    why = "allgatherv data";
            break;
        case PCS_ALLTOALLV:
            for (int k = 0; k < P; k++) {
                const uint8_t *src = in[k] + (rc->inplace ? vrd[k][r] : vsd[k][r]) * ts;
                if (memcmp(got + vrd[r][k] * ts, src, vsc[k][r] * ts))
                    why = "alltoallv data";
            }
            break;
        case PCS_REDUCE_SCATTER:
        case PCS_REDUCE_SCATTER_BLOCK: {
            uint64_t off = 0, n = blk;
            if (rc->coll == PCS_REDUCE_SCATTER) {
                for (int k = 0; k < r; k++)
                    off += (uint64_t)counts[k] * ts;
                n = (uint64_t)counts[r] * ts;
            } else {
                off = (uint64_t)r * blk;
            }
            memcpy(exp, in[P - 1] + off, n);
            for (int k = P - 2; k >= 0; k--)
                rc->op(in[k] + off, exp, n);
            if (memcmp(got, exp, n)) why = "reduce_scatter result";
            break;
        }
        default: break;
        }
        if (why) {
            n_fail++;
            cr_expect_fail("%s: rank %d: %s", tagline, r, why);
        }
    }
    free(exp);
free_bufs:
    free(r0);
    for (int r = 0; r < P; r++) {
        free(in[r]);
        for (int b = 0; b < PCS_NBUFS; b++)
            free(x->buf[r][b]);
    }
    for (int m = 0; m < x->nmsgs; m++)
        free(x->msgs[m].data);
out:
    for (int r = 0; r < P; r++)
        pcs_sched_free(&s[r]);
    free(x);
    (void)tot_of;
}

static const int64_t COUNTS[] = {0, 1, 2, 3, 5, 8, 13, 64};
static const int NALG[PCS_NCOLLS] = {[PCS_BCAST] = 9, [PCS_REDUCE] = 7, [PCS_ALLREDUCE] = 6,
    [PCS_ALLGATHER] = 6, [PCS_ALLGATHERV] = 5, [PCS_ALLTOALL] = 5, [PCS_ALLTOALLV] = 2,
    [PCS_BARRIER] = 6, [PCS_GATHER] = 3, [PCS_SCATTER] = 3, [PCS_REDUCE_SCATTER] = 4,
    [PCS_REDUCE_SCATTER_BLOCK] = 4, [PCS_SCAN] = 2, [PCS_EXSCAN] = 2};

static bool alg_fits(pcs_coll_t c, int id, int P)
{
    /* two_procs algorithms exist for 2 ranks only */
    if ((c == PCS_ALLGATHER && id == 6) || (c == PCS_ALLGATHERV && id == 5) ||
        (c == PCS_ALLTOALL && id == 5) || (c == PCS_BARRIER && id == 5))
        return P == 2;
    return true;
}

/* decision_fixed.c: the algorithms chosen for non-commutative ops (L83-117, L694-723,
 * L854, L1000) */
static bool noncomm_ok(pcs_coll_t c, int id)
{
    switch (c) {
    case PCS_REDUCE: return id == 1 || id == 6;
    case PCS_ALLREDUCE: return id == 1 || id == 2 || id == 3 || id == 6;
    case PCS_REDUCE_SCATTER: return id == 1;
    /* recursive doubling orders its operands; recursive halving falls back to linear */
    case PCS_REDUCE_SCATTER_BLOCK: return id == 1 || id == 2 || id == 3;
    default: return true;
    }
}

static void sweep(pcs_coll_t c)
{
    bool red = c == PCS_REDUCE || c == PCS_ALLREDUCE || c == PCS_SCAN || c == PCS_EXSCAN ||
               c == PCS_REDUCE_SCATTER || c == PCS_REDUCE_SCATTER_BLOCK;
    bool rooted = c == PCS_BCAST || c == PCS_REDUCE || c == PCS_GATHER || c == PCS_SCATTER ||
                  c == PCS_GATHERV || c == PCS_SCATTERV;
    bool has_inplace = c != PCS_BCAST && c != PCS_BARRIER;
    n_run = n_skip = n_fail = 0;
    for (int id = 0; id <= NALG[c]; id++)
        for (int P = 1; P <= MAXP; P++) {
            if (id && !alg_fits(c, id, P))
                continue;
            for (size_t ci = 0; ci < sizeof COUNTS / sizeof COUNTS[0]; ci++)
                for (int ri = 0; ri < (rooted ? 3 : 1); ri++)
                    for (int ip = 0; ip <= (has_inplace ? 1 : 0); ip++)
                        for (int oi = 0; oi < (red ? 2 : 1); oi++) {
                            int root = ri == 0 ? 0 : ri == 1 ? P - 1 : P / 2;
                            run_t rc = {.coll = c, .P = P, .root = root, .inplace = ip,
                                        .alg_id = id, .count = COUNTS[ci]};
                            rc.op = oi == 0 ? op_matmul : op_dsum;
                            rc.ts = oi == 0 ? 4 : 8;
                            rc.commutative = oi == 1;
                            if (!red)
                                rc.ts = 3;
                            /* Forced with a non-commutative op, Open MPI's commutative-only
                             * algorithms compute in another order (the library's own
                             * behaviour); check the ones its rules pick for such ops. */
                            if (red && !rc.commutative && id && !noncomm_ok(c, id))
                                continue;
                            run_one(&rc);
                        }
        }
    printf("%-22s %6d executed, %5d failed, %5d skipped (not in catalogue)\n",
           pcs_coll_name(c), n_run, n_fail, n_skip);
    fflush(stdout);
}

Test(coll_sched, bcast) { sweep(PCS_BCAST); }
Test(coll_sched, reduce) { sweep(PCS_REDUCE); }
Test(coll_sched, allreduce) { sweep(PCS_ALLREDUCE); }
Test(coll_sched, allgather) { sweep(PCS_ALLGATHER); }
Test(coll_sched, alltoall) { sweep(PCS_ALLTOALL); }
Test(coll_sched, barrier) { sweep(PCS_BARRIER); }
Test(coll_sched, gather) { sweep(PCS_GATHER); }
Test(coll_sched, scatter) { sweep(PCS_SCATTER); }
Test(coll_sched, scan) { sweep(PCS_SCAN); }
Test(coll_sched, exscan) { sweep(PCS_EXSCAN); }
Test(coll_sched, gatherv) { sweep(PCS_GATHERV); }
Test(coll_sched, scatterv) { sweep(PCS_SCATTERV); }
Test(coll_sched, allgatherv) { sweep(PCS_ALLGATHERV); }
Test(coll_sched, alltoallv) { sweep(PCS_ALLTOALLV); }
Test(coll_sched, reduce_scatter) { sweep(PCS_REDUCE_SCATTER); }
Test(coll_sched, reduce_scatter_block) { sweep(PCS_REDUCE_SCATTER_BLOCK); }

/* Algorithms whose shape depends on a forced segment size or request limit. */
Test(coll_sched, forced_parameters)
{
    static const struct { pcs_coll_t c; int id; int64_t seg; int maxreq; } t[] = {
        {PCS_BCAST, 4, 1, 0}, {PCS_BCAST, 4, 2, 0}, {PCS_BCAST, 4, 5, 0},   /* split bintree */
        {PCS_BCAST, 6, 2, 0}, {PCS_BCAST, 2, 3, 0},                         /* binomial, chain */
        {PCS_ALLREDUCE, 5, 1, 0}, {PCS_ALLREDUCE, 5, 2, 0}, {PCS_ALLREDUCE, 5, 3, 0},
        {PCS_ALLTOALL, 4, 0, 1}, {PCS_ALLTOALL, 4, 0, 2}, {PCS_ALLTOALL, 4, 0, 3},
        {PCS_REDUCE, 2, 2, 0}, {PCS_REDUCE, 5, 1, 2},
    };
    static const int64_t counts[] = {1, 5, 13, 64, 100};
    n_run = n_skip = n_fail = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (int P = 1; P <= MAXP; P++)
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                for (int ip = 0; ip <= (t[i].c == PCS_BCAST ? 0 : 1); ip++) {
                    bool red = t[i].c == PCS_ALLREDUCE || t[i].c == PCS_REDUCE;
                    run_t rc = {.coll = t[i].c, .P = P, .root = P / 2, .inplace = ip,
                                .alg_id = t[i].id, .count = counts[ci], .op = op_dsum,
                                .ts = red ? 8 : 3, .commutative = true,
                                .max_requests = t[i].maxreq};
                    rc.segsize = t[i].seg * (int64_t)rc.ts;
                    run_one(&rc);
                }
    printf("%-22s %6d executed, %5d failed, %5d skipped (not in catalogue)\n", "forced params",
           n_run, n_fail, n_skip);
    cr_expect_eq(n_skip, 0);
}

/* The fixed rules against rows read off coll_tuned_decision_fixed.c v4.1.4 (line numbers). */
Test(coll_sched, ompi41_fixed_rules)
{
    static const struct { pcs_coll_t c; int P; int64_t d; bool comm; int alg, line; } t[] = {
        {PCS_BCAST, 4, 4, true, 5, 563},        /* cs<8 ; d<64 -> binary tree */
        {PCS_BCAST, 2, 4, true, 3, 541},        /* cs<4 ; d<32 -> pipeline */
        {PCS_BCAST, 16, 1 << 20, true, 8, 595}, /* cs<32 ; else -> scatter_allgather */
        {PCS_ALLREDUCE, 4, 4, true, 4, 139},    /* ring (falls back to rdbl: count < P) */
        {PCS_ALLREDUCE, 3, 4, true, 4, 123},
        {PCS_ALLREDUCE, 3, 4, false, 3, 83},
        {PCS_ALLREDUCE, 5, 8192, true, 6, 143},
        {PCS_REDUCE, 4, 4, true, 4, 744},
        {PCS_REDUCE, 4, 4, false, 1, 699},
        {PCS_GATHER, 4, 4, true, 2, 1429},
        {PCS_ALLTOALL, 4, 4, true, 4, 277},
        {PCS_ALLTOALL, 4, 8192, true, 1, 279},
        {PCS_ALLTOALL, 2, 1, true, 2, 255},
        {PCS_BARRIER, 4, -1, true, 1, 485},
        {PCS_BARRIER, 3, -1, true, 3, 483},
        {PCS_ALLGATHER, 3, 4, true, 3, 1121},
        {PCS_ALLGATHER, 2, 4, true, 6, 1119},
        {PCS_ALLGATHERV, 5, 100, true, 1, 1283},
        {PCS_SCATTER, 5, 100, true, 2, 1512},
        {PCS_REDUCE_SCATTER, 6, 100, false, 1, 854},
        {PCS_REDUCE_SCATTER_BLOCK, 6, 100, true, 4, 1028},
        {PCS_ALLTOALLV, 70, -1, true, 2, 441},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int line = 0;
        int alg = pcs_ompi41_fixed(t[i].c, t[i].P, t[i].d, t[i].comm, &line);
        cr_expect_eq(alg, t[i].alg, "case %zu (%s P=%d d=%lld): alg %d", i,
                     pcs_coll_name(t[i].c), t[i].P, (long long)t[i].d, alg);
        cr_expect_eq(line, t[i].line, "case %zu: line %d", i, line);
    }
    /* fallbacks and components */
    pcs_args_t a = {.coll = PCS_ALLREDUCE, .size = 4, .rank = 0, .type_size = 4, .count = 1,
                    .commutative = true};
    pcs_choice_t ch;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.lib_alg, 4);
    cr_expect_eq(ch.alg, PCS_ALG_ALLREDUCE_RECURSIVE_DOUBLING);
    a.coll = PCS_ALLGATHER;
    a.size = 3;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_ALLGATHER_BRUCK);
    a.coll = PCS_SCAN;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.component, PCS_COMP_BASIC);
    a.size = 1;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.component, PCS_COMP_SELF);
    a.coll = PCS_ALLREDUCE;
    a.size = 5;
    a.count = 0;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NONE);
}
