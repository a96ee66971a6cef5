/* overhead_loop.c: the cheapest MPI calls there are, in a tight loop, to time what the shim
 * adds per call, by class of call. Prints ns per iteration.
 * Usage: overhead_loop [iterations] [nb|block|coll]
 *   nb     0-byte Irecv + Isend to self + Waitall (3 calls an iteration; the default)
 *   block  0-byte Send to self + Recv (2 calls)
 *   coll   Allreduce of one int on MPI_COMM_WORLD of this one rank (1 call) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void step(int mode, int rank)
{
    static char b = 0;
    if (mode == 0) {
        MPI_Request r[2];
        MPI_Irecv(&b, 0, MPI_BYTE, rank, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&b, 0, MPI_BYTE, rank, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else if (mode == 1) {
        MPI_Send(&b, 0, MPI_BYTE, rank, 0, MPI_COMM_WORLD);
        MPI_Recv(&b, 0, MPI_BYTE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        int in = rank, out = 0;
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = argc > 1 ? atol(argv[1]) : 1000000;
    const char *m = argc > 2 ? argv[2] : "nb";
    int mode = strcmp(m, "block") == 0 ? 1 : strcmp(m, "coll") == 0 ? 2 : 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if ((mode == 0 && strcmp(m, "nb") != 0) || (mode == 2 && size != 1)) {
        if (rank == 0)
            fprintf(stderr, "usage: overhead_loop [iterations] [nb|block|coll] (coll: 1 rank)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long i = 0; i < 10000; i++) /* warm up the library's request pools */
        step(mode, rank);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++)
        step(mode, rank);
    double t1 = MPI_Wtime();
    if (rank == 0)
        printf("%.2f\n", (t1 - t0) * 1e9 / (double)iters);
    MPI_Finalize();
    return 0;
}
