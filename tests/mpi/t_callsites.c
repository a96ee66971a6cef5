/* t_callsites.c: MPI calls from known source lines, for run_callsite_tests.sh. The lines
 * that call MPI (or the helper that does) carry SITE:<name> markers the test looks up, so
 * the expected file:line never has to be written down twice. Helpers are noinline and do
 * work after each call so that no frame disappears into a tail call. step_b is called from
 * two lines of main, so its Sendrecv makes two sites at depth >= 3 (one at depth 2). */
#include <mpi.h>
#include <stdio.h>

static volatile int sink;

static __attribute__((noinline)) void exchange(int peer, MPI_Comm comm)
{
    int x = peer, y = -1;
    MPI_Sendrecv(&x, 1, MPI_INT, peer, 0, &y, 1, MPI_INT, peer, 0, comm, MPI_STATUS_IGNORE); /* SITE:sendrecv */
    sink += y;
}

static __attribute__((noinline)) void step_a(int peer, MPI_Comm comm)
{
    exchange(peer, comm); /* SITE:from_a */
    sink++;
}

static __attribute__((noinline)) void step_b(int peer, MPI_Comm comm)
{
    exchange(peer, comm); /* SITE:from_b */
    sink += 2; /* differs from step_a: identical functions would be folded into one */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    if (peer >= size)
        peer = MPI_PROC_NULL;
    for (int i = 0; i < 10; i++) {
        step_a(peer, MPI_COMM_WORLD);
        step_b(peer, MPI_COMM_WORLD);
        step_b(peer, MPI_COMM_WORLD);
    }
    double v = rank, s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* SITE:allreduce */
    if (rank == 0)
        printf("sum %g\n", s);
    MPI_Finalize();
    return 0;
}
