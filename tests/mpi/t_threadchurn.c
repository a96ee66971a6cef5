/* t_threadchurn.c: NWORKERS short-lived pthreads per rank under MPI_THREAD_MULTIPLE, BATCH alive
 * at once (each batch joined before the next starts), so a rank starts far more threads than
 * the shim's thread budget while only BATCH + 1 call MPI at any time. Worker w makes three
 * calls: Irecv and Isend to itself on MPI_COMM_SELF with tag w, then Waitall. The main thread
 * only initialises, joins and finalises. The expected events are check_events.py's
 * check_churn(): every worker's three calls, exactly once, in the slot it got. */
#include <pthread.h>

#include "mpitest.h"

#define NWORKERS 10000
#define BATCH 4
#define N 4

typedef struct worker {
    int id;
    int bad;
} worker_t;

static void *work(void *arg)
{
    worker_t *w = arg;
    int sb[N], rb[N];
    MPI_Request rq[2];
    MPI_Status st[2];
    mt_fill_int(sb, N, mt.rank, w->id);
    if (MPI_Irecv(rb, N, MPI_INT, 0, w->id, MPI_COMM_SELF, &rq[0]) != MPI_SUCCESS ||
        MPI_Isend(sb, N, MPI_INT, 0, w->id, MPI_COMM_SELF, &rq[1]) != MPI_SUCCESS ||
        MPI_Waitall(2, rq, st) != MPI_SUCCESS) {
        w->bad = 1;
        return NULL;
    }
    w->bad = mt_bad_int(rb, N, mt.rank, w->id) + (st[0].MPI_TAG != w->id) +
             (st[0].MPI_SOURCE != 0);
    return NULL;
}

int main(int argc, char **argv)
{
    if (mt_begin_multiple(&argc, &argv) != 0)
        return mt_finish();
    /* The checker needs the budget the shim ran with (stderr is not compared): over it, the
     * threads that got no slot must be counted exactly instead of recorded. */
    const char *budget = getenv("PHASOR_MAX_THREADS");
    if (budget && mt.rank == 0)
        fprintf(stderr, "mt-max-threads %s\n", budget);
    static worker_t w[NWORKERS];
    int bad = 0;
    for (int b = 0; b < NWORKERS; b += BATCH) {
        pthread_t th[BATCH];
        int n = NWORKERS - b < BATCH ? NWORKERS - b : BATCH;
        for (int t = 0; t < n; t++) {
            w[b + t].id = b + t;
            if (pthread_create(&th[t], NULL, work, &w[b + t]) != 0) {
                mt_fail(__FILE__, __LINE__, "pthread_create failed");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        for (int t = 0; t < n; t++) {
            pthread_join(th[t], NULL);
            bad += w[b + t].bad;
        }
    }
    mt_printf("%d threads, %d at once: %d wrong\n", NWORKERS, BATCH, bad);
    MT_EXPECT(!bad, "%d workers got wrong messages", bad);
    return mt_finish();
}
