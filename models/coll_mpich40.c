/* coll_mpich40.c: how MPICH 4.0.2 (ch4:ucx, no shared-memory collectives, as Debian 12 ships
 * it) chooses what runs inside a collective: the binding's early returns, the ch4 JSON rules
 * and compositions over node_comm / node_roots_comm, the MPIR JSON rules, and the
 * MPIR_CVAR_* forcing variables; for MPI_I<coll>, MPIR_I<coll>_sched_impl's variable and JSON
 * rules and the sched_smp / sched_naive compositions (generated in coll_mpich_smp.c). Line
 * numbers cite maint/tuning/coll/{ch4,mpir}/generic.json v4.0.2 (copies in the notes;
 * doc/collectives.md). */
#include <stdlib.h>
#include <string.h>

#include "coll_mpich.h"

enum { S = PCS_BUF_SEND, R = PCS_BUF_RECV, T = PCS_BUF_TMP, T2 = PCS_BUF_TMP2, T3 = PCS_BUF_TMP3 };

/* ---- the forcing variables (src/mpi/coll/cvars.txt: value lists in order) ---- */
static const char *const cvar_coll[PCS_NCOLLS] = {
    [PCS_BCAST] = "BCAST", [PCS_REDUCE] = "REDUCE", [PCS_ALLREDUCE] = "ALLREDUCE",
    [PCS_ALLGATHER] = "ALLGATHER", [PCS_ALLGATHERV] = "ALLGATHERV", [PCS_ALLTOALL] = "ALLTOALL",
    [PCS_ALLTOALLV] = "ALLTOALLV", [PCS_BARRIER] = "BARRIER", [PCS_GATHER] = "GATHER",
    [PCS_SCATTER] = "SCATTER", [PCS_REDUCE_SCATTER] = "REDUCE_SCATTER",
    [PCS_REDUCE_SCATTER_BLOCK] = "REDUCE_SCATTER_BLOCK", [PCS_SCAN] = "SCAN",
    [PCS_EXSCAN] = "EXSCAN", [PCS_GATHERV] = "GATHERV", [PCS_SCATTERV] = "SCATTERV",
    [PCS_ALLTOALLW] = "ALLTOALLW"};
#define NV 7
static const struct { const char *name; pcs_alg_t alg; } cvar_vals[PCS_NCOLLS][NV] = {
    [PCS_BARRIER] = {{"auto", PCS_ALG_NONE}, {"nb", PCS_NALGS}, {"smp", PCS_ALG_MPICH_BARRIER_SMP},
                     {"dissemination", PCS_ALG_MPICH_BARRIER_DISSEMINATION}},
    [PCS_BCAST] = {{"auto", PCS_ALG_NONE}, {"binomial", PCS_ALG_MPICH_BCAST_BINOMIAL},
                   {"nb", PCS_NALGS}, {"smp", PCS_ALG_MPICH_BCAST_SMP},
                   {"scatter_recursive_doubling_allgather", PCS_ALG_MPICH_BCAST_SCATTER_RD_ALLGATHER},
                   {"scatter_ring_allgather", PCS_ALG_MPICH_BCAST_SCATTER_RING_ALLGATHER}},
    [PCS_GATHER] = {{"auto", PCS_ALG_NONE}, {"binomial", PCS_ALG_MPICH_GATHER_BINOMIAL},
                    {"nb", PCS_NALGS}},
    [PCS_SCATTER] = {{"auto", PCS_ALG_NONE}, {"binomial", PCS_ALG_MPICH_SCATTER_BINOMIAL},
                     {"nb", PCS_NALGS}},
    [PCS_GATHERV] = {{"auto", PCS_ALG_NONE}, {"linear", PCS_ALG_MPICH_GATHERV_LINEAR},
                     {"nb", PCS_NALGS}},
    [PCS_SCATTERV] = {{"auto", PCS_ALG_NONE}, {"linear", PCS_ALG_MPICH_SCATTERV_LINEAR},
                      {"nb", PCS_NALGS}},
    [PCS_ALLGATHER] = {{"auto", PCS_ALG_NONE}, {"brucks", PCS_ALG_MPICH_ALLGATHER_BRUCKS},
                       {"nb", PCS_NALGS}, {"recursive_doubling", PCS_ALG_MPICH_ALLGATHER_RD},
                       {"ring", PCS_ALG_MPICH_ALLGATHER_RING}},
    [PCS_ALLGATHERV] = {{"auto", PCS_ALG_NONE}, {"brucks", PCS_ALG_MPICH_ALLGATHERV_BRUCKS},
                        {"nb", PCS_NALGS}, {"recursive_doubling", PCS_ALG_MPICH_ALLGATHERV_RD},
                        {"ring", PCS_ALG_MPICH_ALLGATHERV_RING}},
    [PCS_ALLTOALL] = {{"auto", PCS_ALG_NONE}, {"brucks", PCS_ALG_MPICH_ALLTOALL_BRUCKS},
                      {"nb", PCS_NALGS}, {"pairwise", PCS_ALG_MPICH_ALLTOALL_PAIRWISE},
                      {"pairwise_sendrecv_replace", PCS_ALG_MPICH_ALLTOALL_SENDRECV_REPLACE},
                      {"scattered", PCS_ALG_MPICH_ALLTOALL_SCATTERED}},
    [PCS_ALLTOALLV] = {{"auto", PCS_ALG_NONE}, {"nb", PCS_NALGS},
                       {"pairwise_sendrecv_replace", PCS_ALG_MPICH_ALLTOALLV_SENDRECV_REPLACE},
                       {"scattered", PCS_ALG_MPICH_ALLTOALLV_SCATTERED}},
    [PCS_REDUCE] = {{"auto", PCS_ALG_NONE}, {"binomial", PCS_ALG_MPICH_REDUCE_BINOMIAL},
                    {"nb", PCS_NALGS}, {"smp", PCS_ALG_MPICH_REDUCE_SMP},
                    {"reduce_scatter_gather", PCS_ALG_MPICH_REDUCE_RSG}},
    [PCS_ALLREDUCE] = {{"auto", PCS_ALG_NONE}, {"nb", PCS_NALGS},
                       {"smp", PCS_ALG_MPICH_ALLREDUCE_SMP},
                       {"recursive_doubling", PCS_ALG_MPICH_ALLREDUCE_RD},
                       {"reduce_scatter_allgather", PCS_ALG_MPICH_ALLREDUCE_RSA}},
    [PCS_REDUCE_SCATTER] = {{"auto", PCS_ALG_NONE}, {"nb", PCS_NALGS},
                            {"noncommutative", PCS_ALG_MPICH_RS_NONCOMMUTATIVE},
                            {"pairwise", PCS_ALG_MPICH_RS_PAIRWISE},
                            {"recursive_doubling", PCS_ALG_MPICH_RS_RECURSIVE_DOUBLING},
                            {"recursive_halving", PCS_ALG_MPICH_RS_RECURSIVE_HALVING}},
    [PCS_REDUCE_SCATTER_BLOCK] = {{"auto", PCS_ALG_NONE},
                                  {"noncommutative", PCS_ALG_MPICH_RSB_NONCOMMUTATIVE},
                                  {"recursive_doubling", PCS_ALG_MPICH_RSB_RECURSIVE_DOUBLING},
                                  {"pairwise", PCS_ALG_MPICH_RSB_PAIRWISE},
                                  {"recursive_halving", PCS_ALG_MPICH_RSB_RECURSIVE_HALVING},
                                  {"nb", PCS_NALGS}},
    [PCS_SCAN] = {{"auto", PCS_ALG_NONE}, {"nb", PCS_NALGS}, {"smp", PCS_ALG_MPICH_SCAN_SMP},
                  {"recursive_doubling", PCS_ALG_MPICH_SCAN_RD}},
    [PCS_EXSCAN] = {{"auto", PCS_ALG_NONE}, {"nb", PCS_NALGS},
                    {"recursive_doubling", PCS_ALG_MPICH_EXSCAN_RD}},
    [PCS_ALLTOALLW] = {{"auto", PCS_ALG_NONE}, {"nb", PCS_NALGS},
                       {"pairwise_sendrecv_replace", PCS_ALG_MPICH_ALLTOALLW_SENDRECV_REPLACE},
                       {"scattered", PCS_ALG_MPICH_ALLTOALLW_SCATTERED}},
};

/* MPIR_CVAR_I<COLL>_INTRA_ALGORITHM. The tsp_* (gentran) algorithms are not in the catalogue
 * (PCS_NALGS). "sched_auto" is a value cvars.txt accepts but MPIR_I<coll>_sched_impl has no
 * case for: MPICH 4.0.2 fails MPIR_Assert(0) there (seen), so no schedule either. */
#define NBV 11
enum { SCHED_AUTO = PCS_NALGS + 1 };
#define A_(x) PCS_ALG_MPICH_##x
static const struct { const char *name; int alg; } nb_vals[PCS_NCOLLS][NBV] = {
    [PCS_BARRIER] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                     {"sched_recursive_doubling", A_(IBARRIER_RD)}},
    [PCS_BCAST] = {{"auto", 0}, {"sched_auto", SCHED_AUTO}, {"sched_binomial", A_(IBCAST_BINOMIAL)},
                   {"sched_smp", A_(IBCAST_SMP)},
                   {"sched_scatter_recursive_doubling_allgather", A_(IBCAST_SCATTER_RD_ALLGATHER)},
                   {"sched_scatter_ring_allgather", A_(IBCAST_SCATTER_RING_ALLGATHER)},
                   {"tsp_tree", PCS_NALGS}, {"tsp_scatterv_recexch_allgatherv", PCS_NALGS},
                   {"tsp_ring", PCS_NALGS}},
    [PCS_GATHER] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                    {"sched_binomial", A_(IGATHER_BINOMIAL)}, {"tsp_tree", PCS_NALGS}},
    [PCS_GATHERV] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                     {"sched_linear", A_(IGATHERV_LINEAR)}, {"tsp_linear", PCS_NALGS}},
    [PCS_SCATTER] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                     {"sched_binomial", A_(ISCATTER_BINOMIAL)}, {"tsp_tree", PCS_NALGS}},
    [PCS_SCATTERV] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                      {"sched_linear", A_(ISCATTERV_LINEAR)}, {"tsp_linear", PCS_NALGS}},
    [PCS_ALLGATHER] = {{"auto", 0}, {"sched_auto", SCHED_AUTO}, {"sched_ring", A_(IALLGATHER_RING)},
                       {"sched_brucks", A_(IALLGATHER_BRUCKS)},
                       {"sched_recursive_doubling", A_(IALLGATHER_RD)}, {"tsp_ring", PCS_NALGS},
                       {"tsp_brucks", PCS_NALGS}, {"tsp_recexch_doubling", PCS_NALGS},
                       {"tsp_recexch_halving", PCS_NALGS}},
    [PCS_ALLGATHERV] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                        {"sched_brucks", A_(IALLGATHERV_BRUCKS)},
                        {"sched_recursive_doubling", A_(IALLGATHERV_RD)},
                        {"sched_ring", A_(IALLGATHERV_RING)}, {"tsp_recexch_doubling", PCS_NALGS},
                        {"tsp_recexch_halving", PCS_NALGS}, {"tsp_ring", PCS_NALGS},
                        {"tsp_brucks", PCS_NALGS}},
    [PCS_ALLTOALL] = {{"auto", 0}, {"sched_auto", SCHED_AUTO}, {"sched_brucks", A_(IALLTOALL_BRUCKS)},
                      {"sched_inplace", A_(IALLTOALL_INPLACE)},
                      {"sched_pairwise", A_(IALLTOALL_PAIRWISE)},
                      {"sched_permuted_sendrecv", A_(IALLTOALL_PERMUTED_SENDRECV)},
                      {"tsp_ring", PCS_NALGS}, {"tsp_brucks", PCS_NALGS},
                      {"tsp_scattered", PCS_NALGS}},
    [PCS_ALLTOALLV] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                       {"sched_blocked", A_(IALLTOALLV_BLOCKED)},
                       {"sched_inplace", A_(IALLTOALLV_INPLACE)}, {"tsp_scattered", PCS_NALGS},
                       {"tsp_blocked", PCS_NALGS}, {"tsp_inplace", PCS_NALGS}},
    [PCS_ALLTOALLW] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                       {"sched_blocked", A_(IALLTOALLW_BLOCKED)},
                       {"sched_inplace", A_(IALLTOALLW_INPLACE)}, {"tsp_blocked", PCS_NALGS},
                       {"tsp_inplace", PCS_NALGS}},
    [PCS_REDUCE] = {{"auto", 0}, {"sched_auto", SCHED_AUTO}, {"sched_smp", A_(IREDUCE_SMP)},
                    {"sched_binomial", A_(IREDUCE_BINOMIAL)},
                    {"sched_reduce_scatter_gather", A_(IREDUCE_RSG)}, {"tsp_tree", PCS_NALGS},
                    {"tsp_ring", PCS_NALGS}},
    [PCS_ALLREDUCE] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                       {"sched_naive", A_(IALLREDUCE_NAIVE)}, {"sched_smp", A_(IALLREDUCE_SMP)},
                       {"sched_recursive_doubling", A_(IALLREDUCE_RD)},
                       {"sched_reduce_scatter_allgather", A_(IALLREDUCE_RSA)},
                       {"tsp_recexch_single_buffer", PCS_NALGS},
                       {"tsp_recexch_multiple_buffer", PCS_NALGS}, {"tsp_tree", PCS_NALGS},
                       {"tsp_ring", PCS_NALGS},
                       {"tsp_recexch_reduce_scatter_recexch_allgatherv", PCS_NALGS}},
    [PCS_REDUCE_SCATTER] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                            {"sched_noncommutative", A_(IRS_NONCOMMUTATIVE)},
                            {"sched_recursive_doubling", A_(IRS_RECURSIVE_DOUBLING)},
                            {"sched_pairwise", A_(IRS_PAIRWISE)},
                            {"sched_recursive_halving", A_(IRS_RECURSIVE_HALVING)},
                            {"tsp_recexch", PCS_NALGS}},
    [PCS_REDUCE_SCATTER_BLOCK] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                                  {"sched_noncommutative", A_(IRSB_NONCOMMUTATIVE)},
                                  {"sched_recursive_doubling", A_(IRSB_RECURSIVE_DOUBLING)},
                                  {"sched_pairwise", A_(IRSB_PAIRWISE)},
                                  {"sched_recursive_halving", A_(IRSB_RECURSIVE_HALVING)},
                                  {"tsp_recexch", PCS_NALGS}},
    [PCS_SCAN] = {{"auto", 0}, {"sched_auto", SCHED_AUTO}, {"sched_smp", A_(ISCAN_SMP)},
                  {"sched_recursive_doubling", A_(ISCAN_RD)},
                  {"tsp_recursive_doubling", PCS_NALGS}},
    [PCS_EXSCAN] = {{"auto", 0}, {"sched_auto", SCHED_AUTO},
                    {"sched_recursive_doubling", A_(IEXSCAN_RD)}},
};
#undef A_

static int value_index(pcs_coll_t c, const char *v)
{
    for (int i = 0; i < NV && cvar_vals[c][i].name; i++)
        if (!strcmp(cvar_vals[c][i].name, v))
            return i;
    return -1;
}

int pcs_mpich_env_set(pcs_mpich_env_t *env, const char *name, const char *value)
{
    static const char *const pfx[] = {"MPIR_CVAR_", "MPICH_", "MPIR_PARAM_"};
    const char *n = NULL;
    for (size_t i = 0; i < sizeof pfx / sizeof pfx[0] && !n; i++)
        if (!strncmp(name, pfx[i], strlen(pfx[i])))
            n = name + strlen(pfx[i]);
    if (!n || !value)
        return 0;
    if (!strcmp(n, "DEVICE_COLLECTIVES")) {
        static const char *const v[] = {"percoll", "all", "none"};
        for (int i = 0; i < 3; i++)
            if (!strcmp(value, v[i])) {
                env->device_collectives = i;
                return 1;
            }
        return -1;
    }
    if (!strcmp(n, "ALLTOALL_THROTTLE")) {
        char *end;
        long t = strtol(value, &end, 10);
        if (*end || end == value || t < 0)
            return -1;
        env->alltoall_throttle = t == 0 ? -1 : (int)t;
        return 1;
    }
    for (int c = 0; c < PCS_NCOLLS && n[0] == 'I'; c++) {
        size_t l = strlen(cvar_coll[c]);
        if (strncmp(n + 1, cvar_coll[c], l) || strcmp(n + 1 + l, "_INTRA_ALGORITHM"))
            continue;
        for (int i = 0; i < NBV && nb_vals[c][i].name; i++)
            if (!strcmp(nb_vals[c][i].name, value)) {
                env->nb_algorithm[c] = i;
                return 1;
            }
        return -1;
    }
    for (int c = 0; c < PCS_NCOLLS; c++) {
        size_t l = strlen(cvar_coll[c]);
        if (strncmp(n, cvar_coll[c], l))
            continue;
        if (!strcmp(n + l, "_INTRA_ALGORITHM")) {
            int i = value_index((pcs_coll_t)c, value);
            if (i < 0)
                return -1;
            env->intra_algorithm[c] = i;
            return 1;
        }
        if (!strcmp(n + l, "_DEVICE_COLLECTIVE")) {
            env->no_device[c] = !strcmp(value, "0") || !strcmp(value, "false");
            return 1;
        }
    }
    return 0;
}

/* ---- the communicator's node structure (commutil.c: MPIR_Comm_create_subcomms) ---- */

void pcs_topo_free(pcs_topo_t *t) { free(t->mem); }

pcs_err_t pcs_topo_init(pcs_topo_t *t, const pcs_args_t *a, const pcs_mpich_comm_t *mc)
{
    const int P = a->size;
    memset(t, 0, sizeof *t);
    t->P = P;
    t->rank = a->rank;
    t->mem = malloc(sizeof(int) * (size_t)(4 * P));
    if (!t->mem)
        return PCS_E_NOMEM;
    t->nidx = t->mem;
    t->nsize = t->mem + P;
    t->leader = t->mem + 2 * P;
    t->members = t->mem + 3 * P;
    const int *node = mc ? mc->node : NULL;
    for (int r = 0; r < P; r++) {
        int k = 0;
        if (node) {
            for (k = 0; k < t->nnodes; k++)
                if (node[t->leader[k]] == node[r])
                    break;
        }
        if (k == t->nnodes) {
            t->leader[t->nnodes] = r;
            t->nsize[t->nnodes++] = 0;
        }
        t->nidx[r] = k;
        t->nsize[k]++;
    }
    for (int r = 0; r < P; r++)
        if (t->nidx[r] == t->nidx[a->rank]) {
            if (r == a->rank)
                t->lrank = t->nlocal;
            t->members[t->nlocal++] = r;
        }
    t->parent = t->nnodes < P;
    t->consecutive = t->parent;
    for (int r = 1; r < P && t->consecutive; r++)
        if (t->nidx[r] != t->nidx[r - 1] && t->nidx[r] != t->nidx[r - 1] + 1)
            t->consecutive = false;
    return PCS_OK;
}

/* ---- the MPIR layer: MPIR_<Coll>_impl on an intracommunicator ---- */

/* mpir/generic.json */
static pcs_alg_t mpir_json(const pcs_args_t *a, pcs_hier_t h, bool user_op, int *line,
                           int64_t *dsize)
{
    const int P = a->size, pof2 = pcs_pow2_floor(P);
    const bool p2 = !(P & (P - 1));
    const int64_t avg = (int64_t)a->type_size * a->count;
    *dsize = avg;
#define L(n, alg) (*line = (n), PCS_ALG_MPICH_##alg)
    switch (a->coll) {
    case PCS_BCAST:
        if (P < 8)
            return h.parent && avg <= 0 ? L(12, BCAST_SMP) : h.parent ? L(16, BCAST_BINOMIAL)
                                                                       : L(23, BCAST_BINOMIAL);
        if (h.parent && avg <= 0)
            return p2 ? L(33, BCAST_SMP) : L(70, BCAST_SMP);
        if (p2) {
            if (avg <= 12288)
                return h.parent ? L(37, BCAST_BINOMIAL) : L(52, BCAST_BINOMIAL);
            if (avg <= 524288)
                return h.parent ? L(41, BCAST_SCATTER_RD_ALLGATHER)
                                : L(56, BCAST_SCATTER_RD_ALLGATHER);
            return h.parent ? L(45, BCAST_SCATTER_RING_ALLGATHER)
                            : L(60, BCAST_SCATTER_RING_ALLGATHER);
        }
        if (avg <= 12288)
            return h.parent ? L(74, BCAST_BINOMIAL) : L(85, BCAST_BINOMIAL);
        return h.parent ? L(78, BCAST_SCATTER_RING_ALLGATHER) : L(89, BCAST_SCATTER_RING_ALLGATHER);
    case PCS_ALLREDUCE:
        if (avg <= 0)
            return a->commutative ? L(107, ALLREDUCE_SMP) : L(111, ALLREDUCE_RD);
        if (avg <= 8)
            return L(116, ALLREDUCE_RD);
        if (user_op)
            return L(122, ALLREDUCE_RD);
        if (a->count < pof2)
            return L(128, ALLREDUCE_RD);
        return L(132, ALLREDUCE_RSA);
    case PCS_ALLGATHER:
    case PCS_ALLGATHERV: {
        const bool v = a->coll == PCS_ALLGATHERV;
        int64_t tot = (int64_t)a->type_size * (v ? pcs_sum(a->counts, 0, a->size) : a->count * P);
        *dsize = tot;
        if (p2)
            return tot < 524288 ? (v ? L(182, ALLGATHERV_RD) : L(150, ALLGATHER_RD))
                                : (v ? L(186, ALLGATHERV_RING) : L(154, ALLGATHER_RING));
        return tot < 81920 ? (v ? L(193, ALLGATHERV_BRUCKS) : L(161, ALLGATHER_BRUCKS))
                           : (v ? L(197, ALLGATHERV_RING) : L(165, ALLGATHER_RING));
    }
    case PCS_REDUCE:
        if (h.parent) {
            if (avg <= 0)
                return a->commutative ? L(216, REDUCE_SMP) : L(220, REDUCE_BINOMIAL);
            if (avg <= 2048)
                return L(225, REDUCE_BINOMIAL);
            if (!user_op)
                return a->count < pof2 ? L(233, REDUCE_BINOMIAL) : L(237, REDUCE_RSG);
            return L(242, REDUCE_BINOMIAL);
        }
        if (avg <= 2048)
            return L(250, REDUCE_BINOMIAL);
        if (!user_op)
            return a->count < pof2 ? L(258, REDUCE_BINOMIAL) : L(262, REDUCE_RSG);
        return L(267, REDUCE_BINOMIAL);
    case PCS_REDUCE_SCATTER: {
        int64_t tot = (int64_t)a->type_size * pcs_sum(a->counts, 0, a->size);
        bool regular = true;
        for (int i = 1; i < P; i++)
            regular = regular && a->counts[i] == a->counts[0];
        *dsize = tot;
        if (a->commutative)
            return tot < 524288 ? L(285, RS_RECURSIVE_HALVING) : L(289, RS_PAIRWISE);
        if (regular)
            return p2 ? L(298, RS_NONCOMMUTATIVE) : L(302, RS_RECURSIVE_DOUBLING);
        return L(307, RS_RECURSIVE_DOUBLING);
    }
    case PCS_REDUCE_SCATTER_BLOCK: {
        int64_t tot = (int64_t)a->type_size * a->count * P;
        *dsize = tot;
        if (a->commutative)
            return tot < 524288 ? L(324, RSB_RECURSIVE_HALVING) : L(328, RSB_PAIRWISE);
        return p2 ? L(335, RSB_NONCOMMUTATIVE) : L(339, RSB_RECURSIVE_DOUBLING);
    }
    case PCS_GATHER: *dsize = -1; return L(352, GATHER_BINOMIAL);
    case PCS_SCATTER: *dsize = -1; return L(370, SCATTER_BINOMIAL);
    case PCS_GATHERV: *dsize = -1; return L(386, GATHERV_LINEAR);
    case PCS_SCATTERV: *dsize = -1; return L(390, SCATTERV_LINEAR);
    case PCS_SCAN: *dsize = -1; return h.consecutive ? L(398, SCAN_SMP) : L(402, SCAN_RD);
    case PCS_EXSCAN: *dsize = -1; return L(412, EXSCAN_RD);
    case PCS_BARRIER:
        *dsize = -1;
        return h.parent ? L(420, BARRIER_SMP) : L(424, BARRIER_DISSEMINATION);
    case PCS_ALLTOALL:
        if (a->in_place)
            return L(438, ALLTOALL_SENDRECV_REPLACE);
        /* csel.c evaluates "comm_size<8" below a non-comm key as size <= 8 */
        if (P <= 8)
            return avg <= 32768 ? L(446, ALLTOALL_SCATTERED) : L(450, ALLTOALL_PAIRWISE);
        return avg <= 256 ? L(457, ALLTOALL_BRUCKS)
               : avg <= 32768 ? L(461, ALLTOALL_SCATTERED) : L(465, ALLTOALL_PAIRWISE);
    case PCS_ALLTOALLV:
        *dsize = -1;
        return a->in_place ? L(481, ALLTOALLV_SENDRECV_REPLACE) : L(485, ALLTOALLV_SCATTERED);
    case PCS_ALLTOALLW:
        *dsize = -1;
        return a->in_place ? L(499, ALLTOALLW_SENDRECV_REPLACE) : L(503, ALLTOALLW_SCATTERED);
    default: *line = 0; return PCS_NALGS;
    }
#undef L
}

/* coll_algorithms.txt restrictions of a forced algorithm (false: MPICH falls back to auto) */
static bool restrictions_ok(const pcs_args_t *a, pcs_alg_t alg, pcs_hier_t h, bool user_op)
{
    const int P = a->size;
    switch (alg) {
    case PCS_ALG_MPICH_BARRIER_SMP: case PCS_ALG_MPICH_BCAST_SMP: return h.parent;
    case PCS_ALG_MPICH_REDUCE_SMP: case PCS_ALG_MPICH_ALLREDUCE_SMP:
        return h.parent && a->commutative;
    case PCS_ALG_MPICH_SCAN_SMP: return h.consecutive && a->commutative;
    case PCS_ALG_MPICH_REDUCE_RSG: case PCS_ALG_MPICH_ALLREDUCE_RSA:
        return !user_op && a->count >= pcs_pow2_floor(P);
    case PCS_ALG_MPICH_ALLGATHER_RD: case PCS_ALG_MPICH_ALLGATHERV_RD:
    case PCS_ALG_MPICH_RSB_NONCOMMUTATIVE:
        return !(P & (P - 1));
    case PCS_ALG_MPICH_ALLTOALL_BRUCKS: case PCS_ALG_MPICH_ALLTOALL_PAIRWISE:
    case PCS_ALG_MPICH_ALLTOALL_SCATTERED: case PCS_ALG_MPICH_ALLTOALLV_SCATTERED:
    case PCS_ALG_MPICH_ALLTOALLW_SCATTERED:
        return !a->in_place;
    case PCS_ALG_MPICH_ALLTOALL_SENDRECV_REPLACE: case PCS_ALG_MPICH_ALLTOALLV_SENDRECV_REPLACE:
    case PCS_ALG_MPICH_ALLTOALLW_SENDRECV_REPLACE:
        return a->in_place;
    case PCS_ALG_MPICH_RS_PAIRWISE: case PCS_ALG_MPICH_RS_RECURSIVE_HALVING:
    case PCS_ALG_MPICH_RSB_PAIRWISE: case PCS_ALG_MPICH_RSB_RECURSIVE_HALVING:
        return a->commutative;
    default: return true;
    }
}

static const pcs_mpich_env_t default_env;

/* MPIR_<Coll>_impl: forced CVAR (restrictions, silent fallback) or the JSON */
pcs_alg_t pcs_mpich_mpir_select(const pcs_args_t *a, pcs_hier_t h, bool user_op,
                                const pcs_mpich_env_t *env, pcs_choice_t *out)
{
    int forced = env->intra_algorithm[a->coll];
    out->component = (pcs_component_t)PCS_COMP_MPICH_MPIR;
    if (forced > 0 && forced < NV && cvar_vals[a->coll][forced].name) {
        pcs_alg_t alg = cvar_vals[a->coll][forced].alg;
        if (alg == PCS_NALGS || restrictions_ok(a, alg, h, user_op)) {
            out->lib_alg = forced;
            out->rule_line = 0;
            out->dsize = -1;
            return out->alg = alg; /* PCS_NALGS: "nb", not in the catalogue */
        }
    }
    pcs_alg_t alg = mpir_json(a, h, user_op, &out->rule_line, &out->dsize);
    out->lib_alg = 0;
    for (int i = 1; i < NV && cvar_vals[a->coll][i].name; i++)
        if (cvar_vals[a->coll][i].alg == alg)
            out->lib_alg = i;
    return out->alg = alg;
}

/* ---- the nonblocking path: MPI_I<coll> -> MPID (ch4:ucx: straight to MPIR_I<coll>_impl, no
 * ch4 JSON) -> MPIR_I<coll>_sched_impl -> the forcing CVAR or the MPIR JSON ---- */

#define NL(n, alg) (*line = (n), PCS_ALG_MPICH_##alg)
/* mpir/generic.json, "collective=i<coll>" */
static pcs_alg_t nb_json(const pcs_args_t *a, pcs_hier_t h, bool user_op, int *line,
                         int64_t *dsize)
{
    const int P = a->size, pof2 = pcs_pow2_floor(P);
    const bool p2 = !(P & (P - 1));
    const int64_t avg = (int64_t)a->type_size * a->count;
    *dsize = avg;
    switch (a->coll) {
    case PCS_BARRIER: *dsize = -1; return NL(535, IBARRIER_RD);
    case PCS_ALLREDUCE:
        if (avg <= 2048)
            return NL(548, IALLREDUCE_RD);
        if (user_op)
            return NL(554, IALLREDUCE_RD);
        return a->count < pof2 ? NL(560, IALLREDUCE_RD) : NL(564, IALLREDUCE_RSA);
    case PCS_ALLGATHER: case PCS_ALLGATHERV: {
        const bool v = a->coll == PCS_ALLGATHERV;
        int64_t tot = (int64_t)a->type_size * (v ? pcs_sum(a->counts, 0, a->size) : a->count * P);
        *dsize = tot;
        if (p2)
            return tot < 524288 ? (v ? NL(614, IALLGATHERV_RD) : NL(582, IALLGATHER_RD))
                                : (v ? NL(618, IALLGATHERV_RING) : NL(586, IALLGATHER_RING));
        return tot < 81920 ? (v ? NL(625, IALLGATHERV_BRUCKS) : NL(593, IALLGATHER_BRUCKS))
                           : (v ? NL(629, IALLGATHERV_RING) : NL(597, IALLGATHER_RING));
    }
    case PCS_BCAST:
        if (h.parent)
            return NL(644, IBCAST_SMP);
        if (P < 8)
            return NL(652, IBCAST_BINOMIAL);
        if (p2)
            return avg < 12288    ? NL(659, IBCAST_BINOMIAL)
                   : avg < 524288 ? NL(663, IBCAST_SCATTER_RD_ALLGATHER)
                                  : NL(667, IBCAST_SCATTER_RING_ALLGATHER);
        return avg < 12288 ? NL(674, IBCAST_BINOMIAL) : NL(678, IBCAST_SCATTER_RING_ALLGATHER);
    case PCS_REDUCE:
        if (h.parent)
            return a->commutative ? NL(696, IREDUCE_SMP) : NL(700, IREDUCE_BINOMIAL);
        if (avg <= 2048)
            return NL(707, IREDUCE_BINOMIAL);
        if (user_op)
            return NL(724, IREDUCE_BINOMIAL);
        return a->count < pof2 ? NL(715, IREDUCE_BINOMIAL) : NL(719, IREDUCE_RSG);
    case PCS_REDUCE_SCATTER: {
        int64_t tot = (int64_t)a->type_size * pcs_sum(a->counts, 0, a->size);
        bool regular = true;
        for (int i = 1; i < P; i++)
            regular = regular && a->counts[i] == a->counts[0];
        *dsize = tot;
        if (a->commutative)
            return tot < 524288 ? NL(742, IRS_RECURSIVE_HALVING) : NL(746, IRS_PAIRWISE);
        if (regular)
            return p2 ? NL(755, IRS_NONCOMMUTATIVE) : NL(759, IRS_RECURSIVE_DOUBLING);
        return NL(764, IRS_RECURSIVE_DOUBLING);
    }
    case PCS_REDUCE_SCATTER_BLOCK: {
        int64_t tot = (int64_t)a->type_size * a->count * P;
        *dsize = tot;
        if (a->commutative)
            return tot < 524288 ? NL(908, IRSB_RECURSIVE_HALVING) : NL(912, IRSB_PAIRWISE);
        return p2 ? NL(919, IRSB_NONCOMMUTATIVE) : NL(923, IRSB_RECURSIVE_DOUBLING);
    }
    case PCS_GATHER: *dsize = -1; return NL(777, IGATHER_BINOMIAL);
    case PCS_SCATTER: *dsize = -1; return NL(795, ISCATTER_BINOMIAL);
    case PCS_GATHERV: *dsize = -1; return NL(811, IGATHERV_LINEAR);
    case PCS_SCATTERV: *dsize = -1; return NL(815, ISCATTERV_LINEAR);
    case PCS_EXSCAN: *dsize = -1; return NL(819, IEXSCAN_RD);
    case PCS_SCAN: *dsize = -1; return h.parent ? NL(936, ISCAN_SMP) : NL(940, ISCAN_RD);
    case PCS_ALLTOALL:
        if (a->in_place)
            return NL(827, IALLTOALL_INPLACE);
        /* the same "comm_size<8" quirk as the blocking rules: csel.c tests size <= 8 */
        if (P <= 8)
            return avg <= 32768 ? NL(835, IALLTOALL_PERMUTED_SENDRECV) : NL(839, IALLTOALL_PAIRWISE);
        return avg <= 2048    ? NL(846, IALLTOALL_BRUCKS)
               : avg <= 32768 ? NL(850, IALLTOALL_PERMUTED_SENDRECV)
                              : NL(854, IALLTOALL_PAIRWISE);
    case PCS_ALLTOALLV:
        *dsize = -1;
        return a->in_place ? NL(870, IALLTOALLV_INPLACE) : NL(874, IALLTOALLV_BLOCKED);
    case PCS_ALLTOALLW:
        *dsize = -1;
        return a->in_place ? NL(888, IALLTOALLW_INPLACE) : NL(892, IALLTOALLW_BLOCKED);
    default: *line = 0; return PCS_NALGS;
    }
}
#undef NL

/* mpir_coll_sched_auto.c: MPIR_I<coll>_intra_sched_auto, with the default values of the
 * *_MSG_SIZE / BCAST_MIN_PROCS thresholds it reads (the sched_smp and sched_naive sub-steps
 * come here) */
pcs_alg_t pcs_mpich_nb_auto(const pcs_args_t *a, pcs_hier_t h, bool user_op)
{
    const int P = a->size, pof2 = pcs_pow2_floor(P);
    const bool p2 = !(P & (P - 1));
    const int64_t nb = (int64_t)a->type_size * a->count;
#define R_(x) PCS_ALG_MPICH_##x
    switch (a->coll) {
    case PCS_BARRIER: return R_(IBARRIER_RD);
    case PCS_BCAST:
        if (h.parent)
            return R_(IBCAST_SMP);
        if (nb < 12288 || P < 8)
            return R_(IBCAST_BINOMIAL);
        return nb < 524288 && p2 ? R_(IBCAST_SCATTER_RD_ALLGATHER)
                                 : R_(IBCAST_SCATTER_RING_ALLGATHER);
    case PCS_GATHER: return R_(IGATHER_BINOMIAL);
    case PCS_GATHERV: return R_(IGATHERV_LINEAR);
    case PCS_SCATTER: return R_(ISCATTER_BINOMIAL);
    case PCS_SCATTERV: return R_(ISCATTERV_LINEAR);
    case PCS_ALLGATHER: case PCS_ALLGATHERV: {
        const bool v = a->coll == PCS_ALLGATHERV;
        int64_t tot = (int64_t)a->type_size * (v ? pcs_sum(a->counts, 0, a->size) : a->count * P);
        if (tot < 524288 && p2)
            return v ? R_(IALLGATHERV_RD) : R_(IALLGATHER_RD);
        if (tot < 81920)
            return v ? R_(IALLGATHERV_BRUCKS) : R_(IALLGATHER_BRUCKS);
        return v ? R_(IALLGATHERV_RING) : R_(IALLGATHER_RING);
    }
    case PCS_ALLTOALL:
        if (a->in_place)
            return R_(IALLTOALL_INPLACE);
        if (nb <= 256 && P >= 8)
            return R_(IALLTOALL_BRUCKS);
        return nb <= 32768 ? R_(IALLTOALL_PERMUTED_SENDRECV) : R_(IALLTOALL_PAIRWISE);
    case PCS_ALLTOALLV: return a->in_place ? R_(IALLTOALLV_INPLACE) : R_(IALLTOALLV_BLOCKED);
    case PCS_ALLTOALLW: return a->in_place ? R_(IALLTOALLW_INPLACE) : R_(IALLTOALLW_BLOCKED);
    case PCS_REDUCE:
        if (h.parent && a->commutative)
            return R_(IREDUCE_SMP);
        return nb > 2048 && !user_op && a->count >= pof2 ? R_(IREDUCE_RSG) : R_(IREDUCE_BINOMIAL);
    case PCS_ALLREDUCE:
        if (h.parent && a->commutative)
            return R_(IALLREDUCE_SMP);
        return nb <= 2048 || user_op || a->count < pof2 ? R_(IALLREDUCE_RD) : R_(IALLREDUCE_RSA);
    case PCS_REDUCE_SCATTER: case PCS_REDUCE_SCATTER_BLOCK: {
        const bool blk = a->coll == PCS_REDUCE_SCATTER_BLOCK;
        int64_t tot = (int64_t)a->type_size * (blk ? a->count * P : pcs_sum(a->counts, 0, a->size));
        bool regular = true;
        for (int i = 1; i < P && !blk; i++)
            regular = regular && a->counts[i] == a->counts[0];
        if (a->commutative)
            return tot < 524288 ? (blk ? R_(IRSB_RECURSIVE_HALVING) : R_(IRS_RECURSIVE_HALVING))
                                : (blk ? R_(IRSB_PAIRWISE) : R_(IRS_PAIRWISE));
        if (p2 && regular)
            return blk ? R_(IRSB_NONCOMMUTATIVE) : R_(IRS_NONCOMMUTATIVE);
        return blk ? R_(IRSB_RECURSIVE_DOUBLING) : R_(IRS_RECURSIVE_DOUBLING);
    }
    case PCS_SCAN: return h.parent ? R_(ISCAN_SMP) : R_(ISCAN_RD);
    case PCS_EXSCAN: return R_(IEXSCAN_RD);
    default: return PCS_NALGS;
    }
#undef R_
}

/* coll_algorithms.txt restrictions of the sched algorithms (the same as those of the blocking
 * algorithms of the same names) */
static bool nb_restrictions_ok(const pcs_args_t *a, pcs_alg_t alg, pcs_hier_t h, bool user_op)
{
    switch (alg) {
    case PCS_ALG_MPICH_IBCAST_SCATTER_RD_ALLGATHER: case PCS_ALG_MPICH_IALLGATHER_RD:
    case PCS_ALG_MPICH_IALLGATHERV_RD: case PCS_ALG_MPICH_IRS_NONCOMMUTATIVE:
    case PCS_ALG_MPICH_IRSB_NONCOMMUTATIVE:
        return !(a->size & (a->size - 1));
    case PCS_ALG_MPICH_IREDUCE_RSG: case PCS_ALG_MPICH_IALLREDUCE_RSA:
        return !user_op && a->count >= pcs_pow2_floor(a->size);
    case PCS_ALG_MPICH_IRS_PAIRWISE: case PCS_ALG_MPICH_IRS_RECURSIVE_HALVING:
    case PCS_ALG_MPICH_IRSB_PAIRWISE: case PCS_ALG_MPICH_IRSB_RECURSIVE_HALVING:
        return a->commutative;
    case PCS_ALG_MPICH_IALLTOALL_BRUCKS: case PCS_ALG_MPICH_IALLTOALL_PAIRWISE:
    case PCS_ALG_MPICH_IALLTOALL_PERMUTED_SENDRECV: case PCS_ALG_MPICH_IALLTOALLV_BLOCKED:
    case PCS_ALG_MPICH_IALLTOALLW_BLOCKED:
        return !a->in_place;
    case PCS_ALG_MPICH_IALLTOALL_INPLACE: case PCS_ALG_MPICH_IALLTOALLV_INPLACE:
    case PCS_ALG_MPICH_IALLTOALLW_INPLACE:
        return a->in_place;
    case PCS_ALG_MPICH_IBCAST_SMP: case PCS_ALG_MPICH_IREDUCE_SMP: case PCS_ALG_MPICH_ISCAN_SMP:
    case PCS_ALG_MPICH_IALLREDUCE_SMP:
        return restrictions_ok(a, pcs_mpich_sched_base(alg), h, user_op);
    default: return true;
    }
}

/* is a sched algorithm in the catalogue (message-checked against its blocking twin) */
static bool nb_modelled(pcs_alg_t alg)
{
    return pcs_mpich_sched_base(alg) != PCS_NALGS || alg == PCS_ALG_MPICH_IALLREDUCE_NAIVE;
}

/* MPIR_I<coll>_sched_impl on an intracommunicator */
static pcs_err_t nb_select(const pcs_args_t *a, pcs_hier_t h, bool user_op,
                           const pcs_mpich_env_t *env, pcs_choice_t *out)
{
    const int forced = env->nb_algorithm[a->coll];
    out->component = (pcs_component_t)PCS_COMP_MPICH_MPIR;
    out->rule_line = 0;
    out->dsize = -1;
    int alg = PCS_NALGS;
    if (forced > 0 && forced < NBV && nb_vals[a->coll][forced].name) {
        alg = nb_vals[a->coll][forced].alg;
        if (alg == SCHED_AUTO) { /* the library aborts */
            out->lib_alg = forced;
            out->alg = PCS_NALGS;
            return PCS_E_UNSUPPORTED;
        }
        if (alg != PCS_NALGS && !nb_restrictions_ok(a, (pcs_alg_t)alg, h, user_op))
            alg = -1; /* MPICH falls back to MPIR_I<coll>_allcomm_sched_auto */
        else
            out->lib_alg = forced;
        if (alg == PCS_NALGS) { /* a tsp_* algorithm */
            out->alg = PCS_NALGS;
            return PCS_E_UNSUPPORTED;
        }
    }
    if (alg < 0 || forced <= 0 || forced >= NBV) {
        out->lib_alg = 0;
        alg = nb_json(a, h, user_op, &out->rule_line, &out->dsize);
    }
    if (alg == PCS_ALG_MPICH_ISCAN_SMP && !h.consecutive)
        alg = PCS_ALG_MPICH_ISCAN_RD; /* what sched_smp runs itself */
    out->alg = (pcs_alg_t)alg;
    if (!out->lib_alg)
        for (int i = 2; i < NBV && nb_vals[a->coll][i].name; i++)
            if (nb_vals[a->coll][i].alg == alg)
                out->lib_alg = i;
    return nb_modelled(out->alg) ? PCS_OK : PCS_E_UNSUPPORTED;
}

/* MPIR_<Coll>_allcomm_nb, the "nb" value of a blocking variable: MPIR_I<coll> on the same
 * communicator (its nonblocking path, variable and JSON), then a wait. lib_alg stays the
 * blocking variable's value. */
pcs_err_t pcs_mpich_blocking_nb(const pcs_args_t *a, pcs_hier_t h, bool user_op,
                                const pcs_mpich_env_t *env, pcs_choice_t *out)
{
    const int lib = out->lib_alg;
    pcs_args_t na = *a;
    na.nonblocking = true;
    pcs_err_t e = nb_select(&na, h, user_op, env, out);
    out->lib_alg = lib;
    return e;
}

/* ---- selection ---- */

/* src/binding/c/coll_api.txt early returns (intracommunicators) */
static bool early_return(const pcs_args_t *a)
{
    const int P = a->size;
    const bool root = a->rank == a->root;
    switch (a->coll) {
    case PCS_BARRIER: case PCS_BCAST: case PCS_ALLREDUCE: case PCS_ALLGATHERV:
    case PCS_REDUCE_SCATTER:
        return P == 1;
    case PCS_REDUCE: return P == 1 || a->count == 0;
    case PCS_REDUCE_SCATTER_BLOCK: return P == 1 || a->count == 0;
    case PCS_ALLGATHER: case PCS_ALLTOALL: return a->count == 0;
    case PCS_GATHER: case PCS_SCATTER: return a->count == 0 || (!root && a->count == 0);
    case PCS_SCAN: case PCS_EXSCAN: return a->count == 0;
    default: return false;
    }
}

static pcs_err_t select_topo(const pcs_args_t *a, const pcs_topo_t *t, bool user_op,
                             const pcs_mpich_env_t *env, pcs_choice_t *out)
{
    memset(out, 0, sizeof *out);
    out->dsize = -1;
    if (a->size < 1 || a->rank < 0 || a->rank >= a->size ||
        (a->root < 0 && a->coll != PCS_BARRIER) || a->root >= a->size || (unsigned)a->coll >= PCS_NCOLLS)
        return PCS_E_ARG;
    if (early_return(a) && !(a->nonblocking && a->coll == PCS_BARRIER)) {
        out->component = PCS_COMP_NONE;
        out->alg = PCS_ALG_NONE;
        return PCS_OK;
    }
    const pcs_hier_t h = {t->parent, t->consecutive};
    if (a->nonblocking)
        return nb_select(a, h, user_op, env, out);
    const bool device = env->device_collectives == 1 ||
                        (env->device_collectives == 0 && !env->no_device[a->coll]);
    const int64_t avg = (int64_t)a->type_size * a->count;
    const bool p2 = !(a->size & (a->size - 1));
    int comp = 0, line = 0; /* ch4 composition 1 alpha, 2 beta; 0 = MPIR on the comm */
    if (device) {
        switch (a->coll) { /* ch4/generic.json */
        case PCS_BCAST:
            if (!t->parent) line = 44;
            else if (a->size < 8) comp = 1, line = 12;
            else if (p2) {
                if (avg < 12288) comp = 1, line = 19;
                else if (avg < 524288) comp = 2, line = 23;
                else line = 27;
            } else if (avg < 12288) comp = 1, line = 34;
            else line = 38;
            break;
        case PCS_ALLREDUCE:
            if (t->parent && t->nnodes == 1) line = 54; /* gamma: SHM = NM here */
            else if (t->parent) {
                if (a->commutative) comp = 1, line = 64;
                else line = 69;
            } else line = 74;
            break;
        case PCS_REDUCE:
            if (t->parent && a->commutative) {
                if (avg <= 2048) comp = 2, line = 89;
                else comp = 1, line = 93;
            } else line = t->parent ? 98 : 103;
            break;
        case PCS_BARRIER:
            if (t->parent) comp = 1, line = 113;
            else line = 117;
            break;
        case PCS_SCAN:
            if (t->consecutive) comp = 1, line = 202;
            else line = 206;
            break;
        default: break; /* alpha = MPIR_<Coll>_impl on the comm */
        }
    }
    if (comp) {
        static const pcs_alg_t ids[PCS_NCOLLS][3] = {
            [PCS_BCAST] = {PCS_ALG_NONE, PCS_ALG_MPICH_BCAST_CH4_ALPHA, PCS_ALG_MPICH_BCAST_CH4_BETA},
            [PCS_ALLREDUCE] = {PCS_ALG_NONE, PCS_ALG_MPICH_ALLREDUCE_CH4_ALPHA, PCS_ALG_NONE},
            [PCS_REDUCE] = {PCS_ALG_NONE, PCS_ALG_MPICH_REDUCE_CH4_ALPHA, PCS_ALG_MPICH_REDUCE_CH4_BETA},
            [PCS_BARRIER] = {PCS_ALG_NONE, PCS_ALG_MPICH_BARRIER_CH4_ALPHA, PCS_ALG_NONE},
            [PCS_SCAN] = {PCS_ALG_NONE, PCS_ALG_MPICH_SCAN_CH4_ALPHA, PCS_ALG_NONE},
        };
        out->component = (pcs_component_t)PCS_COMP_MPICH_CH4;
        out->lib_alg = comp;
        out->alg = ids[a->coll][comp];
        out->rule_line = line;
        out->dsize = avg;
        return PCS_OK;
    }
    pcs_alg_t alg = pcs_mpich_mpir_select(a, h, user_op, env, out);
    if (alg == PCS_NALGS && out->lib_alg > 0) /* "nb" */
        return pcs_mpich_blocking_nb(a, h, user_op, env, out);
    return alg == PCS_NALGS ? PCS_E_UNSUPPORTED : PCS_OK;
}

pcs_err_t pcs_mpich40_select(const pcs_args_t *a, const pcs_mpich_comm_t *mc,
                             const pcs_mpich_env_t *env, pcs_choice_t *out)
{
    pcs_topo_t t;
    memset(out, 0, sizeof *out);
    if (a->size < 1 || a->rank < 0 || a->rank >= a->size)
        return PCS_E_ARG;
    pcs_err_t e = pcs_topo_init(&t, a, mc);
    if (e)
        return e;
    e = select_topo(a, &t, mc && mc->user_op, env ? env : &default_env, out);
    pcs_topo_free(&t);
    return e;
}

