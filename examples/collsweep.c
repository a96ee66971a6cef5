/* collsweep.c: a sweep of collectives over message sizes, each call after a barrier, for
 * measuring and predicting collective times (bench/accuracy.sh, phasor predict).
 * Usage: collsweep [--colls LIST] [--min BYTES] [--max BYTES] [--factor F] [--reps N]
 *   LIST: bcast,allgather,alltoall,allreduce,reduce (default all of them)
 *   sizes from --min to --max (1 KiB .. 4 MiB), multiplied by --factor (4) each time; the
 *   size is what each rank contributes: the vector of bcast/reduce/allreduce, the per-rank
 *   block of allgather/alltoall (MPI_BYTE; MPI_INT with MPI_SUM for the reductions).
 * Prints, per collective and size, the median time over the reps of the slowest rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"bcast", "allgather", "alltoall", "allreduce", "reduce"};
enum { NCOLL = 5 };

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int usage(int me, const char *why)
{
    if (me == 0)
        fprintf(stderr, "collsweep: %s\nusage: collsweep [--colls LIST] [--min BYTES] "
                "[--max BYTES] [--factor F] [--reps N]\n", why);
    MPI_Finalize();
    return 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int use[NCOLL] = {1, 1, 1, 1, 1};
    long lo = 1024, hi = 4 << 20, factor = 4, reps = 5;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            return usage(me, "an option needs a value");
        char *end;
        if (!strcmp(argv[i], "--colls")) {
            memset(use, 0, sizeof(use));
            char buf[256];
            snprintf(buf, sizeof(buf), "%s", argv[++i]);
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                int k = 0;
                while (k < NCOLL && strcmp(t, names[k]))
                    k++;
                if (k == NCOLL)
                    return usage(me, "unknown collective");
                use[k] = 1;
            }
            continue;
        }
        long v = strtol(argv[i + 1], &end, 10);
        if (*end || v < 1)
            return usage(me, "values are positive integers");
        if (!strcmp(argv[i], "--min"))
            lo = v;
        else if (!strcmp(argv[i], "--max"))
            hi = v;
        else if (!strcmp(argv[i], "--factor"))
            factor = v;
        else if (!strcmp(argv[i], "--reps"))
            reps = v;
        else
            return usage(me, "unknown option");
        i++;
    }
    if (factor < 2 || hi < lo)
        return usage(me, "--factor must be >= 2 and --max >= --min");
    size_t maxbuf = (size_t)hi * (size_t)np;
    char *a = malloc(maxbuf), *b = malloc(maxbuf);
    double *t = malloc((size_t)reps * sizeof(double));
    if (!a || !b || !t) {
        fprintf(stderr, "collsweep: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < maxbuf; i++)
        a[i] = (char)(i * 7 + me);
    if (me == 0)
        printf("%-10s %10s %12s\n", "collective", "bytes", "median_us");
    for (int c = 0; c < NCOLL; c++) {
        if (!use[c])
            continue;
        for (long n = lo; n <= hi; n *= factor) {
            int cnt = (int)n, icnt = (int)(n / (long)sizeof(int));
            for (long r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                switch (c) {
                case 0: MPI_Bcast(a, cnt, MPI_BYTE, 0, MPI_COMM_WORLD); break;
                case 1: MPI_Allgather(a, cnt, MPI_BYTE, b, cnt, MPI_BYTE, MPI_COMM_WORLD); break;
                case 2: MPI_Alltoall(a, cnt, MPI_BYTE, b, cnt, MPI_BYTE, MPI_COMM_WORLD); break;
                case 3: MPI_Allreduce(a, b, icnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
                case 4: MPI_Reduce(a, b, icnt, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); break;
                }
                double dt = MPI_Wtime() - t0, mx;
                MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                t[r] = mx;
            }
            if (me == 0) {
                qsort(t, (size_t)reps, sizeof(double), cmp);
                printf("%-10s %10ld %12.1f\n", names[c], n, t[reps / 2] * 1e6);
            }
        }
    }
    free(a);
    free(b);
    free(t);
    MPI_Finalize();
    return 0;
}
