/* t_measure.c: every reduction op on the reducing collectives, plus the data-moving ones, with
 * values whose results depend on the order of the operations (double sums of 1/(k+1) ...),
 * printed as exact bytes by rank 0. run_steps_tests.sh compares the output of a plain run
 * with one under PHASOR_STEPS=measure: phasor's own execution of the library's schedules
 * must give the library's results bit for bit. Several sizes cross the libraries' thresholds
 * (small, medium, large messages pick different algorithms). */
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
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
