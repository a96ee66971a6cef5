/* t_polls.c: polls that find nothing, in runs. Each kind of poll (Iprobe, Test,
 * Request_get_status, Testany, Testall, Testsome, Improbe) N times on the same arguments, a
 * few on other arguments, polls on alternating arguments, then a Test loop that ends when the
 * message arrives. Under the shim a run of N is one event with its count (PLOG_F_POLLS);
 * with PHASOR_POLLS=each, one event per call. The expected events are check_events.py's
 * polls(). Usage: t_polls [N] (default 100: past the polls a run times one by one). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    const int n = argc > 1 ? atoi(argv[1]) : 100;
    const char *mode = getenv("PHASOR_POLLS"); /* for check_events.py: one event per poll */
    if (mode && strcmp(mode, "each") == 0)
        fprintf(stderr, "mt-polls each\n");
    int right = (mt.rank + 1) % mt.size, left = (mt.rank + mt.size - 1) % mt.size;
    int flag = 0, idx = 0, outcount = 0, indices[1], sb = mt_val(mt.rank, 7, 0), rb = -1;
    long found = 0;
    MPI_Request rr;
    MPI_Status st;
    MPI_Message msg = MPI_MESSAGE_NULL;

    /* 1: a tag nobody sends, n times; another 3 times; the first once more */
    for (int i = 0; i < n; i++) {
        MT_CHECK(MPI_Iprobe(left, 99, MPI_COMM_WORLD, &flag, &st));
        found += flag;
    }
    for (int i = 0; i < 3; i++) {
        MT_CHECK(MPI_Iprobe(left, 98, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        found += flag;
    }
    MT_CHECK(MPI_Iprobe(left, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    found += flag;
    /* 2: alternating arguments: no two consecutive calls alike */
    for (int i = 0; i < 4; i++) {
        MT_CHECK(MPI_Iprobe(left, 97, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        found += flag;
        MT_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 97, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        found += flag;
    }
    /* 3: a receive whose message is sent only after the barrier: every poll finds nothing */
    MT_CHECK(MPI_Irecv(&rb, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &rr));
    for (int i = 0; i < n; i++) {
        MT_CHECK(MPI_Test(&rr, &flag, &st));
        found += flag;
    }
    for (int i = 0; i < n; i++) {
        MT_CHECK(MPI_Request_get_status(rr, &flag, &st));
        found += flag;
    }
    for (int i = 0; i < n; i++) {
        MT_CHECK(MPI_Testany(1, &rr, &idx, &flag, &st));
        found += flag;
    }
    for (int i = 0; i < n; i++) {
        MT_CHECK(MPI_Testall(1, &rr, &flag, MPI_STATUSES_IGNORE));
        found += flag;
    }
    for (int i = 0; i < n; i++) {
        MT_CHECK(MPI_Testsome(1, &rr, &outcount, indices, &st));
        found += outcount != 0;
    }
    for (int i = 0; i < n; i++) {
        MT_CHECK(MPI_Improbe(left, 99, MPI_COMM_WORLD, &flag, &msg, &st));
        found += flag;
    }
    MT_EXPECT(found == 0, "%ld polls found something", found);
    MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    MT_CHECK(MPI_Send(&sb, 1, MPI_INT, right, 7, MPI_COMM_WORLD));
    /* 4: until it is there: a run whose length is up to timing, then the Test that finds it */
    for (;;) {
        MT_CHECK(MPI_Test(&rr, &flag, &st));
        if (flag)
            break;
    }
    MT_EXPECT(rb == mt_val(left, 7, 0), "received %d", rb);
    mt_printf("polls: %d each, nothing found; received from the left\n", n);
    return mt_finish();
}
