/* t_hang.c: a job that hangs, for run_hang_tests.sh. Every rank makes 100 barriers, then
 *   recv   blocks in MPI_Recv from the next rank, tag 7, that nobody sends
 *   wait   blocks in MPI_Wait on such an MPI_Irecv
 *   slow   rank 0 receives from rank 1, which sleeps SECONDS (argv[2]) before sending: a
 *          long call that returns, not a hang; the job finalizes */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *mode = argc > 1 ? argv[1] : "recv";
    for (int i = 0; i < 100; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: barriers done\n", r);
    fflush(stdout);
    if (strcmp(mode, "recv") == 0) {
        MPI_Recv(&x, 1, MPI_INT, (r + 1) % n, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "wait") == 0) {
        MPI_Request q;
        MPI_Irecv(&x, 1, MPI_INT, (r + 1) % n, 7, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "slow") == 0 && n >= 2) {
        double s = argc > 2 ? atof(argv[2]) : 1.5;
        if (r == 1) {
            usleep((useconds_t)(s * 1e6));
            MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        } else if (r == 0) {
            MPI_Recv(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    printf("rank %d: done\n", r);
    return 0;
}
