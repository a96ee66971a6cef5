/* t_probe.c: Probe, Iprobe, Mprobe, Improbe, Mrecv and Imrecv around a ring (each rank sends to
 * its right neighbour and probes for its left one), on MPI_PROC_NULL, and probes that find
 * nothing. The expected events are check_events.py's probe(). */
#include "mpitest.h"

#define CAP 16

static void show(const char *what, const MPI_Status *st, const int *buf, int n, int src, int tag)
{
    int count = mt_count(st, MPI_INT);
    int bad = buf ? mt_bad_int(buf, n, src, tag) : 0;
    mt_printf("%s: src=%s tag=%d count=%d bad=%d\n", what,
              st->MPI_SOURCE == MPI_PROC_NULL ? "null" : (st->MPI_SOURCE == src ? "left" : "other"),
              st->MPI_TAG == MPI_ANY_TAG ? -1 : st->MPI_TAG, count, bad);
    MT_EXPECT(!bad, "%s: wrong data", what);
}

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    int right = (mt.rank + 1) % mt.size, left = (mt.rank + mt.size - 1) % mt.size;
    int sb[CAP], rb[CAP], flag, count;
    MPI_Request sreq, rreq;
    MPI_Status st, st2;
    MPI_Message msg;

    /* 1: Probe for a named source and tag, then receive exactly what it announced. */
    mt_fill_int(sb, 4, mt.rank, 40);
    MT_CHECK(MPI_Isend(sb, 4, MPI_INT, right, 40, MPI_COMM_WORLD, &sreq));
    MT_CHECK(MPI_Probe(left, 40, MPI_COMM_WORLD, &st));
    count = mt_count(&st, MPI_INT);
    show("probe", &st, NULL, 0, left, 40);
    MT_CHECK(MPI_Recv(rb, count, MPI_INT, left, 40, MPI_COMM_WORLD, &st2));
    show("recv after probe", &st2, rb, 4, left, 40);
    MT_CHECK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* 2: Iprobe with a wildcard source until the message is there. */
    mt_fill_int(sb, 5, mt.rank, 41);
    MT_CHECK(MPI_Isend(sb, 5, MPI_INT, right, 41, MPI_COMM_WORLD, &sreq));
    for (flag = 0; !flag;) {
        MT_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 41, MPI_COMM_WORLD, &flag, &st));
        if (!flag)
            mt_poll_pause();
    }
    show("iprobe", &st, NULL, 0, left, 41);
    MT_CHECK(MPI_Recv(rb, CAP, MPI_INT, st.MPI_SOURCE, 41, MPI_COMM_WORLD, &st2));
    show("recv after iprobe", &st2, rb, 5, left, 41);
    MT_CHECK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* 3: Mprobe takes the message out of matching; Mrecv receives it. */
    mt_fill_int(sb, 6, mt.rank, 42);
    MT_CHECK(MPI_Isend(sb, 6, MPI_INT, right, 42, MPI_COMM_WORLD, &sreq));
    MT_CHECK(MPI_Mprobe(left, 42, MPI_COMM_WORLD, &msg, &st));
    show("mprobe", &st, NULL, 0, left, 42);
    MT_CHECK(MPI_Mrecv(rb, CAP, MPI_INT, &msg, &st2));
    MT_EXPECT(msg == MPI_MESSAGE_NULL, "Mrecv left the message handle set");
    show("mrecv", &st2, rb, 6, left, 42);
    MT_CHECK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* 4: Improbe with both wildcards until found; Imrecv + Wait. */
    mt_fill_int(sb, 7, mt.rank, 43);
    MT_CHECK(MPI_Isend(sb, 7, MPI_INT, right, 43, MPI_COMM_WORLD, &sreq));
    for (flag = 0; !flag;) {
        MT_CHECK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
        if (!flag)
            mt_poll_pause();
    }
    show("improbe", &st, NULL, 0, left, 43);
    MT_CHECK(MPI_Imrecv(rb, CAP, MPI_INT, &msg, &rreq));
    MT_CHECK(MPI_Wait(&rreq, &st2));
    show("imrecv", &st2, rb, 7, left, 43);
    MT_CHECK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* 5: every probe on MPI_PROC_NULL returns at once with an empty status. */
    MT_CHECK(MPI_Probe(MPI_PROC_NULL, 44, MPI_COMM_WORLD, &st));
    show("probe null", &st, NULL, 0, left, 44);
    MT_CHECK(MPI_Iprobe(MPI_PROC_NULL, 44, MPI_COMM_WORLD, &flag, &st));
    mt_printf("iprobe null: flag=%d\n", flag);
    MT_CHECK(MPI_Mprobe(MPI_PROC_NULL, 44, MPI_COMM_WORLD, &msg, &st));
    MT_EXPECT(msg == MPI_MESSAGE_NO_PROC, "Mprobe on MPI_PROC_NULL: not MPI_MESSAGE_NO_PROC");
    MT_CHECK(MPI_Mrecv(rb, CAP, MPI_INT, &msg, &st2));
    show("mrecv null", &st2, NULL, 0, left, 44);

    /* 6: probes for a tag nobody sends find nothing. */
    MT_CHECK(MPI_Iprobe(left, 99, MPI_COMM_WORLD, &flag, &st));
    mt_printf("iprobe nothing: flag=%d\n", flag);
    MT_EXPECT(!flag, "Iprobe found a message that was never sent");
    MT_CHECK(MPI_Improbe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &msg, MPI_STATUS_IGNORE));
    mt_printf("improbe nothing: flag=%d\n", flag);
    MT_EXPECT(!flag, "Improbe found a message that was never sent");

    return mt_finish();
}
