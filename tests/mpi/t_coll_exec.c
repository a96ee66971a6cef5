/* t_coll_exec.c: every schedule of the collective catalogue (models/), executed with real MPI
 * point-to-point messages on a dup of MPI_COMM_WORLD, against the collective's definition and,
 * for the algorithm Open MPI 4.1's rules choose, byte for byte against the library's own
 * collective on the same inputs (doubles with fractions included: same operand order, same
 * bits). Blocking collectives, Alltoallw and the MPI_I* forms (coll/libnbc's algorithms,
 * compared with the library's own MPI_I* call). Run at any size; prints one line per
 * (collective, algorithm) with its case count, then "N passed, M failed" (rank 0). Exit status 1 on any failure.
 * Usage: t_coll_exec [--quick]   (--quick: fewer counts, for large oversubscribed runs) */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_sched.h"

#define MAXP 64

/* ---- reduction ops: inout = in (op) inout, the same functions for MPI and the definition ---- */
/* 2x2 matrices of uint8 mod 256 (in x inout): associative, not commutative */
static void matmul(const uint8_t *in, uint8_t *io, size_t n)
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
static void mpi_matmul(void *in, void *io, int *len, MPI_Datatype *dt)
{
    (void)dt;
    matmul(in, io, (size_t)*len * 4);
}
static void dsum(const uint8_t *in, uint8_t *io, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        double a, b;
        memcpy(&a, in + i, 8);
        memcpy(&b, io + i, 8);
        b = a + b;
        memcpy(io + i, &b, 8);
    }
}

/* data kinds: bytes moved (3-byte elements), doubles summed (small integers: exact in any
 * order; fractions: exact only in the library's order), 2x2 matrices multiplied */
enum { K_BYTES, K_DSUM, K_DSUM_REAL, K_MATMUL };

typedef struct kase {
    pcs_coll_t coll;
    int alg; /* tuned algorithm id; 0 = the fixed rules */
    int64_t count;
    int root, inplace, kind;
    int64_t segsize;
    int maxreq;
    bool nb; /* MPI_I*: alg is the coll_libnbc_i<coll>_algorithm value */
} kase_t;

static int rank, size;
static MPI_Comm comm;
static MPI_Datatype t3; /* 3 contiguous bytes */
static MPI_Op op_matmul;
static bool is_ompi41;

static uint8_t val(int r, uint64_t i, int which, int seed)
{
    uint64_t h = (uint64_t)r * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull +
                 (uint64_t)which * 0x94D049BB133111EBull + (uint64_t)seed * 0xD6E8FEB86659FD93ull;
    h ^= h >> 31;
    return (uint8_t)(h * 0x2545F4914F6CDD1Dull >> 56);
}

static void fill(uint8_t *p, uint64_t n, int r, int which, int kind, int seed)
{
    for (uint64_t i = 0; i < n; i++)
        p[i] = val(r, i, which, seed);
    if (kind == K_DSUM || kind == K_DSUM_REAL)
        for (uint64_t i = 0; i + 8 <= n; i += 8) {
            double d = (double)(val(r, i, which + 7, seed) % 64);
            if (kind == K_DSUM_REAL)
                d = d / 7.0 + (double)r * 0.1 + 1e-9 * (double)i;
            memcpy(p + i, &d, 8);
        }
}

/* ---- arguments of one case (v-counts as in tests/unit/test_coll_sched.c) ---- */
typedef struct setup {
    pcs_args_t a[MAXP];
    int64_t counts[MAXP], displs[MAXP];
    int64_t vsc[MAXP][MAXP], vsd[MAXP][MAXP], vrc[MAXP][MAXP], vrd[MAXP][MAXP];
    uint64_t ts, blk, vtot, rstot;
    uint64_t sz[MAXP][2]; /* send, receive buffer bytes */
} setup_t;

static bool rooted(pcs_coll_t c)
{
    return c == PCS_BCAST || c == PCS_REDUCE || c == PCS_GATHER || c == PCS_SCATTER ||
           c == PCS_GATHERV || c == PCS_SCATTERV;
}

static void make_setup(const kase_t *k, setup_t *u)
{
    const int P = size > 0 ? size : 1;
    u->ts = k->kind == K_BYTES ? 3 : k->kind == K_MATMUL ? 4 : 8;
    /* alltoallw: per-peer types, so the counts are bytes (3-byte elements) */
    const int64_t wmul = k->coll == PCS_ALLTOALLW ? (int64_t)u->ts : 1;
    if (k->coll == PCS_ALLTOALLW)
        u->ts = 1;
    u->blk = (uint64_t)k->count * u->ts;
    int64_t d = 0;
    for (int i = 0; i < P; i++) {
        u->counts[i] = (k->count + i) % 4 == 1 ? 0 : k->count + i % 3;
        u->displs[i] = d;
        d += u->counts[i] + 1;
    }
    u->vtot = (uint64_t)d * u->ts;
    u->rstot = 0;
    for (int i = 0; i < P; i++)
        u->rstot += (uint64_t)u->counts[i];
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            int64_t n = k->inplace ? (k->count + i + j) % 4 == 1 ? 0 : k->count + (i + j) % 3
                                   : (k->count + i + 2 * j) % 5 == 1 ? 0 : k->count + (2 * i + j) % 3;
            u->vsc[i][j] = u->vrc[j][i] = n * wmul;
        }
    for (int i = 0; i < P; i++) {
        int64_t ds = 0, dr = 0;
        for (int j = 0; j < P; j++) {
            u->vsd[i][j] = ds;
            u->vrd[i][j] = dr;
            ds += u->vsc[i][j] + (j % 2) * wmul;
            dr += u->vrc[i][j] + wmul;
        }
    }
    for (int r = 0; r < P; r++) {
        pcs_args_t *a = &u->a[r];
        *a = (pcs_args_t){.coll = k->coll, .size = P, .rank = r, .root = k->root,
                          .type_size = u->ts, .count = k->count,
                          .commutative = k->kind != K_MATMUL, .nonblocking = k->nb};
        a->in_place = k->inplace && (!rooted(k->coll) || r == k->root);
        a->counts = u->counts;
        a->displs = k->coll == PCS_REDUCE_SCATTER ? NULL : u->displs;
        a->own_count = u->counts[r];
        if (k->coll == PCS_ALLTOALLV || k->coll == PCS_ALLTOALLW) {
            a->counts = u->vrc[r];
            a->displs = u->vrd[r];
            a->scounts = k->inplace ? u->vrc[r] : u->vsc[r];
            a->sdispls = k->inplace ? u->vrd[r] : u->vsd[r];
        }
        uint64_t *sz = u->sz[r], blk = u->blk, ts = u->ts;
        sz[0] = sz[1] = 0;
        switch (k->coll) {
        case PCS_BCAST: sz[1] = blk; break;
        case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_SCAN: case PCS_EXSCAN:
            sz[0] = sz[1] = blk; break;
        case PCS_ALLGATHER: sz[0] = blk; sz[1] = blk * P; break;
        case PCS_ALLTOALL: sz[0] = sz[1] = blk * P; break;
        case PCS_GATHER: sz[0] = blk; sz[1] = r == k->root ? blk * P : 0; break;
        case PCS_SCATTER: sz[0] = r == k->root ? blk * P : 0; sz[1] = blk; break;
        case PCS_GATHERV: sz[0] = (uint64_t)u->counts[r] * ts; sz[1] = r == k->root ? u->vtot : 0; break;
        case PCS_SCATTERV: sz[0] = r == k->root ? u->vtot : 0; sz[1] = (uint64_t)u->counts[r] * ts; break;
        case PCS_ALLGATHERV: sz[0] = (uint64_t)u->counts[r] * ts; sz[1] = u->vtot; break;
        case PCS_ALLTOALLV: case PCS_ALLTOALLW:
            sz[0] = (uint64_t)(u->vsd[r][P - 1] + u->vsc[r][P - 1] + 1) * ts;
            sz[1] = (uint64_t)(u->vrd[r][P - 1] + u->vrc[r][P - 1]) * ts;
            break;
        case PCS_REDUCE_SCATTER:
            sz[0] = u->rstot * ts;
            sz[1] = k->inplace ? u->rstot * ts : (uint64_t)u->counts[r] * ts;
            break;
        case PCS_REDUCE_SCATTER_BLOCK: sz[0] = blk * P; sz[1] = k->inplace ? blk * P : blk; break;
        default: break;
        }
        if (a->in_place)
            sz[k->coll == PCS_SCATTER || k->coll == PCS_SCATTERV ? 1 : 0] = 0;
    }
}

/* ---- executing a schedule with MPI point-to-point calls ---- */
typedef struct slot {
    MPI_Request req;
    uint8_t *stage; /* a derived-datatype message packed here */
    size_t iov;     /* its transfer op (receives: unpacked at the wait) */
    bool unpack;
} slot_t;

static void pieces(const pcs_sched_t *s, size_t i, uint8_t **buf, uint8_t *stage, bool out)
{
    uint64_t done = 0;
    for (size_t j = i + 1; j < s->n && s->ops[j].kind == PCS_OP_PIECE; j++) {
        const pcs_op_t *q = &s->ops[j];
        if (out)
            memcpy(stage + done, buf[q->a.buf] + q->a.off, q->len);
        else
            memcpy(buf[q->a.buf] + q->a.off, stage + done, q->len);
        done += q->len;
    }
}

static void exec_sched(const pcs_sched_t *s, uint8_t **buf, MPI_Datatype dt, MPI_Op op,
                       uint64_t ts)
{
    slot_t *sl = calloc(s->nreqs + 1u, sizeof *sl);
    for (size_t i = 0; i < s->n; i++) {
        const pcs_op_t *o = &s->ops[i];
        const bool iov = o->kind <= PCS_OP_IRECV && o->a.buf == PCS_BUF_IOV;
        uint8_t *p = NULL, *stage = NULL;
        if (iov)
            p = stage = malloc(o->len + 1);
        else if (o->kind <= PCS_OP_IRECV && o->len)
            p = buf[o->a.buf] + o->a.off;
        const int tag = -o->tag, n = (int)o->len;
        const int peer = o->peer == PCS_ANY_SOURCE ? MPI_ANY_SOURCE : o->peer;
        switch (o->kind) {
        case PCS_OP_SEND:
            if (iov)
                pieces(s, i, buf, stage, true);
            if (o->flags & PCS_F_SYNC)
                MPI_Ssend(p, n, MPI_BYTE, peer, tag, comm);
            else
                MPI_Send(p, n, MPI_BYTE, peer, tag, comm);
            free(stage);
            break;
        case PCS_OP_RECV:
            MPI_Recv(p, n, MPI_BYTE, peer, tag, comm, MPI_STATUS_IGNORE);
            if (iov)
                pieces(s, i, buf, stage, false);
            free(stage);
            break;
        case PCS_OP_ISEND:
            if (iov)
                pieces(s, i, buf, stage, true);
            if (o->flags & PCS_F_SYNC)
                MPI_Issend(p, n, MPI_BYTE, peer, tag, comm, &sl[o->req].req);
            else
                MPI_Isend(p, n, MPI_BYTE, peer, tag, comm, &sl[o->req].req);
            sl[o->req] = (slot_t){.req = sl[o->req].req, .stage = stage};
            break;
        case PCS_OP_IRECV:
            MPI_Irecv(p, n, MPI_BYTE, peer, tag, comm, &sl[o->req].req);
            sl[o->req] = (slot_t){.req = sl[o->req].req, .stage = stage, .iov = i, .unpack = iov};
            break;
        case PCS_OP_WAIT:
            MPI_Wait(&sl[o->req].req, MPI_STATUS_IGNORE);
            if (sl[o->req].unpack)
                pieces(s, sl[o->req].iov, buf, sl[o->req].stage, false);
            free(sl[o->req].stage);
            sl[o->req].stage = NULL;
            sl[o->req].unpack = false;
            break;
        case PCS_OP_COPY:
            memmove(buf[o->b.buf] + o->b.off, buf[o->a.buf] + o->a.off, o->len);
            break;
        case PCS_OP_REDUCE:
            MPI_Reduce_local(buf[o->a.buf] + o->a.off, buf[o->b.buf] + o->b.off,
                             (int)(o->len / ts), dt, op);
            break;
        default: break; /* pieces: done with their transfer */
        }
    }
    free(sl);
}

/* ---- the library's own collective on the same inputs ---- */
static void run_library(const kase_t *k, const setup_t *u, uint8_t *sb, uint8_t *rb,
                        MPI_Datatype dt, MPI_Op op)
{
    const pcs_args_t *a = &u->a[rank];
    const int n = (int)k->count, root = k->root, P = size;
    void *s = a->in_place ? MPI_IN_PLACE : sb;
    int ic[MAXP], id[MAXP], isc[MAXP], isd[MAXP];
    MPI_Datatype wt[MAXP];
    for (int i = 0; i < P; i++) {
        ic[i] = (int)a->counts[i];
        id[i] = a->displs ? (int)a->displs[i] : 0;
        isc[i] = a->scounts ? (int)a->scounts[i] : 0;
        isd[i] = a->sdispls ? (int)a->sdispls[i] : 0;
        wt[i] = MPI_BYTE;
    }
    if (k->nb) {
        /* a communicator of its own: libnbc 4.1 reserves no tag on a rank where in-place
         * Ialltoallv/w return early (all blocks empty) while other ranks run a schedule, and
         * every later nonblocking collective on that communicator would then hang */
        MPI_Comm nc;
        MPI_Comm_dup(comm, &nc);
        MPI_Request q;
        switch (k->coll) {
        case PCS_BCAST: MPI_Ibcast(rb, n, dt, root, nc, &q); break;
        case PCS_REDUCE: MPI_Ireduce(s, rb, n, dt, op, root, nc, &q); break;
        case PCS_ALLREDUCE: MPI_Iallreduce(s, rb, n, dt, op, nc, &q); break;
        case PCS_SCAN: MPI_Iscan(s, rb, n, dt, op, nc, &q); break;
        case PCS_EXSCAN: MPI_Iexscan(s, rb, n, dt, op, nc, &q); break;
        case PCS_ALLGATHER: MPI_Iallgather(s, n, dt, rb, n, dt, nc, &q); break;
        case PCS_ALLTOALL: MPI_Ialltoall(s, n, dt, rb, n, dt, nc, &q); break;
        case PCS_GATHER: MPI_Igather(s, n, dt, rb, n, dt, root, nc, &q); break;
        case PCS_SCATTER:
            MPI_Iscatter(sb, n, dt, a->in_place ? MPI_IN_PLACE : rb, n, dt, root, nc, &q);
            break;
        case PCS_GATHERV: MPI_Igatherv(s, ic[rank], dt, rb, ic, id, dt, root, nc, &q); break;
        case PCS_SCATTERV:
            MPI_Iscatterv(sb, ic, id, dt, a->in_place ? MPI_IN_PLACE : rb, ic[rank], dt, root,
                          nc, &q);
            break;
        case PCS_ALLGATHERV: MPI_Iallgatherv(s, ic[rank], dt, rb, ic, id, dt, nc, &q); break;
        case PCS_ALLTOALLV: MPI_Ialltoallv(s, isc, isd, dt, rb, ic, id, dt, nc, &q); break;
        case PCS_ALLTOALLW: MPI_Ialltoallw(s, isc, isd, wt, rb, ic, id, wt, nc, &q); break;
        case PCS_REDUCE_SCATTER: MPI_Ireduce_scatter(s, rb, ic, dt, op, nc, &q); break;
        case PCS_REDUCE_SCATTER_BLOCK: MPI_Ireduce_scatter_block(s, rb, n, dt, op, nc, &q); break;
        case PCS_BARRIER: MPI_Ibarrier(nc, &q); break;
        default: q = MPI_REQUEST_NULL; break;
        }
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Comm_free(&nc);
        return;
    }
    switch (k->coll) {
    case PCS_BCAST: MPI_Bcast(rb, n, dt, root, comm); break;
    case PCS_REDUCE: MPI_Reduce(s, rb, n, dt, op, root, comm); break;
    case PCS_ALLREDUCE: MPI_Allreduce(s, rb, n, dt, op, comm); break;
    case PCS_SCAN: MPI_Scan(s, rb, n, dt, op, comm); break;
    case PCS_EXSCAN: MPI_Exscan(s, rb, n, dt, op, comm); break;
    case PCS_ALLGATHER: MPI_Allgather(s, n, dt, rb, n, dt, comm); break;
    case PCS_ALLTOALL: MPI_Alltoall(s, n, dt, rb, n, dt, comm); break;
    case PCS_GATHER: MPI_Gather(s, n, dt, rb, n, dt, root, comm); break;
    case PCS_SCATTER:
        MPI_Scatter(sb, n, dt, a->in_place ? MPI_IN_PLACE : rb, n, dt, root, comm);
        break;
    case PCS_GATHERV: MPI_Gatherv(s, ic[rank], dt, rb, ic, id, dt, root, comm); break;
    case PCS_SCATTERV:
        MPI_Scatterv(sb, ic, id, dt, a->in_place ? MPI_IN_PLACE : rb, ic[rank], dt, root, comm);
        break;
    case PCS_ALLGATHERV: MPI_Allgatherv(s, ic[rank], dt, rb, ic, id, dt, comm); break;
    case PCS_ALLTOALLV: MPI_Alltoallv(s, isc, isd, dt, rb, ic, id, dt, comm); break;
    case PCS_ALLTOALLW: MPI_Alltoallw(s, isc, isd, wt, rb, ic, id, wt, comm); break;
    case PCS_REDUCE_SCATTER: MPI_Reduce_scatter(s, rb, ic, dt, op, comm); break;
    case PCS_REDUCE_SCATTER_BLOCK: MPI_Reduce_scatter_block(s, rb, n, dt, op, comm); break;
    case PCS_BARRIER: MPI_Barrier(comm); break;
    default: break;
    }
}

/* ---- the definition: every rank's inputs are known (fill), so each computes its own
 * expected result locally ---- */
static const char *check_definition(const kase_t *k, const setup_t *u, const uint8_t *got, int seed)
{
    const int P = size, r = rank;
    const uint64_t ts = u->ts, blk = u->blk;
    const pcs_args_t *a = &u->a[r];
    /* inputs of rank q: send buffer (0) or, in place, receive buffer (1) */
    uint8_t *in[MAXP];
    uint64_t maxsz = 0;
    for (int q = 0; q < P; q++) {
        int b = u->a[q].in_place && k->coll != PCS_SCATTER && k->coll != PCS_SCATTERV ? 1 : 0;
        in[q] = malloc(u->sz[q][b] + 1);
        fill(in[q], u->sz[q][b], q, b, k->kind, seed);
        maxsz = u->sz[q][b] > maxsz ? u->sz[q][b] : maxsz;
    }
    uint8_t *exp = malloc(maxsz + blk * P + u->vtot + u->rstot * ts + 16);
    const char *why = NULL;
    void (*op)(const uint8_t *, uint8_t *, size_t) = k->kind == K_MATMUL ? matmul : dsum;
    switch (k->coll) {
    case PCS_BCAST:
        fill(exp, blk, k->root, 1, k->kind, seed);
        if (memcmp(got, exp, blk)) why = "bcast data";
        break;
    case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_SCAN: case PCS_EXSCAN: {
        if (k->coll == PCS_REDUCE && r != k->root) break;
        int last = k->coll == PCS_SCAN ? r : k->coll == PCS_EXSCAN ? r - 1 : P - 1;
        if (last < 0) break;
        memcpy(exp, in[last], blk);
        for (int q = last - 1; q >= 0; q--)
            op(in[q], exp, blk);
        if (memcmp(got, exp, blk)) why = "reduction result";
        break;
    }
    case PCS_ALLGATHER: case PCS_GATHER:
        if (k->coll == PCS_GATHER && r != k->root) break;
        for (int q = 0; q < P; q++)
            if (memcmp(got + q * blk, u->a[q].in_place ? in[q] + q * blk : in[q], blk))
                why = "gathered data";
        break;
    case PCS_ALLTOALL:
        for (int q = 0; q < P; q++)
            if (memcmp(got + q * blk, in[q] + r * blk, blk)) why = "alltoall data";
        break;
    case PCS_SCATTER:
        if (!a->in_place && memcmp(got, in[k->root] + r * blk, blk)) why = "scatter data";
        break;
    case PCS_GATHERV: case PCS_ALLGATHERV:
        if (k->coll == PCS_GATHERV && r != k->root) break;
        for (int q = 0; q < P; q++)
            if (!(k->coll == PCS_GATHERV && q == r && a->in_place) &&
                memcmp(got + u->displs[q] * ts,
                       u->a[q].in_place ? in[q] + u->displs[q] * ts : in[q], u->counts[q] * ts))
                why = "gathered v data";
        break;
    case PCS_SCATTERV:
        if (!a->in_place &&
            memcmp(got, in[k->root] + u->displs[r] * ts, u->counts[r] * ts)) why = "scatterv data";
        break;
    case PCS_ALLTOALLV: case PCS_ALLTOALLW:
        for (int q = 0; q < P; q++) {
            const uint8_t *src = in[q] + (k->inplace ? u->vrd[q][r] : u->vsd[q][r]) * ts;
            if (memcmp(got + u->vrd[r][q] * ts, src, u->vsc[q][r] * ts)) why = "alltoallv data";
        }
        break;
    case PCS_REDUCE_SCATTER: case PCS_REDUCE_SCATTER_BLOCK: {
        uint64_t off = (uint64_t)r * blk, n = blk;
        if (k->coll == PCS_REDUCE_SCATTER) {
            off = 0;
            for (int q = 0; q < r; q++)
                off += (uint64_t)u->counts[q] * ts;
            n = (uint64_t)u->counts[r] * ts;
        }
        memcpy(exp, in[P - 1] + off, n);
        for (int q = P - 2; q >= 0; q--)
            op(in[q] + off, exp, n);
        if (memcmp(got, exp, n)) why = "reduce_scatter result";
        break;
    }
    default: break;
    }
    for (int q = 0; q < P; q++)
        free(in[q]);
    free(exp);
    return why;
}

/* A receive posted while a send from an overlapping region is still in flight (or the
 * reverse): the outcome depends on the transport. libnbc 4.1's in-place Ialltoallv/w do it
 * when a zero count merges two rounds (a block is sent and received into in one round). */
static bool send_recv_race(const pcs_sched_t *s)
{
    enum { NSLOT = 4096 };
    static uint8_t kind[NSLOT];
    static pcs_region_t reg[NSLOT];
    static uint64_t len[NSLOT];
    memset(kind, 0, sizeof kind);
    for (size_t i = 0; i < s->n; i++) {
        const pcs_op_t *o = &s->ops[i];
        if (o->req >= NSLOT)
            return false;
        if (o->kind == PCS_OP_WAIT) {
            kind[o->req] = 0;
            continue;
        }
        if ((o->kind != PCS_OP_ISEND && o->kind != PCS_OP_IRECV) || o->a.buf == PCS_BUF_IOV ||
            o->len == 0)
            continue;
        for (int q = 0; q < NSLOT && q < s->nreqs; q++)
            if (kind[q] && kind[q] != o->kind && reg[q].buf == o->a.buf &&
                reg[q].off < o->a.off + o->len && o->a.off < reg[q].off + len[q])
                return true;
        kind[o->req] = o->kind;
        reg[o->req] = o->a;
        len[o->req] = o->len;
    }
    return false;
}

/* ---- one case: 0 = passed, 1 = failed (the reason in why), 2 = the schedule misses the
 * definition on this rank, and some rank races a send with a receive on the same block as
 * the library's algorithm does (send_recv_race: the data is undefined, in the library too),
 * 3 = not run (the library hangs) ---- */
static int run_case(const kase_t *k, int seed, bool vs_library, char *why, size_t whylen)
{
    setup_t *u = calloc(1, sizeof *u);
    make_setup(k, u);
    /* not run: libnbc 4.1's in-place Ialltoallw hangs when, on an even size, one rank's
     * blocks are all empty (it returns an empty request) and a peer's are not (it still
     * exchanges a zero-byte message with it in the last pair); the schedule does the same */
    if (k->nb && k->coll == PCS_ALLTOALLW && k->inplace && size % 2 == 0) {
        int empty = 0;
        for (int r = 0; r < size; r++) {
            int64_t m = 0;
            for (int j = 0; j < size; j++)
                m = u->vrc[r][j] > m ? u->vrc[r][j] : m;
            empty += m == 0;
        }
        if (empty > 0 && empty < size) {
            free(u);
            return 3;
        }
    }
    const pcs_args_t *a = &u->a[rank];
    pcs_ompi_forced_t f;
    memset(&f, 0, sizeof f);
    if (k->alg && k->nb) {
        f.nbc_algorithm[k->coll] = k->alg;
    } else if (k->alg) {
        f.use_dynamic_rules = true;
        f.algorithm[k->coll] = k->alg;
        f.segsize[k->coll] = k->segsize;
        f.max_requests[k->coll] = k->maxreq;
    }
    pcs_sched_t s = PCS_SCHED_INIT;
    pcs_err_t e = pcs_ompi41_schedule(a, &f, &s);
    int bad = 0;
    why[0] = 0;
    if (e) {
        snprintf(why, whylen, "schedule: %s", pcs_strerror(e));
        bad = 1;
    }
    /* every rank must agree to execute, or the others would wait forever */
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
    if (bad) {
        if (!why[0])
            snprintf(why, whylen, "another rank could not build its schedule");
        pcs_sched_free(&s);
        free(u);
        return 1;
    }
    MPI_Datatype dt = k->kind == K_BYTES ? t3 : k->kind == K_MATMUL ? MPI_INT : MPI_DOUBLE;
    MPI_Op op = k->kind == K_MATMUL ? op_matmul : MPI_SUM;
    uint8_t *buf[PCS_NBUFS];
    uint64_t bsz[PCS_NBUFS] = {u->sz[rank][0], u->sz[rank][1], s.tmp_bytes[0], s.tmp_bytes[1],
                               s.tmp_bytes[2]};
    for (int b = 0; b < PCS_NBUFS; b++) {
        buf[b] = malloc(bsz[b] + 1);
        fill(buf[b], bsz[b], rank, b, k->kind, seed);
    }
    uint8_t *lsb = malloc(bsz[0] + 1), *lrb = malloc(bsz[1] + 1);
    memcpy(lsb, buf[0], bsz[0]);
    memcpy(lrb, buf[1], bsz[1]);
    exec_sched(&s, buf, dt, op, u->ts);
    const char *w = NULL;
    int rc = 0;
    if (k->kind != K_DSUM_REAL)
        w = check_definition(k, u, buf[1], seed);
    /* the library's algorithm races on some rank: a block may be overwritten before it is
     * sent, so the data is undefined there and at its receivers (timing decides, in the
     * library as in the schedule) */
    int racy = k->nb && send_recv_race(&s);
    MPI_Allreduce(MPI_IN_PLACE, &racy, 1, MPI_INT, MPI_LOR, comm);
    if (w && racy) {
        w = NULL;
        rc = 2;
    }
    if (vs_library) { /* every rank calls it, whatever its own verdict */
        run_library(k, u, lsb, lrb, dt, op);
        bool defined = !(k->coll == PCS_EXSCAN && rank == 0) && !racy;
        if (!w && defined && memcmp(lrb, buf[1], bsz[1]))
            w = "differs from the library's own result";
    }
    if (w)
        snprintf(why, whylen, "rank %d: %s (alg %s)", rank, w, pcs_alg_name(s.alg));
    for (int b = 0; b < PCS_NBUFS; b++)
        free(buf[b]);
    free(lsb);
    free(lrb);
    pcs_sched_free(&s);
    free(u);
    return w ? 1 : rc;
}

/* ---- the sweep ---- */
static const int NALG[PCS_NCOLLS] = {[PCS_BCAST] = 9, [PCS_REDUCE] = 7, [PCS_ALLREDUCE] = 6,
    [PCS_ALLGATHER] = 6, [PCS_ALLGATHERV] = 5, [PCS_ALLTOALL] = 5, [PCS_ALLTOALLV] = 2,
    [PCS_BARRIER] = 6, [PCS_GATHER] = 3, [PCS_SCATTER] = 3, [PCS_REDUCE_SCATTER] = 4,
    [PCS_REDUCE_SCATTER_BLOCK] = 4, [PCS_SCAN] = 2, [PCS_EXSCAN] = 2};

static bool alg_fits(pcs_coll_t c, int id, int P)
{
    if ((c == PCS_ALLGATHER && id == 6) || (c == PCS_ALLGATHERV && id == 5) ||
        (c == PCS_ALLTOALL && id == 5) || (c == PCS_BARRIER && id == 5))
        return P == 2;
    return true;
}

/* the algorithms that compute a non-commutative reduction in rank order (the fixed rules
 * pick only these for such ops) */
static bool noncomm_ok(pcs_coll_t c, int id)
{
    switch (c) {
    case PCS_REDUCE: return id == 0 || id == 1 || id == 6;
    case PCS_ALLREDUCE: return id == 0 || id == 1 || id == 2 || id == 3 || id == 6;
    case PCS_REDUCE_SCATTER: return id == 0 || id == 1;
    case PCS_REDUCE_SCATTER_BLOCK: return id == 0 || id == 1 || id == 2 || id == 3;
    default: return true;
    }
}

/* coll_libnbc_i<coll>_algorithm values; the ones that keep a non-commutative op's order */
static const int NBC_NALG[PCS_NCOLLS] = {[PCS_BCAST] = 4, [PCS_REDUCE] = 3, [PCS_ALLREDUCE] = 4,
    [PCS_ALLGATHER] = 2, [PCS_SCAN] = 2, [PCS_EXSCAN] = 2};
static bool nbc_noncomm_ok(pcs_coll_t c, int id)
{
    switch (c) {
    case PCS_REDUCE: return id == 0 || id == 2;
    case PCS_ALLREDUCE: return id == 0 || id == 2 || id == 4;
    default: return true;
    }
}

static int n_pass, n_fail;

static void report(const char *name, int cases, int failed, int libdefect, int hangs,
                   const char *why)
{
    int nf = failed, nd = libdefect;
    MPI_Allreduce(MPI_IN_PLACE, &nf, 1, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, &nd, 1, MPI_INT, MPI_SUM, comm);
    /* the first failing rank's reason reaches rank 0 */
    char msg[512] = "";
    int who = failed ? rank : size, first;
    MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first < size) {
        if (rank == first)
            snprintf(msg, sizeof msg, "%s", why);
        MPI_Bcast(msg, sizeof msg, MPI_CHAR, first, comm);
    }
    if (rank == 0) {
        char extra[160] = "";
        if (nd)
            snprintf(extra, sizeof extra, "; %d rank results lost to a send/receive race in "
                     "the library's algorithm", nd);
        if (hangs)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
                     "; %d not run: the library hangs on them", hangs);
        if (nf == 0)
            printf("ok P=%d %s (%d cases%s)\n", size, name, cases - hangs, extra);
        else
            printf("not ok P=%d %s: %s\n", size, name, msg);
        fflush(stdout);
    }
    if (nf)
        n_fail++;
    else
        n_pass++;
}

static void sweep(pcs_coll_t c, bool quick, bool nb)
{
    /* the fixed rules also at sizes where they switch algorithms (up to 320 KB of doubles) */
    static const int64_t counts_full[] = {0, 1, 5, 64, 600, 3000, 40000};
    static const int64_t counts_quick[] = {1, 13, 600, 3000};
    const bool red = c == PCS_REDUCE || c == PCS_ALLREDUCE || c == PCS_SCAN || c == PCS_EXSCAN ||
                     c == PCS_REDUCE_SCATTER || c == PCS_REDUCE_SCATTER_BLOCK;
    const bool has_inplace = c != PCS_BCAST && c != PCS_BARRIER;
    for (int id = 0; id <= (nb ? NBC_NALG[c] : NALG[c]); id++) {
        if (!nb && !alg_fits(c, id, size))
            continue;
        if (!nb && c == PCS_ALLTOALLW && id > 0)
            continue;
        const int64_t *counts = quick ? counts_quick : counts_full;
        const int ncounts = id ? (quick ? 2 : 4) : quick ? 4 : 7;
        int cases = 0, failed = 0, defects = 0, hangs = 0, seed = 0;
        char why[400] = "";
        for (int ci = 0; ci < ncounts; ci++)
            for (int ri = 0; ri < (rooted(c) ? 2 : 1); ri++)
                for (int ip = 0; ip <= (has_inplace ? 1 : 0); ip++)
                    for (int ki = 0; ki < (red ? 3 : 1); ki++) {
                        kase_t k = {.coll = c, .alg = id, .count = counts[ci],
                                    .root = ri ? size - 1 : size / 2, .inplace = ip, .nb = nb};
                        k.kind = !red ? K_BYTES : ki == 0 ? K_DSUM : ki == 1 ? K_MATMUL : K_DSUM_REAL;
                        if (k.kind == K_MATMUL && !(nb ? nbc_noncomm_ok(c, id) : noncomm_ok(c, id)))
                            continue;
                        /* fractions: only where the library's own result is the reference */
                        bool vs_lib = id == 0 && is_ompi41;
                        if (k.kind == K_DSUM_REAL && !vs_lib)
                            continue;
                        char w[200];
                        cases++;
                        int res = run_case(&k, ++seed, vs_lib, w, sizeof w);
                        defects += res == 2;
                        hangs += res == 3;
                        if (res == 1) {
                            if (!failed)
                                snprintf(why, sizeof why, "count %lld root %d in place %d kind %d: %s",
                                         (long long)k.count, k.root, k.inplace, k.kind, w);
                            failed++;
                        }
                    }
        char name[96];
        snprintf(name, sizeof name, "%s%s %s rules", nb ? "i" : "", pcs_coll_name(c),
                 nb ? "libnbc's" : "fixed");
        if (id && nb) {
            snprintf(name, sizeof name, "i%s libnbc alg %d", pcs_coll_name(c), id);
        } else if (id) {
            /* name the algorithm as the library's id maps to it (P-independent) */
            static const int64_t ones[MAXP] = {[0 ... MAXP - 1] = 1 << 12};
            pcs_args_t a = {.coll = c, .size = size > 1 ? size : 2, .rank = 0, .type_size = 8,
                            .count = 1 << 20, .commutative = true, .counts = ones,
                            .scounts = ones};
            pcs_ompi_forced_t f;
            memset(&f, 0, sizeof f);
            f.use_dynamic_rules = true;
            f.algorithm[c] = id;
            pcs_choice_t ch;
            pcs_ompi41_select(&a, &f, &ch);
            snprintf(name, sizeof name, "%s alg %d (%s)", pcs_coll_name(c), id, pcs_alg_name(ch.alg));
        }
        report(name, cases, failed, defects, hangs, why);
    }
}

/* algorithms whose messages depend on a forced segment size or request limit */
static void sweep_forced(void)
{
    static const struct { pcs_coll_t c; int id; int64_t seg; int maxreq; const char *name; } t[] = {
        {PCS_BCAST, 4, 2, 0, "bcast split_bintree segsize 2 elements"},
        {PCS_BCAST, 6, 3, 0, "bcast binomial segsize 3 elements"},
        {PCS_BCAST, 2, 3, 0, "bcast chain segsize 3 elements"},
        {PCS_ALLREDUCE, 5, 2, 0, "allreduce segmented_ring segsize 2 elements"},
        {PCS_REDUCE, 2, 2, 0, "reduce chain segsize 2 elements"},
        {PCS_REDUCE, 5, 1, 2, "reduce binomial segsize 1, max_requests 2"},
        {PCS_ALLTOALL, 4, 0, 1, "alltoall linear_sync max_requests 1"},
        {PCS_ALLTOALL, 4, 0, 2, "alltoall linear_sync max_requests 2"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int cases = 0, failed = 0;
        char why[400] = "";
        for (int64_t count = 7; count <= 70; count *= 10)
            for (int ip = 0; ip <= (t[i].c == PCS_BCAST ? 0 : 1); ip++) {
                bool red = t[i].c != PCS_BCAST && t[i].c != PCS_ALLTOALL;
                kase_t k = {.coll = t[i].c, .alg = t[i].id, .count = count, .root = size / 2,
                            .inplace = ip, .kind = red ? K_DSUM : K_BYTES, .maxreq = t[i].maxreq};
                k.segsize = t[i].seg * (red ? 8 : 3);
                char w[200];
                cases++;
                if (run_case(&k, (int)(count + ip), false, w, sizeof w)) {
                    if (!failed)
                        snprintf(why, sizeof why, "count %lld in place %d: %s", (long long)count,
                                 ip, w);
                    failed++;
                }
            }
        report(t[i].name, cases, failed, 0, 0, why);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size > MAXP) {
        if (rank == 0)
            fprintf(stderr, "t_coll_exec: at most %d ranks\n", MAXP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bool quick = argc > 1 && !strcmp(argv[1], "--quick");
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(ver, &len);
    is_ompi41 = strstr(ver, "Open MPI v4.1") != NULL;
    if (rank == 0 && !is_ompi41)
        printf("# not Open MPI 4.1: the library chooses other algorithms; schedules checked "
               "against the collectives' definitions only\n");
    MPI_Type_contiguous(3, MPI_BYTE, &t3);
    MPI_Type_commit(&t3);
    MPI_Op_create(mpi_matmul, 0, &op_matmul);
    for (int c = 0; c < PCS_NCOLLS; c++)
        sweep((pcs_coll_t)c, quick, false);
    for (int c = 0; c < PCS_NCOLLS; c++)
        sweep((pcs_coll_t)c, quick, true);
    sweep_forced();
    if (rank == 0)
        printf("%d passed, %d failed\n", n_pass, n_fail);
    MPI_Op_free(&op_matmul);
    MPI_Type_free(&t3);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return n_fail ? 1 : 0;
}
