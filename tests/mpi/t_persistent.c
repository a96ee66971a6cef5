/* t_persistent.c: persistent requests (Send_init, Ssend_init, Recv_init with a named and a wildcard
 * source) restarted over ITER iterations of a ring, by Startall+Waitall, Start+Wait and
 * Startall+Testall, then Request_free. The expected events are check_events.py's persistent(). */
#include "mpitest.h"

#define ITER 6
#define N1 10 /* ints, tag 7 */
#define N2 3  /* doubles, tag 8 */

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    int right = (mt.rank + 1) % mt.size, left = (mt.rank + mt.size - 1) % mt.size;
    int sb[N1], rb[N1];
    double sd[N2], rd[N2];
    MPI_Request sreq, rreq, s2, r2, all[4];
    MPI_Status st[4];

    MT_CHECK(MPI_Send_init(sb, N1, MPI_INT, right, 7, MPI_COMM_WORLD, &sreq));
    MT_CHECK(MPI_Recv_init(rb, N1, MPI_INT, left, 7, MPI_COMM_WORLD, &rreq));
    MT_CHECK(MPI_Ssend_init(sd, N2, MPI_DOUBLE, right, 8, MPI_COMM_WORLD, &s2));
    MT_CHECK(MPI_Recv_init(rd, N2, MPI_DOUBLE, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &r2));

    for (int it = 0; it < ITER; it++) {
        int flag = 0;
        mt_fill_int(sb, N1, mt.rank, it);
        mt_fill_dbl(sd, N2, mt.rank, it);
        memset(rb, 0, sizeof rb);
        memset(rd, 0, sizeof rd);
        all[0] = rreq;
        all[1] = sreq;
        all[2] = r2;
        all[3] = s2;
        switch (it % 3) {
        case 0:
            MT_CHECK(MPI_Startall(4, all));
            MT_CHECK(MPI_Waitall(4, all, st));
            break;
        case 1:
            MT_CHECK(MPI_Start(&rreq));
            MT_CHECK(MPI_Start(&r2));
            MT_CHECK(MPI_Start(&sreq));
            MT_CHECK(MPI_Start(&s2));
            MT_CHECK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
            MT_CHECK(MPI_Wait(&s2, MPI_STATUS_IGNORE));
            MT_CHECK(MPI_Wait(&rreq, &st[0]));
            MT_CHECK(MPI_Wait(&r2, &st[2]));
            break;
        case 2:
            MT_CHECK(MPI_Startall(4, all));
            while (!flag) {
                MT_CHECK(MPI_Testall(4, all, &flag, st));
                if (!flag)
                    mt_poll_pause();
            }
            break;
        }
        /* Completion leaves a persistent request inactive, not freed. */
        MT_EXPECT(rreq != MPI_REQUEST_NULL && sreq != MPI_REQUEST_NULL && r2 != MPI_REQUEST_NULL &&
                      s2 != MPI_REQUEST_NULL,
                  "iteration %d: a persistent request became MPI_REQUEST_NULL", it);
        if (it % 3 != 1)
            MT_EXPECT(all[0] == rreq && all[1] == sreq && all[2] == r2 && all[3] == s2,
                      "iteration %d: completion changed a persistent handle", it);
        int bad = mt_bad_int(rb, N1, left, it) + mt_bad_dbl(rd, N2, left, it);
        mt_printf("it %d: from %d/%d count %d, from %d/%d count %d, bad %d\n", it, st[0].MPI_SOURCE,
                  st[0].MPI_TAG, mt_count(&st[0], MPI_INT), st[2].MPI_SOURCE, st[2].MPI_TAG,
                  mt_count(&st[2], MPI_DOUBLE), bad);
        MT_EXPECT(!bad && st[0].MPI_SOURCE == left && st[2].MPI_SOURCE == left,
                  "iteration %d: wrong data or status", it);
    }
    MT_CHECK(MPI_Request_free(&sreq));
    MT_CHECK(MPI_Request_free(&rreq));
    MT_CHECK(MPI_Request_free(&s2));
    MT_CHECK(MPI_Request_free(&r2));
    MT_EXPECT(sreq == MPI_REQUEST_NULL && rreq == MPI_REQUEST_NULL && s2 == MPI_REQUEST_NULL &&
                  r2 == MPI_REQUEST_NULL,
              "Request_free did not null the handles");
    return mt_finish();
}
