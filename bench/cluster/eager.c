/* eager.c: the largest message the MPI library sends eagerly between ranks 0 and 1, the
 * size `phasor predict --eager` wants. Rank 1 posts its receive DELAY ms after rank 0 calls
 * MPI_Send: an eager send returns at once (the data waits at the receiver), a rendezvous
 * send only once the receive is there, so a send that took less than DELAY / 2 was eager.
 * The criterion does not depend on how fast the network is. Rank 1 also reports how long
 * its late receive took: about the message's time on the link when nothing had moved.
 * Usage: eager [--delay MS (default 100)] SIZE...      one line per size
 *        eager [--delay MS] --search LO HI             bisects: LO eager, HI not
 * Place the two ranks as the path to measure needs (different hosts, or one host). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* one late-receiver send of n bytes: 1 if eager; the send's and the late receive's ms */
static int trial(int me, char *buf, long n, int delay_ms, double *send_ms, double *recv_ms)
{
    double t[2] = {0, 0};
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        double t0 = MPI_Wtime();
        MPI_Send(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        t[0] = (MPI_Wtime() - t0) * 1e3;
    } else if (me == 1) {
        usleep((useconds_t)delay_ms * 1000);
        double t0 = MPI_Wtime();
        MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t[1] = (MPI_Wtime() - t0) * 1e3;
    }
    MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *send_ms = t[0];
    *recv_ms = t[1];
    return t[0] < delay_ms / 2.0;
}

static long size_arg(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end && v > 0 && v <= 1L << 30 ? v : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int delay = 100, search = 0, first = 1;
    if (argc > 2 && !strcmp(argv[1], "--delay")) {
        delay = atoi(argv[2]);
        first = 3;
    }
    if (argc > first && !strcmp(argv[first], "--search")) {
        search = 1;
        first++;
    }
    long max = 0;
    int bad = p < 2 || delay < 2 || argc <= first || (search && argc != first + 2);
    for (int i = first; !bad && i < argc; i++) {
        long v = size_arg(argv[i]);
        bad = v < 0;
        if (v > max)
            max = v;
    }
    if (bad) {
        if (me == 0)
            fprintf(stderr, "usage: eager [--delay MS] SIZE... | eager [--delay MS] --search LO HI"
                            "  (2 or more ranks; sizes 1..2^30 bytes, delay >= 2 ms)\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = calloc((size_t)max, 1);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double s, r;
    if (!search) {
        for (int i = first; i < argc; i++) {
            long n = size_arg(argv[i]);
            int e = trial(me, buf, n, delay, &s, &r);
            if (me == 0)
                printf("%ld B: %s (send %.3f ms, late receive %.3f ms, receiver %d ms late)\n",
                       n, e ? "eager" : "rendezvous", s, r, delay);
        }
    } else {
        long lo = size_arg(argv[first]), hi = size_arg(argv[first + 1]);
        int elo = trial(me, buf, lo, delay, &s, &r), ehi = trial(me, buf, hi, delay, &s, &r);
        if (!elo || ehi || lo >= hi) {
            if (me == 0)
                fprintf(stderr, "eager: need LO < HI with LO eager and HI not (LO %s, HI %s)\n",
                        elo ? "eager" : "rendezvous", ehi ? "eager" : "rendezvous");
            free(buf);
            MPI_Finalize();
            return 1;
        }
        while (hi - lo > 1) {
            long mid = lo + (hi - lo) / 2;
            if (trial(me, buf, mid, delay, &s, &r))
                lo = mid;
            else
                hi = mid;
        }
        if (me == 0)
            printf("largest eager message: %ld B (%ld B is a rendezvous)\n", lo, hi);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
