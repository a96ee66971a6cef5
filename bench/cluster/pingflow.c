/* pingflow.c: a steady stream of messages whose times are the links', for as long as asked:
 * rank r ping-pongs BYTES with rank r + p/2 (the hosts of mpibw's pairs: another host when
 * the ranks fill hosts in turn), MPI_Send against an MPI_Recv already waiting, so every
 * message's time is its transfer (what phasor health keeps), not a rank's lateness. Every
 * ROUNDS round trips rank 0 says by MPI_Bcast on MPI_COMM_WORLD whether SECONDS have passed:
 * a blocking collective on MPI_COMM_WORLD, which is what PHASOR_PROBE=...,every=N counts.
 * bench/health.sh runs it while it changes the links' rate (bench/cluster/setrate.sh).
 * Prints, from rank 0: "pingflow: started" once every rank is past MPI_Init (a driver
 * times what it does to the links from it), then the round trips per pair, and the median
 * half round trip of rank 0's pair per second of the run (ms): the rate's changes without
 * phasor.
 * Build: mpicc -O2 -o pingflow bench/cluster/pingflow.c
 * Usage: pingflow [BYTES (default 65000)] [SECONDS (default 30)] [ROUNDS (default 20)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
    long bytes = argc > 1 ? atol(argv[1]) : 65000;
    double secs = argc > 2 ? atof(argv[2]) : 30.0;
    long rounds = argc > 3 ? atol(argv[3]) : 20;
    if (p < 2 || p % 2 || bytes < 0 || bytes > (1L << 30) || !(secs > 0 && secs <= 86400) ||
        rounds < 1 || rounds > 1000000) {
        if (me == 0)
            fprintf(stderr, "pingflow: needs an even number of ranks, 0 <= bytes <= 1 GiB, "
                            "0 < seconds <= 86400, 1 <= rounds <= 1000000\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = (me + p / 2) % p, pinger = me < p / 2;
    long nsec = (long)secs + 2, cap = 1L << 20, n = 0;
    char *buf = calloc(1, bytes ? (size_t)bytes : 1);
    double *rt = me == 0 ? malloc((size_t)cap * 2 * sizeof(double)) : NULL; /* start, time */
    if (!buf || (me == 0 && !rt)) {
        fprintf(stderr, "pingflow: rank %d: out of memory\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (me == 0) {
        printf("pingflow: started\n");
        fflush(stdout);
    }
    long trips = 0;
    for (int stop = 0; !stop;) {
        for (long i = 0; i < rounds; i++, trips++) {
            double a = MPI_Wtime();
            if (pinger) {
                MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            }
            if (me == 0 && n < cap) {
                rt[2 * n] = a - t0;
                rt[2 * n + 1] = (MPI_Wtime() - a) / 2;
                n++;
            }
        }
        stop = me == 0 && MPI_Wtime() - t0 >= secs;
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    double t1 = MPI_Wtime();
    if (me == 0) {
        printf("pingflow: %d ranks, %ld B, %ld round trips per pair in %.1f s\n", p, bytes, trips,
               t1 - t0);
        printf("second  round_trips  median_half_round_trip_ms\n");
        double *v = malloc((size_t)(n ? n : 1) * sizeof(double));
        for (long s = 0, k = 0; s < nsec && v; s++) {
            long m = 0;
            for (; k < n && rt[2 * k] < (double)(s + 1); k++)
                v[m++] = rt[2 * k + 1];
            if (m == 0)
                continue;
            qsort(v, (size_t)m, sizeof(double), cmp);
            printf("%6ld  %11ld  %.3f\n", s, m, 1e3 * (m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2));
        }
        free(v);
    }
    free(rt);
    free(buf);
    MPI_Finalize();
    return 0;
}
