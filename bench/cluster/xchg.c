/* xchg.c: how long an exchange takes, pair by pair, again and again. Every round of a
 * round-robin tournament (p - 1 rounds, every pair once), after a barrier, each rank
 * exchanges BYTES with its partner (MPI_Sendrecv); the pair's time is the longer of its two
 * sides'. Repeated ITERS times, 0.2 s apart, one line per repetition, then per pair the
 * fewest, median and most ms. Shows whether an exchange runs both ways at once (about the
 * one-way time) or one way after the other (about twice it), and whether that holds for a
 * pair from one repetition to the next.
 * Usage: xchg [bytes (default 1048576)] [iters (default 10)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* circle method: in round k, r < p - 1 meets (2k - r) mod (p - 1), or p - 1 when that is r */
static int partner(int r, int k, int p)
{
    if (r == p - 1) {
        for (int q = 0; q < p - 1; q++)
            if (partner(q, k, p) == r)
                return q;
        return -1;
    }
    int q = ((2 * k - r) % (p - 1) + (p - 1)) % (p - 1);
    return q == r ? p - 1 : q;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long bytes = argc > 1 ? atol(argv[1]) : 1048576;
    long iters = argc > 2 ? atol(argv[2]) : 10;
    if (p < 2 || p % 2 || bytes < 1 || bytes > (1L << 30) || iters < 1 || iters > 100000) {
        if (me == 0)
            fprintf(stderr, "xchg: needs an even number of ranks, 1 <= bytes <= 1 GiB, "
                            "1 <= iters <= 100000\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int nr = p - 1;
    char *s = calloc(1, (size_t)bytes), *r = malloc((size_t)bytes);
    double *t = malloc((size_t)nr * sizeof(double));
    double *all = me == 0 ? malloc((size_t)p * nr * sizeof(double)) : NULL;
    double *hist = me == 0 ? malloc((size_t)iters * nr * (p / 2) * sizeof(double)) : NULL;
    if (!s || !r || !t || (me == 0 && (!all || !hist))) {
        fprintf(stderr, "xchg: rank %d: out of memory\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long it = 0; it < iters; it++) {
        for (int k = 0; k < nr; k++) {
            int q = partner(me, k, p);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Sendrecv(s, (int)bytes, MPI_BYTE, q, 1, r, (int)bytes, MPI_BYTE, q, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t[k] = MPI_Wtime() - t0;
        }
        MPI_Gather(t, nr, MPI_DOUBLE, all, nr, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (me == 0) {
            printf("%4ld:", it);
            int j = 0;
            for (int k = 0; k < nr; k++)
                for (int a = 0; a < p; a++) {
                    int b = partner(a, k, p);
                    if (a > b)
                        continue;
                    double x = all[a * nr + k], y = all[b * nr + k];
                    double ms = 1e3 * (x > y ? x : y);
                    hist[(size_t)j * iters + it] = ms;
                    j++;
                    printf(" %d-%d %.1f", a, b, ms);
                }
            printf("\n");
            fflush(stdout);
        }
        usleep(200000);
    }
    if (me == 0) {
        int j = 0;
        for (int k = 0; k < nr; k++)
            for (int a = 0; a < p; a++) {
                int b = partner(a, k, p);
                if (a > b)
                    continue;
                double *v = &hist[(size_t)j * iters];
                qsort(v, (size_t)iters, sizeof(double), cmp);
                printf("pair %d-%d: %.1f / %.1f / %.1f ms (fewest / median / most)\n", a, b,
                       v[0], (v[(iters - 1) / 2] + v[iters / 2]) / 2, v[iters - 1]);
                j++;
            }
    }
    free(s);
    free(r);
    free(t);
    free(all);
    free(hist);
    MPI_Finalize();
    return 0;
}
