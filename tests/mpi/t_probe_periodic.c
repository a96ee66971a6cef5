/* t_probe_periodic.c: blocking collectives on MPI_COMM_WORLD and on a duplicate of it (both
 * counted by PHASOR_PROBE's every=N: communicators of every rank), others that are not (on a
 * communicator of half the ranks, nonblocking ones, point-to-point) and MPI_Pcontrol(2) twice
 * (a probe each under pcontrol) and (1) once (none). Prints one line of results; the runner
 * (run_probe_periodic_tests.sh) counts the probes in the log: the one at MPI_Init,
 * (2 COLLS + 1) / N (mt_finish's MPI_Gather is one more) and 2.
 * Usage: t_probe_periodic [COLLS]  (default 24; 8 collective kinds in turn) */
#include <stdlib.h>

#include "mpitest.h"

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    int colls = argc > 1 ? atoi(argv[1]) : 24;
    MPI_Comm dup, half;
    MT_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CHECK(MPI_Comm_split(MPI_COMM_WORLD, mt.rank % 2, mt.rank, &half));
    long sum = 0;
    int *all = mt_calloc((size_t)mt.size, sizeof(int));
    for (int i = 0; i < colls; i++) {
        int v = mt.rank + i, r = 0;
        switch (i % 8) {
        case 0: MT_CHECK(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)); break;
        case 1: MT_CHECK(MPI_Barrier(MPI_COMM_WORLD)); break;
        case 2: r = v; MT_CHECK(MPI_Bcast(&r, 1, MPI_INT, i % mt.size, MPI_COMM_WORLD)); break;
        case 3: MT_CHECK(MPI_Reduce(&v, &r, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD)); break;
        case 4:
            MT_CHECK(MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
            r = all[mt.size - 1];
            break;
        case 5: MT_CHECK(MPI_Scan(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)); break;
        case 6:
            MT_CHECK(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
            r = all[0];
            break;
        default: MT_CHECK(MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD)); break;
        }
        sum += r;
        /* counted: the duplicate's collective; not counted: one of half the ranks, a
         * nonblocking one */
        int d = 0, h = 0;
        MT_CHECK(MPI_Allreduce(&v, &d, 1, MPI_INT, MPI_SUM, dup));
        MT_CHECK(MPI_Allreduce(&v, &h, 1, MPI_INT, MPI_SUM, half));
        sum += h;
        MPI_Request rq;
        MT_CHECK(MPI_Iallreduce(&v, &d, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
        MT_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        sum += d;
        if (i == colls / 3 || i == 2 * colls / 3)
            MPI_Pcontrol(2);
        if (i == colls / 2)
            MPI_Pcontrol(1);
    }
    free(all);
    MT_CHECK(MPI_Comm_free(&dup));
    MT_CHECK(MPI_Comm_free(&half));
    mt_printf("colls=%d sum=%ld\n", colls, sum);
    return mt_finish();
}
