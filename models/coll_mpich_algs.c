/* coll_mpich_algs.c: per-rank schedules of MPICH 4.0.2's MPIR collective algorithms
 * (src/mpi/coll/<coll>/<coll>_intra_*.c, _allcomm_linear.c): the messages of each MPIC_ call
 * in the library's order, with its tags and the operand order of every MPIR_Reduce_local.
 * Where MPICH packs or uses derived datatypes the schedule moves the same bytes through its
 * own scratch layout: the wire is the contract, the local copies are ours. */
#include "coll_mpich.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

static int lowbit(int x) { return x & -x; }

/* ---- bcast (bcast_intra_*.c, bcast_utils.c) ---- */

static void bcast_binomial(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, L = pcs_log2_ceil(S_);
    const uint64_t n = (uint64_t)a->count * a->type_size;
    const int rel = (rank - a->root + S_) % S_;
    if (n == 0 && !v->sched) /* the sched binomial sends empty messages */
        return;
    int mask = 1;
    while (mask < S_) {
        if (rel & mask) {
            mv_at(v, L - 1 - pcs_log2_floor(mask));
            mv_recv(v, (rank - mask + S_) % S_, R, 0, n);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < S_) {
            mv_at(v, L - 1 - pcs_log2_floor(mask));
            mv_send(v, (rank + mask) % S_, R, 0, n);
        }
}

static int64_t clamp0(int64_t x) { return x < 0 ? 0 : x; }
static int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

/* What relative rank p, holding curr bytes, sends its child p + m in the scatter of
 * MPII_(I)scatter_for_bcast: the children from the top mask down take what lies beyond
 * their blocks (ss bytes a block), each from what the earlier ones left. */
static int64_t scat_to_child(int64_t curr, int64_t ss, int S_, int p, int m)
{
    int top = p ? lowbit(p) >> 1 : (1 << pcs_log2_ceil(S_)) >> 1;
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

/* bytes MPII_Scatter_for_bcast leaves at relative rank rel (its curr_size) */
static int64_t scat_have(int64_t n, int64_t ss, int S_, int rel)
{
    if (rel == 0)
        return n;
    const int m = lowbit(rel), p = rel - m;
    return scat_to_child(scat_have(n, ss, S_, p), ss, S_, p, m);
}

/* MPII_Iscatter_for_bcast_sched: a rank takes its posted receive size (everything from its
 * block to the end) for what it holds, so its first child gets what the blocking scatter
 * would send and the later ones scatter_size * mask each, more than it received: the
 * bytes of the message rel receives */
static int64_t scat_msg_sched(int64_t n, int64_t ss, int S_, int rel)
{
    const int m = lowbit(rel), p = rel - m;
    return scat_to_child(clamp0(n - p * ss), ss, S_, p, m);
}

static void scatter_for_bcast(pcs_mv_t *v, const pcs_args_t *a, int64_t ss, int64_t *curr)
{
    const int S_ = v->size, rank = v->rank, L = pcs_log2_ceil(S_);
    const int64_t n = a->count * (int64_t)a->type_size;
    const int rel = (rank - a->root + S_) % S_;
    int mask = 1;
    *curr = rel == 0 ? n : 0;
    while (mask < S_) {
        if (rel & mask) {
            if (n - rel * ss > 0) {
                /* the sched version holds its posted receive size (see scat_msg_sched) */
                *curr = v->sched ? n - rel * ss : scat_have(n, ss, S_, rel);
                const int64_t got = v->sched ? scat_msg_sched(n, ss, S_, rel) : *curr;
                mv_at(v, L - 1 - pcs_log2_floor(mask));
                mv_recv(v, (rank - mask + S_) % S_, R, (uint64_t)(rel * ss), (uint64_t)got);
            }
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < S_) {
            int64_t send = *curr - ss * mask;
            if (send > 0) {
                mv_at(v, L - 1 - pcs_log2_floor(mask));
                mv_send(v, (rank + mask) % S_, R, (uint64_t)(ss * (rel + mask)), (uint64_t)send);
                *curr -= send;
            }
        }
}

/* (the sched versions have no early return on 0 bytes: they exchange empty messages) */
static pcs_err_t bcast_scatter_rd(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, L = pcs_log2_ceil(S_);
    const int64_t n = a->count * (int64_t)a->type_size;
    if (n == 0 && !v->sched)
        return PCS_OK;
    if (!pcs_is_pow2(S_)) /* the "EXPERIMENTAL" non-power-of-two fix-up: not ported */
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
        mv_at(v, L + i);
        /* empty pieces point past the buffer in MPICH too: keep the region inside */
        mv_sendrecv(v, dst, R, (uint64_t)min64(my_root * ss, n), (uint64_t)curr, dst, R,
                    (uint64_t)min64(dst_root * ss, n), (uint64_t)got);
        curr += got;
    }
    return PCS_OK;
}

static void bcast_scatter_ring(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, L = pcs_log2_ceil(S_), root = a->root;
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
        mv_at(v, L + i - 1);
        mv_sendrecv(v, right, R, (uint64_t)min64(rj * ss, n), (uint64_t)rc, left, R,
                    (uint64_t)min64(rjn * ss, n), (uint64_t)lc);
        j = jn;
        jn = (jn - 1 + S_) % S_;
    }
}

pcs_err_t pcs_mpich_bcast(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg)
{
    switch (alg) {
    case PCS_ALG_MPICH_BCAST_BINOMIAL: bcast_binomial(v, a); return PCS_OK;
    case PCS_ALG_MPICH_BCAST_SCATTER_RD_ALLGATHER: return bcast_scatter_rd(v, a);
    case PCS_ALG_MPICH_BCAST_SCATTER_RING_ALLGATHER: bcast_scatter_ring(v, a); return PCS_OK;
    default: return PCS_E_UNSUPPORTED;
    }
}

/* ---- gather / scatter binomial ---- */

void pcs_mpich_gather(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, root = a->root;
    const uint64_t nb = (uint64_t)a->count * a->type_size;
    const int rel = (rank - root + S_) % S_;
    /* our layout: the subtree's blocks in relative order, own block first */
    if (rank == root) {
        if (!a->in_place)
            mv_copy(v, S, 0, R, (uint64_t)rank * nb, nb);
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
            mv_at(v, pcs_log2_floor(mask));
            if (rank == root) {
                int first = src; /* absolute block of the subtree's first rank */
                if (first + nblk <= S_) {
                    mv_recv(v, src, R, (uint64_t)first * nb, len);
                } else {
                    mv_xfer(v, PCS_OP_RECV, 0, src, len);
                    mv_piece(v, R, (uint64_t)first * nb, (uint64_t)(S_ - first) * nb);
                    mv_piece(v, R, 0, (uint64_t)(first + nblk - S_) * nb);
                }
            } else {
                if (leaf) {
                    mv_need(v, T, (uint64_t)(lowbit(rel) ? lowbit(rel) : 1) * nb);
                    mv_copy(v, S, 0, T, 0, nb);
                    leaf = false;
                }
                mv_recv(v, src, T, (uint64_t)mask * nb, len);
                curr += len;
            }
        } else {
            mv_at(v, pcs_log2_floor(mask));
            if (leaf)
                mv_send(v, ((rel ^ mask) + root) % S_, S, 0, nb);
            else
                mv_send(v, ((rel ^ mask) + root) % S_, T, 0, curr);
            break;
        }
    }
}

void pcs_mpich_scatter(pcs_mv_t *v, const pcs_args_t *a)
{
    const int S_ = v->size, rank = v->rank, root = a->root, L = pcs_log2_ceil(S_);
    const uint64_t nb = (uint64_t)a->count * a->type_size;
    const int rel = (rank - root + S_) % S_;
    uint64_t curr = 0;
    int src_buf = T; /* where this rank's subtree data sits, relative order */
    if (rank == root) {
        curr = nb * (uint64_t)S_;
        if (root != 0) {
            mv_need(v, T, curr);
            mv_copy(v, S, (uint64_t)rank * nb, T, 0, (uint64_t)(S_ - rank) * nb);
            mv_copy(v, S, 0, T, (uint64_t)(S_ - rank) * nb, (uint64_t)rank * nb);
        } else {
            src_buf = S;
        }
    }
    int mask = 1;
    while (mask < S_) {
        if (rel & mask) {
            int src = (rank - mask + S_) % S_;
            mv_at(v, L - 1 - pcs_log2_floor(mask));
            if (rel % 2) {
                mv_recv(v, src, R, 0, nb);
            } else {
                int nblk = lowbit(rel) < S_ - rel ? lowbit(rel) : S_ - rel;
                curr = (uint64_t)nblk * nb;
                mv_need(v, T, curr);
                mv_recv(v, src, T, 0, curr);
            }
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < S_) {
            uint64_t send = curr - nb * (uint64_t)mask;
            mv_at(v, L - 1 - pcs_log2_floor(mask));
            mv_send(v, (rank + mask) % S_, src_buf, nb * (uint64_t)mask, send);
            curr -= send;
        }
    if (rank == root && root == 0 && !a->in_place)
        mv_copy(v, S, 0, R, 0, nb);
    else if (!(rel % 2) && !(rank == root && a->in_place) && !(rank == root && root == 0))
        mv_copy(v, T, 0, R, 0, nb);
}

/* ---- allgather / allgatherv ---- */

void pcs_mpich_allgather(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t nb = (uint64_t)a->count * a->type_size;
    if (alg == PCS_ALG_MPICH_ALLGATHER_BRUCKS) {
        if (nb == 0)
            return;
        mv_need(v, T, nb * (uint64_t)S_);
        mv_copy(v, a->in_place ? R : S, a->in_place ? (uint64_t)rank * nb : 0, T, 0, nb);
        int curr = 1, pof2 = 1, k = 0;
        for (; pof2 <= S_ / 2; pof2 *= 2, k++) {
            mv_at(v, k);
            mv_sendrecv(v, (rank - pof2 + S_) % S_, T, 0, (uint64_t)curr * nb,
                        (rank + pof2) % S_, T, (uint64_t)curr * nb, (uint64_t)curr * nb);
            curr *= 2;
        }
        int rem = S_ - pof2;
        if (rem) {
            mv_at(v, k);
            mv_sendrecv(v, (rank - pof2 + S_) % S_, T, 0, (uint64_t)rem * nb, (rank + pof2) % S_, T,
                        (uint64_t)curr * nb, (uint64_t)rem * nb);
        }
        /* T holds blocks rank, rank+1, ...: rotate into place */
        mv_copy(v, T, 0, R, (uint64_t)rank * nb, (uint64_t)(S_ - rank) * nb);
        mv_copy(v, T, (uint64_t)(S_ - rank) * nb, R, 0, (uint64_t)rank * nb);
        return;
    }
    if (!a->in_place)
        mv_copy(v, S, 0, R, (uint64_t)rank * nb, nb);
    if (alg == PCS_ALG_MPICH_ALLGATHER_RD) {
        uint64_t curr = nb;
        for (int mask = 1, i = 0; mask < S_; mask <<= 1, i++) {
            int dst = rank ^ mask, myr = (rank >> i) << i, dr = (dst >> i) << i;
            mv_at(v, i);
            mv_sendrecv(v, dst, R, (uint64_t)myr * nb, curr, dst, R, (uint64_t)dr * nb, curr);
            curr *= 2;
        }
        return;
    }
    int left = (S_ + rank - 1) % S_, right = (rank + 1) % S_, j = rank, jn = left;
    for (int i = 1; i < S_; i++) {
        mv_at(v, i - 1);
        mv_sendrecv(v, right, R, (uint64_t)j * nb, nb, left, R, (uint64_t)jn * nb, nb);
        j = jn;
        jn = (S_ + jn - 1) % S_;
    }
}

/* elements per message of the pipelined allgatherv ring (MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE
 * = 32768 bytes, extent = type size): the blocking ring cuts blocks above it to it; the sched
 * ring cuts at the smallest block, raised to the pipeline size if below it */
int64_t pcs_mpich_ring_chunk(const pcs_args_t *a, int S_, bool sched)
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

void pcs_mpich_allgatherv(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg)
{
    const int S_ = v->size, rank = v->rank;
    const uint64_t ts = a->type_size;
    const int64_t *c = a->counts;
    const int64_t total = pcs_sum(c, 0, S_);
    if (total == 0)
        return;
#define D(i) pcs_vdisp(a->type_size, c, a->displs, (i))
    if (alg == PCS_ALG_MPICH_ALLGATHERV_RING) {
        if (!a->in_place)
            mv_copy(v, S, 0, R, D(rank), (uint64_t)c[rank] * ts);
        int left = (S_ + rank - 1) % S_, right = (rank + 1) % S_;
        int64_t torecv = total - c[rank], tosend = total - c[right];
        const int64_t chunk = pcs_mpich_ring_chunk(a, S_, v->sched);
        int sidx = rank, ridx = left;
        int64_t soff = 0, roff = 0;
        for (int64_t k = 0; tosend || torecv; k++) {
            int64_t sn = min64(c[sidx] - soff, chunk), rn = min64(c[ridx] - roff, chunk);
            if (!tosend)
                sn = 0;
            if (!torecv)
                rn = 0;
            mv_at(v, k);
            uint64_t so = D(sidx) + (uint64_t)soff * ts, ro = D(ridx) + (uint64_t)roff * ts;
            if (sn && rn) {
                mv_sendrecv(v, right, R, so, (uint64_t)sn * ts, left, R, ro, (uint64_t)rn * ts);
            } else if (rn) {
                mv_recv(v, left, R, ro, (uint64_t)rn * ts);
            } else if (sn) {
                mv_send(v, right, R, so, (uint64_t)sn * ts);
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
    mv_need(v, T, (uint64_t)total * ts);
    int sb = a->in_place ? R : S;
    uint64_t so = a->in_place ? D(rank) : 0;
    if (alg == PCS_ALG_MPICH_ALLGATHERV_RD) {
        mv_copy(v, sb, so, T, (uint64_t)pcs_sum(c, 0, rank) * ts, (uint64_t)c[rank] * ts);
        for (int mask = 1, i = 0; mask < S_; mask <<= 1, i++) {
            int dst = rank ^ mask, myr = (rank >> i) << i, dr = (dst >> i) << i;
            mv_at(v, i);
            mv_sendrecv(v, dst, T, (uint64_t)pcs_sum(c, 0, myr) * ts,
                        (uint64_t)pcs_sum(c, myr, myr + mask) * ts, dst, T,
                        (uint64_t)pcs_sum(c, 0, dr) * ts, (uint64_t)pcs_sum(c, dr, dr + mask) * ts);
        }
        for (int i = 0; i < S_; i++)
            if (i != rank || !a->in_place)
                mv_copy(v, T, (uint64_t)pcs_sum(c, 0, i) * ts, R, D(i), (uint64_t)c[i] * ts);
        return;
    }
    /* brucks: T[k-th packed block] = block (rank+k)%S */
#define RSUM(from, n) rsum(c, S_, (from), (n))
    mv_copy(v, sb, so, T, 0, (uint64_t)c[rank] * ts);
    int64_t curr = c[rank];
    int pof2 = 1, k = 0;
    for (; pof2 <= S_ / 2; pof2 *= 2, k++) {
        int64_t got = 0;
        for (int i = 0; i < pof2; i++)
            got += c[(rank + pof2 + i) % S_];
        mv_at(v, k);
        mv_sendrecv(v, (rank - pof2 + S_) % S_, T, 0, (uint64_t)curr * ts, (rank + pof2) % S_, T,
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
        mv_at(v, k);
        mv_sendrecv(v, (rank - pof2 + S_) % S_, T, 0, (uint64_t)sc * ts, (rank + pof2) % S_, T,
                    (uint64_t)curr * ts, (uint64_t)rc * ts);
    }
    uint64_t off = 0;
    for (int i = 0; i < S_; i++) {
        int b = (rank + i) % S_;
        if (b != rank || !a->in_place)
            mv_copy(v, T, off, R, D(b), (uint64_t)c[b] * ts);
        off += (uint64_t)c[b] * ts;
    }
#undef RSUM
#undef D
}

/* ---- alltoall(v) ---- */

void pcs_mpich_alltoall(pcs_mv_t *v, const pcs_args_t *a, pcs_alg_t alg, int throttle)
{
    const int S_ = v->size, rank = v->rank;
    const bool isv = a->coll == PCS_ALLTOALLV || a->coll == PCS_ALLTOALLW;
    const uint64_t ts = a->type_size, nb = (uint64_t)a->count * ts;
#define RL(i) (isv ? (uint64_t)a->counts[i] * ts : nb)
#define RO(i) (isv ? pcs_vdisp(a->type_size, a->counts, a->displs, (i)) : (uint64_t)(i) * nb)
#define SL(i) (isv ? (uint64_t)a->scounts[i] * ts : nb)
#define SO(i) (isv ? pcs_vdisp(a->type_size, a->scounts, a->sdispls, (i)) : (uint64_t)(i) * nb)
    if (alg == PCS_ALG_MPICH_ALLTOALL_SCATTERED || alg == PCS_ALG_MPICH_ALLTOALLV_SCATTERED) {
        int bblock = throttle > 0 ? throttle : throttle == 0 ? 32 : S_;
        for (int ii = 0, k = 0; ii < S_; ii += bblock, k++) {
            int ss = S_ - ii < bblock ? S_ - ii : bblock;
            unsigned req = 0;
            mv_at(v, k);
            for (int i = 0; i < ss; i++) {
                int src = (rank + i + ii) % S_;
                if (!isv || (a->counts[src] && ts))
                    mv_irecv(v, req++, src, R, RO(src), RL(src));
            }
            for (int i = 0; i < ss; i++) {
                int dst = (rank - i - ii + S_) % S_;
                if (!isv || (a->scounts[dst] && ts))
                    mv_isend(v, req++, dst, S, SO(dst), SL(dst));
            }
            for (unsigned q = 0; q < req; q++)
                pcs_wait(v->c, q);
        }
        return;
    }
    if (alg == PCS_ALG_MPICH_ALLTOALL_PAIRWISE) {
        mv_copy(v, S, SO(rank), R, RO(rank), nb);
        for (int i = 1; i < S_; i++) {
            int src, dst;
            if (pcs_is_pow2(S_)) {
                src = dst = rank ^ i;
            } else {
                src = (rank - i + S_) % S_;
                dst = (rank + i) % S_;
            }
            mv_at(v, i - 1);
            mv_sendrecv(v, dst, S, SO(dst), nb, src, R, RO(src), nb);
        }
        return;
    }
    if (alg == PCS_ALG_MPICH_ALLTOALL_BRUCKS) {
        mv_need(v, T, nb * (uint64_t)S_);
        mv_copy(v, S, (uint64_t)rank * nb, R, 0, (uint64_t)(S_ - rank) * nb);
        mv_copy(v, S, 0, R, (uint64_t)(S_ - rank) * nb, (uint64_t)rank * nb);
        for (int pof2 = 1, k = 0; pof2 < S_; pof2 *= 2, k++) {
            int dst = (rank + pof2) % S_, src = (rank - pof2 + S_) % S_, cnt = 0;
            for (int b = 1; b < S_; b++)
                if (b & pof2)
                    mv_copy(v, R, (uint64_t)b * nb, T, (uint64_t)(cnt++) * nb, nb);
            mv_at(v, k);
            mv_xfer(v, PCS_OP_IRECV, 0, src, (uint64_t)cnt * nb);
            for (int b = 1; b < S_; b++)
                if (b & pof2)
                    mv_piece(v, R, (uint64_t)b * nb, nb);
            mv_isend(v, 1, dst, T, 0, (uint64_t)cnt * nb);
            pcs_wait(v->c, 1);
            pcs_wait(v->c, 0);
        }
        mv_copy(v, R, (uint64_t)(rank + 1) * nb, T, 0, (uint64_t)(S_ - rank - 1) * nb);
        mv_copy(v, R, 0, T, (uint64_t)(S_ - rank - 1) * nb, (uint64_t)(rank + 1) * nb);
        for (int i = 0; i < S_; i++)
            mv_copy(v, T, (uint64_t)i * nb, R, (uint64_t)(S_ - i - 1) * nb, nb);
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
    mv_need(v, T, maxl);
    for (int i = 0; i < S_; i++)
        for (int j = i; j < S_; j++) {
            if (v->sched && i == j)
                continue;
            int peer = rank == i ? j : rank == j ? i : -1;
            k++;
            if (peer < 0)
                continue;
            mv_at(v, k - 1);
            mv_copy(v, R, RO(peer), T, 0, RL(peer));
            mv_irecv(v, 0, peer, R, RO(peer), RL(peer));
            mv_isend(v, 1, peer, T, 0, RL(peer));
            pcs_wait(v->c, 0);
            pcs_wait(v->c, 1);
        }
#undef RL
#undef RO
#undef SL
#undef SO
}

/* ---- gatherv / scatterv (allcomm linear) ---- */

void pcs_mpich_linearv(pcs_mv_t *v, const pcs_args_t *a, bool scatter)
{
    const int S_ = v->size, rank = v->rank, root = a->root;
    const uint64_t ts = a->type_size;
    mv_at(v, 0);
    if (rank != root) {
        uint64_t n = (uint64_t)a->own_count * ts;
        if (!a->own_count)
            return;
        if (scatter)
            mv_recv(v, root, R, 0, n);
        else if (S_ >= 32) /* MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS, read on intracomms too */
            mv_ssend(v, root, S, 0, n);
        else
            mv_send(v, root, S, 0, n);
        return;
    }
    unsigned req = 0;
    for (int i = 0; i < S_; i++) {
        if (!a->counts[i])
            continue;
        uint64_t off = pcs_vdisp(ts, a->counts, a->displs, i), n = (uint64_t)a->counts[i] * ts;
        if (i == rank) {
            if (!a->in_place) {
                if (scatter)
                    mv_copy(v, S, off, R, 0, n);
                else
                    mv_copy(v, S, 0, R, off, n);
            }
        } else if (scatter) {
            mv_isend(v, req++, i, S, off, n);
        } else {
            mv_irecv(v, req++, i, R, off, n);
        }
    }
    for (unsigned q = 0; q < req; q++)
        pcs_wait(v->c, q);
}
