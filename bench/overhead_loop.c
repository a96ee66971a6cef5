/* overhead_loop.c: the cheapest MPI calls there are, in a tight loop, to time what the shim
 * adds per call: 0-byte Irecv + Isend to self + Waitall, N iterations (3 calls each).
 * Prints ns per iteration. Usage: overhead_loop [iterations] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = argc > 1 ? atol(argv[1]) : 1000000;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Request r[2];
    char b = 0;
    for (long i = 0; i < 10000; i++) { /* warm up the library's request pools */
        MPI_Irecv(&b, 0, MPI_BYTE, rank, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&b, 0, MPI_BYTE, rank, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        MPI_Irecv(&b, 0, MPI_BYTE, rank, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&b, 0, MPI_BYTE, rank, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    double t1 = MPI_Wtime();
    if (rank == 0)
        printf("%.2f\n", (t1 - t0) * 1e9 / (double)iters);
    MPI_Finalize();
    return 0;
}
