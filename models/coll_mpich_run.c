/* coll_mpich_run.c: running an MPICH 4.0.2 MPIR algorithm through a view: its tag, the
 * sched algorithms' blocking twins, the steps each algorithm spans, and the dispatch to the
 * generators of coll_mpich_algs.c and coll_mpich_red.c. */
#include "coll_mpich.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

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
    const int S_ = a->size, L = pcs_log2_ceil(S_), pof2 = pcs_pow2_floor(S_), rem = S_ - pof2;
    const int lg = pcs_log2_floor(pof2);
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
        return pcs_is_pow2(S_) ? L : L + (int64_t)L * (L - 1) / 2;
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
        int64_t total = pcs_sum(c, 0, S_), best = 0;
        if (total == 0)
            return 0;
        const int64_t chunk = pcs_mpich_ring_chunk(a, S_, nb);
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
    case PCS_ALG_MPICH_BCAST_BINOMIAL: case PCS_ALG_MPICH_BCAST_SCATTER_RD_ALLGATHER:
    case PCS_ALG_MPICH_BCAST_SCATTER_RING_ALLGATHER:
        e = pcs_mpich_bcast(v, a, alg);
        break;
    case PCS_ALG_MPICH_REDUCE_BINOMIAL: case PCS_ALG_MPICH_REDUCE_RSG:
        pcs_mpich_reduce(v, a, alg);
        break;
    case PCS_ALG_MPICH_ALLREDUCE_RD: case PCS_ALG_MPICH_ALLREDUCE_RSA:
        pcs_mpich_allreduce(v, a, alg);
        break;
    case PCS_ALG_MPICH_ALLREDUCE_SMP: /* on a communicator without node sub-communicators
                                        * (the JSON's count-0 rule): only the local copy */
        if (!a->in_place)
            mv_copy(v, S, 0, R, 0, (uint64_t)a->count * a->type_size);
        break;
    case PCS_ALG_MPICH_ALLGATHER_RD: case PCS_ALG_MPICH_ALLGATHER_BRUCKS:
    case PCS_ALG_MPICH_ALLGATHER_RING:
        pcs_mpich_allgather(v, a, alg);
        break;
    case PCS_ALG_MPICH_ALLGATHERV_RD: case PCS_ALG_MPICH_ALLGATHERV_BRUCKS:
    case PCS_ALG_MPICH_ALLGATHERV_RING:
        pcs_mpich_allgatherv(v, a, alg);
        break;
    case PCS_ALG_MPICH_ALLTOALL_SCATTERED: case PCS_ALG_MPICH_ALLTOALL_PAIRWISE:
    case PCS_ALG_MPICH_ALLTOALL_BRUCKS: case PCS_ALG_MPICH_ALLTOALL_SENDRECV_REPLACE:
    case PCS_ALG_MPICH_ALLTOALLV_SCATTERED: case PCS_ALG_MPICH_ALLTOALLV_SENDRECV_REPLACE:
        pcs_mpich_alltoall(v, a, alg, throttle);
        break;
    case PCS_ALG_MPICH_BARRIER_DISSEMINATION:
        for (int mask = 1; mask < v->size; mask <<= 1) {
            mv_at(v, pcs_log2_floor(mask));
            mv_sendrecv(v, (v->rank + mask) % v->size, S, 0, 0,
                        (v->rank - mask + v->size) % v->size, R, 0, 0);
        }
        break;
    case PCS_ALG_MPICH_GATHER_BINOMIAL: pcs_mpich_gather(v, a); break;
    case PCS_ALG_MPICH_SCATTER_BINOMIAL: pcs_mpich_scatter(v, a); break;
    case PCS_ALG_MPICH_RS_RECURSIVE_HALVING: case PCS_ALG_MPICH_RS_PAIRWISE:
    case PCS_ALG_MPICH_RS_NONCOMMUTATIVE: case PCS_ALG_MPICH_RS_RECURSIVE_DOUBLING:
    case PCS_ALG_MPICH_RSB_RECURSIVE_HALVING: case PCS_ALG_MPICH_RSB_PAIRWISE:
    case PCS_ALG_MPICH_RSB_NONCOMMUTATIVE: case PCS_ALG_MPICH_RSB_RECURSIVE_DOUBLING:
        pcs_mpich_reduce_scatter(v, a, alg);
        break;
    case PCS_ALG_MPICH_SCAN_RD: pcs_mpich_scan(v, a, false); break;
    case PCS_ALG_MPICH_EXSCAN_RD: pcs_mpich_scan(v, a, true); break;
    case PCS_ALG_MPICH_GATHERV_LINEAR: pcs_mpich_linearv(v, a, false); break;
    case PCS_ALG_MPICH_SCATTERV_LINEAR: pcs_mpich_linearv(v, a, true); break;
    default: e = PCS_E_UNSUPPORTED; break;
    }
    if (e && !v->c->s->err)
        v->c->s->err = e;
    return v->c->s->err;
}
