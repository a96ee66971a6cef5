/* coll_ompi_nbc.c: Open MPI 4.1's nonblocking collectives (coll/libnbc, which serves every
 * MPI_I* call on an intracommunicator): the algorithm choice and the per-rank schedules,
 * written from a reading of ompi/mca/coll/libnbc/nbc_i*.c v4.1.4 (identical through 4.1.8).
 *
 * libnbc builds a list of rounds; a round's sends and receives are posted in order (local
 * copies and reductions run as they are reached while posting), and the round ends at
 * NBC_Sched_barrier (or an operation added with barrier=true) once all its requests are
 * complete. Here: ISEND/IRECV in the same order, local operations where libnbc has them, and
 * a WAIT on every request of the round at its end. Steps number the messages as the tree,
 * chain or iteration they belong to, the same at both ends. */
#include <stdlib.h>
#include <string.h>

#include "coll_ompi.h"

/* ompi_coll_base_nbc_reserve_tags: the first nonblocking operation on a communicator gets
 * -27, the next ones count down; the schedule carries the first. */
enum { TAG_NBC = -27 };

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2 };

/* ---- libnbc's schedule calls ---- */
typedef struct nb {
    pcs_ctx_t *c;
    unsigned nreq; /* requests of the current round */
} nb_t;

static void nb_barrier(nb_t *n)
{
    for (unsigned i = 0; i < n->nreq; i++)
        pcs_wait(n->c, i);
    n->nreq = 0;
}
static void nb_send(nb_t *n, int64_t step, int peer, int buf, uint64_t off, uint64_t len,
                    bool barrier)
{
    pcs_at(n->c, step);
    pcs_isend(n->c, n->nreq++, peer, buf, off, len);
    if (barrier)
        nb_barrier(n);
}
static void nb_recv(nb_t *n, int64_t step, int peer, int buf, uint64_t off, uint64_t len,
                    bool barrier)
{
    pcs_at(n->c, step);
    pcs_irecv(n->c, n->nreq++, peer, buf, off, len);
    if (barrier)
        nb_barrier(n);
}
/* NBC_Sched_op(buf1, buf2): buf2 = buf1 (op) buf2, ompi_op_reduce's order */
static void nb_op(nb_t *n, int inb, uint64_t inoff, int iob, uint64_t iooff, uint64_t len,
                  bool barrier)
{
    pcs_reduce(n->c, inb, inoff, iob, iooff, len);
    if (barrier)
        nb_barrier(n);
}
static void nb_copy(nb_t *n, int sb, uint64_t soff, int db, uint64_t doff, uint64_t len,
                    bool barrier)
{
    pcs_copy(n->c, sb, soff, db, doff, len);
    if (barrier)
        nb_barrier(n);
}

/* ---- arithmetic as libnbc has it ---- */
static int ceil_log2(int v) /* nbc_internal.h ceil_of_log2 */
{
    int r = 0;
    while ((1 << r) < v)
        r++;
    return r;
}
static int pof2_floor(int p) { return pcs_pow2_floor(p); } /* opal_next_poweroftwo(p) >> 1 */
static int popcount(int v)
{
    int k = 0;
    for (; v; v &= v - 1)
        k++;
    return k;
}
/* ibcast/ireduce/iallreduce RANK2VRANK: root and 0 swap places, the others stay */
static int swap_root(int x, int root) { return x == 0 ? root : x == root ? 0 : x; }

/* ==== Ibarrier (nbc_ibarrier.c:49): dissemination ==== */
static void ibarrier(nb_t *n, int64_t *gsteps)
{
    const int rank = n->c->rank, p = n->c->size, maxround = ceil_log2(p) - 1;
    for (int round = 0; round <= maxround; round++) {
        nb_send(n, round, (rank + (1 << round)) % p, R, 0, 0, false);
        nb_recv(n, round, (rank - (1 << round) + p) % p, R, 0, 0, false);
        if (round < maxround)
            nb_barrier(n);
    }
    *gsteps = maxround + 1;
}

/* ==== Ibcast (nbc_ibcast.c) ==== */
static void ibcast(nb_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size, root = a->root;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    *gsteps = 0;
    switch (ch->alg) {
    case PCS_ALG_NBC_BCAST_LINEAR: /* l.278 */
        if (rank == root) {
            for (int peer = 0; peer < p; peer++)
                if (peer != root)
                    nb_send(n, 0, peer, R, 0, len, false);
        } else {
            nb_recv(n, 0, root, R, 0, len, false);
        }
        *gsteps = 1;
        return;
    case PCS_ALG_NBC_BCAST_BINOMIAL: { /* l.238: vrank depth = its number of set bits */
        const int maxr = ceil_log2(p), vrank = swap_root(rank, root);
        if (vrank != 0) {
            for (int r = 0; r < maxr; r++)
                if (vrank >= (1 << r) && vrank < (1 << (r + 1)))
                    nb_recv(n, popcount(vrank) - 1, swap_root(vrank - (1 << r), root), R, 0,
                            len, false);
            nb_barrier(n);
        }
        for (int r = 0; r < maxr; r++)
            if ((vrank + (1 << r) < p && vrank < (1 << r)) || vrank == 0)
                nb_send(n, popcount(vrank), swap_root(vrank + (1 << r), root), R, 0, len, false);
        *gsteps = maxr;
        return;
    }
    case PCS_ALG_NBC_BCAST_CHAIN: { /* l.304: fragments of segsize bytes down a chain */
        const int vrank = swap_root(rank, root);
        const int rpeer = swap_root(vrank - 1, root), speer = swap_root(vrank + 1, root);
        const int64_t count = a->count, fragsize = (int64_t)ch->segsize;
        if (count == 0 || fragsize <= 0 || len == 0)
            return; /* (a zero-size type divides by zero in libnbc) */
        int64_t numfrag = (int64_t)len / fragsize + ((int64_t)len % fragsize != 0);
        const int64_t fragcount = count / numfrag;
        for (int64_t f = 0; f < numfrag; f++) {
            const uint64_t off = (uint64_t)(f * fragcount) * ts;
            const int64_t thiscount = f == numfrag - 1 ? count - fragcount * f : fragcount;
            const uint64_t fl = (uint64_t)thiscount * ts;
            if (vrank != 0)
                nb_recv(n, vrank - 1 + f, rpeer, R, off, fl, true);
            if (vrank != p - 1) {
                nb_send(n, vrank + f, speer, R, off, fl, false);
                if (vrank == 0)
                    nb_barrier(n);
            }
        }
        *gsteps = p - 1 + numfrag - 1;
        return;
    }
    case PCS_ALG_NBC_BCAST_KNOMIAL: { /* l.373: depth = non-zero base-radix digits */
        const int k = ch->radix, vrank = (rank - root + p) % p;
        int depth = 0;
        for (int v = vrank; v; v /= k)
            depth += v % k != 0;
        int mask = 1;
        while (mask < p) {
            if (vrank % (k * mask)) {
                int parent = vrank / (k * mask) * (k * mask);
                nb_recv(n, depth - 1, (parent + root) % p, R, 0, len, true);
                break;
            }
            mask *= k;
        }
        mask /= k;
        for (; mask > 0; mask /= k)
            for (int r = 1; r < k; r++) {
                int child = vrank + mask * r;
                if (child < p)
                    nb_send(n, depth, (child + root) % p, R, 0, len, false);
            }
        int h = 0;
        for (int m = 1; m < p; m *= k)
            h++;
        *gsteps = h;
        return;
    }
    default: n->c->s->err = PCS_E_UNSUPPORTED; return;
    }
}

/* ==== binomial reduction to vrank 0 (ireduce red_sched_binomial, iallreduce
 * allred_sched_diss): lbuf/rbuf alternate so that the result ends in redbuf; the message of
 * round r is step r - 1. Returns the buffer holding this rank's last partial result. ==== */
static void binomial_up(nb_t *n, int vrank, int vroot, int sbuf, int redbuf, int tmp, bool inplace,
                        int64_t count_bytes, int *out_lbuf)
{
    const int p = n->c->size, maxr = ceil_log2(p);
    const uint64_t len = (uint64_t)count_bytes;
    int rbuf, lbuf;
    if (maxr % 2 == 0) {
        rbuf = tmp;
        lbuf = redbuf;
    } else {
        lbuf = tmp;
        rbuf = redbuf;
        if (inplace)
            nb_copy(n, rbuf, 0, tmp, 0, len, true);
    }
    bool firstred = true;
    for (int r = 1; r <= maxr; r++) {
        if (vrank % (1 << r) == 0) {
            int vpeer = vrank + (1 << (r - 1)), peer = swap_root(vpeer, vroot);
            if (peer < p) {
                nb_recv(n, r - 1, peer, rbuf, 0, len, true);
                if (firstred && !inplace) {
                    nb_op(n, sbuf, 0, rbuf, 0, len, true);
                    firstred = false;
                } else {
                    nb_op(n, lbuf, 0, rbuf, 0, len, true);
                }
                int t = rbuf;
                rbuf = lbuf;
                lbuf = t;
            }
        } else {
            int peer = swap_root(vrank - (1 << (r - 1)), vroot);
            nb_send(n, r - 1, peer, firstred && !inplace ? sbuf : lbuf, 0, len, false);
            break;
        }
    }
    *out_lbuf = lbuf;
}

/* ==== Rabenseifner's reduce-scatter part (ireduce red_sched_redscat_gather, iallreduce
 * allred_sched_redscat_allgather): steps 1 and 2, into rbuf with tmp_buf as scratch ==== */
typedef struct rsg {
    int nsteps, pof2, rem, vrank, base; /* base: first step of the halving (2 if rem) */
    int64_t rindex[32], sindex[32], rcount[32], scount[32];
} rsg_t;

static void redscat(nb_t *n, rsg_t *g, int rbuf, int tmpb, int64_t count)
{
    const int rank = n->c->rank, p = n->c->size;
    const uint64_t ts = n->c->ts;
    g->nsteps = pcs_log2_floor(p);
    g->pof2 = 1 << g->nsteps;
    g->rem = p - g->pof2;
    g->base = g->rem ? 2 : 0;
    if (rank < 2 * g->rem) {
        const int64_t lh = count / 2, rh = count - lh;
        if (rank % 2 != 0) {
            nb_send(n, 0, rank - 1, rbuf, 0, (uint64_t)lh * ts, false);
            nb_recv(n, 0, rank - 1, tmpb, (uint64_t)lh * ts, (uint64_t)rh * ts, true);
            nb_op(n, tmpb, (uint64_t)lh * ts, rbuf, (uint64_t)lh * ts, (uint64_t)rh * ts, true);
            nb_send(n, 1, rank - 1, rbuf, (uint64_t)lh * ts, (uint64_t)rh * ts, true);
            g->vrank = -1;
        } else {
            nb_send(n, 0, rank + 1, rbuf, (uint64_t)lh * ts, (uint64_t)rh * ts, false);
            nb_recv(n, 0, rank + 1, tmpb, 0, (uint64_t)lh * ts, true);
            nb_op(n, tmpb, 0, rbuf, 0, (uint64_t)lh * ts, true);
            nb_recv(n, 1, rank + 1, rbuf, (uint64_t)lh * ts, (uint64_t)rh * ts, true);
            g->vrank = rank / 2;
        }
    } else {
        g->vrank = rank - g->rem;
    }
    if (g->vrank == -1)
        return;
    int step = 0;
    int64_t wsize = count;
    g->sindex[0] = g->rindex[0] = 0;
    for (int mask = 1; mask < g->pof2; mask <<= 1) {
        const int vdest = g->vrank ^ mask;
        const int dest = vdest < g->rem ? vdest * 2 : vdest + g->rem;
        if (rank < dest) {
            g->rcount[step] = wsize / 2;
            g->scount[step] = wsize - g->rcount[step];
            g->sindex[step] = g->rindex[step] + g->rcount[step];
        } else {
            g->scount[step] = wsize / 2;
            g->rcount[step] = wsize - g->scount[step];
            g->rindex[step] = g->sindex[step] + g->scount[step];
        }
        nb_send(n, g->base + step, dest, rbuf, (uint64_t)g->sindex[step] * ts,
                (uint64_t)g->scount[step] * ts, false);
        nb_recv(n, g->base + step, dest, tmpb, (uint64_t)g->rindex[step] * ts,
                (uint64_t)g->rcount[step] * ts, true);
        nb_op(n, tmpb, (uint64_t)g->rindex[step] * ts, rbuf, (uint64_t)g->rindex[step] * ts,
              (uint64_t)g->rcount[step] * ts, true);
        if (step + 1 < g->nsteps) {
            g->rindex[step + 1] = g->rindex[step];
            g->sindex[step + 1] = g->rindex[step];
            wsize = g->rcount[step];
            step++;
        }
    }
}

/* ==== Ireduce (nbc_ireduce.c) ==== */
static void ireduce(nb_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size, root = a->root;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const bool inplace = rank == root && a->in_place;
    const int sbuf = inplace ? R : S;
    /* l.145: the root reduces in its receive buffer, the others in the second half of the
     * scratch buffer (T2 here); T is the first half */
    const int redbuf = rank == root ? R : T2;
    *gsteps = 0;
    switch (ch->alg) {
    case PCS_ALG_NBC_REDUCE_BINOMIAL: { /* l.356 */
        pcs_need_tmp(n->c, T, len);
        if (rank != root)
            pcs_need_tmp(n->c, T2, len);
        const int vroot = a->commutative ? root : 0, maxr = ceil_log2(p);
        int lbuf;
        binomial_up(n, swap_root(rank, vroot), vroot, sbuf, redbuf, T, inplace, (int64_t)len,
                    &lbuf);
        if (vroot != root) { /* non-commutative: the result goes from 0 to the root */
            if (rank == 0)
                nb_send(n, maxr, root, redbuf, 0, len, false);
            else if (rank == root)
                nb_recv(n, maxr, vroot, redbuf, 0, len, false);
            *gsteps = maxr + 1;
        } else {
            *gsteps = maxr;
        }
        return;
    }
    case PCS_ALG_NBC_REDUCE_CHAIN: { /* l.477: fragments of 8192 bytes up a chain */
        pcs_need_tmp(n->c, T, len);
        const int vrank = swap_root(rank, root);
        const int rpeer = swap_root(vrank + 1, root), speer = swap_root(vrank - 1, root);
        const int64_t count = a->count, fragsize = (int64_t)ch->segsize;
        if (count == 0 || fragsize <= 0 || len == 0)
            return;
        const int64_t numfrag = (int64_t)len / fragsize + ((int64_t)len % fragsize != 0);
        const int64_t fragcount = count / numfrag;
        const bool distinct = !inplace; /* sendbuf != recvbuf */
        for (int64_t f = 0; f < numfrag; f++) {
            const uint64_t off = (uint64_t)(f * fragcount) * ts;
            const int64_t thiscount = f == numfrag - 1 ? count - fragcount * f : fragcount;
            const uint64_t fl = (uint64_t)thiscount * ts;
            /* message from vrank v to v - 1, fragment f: step p - 1 - v + f */
            if (vrank != p - 1) {
                if (vrank == 0 && distinct)
                    nb_recv(n, p - 2 - vrank + f, rpeer, R, off, fl, true);
                else
                    nb_recv(n, p - 2 - vrank + f, rpeer, T, off, fl, true);
                if (vrank == 0) {
                    if (distinct)
                        nb_op(n, S, off, R, off, fl, true);
                    else
                        nb_op(n, T, off, R, off, fl, true);
                } else {
                    nb_op(n, S, off, T, off, fl, true);
                }
            }
            if (vrank != 0) {
                if (vrank == p - 1)
                    nb_send(n, p - 1 - vrank + f, speer, S, off, fl, true);
                else
                    nb_send(n, p - 1 - vrank + f, speer, T, off, fl, true);
            }
        }
        *gsteps = p - 1 + numfrag - 1;
        return;
    }
    case PCS_ALG_NBC_REDUCE_REDSCAT_GATHER: { /* l.619 */
        const int64_t count = a->count;
        pcs_need_tmp(n->c, T, len);
        if (rank != root)
            pcs_need_tmp(n->c, T2, len);
        if (rank != root || !inplace)
            nb_copy(n, S, 0, redbuf, 0, len, true);
        rsg_t g;
        redscat(n, &g, redbuf, T, count);
        const int nsteps = g.nsteps;
        int vroot = 0, gbase = g.base + nsteps;
        const bool root_out = root < 2 * g.rem && root % 2 != 0;
        if (root < 2 * g.rem) {
            if (root_out) {
                gbase++;
                if (rank == root) {
                    /* case 1: the root sat out step 2; it takes process 0's place */
                    int64_t wsize = count;
                    for (int s = 0; s < nsteps; s++) {
                        g.rcount[s] = wsize / 2;
                        g.scount[s] = wsize - g.rcount[s];
                        g.rindex[s] = 0;
                        g.sindex[s] = g.rcount[s];
                        wsize /= 2;
                    }
                    nb_recv(n, gbase - 1, 0, redbuf, 0, (uint64_t)g.rcount[nsteps - 1] * ts,
                            true);
                    g.vrank = 0;
                } else if (g.vrank == 0) {
                    nb_send(n, gbase - 1, root, redbuf, 0, (uint64_t)g.rcount[nsteps - 1] * ts,
                            true);
                    g.vrank = -1;
                }
            } else {
                vroot = root / 2;
            }
        } else {
            vroot = root - g.rem;
        }
        if (g.vrank != -1) {
            int step = nsteps - 1, k = 0;
            for (int mask = g.pof2 >> 1; mask > 0; mask >>= 1, k++) {
                const int vdest = g.vrank ^ mask;
                int dest = vdest < g.rem ? vdest * 2 : vdest + g.rem;
                if (vdest == 0 && root_out)
                    dest = root;
                if ((vdest >> step) << step == (vroot >> step) << step) {
                    nb_send(n, gbase + k, dest, redbuf, (uint64_t)g.rindex[step] * ts,
                            (uint64_t)g.rcount[step] * ts, false);
                    break;
                }
                nb_recv(n, gbase + k, dest, redbuf, (uint64_t)g.sindex[step] * ts,
                        (uint64_t)g.scount[step] * ts, true);
                step--;
            }
        }
        *gsteps = gbase + nsteps;
        return;
    }
    default: n->c->s->err = PCS_E_UNSUPPORTED; return;
    }
}

/* ==== Iallreduce (nbc_iallreduce.c) ==== */
static void iallreduce(nb_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const bool inplace = a->in_place;
    const int sbuf = inplace ? R : S;
    pcs_need_tmp(n->c, T, len); /* l.112: span bytes for every algorithm */
    *gsteps = 0;
    switch (ch->alg) {
    case PCS_ALG_NBC_ALLREDUCE_BINOMIAL: { /* l.345: binomial reduce to 0, binomial bcast */
        const int maxr = ceil_log2(p);
        int lbuf;
        binomial_up(n, rank, 0, sbuf, R, T, inplace, (int64_t)len, &lbuf);
        if (rank != 0) {
            for (int r = 0; r < maxr; r++)
                if (rank >= (1 << r) && rank < (1 << (r + 1)))
                    nb_recv(n, maxr + popcount(rank) - 1, rank - (1 << r), R, 0, len, false);
            nb_barrier(n);
        }
        for (int r = 0; r < maxr; r++)
            if ((rank + (1 << r) < p && rank < (1 << r)) || rank == 0)
                nb_send(n, maxr + popcount(rank), rank + (1 << r), R, 0, len, false);
        *gsteps = 2 * maxr;
        return;
    }
    case PCS_ALG_NBC_ALLREDUCE_RING: { /* l.630 */
        if (a->count == 0)
            return;
        const int64_t seg = a->count / p;
        int64_t segsz[64 + 1], *dyn = NULL, *segs = segsz;
        if (p + 1 > 65) {
            segs = dyn = calloc((size_t)p + 1, sizeof *dyn);
            if (!dyn) {
                n->c->s->err = PCS_E_NOMEM;
                return;
            }
        }
        /* segs[i] = offset of element block i (in elements), segs[p] = count */
        segs[0] = 0;
        int64_t extra = a->count % p;
        for (int i = 0; i < p; i++) {
            int64_t sz = seg + (extra > 0 ? 1 : 0);
            if (extra > 0)
                extra--;
            segs[i + 1] = segs[i] + sz;
        }
#define SOFF(e) ((uint64_t)segs[(e)] * ts)
#define SLEN(e) ((uint64_t)(segs[(e) + 1] - segs[(e)]) * ts)
        const int speer = (rank + 1) % p, rpeer = (rank - 1 + p) % p;
        for (int round = 0; round < p - 1; round++) {
            const int se = (rank + 1 - round + 2 * p) % p, re = (rank - round + 2 * p) % p;
            nb_send(n, round, speer, round == 0 ? sbuf : R, SOFF(se), SLEN(se), false);
            if (!inplace) {
                nb_recv(n, round, rpeer, R, SOFF(re), SLEN(re), true);
                nb_op(n, S, SOFF(re), R, SOFF(re), SLEN(re), true);
            } else {
                nb_recv(n, round, rpeer, T, 0, SLEN(re), true);
                nb_op(n, T, 0, R, SOFF(re), SLEN(re), true);
            }
        }
        for (int round = p - 1; round < 2 * p - 2; round++) {
            const int se = (rank + 1 - round + 2 * p) % p, re = (rank - round + 2 * p) % p;
            nb_send(n, round, speer, R, SOFF(se), SLEN(se), false);
            nb_recv(n, round, rpeer, R, SOFF(re), SLEN(re), true);
        }
#undef SOFF
#undef SLEN
        free(dyn);
        *gsteps = 2 * p - 2;
        return;
    }
    case PCS_ALG_NBC_ALLREDUCE_REDSCAT_ALLGATHER: { /* l.940 */
        if (!inplace)
            nb_copy(n, S, 0, R, 0, len, true);
        rsg_t g;
        redscat(n, &g, R, T, a->count);
        const int ab = g.base + g.nsteps;
        if (g.vrank != -1) {
            int step = g.nsteps - 1, k = 0;
            for (int mask = g.pof2 >> 1; mask > 0; mask >>= 1, k++, step--) {
                const int vdest = g.vrank ^ mask;
                const int dest = vdest < g.rem ? vdest * 2 : vdest + g.rem;
                nb_send(n, ab + k, dest, R, (uint64_t)g.rindex[step] * ts,
                        (uint64_t)g.rcount[step] * ts, false);
                nb_recv(n, ab + k, dest, R, (uint64_t)g.sindex[step] * ts,
                        (uint64_t)g.scount[step] * ts, true);
            }
        }
        if (rank < 2 * g.rem) {
            if (rank % 2 != 0)
                nb_recv(n, ab + g.nsteps, rank - 1, R, 0, len, false);
            else
                nb_send(n, ab + g.nsteps, rank + 1, R, 0, len, false);
        }
        *gsteps = ab + g.nsteps + (g.rem ? 1 : 0);
        return;
    }
    case PCS_ALG_NBC_ALLREDUCE_RECURSIVE_DOUBLING: { /* l.543 */
        int tsend = T, trecv = R;
        nb_copy(n, sbuf, 0, T, 0, len, true);
        const int pof2 = pof2_floor(p), rem = p - pof2, base = rem ? 1 : 0;
        int vrank;
        if (rank < 2 * rem) {
            if (rank % 2 == 0) {
                nb_send(n, 0, rank + 1, tsend, 0, len, true);
                vrank = -1;
            } else {
                nb_recv(n, 0, rank - 1, trecv, 0, len, true);
                nb_op(n, trecv, 0, tsend, 0, len, true);
                vrank = rank >> 1;
            }
        } else {
            vrank = rank - rem;
        }
        int k = 0;
        if (vrank >= 0)
            for (int dist = 1; dist < pof2; dist <<= 1, k++) {
                int remote = vrank ^ dist;
                remote = remote < rem ? remote * 2 + 1 : remote + rem;
                nb_send(n, base + k, remote, tsend, 0, len, false);
                nb_recv(n, base + k, remote, trecv, 0, len, true);
                if (rank < remote) {
                    nb_op(n, tsend, 0, trecv, 0, len, true);
                    int t = trecv;
                    trecv = tsend;
                    tsend = t;
                } else {
                    nb_op(n, trecv, 0, tsend, 0, len, true);
                }
            }
        const int last = base + pcs_log2_floor(pof2);
        if (rank < 2 * rem) {
            if (rank % 2 == 0) {
                nb_recv(n, last, rank + 1, R, 0, len, false);
                tsend = R;
            } else {
                nb_send(n, last, rank - 1, tsend, 0, len, false);
            }
        }
        if (tsend != R)
            nb_copy(n, tsend, 0, R, 0, len, false);
        *gsteps = last + (rem ? 1 : 0);
        return;
    }
    default: n->c->s->err = PCS_E_UNSUPPORTED; return;
    }
}

/* ==== the v-variants: block i's byte offset and length ==== */
static uint64_t vd(const pcs_ctx_t *c, const int64_t *cnt, const int64_t *dsp, int i)
{
    return pcs_vdisp(c->ts, cnt, dsp, i);
}
static uint64_t vn(const pcs_ctx_t *c, const int64_t *cnt, int i)
{
    return (uint64_t)cnt[i] * c->ts;
}

/* ialltoallv/w in place (a2av_sched_inplace, a2aw_sched_inplace): pairs rank +- i, the block
 * for the left peer saved in T first. w: the final exchange of an even size is unconditional
 * (zero-byte messages included). Pair i is steps 2(i-1) and 2(i-1)+1. */
static void a2av_inplace(nb_t *n, bool w)
{
    const pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size;
    const int64_t *cn = a->counts, *dp = a->displs;
    int i;
    for (i = 1; i < (p + 1) / 2; i++) {
        const int sp = (rank + i) % p, rp = (rank + p - i) % p;
        const int64_t st = 2 * (i - 1);
        if (cn[rp] != 0)
            nb_copy(n, R, vd(c, cn, dp, rp), T, 0, vn(c, cn, rp), true);
        if (cn[sp] != 0)
            nb_send(n, st, sp, R, vd(c, cn, dp, sp), vn(c, cn, sp), false);
        if (cn[rp] != 0)
            nb_recv(n, st, rp, R, vd(c, cn, dp, rp), vn(c, cn, rp), true);
        if (cn[rp] != 0)
            nb_send(n, st + 1, rp, T, 0, vn(c, cn, rp), false);
        if (cn[sp] != 0)
            nb_recv(n, st + 1, sp, R, vd(c, cn, dp, sp), vn(c, cn, sp), true);
    }
    if (p % 2 == 0) {
        const int peer = (rank + p / 2) % p;
        const int64_t st = 2 * (i - 1);
        nb_copy(n, R, vd(c, cn, dp, peer), T, 0, vn(c, cn, peer), true);
        if (w || cn[peer] != 0) {
            nb_send(n, st, peer, T, 0, vn(c, cn, peer), false);
            nb_recv(n, st, peer, R, vd(c, cn, dp, peer), vn(c, cn, peer), true);
        }
    }
}

static int64_t a2a_steps(int p) { return p < 2 ? 0 : 2 * ((p + 1) / 2 - 1) + (p % 2 == 0); }

/* ==== the binomial reduction to 0 and linear scatter of Ireduce_scatter(_block) ==== */
static void rs_binomial(nb_t *n, bool block, int64_t *gsteps)
{
    const pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size, maxr = ceil_log2(p);
    const uint64_t ts = c->ts;
    const bool inplace = a->in_place;
    const int sbuf = inplace ? R : S; /* NBC_IN_PLACE: sendbuf = recvbuf */
    int64_t total = 0;
    if (block)
        total = (int64_t)p * a->count;
    else
        for (int i = 0; i < p; i++)
            total += a->counts[i];
    const uint64_t len = (uint64_t)total * ts;
    pcs_need_tmp(n->c, T, len);
    pcs_need_tmp(n->c, T2, len);
    int rbuf = T, lbuf = T2;
    if (block && p == 1 && !inplace)
        nb_copy(n, S, 0, T2, 0, len, false);
    bool firstred = true;
    for (int r = 1; r <= maxr; r++) {
        if (rank % (1 << r) == 0) {
            const int peer = rank + (1 << (r - 1));
            if (peer < p) {
                nb_recv(n, r - 1, peer, rbuf, 0, len, true);
                nb_op(n, firstred ? sbuf : lbuf, 0, rbuf, 0, len, true);
                firstred = false;
                int t = rbuf;
                rbuf = lbuf;
                lbuf = t;
            }
        } else {
            nb_send(n, r - 1, rank - (1 << (r - 1)), firstred ? sbuf : lbuf, 0, len, false);
            break;
        }
    }
    nb_barrier(n);
    const uint64_t own = block ? (uint64_t)a->count * ts : (uint64_t)a->counts[rank] * ts;
    if (rank != 0) {
        nb_recv(n, maxr, 0, R, 0, own, false);
    } else {
        uint64_t off = 0;
        for (int r = 1; r < p; r++) {
            off += block ? (uint64_t)a->count * ts : (uint64_t)a->counts[r - 1] * ts;
            nb_send(n, maxr, r, lbuf, off,
                    block ? (uint64_t)a->count * ts : (uint64_t)a->counts[r] * ts, false);
        }
        if (!block || p != 1 || !inplace)
            nb_copy(n, lbuf, 0, R, 0, own, false);
    }
    *gsteps = p > 1 ? maxr + 1 : 0;
}

/* ==== Iscan / Iexscan recursive doubling (scan_sched_recursivedoubling, exscan_...) ==== */
static void scan_rdbl(nb_t *n, bool ex, int64_t *gsteps)
{
    const pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size;
    const uint64_t len = (uint64_t)a->count * c->ts;
    const bool inplace = a->in_place;
    pcs_need_tmp(n->c, T, len);
    pcs_need_tmp(n->c, T2, len);
    int psend = T, precv = T2;
    *gsteps = 0;
    if (!ex) {
        if (!inplace)
            nb_copy(n, S, 0, R, 0, len, true);
        if (p < 2)
            return;
        nb_copy(n, R, 0, psend, 0, len, true);
    } else {
        nb_copy(n, inplace ? R : S, 0, psend, 0, len, true);
    }
    bool first = true;
    int k = 0;
    for (int mask = 1; mask < p; mask <<= 1, k++) {
        const int remote = rank ^ mask;
        if (remote >= p)
            continue;
        nb_send(n, k, remote, psend, 0, len, false);
        nb_recv(n, k, remote, precv, 0, len, true);
        if (rank > remote) {
            if (ex && first) {
                nb_copy(n, precv, 0, R, 0, len, false);
                first = false;
            } else {
                nb_op(n, precv, 0, R, 0, len, false);
            }
            nb_op(n, precv, 0, psend, 0, len, true);
        } else if (a->commutative) {
            nb_op(n, precv, 0, psend, 0, len, true);
        } else {
            nb_op(n, psend, 0, precv, 0, len, true);
            int t = psend;
            psend = precv;
            precv = t;
        }
    }
    *gsteps = k;
}

/* ==== dispatch ==== */
void pcs_gen_nbc(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    nb_t nb = {.c = c, .nreq = 0}, *n = &nb;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size;
    const uint64_t ts = c->ts, blk = (uint64_t)a->count * ts;
    const bool inplace = a->in_place;
    c->tag = TAG_NBC;
    *gsteps = 0;
    switch (ch->alg) {
    case PCS_ALG_NONE:
        /* the size-1 copies libnbc makes before returning an empty request */
        if (p == 1 && !inplace) {
            if (a->coll == PCS_REDUCE || a->coll == PCS_ALLREDUCE || a->coll == PCS_ALLGATHER)
                pcs_copy(c, S, 0, R, 0, blk);
            else if (a->coll == PCS_REDUCE_SCATTER)
                pcs_copy(c, S, 0, R, 0, (uint64_t)a->counts[0] * ts);
        }
        return;
    case PCS_ALG_NBC_BARRIER_DISSEMINATION: ibarrier(n, gsteps); break;
    case PCS_ALG_NBC_BCAST_LINEAR: case PCS_ALG_NBC_BCAST_BINOMIAL:
    case PCS_ALG_NBC_BCAST_CHAIN: case PCS_ALG_NBC_BCAST_KNOMIAL:
        ibcast(n, ch, gsteps);
        break;
    case PCS_ALG_NBC_REDUCE_BINOMIAL: case PCS_ALG_NBC_REDUCE_CHAIN:
    case PCS_ALG_NBC_REDUCE_REDSCAT_GATHER:
        ireduce(n, ch, gsteps);
        break;
    case PCS_ALG_NBC_ALLREDUCE_BINOMIAL: case PCS_ALG_NBC_ALLREDUCE_RING:
    case PCS_ALG_NBC_ALLREDUCE_REDSCAT_ALLGATHER: case PCS_ALG_NBC_ALLREDUCE_RECURSIVE_DOUBLING:
        iallreduce(n, ch, gsteps);
        break;
    case PCS_ALG_NBC_ALLGATHER_LINEAR:
    case PCS_ALG_NBC_ALLGATHER_RECURSIVE_DOUBLING:
        /* nbc_iallgather.c:99: the own block is copied before the schedule is built */
        if (!inplace)
            pcs_copy(c, S, 0, R, (uint64_t)rank * blk, blk);
        if (p == 1)
            return;
        if (ch->alg == PCS_ALG_NBC_ALLGATHER_LINEAR) { /* l.330 */
            for (int r = 0; r < p; r++)
                if (r != rank) {
                    nb_recv(n, 0, r, R, (uint64_t)r * blk, blk, false);
                    nb_send(n, 0, r, R, (uint64_t)rank * blk, blk, false);
                }
            *gsteps = 1;
        } else { /* l.388 */
            int loc = rank, k = 0;
            for (int d = 1; d < p; d <<= 1, k++) {
                const int remote = rank ^ d;
                const uint64_t so = (uint64_t)loc * blk;
                uint64_t ro;
                if (rank < remote) {
                    ro = (uint64_t)(loc + d) * blk;
                } else {
                    ro = (uint64_t)(loc - d) * blk;
                    loc -= d;
                }
                nb_send(n, k, remote, R, so, (uint64_t)d * blk, false);
                nb_recv(n, k, remote, R, ro, (uint64_t)d * blk, true);
            }
            *gsteps = k;
        }
        break;
    case PCS_ALG_NBC_ALLGATHERV_LINEAR: { /* nbc_iallgatherv.c:53 */
        const int64_t *cn = a->counts, *dp = a->displs;
        if (!inplace)
            pcs_copy(c, S, 0, R, vd(c, cn, dp, rank), vn(c, cn, rank));
        for (int r = 1; r < p; r++) {
            const int sp = (rank + r) % p, rp = (rank - r + p) % p;
            nb_recv(n, 0, rp, R, vd(c, cn, dp, rp), vn(c, cn, rp), false);
            nb_send(n, 0, sp, R, vd(c, cn, dp, rank), vn(c, cn, rank), false);
        }
        *gsteps = p > 1;
        break;
    }
    case PCS_ALG_NBC_ALLTOALL_LINEAR: /* nbc_ialltoall.c:200, a2a_sched_linear */
        nb_copy(n, S, (uint64_t)rank * blk, R, (uint64_t)rank * blk, blk, false);
        for (int r = 0; r < p; r++)
            if (r != rank) {
                nb_recv(n, 0, r, R, (uint64_t)r * blk, blk, false);
                nb_send(n, 0, r, S, (uint64_t)r * blk, blk, false);
            }
        *gsteps = p > 1;
        break;
    case PCS_ALG_NBC_ALLTOALL_INPLACE: { /* a2a_sched_inplace */
        pcs_need_tmp(c, T, blk);
        int i;
        for (i = 1; i < (p + 1) / 2; i++) {
            const int sp = (rank + i) % p, rp = (rank + p - i) % p;
            const int64_t st = 2 * (i - 1);
            nb_copy(n, R, (uint64_t)rp * blk, T, 0, blk, true);
            nb_send(n, st, sp, R, (uint64_t)sp * blk, blk, false);
            nb_recv(n, st, rp, R, (uint64_t)rp * blk, blk, true);
            nb_send(n, st + 1, rp, T, 0, blk, false);
            nb_recv(n, st + 1, sp, R, (uint64_t)sp * blk, blk, true);
        }
        if (p % 2 == 0) {
            const int peer = (rank + p / 2) % p;
            nb_copy(n, R, (uint64_t)peer * blk, T, 0, blk, true);
            nb_send(n, 2 * (i - 1), peer, T, 0, blk, false);
            nb_recv(n, 2 * (i - 1), peer, R, (uint64_t)peer * blk, blk, true);
        }
        *gsteps = a2a_steps(p);
        break;
    }
    case PCS_ALG_NBC_ALLTOALLV_LINEAR:
    case PCS_ALG_NBC_ALLTOALLW_LINEAR: { /* a2av_sched_linear, a2aw_sched_linear */
        const int64_t *rc = a->counts, *rd = a->displs, *sc = a->scounts, *sd = a->sdispls;
        if (sc[rank] != 0)
            nb_copy(n, S, vd(c, sc, sd, rank), R, vd(c, rc, rd, rank), vn(c, sc, rank), false);
        for (int i = 0; i < p; i++) {
            if (i == rank)
                continue;
            if (sc[i] != 0) /* w: span > 0, the same for types of positive size */
                nb_send(n, 0, i, S, vd(c, sc, sd, i), vn(c, sc, i), false);
            if (rc[i] != 0)
                nb_recv(n, 0, i, R, vd(c, rc, rd, i), vn(c, rc, i), false);
        }
        *gsteps = p > 1;
        break;
    }
    case PCS_ALG_NBC_ALLTOALLV_INPLACE:
    case PCS_ALG_NBC_ALLTOALLW_INPLACE: {
        uint64_t maxn = 0; /* l.69: the largest block, this rank's own included */
        for (int i = 0; i < p; i++)
            if (vn(c, a->counts, i) > maxn)
                maxn = vn(c, a->counts, i);
        if (maxn == 0)
            return; /* an empty request */
        pcs_need_tmp(c, T, maxn);
        a2av_inplace(n, ch->alg == PCS_ALG_NBC_ALLTOALLW_INPLACE);
        *gsteps = a2a_steps(p);
        break;
    }
    case PCS_ALG_NBC_GATHER_LINEAR: /* nbc_igather.c:94 */
        if (rank != a->root) {
            nb_send(n, 0, a->root, S, 0, blk, false);
        } else {
            for (int i = 0; i < p; i++) {
                if (i == rank) {
                    if (!inplace)
                        nb_copy(n, S, 0, R, (uint64_t)i * blk, blk, false);
                } else {
                    nb_recv(n, 0, i, R, (uint64_t)i * blk, blk, false);
                }
            }
        }
        *gsteps = p > 1;
        break;
    case PCS_ALG_NBC_GATHERV_LINEAR: { /* nbc_igatherv.c:63: zero counts are sent too */
        const int64_t *cn = a->counts, *dp = a->displs;
        if (rank != a->root) {
            nb_send(n, 0, a->root, S, 0, (uint64_t)a->own_count * ts, false);
        } else {
            for (int i = 0; i < p; i++) {
                if (i == rank) {
                    if (!inplace)
                        nb_copy(n, S, 0, R, vd(c, cn, dp, i), (uint64_t)a->own_count * ts, false);
                } else {
                    nb_recv(n, 0, i, R, vd(c, cn, dp, i), vn(c, cn, i), false);
                }
            }
        }
        *gsteps = p > 1;
        break;
    }
    case PCS_ALG_NBC_SCATTER_LINEAR: /* nbc_iscatter.c:91 */
        if (rank != a->root) {
            nb_recv(n, 0, a->root, R, 0, blk, false);
        } else {
            for (int i = 0; i < p; i++) {
                if (i == rank) {
                    if (!inplace)
                        nb_copy(n, S, (uint64_t)i * blk, R, 0, blk, false);
                } else {
                    nb_send(n, 0, i, S, (uint64_t)i * blk, blk, false);
                }
            }
        }
        *gsteps = p > 1;
        break;
    case PCS_ALG_NBC_SCATTERV_LINEAR: { /* nbc_iscatterv.c:55 */
        const int64_t *cn = a->counts, *dp = a->displs;
        if (rank == a->root) {
            for (int i = 0; i < p; i++) {
                if (i == rank) {
                    if (!inplace)
                        nb_copy(n, S, vd(c, cn, dp, i), R, 0, vn(c, cn, i), false);
                } else {
                    nb_send(n, 0, i, S, vd(c, cn, dp, i), vn(c, cn, i), false);
                }
            }
        } else {
            nb_recv(n, 0, a->root, R, 0, (uint64_t)a->own_count * ts, false);
        }
        *gsteps = p > 1;
        break;
    }
    case PCS_ALG_NBC_REDUCE_SCATTER_BINOMIAL_LINEAR: rs_binomial(n, false, gsteps); break;
    case PCS_ALG_NBC_RSB_BINOMIAL_LINEAR: rs_binomial(n, true, gsteps); break;
    case PCS_ALG_NBC_SCAN_LINEAR: /* nbc_iscan.c:175 */
        if (!inplace)
            nb_copy(n, S, 0, R, 0, blk, false);
        if (rank > 0) {
            pcs_need_tmp(c, T, blk);
            nb_recv(n, rank - 1, rank - 1, T, 0, blk, true);
            nb_op(n, T, 0, R, 0, blk, true);
        }
        if (rank != p - 1)
            nb_send(n, rank, rank + 1, R, 0, blk, false);
        *gsteps = p - 1;
        break;
    case PCS_ALG_NBC_EXSCAN_LINEAR: /* nbc_iexscan.c:188 */
        if (rank > 0) {
            pcs_need_tmp(c, T, blk);
            nb_copy(n, inplace ? R : S, 0, T, 0, blk, false);
            nb_recv(n, rank - 1, rank - 1, R, 0, blk, false);
            if (rank < p - 1) {
                nb_barrier(n);
                nb_op(n, R, 0, T, 0, blk, true);
                nb_send(n, rank, rank + 1, T, 0, blk, false);
            }
        } else if (p > 1) {
            nb_send(n, 0, 1, inplace ? R : S, 0, blk, false);
        }
        *gsteps = p - 1;
        break;
    case PCS_ALG_NBC_SCAN_RECURSIVE_DOUBLING: scan_rdbl(n, false, gsteps); break;
    case PCS_ALG_NBC_EXSCAN_RECURSIVE_DOUBLING: scan_rdbl(n, true, gsteps); break;
    default: c->s->err = PCS_E_UNSUPPORTED; return;
    }
    nb_barrier(n); /* NBC_Sched_commit: the last round */
}

/* ==== selection (nbc_i<coll>.c *_init, the MPI bindings' early returns) ==== */
pcs_err_t pcs_ompi41_nbc_select(const pcs_args_t *a, const pcs_ompi_forced_t *f,
                                pcs_choice_t *out)
{
    static const pcs_ompi_forced_t none;
    if (!f)
        f = &none;
    const int p = a->size;
    const pcs_coll_t c = a->coll;
    const int forced = f->nbc_algorithm[c];
    const int64_t n = (int64_t)a->type_size * a->count;
    const int pof2 = pof2_floor(p);
    int64_t total = 0;
    if (c == PCS_REDUCE_SCATTER)
        for (int i = 0; i < p; i++)
            total += a->counts[i];
    out->component = PCS_COMP_LIBNBC;
    out->lib_alg = 1;
    out->alg = PCS_ALG_NONE;
    switch (c) {
    case PCS_BARRIER: out->alg = PCS_ALG_NBC_BARRIER_DISSEMINATION; break;
    case PCS_BCAST:
        if (p <= 1 || a->count == 0) { /* ibcast.c:85 */
            out->component = PCS_COMP_NONE;
            out->lib_alg = 0;
            return PCS_OK;
        }
        out->dsize = n;
        out->radix = f->nbc_knomial_radix ? f->nbc_knomial_radix : 4;
        out->segsize = 16384;
        if (forced == 0) { /* l.78 */
            if (p <= 4)
                out->lib_alg = 1;
            else if (!f->nbc_ibcast_dt_decision || n < 65536)
                out->lib_alg = 2;
            else {
                out->lib_alg = 3;
                out->segsize = n < 524288 ? 8192 : 32768;
            }
        } else {
            out->lib_alg = forced >= 1 && forced <= 3 ? forced
                         : forced == 4 && out->radix > 1 ? 4 : 1;
        }
        out->alg = out->lib_alg == 1 ? PCS_ALG_NBC_BCAST_LINEAR
                 : out->lib_alg == 2 ? PCS_ALG_NBC_BCAST_BINOMIAL
                 : out->lib_alg == 3 ? PCS_ALG_NBC_BCAST_CHAIN : PCS_ALG_NBC_BCAST_KNOMIAL;
        break;
    case PCS_REDUCE: {
        if (a->count == 0) { /* ireduce.c:133 */
            out->component = PCS_COMP_NONE;
            out->lib_alg = 0;
            return PCS_OK;
        }
        out->dsize = n;
        if (p == 1)
            return PCS_OK; /* l.92: a copy, no schedule */
        const bool rsg = a->commutative && p > 2 && a->count >= pof2;
        if (forced == 0) /* l.102 */
            out->lib_alg = rsg ? 3 : (p > 4 || n < 65536 || !a->commutative) ? 2 : 1;
        else
            out->lib_alg = forced == 2 ? 2 : forced == 3 && rsg ? 3 : 1;
        out->alg = out->lib_alg == 1 ? PCS_ALG_NBC_REDUCE_CHAIN
                 : out->lib_alg == 2 ? PCS_ALG_NBC_REDUCE_BINOMIAL
                                     : PCS_ALG_NBC_REDUCE_REDSCAT_GATHER;
        if (out->lib_alg == 1)
            out->segsize = 16384 / 2;
        break;
    }
    case PCS_ALLREDUCE: {
        if (a->count == 0) { /* iallreduce.c:107 */
            out->component = PCS_COMP_NONE;
            out->lib_alg = 0;
            return PCS_OK;
        }
        out->dsize = n;
        if (p == 1)
            return PCS_OK;
        int id = 1; /* l.108: ring unless a rule says otherwise */
        if (forced == 0) {
            if (p < 4 || n < 65536 || !a->commutative || a->in_place)
                id = 2;
            else if (a->count >= pof2 && a->commutative)
                id = 3;
        } else if (forced == 2) {
            id = 2;
        } else if (forced == 3 && a->count >= pof2 && a->commutative) {
            id = 3;
        } else if (forced == 4) {
            id = 4;
        }
        out->lib_alg = id;
        out->alg = id == 1 ? PCS_ALG_NBC_ALLREDUCE_RING
                 : id == 2 ? PCS_ALG_NBC_ALLREDUCE_BINOMIAL
                 : id == 3 ? PCS_ALG_NBC_ALLREDUCE_REDSCAT_ALLGATHER
                           : PCS_ALG_NBC_ALLREDUCE_RECURSIVE_DOUBLING;
        break;
    }
    case PCS_ALLGATHER:
        if (p == 1)
            return PCS_OK; /* l.101: the own block copied, no schedule */
        out->lib_alg = forced == 2 && (p & (p - 1)) == 0 ? 2 : 1;
        out->alg = out->lib_alg == 2 ? PCS_ALG_NBC_ALLGATHER_RECURSIVE_DOUBLING
                                     : PCS_ALG_NBC_ALLGATHER_LINEAR;
        break;
    case PCS_ALLGATHERV: out->alg = PCS_ALG_NBC_ALLGATHERV_LINEAR; break;
    case PCS_ALLTOALL: /* l.96: in place, else linear (pairwise and diss are disabled) */
        out->alg = a->in_place ? PCS_ALG_NBC_ALLTOALL_INPLACE : PCS_ALG_NBC_ALLTOALL_LINEAR;
        break;
    case PCS_ALLTOALLV:
        out->alg = a->in_place ? PCS_ALG_NBC_ALLTOALLV_INPLACE : PCS_ALG_NBC_ALLTOALLV_LINEAR;
        break;
    case PCS_ALLTOALLW:
        out->alg = a->in_place ? PCS_ALG_NBC_ALLTOALLW_INPLACE : PCS_ALG_NBC_ALLTOALLW_LINEAR;
        break;
    case PCS_GATHER: out->alg = PCS_ALG_NBC_GATHER_LINEAR; break;
    case PCS_GATHERV: out->alg = PCS_ALG_NBC_GATHERV_LINEAR; break;
    case PCS_SCATTER: out->alg = PCS_ALG_NBC_SCATTER_LINEAR; break;
    case PCS_SCATTERV: out->alg = PCS_ALG_NBC_SCATTERV_LINEAR; break;
    case PCS_REDUCE_SCATTER:
        if (total == 0) { /* ireduce_scatter.c:128 */
            out->component = PCS_COMP_NONE;
            out->lib_alg = 0;
            return PCS_OK;
        }
        if (p == 1)
            return PCS_OK;
        out->alg = PCS_ALG_NBC_REDUCE_SCATTER_BINOMIAL_LINEAR;
        break;
    case PCS_REDUCE_SCATTER_BLOCK:
        if (a->count == 0) { /* ireduce_scatter_block.c:100 */
            out->component = PCS_COMP_NONE;
            out->lib_alg = 0;
            return PCS_OK;
        }
        out->alg = PCS_ALG_NBC_RSB_BINOMIAL_LINEAR;
        break;
    case PCS_SCAN:
        if (a->count == 0)
            return PCS_OK; /* iscan.c:72: an empty request */
        out->lib_alg = forced == 2 ? 2 : 1;
        out->alg = forced == 2 ? PCS_ALG_NBC_SCAN_RECURSIVE_DOUBLING : PCS_ALG_NBC_SCAN_LINEAR;
        break;
    case PCS_EXSCAN:
        if (p < 2)
            return PCS_OK;
        out->lib_alg = forced == 2 ? 2 : 1;
        out->alg = forced == 2 ? PCS_ALG_NBC_EXSCAN_RECURSIVE_DOUBLING : PCS_ALG_NBC_EXSCAN_LINEAR;
        break;
    default: return PCS_E_ARG;
    }
    return PCS_OK;
}
