/* t_phases.c: a barrier-free iterative program for `phasor phases` (run_phases_tests.sh): an
 * open chain of ranks, each iteration "computes" (sleeps: the test is about phases, and
 * sleeping ranks do not compete for the cores of a loaded machine) and exchanges a few bytes
 * with both neighbours (Irecv, Isend, Waitall). MPI_Pcontrol(1) marks the start of every
 * iteration and the end of the last one. Once, in iteration DELAY_ITER, rank DELAY_RANK sleeps
 * an extra DELAY_US: the delay travels along the chain as an idle wave, the ranks drift apart
 * in phase and, the work being the same everywhere, fall into step again.
 * Usage: t_phases [ITERS [COMPUTE_US [DELAY_ITER [DELAY_RANK [DELAY_US [PCONTROL]]]]]];
 * PCONTROL 0 leaves the markers out (the iterations must then be found from the calls). */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which GCC 12 takes for a zero-sized array */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 60;
    long compute_us = argc > 2 ? atol(argv[2]) : 10000;
    int delay_iter = argc > 3 ? atoi(argv[3]) : 20;
    int delay_rank = argc > 4 ? atoi(argv[4]) : 0;
    long delay_us = argc > 5 ? atol(argv[5]) : compute_us / 2;
    int pcontrol = argc > 6 ? atoi(argv[6]) : 1;
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    double in[2], out[2] = {rank, rank};
    MPI_Barrier(MPI_COMM_WORLD); /* start together */
    for (int it = 0; it < iters; it++) {
        if (pcontrol)
            MPI_Pcontrol(1);
        sleep_us(compute_us);
        if (it == delay_iter && rank == delay_rank)
            sleep_us(delay_us);
        MPI_Request rq[4];
        MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, it, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, it, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(&out[0], 1, MPI_DOUBLE, left, it, MPI_COMM_WORLD, &rq[2]);
        MPI_Isend(&out[1], 1, MPI_DOUBLE, right, it, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    }
    if (pcontrol)
        MPI_Pcontrol(1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("t_phases: %d ranks, %d iterations\n", size, iters);
    MPI_Finalize();
    return 0;
}
