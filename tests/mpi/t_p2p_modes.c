/* t_p2p_modes.c: every point-to-point send mode, blocking and nonblocking, Sendrecv(_replace)
 * and MPI_PROC_NULL peers, between world rank pairs (0,1), (2,3), ...; an odd last rank talks
 * to MPI_PROC_NULL instead. The expected events are check_events.py's p2p_modes(). */
#include "mpitest.h"

enum {
    T_SEND = 10, T_BSEND = 11, T_SSEND = 12, T_RSEND = 13, T_READY = 14,
    T_ISEND = 20, T_IBSEND = 21, T_ISSEND = 22, T_IRSEND = 23, T_READY2 = 29,
    T_SR = 30, T_SRR = 31, T_NULL = 40
};

/* Print what a receive matched, PROC_NULL and ANY_TAG by name (their values differ by MPI). */
static void report(const char *what, const MPI_Status *st, MPI_Datatype t, int bad)
{
    char src[16], tag[16];
    if (st->MPI_SOURCE == MPI_PROC_NULL)
        snprintf(src, sizeof src, "null");
    else
        snprintf(src, sizeof src, "%d", st->MPI_SOURCE);
    if (st->MPI_TAG == MPI_ANY_TAG)
        snprintf(tag, sizeof tag, "any");
    else
        snprintf(tag, sizeof tag, "%d", st->MPI_TAG);
    mt_printf("%s src=%s tag=%s count=%d bad=%d\n", what, src, tag, mt_count(st, t), bad);
}

/* Standard, buffered, synchronous, ready sends from the even rank to the odd one. */
static void blocking_modes(int peer, int lo)
{
    static const int tags[3] = {T_SEND, T_BSEND, T_SSEND};
    static const char *names[3] = {"send", "bsend", "ssend"};
    int buf[32];
    MPI_Status st;
    MPI_Request req;

    if (lo) {
        mt_fill_int(buf, 4, mt.rank, T_SEND);
        MT_CHECK(MPI_Send(buf, 4, MPI_INT, peer, T_SEND, MPI_COMM_WORLD));
        mt_fill_int(buf, 8, mt.rank, T_BSEND);
        MT_CHECK(MPI_Bsend(buf, 8, MPI_INT, peer, T_BSEND, MPI_COMM_WORLD));
        mt_fill_int(buf, 16, mt.rank, T_SSEND);
        MT_CHECK(MPI_Ssend(buf, 16, MPI_INT, peer, T_SSEND, MPI_COMM_WORLD));
        /* A ready send needs the receive posted: the peer says so with an empty message. */
        MT_CHECK(MPI_Recv(NULL, 0, MPI_INT, peer, T_READY, MPI_COMM_WORLD, &st));
        report("ready", &st, MPI_INT, 0);
        mt_fill_int(buf, 32, mt.rank, T_RSEND);
        MT_CHECK(MPI_Rsend(buf, 32, MPI_INT, peer, T_RSEND, MPI_COMM_WORLD));
        return;
    }
    for (int k = 0; k < 3; k++) {
        memset(buf, 0, sizeof buf);
        MT_CHECK(MPI_Recv(buf, 32, MPI_INT, peer, tags[k], MPI_COMM_WORLD, &st));
        report(names[k], &st, MPI_INT, mt_bad_int(buf, 4 << k, peer, tags[k]));
        MT_EXPECT(st.MPI_SOURCE == peer && st.MPI_TAG == tags[k], "%s: wrong status", names[k]);
    }
    memset(buf, 0, sizeof buf);
    MT_CHECK(MPI_Irecv(buf, 32, MPI_INT, peer, T_RSEND, MPI_COMM_WORLD, &req));
    MT_CHECK(MPI_Send(NULL, 0, MPI_INT, peer, T_READY, MPI_COMM_WORLD));
    MT_CHECK(MPI_Wait(&req, &st));
    MT_EXPECT(req == MPI_REQUEST_NULL, "rsend: request not null after MPI_Wait");
    report("rsend", &st, MPI_INT, mt_bad_int(buf, 32, peer, T_RSEND));
}

/* The nonblocking modes, now from the odd rank to the even one. */
static void nonblocking_modes(int peer, int lo)
{
    static const int counts[4] = {3, 5, 7, 9};
    static const char *names[4] = {"isend", "ibsend", "issend", "irsend"};
    double b[4][9];
    MPI_Request r[4];
    MPI_Status st[4];

    if (lo) {
        memset(b, 0, sizeof b);
        for (int k = 0; k < 4; k++)
            MT_CHECK(MPI_Irecv(b[k], 9, MPI_DOUBLE, peer, T_ISEND + k, MPI_COMM_WORLD, &r[k]));
        MT_CHECK(MPI_Send(NULL, 0, MPI_INT, peer, T_READY2, MPI_COMM_WORLD));
        MT_CHECK(MPI_Waitall(4, r, st));
        for (int k = 0; k < 4; k++) {
            MT_EXPECT(r[k] == MPI_REQUEST_NULL, "%s: request not null after Waitall", names[k]);
            int bad = peer == MPI_PROC_NULL ? 0 : mt_bad_dbl(b[k], counts[k], peer, T_ISEND + k);
            report(names[k], &st[k], MPI_DOUBLE, bad);
        }
        return;
    }
    for (int k = 0; k < 4; k++)
        mt_fill_dbl(b[k], counts[k], mt.rank, T_ISEND + k);
    MT_CHECK(MPI_Recv(NULL, 0, MPI_INT, peer, T_READY2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MT_CHECK(MPI_Isend(b[0], 3, MPI_DOUBLE, peer, T_ISEND, MPI_COMM_WORLD, &r[0]));
    MT_CHECK(MPI_Ibsend(b[1], 5, MPI_DOUBLE, peer, T_IBSEND, MPI_COMM_WORLD, &r[1]));
    MT_CHECK(MPI_Issend(b[2], 7, MPI_DOUBLE, peer, T_ISSEND, MPI_COMM_WORLD, &r[2]));
    MT_CHECK(MPI_Irsend(b[3], 9, MPI_DOUBLE, peer, T_IRSEND, MPI_COMM_WORLD, &r[3]));
    MT_CHECK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 4; k++)
        MT_EXPECT(r[k] == MPI_REQUEST_NULL, "%s: request not null after Waitall", names[k]);
    mt_printf("sent isend ibsend issend irsend\n");
}

static void sendrecv_both(int peer)
{
    int sb[6], rb[6] = {0};
    double d[5];
    MPI_Status st;

    mt_fill_int(sb, 6, mt.rank, T_SR);
    MT_CHECK(MPI_Sendrecv(sb, 6, MPI_INT, peer, T_SR, rb, 6, MPI_INT, peer, T_SR, MPI_COMM_WORLD,
                          &st));
    report("sendrecv", &st, MPI_INT, peer == MPI_PROC_NULL ? 0 : mt_bad_int(rb, 6, peer, T_SR));
    mt_fill_dbl(d, 5, mt.rank, T_SRR);
    MT_CHECK(MPI_Sendrecv_replace(d, 5, MPI_DOUBLE, peer, T_SRR, peer, T_SRR, MPI_COMM_WORLD, &st));
    int from = peer == MPI_PROC_NULL ? mt.rank : peer; /* PROC_NULL: d stays as it was */
    int bad = mt_bad_dbl(d, 5, from, T_SRR);
    report("sendrecv_replace", &st, MPI_DOUBLE, bad);
}

/* Every kind of call with MPI_PROC_NULL as the peer, on every rank. */
static void proc_null_peers(void)
{
    int b[2] = {1, 2}, c[2] = {3, 4};
    MPI_Status st;
    MPI_Request req;

    MT_CHECK(MPI_Send(b, 2, MPI_INT, MPI_PROC_NULL, T_NULL, MPI_COMM_WORLD));
    MT_CHECK(MPI_Recv(c, 2, MPI_INT, MPI_PROC_NULL, T_NULL, MPI_COMM_WORLD, &st));
    report("null recv", &st, MPI_INT, c[0] != 3 || c[1] != 4);
    MT_CHECK(MPI_Isend(b, 2, MPI_INT, MPI_PROC_NULL, T_NULL, MPI_COMM_WORLD, &req));
    MT_CHECK(MPI_Wait(&req, &st));
    MT_EXPECT(req == MPI_REQUEST_NULL, "null isend: request not null after MPI_Wait");
    MT_CHECK(MPI_Irecv(c, 2, MPI_INT, MPI_PROC_NULL, T_NULL, MPI_COMM_WORLD, &req));
    MT_CHECK(MPI_Wait(&req, &st));
    report("null irecv", &st, MPI_INT, c[0] != 3 || c[1] != 4);
    MT_CHECK(MPI_Sendrecv(b, 2, MPI_INT, MPI_PROC_NULL, T_NULL, c, 2, MPI_INT, MPI_PROC_NULL,
                          T_NULL, MPI_COMM_WORLD, &st));
    report("null sendrecv", &st, MPI_INT, c[0] != 3 || c[1] != 4);
}

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    int peer = (mt.rank ^ 1) < mt.size ? (mt.rank ^ 1) : MPI_PROC_NULL;
    int lo = mt.rank % 2 == 0;
    int bsize = 4096 + 4 * MPI_BSEND_OVERHEAD;
    char *bbuf = malloc((size_t)bsize);
    MT_EXPECT(bbuf != NULL, "out of memory");
    MT_CHECK(MPI_Buffer_attach(bbuf, bsize));

    mt_printf("peer=%d\n", peer == MPI_PROC_NULL ? -1 : peer);
    blocking_modes(peer, lo);
    nonblocking_modes(peer, lo);
    sendrecv_both(peer);
    proc_null_peers();

    void *det;
    int dsize;
    MT_CHECK(MPI_Buffer_detach(&det, &dsize));
    MT_EXPECT(det == bbuf && dsize == bsize, "Buffer_detach gave back another buffer");
    free(bbuf);
    return mt_finish();
}
