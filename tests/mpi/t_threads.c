/* t_threads.c: MPI_THREAD_MULTIPLE with NTHREADS pthreads per rank, each running ITER rounds of
 * Isend to the right neighbour / Recv from the left / Wait, on its own tag (70 + thread), while
 * the main thread only initialises, joins and finalises. The expected events are
 * check_events.py's threads(): one event stream per thread, merged by time in the dump. */
#include <pthread.h>

#include "mpitest.h"

#define NTHREADS 4
#define ITER 20
#define N 8

typedef struct worker {
    int id;
    int bad;
    long sum;
} worker_t;

static void *work(void *arg)
{
    worker_t *w = arg;
    int right = (mt.rank + 1) % mt.size, left = (mt.rank + mt.size - 1) % mt.size;
    int tag = 70 + w->id, sb[N], rb[N];
    for (int it = 0; it < ITER; it++) {
        MPI_Request req;
        MPI_Status st;
        mt_fill_int(sb, N, mt.rank, tag + it);
        /* Messages of different threads share source and communicator; only the tag keeps
         * them apart, which is what this test is about. */
        if (MPI_Isend(sb, N, MPI_INT, right, tag, MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
            MPI_Recv(rb, N, MPI_INT, left, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS ||
            MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            w->bad++;
            continue;
        }
        w->bad += mt_bad_int(rb, N, left, tag + it) + (st.MPI_TAG != tag) + (st.MPI_SOURCE != left);
        for (int i = 0; i < N; i++)
            w->sum += rb[i];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (mt_begin_multiple(&argc, &argv) != 0)
        return mt_finish();
    pthread_t th[NTHREADS];
    worker_t w[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        w[t].id = t;
        w[t].bad = 0;
        w[t].sum = 0;
        if (pthread_create(&th[t], NULL, work, &w[t]) != 0) {
            mt_fail(__FILE__, __LINE__, "pthread_create failed");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        mt_printf("thread %d: sum %ld bad %d\n", t, w[t].sum, w[t].bad);
        MT_EXPECT(!w[t].bad, "thread %d: %d wrong messages", t, w[t].bad);
    }
    return mt_finish();
}
