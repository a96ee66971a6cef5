/* xchg.c: how long an exchange takes, pair by pair, again and again. Every round of a
 * round-robin tournament (p - 1 rounds, every pair once), after a barrier, each rank
 * exchanges BYTES with its partner (MPI_Sendrecv); the pair's time is the longer of its two
 * sides'. Repeated ITERS times, 0.2 s apart, one line per repetition, then per pair the
 * fewest, median and most ms. Shows whether an exchange runs both ways at once (about the
 * one-way time) or one way after the other (about twice it), and whether that holds for a
 * pair from one repetition to the next.
 * The rounds are the quick probe's (plog_probe_partner), so its pairs meet as here.
 * Usage: xchg [bytes (default 1048576)] [iters (default 10)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "plog_probe.h" /* plog_probe_partner: the quick probe's own rounds */

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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
    int nr = p - 1, npairs = nr * (p / 2);
    char *s = calloc(1, (size_t)bytes), *r = malloc((size_t)bytes);
    double *t = malloc((size_t)nr * sizeof(double));
    double *all = me == 0 ? malloc((size_t)p * nr * sizeof(double)) : NULL;
    double *hist = me == 0 ? malloc((size_t)iters * npairs * sizeof(double)) : NULL;
    int *pair = me == 0 ? malloc((size_t)npairs * 3 * sizeof(int)) : NULL; /* a, b, round */
    if (!s || !r || !t || (me == 0 && (!all || !hist || !pair))) {
        fprintf(stderr, "xchg: rank %d: out of memory\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (me == 0) /* round by round, each pair once, lower rank first */
        for (int k = 0, j = 0; k < nr; k++)
            for (int a = 0; a < p; a++) {
                int b = plog_probe_partner(a, k, p);
                if (a < b)
                    pair[3 * j] = a, pair[3 * j + 1] = b, pair[3 * j + 2] = k, j++;
            }
    for (long it = 0; it < iters; it++) {
        for (int k = 0; k < nr; k++) {
            int q = plog_probe_partner(me, k, p);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Sendrecv(s, (int)bytes, MPI_BYTE, q, 1, r, (int)bytes, MPI_BYTE, q, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t[k] = MPI_Wtime() - t0;
        }
        MPI_Gather(t, nr, MPI_DOUBLE, all, nr, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (me == 0) {
            printf("%4ld:", it);
            for (int j = 0; j < npairs; j++) {
                int a = pair[3 * j], b = pair[3 * j + 1], k = pair[3 * j + 2];
                double x = all[a * nr + k], y = all[b * nr + k];
                hist[(size_t)j * iters + it] = 1e3 * (x > y ? x : y);
                printf(" %d-%d %.1f", a, b, hist[(size_t)j * iters + it]);
            }
            printf("\n");
            fflush(stdout);
        }
        usleep(200000);
    }
    for (int j = 0; me == 0 && j < npairs; j++) {
        double *v = &hist[(size_t)j * iters];
        qsort(v, (size_t)iters, sizeof(double), cmp);
        printf("pair %d-%d: %.1f / %.1f / %.1f ms (fewest / median / most)\n", pair[3 * j],
               pair[3 * j + 1], v[0], (v[(iters - 1) / 2] + v[iters / 2]) / 2, v[iters - 1]);
    }
    free(s);
    free(r);
    free(t);
    free(all);
    free(hist);
    free(pair);
    MPI_Finalize();
    return 0;
}
