/* coll_mpich_algs.c: per-rank schedules of MPICH 4.0.2's MPIR collective algorithms
 * (src/mpi/coll/<coll>/<coll>_intra_*.c, _allcomm_linear.c): the messages of each MPIC_ call
 * in the library's order, with its tags and the operand order of every MPIR_Reduce_local.
 * Where MPICH packs or uses derived datatypes the schedule moves the same bytes through its
 * own scratch layout: the wire is the contract, the local copies are ours. */
#include <stdlib.h>
#include <string.h>

#include "coll_mpich.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

/* ---- the view ---- */

static int pr(const pcs_mv_t *v, int r) { return v->peer ? v->peer[r] : r; }
static int bf(const pcs_mv_t *v, int b) { return v->map[b]; }
static uint64_t bo(const pcs_mv_t *v, int b, uint64_t off) { return v->off[b] + off; }
static void at(pcs_mv_t *v, int64_t step) { pcs_at(v->c, (int64_t)v->step0 + step); }
static void tagged(pcs_mv_t *v) { v->c->tag = v->tag; }

static void snd(pcs_mv_t *v, int peer, int b, uint64_t off, uint64_t len)
{
    tagged(v);
    pcs_send(v->c, pr(v, peer), bf(v, b), bo(v, b, off), len);
}
static void ssnd(pcs_mv_t *v, int peer, int b, uint64_t off, uint64_t len)
{
    tagged(v);
    pcs_ssend(v->c, pr(v, peer), bf(v, b), bo(v, b, off), len);
}
static void rcv(pcs_mv_t *v, int peer, int b, uint64_t off, uint64_t len)
{
    tagged(v);
    pcs_recv(v->c, pr(v, peer), bf(v, b), bo(v, b, off), len);
}
static void isnd(pcs_mv_t *v, unsigned req, int peer, int b, uint64_t off, uint64_t len)
{
    tagged(v);
    pcs_isend(v->c, req, pr(v, peer), bf(v, b), bo(v, b, off), len);
}
static void ircv(pcs_mv_t *v, unsigned req, int peer, int b, uint64_t off, uint64_t len)
{
    tagged(v);
    pcs_irecv(v->c, req, pr(v, peer), bf(v, b), bo(v, b, off), len);
}
static void xfer(pcs_mv_t *v, pcs_opkind_t k, unsigned req, int peer, uint64_t len)
{
    tagged(v);
    pcs_xfer(v->c, k, req, pr(v, peer), len, 0);
}
static void piece(pcs_mv_t *v, int b, uint64_t off, uint64_t len)
{
    pcs_piece(v->c, bf(v, b), bo(v, b, off), len);
}
static void cpy(pcs_mv_t *v, int sb, uint64_t so, int db, uint64_t dof, uint64_t len)
{
    pcs_copy(v->c, bf(v, sb), bo(v, sb, so), bf(v, db), bo(v, db, dof), len);
}
/* MPIR_Reduce_local(in, inout) */
static void red(pcs_mv_t *v, int ib, uint64_t io, int ob, uint64_t oo, uint64_t len)
{
    pcs_reduce(v->c, bf(v, ib), bo(v, ib, io), bf(v, ob), bo(v, ob, oo), len);
}
static void need(pcs_mv_t *v, int b, uint64_t n) { pcs_need_tmp(v->c, bf(v, b), bo(v, b, n)); }
/* MPIC_Sendrecv (helper_fns.c): Irecv, Isend, wait send, wait receive */
static void sendrecv(pcs_mv_t *v, int dst, int sb, uint64_t so, uint64_t sl, int src, int rb,
                     uint64_t ro, uint64_t rl)
{
    ircv(v, 0, src, rb, ro, rl);
    isnd(v, 1, dst, sb, so, sl);
    pcs_wait(v->c, 1);
    pcs_wait(v->c, 0);
}

/* ---- arithmetic ---- */
static int clog2(int n) /* ceil(log2 n), 0 for n <= 1 */
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}
static int ilog2(int n) { return pcs_log2_floor(n); }
static bool pow2(int n) { return n > 0 && !(n & (n - 1)); }
static int lowbit(int x) { return x & -x; }
static int64_t sum(const int64_t *c, int from, int to)
{
    int64_t s = 0;
    for (int i = from; i < to; i++)
        s += c[i];
    return s;
}
static uint64_t vdisp(const pcs_args_t *a, const int64_t *cnt, const int64_t *dsp, int i)
{
    return (uint64_t)(dsp ? dsp[i] : sum(cnt, 0, i)) * a->type_size;
}

/* ---- bcast (bcast_intra_*.c, bcast_utils.c) ---- */

static void bcast_binomial(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, L = clog2(S_);
    const uint64_t n = (uint64_t)a->count * a->type_size;
    const int rel = (rank - a->root + S_) % S_;
    if (n == 0 && !v->sched) /* the sched binomial sends empty messages */
        return;
    int mask = 1;
    while (mask < S_) {
        if (rel & mask) {
            at(v, L - 1 - ilog2(mask));
            rcv(v, (rank - mask + S_) % S_, R, 0, n);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < S_) {
            at(v, L - 1 - ilog2(mask));
            snd(v, (rank + mask) % S_, R, 0, n);
        }
}

static int64_t clamp0(int64_t x) { return x < 0 ? 0 : x; }
static int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

/* bytes MPII_Scatter_for_bcast leaves at relative rank rel (its curr_size) */
static int64_t scat_have(int64_t n, int64_t ss, int S_, int rel)
{
    if (rel == 0)
        return n;
    int m = lowbit(rel), p = rel - m;
    int64_t curr = scat_have(n, ss, S_, p);
    int top = p ? lowbit(p) >> 1 : (1 << clog2(S_)) >> 1;
    for (int k = top; k >= m; k >>= 1) {
        if (p + k >= S_)
            continue;
        int64_t send = curr - ss * k;
        if (k == m)
            return send > 0 ? send : 0;
        if (send > 0)
            curr -= send;
    }
    return 0;
}

/* MPII_Iscatter_for_bcast_sched: a rank takes its posted receive size (everything from its
 * block to the end) for what it holds, so its first child gets what the blocking scatter
 * would send and the later ones scatter_size * mask each, more than it received: the
 * bytes of the message rel receives */
static int64_t scat_msg_sched(int64_t n, int64_t ss, int S_, int rel)
{
    const int m = lowbit(rel), p = rel - m;
    int64_t curr = clamp0(n - p * ss);
    int top = p ? lowbit(p) >> 1 : (1 << clog2(S_)) >> 1;
    for (int k = top; k >= m; k >>= 1) {
        if (p + k >= S_)
            continue;
        int64_t send = curr - ss * k;
        if (k == m)
            return send > 0 ? send : 0;
        if (send > 0)
            curr -= send;
    }
    return 0;
}

static void scatter_for_bcast(pcs_mv_t *v, const pcs_args_t *a, int64_t ss, int64_t *curr)
{
    if (v->sched) {
        const int S_ = v->size, rank = v->rank, L = clog2(S_);
        const int64_t n = a->count * (int64_t)a->type_size;
        const int rel = (rank - a->root + S_) % S_;
        int mask = 1;
        *curr = rel == 0 ? n : 0;
        while (mask < S_) {
            if (rel & mask) {
                *curr = clamp0(n - rel * ss);
                if (*curr > 0) {
                    at(v, L - 1 - ilog2(mask));
                    rcv(v, (rank - mask + S_) % S_, R, (uint64_t)(rel * ss),
                        (uint64_t)scat_msg_sched(n, ss, S_, rel));
                }
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (rel + mask < S_) {
                int64_t send = *curr - ss * mask;
                if (send > 0) {
                    at(v, L - 1 - ilog2(mask));
                    snd(v, (rank + mask) % S_, R, (uint64_t)(ss * (rel + mask)), (uint64_t)send);
                    *curr -= send;
                }
            }
        return;
    }
    const int S_ = v->size, rank = v->rank, L = clog2(S_);
    const int64_t n = a->count * (int64_t)a->type_size;
    const int rel = (rank - a->root + S_) % S_;
    int mask = 1;
    *curr = rel == 0 ? n : 0;
    while (mask < S_) {
        if (rel & mask) {
            if (n - rel * ss > 0) {
                *curr = scat_have(n, ss, S_, rel);
                at(v, L - 1 - ilog2(mask));
                rcv(v, (rank - mask + S_) % S_, R, (uint64_t)(rel * ss), (uint64_t)*curr);
            }
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < S_) {
            int64_t send = *curr - ss * mask;
            if (send > 0) {
                at(v, L - 1 - ilog2(mask));
                snd(v, (rank + mask) % S_, R, (uint64_t)(ss * (rel + mask)), (uint64_t)send);
                *curr -= send;
            }
        }
}

/* (the sched versions have no early return on 0 bytes: they exchange empty messages) */
static pcs_err_t bcast_scatter_rd(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, L = clog2(S_);
    const int64_t n = a->count * (int64_t)a->type_size;
    if (n == 0 && !v->sched)
        return PCS_OK;
    if (!pow2(S_)) /* the "EXPERIMENTAL" non-power-of-two fix-up: not ported */
        return PCS_E_UNSUPPORTED;
    const int64_t ss = (n + S_ - 1) / S_;
    const int rel = (rank - a->root + S_) % S_;
    int64_t curr;
    scatter_for_bcast(v, a, ss, &curr);
    curr = clamp0(min64(ss, n - rel * ss));
    for (int mask = 1, i = 0; mask < S_; mask <<= 1, i++) {
        int rdst = rel ^ mask, dst = (rdst + a->root) % S_;
        int my_root = (rel >> i) << i, dst_root = (rdst >> i) << i;
        int64_t got = clamp0(min64(n, (int64_t)(dst_root + mask) * ss) - dst_root * ss);
        at(v, L + i);
        /* empty pieces point past the buffer in MPICH too: keep the region inside */
        sendrecv(v, dst, R, (uint64_t)min64(my_root * ss, n), (uint64_t)curr, dst, R,
                 (uint64_t)min64(dst_root * ss, n), (uint64_t)got);
        curr += got;
    }
    return PCS_OK;
}

static void bcast_scatter_ring(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, L = clog2(S_), root = a->root;
    const int64_t n = a->count * (int64_t)a->type_size;
    if (n == 0 && !v->sched)
        return;
    const int64_t ss = (n + S_ - 1) / S_;
    int64_t curr;
    scatter_for_bcast(v, a, ss, &curr);
    int left = (rank - 1 + S_) % S_, right = (rank + 1) % S_, j = rank, jn = left;
    for (int i = 1; i < S_; i++) {
        int rj = (j - root + S_) % S_, rjn = (jn - root + S_) % S_;
        int64_t rc = clamp0(min64(ss, n - rj * ss)), lc = clamp0(min64(ss, n - rjn * ss));
        at(v, L + i - 1);
        sendrecv(v, right, R, (uint64_t)min64(rj * ss, n), (uint64_t)rc, left, R,
                 (uint64_t)min64(rjn * ss, n), (uint64_t)lc);
        j = jn;
        jn = (jn - 1 + S_) % S_;
    }
}

/* ---- reduce ---- */

static void reduce_binomial(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, root = a->root;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    const bool comm = a->commutative;
    const int acc = rank == root ? R : T2; /* non-roots reduce into a scratch "recvbuf" */
    need(v, T, n);
    if (rank != root)
        need(v, T2, n);
    if (rank != root || !a->in_place)
        cpy(v, S, 0, acc, 0, n);
    const int lroot = comm ? root : 0, rel = (rank - lroot + S_) % S_;
    for (int mask = 1; mask < S_; mask <<= 1) {
        at(v, ilog2(mask));
        if (!(mask & rel)) {
            int src = rel | mask;
            if (src < S_) {
                rcv(v, (src + lroot) % S_, T, 0, n);
                if (comm) {
                    red(v, T, 0, acc, 0, n);
                } else {
                    red(v, acc, 0, T, 0, n);
                    cpy(v, T, 0, acc, 0, n);
                }
            }
        } else {
            snd(v, ((rel & ~mask) + lroot) % S_, acc, 0, n);
            break;
        }
    }
    if (!comm && root != 0) {
        at(v, clog2(S_));
        if (rank == 0)
            snd(v, root, acc, 0, n);
        else if (rank == root)
            rcv(v, 0, R, 0, n);
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

static void reduce_rsg(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, root = a->root;
    const uint64_t ts = a->type_size, n = (uint64_t)a->count * ts;
    const int64_t count = a->count;
    const int acc = rank == root ? R : T2;
    const int pof2 = pcs_pow2_floor(S_), rem = S_ - pof2, lg = ilog2(pof2);
    const int pre = rem ? 1 : 0;
    need(v, T, n);
    if (rank != root)
        need(v, T2, n);
    if (rank != root || !a->in_place)
        cpy(v, S, 0, acc, 0, n);
    int newrank;
    if (rank < 2 * rem) {
        at(v, 0);
        if (rank % 2 != 0) {
            snd(v, rank - 1, acc, 0, n);
            newrank = -1;
        } else {
            rcv(v, rank + 1, T, 0, n);
            red(v, T, 0, acc, 0, n);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
#define DST(nd) ((nd) < rem ? (nd) * 2 : (nd) + rem)
    int send_idx = 0, recv_idx = 0, last_idx = pof2;
    if (newrank != -1) {
        for (int mask = 1, k = 0; mask < pof2; k++) {
            int newdst = newrank ^ mask, dst = DST(newdst);
            int64_t sc, rc;
            if (newrank < newdst) {
                send_idx = recv_idx + pof2 / (mask * 2);
                sc = blks(v, count, pof2, send_idx, last_idx);
                rc = blks(v, count, pof2, recv_idx, send_idx);
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                sc = blks(v, count, pof2, send_idx, recv_idx);
                rc = blks(v, count, pof2, recv_idx, last_idx);
            }
            at(v, pre + k);
            sendrecv(v, dst, acc, (uint64_t)blks(v, count, pof2, 0, send_idx) * ts,
                     (uint64_t)sc * ts, dst, T, (uint64_t)blks(v, count, pof2, 0, recv_idx) * ts,
                     (uint64_t)rc * ts);
            red(v, T, (uint64_t)blks(v, count, pof2, 0, recv_idx) * ts, acc,
                (uint64_t)blks(v, count, pof2, 0, recv_idx) * ts, (uint64_t)rc * ts);
            send_idx = recv_idx;
            mask <<= 1;
            if (mask < pof2)
                last_idx = recv_idx + pof2 / mask;
        }
    }
    const int odd_root = root < 2 * rem && root % 2 != 0;
    const int g0 = pre + lg + (odd_root ? 1 : 0);
    int newroot;
    if (root < 2 * rem) {
        if (root % 2 != 0) {
            at(v, pre + lg);
            if (rank == root) {
                rcv(v, 0, R, 0, (uint64_t)blk(v, count, pof2, 0) * ts);
                newrank = 0;
                send_idx = 0;
                last_idx = 2;
            } else if (newrank == 0) {
                snd(v, root, acc, 0, (uint64_t)blk(v, count, pof2, 0) * ts);
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
        int newdst = newrank ^ mask, dst = DST(newdst);
        if (newdst == 0 && odd_root)
            dst = root;
        int ndt = (newdst >> j) << j, nrt = (newroot >> j) << j;
        int64_t sc, rc;
        if (newrank < newdst) {
            if (mask != pof2 / 2)
                last_idx = last_idx + pof2 / (mask * 2);
            recv_idx = send_idx + pof2 / (mask * 2);
            sc = blks(v, count, pof2, send_idx, recv_idx);
            rc = blks(v, count, pof2, recv_idx, last_idx);
        } else {
            recv_idx = send_idx - pof2 / (mask * 2);
            sc = blks(v, count, pof2, send_idx, last_idx);
            rc = blks(v, count, pof2, recv_idx, send_idx);
        }
        at(v, g0 + k);
        if (ndt == nrt) {
            snd(v, dst, acc, (uint64_t)blks(v, count, pof2, 0, send_idx) * ts, (uint64_t)sc * ts);
            break;
        }
        rcv(v, dst, acc, (uint64_t)blks(v, count, pof2, 0, recv_idx) * ts, (uint64_t)rc * ts);
        if (newrank > newdst)
            send_idx = recv_idx;
        mask >>= 1;
        j--;
    }
#undef DST
}

/* ---- allreduce ---- */

static void allreduce_rd(pcs_mv_t *v, const pcs_args_t *a, bool rsa)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t ts = a->type_size, n = (uint64_t)a->count * ts;
    const int64_t count = a->count;
    const int pof2 = pcs_pow2_floor(S_), rem = S_ - pof2, lg = ilog2(pof2), pre = rem ? 1 : 0;
    need(v, T, n);
    if (!a->in_place)
        cpy(v, S, 0, R, 0, n);
    int newrank;
    if (rank < 2 * rem) {
        at(v, 0);
        if (rank % 2 == 0) {
            snd(v, rank + 1, R, 0, n);
            newrank = -1;
        } else {
            rcv(v, rank - 1, T, 0, n);
            red(v, T, 0, R, 0, n);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
#define DST(nd) ((nd) < rem ? (nd) * 2 + 1 : (nd) + rem)
    if (newrank != -1 && !rsa) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int dst = DST(newrank ^ mask);
            at(v, pre + ilog2(mask));
            sendrecv(v, dst, R, 0, n, dst, T, 0, n);
            if (a->commutative || dst < rank) {
                red(v, T, 0, R, 0, n);
            } else {
                red(v, R, 0, T, 0, n);
                cpy(v, T, 0, R, 0, n);
            }
        }
    } else if (newrank != -1) {
        int send_idx = 0, recv_idx = 0, last_idx = pof2, mask = 1, k = 0;
        for (; mask < pof2; k++) {
            int newdst = newrank ^ mask, dst = DST(newdst);
            int64_t sc, rc;
            if (newrank < newdst) {
                send_idx = recv_idx + pof2 / (mask * 2);
                sc = blks(v, count, pof2, send_idx, last_idx);
                rc = blks(v, count, pof2, recv_idx, send_idx);
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                sc = blks(v, count, pof2, send_idx, recv_idx);
                rc = blks(v, count, pof2, recv_idx, last_idx);
            }
            uint64_t so = (uint64_t)blks(v, count, pof2, 0, send_idx) * ts;
            uint64_t ro = (uint64_t)blks(v, count, pof2, 0, recv_idx) * ts;
            at(v, pre + k);
            sendrecv(v, dst, R, so, (uint64_t)sc * ts, dst, T, ro, (uint64_t)rc * ts);
            red(v, T, ro, R, ro, (uint64_t)rc * ts);
            send_idx = recv_idx;
            mask <<= 1;
            if (mask < pof2)
                last_idx = recv_idx + pof2 / mask;
        }
        for (mask >>= 1; mask > 0; mask >>= 1, k++) {
            int newdst = newrank ^ mask, dst = DST(newdst);
            int64_t sc, rc;
            if (newrank < newdst) {
                if (mask != pof2 / 2)
                    last_idx = last_idx + pof2 / (mask * 2);
                recv_idx = send_idx + pof2 / (mask * 2);
                sc = blks(v, count, pof2, send_idx, recv_idx);
                rc = blks(v, count, pof2, recv_idx, last_idx);
            } else {
                recv_idx = send_idx - pof2 / (mask * 2);
                sc = blks(v, count, pof2, send_idx, last_idx);
                rc = blks(v, count, pof2, recv_idx, send_idx);
            }
            at(v, pre + k);
            sendrecv(v, dst, R, (uint64_t)blks(v, count, pof2, 0, send_idx) * ts, (uint64_t)sc * ts,
                     dst, R, (uint64_t)blks(v, count, pof2, 0, recv_idx) * ts, (uint64_t)rc * ts);
            if (newrank > newdst)
                send_idx = recv_idx;
        }
    }
#undef DST
    if (rank < 2 * rem) {
        at(v, pre + (rsa ? 2 : 1) * lg);
        if (rank % 2)
            snd(v, rank - 1, R, 0, n);
        else
            rcv(v, rank + 1, R, 0, n);
    }
}

/* ---- gather / scatter binomial ---- */

static void gather_binomial(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, root = a->root;
    const uint64_t nb = (uint64_t)a->count * a->type_size;
    const int rel = (rank - root + S_) % S_;
    /* our layout: the subtree's blocks in relative order, own block first */
    if (rank == root) {
        if (!a->in_place)
            cpy(v, S, 0, R, (uint64_t)rank * nb, nb);
    }
    uint64_t curr = nb;
    bool leaf = true;
    for (int mask = 1; mask < S_; mask <<= 1) {
        if (!(mask & rel)) {
            int srel = rel | mask;
            if (srel >= S_)
                continue;
            int src = (srel + root) % S_;
            int nblk = mask;
            if (srel + mask > S_)
                nblk = S_ - srel;
            uint64_t len = (uint64_t)nblk * nb;
            at(v, ilog2(mask));
            if (rank == root) {
                int first = src; /* absolute block of the subtree's first rank */
                if (first + nblk <= S_) {
                    rcv(v, src, R, (uint64_t)first * nb, len);
                } else {
                    xfer(v, PCS_OP_RECV, 0, src, len);
                    piece(v, R, (uint64_t)first * nb, (uint64_t)(S_ - first) * nb);
                    piece(v, R, 0, (uint64_t)(first + nblk - S_) * nb);
                }
            } else {
                if (leaf) {
                    need(v, T, (uint64_t)(lowbit(rel) ? lowbit(rel) : 1) * nb);
                    cpy(v, S, 0, T, 0, nb);
                    leaf = false;
                }
                rcv(v, src, T, (uint64_t)mask * nb, len);
                curr += len;
            }
        } else {
            at(v, ilog2(mask));
            if (leaf)
                snd(v, ((rel ^ mask) + root) % S_, S, 0, nb);
            else
                snd(v, ((rel ^ mask) + root) % S_, T, 0, curr);
            break;
        }
    }
}

static void scatter_binomial(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, root = a->root, L = clog2(S_);
    const uint64_t nb = (uint64_t)a->count * a->type_size;
    const int rel = (rank - root + S_) % S_;
    uint64_t curr = 0;
    int src_buf = T; /* where this rank's subtree data sits, relative order */
    if (rank == root) {
        curr = nb * (uint64_t)S_;
        if (root != 0) {
            need(v, T, curr);
            cpy(v, S, (uint64_t)rank * nb, T, 0, (uint64_t)(S_ - rank) * nb);
            cpy(v, S, 0, T, (uint64_t)(S_ - rank) * nb, (uint64_t)rank * nb);
        } else {
            src_buf = S;
        }
    }
    int mask = 1;
    while (mask < S_) {
        if (rel & mask) {
            int src = (rank - mask + S_) % S_;
            at(v, L - 1 - ilog2(mask));
            if (rel % 2) {
                rcv(v, src, R, 0, nb);
            } else {
                int nblk = lowbit(rel) < S_ - rel ? lowbit(rel) : S_ - rel;
                curr = (uint64_t)nblk * nb;
                need(v, T, curr);
                rcv(v, src, T, 0, curr);
            }
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < S_) {
            uint64_t send = curr - nb * (uint64_t)mask;
            at(v, L - 1 - ilog2(mask));
            snd(v, (rank + mask) % S_, src_buf, nb * (uint64_t)mask, send);
            curr -= send;
        }
    if (rank == root && root == 0 && !a->in_place)
        cpy(v, S, 0, R, 0, nb);
    else if (!(rel % 2) && !(rank == root && a->in_place) && !(rank == root && root == 0))
        cpy(v, T, 0, R, 0, nb);
}

/* ---- allgather / allgatherv ---- */

static void allgather_gen(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t nb = (uint64_t)a->count * a->type_size;
    if (alg == PCS_ALG_MPICH_ALLGATHER_BRUCKS) {
        if (nb == 0)
            return;
        need(v, T, nb * (uint64_t)S_);
        cpy(v, a->in_place ? R : S, a->in_place ? (uint64_t)rank * nb : 0, T, 0, nb);
        int curr = 1, pof2 = 1, k = 0;
        for (; pof2 <= S_ / 2; pof2 *= 2, k++) {
            at(v, k);
            sendrecv(v, (rank - pof2 + S_) % S_, T, 0, (uint64_t)curr * nb, (rank + pof2) % S_, T,
                     (uint64_t)curr * nb, (uint64_t)curr * nb);
            curr *= 2;
        }
        int rem = S_ - pof2;
        if (rem) {
            at(v, k);
            sendrecv(v, (rank - pof2 + S_) % S_, T, 0, (uint64_t)rem * nb, (rank + pof2) % S_, T,
                     (uint64_t)curr * nb, (uint64_t)rem * nb);
        }
        /* T holds blocks rank, rank+1, ...: rotate into place */
        cpy(v, T, 0, R, (uint64_t)rank * nb, (uint64_t)(S_ - rank) * nb);
        cpy(v, T, (uint64_t)(S_ - rank) * nb, R, 0, (uint64_t)rank * nb);
        return;
    }
    if (!a->in_place)
        cpy(v, S, 0, R, (uint64_t)rank * nb, nb);
    if (alg == PCS_ALG_MPICH_ALLGATHER_RD) {
        uint64_t curr = nb;
        for (int mask = 1, i = 0; mask < S_; mask <<= 1, i++) {
            int dst = rank ^ mask, myr = (rank >> i) << i, dr = (dst >> i) << i;
            at(v, i);
            sendrecv(v, dst, R, (uint64_t)myr * nb, curr, dst, R, (uint64_t)dr * nb, curr);
            curr *= 2;
        }
        return;
    }
    int left = (S_ + rank - 1) % S_, right = (rank + 1) % S_, j = rank, jn = left;
    for (int i = 1; i < S_; i++) {
        at(v, i - 1);
        sendrecv(v, right, R, (uint64_t)j * nb, nb, left, R, (uint64_t)jn * nb, nb);
        j = jn;
        jn = (S_ + jn - 1) % S_;
    }
}

/* elements per message of the pipelined allgatherv ring (MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE
 * = 32768 bytes, extent = type size): the blocking ring cuts blocks above it to it; the sched
 * ring cuts at the smallest block, raised to the pipeline size if below it */
static int64_t ring_chunk(const pcs_args_t *a, int S_, bool sched)
{
    const int64_t *c = a->counts;
    const uint64_t ts = a->type_size;
    int64_t max = c[0], min = c[0], chunk = 0;
    for (int i = 1; i < S_; i++) {
        max = c[i] > max ? c[i] : max;
        min = c[i] < min ? c[i] : min;
    }
    if (sched) {
        chunk = (uint64_t)min * ts < 32768 ? (ts ? (int64_t)(32768 / ts) : 0) : min;
        return chunk ? chunk : 1;
    }
    if ((uint64_t)max * ts > 32768) {
        chunk = ts ? (int64_t)(32768 / ts) : 0;
        if (!chunk)
            chunk = 1;
    }
    if (!chunk)
        chunk = max;
    return chunk ? chunk : 1;
}

static void allgatherv_gen(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t ts = a->type_size;
    const int64_t *c = a->counts;
    const int64_t total = sum(c, 0, S_);
    if (total == 0)
        return;
#define D(i) vdisp(a, c, a->displs, (i))
    if (alg == PCS_ALG_MPICH_ALLGATHERV_RING) {
        if (!a->in_place)
            cpy(v, S, 0, R, D(rank), (uint64_t)c[rank] * ts);
        int left = (S_ + rank - 1) % S_, right = (rank + 1) % S_;
        int64_t torecv = total - c[rank], tosend = total - c[right];
        const int64_t chunk = ring_chunk(a, S_, v->sched);
        int sidx = rank, ridx = left;
        int64_t soff = 0, roff = 0;
        for (int64_t k = 0; tosend || torecv; k++) {
            int64_t sn = min64(c[sidx] - soff, chunk), rn = min64(c[ridx] - roff, chunk);
            if (!tosend)
                sn = 0;
            if (!torecv)
                rn = 0;
            at(v, k);
            uint64_t so = D(sidx) + (uint64_t)soff * ts, ro = D(ridx) + (uint64_t)roff * ts;
            if (sn && rn) {
                sendrecv(v, right, R, so, (uint64_t)sn * ts, left, R, ro, (uint64_t)rn * ts);
            } else if (rn) {
                rcv(v, left, R, ro, (uint64_t)rn * ts);
            } else if (sn) {
                snd(v, right, R, so, (uint64_t)sn * ts);
            }
            tosend -= sn;
            torecv -= rn;
            soff += sn;
            roff += rn;
            if (soff == c[sidx]) {
                soff = 0;
                sidx = (sidx + S_ - 1) % S_;
            }
            if (roff == c[ridx]) {
                roff = 0;
                ridx = (ridx + S_ - 1) % S_;
            }
        }
        return;
    }
    /* rd and brucks: packed in T (rd: rank order; brucks: rotated from this rank) */
    need(v, T, (uint64_t)total * ts);
    int sb = a->in_place ? R : S;
    uint64_t so = a->in_place ? D(rank) : 0;
    if (alg == PCS_ALG_MPICH_ALLGATHERV_RD) {
        cpy(v, sb, so, T, (uint64_t)sum(c, 0, rank) * ts, (uint64_t)c[rank] * ts);
        for (int mask = 1, i = 0; mask < S_; mask <<= 1, i++) {
            int dst = rank ^ mask, myr = (rank >> i) << i, dr = (dst >> i) << i;
            at(v, i);
            sendrecv(v, dst, T, (uint64_t)sum(c, 0, myr) * ts,
                     (uint64_t)sum(c, myr, myr + mask) * ts, dst, T,
                     (uint64_t)sum(c, 0, dr) * ts, (uint64_t)sum(c, dr, dr + mask) * ts);
        }
        for (int i = 0; i < S_; i++)
            if (i != rank || !a->in_place)
                cpy(v, T, (uint64_t)sum(c, 0, i) * ts, R, D(i), (uint64_t)c[i] * ts);
        return;
    }
    /* brucks: T[k-th packed block] = block (rank+k)%S */
#define RSUM(from, n) rsum(c, S_, (from), (n))
    cpy(v, sb, so, T, 0, (uint64_t)c[rank] * ts);
    int64_t curr = c[rank];
    int pof2 = 1, k = 0;
    for (; pof2 <= S_ / 2; pof2 *= 2, k++) {
        int64_t got = 0;
        for (int i = 0; i < pof2; i++)
            got += c[(rank + pof2 + i) % S_];
        at(v, k);
        sendrecv(v, (rank - pof2 + S_) % S_, T, 0, (uint64_t)curr * ts, (rank + pof2) % S_, T,
                 (uint64_t)curr * ts, (uint64_t)got * ts);
        curr += got;
    }
    int rem = S_ - pof2;
    if (rem) {
        int64_t sc = 0, rc = 0;
        for (int i = 0; i < rem; i++) {
            sc += c[(rank + i) % S_];
            rc += c[(rank + pof2 + i) % S_];
        }
        at(v, k);
        sendrecv(v, (rank - pof2 + S_) % S_, T, 0, (uint64_t)sc * ts, (rank + pof2) % S_, T,
                 (uint64_t)curr * ts, (uint64_t)rc * ts);
    }
    uint64_t off = 0;
    for (int i = 0; i < S_; i++) {
        int b = (rank + i) % S_;
        if (b != rank || !a->in_place)
            cpy(v, T, off, R, D(b), (uint64_t)c[b] * ts);
        off += (uint64_t)c[b] * ts;
    }
#undef RSUM
#undef D
}

/* ---- alltoall(v) ---- */

static void alltoall_gen(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg, int throttle)
{
    const int S_ = v->size, rank = v->rank;
    const bool isv = a->coll == PCS_ALLTOALLV || a->coll == PCS_ALLTOALLW;
    const uint64_t ts = a->type_size, nb = (uint64_t)a->count * ts;
#define RL(i) (isv ? (uint64_t)a->counts[i] * ts : nb)
#define RO(i) (isv ? vdisp(a, a->counts, a->displs, (i)) : (uint64_t)(i) * nb)
#define SL(i) (isv ? (uint64_t)a->scounts[i] * ts : nb)
#define SO(i) (isv ? vdisp(a, a->scounts, a->sdispls, (i)) : (uint64_t)(i) * nb)
    if (alg == PCS_ALG_MPICH_ALLTOALL_SCATTERED || alg == PCS_ALG_MPICH_ALLTOALLV_SCATTERED) {
        int bblock = throttle > 0 ? throttle : throttle == 0 ? 32 : S_;
        for (int ii = 0, k = 0; ii < S_; ii += bblock, k++) {
            int ss = S_ - ii < bblock ? S_ - ii : bblock;
            unsigned req = 0;
            at(v, k);
            for (int i = 0; i < ss; i++) {
                int src = (rank + i + ii) % S_;
                if (!isv || (a->counts[src] && ts))
                    ircv(v, req++, src, R, RO(src), RL(src));
            }
            for (int i = 0; i < ss; i++) {
                int dst = (rank - i - ii + S_) % S_;
                if (!isv || (a->scounts[dst] && ts))
                    isnd(v, req++, dst, S, SO(dst), SL(dst));
            }
            for (unsigned q = 0; q < req; q++)
                pcs_wait(v->c, q);
        }
        return;
    }
    if (alg == PCS_ALG_MPICH_ALLTOALL_PAIRWISE) {
        cpy(v, S, SO(rank), R, RO(rank), nb);
        for (int i = 1; i < S_; i++) {
            int src, dst;
            if (pow2(S_)) {
                src = dst = rank ^ i;
            } else {
                src = (rank - i + S_) % S_;
                dst = (rank + i) % S_;
            }
            at(v, i - 1);
            sendrecv(v, dst, S, SO(dst), nb, src, R, RO(src), nb);
        }
        return;
    }
    if (alg == PCS_ALG_MPICH_ALLTOALL_BRUCKS) {
        need(v, T, nb * (uint64_t)S_);
        cpy(v, S, (uint64_t)rank * nb, R, 0, (uint64_t)(S_ - rank) * nb);
        cpy(v, S, 0, R, (uint64_t)(S_ - rank) * nb, (uint64_t)rank * nb);
        for (int pof2 = 1, k = 0; pof2 < S_; pof2 *= 2, k++) {
            int dst = (rank + pof2) % S_, src = (rank - pof2 + S_) % S_, cnt = 0;
            for (int b = 1; b < S_; b++)
                if (b & pof2)
                    cpy(v, R, (uint64_t)b * nb, T, (uint64_t)(cnt++) * nb, nb);
            at(v, k);
            xfer(v, PCS_OP_IRECV, 0, src, (uint64_t)cnt * nb);
            for (int b = 1; b < S_; b++)
                if (b & pof2)
                    piece(v, R, (uint64_t)b * nb, nb);
            isnd(v, 1, dst, T, 0, (uint64_t)cnt * nb);
            pcs_wait(v->c, 1);
            pcs_wait(v->c, 0);
        }
        cpy(v, R, (uint64_t)(rank + 1) * nb, T, 0, (uint64_t)(S_ - rank - 1) * nb);
        cpy(v, R, 0, T, (uint64_t)(S_ - rank - 1) * nb, (uint64_t)(rank + 1) * nb);
        for (int i = 0; i < S_; i++)
            cpy(v, T, (uint64_t)i * nb, R, (uint64_t)(S_ - i - 1) * nb, nb);
        return;
    }
    /* pairwise_sendrecv_replace (in place): pairs (i, j), j >= i, in order, self included;
     * MPIC_Sendrecv_replace packs the block, receives over it, sends the packed copy. The
     * sched_inplace versions copy to a scratch block, send it and receive over the block
     * alike, but skip the pairs i == j (no message to self) */
    int64_t k = 0;
    uint64_t maxl = 0;
    for (int i = 0; i < S_; i++)
        if (RL(i) > maxl)
            maxl = RL(i);
    need(v, T, maxl);
    for (int i = 0; i < S_; i++)
        for (int j = i; j < S_; j++) {
            if (v->sched && i == j)
                continue;
            int peer = rank == i ? j : rank == j ? i : -1;
            k++;
            if (peer < 0)
                continue;
            at(v, k - 1);
            cpy(v, R, RO(peer), T, 0, RL(peer));
            ircv(v, 0, peer, R, RO(peer), RL(peer));
            isnd(v, 1, peer, T, 0, RL(peer));
            pcs_wait(v->c, 0);
            pcs_wait(v->c, 1);
        }
#undef RL
#undef RO
#undef SL
#undef SO
}

/* ---- reduce_scatter(_block) ---- */

static int mirror(int x, int bits)
{
    int r = x & ~((1 << bits) - 1);
    for (int i = 0; i < bits; i++)
        r |= ((x >> i) & 1) << (bits - i - 1);
    return r;
}

static void reduce_scatter_gen(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t ts = a->type_size;
    const bool block = a->coll == PCS_REDUCE_SCATTER_BLOCK;
    int64_t *cnt = malloc(sizeof *cnt * (size_t)S_);
    if (!cnt) {
        v->c->s->err = PCS_E_NOMEM;
        return;
    }
    for (int i = 0; i < S_; i++)
        cnt[i] = block ? a->count : a->counts[i];
    const int64_t total = sum(cnt, 0, S_);
    const uint64_t tb = (uint64_t)total * ts;
#define DS(i) ((uint64_t)sum(cnt, 0, (i)) * ts)
    const int in = a->in_place ? R : S;
    if (total == 0)
        goto out;
    if (alg == PCS_ALG_MPICH_RS_PAIRWISE || alg == PCS_ALG_MPICH_RSB_PAIRWISE) {
        const uint64_t my = (uint64_t)cnt[rank] * ts;
        if (!a->in_place)
            cpy(v, S, DS(rank), R, 0, my);
        need(v, T, my);
        for (int i = 1; i < S_; i++) {
            int src = (rank - i + S_) % S_, dst = (rank + i) % S_;
            at(v, i - 1);
            sendrecv(v, dst, in, DS(dst), (uint64_t)cnt[dst] * ts, src, T, 0, my);
            red(v, T, 0, R, a->in_place ? DS(rank) : 0, my);
        }
        if (a->in_place && rank != 0)
            cpy(v, R, DS(rank), R, 0, my);
        goto out;
    }
    if (alg == PCS_ALG_MPICH_RS_NONCOMMUTATIVE || alg == PCS_ALG_MPICH_RSB_NONCOMMUTATIVE) {
        const int lg = ilog2(S_);
        const int64_t bs = cnt[0];
        const uint64_t bb = (uint64_t)bs * ts;
        need(v, T, tb);
        need(v, T2, tb);
        for (int i = 0; i < S_; i++)
            cpy(v, in, (uint64_t)i * bb, T, (uint64_t)mirror(i, lg) * bb, bb);
        bool b0_inout = true;
        int64_t so = 0, ro = 0, size = total;
        for (int k = 0; k < lg; k++) {
            int inc = b0_inout ? T2 : T, outg = b0_inout ? T : T2;
            int peer = rank ^ (1 << k);
            size /= 2;
            if (rank > peer)
                ro += size;
            else
                so += size;
            at(v, k);
            sendrecv(v, peer, outg, (uint64_t)so * ts, (uint64_t)size * ts, peer, inc,
                     (uint64_t)ro * ts, (uint64_t)size * ts);
            if (rank > peer) {
                red(v, inc, (uint64_t)ro * ts, outg, (uint64_t)ro * ts, (uint64_t)size * ts);
            } else {
                red(v, outg, (uint64_t)ro * ts, inc, (uint64_t)ro * ts, (uint64_t)size * ts);
                b0_inout = !b0_inout;
            }
            so = ro;
        }
        cpy(v, b0_inout ? T : T2, (uint64_t)ro * ts, R, 0, (uint64_t)size * ts);
        goto out;
    }
    need(v, T, tb);  /* tmp_results */
    need(v, T2, tb); /* tmp_recvbuf */
    cpy(v, in, 0, T, 0, tb);
    if (alg == PCS_ALG_MPICH_RS_RECURSIVE_HALVING || alg == PCS_ALG_MPICH_RSB_RECURSIVE_HALVING) {
        const int pof2 = pcs_pow2_floor(S_), rem = S_ - pof2, lg = ilog2(pof2), pre = rem ? 1 : 0;
        int newrank;
        if (rank < 2 * rem) {
            at(v, 0);
            if (rank % 2 == 0) {
                snd(v, rank + 1, T, 0, tb);
                newrank = -1;
            } else {
                rcv(v, rank - 1, T2, 0, tb);
                red(v, T2, 0, T, 0, tb);
                newrank = rank / 2;
            }
        } else {
            newrank = rank - rem;
        }
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
                at(v, pre + k);
                if (sc && rc)
                    sendrecv(v, dst, T, NEWD(send_idx), sc, dst, T2, NEWD(recv_idx), rc);
                else if (rc)
                    rcv(v, dst, T2, NEWD(recv_idx), rc);
                else if (sc)
                    snd(v, dst, T, NEWD(send_idx), sc);
                if (rc)
                    red(v, T2, NEWD(recv_idx), T, NEWD(recv_idx), rc);
                send_idx = recv_idx;
                last_idx = recv_idx + mask;
            }
#undef OLD
#undef NEWD
            cpy(v, T, DS(rank), R, 0, (uint64_t)cnt[rank] * ts);
        }
        if (rank < 2 * rem) {
            at(v, pre + lg);
            if (rank % 2) {
                if (cnt[rank - 1])
                    snd(v, rank - 1, T, DS(rank - 1), (uint64_t)cnt[rank - 1] * ts);
            } else if (cnt[rank]) {
                rcv(v, rank + 1, R, 0, (uint64_t)cnt[rank] * ts);
            }
        }
        goto out;
    }
    /* recursive doubling (non-commutative ops, any size): indexed types of two pieces */
    {
        const int L = clog2(S_);
        const bool p2 = pow2(S_);
        int64_t step = 0;
        for (int mask = 1, i = 0; mask < S_; mask <<= 1, i++) {
            int dst = rank ^ mask;
            int dtr = (dst >> i) << i, mtr = (rank >> i) << i;
            /* send type: all but my subtree; receive type: all but dst's subtree */
            int64_t s0 = sum(cnt, 0, mtr), s1 = mtr + mask < S_ ? sum(cnt, mtr + mask, S_) : 0;
            int64_t sd1 = s0 + sum(cnt, mtr, mtr + mask < S_ ? mtr + mask : S_);
            int64_t r0 = sum(cnt, 0, dtr < S_ ? dtr : S_);
            int64_t r1 = dtr + mask < S_ ? sum(cnt, dtr + mask, S_) : 0;
            int64_t rd1 = r0 + (dtr < S_ ? sum(cnt, dtr, dtr + mask < S_ ? dtr + mask : S_) : 0);
            bool received = false;
            at(v, step);
            if (dst < S_) {
                xfer(v, PCS_OP_IRECV, 0, dst, (uint64_t)(r0 + r1) * ts);
                piece(v, T2, 0, (uint64_t)r0 * ts);
                piece(v, T2, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
                xfer(v, PCS_OP_ISEND, 1, dst, (uint64_t)(s0 + s1) * ts);
                piece(v, T, 0, (uint64_t)s0 * ts);
                piece(v, T, (uint64_t)sd1 * ts, (uint64_t)s1 * ts);
                pcs_wait(v->c, 1);
                pcs_wait(v->c, 0);
                received = true;
            }
            step++;
            if (dtr + mask > S_) {
                int ncomp = S_ - mtr - mask, k = i, lvl = 0;
                for (int tm = mask >> 1; tm; tm >>= 1, k--, lvl++) {
                    int d2 = rank ^ tm, tr = (rank >> k) << k;
                    at(v, step + lvl);
                    if (d2 > rank && rank < tr + ncomp && d2 >= tr + ncomp) {
                        xfer(v, PCS_OP_SEND, 0, d2, (uint64_t)(r0 + r1) * ts);
                        piece(v, T2, 0, (uint64_t)r0 * ts);
                        piece(v, T2, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
                    } else if (d2 < rank && d2 < tr + ncomp && rank >= tr + ncomp) {
                        xfer(v, PCS_OP_RECV, 0, d2, (uint64_t)(r0 + r1) * ts);
                        piece(v, T2, 0, (uint64_t)r0 * ts);
                        piece(v, T2, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
                        received = true;
                    }
                }
            }
            if (!p2)
                step += i;
            if (received) {
                if (a->commutative || dtr < mtr) {
                    red(v, T2, 0, T, 0, (uint64_t)r0 * ts);
                    red(v, T2, (uint64_t)rd1 * ts, T, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
                } else {
                    red(v, T, 0, T2, 0, (uint64_t)r0 * ts);
                    red(v, T, (uint64_t)rd1 * ts, T2, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
                    cpy(v, T2, 0, T, 0, (uint64_t)r0 * ts);
                    cpy(v, T2, (uint64_t)rd1 * ts, T, (uint64_t)rd1 * ts, (uint64_t)r1 * ts);
                }
            }
        }
        (void)L;
        cpy(v, T, DS(rank), R, 0, (uint64_t)cnt[rank] * ts);
    }
out:
    free(cnt);
#undef DS
}

/* ---- scan / exscan recursive doubling ---- */

static void scan_rd(pcs_mv_t *v, const pcs_args_t *a, bool ex)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    need(v, T, n);  /* partial_scan */
    need(v, T2, n); /* tmp_buf */
    if (!ex && !a->in_place)
        cpy(v, S, 0, R, 0, n);
    cpy(v, a->in_place ? R : S, 0, T, 0, n);
    bool flag = false;
    for (int mask = 1; mask < S_; mask <<= 1) {
        int dst = rank ^ mask;
        if (dst >= S_)
            continue;
        at(v, ilog2(mask));
        sendrecv(v, dst, T, 0, n, dst, T2, 0, n);
        if (rank > dst) {
            red(v, T2, 0, T, 0, n);
            if (!ex) {
                red(v, T2, 0, R, 0, n);
            } else if (rank != 0) {
                if (!flag)
                    cpy(v, T2, 0, R, 0, n);
                else
                    red(v, T2, 0, R, 0, n);
                flag = true;
            }
        } else if (a->commutative) {
            red(v, T2, 0, T, 0, n);
        } else {
            red(v, T, 0, T2, 0, n);
            cpy(v, T2, 0, T, 0, n);
        }
    }
}

/* ---- gatherv / scatterv (allcomm linear) ---- */

static void linearv(pcs_mv_t *v, const pcs_args_t *a, bool scatter)
{
    const int S_ = v->size, rank = v->rank, root = a->root;
    const uint64_t ts = a->type_size;
    at(v, 0);
    if (rank != root) {
        uint64_t n = (uint64_t)a->own_count * ts;
        if (!a->own_count)
            return;
        if (scatter)
            rcv(v, root, R, 0, n);
        else if (S_ >= 32) /* MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS, read on intracomms too */
            ssnd(v, root, S, 0, n);
        else
            snd(v, root, S, 0, n);
        return;
    }
    unsigned req = 0;
    for (int i = 0; i < S_; i++) {
        if (!a->counts[i])
            continue;
        uint64_t off = vdisp(a, a->counts, a->displs, i), n = (uint64_t)a->counts[i] * ts;
        if (i == rank) {
            if (!a->in_place) {
                if (scatter)
                    cpy(v, S, off, R, 0, n);
                else
                    cpy(v, S, 0, R, off, n);
            }
        } else if (scatter) {
            isnd(v, req++, i, S, off, n);
        } else {
            ircv(v, req++, i, R, off, n);
        }
    }
    for (unsigned q = 0; q < req; q++)
        pcs_wait(v->c, q);
}

/* ---- the sched algorithms (MPIR_I<coll>_intra_sched_*.c) ----
 * MPIR_Sched_send/recv entries between two MPIR_Sched_barrier calls run concurrently, where
 * the blocking algorithm of the same name has a blocking call or an MPIC_Sendrecv / Waitall;
 * the peers, sizes, order and buffers of the messages and the reductions are the same. */

pcs_alg_t pcs_mpich_sched_base(pcs_alg_t alg)
{
    switch (alg) {
#define B(i, b) case PCS_ALG_MPICH_##i: return PCS_ALG_MPICH_##b
    B(IBARRIER_RD, BARRIER_DISSEMINATION);
    B(IBCAST_BINOMIAL, BCAST_BINOMIAL);
    B(IBCAST_SCATTER_RD_ALLGATHER, BCAST_SCATTER_RD_ALLGATHER);
    B(IBCAST_SCATTER_RING_ALLGATHER, BCAST_SCATTER_RING_ALLGATHER);
    B(IBCAST_SMP, BCAST_SMP);
    B(IREDUCE_SMP, REDUCE_SMP);
    B(IALLREDUCE_SMP, ALLREDUCE_SMP);
    B(IALLREDUCE_RD, ALLREDUCE_RD);
    B(IALLREDUCE_RSA, ALLREDUCE_RSA);
    B(IREDUCE_BINOMIAL, REDUCE_BINOMIAL);
    B(IREDUCE_RSG, REDUCE_RSG);
    B(IEXSCAN_RD, EXSCAN_RD);
    B(IALLGATHER_RD, ALLGATHER_RD);
    B(IALLGATHER_BRUCKS, ALLGATHER_BRUCKS);
    B(IALLGATHERV_RD, ALLGATHERV_RD);
    B(IALLGATHERV_BRUCKS, ALLGATHERV_BRUCKS);
    B(IALLGATHERV_RING, ALLGATHERV_RING);
    B(IALLTOALL_BRUCKS, ALLTOALL_BRUCKS);
    B(IRS_NONCOMMUTATIVE, RS_NONCOMMUTATIVE);
    B(IRS_PAIRWISE, RS_PAIRWISE);
    B(IRS_RECURSIVE_DOUBLING, RS_RECURSIVE_DOUBLING);
    B(IRS_RECURSIVE_HALVING, RS_RECURSIVE_HALVING);
    B(IRSB_NONCOMMUTATIVE, RSB_NONCOMMUTATIVE);
    B(IRSB_PAIRWISE, RSB_PAIRWISE);
    B(IRSB_RECURSIVE_DOUBLING, RSB_RECURSIVE_DOUBLING);
    B(IRSB_RECURSIVE_HALVING, RSB_RECURSIVE_HALVING);
    B(IALLGATHER_RING, ALLGATHER_RING);
    B(IALLTOALL_PERMUTED_SENDRECV, ALLTOALL_SCATTERED);
    B(IALLTOALL_PAIRWISE, ALLTOALL_PAIRWISE);
    B(IALLTOALL_INPLACE, ALLTOALL_SENDRECV_REPLACE);
    B(IALLTOALLV_BLOCKED, ALLTOALLV_SCATTERED);
    B(IALLTOALLV_INPLACE, ALLTOALLV_SENDRECV_REPLACE);
    B(IALLTOALLW_BLOCKED, ALLTOALLV_SCATTERED);
    B(IALLTOALLW_INPLACE, ALLTOALLV_SENDRECV_REPLACE);
    B(IGATHER_BINOMIAL, GATHER_BINOMIAL);
    B(ISCATTER_BINOMIAL, SCATTER_BINOMIAL);
    B(IGATHERV_LINEAR, GATHERV_LINEAR);
    B(ISCATTERV_LINEAR, SCATTERV_LINEAR);
    B(ISCAN_RD, SCAN_RD);
    B(ISCAN_SMP, SCAN_SMP);
#undef B
    default: return PCS_NALGS;
    }
}

/* blocking Alltoallw: the alltoallv algorithms on byte counts (types differ per peer) */
static pcs_alg_t run_alg(pcs_alg_t alg, bool *nb)
{
    pcs_alg_t b = pcs_mpich_sched_base(alg);
    *nb = b != PCS_NALGS;
    if (*nb)
        return b;
    if (alg == PCS_ALG_MPICH_ALLTOALLW_SCATTERED)
        return PCS_ALG_MPICH_ALLTOALLV_SCATTERED;
    if (alg == PCS_ALG_MPICH_ALLTOALLW_SENDRECV_REPLACE)
        return PCS_ALG_MPICH_ALLTOALLV_SENDRECV_REPLACE;
    return alg;
}

/* ---- steps and dispatch ---- */

int64_t pcs_mpich_steps(const pcs_args_t *a, pcs_alg_t alg, int throttle)
{
    bool nb;
    alg = run_alg(alg, &nb);
    const int S_ = a->size, L = clog2(S_), pof2 = pcs_pow2_floor(S_), rem = S_ - pof2;
    const int lg = ilog2(pof2);
    switch (alg) {
    case PCS_ALG_MPICH_BCAST_BINOMIAL:
    case PCS_ALG_MPICH_GATHER_BINOMIAL: case PCS_ALG_MPICH_SCATTER_BINOMIAL:
    case PCS_ALG_MPICH_BARRIER_DISSEMINATION: case PCS_ALG_MPICH_ALLGATHER_BRUCKS:
    case PCS_ALG_MPICH_ALLGATHERV_BRUCKS: case PCS_ALG_MPICH_ALLTOALL_BRUCKS:
    case PCS_ALG_MPICH_SCAN_RD: case PCS_ALG_MPICH_EXSCAN_RD:
    case PCS_ALG_MPICH_ALLGATHER_RD: case PCS_ALG_MPICH_ALLGATHERV_RD:
    case PCS_ALG_MPICH_RS_NONCOMMUTATIVE: case PCS_ALG_MPICH_RSB_NONCOMMUTATIVE:
        return L;
    case PCS_ALG_MPICH_REDUCE_BINOMIAL:
        return L + (!a->commutative && a->root != 0 ? 1 : 0);
    case PCS_ALG_MPICH_BCAST_SCATTER_RD_ALLGATHER: return 2 * L;
    case PCS_ALG_MPICH_BCAST_SCATTER_RING_ALLGATHER: return L + S_ - 1;
    case PCS_ALG_MPICH_REDUCE_RSG:
        return (rem ? 1 : 0) + 2 * lg + (a->root < 2 * rem && a->root % 2 ? 1 : 0);
    case PCS_ALG_MPICH_ALLREDUCE_RD: return (rem ? 2 : 0) + lg;
    case PCS_ALG_MPICH_ALLREDUCE_RSA: return (rem ? 2 : 0) + 2 * lg;
    case PCS_ALG_MPICH_RS_RECURSIVE_HALVING: case PCS_ALG_MPICH_RSB_RECURSIVE_HALVING:
        return (rem ? 2 : 0) + lg;
    case PCS_ALG_MPICH_RS_PAIRWISE: case PCS_ALG_MPICH_RSB_PAIRWISE:
    case PCS_ALG_MPICH_ALLGATHER_RING: case PCS_ALG_MPICH_ALLTOALL_PAIRWISE:
        return S_ - 1;
    case PCS_ALG_MPICH_RS_RECURSIVE_DOUBLING: case PCS_ALG_MPICH_RSB_RECURSIVE_DOUBLING:
        return pow2(S_) ? L : L + (int64_t)L * (L - 1) / 2;
    case PCS_ALG_MPICH_ALLTOALL_SCATTERED: case PCS_ALG_MPICH_ALLTOALLV_SCATTERED: {
        int bb = throttle > 0 ? throttle : throttle == 0 ? 32 : S_;
        return (S_ + bb - 1) / bb;
    }
    case PCS_ALG_MPICH_ALLTOALL_SENDRECV_REPLACE: case PCS_ALG_MPICH_ALLTOALLV_SENDRECV_REPLACE:
        return (int64_t)S_ * (nb ? S_ - 1 : S_ + 1) / 2;
    case PCS_ALG_MPICH_GATHERV_LINEAR: case PCS_ALG_MPICH_SCATTERV_LINEAR: return 1;
    case PCS_ALG_MPICH_ALLGATHERV_RING: {
        /* iterations of the pipelined ring: the same at every rank (see allgatherv_gen) */
        const int64_t *c = a->counts;
        int64_t total = sum(c, 0, S_), best = 0;
        if (total == 0)
            return 0;
        const int64_t chunk = ring_chunk(a, S_, nb);
        for (int r = 0; r < S_; r++) {
            int64_t it = 0; /* blocks r, r-1, ..., r+2: each ceil(c/chunk) or 1 if empty */
            for (int k = 0; k < S_ - 1; k++) {
                int64_t cb = c[(r - k + S_) % S_];
                it += cb ? (cb + chunk - 1) / chunk : 1;
            }
            best = it > best ? it : best;
        }
        return best;
    }
    default: return 0;
    }
}

pcs_err_t pcs_mpich_run(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg, int throttle,
                        int64_t *nsteps)
{
    pcs_err_t e = PCS_OK;
    bool nb;
    *nsteps = pcs_mpich_steps(a, alg, throttle);
    alg = run_alg(alg, &nb);
    switch (a->coll == PCS_ALLTOALLW ? PCS_ALLTOALLW : pcs_alg_coll(alg)) {
    case PCS_ALLTOALLW: v->tag = MT_ALLTOALLW; break;
    case PCS_BCAST: v->tag = MT_BCAST; break;
    case PCS_REDUCE: v->tag = MT_REDUCE; break;
    case PCS_ALLREDUCE: v->tag = MT_ALLREDUCE; break;
    case PCS_ALLGATHER: v->tag = MT_ALLGATHER; break;
    case PCS_ALLGATHERV: v->tag = MT_ALLGATHERV; break;
    case PCS_ALLTOALL: v->tag = MT_ALLTOALL; break;
    case PCS_ALLTOALLV: v->tag = MT_ALLTOALLV; break;
    case PCS_BARRIER: v->tag = MT_BARRIER; break;
    case PCS_GATHER: v->tag = MT_GATHER; break;
    case PCS_SCATTER: v->tag = MT_SCATTER; break;
    case PCS_REDUCE_SCATTER: v->tag = MT_REDUCE_SCATTER; break;
    case PCS_REDUCE_SCATTER_BLOCK: v->tag = MT_REDUCE_SCATTER_BLOCK; break;
    case PCS_SCAN: v->tag = MT_SCAN; break;
    case PCS_EXSCAN: v->tag = MT_EXSCAN; break;
    case PCS_GATHERV: v->tag = MT_GATHERV; break;
    case PCS_SCATTERV: v->tag = MT_SCATTERV; break;
    default: break;
    }
    v->sched = nb;
    if (nb)
        v->tag = MT_NBC;
    switch (alg) {
    case PCS_ALG_NONE: break;
    case PCS_ALG_MPICH_BCAST_BINOMIAL: bcast_binomial(v, a); break;
    case PCS_ALG_MPICH_BCAST_SCATTER_RD_ALLGATHER: e = bcast_scatter_rd(v, a); break;
    case PCS_ALG_MPICH_BCAST_SCATTER_RING_ALLGATHER: bcast_scatter_ring(v, a); break;
    case PCS_ALG_MPICH_REDUCE_BINOMIAL:
        reduce_binomial(v, a);
        break;
    case PCS_ALG_MPICH_REDUCE_RSG: reduce_rsg(v, a); break;
    case PCS_ALG_MPICH_ALLREDUCE_RD: allreduce_rd(v, a, false); break;
    case PCS_ALG_MPICH_ALLREDUCE_RSA: allreduce_rd(v, a, true); break;
    case PCS_ALG_MPICH_ALLREDUCE_SMP: /* on a communicator without node sub-communicators
                                        * (the JSON's count-0 rule): only the local copy */
        if (!a->in_place)
            cpy(v, S, 0, R, 0, (uint64_t)a->count * a->type_size);
        break;
    case PCS_ALG_MPICH_ALLGATHER_RD: case PCS_ALG_MPICH_ALLGATHER_BRUCKS:
    case PCS_ALG_MPICH_ALLGATHER_RING:
        allgather_gen(v, a, alg);
        break;
    case PCS_ALG_MPICH_ALLGATHERV_RD: case PCS_ALG_MPICH_ALLGATHERV_BRUCKS:
    case PCS_ALG_MPICH_ALLGATHERV_RING:
        allgatherv_gen(v, a, alg);
        break;
    case PCS_ALG_MPICH_ALLTOALL_SCATTERED: case PCS_ALG_MPICH_ALLTOALL_PAIRWISE:
    case PCS_ALG_MPICH_ALLTOALL_BRUCKS: case PCS_ALG_MPICH_ALLTOALL_SENDRECV_REPLACE:
    case PCS_ALG_MPICH_ALLTOALLV_SCATTERED: case PCS_ALG_MPICH_ALLTOALLV_SENDRECV_REPLACE:
        alltoall_gen(v, a, alg, throttle);
        break;
    case PCS_ALG_MPICH_BARRIER_DISSEMINATION:
        for (int mask = 1; mask < v->size; mask <<= 1) {
            at(v, ilog2(mask));
            sendrecv(v, (v->rank + mask) % v->size, S, 0, 0, (v->rank - mask + v->size) % v->size,
                     R, 0, 0);
        }
        break;
    case PCS_ALG_MPICH_GATHER_BINOMIAL: gather_binomial(v, a); break;
    case PCS_ALG_MPICH_SCATTER_BINOMIAL: scatter_binomial(v, a); break;
    case PCS_ALG_MPICH_RS_RECURSIVE_HALVING: case PCS_ALG_MPICH_RS_PAIRWISE:
    case PCS_ALG_MPICH_RS_NONCOMMUTATIVE: case PCS_ALG_MPICH_RS_RECURSIVE_DOUBLING:
    case PCS_ALG_MPICH_RSB_RECURSIVE_HALVING: case PCS_ALG_MPICH_RSB_PAIRWISE:
    case PCS_ALG_MPICH_RSB_NONCOMMUTATIVE: case PCS_ALG_MPICH_RSB_RECURSIVE_DOUBLING:
        reduce_scatter_gen(v, a, alg);
        break;
    case PCS_ALG_MPICH_SCAN_RD: scan_rd(v, a, false); break;
    case PCS_ALG_MPICH_EXSCAN_RD: scan_rd(v, a, true); break;
    case PCS_ALG_MPICH_GATHERV_LINEAR: linearv(v, a, false); break;
    case PCS_ALG_MPICH_SCATTERV_LINEAR: linearv(v, a, true); break;
    default: e = PCS_E_UNSUPPORTED; break;
    }
    if (e && !v->c->s->err)
        v->c->s->err = e;
    return v->c->s->err;
}
