/* coll_ompi_nbc_sel.c: which algorithm Open MPI 4.1's coll/libnbc runs for an MPI_I*
 * collective (nbc_i<coll>.c *_init v4.1.4, the MPI bindings' early returns), from its rules
 * or the OMPI_MCA_coll_libnbc_* variables. */
#include "coll_ompi.h"

/* the MPI binding returns before libnbc: nothing runs */
static pcs_err_t nothing(pcs_choice_t *out)
{
    out->component = PCS_COMP_NONE;
    out->lib_alg = 0;
    return PCS_OK;
}

/* nbc_ibcast.c:78 */
static void ibcast_choice(const pcs_args_t *a, const pcs_ompi_forced_t *f, int64_t n,
                          pcs_choice_t *out)
{
    const int p = a->size, forced = f->nbc_algorithm[PCS_BCAST];
    out->dsize = n;
    out->radix = f->nbc_knomial_radix ? f->nbc_knomial_radix : 4;
    out->segsize = 16384;
    if (forced == 0) {
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
}

/* nbc_ireduce.c:102 (p > 1, count > 0) */
static void ireduce_choice(const pcs_args_t *a, int forced, int64_t n, pcs_choice_t *out)
{
    const int p = a->size;
    const bool rsg = a->commutative && p > 2 && a->count >= pcs_pow2_floor(p);
    if (forced == 0)
        out->lib_alg = rsg ? 3 : (p > 4 || n < 65536 || !a->commutative) ? 2 : 1;
    else
        out->lib_alg = forced == 2 ? 2 : forced == 3 && rsg ? 3 : 1;
    out->alg = out->lib_alg == 1 ? PCS_ALG_NBC_REDUCE_CHAIN
             : out->lib_alg == 2 ? PCS_ALG_NBC_REDUCE_BINOMIAL
                                 : PCS_ALG_NBC_REDUCE_REDSCAT_GATHER;
    if (out->lib_alg == 1)
        out->segsize = 16384 / 2;
}

/* nbc_iallreduce.c:108 (p > 1, count > 0): ring unless a rule says otherwise */
static void iallreduce_choice(const pcs_args_t *a, int forced, int64_t n, pcs_choice_t *out)
{
    const int p = a->size, pof2 = pcs_pow2_floor(p);
    int id = 1;
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
}

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
    out->component = PCS_COMP_LIBNBC;
    out->lib_alg = 1;
    out->alg = PCS_ALG_NONE;
    switch (c) {
    case PCS_BARRIER: out->alg = PCS_ALG_NBC_BARRIER_DISSEMINATION; break;
    case PCS_BCAST:
        if (p <= 1 || a->count == 0) /* ibcast.c:85 */
            return nothing(out);
        ibcast_choice(a, f, n, out);
        break;
    case PCS_REDUCE:
        if (a->count == 0) /* ireduce.c:133 */
            return nothing(out);
        out->dsize = n;
        if (p == 1)
            return PCS_OK; /* l.92: a copy, no schedule */
        ireduce_choice(a, forced, n, out);
        break;
    case PCS_ALLREDUCE:
        if (a->count == 0) /* iallreduce.c:107 */
            return nothing(out);
        out->dsize = n;
        if (p == 1)
            return PCS_OK;
        iallreduce_choice(a, forced, n, out);
        break;
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
        if (pcs_sum(a->counts, 0, p) == 0) /* ireduce_scatter.c:128 */
            return nothing(out);
        if (p == 1)
            return PCS_OK;
        out->alg = PCS_ALG_NBC_REDUCE_SCATTER_BINOMIAL_LINEAR;
        break;
    case PCS_REDUCE_SCATTER_BLOCK:
        if (a->count == 0) /* ireduce_scatter_block.c:100 */
            return nothing(out);
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
