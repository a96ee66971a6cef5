/* t_coll_truth.c: a sweep of one collective (blocking or MPI_I*) on MPI_COMM_WORLD (sizes
 * 1 B to 4 MiB, a non-zero root, in place, a non-commutative op) for the library ground truth
 * (run_coll_truth_tests.sh): Open MPI's pml monitoring counts the run's internal messages per
 * peer, phasor steps rebuilds them from the log. One collective per run, because monitoring
 * only reports whole runs (its MPI_T flush pvar is not registered in 4.1.4, ompi#9260). Only
 * MPI_COMM_WORLD is used after MPI_Init: creating communicators sends internal messages the
 * log does not describe.
 * Usage: t_coll_truth COLLECTIVE|iCOLLECTIVE|all|none   (iCOLLECTIVE: the MPI_I* form;
 *        "none": MPI_Init and MPI_Finalize only)
 * Rank 0 prints one line per call: "K collective bytes root inplace op". */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV,
       C_GATHER, C_SCATTER, C_REDUCE_SCATTER, C_RSB, C_BARRIER, C_SCAN, C_EXSCAN, C_ALLTOALLW,
       C_GATHERV, C_SCATTERV, C_NCOLL };
static const char *const names[] = {"bcast", "reduce", "allreduce", "allgather", "allgatherv",
    "alltoall", "alltoallv", "gather", "scatter", "reduce_scatter", "reduce_scatter_block",
    "barrier", "scan", "exscan", "alltoallw", "gatherv", "scatterv"};
/* the nonblocking form: "i" + the name ("ibcast", ...); a request per call, then MPI_Wait */
static int nb;

static int rank, size;
static uint8_t *sb, *rb;
static MPI_Op noncomm;

/* 2x2 matrices of uint8 in 4-byte ints: in x inout, associative, not commutative */
static void matmul(void *in, void *io, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) {
        const uint8_t *a = (const uint8_t *)in + 4 * i;
        uint8_t *b = (uint8_t *)io + 4 * i, r[4];
        r[0] = (uint8_t)(a[0] * b[0] + a[1] * b[2]);
        r[1] = (uint8_t)(a[0] * b[1] + a[1] * b[3]);
        r[2] = (uint8_t)(a[2] * b[0] + a[3] * b[2]);
        r[3] = (uint8_t)(a[2] * b[1] + a[3] * b[3]);
        memcpy(b, r, 4);
    }
}

#define CALL(blocking, nonblocking)                                                          \
    do {                                                                                    \
        if (nb) {                                                                           \
            MPI_Request req_;                                                               \
            nonblocking;                                                                    \
            MPI_Wait(&req_, MPI_STATUS_IGNORE);                                             \
        } else {                                                                            \
            blocking;                                                                       \
        }                                                                                   \
    } while (0)
#define RQ , &req_

/* one call; bytes: the size the library decides on (vector, or one rank's block) */
static void one(int k, int c, int bytes, int root, int inplace, int nc)
{
    MPI_Datatype dt = nc ? MPI_INT : MPI_BYTE;
    MPI_Op op = nc ? noncomm : MPI_BXOR;
    int n = nc ? bytes / 4 : bytes, P = size;
    int cnt[64], dsp[64];
    for (int i = 0; i < P; i++) {
        cnt[i] = n + (i % 3) - 1 > 0 ? n + (i % 3) - 1 : 0; /* uneven v-counts */
        dsp[i] = i == 0 ? 0 : dsp[i - 1] + cnt[i - 1];
    }
    void *s = inplace ? MPI_IN_PLACE : sb;
    void *rs = inplace && rank == root ? MPI_IN_PLACE : sb; /* rooted, at the root */
    void *rr = inplace && rank == root ? MPI_IN_PLACE : rb;
    switch (c) {
    case C_BCAST:
        CALL(MPI_Bcast(rb, n, dt, root, MPI_COMM_WORLD),
             MPI_Ibcast(rb, n, dt, root, MPI_COMM_WORLD RQ));
        break;
    case C_REDUCE:
        CALL(MPI_Reduce(rs, rb, n, dt, op, root, MPI_COMM_WORLD),
             MPI_Ireduce(rs, rb, n, dt, op, root, MPI_COMM_WORLD RQ));
        break;
    case C_ALLREDUCE:
        CALL(MPI_Allreduce(s, rb, n, dt, op, MPI_COMM_WORLD),
             MPI_Iallreduce(s, rb, n, dt, op, MPI_COMM_WORLD RQ));
        break;
    case C_ALLGATHER:
        CALL(MPI_Allgather(s, n, dt, rb, n, dt, MPI_COMM_WORLD),
             MPI_Iallgather(s, n, dt, rb, n, dt, MPI_COMM_WORLD RQ));
        break;
    case C_ALLGATHERV:
        CALL(MPI_Allgatherv(s, cnt[rank], dt, rb, cnt, dsp, dt, MPI_COMM_WORLD),
             MPI_Iallgatherv(s, cnt[rank], dt, rb, cnt, dsp, dt, MPI_COMM_WORLD RQ));
        break;
    case C_ALLTOALL:
        CALL(MPI_Alltoall(s, n, dt, rb, n, dt, MPI_COMM_WORLD),
             MPI_Ialltoall(s, n, dt, rb, n, dt, MPI_COMM_WORLD RQ));
        break;
    case C_ALLTOALLV:
    case C_ALLTOALLW: {
        /* rank i sends cnt[(i + j) % P] to j: receive counts follow */
        int sc[64], sd[64], rc[64], rd[64];
        for (int j = 0; j < P; j++) {
            sc[j] = cnt[(rank + j) % P];
            rc[j] = inplace ? sc[j] : cnt[(j + rank) % P];
        }
        sd[0] = rd[0] = 0;
        for (int j = 1; j < P; j++) {
            sd[j] = sd[j - 1] + sc[j - 1];
            rd[j] = rd[j - 1] + rc[j - 1];
        }
        if (c == C_ALLTOALLV) {
            CALL(MPI_Alltoallv(s, sc, sd, dt, rb, rc, rd, dt, MPI_COMM_WORLD),
                 MPI_Ialltoallv(s, sc, sd, dt, rb, rc, rd, dt, MPI_COMM_WORLD RQ));
            break;
        }
        /* alltoallw: per-peer types (ints to odd peers where the size allows), byte
         * displacements */
        MPI_Datatype st[64], rt[64];
        for (int j = 0; j < P; j++) {
            st[j] = rt[j] = MPI_BYTE;
            sd[j] = j ? sd[j - 1] + sc[j - 1] : 0;
            rd[j] = j ? rd[j - 1] + rc[j - 1] : 0;
        }
        for (int j = 0; j < P; j++)
            if (!inplace && (rank + j) % 2 && sc[j] % 4 == 0 && rc[j] % 4 == 0) {
                st[j] = rt[j] = MPI_INT;
                sc[j] /= 4;
                rc[j] /= 4;
            }
        CALL(MPI_Alltoallw(s, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD),
             MPI_Ialltoallw(s, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD RQ));
        break;
    }
    case C_GATHER:
        CALL(MPI_Gather(rs, n, dt, rb, n, dt, root, MPI_COMM_WORLD),
             MPI_Igather(rs, n, dt, rb, n, dt, root, MPI_COMM_WORLD RQ));
        break;
    case C_GATHERV:
        CALL(MPI_Gatherv(rs, cnt[rank], dt, rb, cnt, dsp, dt, root, MPI_COMM_WORLD),
             MPI_Igatherv(rs, cnt[rank], dt, rb, cnt, dsp, dt, root, MPI_COMM_WORLD RQ));
        break;
    case C_SCATTER:
        CALL(MPI_Scatter(sb, n, dt, rr, n, dt, root, MPI_COMM_WORLD),
             MPI_Iscatter(sb, n, dt, rr, n, dt, root, MPI_COMM_WORLD RQ));
        break;
    case C_SCATTERV:
        CALL(MPI_Scatterv(sb, cnt, dsp, dt, rr, cnt[rank], dt, root, MPI_COMM_WORLD),
             MPI_Iscatterv(sb, cnt, dsp, dt, rr, cnt[rank], dt, root, MPI_COMM_WORLD RQ));
        break;
    case C_REDUCE_SCATTER:
        CALL(MPI_Reduce_scatter(s, rb, cnt, dt, op, MPI_COMM_WORLD),
             MPI_Ireduce_scatter(s, rb, cnt, dt, op, MPI_COMM_WORLD RQ));
        break;
    case C_RSB:
        CALL(MPI_Reduce_scatter_block(s, rb, n, dt, op, MPI_COMM_WORLD),
             MPI_Ireduce_scatter_block(s, rb, n, dt, op, MPI_COMM_WORLD RQ));
        break;
    case C_BARRIER: CALL(MPI_Barrier(MPI_COMM_WORLD), MPI_Ibarrier(MPI_COMM_WORLD RQ)); break;
    case C_SCAN:
        CALL(MPI_Scan(s, rb, n, dt, op, MPI_COMM_WORLD),
             MPI_Iscan(s, rb, n, dt, op, MPI_COMM_WORLD RQ));
        break;
    case C_EXSCAN:
        CALL(MPI_Exscan(s, rb, n, dt, op, MPI_COMM_WORLD),
             MPI_Iexscan(s, rb, n, dt, op, MPI_COMM_WORLD RQ));
        break;
    }
    if (rank == 0)
        printf("%d %s%s %d %d %d %s\n", k, nb ? "i" : "", names[c], bytes, root, inplace,
               nc ? "noncomm" : "bxor");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64)
        MPI_Abort(MPI_COMM_WORLD, 2);
    const char *which = argc > 1 ? argv[1] : "all";
    /* "iNAME": the nonblocking form (every name of a blocking one starts otherwise) */
    if (which[0] == 'i' && strcmp(which, "all") != 0) {
        nb = 1;
        which++;
    }
    MPI_Op_create(matmul, 0, &noncomm);
    static const int sizes[] = {1, 96, 3000, 70000, 1 << 20, 4 << 20};
    const int nsizes = sizeof sizes / sizeof sizes[0];
    const size_t cap = (size_t)8 << 20; /* bytes per rank buffer: block collectives cap */
    sb = calloc(cap + 64, 1);
    rb = calloc(cap + 64, 1);
    for (size_t i = 0; i < cap; i++)
        sb[i] = (uint8_t)(i * 7 + (size_t)rank), rb[i] = (uint8_t)(i * 3 + (size_t)rank);
    int k = 0;
    for (int c = 0; c < C_NCOLL; c++)
        for (int si = 0; si < nsizes; si++) {
            if (strcmp(which, "all") && strcmp(which, names[c]))
                break;
            int bytes = sizes[si];
            int block = c == C_ALLGATHER || c == C_ALLGATHERV || c == C_ALLTOALL ||
                        c == C_ALLTOALLV || c == C_GATHER || c == C_SCATTER ||
                        c == C_REDUCE_SCATTER || c == C_RSB || c == C_ALLTOALLW ||
                        c == C_GATHERV || c == C_SCATTERV;
            if (block && (size_t)bytes * (size_t)(size + 1) > cap)
                bytes = (int)(cap / (size_t)(size + 1));
            if (c == C_BARRIER && si > 0)
                break;
            /* rooted: a non-zero root; every other size in place */
            int root = size - 1, inplace = si % 2 == 1 && c != C_BCAST && c != C_BARRIER;
            one(k++, c, bytes, root, inplace, 0);
            /* non-commutative op (4-byte elements), where the rules look at commutativity */
            if ((c == C_REDUCE || c == C_ALLREDUCE || c == C_REDUCE_SCATTER || c == C_RSB ||
                 c == C_SCAN || (nb && c == C_EXSCAN)) && bytes >= 4 && si % 2 == 0)
                one(k++, c, bytes, 0, 0, 1);
        }
    MPI_Op_free(&noncomm);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
