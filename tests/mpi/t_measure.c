/* t_measure.c: every reduction op on the reducing collectives, plus the data-moving ones, with
 * values whose results depend on the order of the operations (double sums of 1/(k+1) ...),
 * printed as exact bytes by rank 0. run_steps_tests.sh compares the output of a plain run
 * with one under PHASOR_STEPS=measure: phasor's own execution of the library's schedules
 * must give the library's results bit for bit. Several sizes cross the libraries' thresholds
 * (small, medium, large messages pick different algorithms). Derived datatypes (vector,
 * indexed, struct of one base type, struct of mixed types, resized with and without a lower
 * bound) go through every collective, the reductions with user ops. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int P, R;

static void out(const char *what, int n, const void *buf, size_t bytes)
{
    /* every rank's result, gathered to rank 0 and printed as a checksum and some bytes */
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = buf;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    uint64_t *all = R == 0 ? malloc((size_t)P * sizeof(*all)) : NULL;
    MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (R == 0) {
        printf("%s n=%d:", what, n);
        for (int i = 0; i < P; i++)
            printf(" %016llx", (unsigned long long)all[i]);
        printf("\n");
        free(all);
    }
}

typedef struct { double v; int i; } dint_t;

/* MPI_DOUBLE_INT results: the value and index only (the struct's padding is not data) */
static void loc_out(const char *what, int n, const dint_t *l)
{
    double *v = malloc((size_t)n * (sizeof(double) + sizeof(int)));
    int *ix = (int *)(v + n);
    for (int k = 0; k < n; k++) {
        v[k] = l[k].v;
        ix[k] = l[k].i;
    }
    out(what, n, v, (size_t)n * (sizeof(double) + sizeof(int)));
    free(v);
}

/* ---- derived datatypes: phasor packs what is not contiguous, runs the schedule on the packed
 * bytes and unpacks; holes between elements must keep what the program put there ---- */
enum { NT = 6 };
static MPI_Datatype dt[NT];
static const char *const dt_name[NT] = {"vector", "indexed", "struct1", "mixed", "resized",
                                        "resized-lb"};
static const int dt_ints[NT] = {0, 1, 0, 0, 1, 0}; /* base int (else double or mixed) */

static void make_types(void)
{
    MPI_Datatype t;
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &t); /* d[0], d[2]; extent 24 */
    dt[0] = t;
    int bl[3] = {2, 1}, di[2] = {0, 3};
    MPI_Type_indexed(2, bl, di, MPI_INT, &dt[1]); /* i[0..1], i[3]; extent 16 */
    int sbl[2] = {2, 1};
    MPI_Aint sd[2] = {0, 24};
    MPI_Datatype st[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Type_create_struct(2, sbl, sd, st, &dt[2]); /* 3 doubles in 32 bytes */
    int mbl[3] = {1, 1, 1};
    MPI_Aint md[3] = {0, 8, 12};
    MPI_Datatype mt[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
    MPI_Type_create_struct(3, mbl, md, mt, &t);
    MPI_Type_create_resized(t, 0, 24, &dt[3]); /* 13 bytes in 24 */
    MPI_Type_free(&t);
    MPI_Type_create_resized(MPI_INT, 0, 12, &dt[4]);
    MPI_Type_create_resized(MPI_DOUBLE, -8, 24, &dt[5]);
    for (int i = 0; i < NT; i++)
        MPI_Type_commit(&dt[i]);
}

/* A user op over every derived type above, on the library's layout (elements at multiples
 * of the extent): each base value v of inout becomes in/2 + v (order matters: it is not
 * commutative, whatever the op's flag says). */
static void user_mix(void *in, void *inout, int *len, MPI_Datatype *t)
{
    static const int dofs[NT][3] = {{0, 16, -1}, {-1}, {0, 8, 24}, {0, -1}, {-1}, {0, -1}};
    static const int iofs[NT][3] = {{-1}, {0, 4, 12}, {-1}, {8, -1}, {0, -1}, {-1}};
    int ti = 0;
    while (ti < NT && dt[ti] != *t)
        ti++;
    if (ti == NT)
        return;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*t, &lb, &ext);
    for (int i = 0; i < *len; i++) {
        char *x = (char *)in + i * ext, *y = (char *)inout + i * ext;
        for (int k = 0; k < 3 && dofs[ti][k] >= 0; k++)
            *(double *)(y + dofs[ti][k]) += *(double *)(x + dofs[ti][k]) / 2;
        for (int k = 0; k < 3 && iofs[ti][k] >= 0; k++)
            *(unsigned *)(y + iofs[ti][k]) += *(unsigned *)(x + iofs[ti][k]) >> 1;
        if (ti == 3)
            y[12] = (char)(y[12] ^ (x[12] << 1));
    }
}

static void derived(int n, unsigned char *sb, unsigned char *rb, size_t cap)
{
    int *cnt = malloc(8 * (size_t)P * sizeof(int)), *dsp = cnt + P, *rcnt = cnt + 2 * P,
        *rdsp = cnt + 3 * P, *dc = cnt + 4 * P, *dd = cnt + 5 * P, *drc = cnt + 6 * P,
        *drd = cnt + 7 * P;
    MPI_Op ops[2];
    MPI_Op_create(user_mix, 1, &ops[0]);
    MPI_Op_create(user_mix, 0, &ops[1]);
    for (int ti = 0; ti < NT; ti++) {
        MPI_Datatype t = dt[ti];
#ifdef MPICH_VERSION
        if (ti == 3 && n >= 5000) /* MPICH 4.0's own binomial gather truncates it */
            continue;
#endif
        MPI_Aint lb, ext, tlb, text;
        MPI_Type_get_extent(t, &lb, &ext);
        MPI_Type_get_true_extent(t, &tlb, &text);
        char what[96];
#define RESET()                                                                             \
    do {                                                                                    \
        for (size_t k = 0; k < cap / 8; k++) {                                              \
            if (dt_ints[ti]) {                                                              \
                ((int *)sb)[2 * k] = (int)(k * 31 + (size_t)R * 7) % 1000;                   \
                ((int *)sb)[2 * k + 1] = (int)(k ^ (size_t)R) % 1000;                        \
            } else {                                                                        \
                ((double *)sb)[k] = 1.0 / (double)(k + (size_t)R + 1);                      \
            }                                                                               \
        }                                                                                   \
        memset(rb, 0x5a, cap);                                                              \
    } while (0)
#define OUT(name, buf, bytes)                                                               \
    do {                                                                                    \
        snprintf(what, sizeof(what), "%s %s", name, dt_name[ti]);                           \
        out(what, n, buf, bytes);                                                           \
    } while (0)
        const size_t all = (size_t)n * P * (size_t)ext;
        RESET();
        MPI_Bcast(sb, n, t, P / 2, MPI_COMM_WORLD);
        OUT("bcast", sb, (size_t)n * (size_t)ext);
        RESET();
        MPI_Allgather(sb, n, t, rb, n, t, MPI_COMM_WORLD);
        OUT("allgather", rb, all);
        RESET();
        memcpy(rb, sb, cap);
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, n, t, MPI_COMM_WORLD);
        OUT("allgather in place", rb, all);
        RESET();
        MPI_Alltoall(sb, n, t, rb, n, t, MPI_COMM_WORLD);
        OUT("alltoall", rb, all);
        RESET();
        MPI_Gather(sb, n, t, rb, n, t, 1 % P, MPI_COMM_WORLD);
        OUT("gather", rb, R == 1 % P ? all : 0);
        RESET();
        MPI_Scatter(sb, n, t, rb, n, t, P - 1, MPI_COMM_WORLD);
        OUT("scatter", rb, (size_t)n * (size_t)ext);
        /* v-variants: ragged blocks, displacements in extents, in reverse rank order */
        for (int k = 0; k < P; k++) {
            cnt[k] = n / (k + 1) + k % 2;
            dsp[k] = (P - 1 - k) * (n + 1);
            rcnt[k] = n / (R + 1) + R % 2;
            rdsp[k] = k * (n + 1);
        }
        RESET();
        MPI_Allgatherv(sb, cnt[R], t, rb, cnt, dsp, t, MPI_COMM_WORLD);
        OUT("allgatherv", rb, (size_t)P * (n + 1) * (size_t)ext);
        RESET();
        MPI_Alltoallv(sb, cnt, dsp, t, rb, rcnt, rdsp, t, MPI_COMM_WORLD);
        OUT("alltoallv", rb, (size_t)P * (n + 1) * (size_t)ext);
        RESET();
        MPI_Gatherv(sb, cnt[R], t, rb, cnt, dsp, t, 0, MPI_COMM_WORLD);
        OUT("gatherv", rb, R == 0 ? (size_t)P * (n + 1) * (size_t)ext : 0);
        RESET();
        MPI_Scatterv(sb, cnt, dsp, t, rb, cnt[R], t, P - 1, MPI_COMM_WORLD);
        OUT("scatterv", rb, (size_t)(n + 1) * (size_t)ext);
        if (ti == 0) { /* the same bytes through different types on the two sides */
            RESET();
            MPI_Allgather(sb, 2 * n, MPI_DOUBLE, rb, n, t, MPI_COMM_WORLD);
            OUT("allgather double->", rb, all);
            RESET();
            MPI_Alltoall(sb, n, t, rb, 2 * n, MPI_DOUBLE, MPI_COMM_WORLD);
            OUT("alltoall ->double", rb, (size_t)n * P * 16);
            /* v-variants with different element sizes on the two sides */
            for (int k = 0; k < P; k++) {
                dc[k] = 2 * cnt[k];
                dd[k] = 3 * dsp[k]; /* the vector's extent is 3 doubles */
                drc[k] = 2 * rcnt[k];
                drd[k] = 3 * rdsp[k];
            }
            RESET();
            MPI_Alltoallv(sb, dc, dd, MPI_DOUBLE, rb, rcnt, rdsp, t, MPI_COMM_WORLD);
            OUT("alltoallv double->", rb, (size_t)P * (n + 1) * (size_t)ext);
            RESET();
            MPI_Alltoallv(sb, cnt, dsp, t, rb, drc, drd, MPI_DOUBLE, MPI_COMM_WORLD);
            OUT("alltoallv ->double", rb, (size_t)P * (n + 1) * (size_t)ext);
            RESET();
            MPI_Gatherv(sb, 2 * cnt[R], MPI_DOUBLE, rb, cnt, dsp, t, 1 % P, MPI_COMM_WORLD);
            OUT("gatherv double->", rb, R == 1 % P ? (size_t)P * (n + 1) * (size_t)ext : 0);
            RESET();
            MPI_Scatterv(sb, cnt, dsp, t, rb, 2 * cnt[R], MPI_DOUBLE, 0, MPI_COMM_WORLD);
            OUT("scatterv ->double", rb, (size_t)cnt[R] * 16);
        }
        /* reductions: user ops see the type's own layout (predefined ops on derived types
         * are errors in both libraries) */
        for (int oi = 0; oi < 2; oi++) {
            MPI_Op op = ops[oi];
            const char *on = oi ? "noncomm" : "comm";
            char name[64];
            RESET();
            MPI_Allreduce(sb, rb, n, t, op, MPI_COMM_WORLD);
            snprintf(name, sizeof(name), "allreduce user %s", on);
            OUT(name, rb, (size_t)n * (size_t)ext);
            RESET();
            MPI_Reduce(sb, rb, n, t, op, P - 1, MPI_COMM_WORLD);
            snprintf(name, sizeof(name), "reduce user %s", on);
            OUT(name, rb, R == P - 1 ? (size_t)n * (size_t)ext : 0);
            RESET();
            memcpy(rb, sb, cap);
            MPI_Allreduce(MPI_IN_PLACE, rb, n, t, op, MPI_COMM_WORLD);
            snprintf(name, sizeof(name), "allreduce in place user %s", on);
            OUT(name, rb, (size_t)n * (size_t)ext);
            RESET();
            MPI_Scan(sb, rb, n, t, op, MPI_COMM_WORLD);
            snprintf(name, sizeof(name), "scan user %s", on);
            OUT(name, rb, (size_t)n * (size_t)ext);
            RESET();
            MPI_Exscan(sb, rb, n, t, op, MPI_COMM_WORLD);
            snprintf(name, sizeof(name), "exscan user %s", on);
            OUT(name, rb, R ? (size_t)n * (size_t)ext : 0);
            /* MPICH 4.0's own non-commutative reduce_scatter(_block) corrupts memory with
             * types whose extent exceeds their true extent */
            if (oi && ext != text)
                continue;
            RESET();
            MPI_Reduce_scatter_block(sb, rb, n, t, op, MPI_COMM_WORLD);
            snprintf(name, sizeof(name), "reduce_scatter_block user %s", on);
            OUT(name, rb, (size_t)n * (size_t)ext);
            RESET();
            MPI_Reduce_scatter(sb, rb, cnt, t, op, MPI_COMM_WORLD);
            snprintf(name, sizeof(name), "reduce_scatter user %s", on);
            OUT(name, rb, (size_t)cnt[R] * (size_t)ext);
        }
#undef RESET
#undef OUT
    }
    MPI_Op_free(&ops[0]);
    MPI_Op_free(&ops[1]);
    free(cnt);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &R);
    static const int sizes[] = {1, 7, 300, 5000, 70000};
    static const struct { MPI_Op op; const char *name; int fp, logical; } ops[] = {
        {MPI_SUM, "sum", 1, 0}, {MPI_PROD, "prod", 1, 0}, {MPI_MAX, "max", 1, 0},
        {MPI_MIN, "min", 1, 0}, {MPI_LAND, "land", 0, 1}, {MPI_LOR, "lor", 0, 1},
        {MPI_LXOR, "lxor", 0, 1}, {MPI_BAND, "band", 0, 0}, {MPI_BOR, "bor", 0, 0},
        {MPI_BXOR, "bxor", 0, 0}};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        int n = sizes[si];
        double *d = malloc((size_t)n * P * sizeof(double)), *dr = malloc((size_t)n * P * sizeof(double));
        int *x = malloc((size_t)n * P * sizeof(int)), *xr = malloc((size_t)n * P * sizeof(int));
        dint_t *l = malloc((size_t)n * sizeof(dint_t)), *lr = malloc((size_t)n * sizeof(dint_t));
        for (size_t oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++) {
            char what[64];
            for (int k = 0; k < n * P; k++) {
                d[k] = 1.0 / (k + R + 1) + (R % 3) * 1e-9 * k;
                x[k] = ops[oi].logical ? ((k + R) % 3 == 0) : (int)((k * 2654435761u) ^ (unsigned)R * 40503u);
            }
            if (ops[oi].fp) {
                if (ops[oi].op == MPI_PROD)
                    for (int k = 0; k < n * P; k++)
                        d[k] = 1.0 + d[k] * 1e-3;
                snprintf(what, sizeof(what), "allreduce double %s", ops[oi].name);
                MPI_Allreduce(d, dr, n, MPI_DOUBLE, ops[oi].op, MPI_COMM_WORLD);
                out(what, n, dr, (size_t)n * sizeof(double));
                snprintf(what, sizeof(what), "reduce double %s", ops[oi].name);
                memset(dr, 0, (size_t)n * sizeof(double));
                MPI_Reduce(d, dr, n, MPI_DOUBLE, ops[oi].op, P - 1, MPI_COMM_WORLD);
                out(what, n, dr, (size_t)n * sizeof(double));
                snprintf(what, sizeof(what), "scan double %s", ops[oi].name);
                MPI_Scan(d, dr, n, MPI_DOUBLE, ops[oi].op, MPI_COMM_WORLD);
                out(what, n, dr, (size_t)n * sizeof(double));
                snprintf(what, sizeof(what), "reduce_scatter_block double %s", ops[oi].name);
                MPI_Reduce_scatter_block(d, dr, n, MPI_DOUBLE, ops[oi].op, MPI_COMM_WORLD);
                out(what, n, dr, (size_t)n * sizeof(double));
            }
            snprintf(what, sizeof(what), "allreduce int %s", ops[oi].name);
            MPI_Allreduce(x, xr, n, MPI_INT, ops[oi].op, MPI_COMM_WORLD);
            out(what, n, xr, (size_t)n * sizeof(int));
            snprintf(what, sizeof(what), "exscan int %s", ops[oi].name);
            memset(xr, 0, (size_t)n * sizeof(int));
            MPI_Exscan(x, xr, n, MPI_INT, ops[oi].op, MPI_COMM_WORLD);
            if (R == 0) /* rank 0's exscan result is undefined */
                memset(xr, 0, (size_t)n * sizeof(int));
            out(what, n, xr, (size_t)n * sizeof(int));
        }
        for (int k = 0; k < n; k++)
            l[k] = (dint_t){(double)((k * 7 + R * 13) % 11), R};
        MPI_Allreduce(l, lr, n, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
        loc_out("allreduce maxloc", n, lr);
        MPI_Allreduce(l, lr, n, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
        loc_out("allreduce minloc", n, lr);
        /* data movement */
        MPI_Bcast(d, n, MPI_DOUBLE, P / 2, MPI_COMM_WORLD);
        out("bcast", n, d, (size_t)n * sizeof(double));
        MPI_Allgather(x, n, MPI_INT, xr, n, MPI_INT, MPI_COMM_WORLD);
        out("allgather", n, xr, (size_t)n * P * sizeof(int));
        MPI_Alltoall(x, n, MPI_INT, xr, n, MPI_INT, MPI_COMM_WORLD);
        out("alltoall", n, xr, (size_t)n * P * sizeof(int));
        memset(xr, 0, (size_t)n * P * sizeof(int));
        MPI_Gather(x, n, MPI_INT, xr, n, MPI_INT, 1 % P, MPI_COMM_WORLD);
        out("gather", n, xr, R == 1 % P ? (size_t)n * P * sizeof(int) : 0);
        MPI_Scatter(x, n, MPI_INT, xr, n, MPI_INT, P - 1, MPI_COMM_WORLD);
        out("scatter", n, xr, (size_t)n * sizeof(int));
        free(d); free(dr); free(x); free(xr); free(l); free(lr);
    }
    make_types();
    static const int dsizes[] = {1, 7, 300, 5000};
    for (size_t si = 0; si < sizeof(dsizes) / sizeof(dsizes[0]); si++) {
        size_t cap = (size_t)(dsizes[si] + 1) * P * 64;
        unsigned char *sb = malloc(cap), *rb = malloc(cap);
        derived(dsizes[si], sb, rb, cap);
        free(sb);
        free(rb);
    }
    for (int i = 0; i < NT; i++)
        MPI_Type_free(&dt[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
