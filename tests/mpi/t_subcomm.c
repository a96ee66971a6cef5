/* t_subcomm.c: communicator constructors (Comm_split with reversed keys, Comm_dup, Comm_idup,
 * Comm_split_type, Cart_create, Cart_sub, Comm_create_group, Comm_create giving MPI_COMM_NULL on some ranks, Intercomm_create,
 * Intercomm_merge), collectives and point-to-point on each, then Comm_free. Needs >= 2 ranks:
 * the even world ranks form group A, the odd ones group B. The expected events are
 * check_events.py's subcomm(). */
#include "mpitest.h"

static int P, R;

/* Split by parity, ranked by descending world rank; a ring and two collectives on it. */
static MPI_Comm split_part(void)
{
    MPI_Comm split;
    int sr, ss, sum = 0, want = 0, top, wtop = -1, got = -1;
    MT_CHECK(MPI_Comm_split(MPI_COMM_WORLD, R % 2, -R, &split));
    MPI_Comm_rank(split, &sr);
    MPI_Comm_size(split, &ss);
    for (int i = R % 2; i < P; i += 2) {
        want += i;
        wtop = i;
    }
    MT_EXPECT(sr == (wtop - R) / 2, "split rank %d, expected %d", sr, (wtop - R) / 2);
    MT_CHECK(MPI_Allreduce(&R, &sum, 1, MPI_INT, MPI_SUM, split));
    top = R;
    MT_CHECK(MPI_Bcast(&top, 1, MPI_INT, 0, split));
    int to = (sr + 1) % ss, from = (sr + ss - 1) % ss;
    MT_CHECK(
        MPI_Sendrecv(&R, 1, MPI_INT, to, 60, &got, 1, MPI_INT, from, 60, split, MPI_STATUS_IGNORE));
    mt_printf("split: rank %d of %d, sum %d, top %d, from world %d\n", sr, ss, sum, top, got);
    MT_EXPECT(sum == want && top == wtop && got == wtop - 2 * from, "split: wrong results");
    return split;
}

static MPI_Comm dup_part(void)
{
    MPI_Comm dup;
    MPI_Request r[2];
    int one = 1, n = 0, got = -1, right = (R + 1) % P, left = (R + P - 1) % P;
    MT_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CHECK(MPI_Barrier(dup));
    MT_CHECK(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, dup));
    MT_CHECK(MPI_Irecv(&got, 1, MPI_INT, left, 61, dup, &r[0]));
    MT_CHECK(MPI_Isend(&R, 1, MPI_INT, right, 61, dup, &r[1]));
    MT_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    mt_printf("dup: size %d, from %d\n", n, got);
    MT_EXPECT(n == P && got == left, "dup: wrong results");
    return dup;
}

/* A nonblocking dup (a request that creates a communicator) and a split by node. */
static void idup_part(void)
{
    MPI_Comm idup, node;
    MPI_Request req;
    int one = 1, n = 0, m = 0;
    MT_CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &idup, &req));
    MT_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_EXPECT(req == MPI_REQUEST_NULL, "Comm_idup: request not null after Wait");
    MT_CHECK(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, idup));
    MT_CHECK(MPI_Comm_free(&idup));
    MT_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MT_CHECK(MPI_Allreduce(&one, &m, 1, MPI_INT, MPI_SUM, node));
    MT_CHECK(MPI_Comm_free(&node));
    mt_printf("idup: size %d; node: size %d\n", n, m);
    MT_EXPECT(n == P && m == P, "idup/split_type: wrong sizes (one node expected)");
}

/* A 2-D cart without reordering (cart rank == world rank), its rows and columns. */
static void cart_part(MPI_Comm *cart, MPI_Comm *row, MPI_Comm *col)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0}, keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
    MT_CHECK(MPI_Dims_create(P, 2, dims));
    MT_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, cart));
    MT_CHECK(MPI_Cart_sub(*cart, keep_row, row));
    MT_CHECK(MPI_Cart_sub(*cart, keep_col, col));
    int *all = mt_calloc((size_t)dims[1], sizeof(int)),
        *want = mt_calloc((size_t)dims[1], sizeof(int));
    for (int j = 0; j < dims[1]; j++)
        want[j] = (R / dims[1]) * dims[1] + j;
    MT_CHECK(MPI_Allgather(&R, 1, MPI_INT, all, 1, MPI_INT, *row));
    mt_printf("cart %dx%d\n", dims[0], dims[1]);
    mt_result_i("row allgather", all, want, dims[1]);
    int top = R, wtop = R % dims[1];
    MT_CHECK(MPI_Bcast(&top, 1, MPI_INT, 0, *col));
    mt_result_i("col bcast", &top, &wtop, 1);
    free(all);
    free(want);
}

/* Even ranks build a communicator by group without the odd ones; then every rank calls
 * Comm_create for the odd group, which gives the even ranks MPI_COMM_NULL. */
static void group_part(MPI_Comm *evens, MPI_Comm *odds)
{
    MPI_Group world, ge, go;
    int ne = (P + 1) / 2, no = P / 2, ranks[64];
    MT_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    for (int i = 0; i < ne; i++)
        ranks[i] = 2 * i;
    MT_CHECK(MPI_Group_incl(world, ne, ranks, &ge));
    for (int i = 0; i < no; i++)
        ranks[i] = 2 * i + 1;
    MT_CHECK(MPI_Group_incl(world, no, ranks, &go));
    *evens = MPI_COMM_NULL;
    if (R % 2 == 0) {
        int sum = 0, want = 0;
        MT_CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, ge, 5, evens));
        MT_CHECK(MPI_Allreduce(&R, &sum, 1, MPI_INT, MPI_SUM, *evens));
        for (int i = 0; i < P; i += 2)
            want += i;
        mt_result_i("create_group allreduce", &sum, &want, 1);
    }
    MT_CHECK(MPI_Comm_create(MPI_COMM_WORLD, go, odds));
    mt_printf("comm_create: %s\n", *odds == MPI_COMM_NULL ? "null" : "member");
    MT_EXPECT((*odds == MPI_COMM_NULL) == (R % 2 == 0), "Comm_create membership wrong");
    if (*odds != MPI_COMM_NULL)
        MT_CHECK(MPI_Barrier(*odds));
    MT_CHECK(MPI_Group_free(&ge));
    MT_CHECK(MPI_Group_free(&go));
    MT_CHECK(MPI_Group_free(&world));
}

/* Group A (even, from split) and group B (odd): an intercommunicator between their leaders
 * (the largest world rank of each), point-to-point and collectives across it, then merged. */
static void inter_part(MPI_Comm split, MPI_Comm *inter, MPI_Comm *merged)
{
    int a = R % 2 == 0, sr, lead_a = (P - 1) - (P - 1) % 2, lead_b = P - 1 - P % 2;
    MPI_Comm_rank(split, &sr);
    MT_CHECK(MPI_Intercomm_create(split, 0, MPI_COMM_WORLD, a ? lead_b : lead_a, 7, inter));
    int rsize;
    MPI_Comm_remote_size(*inter, &rsize);
    mt_printf("inter: remote size %d\n", rsize);

    /* Leaders exchange a message: remote rank 0 is the other leader. */
    if (sr == 0) {
        int got = -1;
        if (a) {
            MT_CHECK(MPI_Send(&R, 1, MPI_INT, 0, 62, *inter));
        } else {
            MT_CHECK(MPI_Recv(&got, 1, MPI_INT, 0, 62, *inter, MPI_STATUS_IGNORE));
            mt_printf("inter recv from world %d\n", got);
            MT_EXPECT(got == lead_a, "inter p2p: got %d", got);
        }
    }
    /* A's leader broadcasts to B. */
    int v = a && sr == 0 ? 4242 : -1, wv = a ? (sr == 0 ? 4242 : -1) : 4242;
    MT_CHECK(MPI_Bcast(&v, 1, MPI_INT, a ? (sr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, *inter));
    mt_result_i("inter bcast", &v, &wv, 1);
    /* Each group gets the sum over the other one. */
    int sum = 0, want = 0;
    for (int i = a ? 1 : 0; i < P; i += 2)
        want += i;
    MT_CHECK(MPI_Allreduce(&R, &sum, 1, MPI_INT, MPI_SUM, *inter));
    mt_result_i("inter allreduce", &sum, &want, 1);

    MT_CHECK(MPI_Intercomm_merge(*inter, !a, merged));
    int mr, wmr = a ? sr : (P + 1) / 2 + sr, total = 0, wtotal = P * (P - 1) / 2;
    MPI_Comm_rank(*merged, &mr);
    MT_CHECK(MPI_Allreduce(&R, &total, 1, MPI_INT, MPI_SUM, *merged));
    mt_printf("merged: rank %d\n", mr);
    MT_EXPECT(mr == wmr, "merged rank %d, expected %d", mr, wmr);
    mt_result_i("merged allreduce", &total, &wtotal, 1);
    MT_CHECK(MPI_Barrier(*merged));
}

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    P = mt.size;
    R = mt.rank;
    if (P < 2 || P > 64) {
        mt_fail(__FILE__, __LINE__, "needs 2..64 ranks");
        return mt_finish();
    }
    MPI_Comm split, dup, cart, row, col, evens, odds, inter, merged;
    split = split_part();
    dup = dup_part();
    idup_part();
    cart_part(&cart, &row, &col);
    group_part(&evens, &odds);
    inter_part(split, &inter, &merged);

    MT_CHECK(MPI_Comm_free(&merged));
    MT_CHECK(MPI_Comm_free(&inter));
    if (odds != MPI_COMM_NULL)
        MT_CHECK(MPI_Comm_free(&odds));
    if (evens != MPI_COMM_NULL)
        MT_CHECK(MPI_Comm_free(&evens));
    MT_CHECK(MPI_Comm_free(&col));
    MT_CHECK(MPI_Comm_free(&row));
    MT_CHECK(MPI_Comm_free(&cart));
    MT_CHECK(MPI_Comm_free(&dup));
    MT_CHECK(MPI_Comm_free(&split));
    MT_EXPECT(split == MPI_COMM_NULL && dup == MPI_COMM_NULL, "Comm_free did not null handles");
    return mt_finish();
}
