/* coll_mpich_red.c: per-rank schedules of MPICH 4.0.2's MPIR reductions (src/mpi/coll/
 * reduce, allreduce, reduce_scatter(_block), scan, exscan *_intra_*.c): the messages of each
 * MPIC_ call in the library's order, with the operand order of every MPIR_Reduce_local. */
#include "coll_mpich.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

/* ---- reduce ---- */

static void reduce_binomial(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, root = a->root;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    const bool comm = a->commutative;
    const int acc = rank == root ? R : T2; /* non-roots reduce into a scratch "recvbuf" */
    mv_need(v, T, n);
    if (rank != root)
        mv_need(v, T2, n);
    if (rank != root || !a->in_place)
        mv_copy(v, S, 0, acc, 0, n);
    const int lroot = comm ? root : 0, rel = (rank - lroot + S_) % S_;
    for (int mask = 1; mask < S_; mask <<= 1) {
        mv_at(v, pcs_log2_floor(mask));
        if (!(mask & rel)) {
            int src = rel | mask;
            if (src < S_) {
                mv_recv(v, (src + lroot) % S_, T, 0, n);
                if (comm) {
                    mv_reduce(v, T, 0, acc, 0, n);
                } else {
                    mv_reduce(v, acc, 0, T, 0, n);
                    mv_copy(v, T, 0, acc, 0, n);
                }
            }
        } else {
            mv_send(v, ((rel & ~mask) + lroot) % S_, acc, 0, n);
            break;
        }
    }
    if (!comm && root != 0) {
        mv_at(v, pcs_log2_ceil(S_));
        if (rank == 0)
            mv_send(v, root, acc, 0, n);
        else if (rank == root)
            mv_recv(v, 0, R, 0, n);
    }
}

/* cnts/disps of the recursive-halving algorithms: count split over pof2 blocks, the first
 * count % pof2 one element longer; the sched versions give the whole remainder to the last */
static int64_t blk(const pcs_mv_t *v, int64_t count, int pof2, int i)
{
    if (v->sched)
        return count / pof2 + (i == pof2 - 1 ? count % pof2 : 0);
    return count / pof2 + (i < count % pof2 ? 1 : 0);
}
static int64_t blks(const pcs_mv_t *v, int64_t count, int pof2, int from, int to)
{
    int64_t s = 0;
    for (int i = from; i < to; i++)
        s += blk(v, count, pof2, i);
    return s;
}

/* ---- Rabenseifner's halves: the reduce-scatter by recursive halving and the way back, which
 * MPIR_Reduce_intra_reduce_scatter_gather and MPIR_Allreduce_intra_reduce_scatter_allgather
 * both write ---- */

/* the block range of a new rank: blocks [send_idx, last_idx) held, recv_idx the other part */
typedef struct rsa {
    int send_idx, recv_idx, last_idx;
} rsa_t;

/* The halving among the pof2 new ranks (steps pre, pre + 1, ...): each exchanges half of
 * its blocks with newrank ^ mask (old rank: odd ? 2 nd + 1 : 2 nd below rem), acc reduced
 * with what arrives in T. */
static void rsa_halving(pcs_mv_t *v, const pcs_args_t *a, int pof2, int rem, bool odd,
                        int newrank, int acc, int pre, rsa_t *x)
{
    const uint64_t ts = a->type_size;
    const int64_t count = a->count;
    x->send_idx = x->recv_idx = 0;
    x->last_idx = pof2;
    for (int mask = 1, k = 0; mask < pof2; k++) {
        const int newdst = newrank ^ mask;
        const int dst = newdst < rem ? newdst * 2 + (odd ? 1 : 0) : newdst + rem;
        int64_t sc, rc;
        if (newrank < newdst) {
            x->send_idx = x->recv_idx + pof2 / (mask * 2);
            sc = blks(v, count, pof2, x->send_idx, x->last_idx);
            rc = blks(v, count, pof2, x->recv_idx, x->send_idx);
        } else {
            x->recv_idx = x->send_idx + pof2 / (mask * 2);
            sc = blks(v, count, pof2, x->send_idx, x->recv_idx);
            rc = blks(v, count, pof2, x->recv_idx, x->last_idx);
        }
        const uint64_t so = (uint64_t)blks(v, count, pof2, 0, x->send_idx) * ts;
        const uint64_t ro = (uint64_t)blks(v, count, pof2, 0, x->recv_idx) * ts;
        mv_at(v, pre + k);
        mv_sendrecv(v, dst, acc, so, (uint64_t)sc * ts, dst, T, ro, (uint64_t)rc * ts);
        mv_reduce(v, T, ro, acc, ro, (uint64_t)rc * ts);
        x->send_idx = x->recv_idx;
        mask <<= 1;
        if (mask < pof2)
            x->last_idx = x->recv_idx + pof2 / mask;
    }
}

/* One step of the way back with newdst (mask): the elements this rank sends and receives. */
static void rsa_back(const pcs_mv_t *v, const pcs_args_t *a, int pof2, int newrank, int newdst,
                     int mask, rsa_t *x, int64_t *sc, int64_t *rc)
{
    const int64_t count = a->count;
    if (newrank < newdst) {
        if (mask != pof2 / 2)
            x->last_idx = x->last_idx + pof2 / (mask * 2);
        x->recv_idx = x->send_idx + pof2 / (mask * 2);
        *sc = blks(v, count, pof2, x->send_idx, x->recv_idx);
        *rc = blks(v, count, pof2, x->recv_idx, x->last_idx);
    } else {
        x->recv_idx = x->send_idx - pof2 / (mask * 2);
        *sc = blks(v, count, pof2, x->send_idx, x->last_idx);
        *rc = blks(v, count, pof2, x->recv_idx, x->send_idx);
    }
}

/* reduce_intra_reduce_scatter_gather.c: the odd ranks below 2 rem fold into the even ones,
 * Rabenseifner's halving, then a binomial gather of the halves to the root (the odd root,
 * which left, takes new rank 0's place) */
static void reduce_rsg(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, root = a->root;
    const uint64_t ts = a->type_size, n = (uint64_t)a->count * ts;
    const int64_t count = a->count;
    const int acc = rank == root ? R : T2;
    const int pof2 = pcs_pow2_floor(S_), rem = S_ - pof2, lg = pcs_log2_floor(pof2);
    const int pre = rem ? 1 : 0;
    mv_need(v, T, n);
    if (rank != root)
        mv_need(v, T2, n);
    if (rank != root || !a->in_place)
        mv_copy(v, S, 0, acc, 0, n);
    int newrank;
    if (rank < 2 * rem) {
        mv_at(v, 0);
        if (rank % 2 != 0) {
            mv_send(v, rank - 1, acc, 0, n);
            newrank = -1;
        } else {
            mv_recv(v, rank + 1, T, 0, n);
            mv_reduce(v, T, 0, acc, 0, n);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
    rsa_t x = {0, 0, pof2};
    if (newrank != -1)
        rsa_halving(v, a, pof2, rem, false, newrank, acc, pre, &x);
    const int odd_root = root < 2 * rem && root % 2 != 0;
    const int g0 = pre + lg + (odd_root ? 1 : 0);
    int newroot;
    if (root < 2 * rem) {
        if (root % 2 != 0) {
            mv_at(v, pre + lg);
            if (rank == root) {
                mv_recv(v, 0, R, 0, (uint64_t)blk(v, count, pof2, 0) * ts);
                newrank = 0;
                x.send_idx = 0;
                x.last_idx = 2;
            } else if (newrank == 0) {
                mv_send(v, root, acc, 0, (uint64_t)blk(v, count, pof2, 0) * ts);
                newrank = -1;
            }
            newroot = 0;
        } else {
            newroot = root / 2;
        }
    } else {
        newroot = root - rem;
    }
    if (newrank == -1)
        return;
    int mask = pof2 >> 1, j = lg - 1;
    for (int k = 0; mask > 0; k++) {
        const int newdst = newrank ^ mask;
        int dst = newdst < rem ? newdst * 2 : newdst + rem;
        if (newdst == 0 && odd_root)
            dst = root;
        const int ndt = (newdst >> j) << j, nrt = (newroot >> j) << j;
        int64_t sc, rc;
        rsa_back(v, a, pof2, newrank, newdst, mask, &x, &sc, &rc);
        mv_at(v, g0 + k);
        if (ndt == nrt) {
            mv_send(v, dst, acc, (uint64_t)blks(v, count, pof2, 0, x.send_idx) * ts,
                    (uint64_t)sc * ts);
            break;
        }
        mv_recv(v, dst, acc, (uint64_t)blks(v, count, pof2, 0, x.recv_idx) * ts,
                (uint64_t)rc * ts);
        if (newrank > newdst)
            x.send_idx = x.recv_idx;
        mask >>= 1;
        j--;
    }
}

void pcs_mpich_reduce(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg)
{
    if (alg == PCS_ALG_MPICH_REDUCE_RSG)
        reduce_rsg(v, a);
    else
        reduce_binomial(v, a);
}

/* ---- allreduce: the even ranks below 2 rem fold into the odd ones, the pof2 new ranks
 * reduce, the folded ones get the result back ---- */

/* The fold of MPICH's recursive doubling and halving: among the first 2 rem ranks the even
 * ones send their vector (acc, len bytes) to the odd ones, which reduce it (received in tmp)
 * into acc, at step 0. Returns the new rank (odd r: r / 2; r >= 2 rem: r - rem) or -1. */
static int fold_even(pcs_mv_t *v, int rem, int acc, int tmp, uint64_t len)
{
    const int rank = v->rank;
    if (rank >= 2 * rem)
        return rank - rem;
    mv_at(v, 0);
    if (rank % 2 == 0) {
        mv_send(v, rank + 1, acc, 0, len);
        return -1;
    }
    mv_recv(v, rank - 1, tmp, 0, len);
    mv_reduce(v, tmp, 0, acc, 0, len);
    return rank / 2;
}

/* the result in R (a copy of S unless in place); returns the new rank or -1 */
static int allreduce_fold(pcs_mv_t *v, const pcs_args_t *a, int rem)
{
    const uint64_t n = (uint64_t)a->count * a->type_size;
    mv_need(v, T, n);
    if (!a->in_place)
        mv_copy(v, S, 0, R, 0, n);
    return fold_even(v, rem, R, T, n);
}

static void allreduce_unfold(pcs_mv_t *v, const pcs_args_t *a, int rem, int64_t step)
{
    const int rank = v->rank;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    if (rank >= 2 * rem)
        return;
    mv_at(v, step);
    if (rank % 2)
        mv_send(v, rank - 1, R, 0, n);
    else
        mv_recv(v, rank + 1, R, 0, n);
}

/* allreduce_intra_recursive_doubling.c */
static void allreduce_rd(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    const int pof2 = pcs_pow2_floor(S_), rem = S_ - pof2, lg = pcs_log2_floor(pof2);
    const int pre = rem ? 1 : 0;
    const int newrank = allreduce_fold(v, a, rem);
    if (newrank != -1)
        for (int mask = 1; mask < pof2; mask <<= 1) {
            const int nd = newrank ^ mask, dst = nd < rem ? nd * 2 + 1 : nd + rem;
            mv_at(v, pre + pcs_log2_floor(mask));
            mv_sendrecv(v, dst, R, 0, n, dst, T, 0, n);
            if (a->commutative || dst < rank) {
                mv_reduce(v, T, 0, R, 0, n);
            } else {
                mv_reduce(v, R, 0, T, 0, n);
                mv_copy(v, T, 0, R, 0, n);
            }
        }
    allreduce_unfold(v, a, rem, pre + lg);
}

/* allreduce_intra_reduce_scatter_allgather.c: Rabenseifner's halving, then the allgather
 * back by recursive doubling */
static void allreduce_rsa(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size;
    const uint64_t ts = a->type_size;
    const int64_t count = a->count;
    const int pof2 = pcs_pow2_floor(S_), rem = S_ - pof2, lg = pcs_log2_floor(pof2);
    const int pre = rem ? 1 : 0;
    const int newrank = allreduce_fold(v, a, rem);
    if (newrank != -1) {
        rsa_t x;
        rsa_halving(v, a, pof2, rem, true, newrank, R, pre, &x);
        for (int mask = pof2 >> 1, k = lg; mask > 0; mask >>= 1, k++) {
            const int newdst = newrank ^ mask;
            const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
            int64_t sc, rc;
            rsa_back(v, a, pof2, newrank, newdst, mask, &x, &sc, &rc);
            mv_at(v, pre + k);
            mv_sendrecv(v, dst, R, (uint64_t)blks(v, count, pof2, 0, x.send_idx) * ts,
                        (uint64_t)sc * ts, dst, R,
                        (uint64_t)blks(v, count, pof2, 0, x.recv_idx) * ts, (uint64_t)rc * ts);
            if (newrank > newdst)
                x.send_idx = x.recv_idx;
        }
    }
    allreduce_unfold(v, a, rem, pre + 2 * lg);
}

void pcs_mpich_allreduce(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg)
{
    if (alg == PCS_ALG_MPICH_ALLREDUCE_RSA)
        allreduce_rsa(v, a);
    else
        allreduce_rd(v, a);
}

/* ---- reduce_scatter(_block) ---- */

static int mirror(int x, int bits)
{
    int r = x & ~((1 << bits) - 1);
    for (int i = 0; i < bits; i++)
        r |= ((x >> i) & 1) << (bits - i - 1);
    return r;
}

/* block i's elements (reduce_scatter_block: recvcount for every block) */
static int64_t rs_cnt(const pcs_args_t *a, int i)
{
    return a->coll == PCS_REDUCE_SCATTER_BLOCK ? a->count : a->counts[i];
}
/* the elements of blocks [from, to) */
static int64_t rs_sum(const pcs_args_t *a, int from, int to)
{
    int64_t s = 0;
    for (int i = from; i < to; i++)
        s += rs_cnt(a, i);
    return s;
}
#define DS(i) ((uint64_t)rs_sum(a, 0, (i)) * ts)

/* reduce_scatter_intra_pairwise.c: block dst to rank + i, block rank from rank - i */
static void rs_pairwise(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t ts = a->type_size, my = (uint64_t)rs_cnt(a, rank) * ts;
    if (!a->in_place)
        mv_copy(v, S, DS(rank), R, 0, my);
    mv_need(v, T, my);
    for (int i = 1; i < S_; i++) {
        int src = (rank - i + S_) % S_, dst = (rank + i) % S_;
        mv_at(v, i - 1);
        mv_sendrecv(v, dst, a->in_place ? R : S, DS(dst), (uint64_t)rs_cnt(a, dst) * ts, src, T,
                    0, my);
        mv_reduce(v, T, 0, R, a->in_place ? DS(rank) : 0, my);
    }
    if (a->in_place && rank != 0)
        mv_copy(v, R, DS(rank), R, 0, my);
}

/* reduce_scatter_intra_noncommutative.c: power-of-two size, equal blocks, bit-reversed
 * order, the two halves of T and T2 taking turns */
static void rs_noncommutative(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, lg = pcs_log2_floor(S_);
    const uint64_t ts = a->type_size, tb = (uint64_t)rs_sum(a, 0, S_) * ts;
    const uint64_t bb = (uint64_t)rs_cnt(a, 0) * ts;
    mv_need(v, T, tb);
    mv_need(v, T2, tb);
    for (int i = 0; i < S_; i++)
        mv_copy(v, a->in_place ? R : S, (uint64_t)i * bb, T, (uint64_t)mirror(i, lg) * bb, bb);
    bool b0_inout = true;
    int64_t so = 0, ro = 0, size = rs_sum(a, 0, S_);
    for (int k = 0; k < lg; k++) {
        int inc = b0_inout ? T2 : T, outg = b0_inout ? T : T2;
        int peer = rank ^ (1 << k);
        size /= 2;
        if (rank > peer)
            ro += size;
        else
            so += size;
        mv_at(v, k);
        mv_sendrecv(v, peer, outg, (uint64_t)so * ts, (uint64_t)size * ts, peer, inc,
                    (uint64_t)ro * ts, (uint64_t)size * ts);
        if (rank > peer) {
            mv_reduce(v, inc, (uint64_t)ro * ts, outg, (uint64_t)ro * ts, (uint64_t)size * ts);
        } else {
            mv_reduce(v, outg, (uint64_t)ro * ts, inc, (uint64_t)ro * ts, (uint64_t)size * ts);
            b0_inout = !b0_inout;
        }
        so = ro;
    }
    mv_copy(v, b0_inout ? T : T2, (uint64_t)ro * ts, R, 0, (uint64_t)size * ts);
}

/* tmp_results T := the whole input; tmp_recvbuf T2 */
static void rs_load(pcs_mv_t *v, const pcs_args_t *a, uint64_t tb)
{
    mv_need(v, T, tb);
    mv_need(v, T2, tb);
    mv_copy(v, a->in_place ? R : S, 0, T, 0, tb);
}

/* reduce_scatter_intra_recursive_halving.c (commutative ops): the even ranks below 2 rem
 * fold into the odd ones, halving among the pof2 new ranks (new rank i holds the blocks of
 * the old ranks folded into it), the folded ones get their block back */
static void rs_recursive_halving(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t ts = a->type_size, tb = (uint64_t)rs_sum(a, 0, S_) * ts;
    const int pof2 = pcs_pow2_floor(S_), rem = S_ - pof2, lg = pcs_log2_floor(pof2);
    const int pre = rem ? 1 : 0;
    rs_load(v, a, tb);
    const int newrank = fold_even(v, rem, T, T2, tb);
    if (newrank != -1) {
        /* newcnts[i] / newdisps[i]: the old ranks folded into new rank i */
        int send_idx = 0, recv_idx = 0, last_idx = pof2;
#define OLD(i) ((i) < rem ? (i) * 2 + 1 : (i) + rem)
#define NEWD(i) ((i) < pof2 ? DS(OLD(i) - (OLD(i) < 2 * rem ? 1 : 0)) : tb)
        for (int mask = pof2 >> 1, k = 0; mask > 0; mask >>= 1, k++) {
            int newdst = newrank ^ mask, dst = OLD(newdst);
            uint64_t sc, rc;
            if (newrank < newdst) {
                send_idx = recv_idx + mask;
                sc = NEWD(last_idx) - NEWD(send_idx);
                rc = NEWD(send_idx) - NEWD(recv_idx);
            } else {
                recv_idx = send_idx + mask;
                sc = NEWD(recv_idx) - NEWD(send_idx);
                rc = NEWD(last_idx) - NEWD(recv_idx);
            }
            mv_at(v, pre + k);
            if (sc && rc)
                mv_sendrecv(v, dst, T, NEWD(send_idx), sc, dst, T2, NEWD(recv_idx), rc);
            else if (rc)
                mv_recv(v, dst, T2, NEWD(recv_idx), rc);
            else if (sc)
                mv_send(v, dst, T, NEWD(send_idx), sc);
            if (rc)
                mv_reduce(v, T2, NEWD(recv_idx), T, NEWD(recv_idx), rc);
            send_idx = recv_idx;
            last_idx = recv_idx + mask;
        }
#undef OLD
#undef NEWD
        mv_copy(v, T, DS(rank), R, 0, (uint64_t)rs_cnt(a, rank) * ts);
    }
    if (rank < 2 * rem) {
        mv_at(v, pre + lg);
        if (rank % 2) {
            if (rs_cnt(a, rank - 1))
                mv_send(v, rank - 1, T, DS(rank - 1), (uint64_t)rs_cnt(a, rank - 1) * ts);
        } else if (rs_cnt(a, rank)) {
            mv_recv(v, rank + 1, R, 0, (uint64_t)rs_cnt(a, rank) * ts);
        }
    }
}

/* reduce_scatter_intra_recursive_doubling.c (non-commutative ops, any size): a round
 * exchanges everything but the two subtrees (indexed types of two pieces), then hands it to
 * the ranks whose partner is missing */
static void rs_recursive_doubling(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t ts = a->type_size;
    const bool p2 = pcs_is_pow2(S_);
    rs_load(v, a, (uint64_t)rs_sum(a, 0, S_) * ts);
    int64_t step = 0;
    for (int mask = 1, i = 0; mask < S_; mask <<= 1, i++) {
        int dst = rank ^ mask;
        int dtr = (dst >> i) << i, mtr = (rank >> i) << i;
        /* send type: all but my subtree; receive type: all but dst's subtree */
        int64_t s0 = rs_sum(a, 0, mtr);
        int64_t s1 = mtr + mask < S_ ? rs_sum(a, mtr + mask, S_) : 0;
        int64_t sd1 = s0 + rs_sum(a, mtr, mtr + mask < S_ ? mtr + mask : S_);
        int64_t r0 = rs_sum(a, 0, dtr < S_ ? dtr : S_);
        int64_t r1 = dtr + mask < S_ ? rs_sum(a, dtr + mask, S_) : 0;
        int64_t rd1 = r0 + (dtr < S_ ? rs_sum(a, dtr, dtr + mask < S_ ? dtr + mask : S_) : 0);
        bool received = false;
        mv_at(v, step);
        if (dst < S_) {
            mv_xfer(v, PCS_OP_IRECV, 0, dst, (uint64_t)(r0 + r1) * ts);
            mv_piece(v, T2, 0, (uint64_t)r0 * ts);
            mv_piece(v, T2, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
            mv_xfer(v, PCS_OP_ISEND, 1, dst, (uint64_t)(s0 + s1) * ts);
            mv_piece(v, T, 0, (uint64_t)s0 * ts);
            mv_piece(v, T, (uint64_t)sd1 * ts, (uint64_t)s1 * ts);
            pcs_wait(v->c, 1);
            pcs_wait(v->c, 0);
            received = true;
        }
        step++;
        if (dtr + mask > S_) {
            int ncomp = S_ - mtr - mask, k = i, lvl = 0;
            for (int tm = mask >> 1; tm; tm >>= 1, k--, lvl++) {
                int d2 = rank ^ tm, tr = (rank >> k) << k;
                mv_at(v, step + lvl);
                if (d2 > rank && rank < tr + ncomp && d2 >= tr + ncomp) {
                    mv_xfer(v, PCS_OP_SEND, 0, d2, (uint64_t)(r0 + r1) * ts);
                    mv_piece(v, T2, 0, (uint64_t)r0 * ts);
                    mv_piece(v, T2, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
                } else if (d2 < rank && d2 < tr + ncomp && rank >= tr + ncomp) {
                    mv_xfer(v, PCS_OP_RECV, 0, d2, (uint64_t)(r0 + r1) * ts);
                    mv_piece(v, T2, 0, (uint64_t)r0 * ts);
                    mv_piece(v, T2, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
                    received = true;
                }
            }
        }
        if (!p2)
            step += i;
        if (received) {
            if (a->commutative || dtr < mtr) {
                mv_reduce(v, T2, 0, T, 0, (uint64_t)r0 * ts);
                mv_reduce(v, T2, (uint64_t)rd1 * ts, T, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
            } else {
                mv_reduce(v, T, 0, T2, 0, (uint64_t)r0 * ts);
                mv_reduce(v, T, (uint64_t)rd1 * ts, T2, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
                mv_copy(v, T2, 0, T, 0, (uint64_t)r0 * ts);
                mv_copy(v, T2, (uint64_t)rd1 * ts, T, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
            }
        }
    }
    mv_copy(v, T, DS(rank), R, 0, (uint64_t)rs_cnt(a, rank) * ts);
}
#undef DS

void pcs_mpich_reduce_scatter(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg)
{
    if (rs_sum(a, 0, v->size) == 0)
        return;
    switch (alg) {
    case PCS_ALG_MPICH_RS_PAIRWISE: case PCS_ALG_MPICH_RSB_PAIRWISE: rs_pairwise(v, a); break;
    case PCS_ALG_MPICH_RS_NONCOMMUTATIVE: case PCS_ALG_MPICH_RSB_NONCOMMUTATIVE:
        rs_noncommutative(v, a);
        break;
    case PCS_ALG_MPICH_RS_RECURSIVE_HALVING: case PCS_ALG_MPICH_RSB_RECURSIVE_HALVING:
        rs_recursive_halving(v, a);
        break;
    default: rs_recursive_doubling(v, a); break;
    }
}

/* ---- scan / exscan recursive doubling ---- */

void pcs_mpich_scan(pcs_mv_t *v, const pcs_args_t *a, bool ex)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    mv_need(v, T, n);  /* partial_scan */
    mv_need(v, T2, n); /* tmp_buf */
    if (!ex && !a->in_place)
        mv_copy(v, S, 0, R, 0, n);
    mv_copy(v, a->in_place ? R : S, 0, T, 0, n);
    bool flag = false;
    for (int mask = 1; mask < S_; mask <<= 1) {
        int dst = rank ^ mask;
        if (dst >= S_)
            continue;
        mv_at(v, pcs_log2_floor(mask));
        mv_sendrecv(v, dst, T, 0, n, dst, T2, 0, n);
        if (rank > dst) {
            mv_reduce(v, T2, 0, T, 0, n);
            if (!ex) {
                mv_reduce(v, T2, 0, R, 0, n);
            } else if (rank != 0) {
                if (!flag)
                    mv_copy(v, T2, 0, R, 0, n);
                else
                    mv_reduce(v, T2, 0, R, 0, n);
                flag = true;
            }
        } else if (a->commutative) {
            mv_reduce(v, T2, 0, T, 0, n);
        } else {
            mv_reduce(v, T, 0, T2, 0, n);
            mv_copy(v, T2, 0, T, 0, n);
        }
    }
}
