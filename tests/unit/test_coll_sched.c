/* test_coll_sched.c: every generated schedule, executed by all P ranks at once in this
 * process with real data, must compute the collective's result; plus the selection table. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_sched.h"
#include "sched_exec.h"

typedef struct run {
    pcs_coll_t coll;
    int P, root, inplace, alg_id; /* alg_id 0: fixed rules */
    int64_t count;
    int64_t segsize;  /* forced segment size (bytes), with alg_id */
    int max_requests; /* forced max_requests, with alg_id */
    op_fn *op;
    uint64_t ts;
    bool commutative;
    bool nonblocking; /* the MPI_I* form; alg_id: coll_libnbc_i<coll>_algorithm */
    int radix;        /* coll_libnbc_ibcast_knomial_radix (0: default) */
    bool dt_decision; /* coll_libnbc_ibcast_skip_dt_decision=false */
} run_t;

static int n_run, n_skip, n_fail, n_hang;

static uint64_t tot_of(const int64_t *c, int P)
{
    uint64_t t = 0;
    for (int i = 0; i < P; i++)
        t += (uint64_t)c[i];
    return t;
}

/* one configuration: build args, schedules, buffers; execute; check */
static void run_one(const run_t *rc)
{
    const int P = rc->P;
    /* alltoallw: one byte per element, the counts in bytes */
    const bool w = rc->coll == PCS_ALLTOALLW;
    const uint64_t ts = w ? 1 : rc->ts;
    const int64_t wmul = w ? (int64_t)rc->ts : 1;
    exec_t *x = calloc(1, sizeof *x);
    pcs_sched_t s[MAXP];
    memset(s, 0, sizeof s);
    x->P = P;
    x->s = s;
    x->op = rc->op;
    int64_t counts[MAXP] = {0}, displs[MAXP] = {0};
    uint64_t blk = (uint64_t)rc->count * ts;
    for (int i = 0; i < P; i++) {
        counts[i] = (rc->count + i) % 4 == 1 ? 0 : rc->count + i % 3;
        displs[i] = 0;
    }
    int64_t d = 0;
    for (int i = 0; i < P; i++) {
        displs[i] = d;
        d += counts[i] + 1; /* gaps */
    }
    pcs_ompi_forced_t f;
    memset(&f, 0, sizeof f);
    f.nbc_knomial_radix = rc->radix;
    f.nbc_ibcast_dt_decision = rc->dt_decision;
    if (rc->alg_id && rc->nonblocking) {
        f.nbc_algorithm[rc->coll] = rc->alg_id;
    } else if (rc->alg_id) {
        f.use_dynamic_rules = true;
        f.algorithm[rc->coll] = rc->alg_id;
        f.segsize[rc->coll] = rc->segsize;
        f.max_requests[rc->coll] = rc->max_requests;
    }
    /* alltoallv: rank i sends a2a(i, j) elements to j, symmetric in place (MPI requires
     * equal send and receive counts then); displacements with gaps */
    static int64_t vsc[MAXP][MAXP], vsd[MAXP][MAXP], vrc[MAXP][MAXP], vrd[MAXP][MAXP];
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            int64_t nij = rc->inplace ? (rc->count + i + j) % 4 == 1 ? 0 : rc->count + (i + j) % 3
                                    : (rc->count + i + 2 * j) % 5 == 1 ? 0
                                    : rc->count + (2 * i + j) % 3;
            vsc[i][j] = vrc[j][i] = nij * wmul;
        }
    for (int i = 0; i < P; i++) {
        int64_t ds = 0, dr = 0;
        for (int j = 0; j < P; j++) {
            vsd[i][j] = ds;
            vrd[i][j] = dr;
            ds += vsc[i][j] + (j % 2) * wmul;
            dr += vrc[i][j] + wmul;
        }
    }
    uint64_t rs_total = 0;
    for (int i = 0; i < P; i++)
        rs_total += (uint64_t)counts[i];
    /* libnbc 4.1 in-place ialltoallw: a rank whose blocks are all empty returns an empty
     * request, while an even-sized peer still exchanges a zero-byte message with it in the
     * last pair (a2aw_sched_inplace does not test the count there): the library hangs, the
     * schedule says so (deadlock). Not a configuration to check results on. */
    if (rc->nonblocking && w && rc->inplace && P % 2 == 0) {
        int empty = 0;
        for (int r = 0; r < P; r++) {
            int64_t m = 0;
            for (int j = 0; j < P; j++)
                m = vrc[r][j] > m ? vrc[r][j] : m;
            empty += m == 0;
        }
        if (empty > 0 && empty < P) {
            n_hang++;
            free(x);
            return;
        }
    }
    pcs_args_t a[MAXP];
    bool skip = false;
    for (int r = 0; r < P; r++) {
        a[r] = (pcs_args_t){.coll = rc->coll, .size = P, .rank = r, .root = rc->root,
                            .type_size = ts, .count = rc->count, .commutative = rc->commutative,
                            .nonblocking = rc->nonblocking};
        bool rooted = rc->coll == PCS_REDUCE || rc->coll == PCS_GATHER ||
                      rc->coll == PCS_SCATTER || rc->coll == PCS_GATHERV ||
                      rc->coll == PCS_SCATTERV;
        a[r].in_place = rc->inplace && (!rooted || r == rc->root);
        a[r].counts = counts;
        a[r].displs = displs;
        a[r].own_count = counts[r];
        if (rc->coll == PCS_REDUCE_SCATTER)
            a[r].displs = NULL; /* blocks are packed */
        if (rc->coll == PCS_ALLTOALLV || w) {
            a[r].scounts = vsc[r];
            a[r].sdispls = vsd[r];
            a[r].counts = vrc[r];
            a[r].displs = vrd[r];
            if (rc->inplace) { /* the data is where it is received */
                a[r].scounts = vrc[r];
                a[r].sdispls = vrd[r];
            }
        }
        pcs_err_t e = pcs_ompi41_schedule(&a[r], &f, &s[r]);
        if (e == PCS_E_UNSUPPORTED) {
            skip = true;
            break;
        }
        cr_assert_eq(e, PCS_OK, "%s P=%d alg %d rank %d: %s", pcs_coll_name(rc->coll), P,
                     rc->alg_id, r, pcs_strerror(e));
    }
    if (skip) {
        n_skip++;
        goto out;
    }
    /* buffers */
    uint64_t vtot = ((uint64_t)displs[P - 1] + (uint64_t)counts[P - 1]) * ts;
    for (int r = 0; r < P; r++) {
        uint64_t sz[2] = {0, 0};
        switch (rc->coll) {
        case PCS_BCAST: sz[1] = blk; break;
        case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_SCAN: case PCS_EXSCAN:
            sz[0] = sz[1] = blk; break;
        case PCS_ALLGATHER: sz[0] = blk; sz[1] = blk * P; break;
        case PCS_ALLTOALL: sz[0] = sz[1] = blk * P; break;
        case PCS_GATHER: sz[0] = blk; sz[1] = r == rc->root ? blk * P : 0; break;
        case PCS_SCATTER: sz[0] = r == rc->root ? blk * P : 0; sz[1] = blk; break;
        case PCS_GATHERV: sz[0] = (uint64_t)counts[r] * ts; sz[1] = r == rc->root ? vtot : 0; break;
        case PCS_SCATTERV: sz[0] = r == rc->root ? vtot : 0; sz[1] = (uint64_t)counts[r] * ts; break;
        case PCS_ALLGATHERV: sz[0] = (uint64_t)counts[r] * ts; sz[1] = vtot; break;
        case PCS_ALLTOALLV: case PCS_ALLTOALLW:
            sz[0] = (uint64_t)(vsd[r][P - 1] + vsc[r][P - 1] + 1) * ts;
            sz[1] = (uint64_t)(vrd[r][P - 1] + vrc[r][P - 1]) * ts;
            break;
        case PCS_REDUCE_SCATTER:
            sz[0] = rs_total * ts;
            sz[1] = rc->inplace ? rs_total * ts : (uint64_t)counts[r] * ts;
            break;
        case PCS_REDUCE_SCATTER_BLOCK: sz[0] = blk * P; sz[1] = rc->inplace ? blk * P : blk; break;
        default: break;
        }
        if (a[r].in_place) /* scatter(v): the receive buffer is MPI_IN_PLACE */
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
    /* the inputs, saved: in place, the input is in R */
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
    char tagline[200];
    snprintf(tagline, sizeof tagline,
             "%s%s alg %d(%s) P=%d count=%lld root=%d inplace=%d ts=%llu comm=%d radix=%d dt=%d",
             rc->nonblocking ? "i" : "", pcs_coll_name(rc->coll), rc->alg_id,
             pcs_alg_name(s[0].alg), P, (long long)rc->count, rc->root, rc->inplace,
             (unsigned long long)ts, rc->commutative, rc->radix, rc->dt_decision);
    if (why) {
        n_fail++;
        cr_expect_fail("%s: %s", tagline, why);
        goto free_bufs;
    }
    /* check against the definition */
    uint8_t *exp = malloc(blk * P + vtot + rs_total * ts + 16);
    for (int r = 0; r < P && !why; r++) {
        const uint8_t *got = x->buf[r][1];
        int in_b = a[r].in_place; (void)in_b;
        switch (rc->coll) {
        case PCS_BCAST:
            if (memcmp(got, r0, blk)) why = "bcast data";
            break;
        case PCS_REDUCE: case PCS_ALLREDUCE: case PCS_SCAN: case PCS_EXSCAN: {
            if (rc->coll == PCS_REDUCE && r != rc->root) break;
            int last = rc->coll == PCS_SCAN ? r : rc->coll == PCS_EXSCAN ? r - 1 : P - 1;
            if (last < 0) break;
            /* x0 op x1 op ... : fold from the right with inout = in op inout */
            memcpy(exp, in[last], blk);
            for (int k = last - 1; k >= 0; k--)
                rc->op(in[k], exp, blk);
            if (memcmp(got, exp, blk)) why = "reduction result";
            break;
        }
        case PCS_ALLGATHER:
            for (int k = 0; k < P; k++)
                memcpy(exp + k * blk, a[k].in_place ? in[k] + k * blk : in[k], blk);
            if (memcmp(got, exp, blk * P)) why = "allgather data";
            break;
        case PCS_ALLTOALL:
            for (int k = 0; k < P; k++)
                memcpy(exp + k * blk, in[k] + r * blk, blk);
            if (memcmp(got, exp, blk * P)) why = "alltoall data";
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
        case PCS_ALLGATHERV:
            for (int k = 0; k < P; k++)
                if (memcmp(got + displs[k] * ts,
                           a[k].in_place ? in[k] + displs[k] * ts : in[k], counts[k] * ts))
                    why = "allgatherv data";
            break;
        case PCS_ALLTOALLV: case PCS_ALLTOALLW:
            for (int k = 0; k < P; k++) {
                const uint8_t *src = in[k] + (rc->inplace ? vrd[k][r] : vsd[k][r]) * ts;
                if (memcmp(got + vrd[r][k] * ts, src, vsc[k][r] * ts))
                    why = "alltoallv data";
            }
            break;
        case PCS_REDUCE_SCATTER:
        case PCS_REDUCE_SCATTER_BLOCK: {
            uint64_t off = 0, n = blk;
            if (rc->coll == PCS_REDUCE_SCATTER) {
                for (int k = 0; k < r; k++)
                    off += (uint64_t)counts[k] * ts;
                n = (uint64_t)counts[r] * ts;
            } else {
                off = (uint64_t)r * blk;
            }
            memcpy(exp, in[P - 1] + off, n);
            for (int k = P - 2; k >= 0; k--)
                rc->op(in[k] + off, exp, n);
            if (memcmp(got, exp, n)) why = "reduce_scatter result";
            break;
        }
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
    (void)tot_of;
}

static const int64_t COUNTS[] = {0, 1, 2, 3, 5, 8, 13, 64};
static const int NALG[PCS_NCOLLS] = {[PCS_BCAST] = 9, [PCS_REDUCE] = 7, [PCS_ALLREDUCE] = 6,
    [PCS_ALLGATHER] = 6, [PCS_ALLGATHERV] = 5, [PCS_ALLTOALL] = 5, [PCS_ALLTOALLV] = 2,
    [PCS_BARRIER] = 6, [PCS_GATHER] = 3, [PCS_SCATTER] = 3, [PCS_REDUCE_SCATTER] = 4,
    [PCS_REDUCE_SCATTER_BLOCK] = 4, [PCS_SCAN] = 2, [PCS_EXSCAN] = 2};

static bool alg_fits(pcs_coll_t c, int id, int P)
{
    /* two_procs algorithms exist for 2 ranks only */
    if ((c == PCS_ALLGATHER && id == 6) || (c == PCS_ALLGATHERV && id == 5) ||
        (c == PCS_ALLTOALL && id == 5) || (c == PCS_BARRIER && id == 5))
        return P == 2;
    return true;
}

/* decision_fixed.c: the algorithms chosen for non-commutative ops (L83-117, L694-723,
 * L854, L1000) */
static bool noncomm_ok(pcs_coll_t c, int id)
{
    switch (c) {
    case PCS_REDUCE: return id == 1 || id == 6;
    case PCS_ALLREDUCE: return id == 1 || id == 2 || id == 3 || id == 6;
    case PCS_REDUCE_SCATTER: return id == 1;
    /* recursive doubling orders its operands; recursive halving falls back to linear */
    case PCS_REDUCE_SCATTER_BLOCK: return id == 1 || id == 2 || id == 3;
    default: return true;
    }
}

/* coll_libnbc_i<coll>_algorithm values (coll_libnbc_component.c); 0 = libnbc's rules */
static const int NBC_NALG[PCS_NCOLLS] = {[PCS_BCAST] = 4, [PCS_REDUCE] = 3, [PCS_ALLREDUCE] = 4,
    [PCS_ALLGATHER] = 2, [PCS_SCAN] = 2, [PCS_EXSCAN] = 2};

/* libnbc's algorithms that keep the rank order of the operands (binomial trees rooted at 0,
 * recursive doubling, the linear scans); its rules never give the others a
 * non-commutative op */
static bool nbc_noncomm_ok(pcs_coll_t c, int id)
{
    switch (c) {
    case PCS_REDUCE: return id == 0 || id == 2;
    case PCS_ALLREDUCE: return id == 0 || id == 2 || id == 4;
    default: return true;
    }
}

static void sweep_x(pcs_coll_t c, bool nb)
{
    bool red = c == PCS_REDUCE || c == PCS_ALLREDUCE || c == PCS_SCAN || c == PCS_EXSCAN ||
               c == PCS_REDUCE_SCATTER || c == PCS_REDUCE_SCATTER_BLOCK;
    bool rooted = c == PCS_BCAST || c == PCS_REDUCE || c == PCS_GATHER || c == PCS_SCATTER ||
                  c == PCS_GATHERV || c == PCS_SCATTERV;
    bool has_inplace = c != PCS_BCAST && c != PCS_BARRIER;
    n_run = n_skip = n_fail = n_hang = 0;
    for (int id = 0; id <= (nb ? NBC_NALG[c] : NALG[c]); id++)
        for (int P = 1; P <= MAXP; P++) {
            if (id && !nb && !alg_fits(c, id, P))
                continue;
            for (size_t ci = 0; ci < sizeof COUNTS / sizeof COUNTS[0]; ci++)
                for (int ri = 0; ri < (rooted ? 3 : 1); ri++)
                    for (int ip = 0; ip <= (has_inplace ? 1 : 0); ip++)
                        for (int oi = 0; oi < (red ? 2 : 1); oi++) {
                            int root = ri == 0 ? 0 : ri == 1 ? P - 1 : P / 2;
                            run_t rc = {.coll = c, .P = P, .root = root, .inplace = ip,
                                        .alg_id = id, .count = COUNTS[ci]};
                            rc.op = oi == 0 ? op_matmul : op_dsum;
                            rc.ts = oi == 0 ? 4 : 8;
                            rc.commutative = oi == 1;
                            if (!red)
                                rc.ts = 3;
                            /* Forced with a non-commutative op, Open MPI's commutative-only
                             * algorithms compute in another order (the library's own
                             * behaviour); check the ones its rules pick for such ops. */
                            if (red && !rc.commutative && id && !nb && !noncomm_ok(c, id))
                                continue;
                            if (red && !rc.commutative && nb && !nbc_noncomm_ok(c, id))
                                continue;
                            rc.nonblocking = nb;
                            run_one(&rc);
                            /* ibcast: the knomial radix, the datatype-size rules */
                            if (nb && c == PCS_BCAST && id == 4)
                                for (rc.radix = 2; rc.radix <= 3; rc.radix++)
                                    run_one(&rc);
                            rc.radix = 0;
                            if (nb && c == PCS_BCAST && id == 0) {
                                rc.dt_decision = true;
                                run_one(&rc);
                            }
                        }
        }
    printf("%s%-21s %6d executed, %5d failed, %5d skipped (not in catalogue)", nb ? "i" : "",
           pcs_coll_name(c), n_run, n_fail, n_skip);
    if (n_hang)
        printf(", %d the library hangs on", n_hang);
    printf("\n");
    fflush(stdout);
    cr_expect_eq(n_skip, 0);
}
static void sweep(pcs_coll_t c) { sweep_x(c, false); }
static void sweep_nbc(pcs_coll_t c) { sweep_x(c, true); }

Test(coll_sched, bcast) { sweep(PCS_BCAST); }
Test(coll_sched, reduce) { sweep(PCS_REDUCE); }
Test(coll_sched, allreduce) { sweep(PCS_ALLREDUCE); }
Test(coll_sched, allgather) { sweep(PCS_ALLGATHER); }
Test(coll_sched, alltoall) { sweep(PCS_ALLTOALL); }
Test(coll_sched, barrier) { sweep(PCS_BARRIER); }
Test(coll_sched, gather) { sweep(PCS_GATHER); }
Test(coll_sched, scatter) { sweep(PCS_SCATTER); }
Test(coll_sched, scan) { sweep(PCS_SCAN); }
Test(coll_sched, exscan) { sweep(PCS_EXSCAN); }
Test(coll_sched, gatherv) { sweep(PCS_GATHERV); }
Test(coll_sched, scatterv) { sweep(PCS_SCATTERV); }
Test(coll_sched, allgatherv) { sweep(PCS_ALLGATHERV); }
Test(coll_sched, alltoallv) { sweep(PCS_ALLTOALLV); }
Test(coll_sched, reduce_scatter) { sweep(PCS_REDUCE_SCATTER); }
Test(coll_sched, reduce_scatter_block) { sweep(PCS_REDUCE_SCATTER_BLOCK); }
Test(coll_sched, alltoallw) { sweep(PCS_ALLTOALLW); }

/* coll/libnbc: every MPI_I* collective, every coll_libnbc_*_algorithm value */
Test(coll_nbc, ibcast) { sweep_nbc(PCS_BCAST); }
Test(coll_nbc, ireduce) { sweep_nbc(PCS_REDUCE); }
Test(coll_nbc, iallreduce) { sweep_nbc(PCS_ALLREDUCE); }
Test(coll_nbc, iallgather) { sweep_nbc(PCS_ALLGATHER); }
Test(coll_nbc, iallgatherv) { sweep_nbc(PCS_ALLGATHERV); }
Test(coll_nbc, ialltoall) { sweep_nbc(PCS_ALLTOALL); }
Test(coll_nbc, ialltoallv) { sweep_nbc(PCS_ALLTOALLV); }
Test(coll_nbc, ialltoallw) { sweep_nbc(PCS_ALLTOALLW); }
Test(coll_nbc, ibarrier) { sweep_nbc(PCS_BARRIER); }
Test(coll_nbc, igather) { sweep_nbc(PCS_GATHER); }
Test(coll_nbc, igatherv) { sweep_nbc(PCS_GATHERV); }
Test(coll_nbc, iscatter) { sweep_nbc(PCS_SCATTER); }
Test(coll_nbc, iscatterv) { sweep_nbc(PCS_SCATTERV); }
Test(coll_nbc, ireduce_scatter) { sweep_nbc(PCS_REDUCE_SCATTER); }
Test(coll_nbc, ireduce_scatter_block) { sweep_nbc(PCS_REDUCE_SCATTER_BLOCK); }
Test(coll_nbc, iscan) { sweep_nbc(PCS_SCAN); }
Test(coll_nbc, iexscan) { sweep_nbc(PCS_EXSCAN); }

/* Fragmented chains (ibcast 16384/8192/32768-byte fragments, ireduce 8192) and the
 * datatype-size rules of ibcast and ireduce at sizes the small sweep does not reach. */
Test(coll_nbc, large_messages)
{
    static const struct { pcs_coll_t c; int id; bool dt; int64_t count; } t[] = {
        {PCS_BCAST, 3, false, 20000}, {PCS_BCAST, 0, true, 30000},
        {PCS_BCAST, 0, true, 200000}, {PCS_REDUCE, 1, false, 2500},
        {PCS_REDUCE, 0, false, 9000}, {PCS_ALLREDUCE, 0, false, 9000},
        {PCS_ALLREDUCE, 1, false, 1001}, {PCS_ALLREDUCE, 3, false, 1001},
    };
    n_run = n_skip = n_fail = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (int P = 1; P <= MAXP; P++)
            for (int ip = 0; ip <= (t[i].c == PCS_BCAST ? 0 : 1); ip++) {
                bool red = t[i].c != PCS_BCAST;
                run_t rc = {.coll = t[i].c, .P = P, .root = P / 2, .inplace = ip,
                            .alg_id = t[i].id, .count = t[i].count, .op = op_dsum,
                            .ts = red ? 8 : 3, .commutative = true, .nonblocking = true,
                            .dt_decision = t[i].dt};
                run_one(&rc);
            }
    printf("%-22s %6d executed, %5d failed, %5d skipped (not in catalogue)\n", "nbc large",
           n_run, n_fail, n_skip);
    cr_expect_eq(n_skip, 0);
}

/* The choices of nbc_i<coll>.c against their sources' rules. */
Test(coll_nbc, selection)
{
    pcs_args_t a = {.coll = PCS_BCAST, .size = 4, .rank = 0, .type_size = 8, .count = 100000,
                    .commutative = true, .nonblocking = true};
    pcs_ompi_forced_t f = {0};
    pcs_choice_t ch;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.component, PCS_COMP_LIBNBC);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_BCAST_LINEAR); /* p <= 4 */
    a.size = 5;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_BCAST_BINOMIAL); /* skip_dt_decision: size only */
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_libnbc_ibcast_skip_dt_decision",
                                     "false"), 1);
    cr_assert_eq(pcs_ompi41_select(&a, &f, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_BCAST_CHAIN);
    cr_expect_eq(ch.segsize, 32768);
    a.count = 10000;
    cr_assert_eq(pcs_ompi41_select(&a, &f, &ch), PCS_OK);
    cr_expect_eq(ch.segsize, 8192);
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_libnbc_ibcast_algorithm", "knomial"), 1);
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_libnbc_ibcast_knomial_radix", "1"), 1);
    cr_assert_eq(pcs_ompi41_select(&a, &f, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_BCAST_LINEAR, "radix 1: linear");
    a.count = 0;
    cr_assert_eq(pcs_ompi41_select(&a, &f, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NONE, "MPI_Ibcast returns early on count 0");
    /* iallreduce: binomial below 64 KiB, in place or non-commutative; else rabenseifner */
    a = (pcs_args_t){.coll = PCS_ALLREDUCE, .size = 8, .type_size = 8, .count = 8192,
                     .commutative = true, .nonblocking = true};
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_ALLREDUCE_REDSCAT_ALLGATHER);
    a.in_place = true;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_ALLREDUCE_BINOMIAL);
    a.in_place = false;
    a.type_size = 65536;
    a.count = 4; /* count < pof2: ring */
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_ALLREDUCE_RING);
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_libnbc_iallreduce_algorithm", "3"), 1);
    cr_assert_eq(pcs_ompi41_select(&a, &f, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_ALLREDUCE_RING, "forced rabenseifner, count < pof2");
    /* ireduce: rabenseifner for commutative ops when count >= pof2 and p > 2 */
    a = (pcs_args_t){.coll = PCS_REDUCE, .size = 3, .type_size = 4, .count = 2,
                     .commutative = true, .nonblocking = true};
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_REDUCE_REDSCAT_GATHER);
    a.size = 4;
    a.count = 20000;
    a.commutative = false;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_REDUCE_BINOMIAL);
    a.size = 2;
    a.commutative = true;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_REDUCE_CHAIN);
    /* ialltoall: in place, else linear; iscan forced to recursive doubling by name */
    a = (pcs_args_t){.coll = PCS_ALLTOALL, .size = 6, .type_size = 4, .count = 1 << 20,
                     .nonblocking = true};
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NBC_ALLTOALL_LINEAR);
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_libnbc_iscan_algorithm",
                                     "recursive_doubling"), 1);
    cr_expect_eq(f.nbc_algorithm[PCS_SCAN], 2);
    cr_expect_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_libnbc_iscan_algorithm", "ring"), 0);
    cr_expect_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_libnbc_priority", "10"), 0);
    /* blocking alltoallw: coll/basic */
    a = (pcs_args_t){.coll = PCS_ALLTOALLW, .size = 6, .type_size = 1};
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.component, PCS_COMP_BASIC);
    cr_expect_eq(ch.alg, PCS_ALG_ALLTOALLW_LINEAR);
}

/* Algorithms whose shape depends on a forced segment size or request limit. */
Test(coll_sched, forced_parameters)
{
    static const struct { pcs_coll_t c; int id; int64_t seg; int maxreq; } t[] = {
        {PCS_BCAST, 4, 1, 0}, {PCS_BCAST, 4, 2, 0}, {PCS_BCAST, 4, 5, 0},   /* split bintree */
        {PCS_BCAST, 6, 2, 0}, {PCS_BCAST, 2, 3, 0},                         /* binomial, chain */
        {PCS_ALLREDUCE, 5, 1, 0}, {PCS_ALLREDUCE, 5, 2, 0}, {PCS_ALLREDUCE, 5, 3, 0},
        {PCS_ALLTOALL, 4, 0, 1}, {PCS_ALLTOALL, 4, 0, 2}, {PCS_ALLTOALL, 4, 0, 3},
        {PCS_REDUCE, 2, 2, 0}, {PCS_REDUCE, 5, 1, 2},
    };
    static const int64_t counts[] = {1, 5, 13, 64, 100};
    n_run = n_skip = n_fail = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (int P = 1; P <= MAXP; P++)
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                for (int ip = 0; ip <= (t[i].c == PCS_BCAST ? 0 : 1); ip++) {
                    bool red = t[i].c == PCS_ALLREDUCE || t[i].c == PCS_REDUCE;
                    run_t rc = {.coll = t[i].c, .P = P, .root = P / 2, .inplace = ip,
                                .alg_id = t[i].id, .count = counts[ci], .op = op_dsum,
                                .ts = red ? 8 : 3, .commutative = true,
                                .max_requests = t[i].maxreq};
                    rc.segsize = t[i].seg * (int64_t)rc.ts;
                    run_one(&rc);
                }
    printf("%-22s %6d executed, %5d failed, %5d skipped (not in catalogue)\n", "forced params",
           n_run, n_fail, n_skip);
    cr_expect_eq(n_skip, 0);
}

/* The fixed rules against rows read off coll_tuned_decision_fixed.c v4.1.4 (line numbers). */
Test(coll_sched, ompi41_fixed_rules)
{
    static const struct { pcs_coll_t c; int P; int64_t d; bool comm; int alg, line; } t[] = {
        {PCS_BCAST, 4, 4, true, 5, 563},        /* cs<8 ; d<64 -> binary tree */
        {PCS_BCAST, 2, 4, true, 3, 541},        /* cs<4 ; d<32 -> pipeline */
        {PCS_BCAST, 16, 1 << 20, true, 8, 595}, /* cs<32 ; else -> scatter_allgather */
        {PCS_ALLREDUCE, 4, 4, true, 4, 139},    /* ring (falls back to rdbl: count < P) */
        {PCS_ALLREDUCE, 3, 4, true, 4, 123},
        {PCS_ALLREDUCE, 3, 4, false, 3, 83},
        {PCS_ALLREDUCE, 5, 8192, true, 6, 143},
        {PCS_REDUCE, 4, 4, true, 4, 744},
        {PCS_REDUCE, 4, 4, false, 1, 699},
        {PCS_GATHER, 4, 4, true, 2, 1429},
        {PCS_ALLTOALL, 4, 4, true, 4, 277},
        {PCS_ALLTOALL, 4, 8192, true, 1, 279},
        {PCS_ALLTOALL, 2, 1, true, 2, 255},
        {PCS_BARRIER, 4, -1, true, 1, 485},
        {PCS_BARRIER, 3, -1, true, 3, 483},
        {PCS_ALLGATHER, 3, 4, true, 3, 1121},
        {PCS_ALLGATHER, 2, 4, true, 6, 1119},
        {PCS_ALLGATHERV, 5, 100, true, 1, 1283},
        {PCS_SCATTER, 5, 100, true, 2, 1512},
        {PCS_REDUCE_SCATTER, 6, 100, false, 1, 854},
        {PCS_REDUCE_SCATTER_BLOCK, 6, 100, true, 4, 1028},
        {PCS_ALLTOALLV, 70, -1, true, 2, 441},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int line = 0;
        int alg = pcs_ompi41_fixed(t[i].c, t[i].P, t[i].d, t[i].comm, &line);
        cr_expect_eq(alg, t[i].alg, "case %zu (%s P=%d d=%lld): alg %d", i,
                     pcs_coll_name(t[i].c), t[i].P, (long long)t[i].d, alg);
        cr_expect_eq(line, t[i].line, "case %zu: line %d", i, line);
    }
    /* fallbacks and components */
    pcs_args_t a = {.coll = PCS_ALLREDUCE, .size = 4, .rank = 0, .type_size = 4, .count = 1,
                    .commutative = true};
    pcs_choice_t ch;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.lib_alg, 4);
    cr_expect_eq(ch.alg, PCS_ALG_ALLREDUCE_RECURSIVE_DOUBLING);
    a.coll = PCS_ALLGATHER;
    a.size = 3;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_ALLGATHER_BRUCK);
    a.coll = PCS_SCAN;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.component, PCS_COMP_BASIC);
    a.size = 1;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.component, PCS_COMP_SELF);
    a.coll = PCS_ALLREDUCE;
    a.size = 5;
    a.count = 0;
    cr_assert_eq(pcs_ompi41_select(&a, NULL, &ch), PCS_OK);
    cr_expect_eq(ch.alg, PCS_ALG_NONE);
}

Test(coll_sched, forcing_variables_and_library_strings)
{
    pcs_ompi_forced_t f = {0};
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_use_dynamic_rules", "1"), 1);
    cr_assert(f.use_dynamic_rules);
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_allreduce_algorithm", "4"), 1);
    cr_assert_eq(f.algorithm[PCS_ALLREDUCE], 4);
    cr_assert_eq(f.algorithm[PCS_REDUCE], 0, "reduce is a prefix of allreduce's name only");
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_reduce_scatter_algorithm", "2"), 1);
    cr_assert_eq(f.algorithm[PCS_REDUCE_SCATTER], 2);
    cr_assert_eq(f.algorithm[PCS_REDUCE], 0);
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_bcast_algorithm_segmentsize",
                                     "8192"), 1);
    cr_assert_eq(f.segsize[PCS_BCAST], 8192);
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_bcast_algorithm_knomial_radix",
                                     "3"), 1);
    cr_assert_eq(f.knomial_radix, 3);
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_bcast_algorithm", "ring"), 0,
                 "names are not read");
    cr_assert_eq(pcs_ompi_forced_set(&f, "MPIR_CVAR_BCAST_INTRA_ALGORITHM", "binomial"), 0);
    cr_assert_eq(pcs_library_of("Open MPI v4.1.4, package: Debian OpenMPI"), PCS_LIB_OMPI41);
    cr_assert_eq(pcs_library_of("MPICH Version:      4.0.2\nMPICH Release date: ..."),
                 PCS_LIB_MPICH40);
    cr_assert_eq(pcs_library_of("MPICH Version:\t4.1.1"), PCS_LIB_UNKNOWN);
    cr_assert_eq(pcs_library_of("Open MPI v5.0.0"), PCS_LIB_UNKNOWN);
    cr_assert_eq(pcs_library_of(NULL), PCS_LIB_UNKNOWN);
}

/* Basic linear reduce, gather and scatter: the root's blocking receives (sends) come one
 * after the other (reduce: from size - 1 down, gather and scatter: from 0 up), so each is a
 * step of its own, which its peer shares; a rendezvous peer waits for its turn, not for
 * the step of all. */
Test(coll_sched, linear_roots_receive_one_step_at_a_time)
{
    static const struct { pcs_coll_t c; pcs_alg_t alg; int down; } t[] = {
        {PCS_REDUCE, PCS_ALG_REDUCE_LINEAR, 1}, {PCS_GATHER, PCS_ALG_GATHER_LINEAR, 0},
        {PCS_SCATTER, PCS_ALG_SCATTER_LINEAR, 0}};
    pcs_sched_t s = PCS_SCHED_INIT;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (int P = 2; P <= 6; P++)
            for (int root = 0; root < P; root++) {
                int32_t step_of[6]; /* a peer's step, and the root's for its transfer */
                int scatter = t[i].c == PCS_SCATTER;
                for (int r = 0; r < P; r++) {
                    pcs_args_t a = {.coll = t[i].c, .size = P, .rank = r, .root = root,
                                    .type_size = 8, .count = 100000, .commutative = true};
                    pcs_choice_t ch = {.alg = t[i].alg};
                    pcs_sched_reset(&s);
                    cr_assert_eq(pcs_generate(&a, &ch, &s), PCS_OK);
                    int seen = 0;
                    for (size_t k = 0; k < s.n; k++) {
                        const pcs_op_t *o = &s.ops[k];
                        if (r != root && o->kind == (scatter ? PCS_OP_RECV : PCS_OP_SEND)) {
                            step_of[r] = (int32_t)o->step;
                            seen++;
                        } else if (r == root &&
                                   o->kind == (scatter ? PCS_OP_SEND : PCS_OP_RECV)) {
                            /* the k-th transfer in the root's order is in step k */
                            int want = t[i].down ? (P - 1 - o->peer) - (root > o->peer)
                                                 : o->peer - (o->peer > root);
                            cr_assert_eq((int)o->step, want, "alg %d P %d root %d peer %d",
                                         (int)t[i].alg, P, root, o->peer);
                            seen++;
                        }
                    }
                    cr_assert_eq(seen, r == root ? P - 1 : 1);
                    cr_assert_eq(s.nsteps, (uint32_t)(r == root ? P - 1 : step_of[r] + 1));
                }
                for (int r = 0; r < P; r++) /* the senders' steps: 0 .. P - 2, once each */
                    for (int q = 0; q < r; q++)
                        cr_assert(r == root || q == root || step_of[r] != step_of[q]);
            }
    pcs_sched_free(&s);
}

/* What the executor does not see: the flags of the sends. Open MPI's linear alltoall(v/w)
 * start persistent sends (pml monitoring counts them as external traffic), and a reduce
 * leaf with a forced max_requests sends its segments with synchronous isends, at most
 * max_requests in flight (slots reused after a wait). */
Test(coll_sched, send_flags)
{
    static const pcs_alg_t linear[] = {PCS_ALG_ALLTOALL_LINEAR, PCS_ALG_ALLTOALLV_LINEAR,
                                       PCS_ALG_ALLTOALLW_LINEAR};
    static const pcs_coll_t coll[] = {PCS_ALLTOALL, PCS_ALLTOALLV, PCS_ALLTOALLW};
    const int64_t cnt[4] = {3, 3, 3, 3};
    pcs_sched_t s = PCS_SCHED_INIT;
    for (int i = 0; i < 3; i++) {
        pcs_args_t a = {.coll = coll[i], .size = 4, .rank = 1, .type_size = 4, .count = 3,
                        .counts = cnt, .scounts = cnt};
        pcs_choice_t ch = {.component = PCS_COMP_TUNED, .lib_alg = 1, .alg = linear[i]};
        pcs_sched_reset(&s);
        cr_assert_eq(pcs_generate(&a, &ch, &s), PCS_OK);
        int isends = 0;
        for (size_t k = 0; k < s.n; k++)
            if (s.ops[k].kind == PCS_OP_ISEND) {
                isends++;
                cr_expect_eq(s.ops[k].flags, PCS_F_PERSISTENT, "alg %d op %zu", (int)linear[i], k);
                cr_expect_eq(s.ops[k].a.buf, PCS_BUF_SEND);
                cr_expect_eq(s.ops[k].len, 12);
            }
        cr_expect_eq(isends, 3, "alg %d", (int)linear[i]);
    }
    /* chain reduce, 4 ranks, fanout 4: ranks 1-3 are leaves; 8 segments of one element */
    pcs_ompi_forced_t f;
    memset(&f, 0, sizeof f);
    f.use_dynamic_rules = true;
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_reduce_algorithm", "2"), 1);
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_reduce_algorithm_segmentsize",
                                     "4"), 1);
    cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_reduce_algorithm_max_requests",
                                     "2"), 1);
    pcs_args_t a = {.coll = PCS_REDUCE, .size = 4, .rank = 3, .root = 0, .type_size = 4,
                    .count = 8, .commutative = true};
    pcs_sched_reset(&s);
    cr_assert_eq(pcs_ompi41_schedule(&a, &f, &s), PCS_OK);
    cr_assert_eq(s.alg, PCS_ALG_REDUCE_CHAIN);
    int seg = 0, inflight = 0;
    for (size_t k = 0; k < s.n; k++) {
        const pcs_op_t *o = &s.ops[k];
        if (o->kind == PCS_OP_ISEND) {
            cr_expect_eq(o->flags, PCS_F_SYNC);
            cr_expect_eq(o->peer, 0);
            cr_expect_eq(o->a.buf, PCS_BUF_SEND);
            cr_expect_eq(o->a.off, (uint64_t)seg * 4);
            cr_expect_eq(o->len, 4);
            cr_expect_lt(o->req, 2);
            seg++;
            inflight++;
            cr_expect_leq(inflight, 2);
        } else if (o->kind == PCS_OP_WAIT) {
            inflight--;
        }
    }
    cr_expect_eq(seg, 8);
    cr_expect_eq(inflight, 0);
    cr_expect_eq(s.nreqs, 2);
    pcs_sched_free(&s);
}

/* A knomial radix is the user's to set (coll_tuned_bcast_algorithm_knomial_radix,
 * coll_libnbc_ibcast_knomial_radix). No value may hang or overflow the builder: below 2
 * (a tree that never grows) or too wide for a tree node, the blocking bcast has no
 * schedule; libnbc's knomial with a radix far above P is a flat tree, built in O(P). */
Test(coll_sched, knomial_radix_extremes_never_hang)
{
    pcs_sched_t s = PCS_SCHED_INIT;
    static const char *const bad[] = {"1", "200", "2147483647"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pcs_ompi_forced_t f = {0};
        cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_use_dynamic_rules", "1"), 1);
        cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_bcast_algorithm", "7"), 1);
        cr_assert_eq(pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_bcast_algorithm_knomial_radix",
                                         bad[i]), 1);
        pcs_args_t a = {.coll = PCS_BCAST, .size = 9, .rank = 0, .type_size = 8, .count = 64};
        pcs_choice_t ch;
        cr_assert_eq(pcs_ompi41_select(&a, &f, &ch), PCS_OK);
        cr_assert_eq(ch.alg, PCS_ALG_BCAST_KNOMIAL);
        pcs_sched_reset(&s);
        cr_expect_eq(pcs_generate(&a, &ch, &s), PCS_E_UNSUPPORTED, "radix %s", bad[i]);
    }
    /* the widest radix a node holds at this size still builds */
    pcs_ompi_forced_t f = {0};
    pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_use_dynamic_rules", "1");
    pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_bcast_algorithm", "7");
    pcs_ompi_forced_set(&f, "OMPI_MCA_coll_tuned_bcast_algorithm_knomial_radix", "100");
    pcs_args_t a = {.coll = PCS_BCAST, .size = 64, .rank = 0, .type_size = 8, .count = 64};
    pcs_choice_t ch;
    cr_assert_eq(pcs_ompi41_select(&a, &f, &ch), PCS_OK);
    cr_assert_eq(ch.alg, PCS_ALG_BCAST_KNOMIAL);
    pcs_sched_reset(&s);
    cr_expect_eq(pcs_generate(&a, &ch, &s), PCS_OK);
    /* libnbc: a radix of INT_MAX at 1000 ranks, every rank */
    pcs_ompi_forced_t g = {0};
    cr_assert_eq(pcs_ompi_forced_set(&g, "OMPI_MCA_coll_libnbc_ibcast_algorithm", "knomial"), 1);
    cr_assert_eq(pcs_ompi_forced_set(&g, "OMPI_MCA_coll_libnbc_ibcast_knomial_radix",
                                     "2147483647"), 1);
    size_t sends = 0;
    for (int r = 0; r < 1000; r++) {
        pcs_args_t b = {.coll = PCS_BCAST, .size = 1000, .rank = r, .root = 3, .type_size = 8,
                        .count = 64, .nonblocking = true};
        cr_assert_eq(pcs_ompi41_select(&b, &g, &ch), PCS_OK);
        cr_assert_eq(ch.alg, PCS_ALG_NBC_BCAST_KNOMIAL);
        pcs_sched_reset(&s);
        cr_assert_eq(pcs_generate(&b, &ch, &s), PCS_OK);
        for (size_t i = 0; i < s.n; i++)
            sends += s.ops[i].kind == PCS_OP_SEND || s.ops[i].kind == PCS_OP_ISEND;
    }
    cr_expect_eq(sends, 999, "the root sends to every other rank, nobody else sends");
    pcs_sched_free(&s);
}
