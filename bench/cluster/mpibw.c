/* mpibw.c: one-way MPI streaming bandwidth. Rank r < size/2 sends to rank r + size/2: for
 * each of ITERS rounds a window of 16 nonblocking messages of BYTES bytes, then a 0-byte
 * acknowledgement back, so the sender never runs more than one window ahead. Prints one
 * line per pair ("pair S->D HOSTS: M Mbit/s") and the sum, in the units of tc rates.
 * Usage: mpibw [bytes (default 1048576)] [rounds (default 20)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 16

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long bytes = argc > 1 ? atol(argv[1]) : 1048576;
    long rounds = argc > 2 ? atol(argv[2]) : 20;
    if (size < 2 || size % 2 || bytes < 1 || bytes > (1L << 30) || rounds < 1) {
        if (rank == 0)
            fprintf(stderr, "mpibw: needs an even number of ranks, 1 <= bytes <= 1 GiB, "
                            "rounds >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc((size_t)bytes * WINDOW);
    if (!buf) {
        fprintf(stderr, "mpibw: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, rank, (size_t)bytes * WINDOW);
    int half = size / 2, sender = rank < half, peer = sender ? rank + half : rank - half;
    MPI_Request req[WINDOW];
    MPI_Status st[WINDOW]; /* not MPI_STATUSES_IGNORE: GCC's bounds warning on MPICH's header */
    double t0 = 0;
    for (long i = -1; i < rounds; i++) { /* round -1: warm-up (connections, buffers) */
        if (i == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        for (int w = 0; w < WINDOW; w++) {
            if (sender)
                MPI_Isend(buf + w * bytes, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[w]);
            else
                MPI_Irecv(buf + w * bytes, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[w]);
        }
        MPI_Waitall(WINDOW, req, st);
        if (sender)
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
    }
    double secs = MPI_Wtime() - t0;
    double mbit = (double)bytes * WINDOW * (double)rounds * 8.0 / secs / 1e6;
    char host[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(host, &len);
    /* Senders report to rank 0: their rate and both hosts. */
    char line[3 * MPI_MAX_PROCESSOR_NAME];
    char peerhost[MPI_MAX_PROCESSOR_NAME];
    if (sender)
        MPI_Recv(peerhost, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, peer, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    else
        MPI_Send(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
    if (sender)
        snprintf(line, sizeof(line), "pair %d->%d %s->%s: %.1f Mbit/s", rank, peer, host,
                 peerhost, mbit);
    double sum = 0;
    MPI_Reduce(sender ? &mbit : &(double){0}, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int r = 0; r < half; r++) {
        if (r == 0 && rank == 0)
            printf("%s\n", line);
        else if (rank == r)
            MPI_Send(line, (int)sizeof(line), MPI_CHAR, 0, 4, MPI_COMM_WORLD);
        else if (rank == 0) {
            MPI_Recv(line, (int)sizeof(line), MPI_CHAR, r, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("%s\n", line);
        }
    }
    if (rank == 0)
        printf("total %.1f Mbit/s (%d pairs, %ld bytes x %d x %ld rounds each)\n", sum, half,
               bytes, WINDOW, rounds);
    free(buf);
    MPI_Finalize();
    return 0;
}
