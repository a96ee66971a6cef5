/* polls.c: polling loops, for bench/polls.sh.
 * Usage:
 *   polls iprobe N   every rank makes N MPI_Iprobe calls that find nothing (a tag nobody
 *                    sends); prints the slowest rank's ns per call
 *   polls pong K     K 0-byte round trips between ranks 0 and 1 (after 100 unmeasured)
 *                    whose receiver polls with MPI_Iprobe until the message is there, then
 *                    receives it; prints the polls that found nothing and the receives, all
 *                    round trips and ranks, and ns per half round trip
 *   polls block K    the same round trips with a blocking MPI_Recv (its log is pong's less
 *                    the runs of polls) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long poll_recv(int from, char *b)
{
    long n = 0;
    int flag = 0;
    for (;;) {
        MPI_Iprobe(from, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag)
            break;
        n++;
    }
    MPI_Recv(b, 0, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || (strcmp(argv[1], "iprobe") && strcmp(argv[1], "pong") &&
                      strcmp(argv[1], "block"))) {
        if (rank == 0)
            fprintf(stderr, "usage: polls iprobe N | pong K | block K\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long n = atol(argv[2]);
    if (strcmp(argv[1], "iprobe") == 0) {
        int flag = 0;
        for (int i = 0; i < 1000; i++) /* warm-up */
            MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++)
            MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        double per = (MPI_Wtime() - t0) * 1e9 / (double)n, worst = 0;
        MPI_Reduce(&per, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("%.2f\n", worst);
    } else {
        if (size < 2) {
            if (rank == 0)
                fprintf(stderr, "polls %s needs 2 ranks\n", argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        const int polling = strcmp(argv[1], "pong") == 0;
        char b = 0;
        long polls = 0, recvs = 0;
        double t0 = 0;
        for (long i = -100; i < n; i++) { /* first 100: warm-up */
            if (i == 0) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            if (rank <= 1) {
                const int other = 1 - rank;
                if (rank == 0)
                    MPI_Send(&b, 0, MPI_BYTE, other, 0, MPI_COMM_WORLD);
                recvs++;
                if (polling)
                    polls += poll_recv(other, &b);
                else
                    MPI_Recv(&b, 0, MPI_BYTE, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (rank == 1)
                    MPI_Send(&b, 0, MPI_BYTE, other, 0, MPI_COMM_WORLD);
            }
        }
        double half = (MPI_Wtime() - t0) * 1e9 / (double)n / 2.0;
        long mine[2] = {polls, recvs}, total[2] = {0, 0};
        MPI_Reduce(mine, total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("polls=%ld recvs=%ld ns=%.2f\n", total[0], total[1], half);
    }
    MPI_Finalize();
    return 0;
}
