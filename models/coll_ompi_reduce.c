/* coll_ompi_reduce.c: per-rank schedules of Open MPI 4.1's reduce and allreduce (ompi/mca/
 * coll/base coll_base_reduce.c, _allreduce.c v4.1.4): the same messages in the same order,
 * the same buffers and the same reduction operand order. */
#include <assert.h>

#include "coll_ompi.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

/* ---- reduce ---- */

/* ompi_coll_base_reduce_generic (reduce.c:62), one tree_root. sbuf is S or R (in place at
 * the tree root); accumulator is R at the tree root when has_rbuf, else T. Incoming
 * segments go to T2 (two halves). Step of a segment's message = sender's height + index. */
static void reduce_generic(pcs_ctx_t *c, int sbuf, bool sbuf_inplace, bool has_rbuf,
                           int64_t count, int64_t segcount, const pcs_tree_t *t, int max_reqs)
{
    const uint64_t ts = c->ts;
    const bool commute = c->a->commutative;
    pcs_node_t nd;
    pcs_tree_node(t, c->rank, &nd);
    const int tree_root = t->root;
    int64_t nseg = (count + segcount - 1) / segcount;
    uint64_t seginc = (uint64_t)segcount * ts;
    int height = pcs_tree_height(t, c->rank);
    if (nd.n > 0) {
        int acc = (has_rbuf && c->rank == tree_root) ? R : T;
        if (acc == T)
            pcs_need_tmp(c, T, (uint64_t)count * ts);
        pcs_need_tmp(c, T2, 2 * seginc);
        const bool direct = commute && !(sbuf_inplace && c->rank == tree_root);
        if (!commute && !sbuf_inplace)
            pcs_copy(c, sbuf, 0, acc, 0, (uint64_t)count * ts);
        int inbi = 0;
        bool pending[2] = {false, false};
        int64_t recvcount = 0, prevcount;
        for (int64_t si = 0; si <= nseg; si++) {
            prevcount = recvcount;
            recvcount = segcount;
            if (si == nseg - 1)
                recvcount = count - segcount * si;
            for (int i = 0; i < nd.n; i++) {
                int lbuf = T2;
                uint64_t loff = (uint64_t)inbi * seginc;
                if (si < nseg) {
                    if (i == 0 && direct) {
                        lbuf = acc;
                        loff = (uint64_t)si * seginc;
                    }
                    /* the child's message: step = child's height + segment */
                    pcs_at(c, pcs_tree_height(t, nd.next[i]) + si);
                    pcs_irecv(c, inbi, nd.next[i], lbuf, loff, (uint64_t)recvcount * ts);
                    pending[inbi] = true;
                }
                if (pending[inbi ^ 1]) {
                    pcs_wait(c, inbi ^ 1);
                    pending[inbi ^ 1] = false;
                }
                int obuf = T2;
                uint64_t ooff = (uint64_t)(inbi ^ 1) * seginc;
                if (i > 0) {
                    if (i == 1 && direct) {
                        obuf = sbuf;
                        ooff = (uint64_t)si * seginc;
                    }
                    pcs_reduce(c, obuf, ooff, acc, (uint64_t)si * seginc,
                               (uint64_t)recvcount * ts);
                } else if (si > 0) {
                    if (nd.n <= 1 && direct) {
                        obuf = sbuf;
                        ooff = (uint64_t)(si - 1) * seginc;
                    }
                    pcs_reduce(c, obuf, ooff, acc, (uint64_t)(si - 1) * seginc,
                               (uint64_t)prevcount * ts);
                    if (c->rank != tree_root) {
                        pcs_at(c, height + si - 1);
                        pcs_send(c, nd.prev, acc, (uint64_t)(si - 1) * seginc,
                                 (uint64_t)prevcount * ts);
                    }
                    if (si == nseg)
                        break;
                }
                inbi ^= 1;
            }
        }
        return;
    }
    /* leaf */
    if (max_reqs == 0 || nseg <= max_reqs) {
        for (int64_t si = 0, left = count; left > 0; si++) {
            int64_t n = left < segcount ? left : segcount;
            pcs_at(c, si);
            pcs_send(c, nd.prev, sbuf, (uint64_t)si * seginc, (uint64_t)n * ts);
            left -= n;
        }
        return;
    }
    /* flow control with synchronous isends (only with forced max_requests) */
    int64_t left = count, si;
    for (si = 0; si < max_reqs; si++) {
        pcs_at(c, si);
        pcs_isend_flags(c, (unsigned)si, nd.prev, sbuf, (uint64_t)si * seginc,
                        (uint64_t)segcount * ts, PCS_F_SYNC);
        left -= segcount;
    }
    int creq = 0;
    int64_t sc = segcount;
    while (left > 0) {
        pcs_wait(c, creq);
        if (left < sc)
            sc = left;
        pcs_at(c, si);
        pcs_isend_flags(c, (unsigned)creq, nd.prev, sbuf, (uint64_t)si * seginc,
                        (uint64_t)sc * ts, PCS_F_SYNC);
        creq = (creq + 1) % max_reqs;
        si++;
        left -= sc;
    }
    for (int i = 0; i < max_reqs; i++)
        pcs_wait(c, i);
}

/* ompi_coll_base_reduce_intra_basic_linear (reduce.c:631). sbuf: S, or R when in place. The
 * root receives with blocking calls, from size - 1 down to 0, one after the other: a step
 * each (above the eager size a sender's data waits for its receive). */
static void reduce_linear(pcs_ctx_t *c, int sbuf, bool inplace, int64_t count, int root)
{
    uint64_t len = (uint64_t)count * c->ts;
    if (c->rank != root) {
        pcs_at(c, (c->size - 1 - c->rank) - (root > c->rank ? 1 : 0));
        pcs_send(c, root, sbuf, 0, len);
        return;
    }
    pcs_at(c, 0);
    int rbuf = R;
    if (inplace) { /* sbuf = rbuf; rbuf = temporary */
        sbuf = R;
        rbuf = T;
        pcs_need_tmp(c, T, len);
    }
    pcs_need_tmp(c, T2, len);
    int64_t st = 0;
    if (c->rank == c->size - 1) {
        pcs_copy(c, sbuf, 0, rbuf, 0, len);
        st = -1;
    } else {
        pcs_recv(c, c->size - 1, rbuf, 0, len);
    }
    for (int i = c->size - 2; i >= 0; i--) {
        if (i == c->rank) {
            pcs_reduce(c, sbuf, 0, rbuf, 0, len);
        } else {
            pcs_at(c, ++st);
            pcs_recv(c, i, T2, 0, len);
            pcs_reduce(c, T2, 0, rbuf, 0, len);
        }
    }
    if (inplace)
        pcs_copy(c, T, 0, R, 0, len);
}

/* ---- Rabenseifner's reduce-scatter: steps 1 and 2 of reduce.c:795 and allreduce.c:970,
 * which Open MPI writes the same in both ---- */
typedef struct rab {
    int nsteps, pof2, rem, vrank;
    int base; /* first step of the halving (2 with the pairs of step 1) */
    int64_t rindex[32], sindex[32], rcount[32], scount[32];
} rab_t;

/* Step 1: the first 2 rem ranks pair up and exchange halves; the odd one hands its reduced
 * half to the even one and leaves (vrank -1). Step 2: recursive halving among the pof2 ranks,
 * acc reduced with the halves received in T; g keeps the indices for the way back. At step 0;
 * the count of acc is count elements. */
static void rab_redscat(pcs_ctx_t *c, rab_t *g, int acc, int64_t count)
{
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts;
    g->nsteps = pcs_log2_floor(size);
    assert(g->nsteps < 32);
    g->pof2 = 1 << g->nsteps;
    g->rem = size - g->pof2;
    g->base = g->rem > 0 ? 2 : 0;
    const int rem = g->rem;
    if (rank < 2 * rem) {
        uint64_t lh = (uint64_t)(count / 2), rh = (uint64_t)count - lh;
        if (rank % 2 != 0) {
            pcs_sendrecv(c, 0, rank - 1, acc, 0, lh * ts, rank - 1, T, lh * ts, rh * ts);
            pcs_reduce(c, T, lh * ts, acc, lh * ts, rh * ts);
            pcs_at(c, 1);
            pcs_send(c, rank - 1, acc, lh * ts, rh * ts);
            g->vrank = -1;
        } else {
            pcs_sendrecv(c, 0, rank + 1, acc, lh * ts, rh * ts, rank + 1, T, 0, lh * ts);
            pcs_reduce(c, T, 0, acc, 0, lh * ts);
            pcs_at(c, 1);
            pcs_recv(c, rank + 1, acc, lh * ts, rh * ts);
            g->vrank = rank / 2;
        }
    } else {
        g->vrank = rank - rem;
    }
    if (g->vrank == -1)
        return;
    int step = 0;
    int64_t wsize = count;
    g->sindex[0] = g->rindex[0] = 0;
    for (int mask = 1; mask < g->pof2; mask <<= 1) {
        const int vdest = g->vrank ^ mask, dest = vdest < rem ? vdest * 2 : vdest + rem;
        if (rank < dest) {
            g->rcount[step] = wsize / 2;
            g->scount[step] = wsize - g->rcount[step];
            g->sindex[step] = g->rindex[step] + g->rcount[step];
        } else {
            g->scount[step] = wsize / 2;
            g->rcount[step] = wsize - g->scount[step];
            g->rindex[step] = g->sindex[step] + g->scount[step];
        }
        pcs_at(c, g->base + step);
        pcs_sendrecv(c, 0, dest, acc, g->sindex[step] * ts, g->scount[step] * ts, dest, T,
                     g->rindex[step] * ts, g->rcount[step] * ts);
        pcs_reduce(c, T, g->rindex[step] * ts, acc, g->rindex[step] * ts,
                   g->rcount[step] * ts);
        if (step + 1 < g->nsteps) {
            g->rindex[step + 1] = g->rindex[step];
            g->sindex[step + 1] = g->rindex[step];
            wsize = g->rcount[step];
            step++;
        }
    }
}

/* reduce.c:795 (commutative, count >= pof2: selection falls back to linear otherwise):
 * Rabenseifner's reduce-scatter, then a binomial gather to the root. rbuf is R at the root,
 * T3 elsewhere; tmp_buf is T. */
static void reduce_redscat_gather(pcs_ctx_t *c, int64_t count, int root, bool inplace,
                                  int64_t *gsteps)
{
    const int rank = c->rank;
    const uint64_t ts = c->ts;
    const int rb = rank == root ? R : T3;
    if (rb == T3)
        pcs_need_tmp(c, T3, (uint64_t)count * ts);
    pcs_need_tmp(c, T, (uint64_t)count * ts);
    pcs_at(c, 0);
    if (rank != root || !inplace)
        pcs_copy(c, S, 0, rb, 0, (uint64_t)count * ts);
    rab_t g;
    rab_redscat(c, &g, rb, count);
    const int nsteps = g.nsteps, rem = g.rem;
    int vrank = g.vrank;
    int64_t *const rindex = g.rindex, *const sindex = g.sindex, *const rcount = g.rcount,
                   *const scount = g.scount;
    int64_t gs = g.base + nsteps;
    int vroot;
    const bool oddroot = root < 2 * rem && root % 2 != 0;
    if (oddroot) {
        /* an odd root left the halving: rank 0 (vrank 0) hands it its part */
        vroot = 0;
        if (rank == root) {
            int64_t wsize = count;
            for (int st = 0; st < nsteps; st++) {
                rcount[st] = wsize / 2;
                scount[st] = wsize - rcount[st];
                rindex[st] = 0;
                sindex[st] = rcount[st];
                wsize /= 2;
            }
            pcs_at(c, gs);
            pcs_recv(c, 0, R, 0, (uint64_t)rcount[nsteps - 1] * ts);
            vrank = 0;
        } else if (vrank == 0) {
            pcs_at(c, gs);
            pcs_send(c, root, rb, 0, (uint64_t)rcount[nsteps - 1] * ts);
            vrank = -1;
        }
        gs++;
    } else {
        vroot = root < 2 * rem ? root / 2 : root - rem;
    }
    if (vrank != -1) { /* the binomial gather, halves back up to vroot */
        int step = nsteps - 1, j = 0;
        for (int mask = g.pof2 >> 1; mask > 0; mask >>= 1, j++) {
            int vdest = vrank ^ mask, dest = vdest < rem ? vdest * 2 : vdest + rem;
            if (vdest == 0 && oddroot)
                dest = root;
            pcs_at(c, gs + j);
            if ((vdest >> step) == (vroot >> step)) {
                pcs_send(c, dest, rb, rindex[step] * ts, rcount[step] * ts);
                break;
            }
            pcs_recv(c, dest, rb, sindex[step] * ts, scount[step] * ts);
            step--;
        }
    }
    *gsteps = gs + nsteps;
}

void pcs_gen_reduce(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const int64_t count = c->a->count;
    const int root = c->a->root;
    bool inplace = c->a->in_place;
    pcs_tree_t t = {.size = c->size, .root = root};
    int64_t seg = pcs_segcount(ch->segsize, c->ts, count);
    if (seg < 1)
        seg = 1;
    int sbuf = inplace ? R : S;
    switch (ch->alg) {
    case PCS_ALG_REDUCE_LINEAR:
        reduce_linear(c, sbuf, inplace, count, root);
        *gsteps = 1;
        return;
    case PCS_ALG_REDUCE_REDSCAT_GATHER:
        reduce_redscat_gather(c, count, root, inplace, gsteps);
        return;
    case PCS_ALG_REDUCE_CHAIN: t.kind = PCS_TR_CHAIN; t.param = ch->fanout; break;
    case PCS_ALG_REDUCE_BINARY: t.kind = PCS_TR_BIN; break;
    case PCS_ALG_REDUCE_BINOMIAL: t.kind = PCS_TR_INORDER_BM; break;
    case PCS_ALG_REDUCE_IN_ORDER_BINARY: {
        /* reduce.c:513: tree rooted at size-1, then a send to the real root */
        int io_root = c->size - 1;
        t.kind = PCS_TR_INORDER_BIN;
        t.root = io_root;
        int64_t nseg = (count + seg - 1) / seg;
        int64_t h = pcs_tree_root_height(&t) + nseg - 1;
        uint64_t len = (uint64_t)count * c->ts;
        if (io_root != root && c->rank == root && inplace) {
            /* the real root contributes a copy of its receive buffer (reduce.c:556) */
            pcs_need_tmp(c, PCS_BUF_TMP3, len);
            pcs_copy(c, R, 0, PCS_BUF_TMP3, 0, len);
            sbuf = PCS_BUF_TMP3;
            inplace = false;
        }
        if (io_root != root && c->rank == io_root)
            reduce_generic(c, sbuf, false, false, count, seg, &t, ch->max_requests);
        else
            reduce_generic(c, sbuf, inplace && c->rank == io_root, true, count, seg, &t,
                           ch->max_requests);
        *gsteps = h;
        if (io_root != root) {
            pcs_at(c, h);
            if (c->rank == root)
                pcs_recv(c, io_root, R, 0, len);
            else if (c->rank == io_root)
                pcs_send(c, root, T, 0, len);
            *gsteps = h + 1;
        }
        return;
    }
    default: pcs_fail(c, PCS_E_UNSUPPORTED); return;
    }
    bool has_rbuf = true;
    reduce_generic(c, sbuf, inplace && c->rank == root, has_rbuf, count, seg, &t,
                   ch->max_requests);
    int64_t nseg = (count + seg - 1) / seg;
    *gsteps = pcs_tree_root_height(&t) + nseg - 1;
}

/* ---- the fold to a power of two (coll_ompi.h) ---- */

int pcs_fold_even(pcs_ctx_t *c, int rem, int acc, int tmp, uint64_t len)
{
    const int rank = c->rank;
    if (rank >= 2 * rem)
        return rank - rem;
    if (rank % 2 == 0) {
        pcs_send(c, rank + 1, acc, 0, len);
        return -1;
    }
    pcs_recv(c, rank - 1, tmp, 0, len);
    pcs_reduce(c, tmp, 0, acc, 0, len);
    return rank / 2;
}

/* ---- allreduce ---- */

/* allreduce.c:130. T holds the running value; buffers swap roles as in the source. */
static void allreduce_rdbl(pcs_ctx_t *c, bool inplace, int64_t count)
{
    const int rank = c->rank, size = c->size;
    const uint64_t len = (uint64_t)count * c->ts;
    pcs_need_tmp(c, T, len);
    pcs_at(c, 0);
    pcs_copy(c, inplace ? R : S, 0, T, 0, len);
    int tsend = T, trecv = R;
    const int adjsize = pcs_pow2_floor(size), extra = size - adjsize;
    const int newrank = pcs_fold_even(c, extra, tsend, trecv, len);
    int k = extra > 0 ? 1 : 0;
    for (int distance = 1; distance < adjsize && newrank >= 0; distance <<= 1, k++) {
        const int remote = pcs_fold_rank(newrank ^ distance, extra);
        pcs_at(c, k);
        pcs_sendrecv_actual(c, 0, remote, tsend, 0, len, remote, trecv, 0, len);
        if (rank < remote) {
            pcs_reduce(c, tsend, 0, trecv, 0, len);
            int x = trecv;
            trecv = tsend;
            tsend = x;
        } else {
            pcs_reduce(c, trecv, 0, tsend, 0, len);
        }
    }
    if (rank < 2 * extra) {
        pcs_at(c, 1 + pcs_log2_floor(adjsize));
        if (rank % 2 == 0) {
            pcs_recv(c, rank + 1, R, 0, len);
            tsend = R;
        } else {
            pcs_send(c, rank - 1, tsend, 0, len);
        }
    }
    pcs_copy(c, tsend, 0, R, 0, len);
}

/* allreduce.c:341 (count >= size) */
static void allreduce_ring(pcs_ctx_t *c, bool inplace, int64_t count)
{
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts;
    int split;
    int64_t early, late;
    pcs_blockcount(count, size, &split, &early, &late);
#define BOFF(b) ((uint64_t)((b) < split ? (int64_t)(b) * early : (int64_t)(b) * late + split) * ts)
#define BLEN(b) ((uint64_t)((b) < split ? early : late) * ts)
    pcs_need_tmp(c, T2, 2 * (uint64_t)early * ts);
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, 0, (uint64_t)count * ts);
    int send_to = (rank + 1) % size, recv_from = (rank + size - 1) % size, inbi = 0;
    uint64_t half = (uint64_t)early * ts;
    pcs_irecv(c, inbi, recv_from, T2, 0, BLEN(recv_from));
    pcs_send(c, send_to, R, BOFF(rank), BLEN(rank));
    for (int k = 2; k < size; k++) {
        const int prevblock = (rank + size - k + 1) % size;
        inbi ^= 1;
        pcs_at(c, k - 1);
        /* the block arriving in step k-1 is (rank - k) mod size */
        int rb = (rank + size - k) % size;
        pcs_irecv(c, inbi, recv_from, T2, inbi * half, BLEN(rb));
        pcs_wait(c, inbi ^ 1);
        pcs_reduce(c, T2, (inbi ^ 1) * half, R, BOFF(prevblock), BLEN(prevblock));
        pcs_send(c, send_to, R, BOFF(prevblock), BLEN(prevblock));
    }
    pcs_wait(c, inbi);
    int rf = (rank + 1) % size;
    pcs_reduce(c, T2, inbi * half, R, BOFF(rf), BLEN(rf));
    for (int k = 0; k < size - 1; k++) {
        const int recv_data_from = (rank + size - k) % size;
        const int send_data_from = (rank + 1 + size - k) % size;
        pcs_at(c, size - 1 + k);
        pcs_sendrecv(c, 0, send_to, R, BOFF(send_data_from), BLEN(send_data_from), recv_from,
                     R, BOFF(recv_data_from), BLEN(recv_data_from));
    }
#undef BOFF
#undef BLEN
}

/* allreduce.c:618, count >= size * segcount: the ring's reduce-scatter in num_phases rounds
 * of one segment per block, then the ring allgather of whole blocks. */
static void allreduce_ring_segmented(pcs_ctx_t *c, bool inplace, int64_t count, uint64_t segsize)
{
    const int rank = c->rank, size = c->size;
    const uint64_t ts = c->ts;
    const int64_t seg = pcs_segcount(segsize, ts, count);
    int64_t nph = count / (size * seg), rm = count % (size * seg);
    if (rm >= size && rm > (size * seg) / 2)
        nph++;
    int split, xs;
    int64_t early, late, maxseg, xl;
    pcs_blockcount(count, size, &split, &early, &late);
    pcs_blockcount(early, (int)nph, &xs, &maxseg, &xl);
    const uint64_t half = (uint64_t)maxseg * ts;
    pcs_need_tmp(c, T2, 2 * half);
#define BOFF(b) ((b) < split ? (int64_t)(b) * early : (int64_t)(b) * late + split)
#define BCNT(b) ((b) < split ? early : late)
    /* phase ph of block b: (byte offset, bytes) */
    uint64_t po, pl;
#define PH(b, ph)                                                                           \
    do {                                                                                    \
        int sp_;                                                                            \
        int64_t e_, l_;                                                                     \
        pcs_blockcount(BCNT(b), (int)nph, &sp_, &e_, &l_);                                  \
        pl = (uint64_t)((ph) < sp_ ? e_ : l_) * ts;                                         \
        po = (uint64_t)(BOFF(b) + ((ph) < sp_ ? (ph) * e_ : (ph) * l_ + sp_)) * ts;         \
    } while (0)
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, 0, (uint64_t)count * ts);
    const int send_to = (rank + 1) % size, recv_from = (rank + size - 1) % size;
    for (int64_t ph = 0; ph < nph; ph++) {
        const int64_t b0 = ph * (size - 1);
        int inbi = 0;
        pcs_at(c, b0);
        PH(recv_from, ph);
        pcs_irecv(c, inbi, recv_from, T2, 0, pl);
        PH(rank, ph);
        pcs_send(c, send_to, R, po, pl);
        for (int k = 2; k < size; k++) {
            const int prevblock = (rank + size - k + 1) % size;
            inbi ^= 1;
            pcs_at(c, b0 + k - 1);
            PH((rank + size - k) % size, ph);
            pcs_irecv(c, inbi, recv_from, T2, inbi * half, pl);
            pcs_wait(c, inbi ^ 1);
            PH(prevblock, ph);
            pcs_reduce(c, T2, (inbi ^ 1) * half, R, po, pl);
            pcs_send(c, send_to, R, po, pl);
        }
        pcs_wait(c, inbi);
        PH((rank + 1) % size, ph);
        pcs_reduce(c, T2, inbi * half, R, po, pl);
    }
    const int64_t b1 = nph * (size - 1);
    for (int k = 0; k < size - 1; k++) {
        const int rdf = (rank + size - k) % size, sdf = (rank + 1 + size - k) % size;
        pcs_at(c, b1 + k);
        pcs_sendrecv(c, 0, send_to, R, (uint64_t)BOFF(sdf) * ts, (uint64_t)BCNT(sdf) * ts,
                     recv_from, R, (uint64_t)BOFF(rdf) * ts, (uint64_t)BCNT(rdf) * ts);
    }
#undef PH
#undef BOFF
#undef BCNT
}

/* allreduce.c:970, commutative and count >= pof2: Rabenseifner's reduce-scatter, the
 * allgather back by recursive doubling, then the pairs of step 1 get the result */
static void allreduce_rabenseifner(pcs_ctx_t *c, bool inplace, int64_t count)
{
    const int rank = c->rank;
    const uint64_t ts = c->ts;
    pcs_need_tmp(c, T, (uint64_t)count * ts);
    pcs_at(c, 0);
    if (!inplace)
        pcs_copy(c, S, 0, R, 0, (uint64_t)count * ts);
    rab_t g;
    rab_redscat(c, &g, R, count);
    if (g.vrank != -1) {
        int step = g.nsteps - 1;
        for (int mask = g.pof2 >> 1, k = 0; mask > 0; mask >>= 1, k++) {
            int vdest = g.vrank ^ mask;
            int dest = vdest < g.rem ? vdest * 2 : vdest + g.rem;
            pcs_at(c, g.base + g.nsteps + k);
            pcs_sendrecv(c, 0, dest, R, g.rindex[step] * ts, g.rcount[step] * ts, dest, R,
                         g.sindex[step] * ts, g.scount[step] * ts);
            step--;
        }
    }
    if (rank < 2 * g.rem) {
        pcs_at(c, g.base + 2 * g.nsteps);
        if (rank % 2 != 0)
            pcs_recv(c, rank - 1, R, 0, (uint64_t)count * ts);
        else
            pcs_send(c, rank + 1, R, 0, (uint64_t)count * ts);
    }
}

/* allreduce.c:880 (linear) and :60 (nonoverlapping): reduce to 0, then bcast from 0 */
static pcs_err_t allreduce_reduce_bcast(pcs_ctx_t *c, bool linear, bool inplace, int64_t count,
                                        int64_t *gsteps)
{
    pcs_args_t ra = *c->a, ba = *c->a;
    ra.coll = PCS_REDUCE;
    ra.root = 0;
    ra.count = count;
    /* non-root ranks with MPI_IN_PLACE pass rbuf as their send buffer */
    ra.in_place = inplace && c->rank == 0;
    ba.coll = PCS_BCAST;
    ba.root = 0;
    ba.count = count;
    ba.in_place = false;
    pcs_choice_t rc, bc;
    pcs_err_t e;
    if (linear) {
        rc = (pcs_choice_t){.component = PCS_COMP_TUNED, .lib_alg = 1,
                            .alg = PCS_ALG_REDUCE_LINEAR};
        bc = (pcs_choice_t){.component = PCS_COMP_TUNED, .lib_alg = 1,
                            .alg = PCS_ALG_BCAST_LINEAR};
    } else {
        if ((e = pcs_ompi41_select(&ra, NULL, &rc)) || (e = pcs_ompi41_select(&ba, NULL, &bc)))
            return e;
    }
    uint8_t save = c->map[S];
    if (inplace && c->rank != 0)
        c->map[S] = R;
    int64_t g1, g2;
    e = pcs_gen_sub(c, &ra, &rc, &g1);
    c->map[S] = save;
    if (e)
        return e;
    uint32_t save_base = c->step_base;
    c->step_base += (uint32_t)g1;
    e = pcs_gen_sub(c, &ba, &bc, &g2);
    c->step_base = save_base;
    *gsteps = g1 + g2;
    return e;
}

void pcs_gen_allreduce(pcs_ctx_t *c, const pcs_choice_t *ch, int64_t *gsteps)
{
    const pcs_args_t *a = c->a;
    int size = c->size;
    switch (ch->alg) {
    case PCS_ALG_ALLREDUCE_LINEAR:
        pcs_fail(c, allreduce_reduce_bcast(c, true, a->in_place, a->count, gsteps));
        return;
    case PCS_ALG_ALLREDUCE_NONOVERLAPPING:
        pcs_fail(c, allreduce_reduce_bcast(c, false, a->in_place, a->count, gsteps));
        return;
    case PCS_ALG_ALLREDUCE_RECURSIVE_DOUBLING:
        allreduce_rdbl(c, a->in_place, a->count);
        *gsteps = (size - pcs_pow2_floor(size) > 0 ? 2 : 0) + pcs_log2_floor(size);
        return;
    case PCS_ALG_ALLREDUCE_RING:
        allreduce_ring(c, a->in_place, a->count);
        *gsteps = 2 * (size - 1);
        return;
    case PCS_ALG_ALLREDUCE_SEGMENTED_RING: {
        allreduce_ring_segmented(c, a->in_place, a->count, ch->segsize);
        int64_t seg = pcs_segcount(ch->segsize, c->ts, a->count);
        int64_t nph = a->count / (size * seg), rm = a->count % (size * seg);
        if (rm >= size && rm > (size * seg) / 2)
            nph++;
        *gsteps = (nph + 1) * (size - 1);
        return;
    }
    case PCS_ALG_ALLREDUCE_RABENSEIFNER: {
        allreduce_rabenseifner(c, a->in_place, a->count);
        int rem = size - pcs_pow2_floor(size);
        *gsteps = (rem > 0 ? 3 : 0) + 2 * pcs_log2_floor(size);
        return;
    }
    default: pcs_fail(c, PCS_E_UNSUPPORTED); return;
    }
}
