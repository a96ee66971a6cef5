/* t_requests.c: requests the reader must link although nothing simple names them:
 *   - a receive cancelled and freed before the rank's first Wait or Test, and one cancelled
 *     and then waited for;
 *   - buffered persistent sends of 4 MiB restarted while the last one may still be in flight
 *     (Open MPI then gives the request a new handle inside MPI_Start / MPI_Startall);
 *   - generalized requests, completed with MPI_Grequest_complete and waited for or tested.
 * The expected events are check_events.py's requests(). */
#include "mpitest.h"

#define BIG (4 << 20) /* bytes of each buffered message */
#define ITER 4

static int query_fn(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    ++*(int *)extra;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    const int right = (mt.rank + 1) % mt.size, left = (mt.rank + mt.size - 1) % mt.size;

    /* cancelled before any completion of this rank: freed, then waited for */
    int never[2];
    MPI_Request c;
    MPI_Status st;
    int flag = 0;
    MT_CHECK(MPI_Irecv(&never[0], 1, MPI_INT, mt.rank, 99, MPI_COMM_WORLD, &c));
    MT_CHECK(MPI_Cancel(&c));
    MT_CHECK(MPI_Request_free(&c));
    MT_CHECK(MPI_Irecv(&never[1], 1, MPI_INT, mt.rank, 98, MPI_COMM_WORLD, &c));
    MT_CHECK(MPI_Cancel(&c));
    MT_CHECK(MPI_Wait(&c, &st));
    MT_CHECK(MPI_Test_cancelled(&st, &flag));
    mt_printf("cancelled: %d\n", flag);

    /* buffered persistent sends: each started while the last may still be in the buffer.
     * Their data is not checked: Open MPI 4.1.4 delivers zeros for a restart it gave a new
     * handle (seen without phasor too); what matters here is how the log links them. */
    int bufsize = 8 * (BIG + MPI_BSEND_OVERHEAD);
    unsigned char *attached = mt_calloc((size_t)bufsize, 1);
    unsigned char *sb[3], *rb = mt_calloc(BIG, 1);
    for (int k = 0; k < 3; k++)
        sb[k] = mt_calloc(BIG, 1);
    MT_CHECK(MPI_Buffer_attach(attached, bufsize));
    MPI_Request b, pair[2];
    MT_CHECK(MPI_Bsend_init(sb[0], BIG, MPI_BYTE, right, 5, MPI_COMM_WORLD, &b));
    for (int it = 0; it < ITER; it++) {
        memset(sb[0], it + 1, BIG);
        MT_CHECK(MPI_Start(&b));
        MT_CHECK(MPI_Wait(&b, MPI_STATUS_IGNORE));
        MT_CHECK(MPI_Recv(rb, BIG, MPI_BYTE, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    MT_CHECK(MPI_Bsend_init(sb[1], BIG, MPI_BYTE, right, 6, MPI_COMM_WORLD, &pair[0]));
    MT_CHECK(MPI_Bsend_init(sb[2], BIG, MPI_BYTE, right, 7, MPI_COMM_WORLD, &pair[1]));
    for (int it = 0; it < ITER; it++) {
        memset(sb[1], it + 1, BIG);
        memset(sb[2], it + 2, BIG);
        MT_CHECK(MPI_Startall(2, pair));
        MT_CHECK(MPI_Waitall(2, pair, MPI_STATUSES_IGNORE));
        MT_CHECK(MPI_Recv(rb, BIG, MPI_BYTE, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MT_CHECK(MPI_Recv(rb, BIG, MPI_BYTE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    MT_CHECK(MPI_Request_free(&b));
    MT_CHECK(MPI_Request_free(&pair[0]));
    MT_CHECK(MPI_Request_free(&pair[1]));
    void *was;
    int wassize;
    MT_CHECK(MPI_Buffer_detach(&was, &wassize));
    mt_printf("buffered: %d messages of %d bytes\n", 3 * ITER, BIG);

    /* generalized requests */
    int freed = 0;
    MPI_Request g;
    MT_CHECK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &freed, &g));
    MT_CHECK(MPI_Grequest_complete(g));
    MT_CHECK(MPI_Wait(&g, &st));
    MT_CHECK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &freed, &g));
    MT_CHECK(MPI_Test(&g, &flag, &st));
    MT_EXPECT(!flag, "a generalized request completed before MPI_Grequest_complete");
    MT_CHECK(MPI_Grequest_complete(g));
    MT_CHECK(MPI_Test(&g, &flag, &st));
    MT_EXPECT(flag, "a generalized request not complete after MPI_Grequest_complete");
    mt_printf("generalized: freed %d\n", freed);

    free(attached);
    free(rb);
    for (int k = 0; k < 3; k++)
        free(sb[k]);
    return mt_finish();
}
