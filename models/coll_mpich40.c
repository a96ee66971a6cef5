/* coll_mpich40.c: how MPICH 4.0.2 (ch4:ucx, no shared-memory collectives, as Debian 12 ships
 * it) chooses what runs inside a collective: the binding's early returns, the ch4 JSON rules
 * and compositions over node_comm / node_roots_comm, the MPIR JSON rules, and the
 * MPIR_CVAR_* forcing variables; for MPI_I<coll>, MPIR_I<coll>_sched_impl's variable and JSON
 * rules and the sched_smp / sched_naive compositions. Line numbers cite
 * maint/tuning/coll/{ch4,mpir}/generic.json v4.0.2 (copies in the notes; doc/collectives.md). */
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
typedef struct topo {
    int P, rank, nnodes;
    int *nidx;    /* node of each rank, numbered by first appearance */
    int *nsize;   /* ranks per node */
    int *leader;  /* lowest rank of each node: node_roots_comm rank k */
    int *members; /* my node's ranks in order: node_comm */
    int nlocal, lrank;
    bool parent;      /* has node_comm / node_roots_comm (hierarchy_kind PARENT) */
    bool consecutive; /* is_node_consecutive */
    int *mem;
} topo_t;

static void topo_free(topo_t *t) { free(t->mem); }

static pcs_err_t topo_init(topo_t *t, const pcs_args_t *a, const pcs_mpich_comm_t *mc)
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

/* rank r's rank in its own node's node_comm */
static int local_rank_of(const topo_t *t, int r)
{
    int l = 0;
    for (int q = 0; q < r; q++)
        l += t->nidx[q] == t->nidx[r];
    return l;
}
static bool has_node_comm(const topo_t *t) { return t->parent && t->nlocal > 1; }
static bool is_leader(const topo_t *t) { return t->parent && t->lrank == 0; }

/* ---- the MPIR layer: MPIR_<Coll>_impl on an intracommunicator ---- */
typedef struct hier {
    bool parent, consecutive;
} hier_t;

static int64_t tsum(const pcs_args_t *a, const int64_t *c)
{
    int64_t s = 0;
    for (int i = 0; i < a->size; i++)
        s += c[i];
    return s;
}

/* mpir/generic.json */
static pcs_alg_t mpir_json(const pcs_args_t *a, hier_t h, bool user_op, int *line,
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
        int64_t tot = (int64_t)a->type_size * (v ? tsum(a, a->counts) : a->count * P);
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
        int64_t tot = (int64_t)a->type_size * tsum(a, a->counts);
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
static bool restrictions_ok(const pcs_args_t *a, pcs_alg_t alg, hier_t h, bool user_op)
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
static pcs_alg_t mpir_select(const pcs_args_t *a, hier_t h, bool user_op,
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
static pcs_alg_t nb_json(const pcs_args_t *a, hier_t h, bool user_op, int *line,
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
        int64_t tot = (int64_t)a->type_size * (v ? tsum(a, a->counts) : a->count * P);
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
        int64_t tot = (int64_t)a->type_size * tsum(a, a->counts);
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
static pcs_alg_t nb_sched_auto(const pcs_args_t *a, hier_t h, bool user_op)
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
        int64_t tot = (int64_t)a->type_size * (v ? tsum(a, a->counts) : a->count * P);
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
        int64_t tot = (int64_t)a->type_size * (blk ? a->count * P : tsum(a, a->counts));
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
static bool nb_restrictions_ok(const pcs_args_t *a, pcs_alg_t alg, hier_t h, bool user_op)
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
static pcs_err_t nb_select(const pcs_args_t *a, hier_t h, bool user_op,
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
static pcs_err_t blocking_nb(const pcs_args_t *a, hier_t h, bool user_op,
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

static pcs_err_t select_topo(const pcs_args_t *a, const topo_t *t, bool user_op,
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
    const hier_t h = {t->parent, t->consecutive};
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
    pcs_alg_t alg = mpir_select(a, h, user_op, env, out);
    if (alg == PCS_NALGS && out->lib_alg > 0) /* "nb" */
        return blocking_nb(a, h, user_op, env, out);
    return alg == PCS_NALGS ? PCS_E_UNSUPPORTED : PCS_OK;
}

pcs_err_t pcs_mpich40_select(const pcs_args_t *a, const pcs_mpich_comm_t *mc,
                             const pcs_mpich_env_t *env, pcs_choice_t *out)
{
    topo_t t;
    memset(out, 0, sizeof *out);
    if (a->size < 1 || a->rank < 0 || a->rank >= a->size)
        return PCS_E_ARG;
    pcs_err_t e = topo_init(&t, a, mc);
    if (e)
        return e;
    e = select_topo(a, &t, mc && mc->user_op, env ? env : &default_env, out);
    topo_free(&t);
    return e;
}

/* ---- generation ---- */

typedef struct gen {
    pcs_ctx_t c;
    const pcs_args_t *a;
    const topo_t *t;
    bool user_op;
    const pcs_mpich_env_t *env;
    int throttle;
    bool nb;       /* a sched_smp composition: sub-steps by MPIR_I<coll>_intra_sched_auto */
    uint32_t step; /* next free step */
} gen_t;

static int throttle_of(const pcs_mpich_env_t *env)
{
    return env->alltoall_throttle;
}

/* MPIR_<Coll>_impl on a communicator that is not PARENT (node_comm, node_roots_comm, ...) */
static pcs_alg_t sub_alg(gen_t *g, const pcs_args_t *sa)
{
    pcs_choice_t ch;
    hier_t h = {false, false};
    if (g->nb)
        return nb_sched_auto(sa, h, g->user_op);
    pcs_alg_t alg = mpir_select(sa, h, g->user_op, g->env, &ch);
    if (alg == PCS_NALGS && ch.lib_alg > 0 && blocking_nb(sa, h, g->user_op, g->env, &ch) == PCS_OK)
        alg = ch.alg; /* a forced "nb" on the sub-communicator */
    return alg;
}

enum { ON_NODE = 1, ON_ROOTS = 2 };

/* sub-call args for node k's node_comm (ON_NODE) or node_roots_comm */
static pcs_args_t sub_args(const gen_t *g, int on, int k, pcs_coll_t coll, int root,
                           int64_t count, uint64_t ts, bool in_place)
{
    pcs_args_t sa = *g->a;
    sa.coll = coll;
    sa.size = on == ON_NODE ? g->t->nsize[k] : g->t->nnodes;
    sa.rank = 0;
    sa.root = root;
    sa.count = count;
    sa.type_size = ts;
    sa.in_place = in_place;
    return sa;
}

/* steps a phase spans: the most any node's sub-call takes */
static int64_t phase_steps(gen_t *g, int on, pcs_coll_t coll, int root_of_node_mode,
                           int64_t count, uint64_t ts, int only_node)
{
    int64_t m = 0;
    if (on == ON_ROOTS) {
        if (g->t->nnodes < 2)
            return 0;
        pcs_args_t sa = sub_args(g, ON_ROOTS, 0, coll, root_of_node_mode, count, ts, false);
        return pcs_mpich_steps(&sa, sub_alg(g, &sa), g->throttle);
    }
    for (int k = 0; k < g->t->nnodes; k++) {
        if (g->t->nsize[k] < 2 || (only_node >= 0 && k != only_node))
            continue;
        int root = root_of_node_mode;
        pcs_args_t sa = sub_args(g, ON_NODE, k, coll, root, count, ts, false);
        int64_t s = pcs_mpich_steps(&sa, sub_alg(g, &sa), g->throttle);
        m = s > m ? s : m;
    }
    return m;
}

/* run a sub-call with this rank's buffers: sb/so as its send buffer, rb/ro as its receive */
static pcs_err_t run_sub(gen_t *g, int on, pcs_args_t *sa, int sb, uint64_t so, int rb,
                         uint64_t ro)
{
    const topo_t *t = g->t;
    pcs_mv_t v;
    memset(&v, 0, sizeof v);
    v.c = &g->c;
    if (on == ON_NODE) {
        v.rank = t->lrank;
        v.size = t->nlocal;
        v.peer = t->members;
    } else {
        v.rank = t->nidx[t->rank];
        v.size = t->nnodes;
        v.peer = t->leader;
    }
    sa->rank = v.rank;
    sa->size = v.size;
    for (int b = 0; b < PCS_NBUFS; b++)
        v.map[b] = (uint8_t)b;
    v.map[S] = (uint8_t)sb;
    v.off[S] = so;
    v.map[R] = (uint8_t)rb;
    v.off[R] = ro;
    v.step0 = g->step;
    int64_t n;
    return pcs_mpich_run(&v, sa, sub_alg(g, sa), g->throttle, &n);
}

static void p2p(gen_t *g, bool send, int peer, int buf, uint64_t off, uint64_t len, int tag)
{
    pcs_at(&g->c, g->step);
    g->c.tag = g->nb ? MT_NBC : tag;
    if (send)
        pcs_send(&g->c, peer, buf, off, len);
    else
        pcs_recv(&g->c, peer, buf, off, len);
}

/* Bcast: ch4 alpha (and smp's short branch), beta (and smp's medium branch) */
static pcs_err_t bcast_nodeaware(gen_t *g, bool beta, bool smp)
{
    const pcs_args_t *a = g->a;
    const topo_t *t = g->t;
    const int root = a->root, rn = t->nidx[root], rl = local_rank_of(t, root);
    const bool my_node = t->nidx[t->rank] == rn;
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    if (!beta) {
        /* the root, if not its node's leader, sends the whole message to it (also 0 bytes
         * in alpha; smp returned early on 0 bytes) */
        if (rl > 0) {
            if (my_node && t->rank == root)
                p2p(g, true, t->members[0], R, 0, (uint64_t)a->count * a->type_size, MT_BCAST);
            else if (my_node && t->lrank == 0)
                p2p(g, false, root, R, 0, (uint64_t)a->count * a->type_size, MT_BCAST);
            g->step++;
        }
    } else if (rl > 0) {
        if (my_node) {
            sa = sub_args(g, ON_NODE, rn, PCS_BCAST, rl, a->count, a->type_size, false);
            e = run_sub(g, ON_NODE, &sa, R, 0, R, 0);
        }
        g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_BCAST, rl, a->count, a->type_size, rn);
    }
    if (e)
        return e;
    if (is_leader(t)) {
        sa = sub_args(g, ON_ROOTS, 0, PCS_BCAST, rn, a->count, a->type_size, false);
        e = run_sub(g, ON_ROOTS, &sa, R, 0, R, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_ROOTS, PCS_BCAST, rn, a->count, a->type_size, -1);
    if (e)
        return e;
    /* alpha: every node from its leader; beta: the nodes the root's bcast did not cover */
    int64_t m = 0;
    for (int k = 0; k < t->nnodes; k++)
        if (!(beta && rl > 0 && k == rn)) {
            int64_t s = phase_steps(g, ON_NODE, PCS_BCAST, 0, a->count, a->type_size, k);
            m = s > m ? s : m;
        }
    if (has_node_comm(t) && !(beta && rl > 0 && my_node)) {
        sa = sub_args(g, ON_NODE, 0, PCS_BCAST, 0, a->count, a->type_size, false);
        e = run_sub(g, ON_NODE, &sa, R, 0, R, 0);
    }
    g->step += (uint32_t)m;
    (void)smp;
    return e;
}

/* Allreduce ch4 alpha = MPIR smp: reduce to each leader, allreduce among leaders, bcast */
static pcs_err_t allreduce_nodeaware(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const topo_t *t = g->t;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    if (has_node_comm(t)) {
        if (a->in_place && t->lrank != 0) {
            sa = sub_args(g, ON_NODE, 0, PCS_REDUCE, 0, a->count, a->type_size, false);
            e = run_sub(g, ON_NODE, &sa, R, 0, T3, 0); /* sendbuf = recvbuf, recvbuf unused */
        } else {
            sa = sub_args(g, ON_NODE, 0, PCS_REDUCE, 0, a->count, a->type_size, a->in_place);
            e = run_sub(g, ON_NODE, &sa, S, 0, R, 0);
        }
    } else if (!a->in_place) {
        pcs_copy(&g->c, S, 0, R, 0, n);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_REDUCE, 0, a->count, a->type_size, -1);
    if (e)
        return e;
    if (is_leader(t)) {
        sa = sub_args(g, ON_ROOTS, 0, PCS_ALLREDUCE, 0, a->count, a->type_size, true);
        e = run_sub(g, ON_ROOTS, &sa, R, 0, R, 0);
    }
    {
        pcs_args_t s2 = sub_args(g, ON_ROOTS, 0, PCS_ALLREDUCE, 0, a->count, a->type_size, true);
        if (t->nnodes > 1)
            g->step += (uint32_t)pcs_mpich_steps(&s2, sub_alg(g, &s2), g->throttle);
    }
    if (e)
        return e;
    if (has_node_comm(t)) {
        sa = sub_args(g, ON_NODE, 0, PCS_BCAST, 0, a->count, a->type_size, false);
        e = run_sub(g, ON_NODE, &sa, R, 0, R, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_BCAST, 0, a->count, a->type_size, -1);
    return e;
}

/* Reduce ch4 alpha: to leaders, to comm rank 0, then 0 -> root on the comm */
static pcs_err_t reduce_alpha(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const topo_t *t = g->t;
    const int root = a->root;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    /* leaders other than the root reduce into a scratch buffer (T3) */
    const int rb = is_leader(t) && t->rank != root ? T3 : R;
    if (rb == T3)
        pcs_need_tmp(&g->c, T3, n);
    int ib; /* what the leaders' internode reduce sends */
    if (has_node_comm(t)) {
        /* a non-leader root with MPI_IN_PLACE passes MPI_IN_PLACE as a non-root here (an
         * MPICH bug); we model the data it meant: its receive buffer */
        bool ip = a->in_place && t->lrank == 0;
        sa = sub_args(g, ON_NODE, 0, PCS_REDUCE, 0, a->count, a->type_size, ip);
        e = run_sub(g, ON_NODE, &sa, a->in_place ? R : S, 0, rb, 0);
        ib = rb;
    } else {
        ib = a->in_place ? R : S;
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_REDUCE, 0, a->count, a->type_size, -1);
    if (e)
        return e;
    if (is_leader(t)) {
        bool zero = t->nidx[t->rank] == 0;
        sa = sub_args(g, ON_ROOTS, 0, PCS_REDUCE, 0, a->count, a->type_size, zero);
        if (zero && ib != rb)
            pcs_copy(&g->c, ib, 0, rb, 0, n); /* MPI_IN_PLACE on recvbuf: data is there */
        e = run_sub(g, ON_ROOTS, &sa, ib, 0, rb, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_ROOTS, PCS_REDUCE, 0, a->count, a->type_size, -1);
    if (e)
        return e;
    if (root != 0) {
        if (t->rank == 0)
            p2p(g, true, root, rb, 0, n, MT_REDUCE);
        else if (t->rank == root)
            p2p(g, false, 0, R, 0, n, MT_REDUCE);
        g->step++;
    }
    return PCS_OK;
}

/* Reduce ch4 beta = MPIR smp: other nodes to their leaders, leaders to the root's leader,
 * then the root's node to the root */
static pcs_err_t reduce_beta(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const topo_t *t = g->t;
    const int root = a->root, rn = t->nidx[root], rl = local_rank_of(t, root);
    const bool my_node = t->nidx[t->rank] == rn;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    int sb = a->in_place && t->rank == root ? R : S;
    bool sb_inplace = a->in_place && t->rank == root;
    if (is_leader(t))
        pcs_need_tmp(&g->c, T3, n);
    int64_t m = 0;
    for (int k = 0; k < t->nnodes; k++)
        if (k != rn) {
            int64_t s = phase_steps(g, ON_NODE, PCS_REDUCE, 0, a->count, a->type_size, k);
            m = s > m ? s : m;
        }
    if (has_node_comm(t) && !my_node) {
        sa = sub_args(g, ON_NODE, 0, PCS_REDUCE, 0, a->count, a->type_size, false);
        e = run_sub(g, ON_NODE, &sa, S, 0, T3, 0);
    }
    g->step += (uint32_t)m;
    if (e)
        return e;
    if (is_leader(t)) {
        if (!my_node) {
            sa = sub_args(g, ON_ROOTS, 0, PCS_REDUCE, rn, a->count, a->type_size, false);
            e = run_sub(g, ON_ROOTS, &sa, has_node_comm(t) ? T3 : S, 0, T3, 0);
        } else if (t->rank != root) {
            sa = sub_args(g, ON_ROOTS, 0, PCS_REDUCE, rn, a->count, a->type_size, false);
            e = run_sub(g, ON_ROOTS, &sa, S, 0, T3, 0);
            sb = T3;
        } else {
            sa = sub_args(g, ON_ROOTS, 0, PCS_REDUCE, rn, a->count, a->type_size, sb_inplace);
            e = run_sub(g, ON_ROOTS, &sa, sb, 0, R, 0);
            sb_inplace = true;
            sb = R;
        }
    }
    g->step += (uint32_t)phase_steps(g, ON_ROOTS, PCS_REDUCE, rn, a->count, a->type_size, -1);
    if (e)
        return e;
    if (has_node_comm(t) && my_node) {
        sa = sub_args(g, ON_NODE, 0, PCS_REDUCE, rl, a->count, a->type_size,
                      t->rank == root && sb_inplace);
        e = run_sub(g, ON_NODE, &sa, sb, 0, R, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_REDUCE, rl, a->count, a->type_size, rn);
    return e;
}

/* Barrier ch4 alpha = MPIR smp */
static pcs_err_t barrier_nodeaware(gen_t *g)
{
    const topo_t *t = g->t;
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    if (has_node_comm(t)) {
        sa = sub_args(g, ON_NODE, 0, PCS_BARRIER, 0, 0, 0, false);
        e = run_sub(g, ON_NODE, &sa, S, 0, R, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_BARRIER, 0, 0, 0, -1);
    if (e)
        return e;
    if (is_leader(t)) {
        sa = sub_args(g, ON_ROOTS, 0, PCS_BARRIER, 0, 0, 0, false);
        e = run_sub(g, ON_ROOTS, &sa, S, 0, R, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_ROOTS, PCS_BARRIER, 0, 0, 0, -1);
    if (e)
        return e;
    /* release with a 1-byte bcast (a 0-byte one would return at once) */
    if (has_node_comm(t)) {
        pcs_need_tmp(&g->c, T3, 1);
        sa = sub_args(g, ON_NODE, 0, PCS_BCAST, 0, 1, 1, false);
        e = run_sub(g, ON_NODE, &sa, T3, 0, T3, 0);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_BCAST, 0, 1, 1, -1);
    return e;
}

/* Scan ch4 alpha = MPIR smp (node-consecutive). T3: tempbuf | prefulldata | localfulldata |
 * noneed */
static pcs_err_t scan_nodeaware(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const topo_t *t = g->t;
    const uint64_t n = (uint64_t)a->count * a->type_size;
    const int me = t->nidx[t->rank];
    pcs_err_t e = PCS_OK;
    pcs_args_t sa;
    pcs_need_tmp(&g->c, T3, 3 * n + 4);
    if (has_node_comm(t)) {
        sa = sub_args(g, ON_NODE, 0, PCS_SCAN, 0, a->count, a->type_size, a->in_place);
        e = run_sub(g, ON_NODE, &sa, S, 0, R, 0);
    } else if (!a->in_place) {
        pcs_copy(&g->c, S, 0, R, 0, n);
    }
    g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_SCAN, 0, a->count, a->type_size, -1);
    if (e)
        return e;
    uint64_t lfd = 2 * n;
    int lfb = T3;
    bool any_node_comm = false;
    for (int k = 0; k < t->nnodes; k++)
        any_node_comm = any_node_comm || t->nsize[k] > 1;
    if (is_leader(t) && has_node_comm(t))
        p2p(g, false, t->members[t->nlocal - 1], T3, lfd, n, MT_SCAN);
    else if (!is_leader(t) && t->lrank == t->nlocal - 1)
        p2p(g, true, t->members[0], R, 0, n, MT_SCAN);
    else if (is_leader(t)) {
        lfb = R;
        lfd = 0;
    }
    if (any_node_comm)
        g->step++;
    if (is_leader(t)) {
        sa = sub_args(g, ON_ROOTS, 0, PCS_SCAN, 0, a->count, a->type_size, false);
        e = run_sub(g, ON_ROOTS, &sa, lfb, lfd, T3, n);
    }
    g->step += (uint32_t)phase_steps(g, ON_ROOTS, PCS_SCAN, 0, a->count, a->type_size, -1);
    if (e)
        return e;
    if (t->nnodes > 1) {
        if (is_leader(t)) {
            if (me != t->nnodes - 1)
                p2p(g, true, t->leader[me + 1], T3, n, n, MT_SCAN);
            if (me != 0)
                p2p(g, false, t->leader[me - 1], T3, 0, n, MT_SCAN);
        }
        g->step++;
    }
    /* noneed (one MPI_INT) from the leader (blocking smp only), then tempbuf if the node is
     * not the first */
    if (has_node_comm(t) && !g->nb) {
        sa = sub_args(g, ON_NODE, 0, PCS_BCAST, 0, 1, 4, false);
        e = run_sub(g, ON_NODE, &sa, T3, 3 * n, T3, 3 * n);
    }
    if (!g->nb)
        g->step += (uint32_t)phase_steps(g, ON_NODE, PCS_BCAST, 0, 1, 4, -1);
    if (e)
        return e;
    if (me != 0) {
        if (has_node_comm(t)) {
            sa = sub_args(g, ON_NODE, 0, PCS_BCAST, 0, a->count, a->type_size, false);
            e = run_sub(g, ON_NODE, &sa, T3, 0, T3, 0);
        }
        pcs_reduce(&g->c, T3, 0, R, 0, n);
    }
    int64_t m = 0; /* only nodes after the first broadcast tempbuf */
    for (int k = 1; k < t->nnodes; k++) {
        int64_t s = phase_steps(g, ON_NODE, PCS_BCAST, 0, a->count, a->type_size, k);
        m = s > m ? s : m;
    }
    g->step += (uint32_t)m;
    return e;
}

/* Bcast smp (MPIR, PARENT): short -> like alpha, medium & pow2 -> like beta, else ring */
static pcs_err_t bcast_smp(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const uint64_t nb = (uint64_t)a->count * a->type_size;
    if (nb == 0)
        return PCS_OK;
    if (nb < 12288 || a->size < 8) /* BCAST_SHORT_MSG_SIZE, BCAST_MIN_PROCS */
        return bcast_nodeaware(g, false, true);
    if (nb < 524288 && !(a->size & (a->size - 1))) /* BCAST_LONG_MSG_SIZE */
        return bcast_nodeaware(g, true, true);
    pcs_mv_t v;
    memset(&v, 0, sizeof v);
    v.c = &g->c;
    v.rank = a->rank;
    v.size = a->size;
    for (int b = 0; b < PCS_NBUFS; b++)
        v.map[b] = (uint8_t)b;
    v.step0 = g->step;
    int64_t ns;
    pcs_err_t e = pcs_mpich_run(&v, a, PCS_ALG_MPICH_BCAST_SCATTER_RING_ALLGATHER, g->throttle, &ns);
    g->step += (uint32_t)ns;
    return e;
}

/* what the binding does itself when it returns early: the local copy */
static void early_copy(gen_t *g)
{
    const pcs_args_t *a = g->a;
    if (a->size != 1 || a->in_place)
        return;
    switch (a->coll) {
    case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_REDUCE_SCATTER_BLOCK:
        pcs_copy(&g->c, S, 0, R, 0, (uint64_t)a->count * a->type_size);
        break;
    case PCS_ALLGATHERV:
        pcs_copy(&g->c, S, 0, R, a->displs ? (uint64_t)a->displs[0] * a->type_size : 0,
                 (uint64_t)a->counts[0] * a->type_size);
        break;
    case PCS_REDUCE_SCATTER:
        pcs_copy(&g->c, S, 0, R, 0, (uint64_t)a->counts[0] * a->type_size);
        break;
    default: break;
    }
}

static pcs_err_t generate_topo(gen_t *g, const pcs_choice_t *ch);

/* Iallreduce sched_naive: Ireduce to 0 then Ibcast from 0, each as MPIR_I<coll>_intra_
 * sched_auto picks on this communicator (the smp compositions on a PARENT one) */
static pcs_err_t iallreduce_naive(gen_t *g)
{
    const pcs_args_t *a = g->a;
    const hier_t h = {g->t->parent, g->t->consecutive};
    pcs_args_t sa = *a;
    sa.coll = PCS_REDUCE;
    sa.root = 0;
    const uint8_t ms = g->c.map[S];
    if (a->in_place && a->rank != 0) { /* sendbuf = recvbuf, recvbuf unused */
        sa.in_place = false;
        g->c.map[S] = g->c.map[R];
    }
    pcs_choice_t ch = {.alg = nb_sched_auto(&sa, h, g->user_op)};
    g->a = &sa;
    pcs_err_t e = generate_topo(g, &ch);
    g->c.map[S] = ms;
    g->nb = false;
    if (!e) {
        pcs_args_t sb = *a;
        sb.coll = PCS_BCAST;
        sb.root = 0;
        sb.in_place = false;
        ch.alg = nb_sched_auto(&sb, h, g->user_op);
        g->a = &sb;
        e = generate_topo(g, &ch);
    }
    g->a = a;
    return e;
}

static pcs_err_t generate_topo(gen_t *g, const pcs_choice_t *ch)
{
    const pcs_args_t *a = g->a;
    switch (ch->alg) {
    case PCS_ALG_NONE:
        if (ch->component == PCS_COMP_NONE)
            early_copy(g);
        return g->c.s->err;
    case PCS_ALG_MPICH_BCAST_CH4_ALPHA: return bcast_nodeaware(g, false, false);
    case PCS_ALG_MPICH_BCAST_CH4_BETA: return bcast_nodeaware(g, true, false);
    case PCS_ALG_MPICH_BCAST_SMP: return bcast_smp(g);
    case PCS_ALG_MPICH_ALLREDUCE_CH4_ALPHA: case PCS_ALG_MPICH_ALLREDUCE_SMP:
        return allreduce_nodeaware(g);
    case PCS_ALG_MPICH_REDUCE_CH4_ALPHA: return reduce_alpha(g);
    case PCS_ALG_MPICH_REDUCE_CH4_BETA: case PCS_ALG_MPICH_REDUCE_SMP: return reduce_beta(g);
    case PCS_ALG_MPICH_BARRIER_CH4_ALPHA: case PCS_ALG_MPICH_BARRIER_SMP:
        return barrier_nodeaware(g);
    case PCS_ALG_MPICH_SCAN_CH4_ALPHA: case PCS_ALG_MPICH_SCAN_SMP: return scan_nodeaware(g);
    /* the sched_smp compositions: Ibcast's is alpha's shape at every size, Ireduce's and
     * Iscan's those of the blocking smp (Iscan's without the "noneed" broadcast) */
    case PCS_ALG_MPICH_IBCAST_SMP: g->nb = true; return bcast_nodeaware(g, false, false);
    case PCS_ALG_MPICH_IALLREDUCE_SMP: g->nb = true; return allreduce_nodeaware(g);
    case PCS_ALG_MPICH_IALLREDUCE_NAIVE: return iallreduce_naive(g);
    case PCS_ALG_MPICH_IREDUCE_SMP: g->nb = true; return reduce_beta(g);
    case PCS_ALG_MPICH_ISCAN_SMP:
        if (g->t->consecutive) {
            g->nb = true;
            return scan_nodeaware(g);
        }
        ch = &(pcs_choice_t){.alg = PCS_ALG_MPICH_ISCAN_RD}; /* its own fallback */
        g->c.s->alg = ch->alg;
        /* fall through */
    default: {
        if (pcs_alg_coll(ch->alg) != a->coll)
            return g->c.s->err = PCS_E_ARG;
        pcs_mv_t v;
        memset(&v, 0, sizeof v);
        v.c = &g->c;
        v.rank = a->rank;
        v.size = a->size;
        for (int b = 0; b < PCS_NBUFS; b++)
            v.map[b] = (uint8_t)b;
        v.step0 = g->step;
        int64_t ns;
        pcs_err_t e = pcs_mpich_run(&v, a, ch->alg, g->throttle, &ns);
        g->step += (uint32_t)ns;
        return e;
    }
    }
}

pcs_err_t pcs_mpich40_generate(const pcs_args_t *a, const pcs_mpich_comm_t *mc,
                               const pcs_mpich_env_t *env, const pcs_choice_t *ch,
                               pcs_sched_t *s)
{
    if (a->size < 1 || a->rank < 0 || a->rank >= a->size)
        return s->err = PCS_E_ARG;
    topo_t t;
    pcs_err_t e = topo_init(&t, a, mc);
    if (e)
        return s->err = e;
    gen_t g;
    memset(&g, 0, sizeof g);
    pcs_ctx_init(&g.c, a, s, 0);
    g.a = a;
    g.t = &t;
    g.user_op = mc && mc->user_op;
    g.env = env ? env : &default_env;
    g.throttle = throttle_of(g.env);
    g.step = s->nsteps;
    s->alg = ch->alg;
    e = generate_topo(&g, ch);
    if (e && !s->err)
        s->err = e;
    topo_free(&t);
    return s->err;
}

pcs_err_t pcs_mpich40_schedule(const pcs_args_t *a, const pcs_mpich_comm_t *mc,
                               const pcs_mpich_env_t *env, pcs_sched_t *s)
{
    pcs_choice_t ch;
    pcs_err_t e = pcs_mpich40_select(a, mc, env, &ch);
    if (e)
        return s->err = e;
    return pcs_mpich40_generate(a, mc, env, &ch, s);
}
