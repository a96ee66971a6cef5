/* test_coll_mpich.c: every MPICH 4.0 schedule (MPIR algorithms, forced or chosen, and the ch4
 * node-aware compositions), executed by all P ranks at once in this process with real data,
 * must compute the collective's result; plus selection cases read off the 4.0.2 JSON files. The executor
 * (sched_exec.c) runs with self_ok: MPICH sends to itself (scattered alltoall,
 * sendrecv_replace with i == j). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_sched.h"
#include "sched_exec.h"

typedef struct run {
    pcs_coll_t coll;
    int P, root, inplace;
    const char *forced; /* MPIR_CVAR_<COLL>_INTRA_ALGORITHM value, NULL: auto */
    const int *node;    /* node of each rank, NULL: one node */
    int64_t count;
    op_fn *op;
    uint64_t ts;
    bool commutative;
    bool nb;            /* MPI_I<coll>: forced is MPIR_CVAR_I<COLL>_INTRA_ALGORITHM's value */
} run_t;

static int n_run, n_skip, n_fail;
static const char *const CVNAME[PCS_NCOLLS] = {
    [PCS_BCAST] = "BCAST", [PCS_REDUCE] = "REDUCE", [PCS_ALLREDUCE] = "ALLREDUCE",
    [PCS_ALLGATHER] = "ALLGATHER", [PCS_ALLGATHERV] = "ALLGATHERV", [PCS_ALLTOALL] = "ALLTOALL",
    [PCS_ALLTOALLV] = "ALLTOALLV", [PCS_BARRIER] = "BARRIER", [PCS_GATHER] = "GATHER",
    [PCS_SCATTER] = "SCATTER", [PCS_REDUCE_SCATTER] = "REDUCE_SCATTER",
    [PCS_REDUCE_SCATTER_BLOCK] = "REDUCE_SCATTER_BLOCK", [PCS_SCAN] = "SCAN",
    [PCS_EXSCAN] = "EXSCAN", [PCS_GATHERV] = "GATHERV", [PCS_SCATTERV] = "SCATTERV",
    [PCS_ALLTOALLW] = "ALLTOALLW"};

/* alltoallv: i sends f(i, j) elements to j; symmetric so that in place is legal */
static int64_t a2av(int64_t count, int i, int j) { return (count + i + j) % 4 == 1 ? 0 : count + (i + j) % 3; }

static void run_one(const run_t *rc)
{
    const int P = rc->P;
    const uint64_t ts = rc->ts;
    exec_t *x = calloc(1, sizeof *x);
    pcs_sched_t s[MAXP];
    memset(s, 0, sizeof s);
    x->P = P;
    x->self_ok = 1;
    x->s = s;
    x->op = rc->op;
    int64_t counts[MAXP] = {0}, displs[MAXP] = {0};
    int64_t rcnt[MAXP][MAXP], rdsp[MAXP][MAXP], scnt[MAXP][MAXP], sdsp[MAXP][MAXP];
    uint64_t blk = (uint64_t)rc->count * ts;
    for (int i = 0; i < P; i++)
        counts[i] = (rc->count + i) % 4 == 1 ? 0 : rc->count + i % 3;
    int64_t d = 0;
    for (int i = 0; i < P; i++) {
        displs[i] = d;
        d += counts[i] + 1; /* gaps */
    }
    if (rc->coll == PCS_REDUCE_SCATTER) { /* packed: MPI has no displacements there */
        d = 0;
        for (int i = 0; i < P; i++) {
            displs[i] = d;
            d += counts[i];
        }
    }
    uint64_t a2tot[MAXP], a2stot[MAXP];
    for (int r = 0; r < P; r++) {
        int64_t dr = 0, ds = 0;
        for (int j = 0; j < P; j++) {
            rcnt[r][j] = a2av(rc->count, j, r);
            rdsp[r][j] = dr;
            dr += rcnt[r][j] + (j % 2);
            scnt[r][j] = a2av(rc->count, r, j);
            sdsp[r][j] = ds;
            ds += scnt[r][j] + 1;
        }
        a2tot[r] = (uint64_t)dr * ts;
        a2stot[r] = (uint64_t)ds * ts;
    }
    pcs_mpich_env_t env;
    memset(&env, 0, sizeof env);
    if (rc->forced) {
        char name[80];
        snprintf(name, sizeof name, "MPIR_CVAR_%s%s_INTRA_ALGORITHM", rc->nb ? "I" : "",
                 CVNAME[rc->coll]);
        cr_assert_eq(pcs_mpich_env_set(&env, name, rc->forced), 1, "%s=%s", name, rc->forced);
        cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_DEVICE_COLLECTIVES", "none"), 1);
    }
    pcs_mpich_comm_t mc = {.node = rc->node, .user_op = !rc->commutative};
    bool rooted = rc->coll == PCS_BCAST || rc->coll == PCS_REDUCE || rc->coll == PCS_GATHER ||
                  rc->coll == PCS_SCATTER || rc->coll == PCS_GATHERV || rc->coll == PCS_SCATTERV;
    pcs_args_t a[MAXP];
    bool skip = false;
    for (int r = 0; r < P; r++) {
        a[r] = (pcs_args_t){.coll = rc->coll, .size = P, .rank = r, .root = rc->root,
                            .type_size = ts, .count = rc->count, .commutative = rc->commutative,
                            .nonblocking = rc->nb};
        a[r].in_place = rc->inplace && (!rooted || r == rc->root);
        a[r].counts = counts;
        a[r].displs = displs;
        a[r].own_count = counts[r];
        if (rc->coll == PCS_ALLTOALLV || rc->coll == PCS_ALLTOALLW) {
            a[r].counts = rcnt[r];
            a[r].displs = rdsp[r];
            a[r].scounts = scnt[r];
            a[r].sdispls = sdsp[r];
        }
        pcs_err_t e = pcs_mpich40_schedule(&a[r], &mc, &env, &s[r]);
        if (e == PCS_E_UNSUPPORTED) {
            skip = true;
            break;
        }
        cr_assert_eq(e, PCS_OK, "%s P=%d %s rank %d: %s", pcs_coll_name(rc->coll), P,
                     rc->forced ? rc->forced : "auto", r, pcs_strerror(e));
    }
    if (skip) {
        n_skip++;
        goto out;
    }
    uint64_t vtot = ((uint64_t)displs[P - 1] + (uint64_t)counts[P - 1]) * ts;
    uint64_t rstot = 0;
    for (int i = 0; i < P; i++)
        rstot += (uint64_t)counts[i] * ts;
    for (int r = 0; r < P; r++) {
        uint64_t sz[2] = {0, 0};
        switch (rc->coll) {
        case PCS_BCAST: sz[1] = blk; break;
        case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_SCAN: case PCS_EXSCAN:
            sz[0] = sz[1] = blk; break;
        case PCS_ALLGATHER: sz[0] = blk; sz[1] = blk * P; break;
        case PCS_ALLGATHERV: sz[0] = (uint64_t)counts[r] * ts; sz[1] = vtot; break;
        case PCS_ALLTOALL: sz[0] = sz[1] = blk * P; break;
        case PCS_ALLTOALLV: case PCS_ALLTOALLW: sz[0] = a2stot[r]; sz[1] = a2tot[r]; break;
        case PCS_GATHER: sz[0] = blk; sz[1] = r == rc->root ? blk * P : 0; break;
        case PCS_SCATTER: sz[0] = r == rc->root ? blk * P : 0; sz[1] = blk; break;
        case PCS_GATHERV: sz[0] = (uint64_t)counts[r] * ts; sz[1] = r == rc->root ? vtot : 0; break;
        case PCS_SCATTERV: sz[0] = r == rc->root ? vtot : 0; sz[1] = (uint64_t)counts[r] * ts; break;
        case PCS_REDUCE_SCATTER: sz[0] = rstot; sz[1] = rc->inplace ? rstot : (uint64_t)counts[r] * ts; break;
        case PCS_REDUCE_SCATTER_BLOCK: sz[0] = blk * P; sz[1] = rc->inplace ? blk * P : blk; break;
        default: break;
        }
        if (a[r].in_place) /* scatter(v): the receive buffer is MPI_IN_PLACE; else no send buffer */
            sz[rc->coll == PCS_SCATTER || rc->coll == PCS_SCATTERV ? 1 : 0] = 0;
        x->bsz[r][0] = sz[0];
        x->bsz[r][1] = sz[1];
        for (int b = 0; b < 3; b++)
            x->bsz[r][PCS_BUF_TMP + b] = s[r].tmp_bytes[b];
        for (int b = 0; b < PCS_NBUFS; b++) {
            x->buf[r][b] = calloc(1, x->bsz[r][b] + 1);
            fill(x->buf[r][b], x->bsz[r][b], r, b, rc->op, ts);
        }
    }
    uint8_t *in[MAXP];
    for (int r = 0; r < P; r++) {
        int b = a[r].in_place && rc->coll != PCS_SCATTER && rc->coll != PCS_SCATTERV ? 1 : 0;
        in[r] = malloc(x->bsz[r][b] + 1);
        memcpy(in[r], x->buf[r][b], x->bsz[r][b]);
    }
    uint8_t *r0 = malloc(x->bsz[rc->root][1] + 1);
    memcpy(r0, x->buf[rc->root][1], x->bsz[rc->root][1]);
    const char *why = execute(x);
    n_run++;
    char tagline[240];
    snprintf(tagline, sizeof tagline, "%s%s %s(%s) P=%d count=%lld root=%d inplace=%d ts=%llu nodes=%s",
             rc->nb ? "i" : "", pcs_coll_name(rc->coll), rc->forced ? rc->forced : "auto",
             pcs_alg_name(s[0].alg), P,
             (long long)rc->count, rc->root, rc->inplace, (unsigned long long)ts,
             rc->node ? "several" : "one");
    if (why) {
        n_fail++;
        cr_expect_fail("%s: %s", tagline, why);
        goto free_bufs;
    }
    uint8_t *exp = malloc(blk * P + vtot + rstot + 4096);
    for (int r = 0; r < P && !why; r++) {
        const uint8_t *got = x->buf[r][1];
        switch (rc->coll) {
        case PCS_BCAST:
            if (memcmp(got, r0, blk)) why = "bcast data";
            break;
        case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_SCAN: case PCS_EXSCAN: {
            if (rc->coll == PCS_REDUCE && r != rc->root) break;
            int last = rc->coll == PCS_SCAN ? r : rc->coll == PCS_EXSCAN ? r - 1 : P - 1;
            if (last < 0) break;
            memcpy(exp, in[last], blk);
            for (int k = last - 1; k >= 0; k--)
                rc->op(in[k], exp, blk);
            if (memcmp(got, exp, blk)) why = "reduction result";
            break;
        }
        case PCS_REDUCE_SCATTER: case PCS_REDUCE_SCATTER_BLOCK: {
            bool blkd = rc->coll == PCS_REDUCE_SCATTER_BLOCK;
            uint64_t off = blkd ? (uint64_t)r * blk : (uint64_t)displs[r] * ts;
            uint64_t len = blkd ? blk : (uint64_t)counts[r] * ts;
            memcpy(exp, in[P - 1] + off, len);
            for (int k = P - 2; k >= 0; k--)
                rc->op(in[k] + off, exp, len);
            if (memcmp(got, exp, len)) why = "reduce_scatter result";
            break;
        }
        case PCS_ALLGATHER:
            for (int k = 0; k < P; k++)
                memcpy(exp + k * blk, a[k].in_place ? in[k] + k * blk : in[k], blk);
            if (memcmp(got, exp, blk * P)) why = "allgather data";
            break;
        case PCS_ALLGATHERV:
            for (int k = 0; k < P; k++)
                if (memcmp(got + displs[k] * ts,
                           a[k].in_place ? in[k] + displs[k] * ts : in[k], counts[k] * ts))
                    why = "allgatherv data";
            break;
        case PCS_ALLTOALL:
            for (int k = 0; k < P; k++)
                memcpy(exp + k * blk, in[k] + r * blk, blk);
            if (memcmp(got, exp, blk * P)) why = "alltoall data";
            break;
        case PCS_ALLTOALLV: case PCS_ALLTOALLW:
            for (int k = 0; k < P; k++) {
                const uint8_t *src = a[k].in_place ? in[k] + rdsp[k][r] * ts : in[k] + sdsp[k][r] * ts;
                if (memcmp(got + rdsp[r][k] * ts, src, rcnt[r][k] * ts)) why = "alltoallv data";
            }
            break;
        case PCS_GATHER:
            if (r != rc->root) break;
            for (int k = 0; k < P; k++)
                memcpy(exp + k * blk, a[k].in_place ? in[k] + k * blk : in[k], blk);
            if (memcmp(got, exp, blk * P)) why = "gather data";
            break;
        case PCS_SCATTER:
            if (a[r].in_place) break;
            if (memcmp(got, in[rc->root] + r * blk, blk)) why = "scatter data";
            break;
        case PCS_GATHERV:
            if (r != rc->root) break;
            for (int k = 0; k < P; k++)
                if (!(k == r && a[r].in_place) &&
                    memcmp(got + displs[k] * ts, in[k], counts[k] * ts)) why = "gatherv data";
            break;
        case PCS_SCATTERV:
            if (a[r].in_place) break;
            if (memcmp(got, in[rc->root] + displs[r] * ts, counts[r] * ts)) why = "scatterv data";
            break;
        default: break;
        }
        if (why) {
            n_fail++;
            cr_expect_fail("%s: rank %d: %s", tagline, r, why);
        }
    }
    free(exp);
free_bufs:
    free(r0);
    for (int r = 0; r < P; r++) {
        free(in[r]);
        for (int b = 0; b < PCS_NBUFS; b++)
            free(x->buf[r][b]);
    }
    for (int m = 0; m < x->nmsgs; m++)
        free(x->msgs[m].data);
out:
    for (int r = 0; r < P; r++)
        pcs_sched_free(&s[r]);
    free(x);
}

static const int64_t COUNTS[] = {0, 1, 2, 3, 5, 8, 13, 64, 1700};
/* the values of each MPIR_CVAR_<COLL>_INTRA_ALGORITHM (cvars.txt); "nb" runs the
 * nonblocking path and waits */
static const char *const ALGS[PCS_NCOLLS][6] = {
    [PCS_BARRIER] = {"smp", "dissemination", "nb"},
    [PCS_BCAST] = {"binomial", "smp", "scatter_recursive_doubling_allgather", "scatter_ring_allgather", "nb"},
    [PCS_GATHER] = {"binomial", "nb"}, [PCS_SCATTER] = {"binomial", "nb"},
    [PCS_GATHERV] = {"linear", "nb"}, [PCS_SCATTERV] = {"linear", "nb"},
    [PCS_ALLGATHER] = {"brucks", "recursive_doubling", "ring", "nb"},
    [PCS_ALLGATHERV] = {"brucks", "recursive_doubling", "ring", "nb"},
    [PCS_ALLTOALL] = {"brucks", "pairwise", "pairwise_sendrecv_replace", "scattered", "nb"},
    [PCS_ALLTOALLV] = {"pairwise_sendrecv_replace", "scattered", "nb"},
    [PCS_ALLTOALLW] = {"pairwise_sendrecv_replace", "scattered", "nb"},
    [PCS_REDUCE] = {"binomial", "smp", "reduce_scatter_gather", "nb"},
    [PCS_ALLREDUCE] = {"smp", "recursive_doubling", "reduce_scatter_allgather", "nb"},
    [PCS_REDUCE_SCATTER] = {"noncommutative", "pairwise", "recursive_doubling", "recursive_halving", "nb"},
    [PCS_REDUCE_SCATTER_BLOCK] = {"noncommutative", "recursive_doubling", "pairwise", "recursive_halving", "nb"},
    [PCS_SCAN] = {"smp", "recursive_doubling", "nb"}, [PCS_EXSCAN] = {"recursive_doubling", "nb"},
};

/* node layouts for P ranks: consecutive pairs, round robin over 2 (not consecutive), one
 * rank per node, a big node then singles */
static int NODES[4][MAXP];
static void init_nodes(void)
{
    for (int r = 0; r < MAXP; r++) {
        NODES[0][r] = r / 2 * 7 + 100;
        NODES[1][r] = r % 2;
        NODES[2][r] = r;
        NODES[3][r] = r < 5 ? 0 : r;
    }
}

static bool alg_applies(pcs_coll_t c, const char *alg, int P, int64_t count, bool comm)
{
    if (!strncmp(alg, "sched_", 6))
        alg += 6;
    /* MPICH asserts rather than falls back: noncommutative needs a power of two and regular
     * blocks; commutative-only algorithms are refused by restriction (then fall back) */
    if (!strcmp(alg, "noncommutative") && c == PCS_REDUCE_SCATTER)
        return (P & (P - 1)) == 0 && (count + 1) % 4 != 1 && 0; /* our counts are irregular */
    if (!strcmp(alg, "noncommutative"))
        return (P & (P - 1)) == 0;
    (void)comm;
    return true;
}

/* the values of each MPIR_CVAR_I<COLL>_INTRA_ALGORITHM that run a sched algorithm */
static const char *const NBALGS[PCS_NCOLLS][6] = {
    [PCS_BARRIER] = {"sched_recursive_doubling"},
    [PCS_BCAST] = {"sched_binomial", "sched_smp",
                   "sched_scatter_recursive_doubling_allgather", "sched_scatter_ring_allgather"},
    [PCS_GATHER] = {"sched_binomial"}, [PCS_SCATTER] = {"sched_binomial"},
    [PCS_GATHERV] = {"sched_linear"}, [PCS_SCATTERV] = {"sched_linear"},
    [PCS_ALLGATHER] = {"sched_ring", "sched_brucks", "sched_recursive_doubling"},
    [PCS_ALLGATHERV] = {"sched_brucks", "sched_recursive_doubling", "sched_ring"},
    [PCS_ALLTOALL] = {"sched_brucks", "sched_inplace", "sched_pairwise",
                      "sched_permuted_sendrecv"},
    [PCS_ALLTOALLV] = {"sched_blocked", "sched_inplace"},
    [PCS_ALLTOALLW] = {"sched_blocked", "sched_inplace"},
    [PCS_REDUCE] = {"sched_smp", "sched_binomial", "sched_reduce_scatter_gather"},
    [PCS_ALLREDUCE] = {"sched_naive", "sched_smp", "sched_recursive_doubling",
                       "sched_reduce_scatter_allgather"},
    [PCS_REDUCE_SCATTER] = {"sched_noncommutative", "sched_recursive_doubling",
                            "sched_pairwise", "sched_recursive_halving"},
    [PCS_REDUCE_SCATTER_BLOCK] = {"sched_noncommutative", "sched_recursive_doubling",
                                  "sched_pairwise", "sched_recursive_halving"},
    [PCS_SCAN] = {"sched_smp", "sched_recursive_doubling"},
    [PCS_EXSCAN] = {"sched_recursive_doubling"},
};

static void sweep_any(pcs_coll_t c, bool nb)
{
    bool red = c == PCS_REDUCE || c == PCS_ALLREDUCE || c == PCS_SCAN || c == PCS_EXSCAN ||
               c == PCS_REDUCE_SCATTER || c == PCS_REDUCE_SCATTER_BLOCK;
    bool rooted = c == PCS_BCAST || c == PCS_REDUCE || c == PCS_GATHER || c == PCS_SCATTER ||
                  c == PCS_GATHERV || c == PCS_SCATTERV;
    bool has_inplace = c != PCS_BCAST && c != PCS_BARRIER && c != PCS_EXSCAN;
    init_nodes();
    n_run = n_skip = n_fail = 0;
    for (int ai = -1; ai < 6; ai++) {
        const char *alg = ai < 0 ? NULL : nb ? NBALGS[c][ai] : ALGS[c][ai];
        if (ai >= 0 && !alg)
            break;
        for (int P = 1; P <= MAXP; P++)
            for (int ni = -1; ni < (alg ? 0 : 4); ni++)
                for (size_t ci = 0; ci < sizeof COUNTS / sizeof COUNTS[0]; ci++)
                    for (int ri = 0; ri < (rooted ? 3 : 1); ri++)
                        for (int ip = 0; ip <= (has_inplace ? 1 : 0); ip++)
                            for (int oi = 0; oi < (red ? 2 : 1); oi++) {
                                if (COUNTS[ci] > 64 && (ri || (red && oi == 0) || P % 4 == 2))
                                    continue; /* the large count: enough to reach the big-message rules */
                                int root = ri == 0 ? 0 : ri == 1 ? P - 1 : P / 2;
                                run_t rc = {.coll = c, .P = P, .root = root, .inplace = ip,
                                            .forced = alg, .count = COUNTS[ci],
                                            .node = ni < 0 ? NULL : NODES[ni], .nb = nb};
                                rc.op = oi == 0 ? op_matmul : op_dsum;
                                rc.ts = oi == 0 ? 4 : 8;
                                rc.commutative = oi == 1;
                                if (!red) {
                                    rc.ts = c == PCS_ALLTOALLW ? 1 : 3; /* w: byte counts */
                                    rc.op = op_dsum;
                                }
                                if (alg && !alg_applies(c, alg, P, rc.count, rc.commutative))
                                    continue;
                                run_one(&rc);
                            }
    }
    printf("mpich %s%-22s %6d executed, %5d failed, %5d skipped (not in catalogue)\n",
           nb ? "i" : "", pcs_coll_name(c), n_run, n_fail, n_skip);
    fflush(stdout);
    cr_expect_eq(n_fail, 0);
}
static void sweep(pcs_coll_t c) { sweep_any(c, false); }
/* the nonblocking ones: every sched algorithm must be in the catalogue */
static void sweep_nb(pcs_coll_t c)
{
    sweep_any(c, true);
    cr_expect_eq(n_skip, 0, "i%s: %d runs not in the catalogue", pcs_coll_name(c), n_skip);
}

Test(coll_mpich, bcast) { sweep(PCS_BCAST); }
Test(coll_mpich, reduce) { sweep(PCS_REDUCE); }
Test(coll_mpich, allreduce) { sweep(PCS_ALLREDUCE); }
Test(coll_mpich, allgather) { sweep(PCS_ALLGATHER); }
Test(coll_mpich, allgatherv) { sweep(PCS_ALLGATHERV); }
Test(coll_mpich, alltoall) { sweep(PCS_ALLTOALL); }
Test(coll_mpich, alltoallv) { sweep(PCS_ALLTOALLV); }
Test(coll_mpich, barrier) { sweep(PCS_BARRIER); }
Test(coll_mpich, gather) { sweep(PCS_GATHER); }
Test(coll_mpich, scatter) { sweep(PCS_SCATTER); }
Test(coll_mpich, reduce_scatter) { sweep(PCS_REDUCE_SCATTER); }
Test(coll_mpich, reduce_scatter_block) { sweep(PCS_REDUCE_SCATTER_BLOCK); }
Test(coll_mpich, scan) { sweep(PCS_SCAN); }
Test(coll_mpich, exscan) { sweep(PCS_EXSCAN); }
Test(coll_mpich, gatherv) { sweep(PCS_GATHERV); }
Test(coll_mpich, scatterv) { sweep(PCS_SCATTERV); }
Test(coll_mpich, alltoallw) { sweep(PCS_ALLTOALLW); }
Test(coll_mpich, ibcast) { sweep_nb(PCS_BCAST); }
Test(coll_mpich, ireduce) { sweep_nb(PCS_REDUCE); }
Test(coll_mpich, iallreduce) { sweep_nb(PCS_ALLREDUCE); }
Test(coll_mpich, iallgather) { sweep_nb(PCS_ALLGATHER); }
Test(coll_mpich, iallgatherv) { sweep_nb(PCS_ALLGATHERV); }
Test(coll_mpich, ialltoall) { sweep_nb(PCS_ALLTOALL); }
Test(coll_mpich, ialltoallv) { sweep_nb(PCS_ALLTOALLV); }
Test(coll_mpich, ialltoallw) { sweep_nb(PCS_ALLTOALLW); }
Test(coll_mpich, ibarrier) { sweep_nb(PCS_BARRIER); }
Test(coll_mpich, igather) { sweep_nb(PCS_GATHER); }
Test(coll_mpich, iscatter) { sweep_nb(PCS_SCATTER); }
Test(coll_mpich, ireduce_scatter) { sweep_nb(PCS_REDUCE_SCATTER); }
Test(coll_mpich, ireduce_scatter_block) { sweep_nb(PCS_REDUCE_SCATTER_BLOCK); }
Test(coll_mpich, iscan) { sweep_nb(PCS_SCAN); }
Test(coll_mpich, iexscan) { sweep_nb(PCS_EXSCAN); }
Test(coll_mpich, igatherv) { sweep_nb(PCS_GATHERV); }
Test(coll_mpich, iscatterv) { sweep_nb(PCS_SCATTERV); }

/* Selection against the leaves of maint/tuning/coll/{ch4,mpir}/generic.json v4.0.2 (line
 * numbers of the copies in the notes) and the binding's early returns. */
static pcs_choice_t sel(pcs_coll_t c, int P, int64_t count, uint64_t ts, bool comm,
                        const int *node, const pcs_mpich_env_t *env)
{
    pcs_args_t a = {.coll = c, .size = P, .rank = 0, .root = 0, .type_size = ts,
                    .count = count, .commutative = comm};
    pcs_mpich_comm_t mc = {.node = node, .user_op = !comm};
    pcs_choice_t ch;
    cr_assert_eq(pcs_mpich40_select(&a, &mc, env, &ch), PCS_OK);
    return ch;
}

Test(coll_mpich, selection)
{
    static const int flat[8] = {0, 1, 2, 3, 4, 5, 6, 7}, two[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    static const struct { pcs_coll_t c; int P; int64_t bytes; bool comm; const int *node;
                          int comp; pcs_alg_t alg; int line; } t[] = {
        /* one node, PARENT: ch4 first */
        {PCS_BCAST, 4, 4, true, NULL, PCS_COMP_MPICH_CH4, PCS_ALG_MPICH_BCAST_CH4_ALPHA, 12},
        {PCS_BCAST, 8, 20001, true, NULL, PCS_COMP_MPICH_CH4, PCS_ALG_MPICH_BCAST_CH4_BETA, 23},
        {PCS_BCAST, 8, 524289, true, NULL, PCS_COMP_MPICH_MPIR,
         PCS_ALG_MPICH_BCAST_SCATTER_RING_ALLGATHER, 45},
        {PCS_BCAST, 9, 13001, true, NULL, PCS_COMP_MPICH_MPIR,
         PCS_ALG_MPICH_BCAST_SCATTER_RING_ALLGATHER, 78},
        {PCS_ALLREDUCE, 4, 8, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLREDUCE_RD, 116},
        {PCS_ALLREDUCE, 4, 32, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLREDUCE_RSA, 132},
        {PCS_ALLREDUCE, 4, 32, false, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLREDUCE_RD, 122},
        {PCS_REDUCE, 4, 8, true, NULL, PCS_COMP_MPICH_CH4, PCS_ALG_MPICH_REDUCE_CH4_BETA, 89},
        {PCS_REDUCE, 4, 4096, true, NULL, PCS_COMP_MPICH_CH4, PCS_ALG_MPICH_REDUCE_CH4_ALPHA, 93},
        {PCS_REDUCE, 4, 4096, false, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_REDUCE_BINOMIAL, 242},
        {PCS_BARRIER, 4, 0, true, NULL, PCS_COMP_MPICH_CH4, PCS_ALG_MPICH_BARRIER_CH4_ALPHA, 113},
        {PCS_SCAN, 4, 8, true, NULL, PCS_COMP_MPICH_CH4, PCS_ALG_MPICH_SCAN_CH4_ALPHA, 202},
        {PCS_EXSCAN, 4, 8, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_EXSCAN_RD, 412},
        /* alltoall: "comm_size<8" under is_sendbuf_inplace is size <= 8 (csel.c) */
        {PCS_ALLTOALL, 8, 100, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLTOALL_SCATTERED, 446},
        {PCS_ALLTOALL, 9, 100, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLTOALL_BRUCKS, 457},
        {PCS_ALLTOALL, 9, 1000, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLTOALL_SCATTERED, 461},
        {PCS_ALLTOALL, 4, 40000, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLTOALL_PAIRWISE, 450},
        {PCS_ALLGATHER, 4, 100, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLGATHER_RD, 150},
        {PCS_ALLGATHER, 6, 100, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLGATHER_BRUCKS, 161},
        {PCS_ALLGATHER, 6, 20000, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLGATHER_RING, 165},
        {PCS_GATHER, 5, 8, true, NULL, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_GATHER_BINOMIAL, 352},
        {PCS_REDUCE_SCATTER_BLOCK, 6, 8, false, NULL, PCS_COMP_MPICH_MPIR,
         PCS_ALG_MPICH_RSB_RECURSIVE_DOUBLING, 339},
        {PCS_REDUCE_SCATTER_BLOCK, 8, 8, false, NULL, PCS_COMP_MPICH_MPIR,
         PCS_ALG_MPICH_RSB_NONCOMMUTATIVE, 335},
        /* one rank per node: FLAT, ch4 passes through, MPIR's non-parent branches */
        {PCS_BCAST, 8, 4, true, flat, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_BCAST_BINOMIAL, 52},
        {PCS_BARRIER, 8, 0, true, flat, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_BARRIER_DISSEMINATION, 424},
        {PCS_REDUCE, 8, 4096, true, flat, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_REDUCE_RSG, 262},
        {PCS_SCAN, 8, 8, true, flat, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_SCAN_RD, 402},
        /* two nodes: allreduce is no longer "node_comm_size" */
        {PCS_ALLREDUCE, 8, 32, true, two, PCS_COMP_MPICH_CH4, PCS_ALG_MPICH_ALLREDUCE_CH4_ALPHA, 64},
        {PCS_ALLREDUCE, 8, 32, false, two, PCS_COMP_MPICH_MPIR, PCS_ALG_MPICH_ALLREDUCE_RD, 122},
        /* early returns */
        {PCS_REDUCE, 4, 0, true, NULL, PCS_COMP_NONE, PCS_ALG_NONE, 0},
        {PCS_BARRIER, 1, 0, true, NULL, PCS_COMP_NONE, PCS_ALG_NONE, 0},
        {PCS_SCAN, 4, 0, true, NULL, PCS_COMP_NONE, PCS_ALG_NONE, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint64_t ts = t[i].c == PCS_BARRIER ? 0 : 1;
        pcs_choice_t ch = sel(t[i].c, t[i].P, t[i].bytes, ts, t[i].comm, t[i].node, NULL);
        cr_expect_eq((int)ch.component, t[i].comp, "case %zu: component %d", i, ch.component);
        cr_expect_eq(ch.alg, t[i].alg, "case %zu (%s): alg %s", i, pcs_coll_name(t[i].c),
                     pcs_alg_name(ch.alg));
        cr_expect_eq(ch.rule_line, t[i].line, "case %zu: line %d", i, ch.rule_line);
    }
    /* forcing: only inside MPIR_<Coll>_impl, restrictions fall back silently */
    pcs_mpich_env_t env;
    memset(&env, 0, sizeof env);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPICH_ALLGATHER_INTRA_ALGORITHM", "ring"), 1);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM", "bogus"), -1);
    cr_assert_eq(pcs_mpich_env_set(&env, "OMPI_MCA_coll_tuned_use_dynamic_rules", "1"), 0);
    pcs_choice_t ch = sel(PCS_ALLGATHER, 4, 8, 1, true, NULL, &env);
    cr_expect_eq(ch.alg, PCS_ALG_MPICH_ALLGATHER_RING);
    cr_expect_eq(ch.lib_alg, 4);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_BCAST_INTRA_ALGORITHM", "binomial"), 1);
    ch = sel(PCS_BCAST, 4, 4, 1, true, NULL, &env); /* still the ch4 composition */
    cr_expect_eq(ch.alg, PCS_ALG_MPICH_BCAST_CH4_ALPHA);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_DEVICE_COLLECTIVES", "none"), 1);
    ch = sel(PCS_BCAST, 4, 4, 1, true, NULL, &env);
    cr_expect_eq(ch.alg, PCS_ALG_MPICH_BCAST_BINOMIAL);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM", "recursive_doubling"), 1);
    ch = sel(PCS_ALLGATHER, 6, 8, 1, true, NULL, &env); /* power-of-two only: back to the JSON */
    cr_expect_eq(ch.alg, PCS_ALG_MPICH_ALLGATHER_BRUCKS);
}

/* The traces recorded on this machine (notes §3.1): np=4 one node, bcast 4 B from root 2 is
 * 2->0 then a binomial from 0 (0->2, 0->1, 2->3); barrier is two dissemination rounds and a
 * 1-byte binomial bcast; scan of one double is rd on node_comm, 3->0, a 4-byte bcast. */
static int sends(pcs_coll_t c, int P, int rank, int root, int64_t count, uint64_t ts,
                 int out[][3], bool comm)
{
    pcs_args_t a = {.coll = c, .size = P, .rank = rank, .root = root, .type_size = ts,
                    .count = count, .commutative = comm};
    pcs_sched_t s = PCS_SCHED_INIT;
    cr_assert_eq(pcs_mpich40_schedule(&a, NULL, NULL, &s), PCS_OK);
    int n = 0;
    for (size_t i = 0; i < s.n; i++)
        if (s.ops[i].kind == PCS_OP_SEND || s.ops[i].kind == PCS_OP_ISEND) {
            out[n][0] = s.ops[i].peer;
            out[n][1] = (int)s.ops[i].len;
            out[n][2] = s.ops[i].tag;
            n++;
        }
    pcs_sched_free(&s);
    return n;
}

Test(coll_mpich, traced_np4)
{
    int o[64][3], n;
    n = sends(PCS_BCAST, 4, 2, 2, 4, 1, o, true);
    cr_assert_eq(n, 2);
    cr_expect(o[0][0] == 0 && o[0][1] == 4 && o[0][2] == 2 && o[1][0] == 3);
    n = sends(PCS_BCAST, 4, 0, 2, 4, 1, o, true);
    cr_assert_eq(n, 2);
    cr_expect(o[0][0] == 2 && o[1][0] == 1);
    n = sends(PCS_BARRIER, 4, 0, 0, 0, 0, o, true);
    cr_assert_eq(n, 4);
    cr_expect(o[0][0] == 1 && o[0][1] == 0 && o[0][2] == 1 && o[1][0] == 2);
    cr_expect(o[2][0] == 2 && o[2][1] == 1 && o[2][2] == 2 && o[3][0] == 1);
    n = sends(PCS_SCAN, 4, 3, 0, 1, 8, o, true);
    cr_assert_eq(n, 3);
    cr_expect(o[0][0] == 2 && o[1][0] == 1 && o[2][0] == 0 && o[2][1] == 8 && o[2][2] == 20);
    n = sends(PCS_REDUCE, 4, 0, 2, 1, 8, o, true); /* beta: binomial on node_comm to root 2 */
    cr_assert_eq(n, 1);
    cr_expect(o[0][0] == 2 && o[0][2] == 11);
}

/* The nonblocking path: MPIR_I<coll>_sched_impl with the "collective=i<coll>" leaves of
 * mpir/generic.json v4.0.2 (no ch4 layer), and the forcing variables. */
static pcs_err_t nsel(pcs_coll_t c, int P, int64_t count, uint64_t ts, bool comm,
                      const int *node, const pcs_mpich_env_t *env, pcs_choice_t *ch)
{
    pcs_args_t a = {.coll = c, .size = P, .rank = 0, .root = 0, .type_size = ts,
                    .count = count, .commutative = comm, .nonblocking = true};
    pcs_mpich_comm_t mc = {.node = node, .user_op = !comm};
    return pcs_mpich40_select(&a, &mc, env, ch);
}

Test(coll_mpich, nb_selection)
{
    static const int flat[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    static const struct { pcs_coll_t c; int P; int64_t count; uint64_t ts; bool comm;
                          const int *node; pcs_alg_t alg; int line; } t[] = {
#define A(x) PCS_ALG_MPICH_##x
        {PCS_BARRIER, 4, 0, 0, true, NULL, A(IBARRIER_RD), 535},
        /* one node is PARENT: sched_smp whatever the size */
        {PCS_BCAST, 4, 4, 1, true, NULL, A(IBCAST_SMP), 644},
        {PCS_BCAST, 8, 600000, 1, true, NULL, A(IBCAST_SMP), 644},
        {PCS_BCAST, 4, 4, 1, true, flat, A(IBCAST_BINOMIAL), 652},
        {PCS_BCAST, 8, 100, 1, true, flat, A(IBCAST_BINOMIAL), 659},
        {PCS_BCAST, 8, 20000, 1, true, flat, A(IBCAST_SCATTER_RD_ALLGATHER), 663},
        {PCS_BCAST, 8, 600000, 1, true, flat, A(IBCAST_SCATTER_RING_ALLGATHER), 667},
        {PCS_BCAST, 9, 100, 1, true, flat, A(IBCAST_BINOMIAL), 674},
        {PCS_BCAST, 9, 13000, 1, true, flat, A(IBCAST_SCATTER_RING_ALLGATHER), 678},
        {PCS_REDUCE, 4, 1, 8, true, NULL, A(IREDUCE_SMP), 696},
        {PCS_REDUCE, 4, 1, 8, false, NULL, A(IREDUCE_BINOMIAL), 700},
        {PCS_REDUCE, 4, 1, 8, true, flat, A(IREDUCE_BINOMIAL), 707},
        {PCS_REDUCE, 4, 1024, 4, true, flat, A(IREDUCE_RSG), 719},
        {PCS_REDUCE, 4, 1, 4096, true, flat, A(IREDUCE_BINOMIAL), 715},
        {PCS_REDUCE, 4, 1024, 4, false, flat, A(IREDUCE_BINOMIAL), 724},
        /* Iallreduce has no hierarchy key: recursive doubling up to 2048 B */
        {PCS_ALLREDUCE, 4, 256, 8, true, NULL, A(IALLREDUCE_RD), 548},
        {PCS_ALLREDUCE, 4, 1024, 4, false, NULL, A(IALLREDUCE_RD), 554},
        {PCS_ALLREDUCE, 4, 1, 4096, true, NULL, A(IALLREDUCE_RD), 560},
        {PCS_ALLREDUCE, 4, 1024, 4, true, NULL, A(IALLREDUCE_RSA), 564},
        {PCS_ALLGATHER, 4, 100, 1, true, NULL, A(IALLGATHER_RD), 582},
        {PCS_ALLGATHER, 4, 200000, 1, true, NULL, A(IALLGATHER_RING), 586},
        {PCS_ALLGATHER, 6, 100, 1, true, NULL, A(IALLGATHER_BRUCKS), 593},
        {PCS_ALLGATHER, 6, 20000, 1, true, NULL, A(IALLGATHER_RING), 597},
        /* "comm_size<8" under a non-comm key: size <= 8, as in the blocking rules */
        {PCS_ALLTOALL, 8, 100, 1, true, NULL, A(IALLTOALL_PERMUTED_SENDRECV), 835},
        {PCS_ALLTOALL, 4, 40000, 1, true, NULL, A(IALLTOALL_PAIRWISE), 839},
        {PCS_ALLTOALL, 9, 100, 1, true, NULL, A(IALLTOALL_BRUCKS), 846},
        {PCS_ALLTOALL, 9, 3000, 1, true, NULL, A(IALLTOALL_PERMUTED_SENDRECV), 850},
        {PCS_ALLTOALL, 9, 40000, 1, true, NULL, A(IALLTOALL_PAIRWISE), 854},
        {PCS_GATHER, 5, 8, 1, true, NULL, A(IGATHER_BINOMIAL), 777},
        {PCS_SCATTER, 5, 8, 1, true, NULL, A(ISCATTER_BINOMIAL), 795},
        {PCS_EXSCAN, 5, 1, 8, true, NULL, A(IEXSCAN_RD), 819},
        {PCS_SCAN, 5, 1, 8, true, NULL, A(ISCAN_SMP), 936},
        {PCS_SCAN, 5, 1, 8, true, flat, A(ISCAN_RD), 940},
        {PCS_REDUCE_SCATTER_BLOCK, 6, 1, 8, true, NULL, A(IRSB_RECURSIVE_HALVING), 908},
        {PCS_REDUCE_SCATTER_BLOCK, 6, 20000, 8, true, NULL, A(IRSB_PAIRWISE), 912},
        {PCS_REDUCE_SCATTER_BLOCK, 8, 1, 8, false, NULL, A(IRSB_NONCOMMUTATIVE), 919},
        {PCS_REDUCE_SCATTER_BLOCK, 6, 1, 8, false, NULL, A(IRSB_RECURSIVE_DOUBLING), 923},
#undef A
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        pcs_choice_t ch;
        cr_assert_eq(nsel(t[i].c, t[i].P, t[i].count, t[i].ts, t[i].comm, t[i].node, NULL, &ch),
                     PCS_OK, "case %zu", i);
        cr_expect_eq((int)ch.component, PCS_COMP_MPICH_MPIR, "case %zu: component", i);
        cr_expect_eq(ch.alg, t[i].alg, "case %zu (i%s): alg %s", i, pcs_coll_name(t[i].c),
                     pcs_alg_name(ch.alg));
        cr_expect_eq(ch.rule_line, t[i].line, "case %zu: line %d", i, ch.rule_line);
    }
    /* blocking Alltoallw: the MPIR JSON (ch4 passes it through) */
    pcs_args_t w = {.coll = PCS_ALLTOALLW, .size = 4, .rank = 1, .type_size = 1};
    int64_t cnt[4] = {1, 2, 3, 4};
    w.counts = w.scounts = cnt;
    pcs_choice_t ch;
    cr_assert_eq(pcs_mpich40_select(&w, NULL, NULL, &ch), PCS_OK);
    cr_expect(ch.alg == PCS_ALG_MPICH_ALLTOALLW_SCATTERED && ch.rule_line == 503);
    w.in_place = true;
    cr_assert_eq(pcs_mpich40_select(&w, NULL, NULL, &ch), PCS_OK);
    cr_expect(ch.alg == PCS_ALG_MPICH_ALLTOALLW_SENDRECV_REPLACE && ch.rule_line == 499);

    /* forcing: MPIR_I<coll>_sched_impl's switch, restrictions fall back to the JSON */
    pcs_mpich_env_t env;
    memset(&env, 0, sizeof env);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_IBCAST_INTRA_ALGORITHM", "sched_binomial"), 1);
    cr_assert_eq(nsel(PCS_BCAST, 4, 4, 1, true, NULL, &env, &ch), PCS_OK);
    cr_expect(ch.alg == PCS_ALG_MPICH_IBCAST_BINOMIAL && ch.lib_alg == 2 && ch.rule_line == 0);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_IBCAST_INTRA_ALGORITHM",
                                   "sched_scatter_recursive_doubling_allgather"), 1);
    cr_assert_eq(nsel(PCS_BCAST, 6, 4, 1, true, NULL, &env, &ch), PCS_OK); /* power of two only */
    cr_expect(ch.alg == PCS_ALG_MPICH_IBCAST_SMP && ch.rule_line == 644);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_IBCAST_INTRA_ALGORITHM", "tsp_tree"), 1);
    cr_expect_eq(nsel(PCS_BCAST, 4, 4, 1, true, NULL, &env, &ch), PCS_E_UNSUPPORTED);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_IBCAST_INTRA_ALGORITHM", "bogus"), -1);
    /* sched_auto: accepted by the variable, no case in the switch (MPICH aborts) */
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM", "sched_auto"), 1);
    cr_expect_eq(nsel(PCS_ALLREDUCE, 4, 1024, 4, true, NULL, &env, &ch), PCS_E_UNSUPPORTED);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM", "sched_smp"), 1);
    cr_assert_eq(nsel(PCS_ALLREDUCE, 4, 1024, 4, true, NULL, &env, &ch), PCS_OK);
    cr_expect(ch.alg == PCS_ALG_MPICH_IALLREDUCE_SMP && ch.lib_alg == 3);
    cr_assert_eq(nsel(PCS_ALLREDUCE, 4, 1024, 4, true, flat, &env, &ch), PCS_OK); /* not PARENT */
    cr_expect(ch.alg == PCS_ALG_MPICH_IALLREDUCE_RSA && ch.rule_line == 564);
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_ISCAN_INTRA_ALGORITHM", "sched_smp"), 1);
    cr_assert_eq(nsel(PCS_SCAN, 4, 1, 8, false, NULL, &env, &ch), PCS_OK); /* commutative only */
    cr_expect(ch.alg == PCS_ALG_MPICH_ISCAN_SMP && ch.lib_alg == 2 && ch.rule_line == 936);
    /* the blocking variable does not reach the nonblocking path */
    cr_assert_eq(pcs_mpich_env_set(&env, "MPIR_CVAR_GATHER_INTRA_ALGORITHM", "binomial"), 1);
    cr_assert_eq(nsel(PCS_GATHER, 4, 4, 1, true, NULL, &env, &ch), PCS_OK);
    cr_expect(ch.alg == PCS_ALG_MPICH_IGATHER_BINOMIAL && ch.rule_line == 777);
}

/* Traced on this machine (run_mpich_wire_tests.sh records the same): np=9, Ibcast of 20001 B
 * from root 2 on one node is sched_smp: 2 -> 0, then node_comm's bcast from 0 (20001 B, 9
 * ranks, not a power of two) is sched_scatter_ring_allgather. Its scatter forwards the posted
 * receive size: rank 4 gets 8892 B from 0 (posted 11109) and sends 6663 B to 6, then 2223 B
 * to 5 (the blocking scatter sends 4446 and 2223). */
Test(coll_mpich, traced_ibcast_scatter)
{
    pcs_args_t a = {.coll = PCS_BCAST, .size = 9, .rank = 4, .root = 2, .type_size = 1,
                    .count = 20001, .nonblocking = true};
    pcs_sched_t s = PCS_SCHED_INIT;
    cr_assert_eq(pcs_mpich40_schedule(&a, NULL, NULL, &s), PCS_OK);
    cr_expect_eq(s.alg, PCS_ALG_MPICH_IBCAST_SMP);
    int64_t got[3][2];
    int n = 0, first_recv = -1;
    for (size_t i = 0; i < s.n; i++) {
        const pcs_op_t *o = &s.ops[i];
        if ((o->kind == PCS_OP_SEND || o->kind == PCS_OP_ISEND) && n < 3) {
            got[n][0] = o->peer;
            got[n++][1] = (int64_t)o->len;
        }
        if ((o->kind == PCS_OP_RECV || o->kind == PCS_OP_IRECV) && first_recv < 0)
            first_recv = o->peer == 0 && o->len == 8892;
        cr_expect_eq(o->tag, 287, "op %zu: tag %d", i, o->tag);
    }
    cr_expect_eq(first_recv, 1, "8892 B from 0 first");
    cr_assert_eq(n, 3);
    cr_expect(got[0][0] == 6 && got[0][1] == 6663, "%lld B to %lld", (long long)got[0][1],
              (long long)got[0][0]);
    cr_expect(got[1][0] == 5 && got[1][1] == 2223, "%lld B to %lld", (long long)got[1][1],
              (long long)got[1][0]);
    pcs_sched_free(&s);
}
