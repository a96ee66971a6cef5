/* t_colls.c: every blocking collective on MPI_COMM_WORLD, the v/w variants with unequal per-peer
 * counts, each in-place form, roots other than 0, then one Bcast on MPI_COMM_SELF. Every result is
 * compared with what MPI must have computed. The expected events are check_events.py's colls();
 * keep the tags, counts and roots here in step with it. */
#include "mpitest.h"

#define MAXP 64

static int P, R;

static void bcasts(void)
{
    int b[5], w[5];
    double d[3], wd[3];
    for (int k = 0; k < 5; k++)
        w[k] = b[k] = mt_val(P - 1, 1, k);
    if (R != P - 1)
        memset(b, 0, sizeof b);
    MT_CHECK(MPI_Bcast(b, 5, MPI_INT, P - 1, MPI_COMM_WORLD));
    mt_result_i("bcast", b, w, 5);
    for (int k = 0; k < 3; k++)
        wd[k] = d[k] = k + 0.5;
    if (R != 0)
        memset(d, 0, sizeof d);
    MT_CHECK(MPI_Bcast(d, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    mt_result_d("bcast double", d, wd, 3);
}

static void gathers(void)
{
    int root = P / 2, sb[3];
    int *rb = mt_calloc((size_t)P * 3, sizeof(int)), *w = mt_calloc((size_t)P * 3, sizeof(int));

    /* Gather: 3 ints from everyone to P/2. */
    mt_fill_int(sb, 3, R, 2);
    for (int i = 0; i < P; i++)
        mt_fill_int(w + 3 * i, 3, i, 2);
    MT_CHECK(MPI_Gather(sb, 3, MPI_INT, rb, 3, MPI_INT, root, MPI_COMM_WORLD));
    mt_result_i("gather", rb, w, R == root ? 3 * P : 0);

    /* Gather in place at root 0: 2 ints, the root's own block already in place. */
    memset(rb, 0, (size_t)P * 3 * sizeof(int));
    for (int i = 0; i < P; i++)
        mt_fill_int(w + 2 * i, 2, i, 3);
    if (R == 0) {
        mt_fill_int(rb, 2, 0, 3);
        MT_CHECK(MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, rb, 2, MPI_INT, 0, MPI_COMM_WORLD));
    } else {
        mt_fill_int(sb, 2, R, 3);
        MT_CHECK(MPI_Gather(sb, 2, MPI_INT, NULL, 2, MPI_INT, 0, MPI_COMM_WORLD));
    }
    mt_result_i("gather inplace", rb, w, R == 0 ? 2 * P : 0);
    free(rb);
    free(w);

    /* Gatherv: rank i sends i+1 ints to P-1, placed with a gap of one int between blocks. */
    int counts[MAXP], displs[MAXP], total = 0, mine[MAXP + 1];
    for (int i = 0; i < P; i++) {
        counts[i] = i + 1;
        displs[i] = total;
        total += i + 2;
    }
    rb = mt_calloc((size_t)total, sizeof(int));
    w = mt_calloc((size_t)total, sizeof(int));
    for (int i = 0; i < P; i++)
        mt_fill_int(w + displs[i], i + 1, i, 4);
    mt_fill_int(mine, R + 1, R, 4);
    MT_CHECK(MPI_Gatherv(mine, R + 1, MPI_INT, rb, counts, displs, MPI_INT, P - 1, MPI_COMM_WORLD));
    mt_result_i("gatherv", rb, w, R == P - 1 ? total : 0);

    /* Gatherv in place at root 0. */
    memset(rb, 0, (size_t)total * sizeof(int));
    for (int i = 0; i < P; i++)
        mt_fill_int(w + displs[i], i + 1, i, 5);
    if (R == 0) {
        mt_fill_int(rb, 1, 0, 5);
        MT_CHECK(
            MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INT, rb, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    } else {
        mt_fill_int(mine, R + 1, R, 5);
        MT_CHECK(MPI_Gatherv(mine, R + 1, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, MPI_COMM_WORLD));
    }
    mt_result_i("gatherv inplace", rb, w, R == 0 ? total : 0);
    free(rb);
    free(w);
}

static void scatters(void)
{
    int root = 1 % P, rb[MAXP + 2], w[MAXP + 2];
    int *sb = mt_calloc((size_t)P * 2, sizeof(int));

    /* Scatter: 2 ints to everyone from 1 % P. */
    for (int i = 0; i < P; i++)
        mt_fill_int(sb + 2 * i, 2, i, 6);
    mt_fill_int(w, 2, R, 6);
    MT_CHECK(MPI_Scatter(R == root ? sb : NULL, 2, MPI_INT, rb, 2, MPI_INT, root, MPI_COMM_WORLD));
    mt_result_i("scatter", rb, w, 2);

    /* Scatter in place at root 0: the root keeps its block where it is. */
    for (int i = 0; i < P; i++)
        mt_fill_int(sb + 2 * i, 2, i, 7);
    mt_fill_int(w, 2, R, 7);
    if (R == 0) {
        MT_CHECK(MPI_Scatter(sb, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, 0, MPI_COMM_WORLD));
        mt_result_i("scatter inplace", sb, w, 2);
    } else {
        MT_CHECK(MPI_Scatter(NULL, 2, MPI_INT, rb, 2, MPI_INT, 0, MPI_COMM_WORLD));
        mt_result_i("scatter inplace", rb, w, 2);
    }
    free(sb);

    /* Scatterv from P/2: i+2 ints to rank i, with a one-int gap between blocks. */
    int counts[MAXP], displs[MAXP], total = 0;
    for (int i = 0; i < P; i++) {
        counts[i] = i + 2;
        displs[i] = total;
        total += i + 3;
    }
    sb = mt_calloc((size_t)total, sizeof(int));
    for (int i = 0; i < P; i++)
        mt_fill_int(sb + displs[i], i + 2, i, 8);
    mt_fill_int(w, R + 2, R, 8);
    root = P / 2;
    MT_CHECK(MPI_Scatterv(sb, counts, displs, MPI_INT, rb, R + 2, MPI_INT, root, MPI_COMM_WORLD));
    mt_result_i("scatterv", rb, w, R + 2);

    /* Scatterv in place at root 0. */
    for (int i = 0; i < P; i++)
        mt_fill_int(sb + displs[i], i + 2, i, 9);
    mt_fill_int(w, R + 2, R, 9);
    if (R == 0) {
        MT_CHECK(
            MPI_Scatterv(sb, counts, displs, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, 0, MPI_COMM_WORLD));
        mt_result_i("scatterv inplace", sb, w, 2);
    } else {
        MT_CHECK(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, rb, R + 2, MPI_INT, 0, MPI_COMM_WORLD));
        mt_result_i("scatterv inplace", rb, w, R + 2);
    }
    free(sb);
}

static void allgathers(void)
{
    int sb[2];
    int *rb = mt_calloc((size_t)P * 2, sizeof(int)), *w = mt_calloc((size_t)P * 2, sizeof(int));

    mt_fill_int(sb, 2, R, 10);
    for (int i = 0; i < P; i++)
        mt_fill_int(w + 2 * i, 2, i, 10);
    MT_CHECK(MPI_Allgather(sb, 2, MPI_INT, rb, 2, MPI_INT, MPI_COMM_WORLD));
    mt_result_i("allgather", rb, w, 2 * P);

    /* In place: the send count and type are ignored, so pass what many codes pass. */
    memset(rb, 0, (size_t)P * 2 * sizeof(int));
    mt_fill_int(rb + 2 * R, 2, R, 11);
    for (int i = 0; i < P; i++)
        mt_fill_int(w + 2 * i, 2, i, 11);
    MT_CHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 2, MPI_INT, MPI_COMM_WORLD));
    mt_result_i("allgather inplace", rb, w, 2 * P);
    free(rb);
    free(w);

    /* Allgatherv: rank i contributes i+1 doubles. */
    int counts[MAXP], displs[MAXP], total = 0;
    double mine[MAXP + 1];
    for (int i = 0; i < P; i++) {
        counts[i] = i + 1;
        displs[i] = total;
        total += i + 1;
    }
    double *rd = mt_calloc((size_t)total, sizeof(double)),
           *wd = mt_calloc((size_t)total, sizeof(double));
    mt_fill_dbl(mine, R + 1, R, 12);
    for (int i = 0; i < P; i++)
        mt_fill_dbl(wd + displs[i], i + 1, i, 12);
    MT_CHECK(
        MPI_Allgatherv(mine, R + 1, MPI_DOUBLE, rd, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD));
    mt_result_d("allgatherv", rd, wd, total);

    memset(rd, 0, (size_t)total * sizeof(double));
    mt_fill_dbl(rd + displs[R], R + 1, R, 13);
    for (int i = 0; i < P; i++)
        mt_fill_dbl(wd + displs[i], i + 1, i, 13);
    MT_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rd, counts, displs, MPI_DOUBLE,
                            MPI_COMM_WORLD));
    mt_result_d("allgatherv inplace", rd, wd, total);
    free(rd);
    free(wd);
}

/* What rank `from` sends rank `to` in the all-to-all tests: element k of that block. */
static int a2a(int from, int to, int tag, int k) { return mt_val(from, tag, to * 10 + k); }
static int pair_count(int i, int j) { return (i + j) % 3 + 1; }

static void alltoalls(void)
{
    int *sb = mt_calloc((size_t)P * 3, sizeof(int)), *rb = mt_calloc((size_t)P * 3, sizeof(int));
    int *w = mt_calloc((size_t)P * 3, sizeof(int));

    /* Alltoall: 2 ints per peer. */
    for (int j = 0; j < P; j++)
        for (int k = 0; k < 2; k++) {
            sb[2 * j + k] = a2a(R, j, 14, k);
            w[2 * j + k] = a2a(j, R, 14, k);
        }
    MT_CHECK(MPI_Alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, MPI_COMM_WORLD));
    mt_result_i("alltoall", rb, w, 2 * P);

    for (int j = 0; j < P; j++)
        for (int k = 0; k < 2; k++) {
            rb[2 * j + k] = a2a(R, j, 15, k);
            w[2 * j + k] = a2a(j, R, 15, k);
        }
    MT_CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 2, MPI_INT, MPI_COMM_WORLD));
    mt_result_i("alltoall inplace", rb, w, 2 * P);

    /* Alltoallv: (i+j)%3+1 ints between i and j; receive blocks with a one-int gap. */
    int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP], st = 0, rt = 0;
    for (int j = 0; j < P; j++) {
        sc[j] = rc[j] = pair_count(R, j);
        sd[j] = st;
        rd[j] = rt;
        st += sc[j];
        rt += rc[j] + 1;
    }
    free(rb);
    free(w);
    rb = mt_calloc((size_t)rt, sizeof(int));
    w = mt_calloc((size_t)rt, sizeof(int));
    for (int j = 0; j < P; j++)
        for (int k = 0; k < sc[j]; k++) {
            sb[sd[j] + k] = a2a(R, j, 16, k);
            w[rd[j] + k] = a2a(j, R, 16, k);
        }
    MT_CHECK(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
    mt_result_i("alltoallv", rb, w, rt);

    memset(rb, 0, (size_t)rt * sizeof(int));
    for (int j = 0; j < P; j++)
        for (int k = 0; k < rc[j]; k++) {
            rb[rd[j] + k] = a2a(R, j, 17, k);
            w[rd[j] + k] = a2a(j, R, 17, k);
        }
    MT_CHECK(MPI_Alltoallv(MPI_IN_PLACE, rc, rd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
    mt_result_i("alltoallv inplace", rb, w, rt);
    free(sb);
    free(rb);
    free(w);
}

/* Alltoallw: between i and j, (i+j)%3+1 elements of MPI_INT if i+j is odd, else MPI_DOUBLE;
 * every block starts at a multiple of 8 bytes. */
static MPI_Datatype pair_type(int i, int j) { return (i + j) % 2 ? MPI_INT : MPI_DOUBLE; }

static void put_w(char *base, int disp, int from, int to, int tag)
{
    for (int k = 0; k < pair_count(from, to); k++) {
        if (pair_type(from, to) == MPI_INT)
            ((int *)(base + disp))[k] = a2a(from, to, tag, k);
        else
            ((double *)(base + disp))[k] = a2a(from, to, tag, k) + 0.25;
    }
}

static void alltoallw(void)
{
    int cnt[MAXP], disp[MAXP], total = 0;
    MPI_Datatype ty[MAXP];
    for (int j = 0; j < P; j++) {
        cnt[j] = pair_count(R, j);
        ty[j] = pair_type(R, j);
        disp[j] = total;
        total += 8 * cnt[j];
    }
    char *sb = mt_calloc((size_t)total, 1), *rb = mt_calloc((size_t)total, 1),
         *w = mt_calloc((size_t)total, 1);
    for (int j = 0; j < P; j++) {
        put_w(sb, disp[j], R, j, 18);
        put_w(w, disp[j], j, R, 18);
    }
    MT_CHECK(MPI_Alltoallw(sb, cnt, disp, ty, rb, cnt, disp, ty, MPI_COMM_WORLD));
    int bad = memcmp(rb, w, (size_t)total) != 0;
    mt_printf("alltoallw: bytes=%d bad=%d\n", total, bad);
    MT_EXPECT(!bad, "alltoallw: wrong data");

    memset(rb, 0, (size_t)total);
    for (int j = 0; j < P; j++) {
        put_w(rb, disp[j], R, j, 19);
        put_w(w, disp[j], j, R, 19);
    }
    MT_CHECK(MPI_Alltoallw(MPI_IN_PLACE, cnt, disp, ty, rb, cnt, disp, ty, MPI_COMM_WORLD));
    bad = memcmp(rb, w, (size_t)total) != 0;
    mt_printf("alltoallw inplace: bytes=%d bad=%d\n", total, bad);
    MT_EXPECT(!bad, "alltoallw inplace: wrong data");
    free(sb);
    free(rb);
    free(w);
}

static void reductions(void)
{
    int si[4], ri[4], wi[4];
    double sd[3], rd[3], wd[3];

    /* Reduce SUM of 4 ints to P-1. */
    for (int k = 0; k < 4; k++) {
        si[k] = R * 10 + k + 1;
        wi[k] = 0;
        for (int i = 0; i < P; i++)
            wi[k] += i * 10 + k + 1;
    }
    MT_CHECK(MPI_Reduce(si, ri, 4, MPI_INT, MPI_SUM, P - 1, MPI_COMM_WORLD));
    mt_result_i("reduce", ri, wi, R == P - 1 ? 4 : 0);

    /* Reduce MAX of 3 doubles in place at root 0. */
    for (int k = 0; k < 3; k++) {
        rd[k] = sd[k] = (R * 7) % 5 + k;
        wd[k] = 0;
        for (int i = 0; i < P; i++)
            if ((i * 7) % 5 + k > wd[k])
                wd[k] = (i * 7) % 5 + k;
    }
    if (R == 0)
        MT_CHECK(MPI_Reduce(MPI_IN_PLACE, rd, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    else
        MT_CHECK(MPI_Reduce(sd, NULL, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    mt_result_d("reduce inplace", rd, wd, R == 0 ? 3 : 0);

    /* Allreduce SUM of 3 doubles; in place MIN of 2 ints. */
    for (int k = 0; k < 3; k++) {
        sd[k] = R + 0.5 * k;
        wd[k] = 0;
        for (int i = 0; i < P; i++)
            wd[k] += i + 0.5 * k;
    }
    MT_CHECK(MPI_Allreduce(sd, rd, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    mt_result_d("allreduce", rd, wd, 3);
    for (int k = 0; k < 2; k++) {
        ri[k] = 100 - R + k;
        wi[k] = 100 - (P - 1) + k;
    }
    MT_CHECK(MPI_Allreduce(MPI_IN_PLACE, ri, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    mt_result_i("allreduce inplace", ri, wi, 2);
}

/* A user op that is not commutative: composition of affine maps x -> a x + b (pairs of ints,
 * mod 1000), so a wrong order gives a wrong result. */
static void affine_compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        int a1 = a[2 * i], b1 = a[2 * i + 1], a2 = b[2 * i], b2 = b[2 * i + 1];
        b[2 * i] = (a2 * a1) % 1000; /* x -> a2 (a1 x + b1) + b2: in first, then inout */
        b[2 * i + 1] = (a2 * b1 + b2) % 1000;
    }
}

static void allreduce_user_op(void)
{
    MPI_Datatype pair;
    MPI_Op op;
    MT_CHECK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MT_CHECK(MPI_Type_commit(&pair));
    MT_CHECK(MPI_Op_create(affine_compose, 0, &op));
    int v[2] = {R + 2, R + 1}, w[2] = {1, 0}, got[2];
    for (int i = 0; i < P; i++) { /* MPI's order: v0 op v1 op ... = f_{P-1} o ... o f0 */
        int a = i + 2, b = i + 1;
        w[1] = (a * w[1] + b) % 1000;
        w[0] = (a * w[0]) % 1000;
    }
    MT_CHECK(MPI_Allreduce(v, got, 1, pair, op, MPI_COMM_WORLD));
    mt_result_i("allreduce noncommutative user op", got, w, 2);
    MT_CHECK(MPI_Op_free(&op));
    MT_CHECK(MPI_Type_free(&pair));
}

static void reduce_scatters(void)
{
    int counts[MAXP], off[MAXP], total = 0;
    for (int i = 0; i < P; i++) {
        counts[i] = i + 1;
        off[i] = total;
        total += i + 1;
    }
    int n = 2 * P > total ? 2 * P : total;
    int *sb = mt_calloc((size_t)n, sizeof(int)), *rb = mt_calloc((size_t)n, sizeof(int));
    int *w = mt_calloc((size_t)n, sizeof(int));

    /* Reduce_scatter SUM: element e of the input is R + e; rank i gets i+1 elements. */
    for (int e = 0; e < total; e++)
        sb[e] = R + e;
    for (int k = 0; k < R + 1; k++)
        w[k] = P * (off[R] + k) + P * (P - 1) / 2;
    MT_CHECK(MPI_Reduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    mt_result_i("reduce_scatter", rb, w, R + 1);

    for (int e = 0; e < total; e++)
        rb[e] = R + e;
    MT_CHECK(MPI_Reduce_scatter(MPI_IN_PLACE, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    mt_result_i("reduce_scatter inplace", rb, w, R + 1);

    /* Reduce_scatter_block SUM of 2 ints per rank: element e of the input is R*e + 1. */
    for (int e = 0; e < 2 * P; e++)
        sb[e] = R * e + 1;
    for (int k = 0; k < 2; k++)
        w[k] = (2 * R + k) * P * (P - 1) / 2 + P;
    MT_CHECK(MPI_Reduce_scatter_block(sb, rb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    mt_result_i("reduce_scatter_block", rb, w, 2);

    for (int e = 0; e < 2 * P; e++)
        rb[e] = R * e + 1;
    MT_CHECK(MPI_Reduce_scatter_block(MPI_IN_PLACE, rb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    mt_result_i("reduce_scatter_block inplace", rb, w, 2);
    free(sb);
    free(rb);
    free(w);
}

static void scans(void)
{
    int sb[2], rb[2], w[2];
    for (int k = 0; k < 2; k++) {
        sb[k] = R + k + 1;
        w[k] = 0;
        for (int i = 0; i <= R; i++)
            w[k] += i + k + 1;
    }
    MT_CHECK(MPI_Scan(sb, rb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    mt_result_i("scan", rb, w, 2);
    memcpy(rb, sb, sizeof rb);
    MT_CHECK(MPI_Scan(MPI_IN_PLACE, rb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    mt_result_i("scan inplace", rb, w, 2);

    /* Exscan: rank 0's result is undefined, so it is not looked at. */
    for (int k = 0; k < 2; k++)
        w[k] -= R + k + 1;
    MT_CHECK(MPI_Exscan(sb, rb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    mt_result_i("exscan", rb, w, R == 0 ? 0 : 2);
    memcpy(rb, sb, sizeof rb);
    MT_CHECK(MPI_Exscan(MPI_IN_PLACE, rb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    mt_result_i("exscan inplace", rb, w, R == 0 ? 0 : 2);
}

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    P = mt.size;
    R = mt.rank;
    if (P > MAXP) {
        mt_fail(__FILE__, __LINE__, "at most %d ranks", MAXP);
        return mt_finish();
    }
    MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    bcasts();
    gathers();
    scatters();
    allgathers();
    alltoalls();
    alltoallw();
    reductions();
    allreduce_user_op();
    reduce_scatters();
    scans();

    int one = R, w = R;
    MT_CHECK(MPI_Bcast(&one, 1, MPI_INT, 0, MPI_COMM_SELF));
    mt_result_i("bcast self", &one, &w, 1);
    MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    return mt_finish();
}
