/* t_transparent.c: what an application sees must not change under the shim. With
 * MPI_ERRORS_RETURN, erroneous calls return the same codes; statuses (including the MPI_ERROR
 * field MPI may leave alone), counts, indices, flags and request handles come back as without
 * the shim. The runner compares this program's stdout with and without the shim byte for byte;
 * check_events.py's transparent() also matches every printed "err" line's rc with the rc the
 * shim recorded for that call. Runs on any number of ranks; messages go to self or neighbours. */
#include "mpitest.h"

#define SENTINEL 12345

static int P, R;

/* The class goes to stdout; the code itself to stderr, because MPICH's codes carry a
 * per-run index. The checker reads the "mt-rc" lines to compare codes with the recorded rc. */
static void err_line(const char *label, const char *call, int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    mt_printf("err %s %s class=%d\n", label, call, cls);
    MT_EXPECT(rc != MPI_SUCCESS || !strcmp(call, "MPI_Waitall"), "%s %s: no error", label, call);
    fprintf(stderr, "mt-rc %d %s %s %d\n", R, label, call, rc);
}

static void status_line(const char *label, const MPI_Status *st)
{
    int n = -2, e = -2, c = -2;
    MPI_Get_count(st, MPI_INT, &n);
    MPI_Get_elements(st, MPI_INT, &e);
    MPI_Test_cancelled(st, &c);
    mt_printf("status %s: source=%d tag=%d error=%d count=%d elements=%d cancelled=%d\n", label,
              st->MPI_SOURCE, st->MPI_TAG, st->MPI_ERROR, n, e, c);
}

static void reset(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++) {
        memset(&st[i], 0x5a, sizeof st[i]);
        st[i].MPI_SOURCE = -77;
        st[i].MPI_TAG = -77;
        st[i].MPI_ERROR = SENTINEL;
    }
}

static const char *handle(MPI_Request r) { return r == MPI_REQUEST_NULL ? "null" : "set"; }

/* Erroneous calls: each must return an error, the same one with and without the shim. */
static void errors(void)
{
    int b[4] = {1, 2, 3, 4}, c[4];
    MPI_Status st;
    MPI_Request req = MPI_REQUEST_NULL;
    int right = (R + 1) % P;

    err_line("invalid-rank", "MPI_Send", MPI_Send(b, 1, MPI_INT, P + 5, 0, MPI_COMM_WORLD));
    err_line("negative-count", "MPI_Send", MPI_Send(b, -1, MPI_INT, right, 0, MPI_COMM_WORLD));
    reset(&st, 1);
    err_line("negative-tag", "MPI_Recv", MPI_Recv(c, 1, MPI_INT, right, -5, MPI_COMM_WORLD, &st));
    err_line("invalid-rank", "MPI_Isend", MPI_Isend(b, 1, MPI_INT, P + 5, 0, MPI_COMM_WORLD, &req));
    mt_printf("request after failed Isend: %s\n", handle(req));
    err_line("invalid-root", "MPI_Bcast", MPI_Bcast(b, 1, MPI_INT, P + 1, MPI_COMM_WORLD));
    err_line("null-type", "MPI_Allreduce",
             MPI_Allreduce(b, c, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD));
    err_line("null-comm", "MPI_Barrier", MPI_Barrier(MPI_COMM_NULL));

    /* A truncated receive (4 ints into room for 2), blocking and inside a Waitall. They go
     * around the ring: MPICH 4.0 may never complete a self-send whose receive was too short. */
    if (P < 2)
        return;
    int left = (R + P - 1) % P;
    MPI_Request r[2];
    MPI_Status sts[2];
    MT_CHECK(MPI_Isend(b, 4, MPI_INT, right, 6, MPI_COMM_WORLD, &r[0]));
    reset(&st, 1);
    err_line("truncate", "MPI_Recv", MPI_Recv(c, 2, MPI_INT, left, 6, MPI_COMM_WORLD, &st));
    mt_printf("truncated recv: source=%d tag=%d\n", st.MPI_SOURCE, st.MPI_TAG);
    MT_CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));

    MT_CHECK(MPI_Irecv(c, 2, MPI_INT, left, 7, MPI_COMM_WORLD, &r[0]));
    MT_CHECK(MPI_Isend(b, 4, MPI_INT, right, 7, MPI_COMM_WORLD, &r[1]));
    reset(sts, 2);
    err_line("truncate", "MPI_Waitall", MPI_Waitall(2, r, sts));
    for (int i = 0; i < 2; i++) {
        int cls = -1;
        MPI_Error_class(sts[i].MPI_ERROR, &cls);
        mt_printf("waitall status %d: error class %d, request %s\n", i, cls, handle(r[i]));
    }
    /* With MPI_ERR_IN_STATUS the send may still be pending: finish it. */
    if (r[1] != MPI_REQUEST_NULL)
        MT_CHECK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
}

/* Statuses of successful completions, including fields MPI may leave untouched. */
static void statuses(void)
{
    int b[4] = {5, 6, 7, 8}, c[4], d[4], idx = -9, flag = -9, out = -9, ind[2];
    MPI_Status st, sts[2];
    MPI_Request r[2];
    int right = (R + 1) % P, left = (R + P - 1) % P;

    reset(&st, 1);
    MT_CHECK(MPI_Sendrecv(b, 3, MPI_INT, right, 5, c, 4, MPI_INT, left, 5, MPI_COMM_WORLD, &st));
    status_line("sendrecv", &st);

    reset(sts, 2);
    MT_CHECK(MPI_Irecv(c, 4, MPI_INT, left, 8, MPI_COMM_WORLD, &r[0]));
    MT_CHECK(MPI_Isend(b, 2, MPI_INT, right, 8, MPI_COMM_WORLD, &r[1]));
    MT_CHECK(MPI_Waitall(2, r, sts));
    status_line("waitall recv", &sts[0]);
    mt_printf("waitall send status error=%d; requests %s %s\n", sts[1].MPI_ERROR, handle(r[0]),
              handle(r[1]));

    /* Waitany over a null and a receive: the receive is the only one it can pick. */
    MPI_Request s;
    MT_CHECK(MPI_Isend(b, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &s));
    r[0] = MPI_REQUEST_NULL;
    MT_CHECK(MPI_Irecv(c, 4, MPI_INT, left, 9, MPI_COMM_WORLD, &r[1]));
    reset(&st, 1);
    MT_CHECK(MPI_Waitany(2, r, &idx, &st));
    mt_printf("waitany index %d, requests %s %s\n", idx, handle(r[0]), handle(r[1]));
    status_line("waitany", &st);
    MT_CHECK(MPI_Wait(&s, MPI_STATUS_IGNORE));

    /* Waitsome over a receive and a null. */
    MT_CHECK(MPI_Irecv(d, 4, MPI_INT, left, 10, MPI_COMM_WORLD, &r[0]));
    MT_CHECK(MPI_Send(b, 4, MPI_INT, right, 10, MPI_COMM_WORLD));
    reset(sts, 2);
    MT_CHECK(MPI_Waitsome(2, r, &out, ind, sts));
    mt_printf("waitsome outcount %d index %d\n", out, ind[0]);
    status_line("waitsome", &sts[0]);

    /* Tests until done on a receive; the final status is printed, not the number of tries. */
    MT_CHECK(MPI_Irecv(d, 4, MPI_INT, left, 11, MPI_COMM_WORLD, &r[0]));
    MT_CHECK(MPI_Send(b, 2, MPI_INT, right, 11, MPI_COMM_WORLD));
    for (flag = 0; !flag;) {
        MT_CHECK(MPI_Test(&r[0], &flag, &st));
        if (!flag)
            mt_poll_pause();
    }
    mt_printf("test flag %d request %s\n", flag, handle(r[0]));
    status_line("test", &st);

    /* A count that is not a whole number of elements: 5 bytes read as ints. */
    MT_CHECK(
        MPI_Sendrecv(b, 5, MPI_BYTE, right, 12, c, 16, MPI_BYTE, left, 12, MPI_COMM_WORLD, &st));
    status_line("5 bytes as ints", &st);
}

/* Completions of null and inactive requests, cancel, probes that find nothing. */
static void null_requests(void)
{
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[2];
    int idx = -9, flag = -9, out = -9, ind[2], b[2] = {0, 0}, rb[2];

    reset(&st, 1);
    MT_CHECK(MPI_Wait(&r[0], &st));
    status_line("wait null", &st);
    reset(&st, 1);
    MT_CHECK(MPI_Test(&r[0], &flag, &st));
    mt_printf("test null: flag %d\n", flag);
    status_line("test null", &st);
    MT_CHECK(MPI_Waitany(2, r, &idx, &st));
    mt_printf("waitany null: index %s\n", idx == MPI_UNDEFINED ? "undefined" : "defined");
    MT_CHECK(MPI_Testany(2, r, &idx, &flag, &st));
    mt_printf("testany null: flag %d index %s\n", flag,
              idx == MPI_UNDEFINED ? "undefined" : "defined");
    MT_CHECK(MPI_Waitsome(2, r, &out, ind, sts));
    mt_printf("waitsome null: outcount %s\n", out == MPI_UNDEFINED ? "undefined" : "defined");
    reset(sts, 2);
    MT_CHECK(MPI_Waitall(2, r, sts));
    MT_CHECK(MPI_Testall(2, r, &flag, sts));
    mt_printf("testall null: flag %d\n", flag);

    /* A persistent request stays allocated after completion, and inactive completes at once. */
    MPI_Request p;
    MT_CHECK(MPI_Send_init(b, 2, MPI_INT, R, 13, MPI_COMM_WORLD, &p));
    MT_CHECK(MPI_Wait(&p, &st));
    mt_printf("inactive persistent after wait: %s\n", handle(p));
    MT_CHECK(MPI_Recv_init(rb, 2, MPI_INT, R, 13, MPI_COMM_WORLD, &r[0]));
    r[1] = p;
    MT_CHECK(MPI_Startall(2, r));
    MT_CHECK(MPI_Waitall(2, r, sts));
    mt_printf("persistent after waitall: %s %s\n", handle(r[0]), handle(r[1]));
    MT_CHECK(MPI_Request_free(&r[0]));
    MT_CHECK(MPI_Request_free(&p));
    mt_printf("persistent after free: %s %s\n", handle(r[0]), handle(p));

    /* Cancel a receive nobody will match. */
    MPI_Request c;
    MT_CHECK(MPI_Irecv(b, 2, MPI_INT, R, 999, MPI_COMM_WORLD, &c));
    MT_CHECK(MPI_Cancel(&c));
    reset(&st, 1);
    MT_CHECK(MPI_Wait(&c, &st));
    flag = -9;
    MT_CHECK(MPI_Test_cancelled(&st, &flag));
    mt_printf("cancelled receive: cancelled %d request %s\n", flag, handle(c));

    MT_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 998, MPI_COMM_WORLD, &flag, &st));
    mt_printf("iprobe nothing: flag %d\n", flag);
}

/* Comm_split with MPI_UNDEFINED gives MPI_COMM_NULL on the odd ranks. */
static void null_comm(void)
{
    MPI_Comm c;
    MT_CHECK(MPI_Comm_split(MPI_COMM_WORLD, R % 2 ? MPI_UNDEFINED : 0, R, &c));
    mt_printf("split undefined: %s\n", c == MPI_COMM_NULL ? "null" : "comm");
    if (c != MPI_COMM_NULL) {
        MT_CHECK(MPI_Comm_free(&c));
        mt_printf("after free: %s\n", c == MPI_COMM_NULL ? "null" : "comm");
    }
    /* MPI_Pcontrol is variadic and does nothing in MPI itself; the shim records the level. */
    int p2 = MPI_Pcontrol(2);
    int p0 = MPI_Pcontrol(0, "ignored");
    mt_printf("pcontrol: %d %d\n", p2, p0);
}

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    P = mt.size;
    R = mt.rank;
    MT_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    errors();
    statuses();
    null_requests();
    null_comm();
    return mt_finish();
}
