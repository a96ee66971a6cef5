/* coll_ompi_nbc_red.c: the reductions of Open MPI 4.1's coll/libnbc (nbc_ireduce.c,
 * nbc_iallreduce.c, nbc_ireduce_scatter(_block).c, nbc_iscan.c, nbc_iexscan.c v4.1.4): the
 * rounds of each schedule, in libnbc's order, with its operand order. */
#include "coll_ompi.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2 };

/* ==== binomial reduction to vrank 0 (ireduce red_sched_binomial, iallreduce
 * allred_sched_diss): lbuf/rbuf alternate so that the result ends in redbuf; the message of
 * round r is step r - 1. Returns the buffer holding this rank's last partial result. ==== */
static void binomial_up(nbc_t *n, int vrank, int vroot, int sbuf, int redbuf, int tmp, bool inplace,
                        int64_t count_bytes, int *out_lbuf)
{
    const int p = n->c->size, maxr = pcs_log2_ceil(p);
    const uint64_t len = (uint64_t)count_bytes;
    int rbuf, lbuf;
    if (maxr % 2 == 0) {
        rbuf = tmp;
        lbuf = redbuf;
    } else {
        lbuf = tmp;
        rbuf = redbuf;
        if (inplace)
            nbc_copy(n, rbuf, 0, tmp, 0, len, true);
    }
    bool firstred = true;
    for (int r = 1; r <= maxr; r++) {
        if (vrank % (1 << r) == 0) {
            int vpeer = vrank + (1 << (r - 1)), peer = nbc_swap_root(vpeer, vroot);
            if (peer < p) {
                nbc_recv(n, r - 1, peer, rbuf, 0, len, true);
                if (firstred && !inplace) {
                    nbc_op(n, sbuf, 0, rbuf, 0, len, true);
                    firstred = false;
                } else {
                    nbc_op(n, lbuf, 0, rbuf, 0, len, true);
                }
                int t = rbuf;
                rbuf = lbuf;
                lbuf = t;
            }
        } else {
            int peer = nbc_swap_root(vrank - (1 << (r - 1)), vroot);
            nbc_send(n, r - 1, peer, firstred && !inplace ? sbuf : lbuf, 0, len, false);
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

static void redscat(nbc_t *n, rsg_t *g, int rbuf, int tmpb, int64_t count)
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
            nbc_send(n, 0, rank - 1, rbuf, 0, (uint64_t)lh * ts, false);
            nbc_recv(n, 0, rank - 1, tmpb, (uint64_t)lh * ts, (uint64_t)rh * ts, true);
            nbc_op(n, tmpb, (uint64_t)lh * ts, rbuf, (uint64_t)lh * ts, (uint64_t)rh * ts, true);
            nbc_send(n, 1, rank - 1, rbuf, (uint64_t)lh * ts, (uint64_t)rh * ts, true);
            g->vrank = -1;
        } else {
            nbc_send(n, 0, rank + 1, rbuf, (uint64_t)lh * ts, (uint64_t)rh * ts, false);
            nbc_recv(n, 0, rank + 1, tmpb, 0, (uint64_t)lh * ts, true);
            nbc_op(n, tmpb, 0, rbuf, 0, (uint64_t)lh * ts, true);
            nbc_recv(n, 1, rank + 1, rbuf, (uint64_t)lh * ts, (uint64_t)rh * ts, true);
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
        nbc_send(n, g->base + step, dest, rbuf, (uint64_t)g->sindex[step] * ts,
                 (uint64_t)g->scount[step] * ts, false);
        nbc_recv(n, g->base + step, dest, tmpb, (uint64_t)g->rindex[step] * ts,
                 (uint64_t)g->rcount[step] * ts, true);
        nbc_op(n, tmpb, (uint64_t)g->rindex[step] * ts, rbuf, (uint64_t)g->rindex[step] * ts,
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

/* l.356 */
static void ireduce_binomial(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size, root = a->root;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const bool inplace = rank == root && a->in_place;
    const int sbuf = inplace ? R : S;
    /* l.145: the root reduces in its receive buffer, the others in the second half of the
     * scratch buffer (T2 here); T is the first half */
    const int redbuf = rank == root ? R : T2;
    pcs_need_tmp(n->c, T, len);
    if (rank != root)
        pcs_need_tmp(n->c, T2, len);
    const int vroot = a->commutative ? root : 0, maxr = pcs_log2_ceil(p);
    int lbuf;
    binomial_up(n, nbc_swap_root(rank, vroot), vroot, sbuf, redbuf, T, inplace, (int64_t)len,
                &lbuf);
    if (vroot != root) { /* non-commutative: the result goes from 0 to the root */
        if (rank == 0)
            nbc_send(n, maxr, root, redbuf, 0, len, false);
        else if (rank == root)
            nbc_recv(n, maxr, vroot, redbuf, 0, len, false);
        *gsteps = maxr + 1;
    } else {
        *gsteps = maxr;
    }
}

/* l.477: fragments of 8192 bytes up a chain */
static void ireduce_chain(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size, root = a->root;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const bool inplace = rank == root && a->in_place;
    pcs_need_tmp(n->c, T, len);
    const int vrank = nbc_swap_root(rank, root);
    const int rpeer = nbc_swap_root(vrank + 1, root), speer = nbc_swap_root(vrank - 1, root);
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
                nbc_recv(n, p - 2 - vrank + f, rpeer, R, off, fl, true);
            else
                nbc_recv(n, p - 2 - vrank + f, rpeer, T, off, fl, true);
            if (vrank == 0) {
                if (distinct)
                    nbc_op(n, S, off, R, off, fl, true);
                else
                    nbc_op(n, T, off, R, off, fl, true);
            } else {
                nbc_op(n, S, off, T, off, fl, true);
            }
        }
        if (vrank != 0) {
            if (vrank == p - 1)
                nbc_send(n, p - 1 - vrank + f, speer, S, off, fl, true);
            else
                nbc_send(n, p - 1 - vrank + f, speer, T, off, fl, true);
        }
    }
    *gsteps = p - 1 + numfrag - 1;
}

/* l.619 */
static void ireduce_redscat_gather(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, root = a->root;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const bool inplace = rank == root && a->in_place;
    /* l.145: the root reduces in its receive buffer, the others in the second half of the
     * scratch buffer (T2 here); T is the first half */
    const int redbuf = rank == root ? R : T2;
    const int64_t count = a->count;
    pcs_need_tmp(n->c, T, len);
    if (rank != root)
        pcs_need_tmp(n->c, T2, len);
    if (rank != root || !inplace)
        nbc_copy(n, S, 0, redbuf, 0, len, true);
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
                nbc_recv(n, gbase - 1, 0, redbuf, 0, (uint64_t)g.rcount[nsteps - 1] * ts,
                         true);
                g.vrank = 0;
            } else if (g.vrank == 0) {
                nbc_send(n, gbase - 1, root, redbuf, 0, (uint64_t)g.rcount[nsteps - 1] * ts,
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
                nbc_send(n, gbase + k, dest, redbuf, (uint64_t)g.rindex[step] * ts,
                         (uint64_t)g.rcount[step] * ts, false);
                break;
            }
            nbc_recv(n, gbase + k, dest, redbuf, (uint64_t)g.sindex[step] * ts,
                     (uint64_t)g.scount[step] * ts, true);
            step--;
        }
    }
    *gsteps = gbase + nsteps;
}

void pcs_nbc_ireduce(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    switch (ch->alg) {
    case PCS_ALG_NBC_REDUCE_BINOMIAL: ireduce_binomial(n, ch, gsteps); break;
    case PCS_ALG_NBC_REDUCE_CHAIN: ireduce_chain(n, ch, gsteps); break;
    case PCS_ALG_NBC_REDUCE_REDSCAT_GATHER: ireduce_redscat_gather(n, ch, gsteps); break;
    default: n->c->s->err = PCS_E_UNSUPPORTED; return;
    }
}

/* ==== Iallreduce (nbc_iallreduce.c) ==== */

/* l.345: binomial reduce to 0, binomial bcast */
static void iallreduce_binomial(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const bool inplace = a->in_place;
    const int sbuf = inplace ? R : S;
    const int maxr = pcs_log2_ceil(p);
    int lbuf;
    binomial_up(n, rank, 0, sbuf, R, T, inplace, (int64_t)len, &lbuf);
    if (rank != 0) {
        for (int r = 0; r < maxr; r++)
            if (rank >= (1 << r) && rank < (1 << (r + 1)))
                nbc_recv(n, maxr + nbc_popcount(rank) - 1, rank - (1 << r), R, 0, len, false);
        nbc_barrier(n);
    }
    for (int r = 0; r < maxr; r++)
        if ((rank + (1 << r) < p && rank < (1 << r)) || rank == 0)
            nbc_send(n, maxr + nbc_popcount(rank), rank + (1 << r), R, 0, len, false);
    *gsteps = 2 * maxr;
}

/* l.630 */
static void iallreduce_ring(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size;
    const uint64_t ts = n->c->ts;
    const bool inplace = a->in_place;
    const int sbuf = inplace ? R : S;
    if (a->count == 0)
        return;
    /* block i: seg elements, one more for the first count % p, packed */
    const int64_t seg = a->count / p, extra = a->count % p;
#define BOFF(e) ((e) * seg + ((e) < extra ? (e) : extra))
#define SOFF(e) ((uint64_t)BOFF(e) * ts)
#define SLEN(e) ((uint64_t)(BOFF((e) + 1) - BOFF(e)) * ts)
    const int speer = (rank + 1) % p, rpeer = (rank - 1 + p) % p;
    for (int round = 0; round < p - 1; round++) {
        const int se = (rank + 1 - round + 2 * p) % p, re = (rank - round + 2 * p) % p;
        nbc_send(n, round, speer, round == 0 ? sbuf : R, SOFF(se), SLEN(se), false);
        if (!inplace) {
            nbc_recv(n, round, rpeer, R, SOFF(re), SLEN(re), true);
            nbc_op(n, S, SOFF(re), R, SOFF(re), SLEN(re), true);
        } else {
            nbc_recv(n, round, rpeer, T, 0, SLEN(re), true);
            nbc_op(n, T, 0, R, SOFF(re), SLEN(re), true);
        }
    }
    for (int round = p - 1; round < 2 * p - 2; round++) {
        const int se = (rank + 1 - round + 2 * p) % p, re = (rank - round + 2 * p) % p;
        nbc_send(n, round, speer, R, SOFF(se), SLEN(se), false);
        nbc_recv(n, round, rpeer, R, SOFF(re), SLEN(re), true);
    }
#undef BOFF
#undef SOFF
#undef SLEN
    *gsteps = 2 * p - 2;
}

/* l.940 */
static void iallreduce_redscat_allgather(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const bool inplace = a->in_place;
    if (!inplace)
        nbc_copy(n, S, 0, R, 0, len, true);
    rsg_t g;
    redscat(n, &g, R, T, a->count);
    const int ab = g.base + g.nsteps;
    if (g.vrank != -1) {
        int step = g.nsteps - 1, k = 0;
        for (int mask = g.pof2 >> 1; mask > 0; mask >>= 1, k++, step--) {
            const int vdest = g.vrank ^ mask;
            const int dest = vdest < g.rem ? vdest * 2 : vdest + g.rem;
            nbc_send(n, ab + k, dest, R, (uint64_t)g.rindex[step] * ts,
                     (uint64_t)g.rcount[step] * ts, false);
            nbc_recv(n, ab + k, dest, R, (uint64_t)g.sindex[step] * ts,
                     (uint64_t)g.scount[step] * ts, true);
        }
    }
    if (rank < 2 * g.rem) {
        if (rank % 2 != 0)
            nbc_recv(n, ab + g.nsteps, rank - 1, R, 0, len, false);
        else
            nbc_send(n, ab + g.nsteps, rank + 1, R, 0, len, false);
    }
    *gsteps = ab + g.nsteps + (g.rem ? 1 : 0);
}

/* l.543 */
static void iallreduce_rdbl(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = n->c->a;
    const int rank = n->c->rank, p = n->c->size;
    const uint64_t ts = n->c->ts, len = (uint64_t)a->count * ts;
    const bool inplace = a->in_place;
    const int sbuf = inplace ? R : S;
    int tsend = T, trecv = R;
    nbc_copy(n, sbuf, 0, T, 0, len, true);
    const int pof2 = pcs_pow2_floor(p), rem = p - pof2, base = rem ? 1 : 0;
    int vrank;
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            nbc_send(n, 0, rank + 1, tsend, 0, len, true);
            vrank = -1;
        } else {
            nbc_recv(n, 0, rank - 1, trecv, 0, len, true);
            nbc_op(n, trecv, 0, tsend, 0, len, true);
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
            nbc_send(n, base + k, remote, tsend, 0, len, false);
            nbc_recv(n, base + k, remote, trecv, 0, len, true);
            if (rank < remote) {
                nbc_op(n, tsend, 0, trecv, 0, len, true);
                int t = trecv;
                trecv = tsend;
                tsend = t;
            } else {
                nbc_op(n, trecv, 0, tsend, 0, len, true);
            }
        }
    const int last = base + pcs_log2_floor(pof2);
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            nbc_recv(n, last, rank + 1, R, 0, len, false);
            tsend = R;
        } else {
            nbc_send(n, last, rank - 1, tsend, 0, len, false);
        }
    }
    if (tsend != R)
        nbc_copy(n, tsend, 0, R, 0, len, false);
    *gsteps = last + (rem ? 1 : 0);
}

void pcs_nbc_iallreduce(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    pcs_need_tmp(n->c, T, (uint64_t)n->c->a->count * n->c->ts); /* l.112: span bytes, all */
    switch (ch->alg) {
    case PCS_ALG_NBC_ALLREDUCE_BINOMIAL: iallreduce_binomial(n, ch, gsteps); break;
    case PCS_ALG_NBC_ALLREDUCE_RING: iallreduce_ring(n, ch, gsteps); break;
    case PCS_ALG_NBC_ALLREDUCE_REDSCAT_ALLGATHER:
        iallreduce_redscat_allgather(n, ch, gsteps);
        break;
    case PCS_ALG_NBC_ALLREDUCE_RECURSIVE_DOUBLING: iallreduce_rdbl(n, ch, gsteps); break;
    default: n->c->s->err = PCS_E_UNSUPPORTED; return;
    }
}

/* ==== the binomial reduction to 0 and linear scatter of Ireduce_scatter(_block) ==== */
void pcs_nbc_ireduce_scatter(nbc_t *n, bool block, int64_t *gsteps)
{
    const pcs_ctx_t *c = n->c;
    const pcs_args_t *a = c->a;
    const int rank = c->rank, p = c->size, maxr = pcs_log2_ceil(p);
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
        nbc_copy(n, S, 0, T2, 0, len, false);
    bool firstred = true;
    for (int r = 1; r <= maxr; r++) {
        if (rank % (1 << r) == 0) {
            const int peer = rank + (1 << (r - 1));
            if (peer < p) {
                nbc_recv(n, r - 1, peer, rbuf, 0, len, true);
                nbc_op(n, firstred ? sbuf : lbuf, 0, rbuf, 0, len, true);
                firstred = false;
                int t = rbuf;
                rbuf = lbuf;
                lbuf = t;
            }
        } else {
            nbc_send(n, r - 1, rank - (1 << (r - 1)), firstred ? sbuf : lbuf, 0, len, false);
            break;
        }
    }
    nbc_barrier(n);
    const uint64_t own = block ? (uint64_t)a->count * ts : (uint64_t)a->counts[rank] * ts;
    if (rank != 0) {
        nbc_recv(n, maxr, 0, R, 0, own, false);
    } else {
        uint64_t off = 0;
        for (int r = 1; r < p; r++) {
            off += block ? (uint64_t)a->count * ts : (uint64_t)a->counts[r - 1] * ts;
            nbc_send(n, maxr, r, lbuf, off,
                     block ? (uint64_t)a->count * ts : (uint64_t)a->counts[r] * ts, false);
        }
        if (!block || p != 1 || !inplace)
            nbc_copy(n, lbuf, 0, R, 0, own, false);
    }
    *gsteps = p > 1 ? maxr + 1 : 0;
}

/* ==== Iscan / Iexscan recursive doubling (scan_sched_recursivedoubling, exscan_...) ==== */
static void iscan_rdbl(nbc_t *n, bool ex, int64_t *gsteps)
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
            nbc_copy(n, S, 0, R, 0, len, true);
        if (p < 2)
            return;
        nbc_copy(n, R, 0, psend, 0, len, true);
    } else {
        nbc_copy(n, inplace ? R : S, 0, psend, 0, len, true);
    }
    bool first = true;
    int k = 0;
    for (int mask = 1; mask < p; mask <<= 1, k++) {
        const int remote = rank ^ mask;
        if (remote >= p)
            continue;
        nbc_send(n, k, remote, psend, 0, len, false);
        nbc_recv(n, k, remote, precv, 0, len, true);
        if (rank > remote) {
            if (ex && first) {
                nbc_copy(n, precv, 0, R, 0, len, false);
                first = false;
            } else {
                nbc_op(n, precv, 0, R, 0, len, false);
            }
            nbc_op(n, precv, 0, psend, 0, len, true);
        } else if (a->commutative) {
            nbc_op(n, precv, 0, psend, 0, len, true);
        } else {
            nbc_op(n, psend, 0, precv, 0, len, true);
            int t = psend;
            psend = precv;
            precv = t;
        }
    }
    *gsteps = k;
}

/* nbc_iscan.c:175: linear */
static void iscan_linear(nbc_t *n, int64_t *gsteps)
{
    const pcs_ctx_t *c = n->c;
    const int rank = c->rank, p = c->size;
    const uint64_t blk = (uint64_t)c->a->count * c->ts;
    if (!c->a->in_place)
        nbc_copy(n, S, 0, R, 0, blk, false);
    if (rank > 0) {
        pcs_need_tmp(n->c, T, blk);
        nbc_recv(n, rank - 1, rank - 1, T, 0, blk, true);
        nbc_op(n, T, 0, R, 0, blk, true);
    }
    if (rank != p - 1)
        nbc_send(n, rank, rank + 1, R, 0, blk, false);
    *gsteps = p - 1;
}

/* nbc_iexscan.c:188: linear */
static void iexscan_linear(nbc_t *n, int64_t *gsteps)
{
    const pcs_ctx_t *c = n->c;
    const int rank = c->rank, p = c->size;
    const uint64_t blk = (uint64_t)c->a->count * c->ts;
    const int sbuf = c->a->in_place ? R : S;
    if (rank > 0) {
        pcs_need_tmp(n->c, T, blk);
        nbc_copy(n, sbuf, 0, T, 0, blk, false);
        nbc_recv(n, rank - 1, rank - 1, R, 0, blk, false);
        if (rank < p - 1) {
            nbc_barrier(n);
            nbc_op(n, R, 0, T, 0, blk, true);
            nbc_send(n, rank, rank + 1, T, 0, blk, false);
        }
    } else if (p > 1) {
        nbc_send(n, 0, 1, sbuf, 0, blk, false);
    }
    *gsteps = p - 1;
}

void pcs_nbc_iscan(nbc_t *n, const pcs_choice_t *ch, int64_t *gsteps)
{
    switch (ch->alg) {
    case PCS_ALG_NBC_SCAN_LINEAR: iscan_linear(n, gsteps); break;
    case PCS_ALG_NBC_EXSCAN_LINEAR: iexscan_linear(n, gsteps); break;
    case PCS_ALG_NBC_SCAN_RECURSIVE_DOUBLING: iscan_rdbl(n, false, gsteps); break;
    case PCS_ALG_NBC_EXSCAN_RECURSIVE_DOUBLING: iscan_rdbl(n, true, gsteps); break;
    default: n->c->s->err = PCS_E_UNSUPPORTED; break;
    }
}
