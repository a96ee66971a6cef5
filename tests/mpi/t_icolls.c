/* t_icolls.c: every nonblocking collective on MPI_COMM_WORLD, several outstanding at once and
 * completed by Waitall, Wait out of order, Test loops and Waitany; in-place forms; then
 * neighbourhood collectives (one nonblocking, one blocking) on a periodic 1-D Cart
 * communicator. The expected events are check_events.py's icolls(). */
#include "mpitest.h"

#define MAXP 64

static int P, R;

static int pair_count(int i, int j) { return (i + j) % 3 + 1; }
static MPI_Datatype pair_type(int i, int j) { return (i + j) % 2 ? MPI_INT : MPI_DOUBLE; }
static int a2a(int from, int to, int tag, int k) { return mt_val(from, tag, to * 10 + k); }

/* Batch A, completed together by one Waitall: barrier, bcast, gather(v), scatter(v). */
static void batch_a(void)
{
    MPI_Request r[6];
    MPI_Status st[6];
    int bc[4], wbc[4], gs[2], gsv[MAXP + 1], sc[3], scv[MAXP + 1];
    int counts[MAXP], displs[MAXP], total = 0;
    for (int i = 0; i < P; i++) {
        counts[i] = i + 1;
        displs[i] = total;
        total += i + 1;
    }
    int *g = mt_calloc((size_t)P * 2, sizeof(int)), *wg = mt_calloc((size_t)P * 2, sizeof(int));
    int *gv = mt_calloc((size_t)total, sizeof(int)), *wgv = mt_calloc((size_t)total, sizeof(int));
    int *ss = mt_calloc((size_t)P * 3, sizeof(int)), *ssv = mt_calloc((size_t)total, sizeof(int));
    int wsc[3], wscv[MAXP + 1];

    mt_fill_int(wbc, 4, P - 1, 1);
    if (R == P - 1)
        memcpy(bc, wbc, sizeof bc);
    else
        memset(bc, 0, sizeof bc);
    mt_fill_int(gs, 2, R, 2);
    for (int i = 0; i < P; i++)
        mt_fill_int(wg + 2 * i, 2, i, 2);
    mt_fill_int(gsv, R + 1, R, 3);
    for (int i = 0; i < P; i++)
        mt_fill_int(wgv + displs[i], i + 1, i, 3);
    for (int i = 0; i < P; i++)
        mt_fill_int(ss + 3 * i, 3, i, 4);
    mt_fill_int(wsc, 3, R, 4);
    for (int i = 0; i < P; i++)
        mt_fill_int(ssv + displs[i], i + 1, i, 5);
    mt_fill_int(wscv, R + 1, R, 5);

    MT_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &r[0]));
    MT_CHECK(MPI_Ibcast(bc, 4, MPI_INT, P - 1, MPI_COMM_WORLD, &r[1]));
    MT_CHECK(MPI_Igather(gs, 2, MPI_INT, g, 2, MPI_INT, P / 2, MPI_COMM_WORLD, &r[2]));
    MT_CHECK(
        MPI_Igatherv(gsv, R + 1, MPI_INT, gv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &r[3]));
    MT_CHECK(MPI_Iscatter(ss, 3, MPI_INT, sc, 3, MPI_INT, 1 % P, MPI_COMM_WORLD, &r[4]));
    MT_CHECK(MPI_Iscatterv(ssv, counts, displs, MPI_INT, scv, R + 1, MPI_INT, P - 1, MPI_COMM_WORLD,
                           &r[5]));
    MT_CHECK(MPI_Waitall(6, r, st));
    for (int i = 0; i < 6; i++)
        MT_EXPECT(r[i] == MPI_REQUEST_NULL, "batch a: request %d not null after Waitall", i);
    mt_result_i("ibcast", bc, wbc, 4);
    mt_result_i("igather", g, wg, R == P / 2 ? 2 * P : 0);
    mt_result_i("igatherv", gv, wgv, R == 0 ? total : 0);
    mt_result_i("iscatter", sc, wsc, 3);
    mt_result_i("iscatterv", scv, wscv, R + 1);
    free(g);
    free(wg);
    free(gv);
    free(wgv);
    free(ss);
    free(ssv);
}

/* Batch B, one Waitall with statuses ignored: allgather(v), alltoall(v,w). */
static void batch_b(void)
{
    MPI_Request r[5];
    int ag[2], agv[MAXP + 1], counts[MAXP], displs[MAXP], total = 0;
    int ac[MAXP], ad[MAXP], at = 0, wc[MAXP], wd[MAXP], wt = 0;
    MPI_Datatype wty[MAXP];
    for (int i = 0; i < P; i++) {
        counts[i] = i + 1;
        displs[i] = total;
        total += i + 1;
        ac[i] = pair_count(R, i);
        ad[i] = at;
        at += ac[i];
        wc[i] = pair_count(R, i);
        wty[i] = pair_type(R, i);
        wd[i] = wt;
        wt += 8 * wc[i];
    }
    int *rag = mt_calloc((size_t)P * 2, sizeof(int)), *wag = mt_calloc((size_t)P * 2, sizeof(int));
    int *ragv = mt_calloc((size_t)total, sizeof(int)),
        *wagv = mt_calloc((size_t)total, sizeof(int));
    int *s1 = mt_calloc((size_t)P, sizeof(int)), *r1 = mt_calloc((size_t)P, sizeof(int));
    int *w1 = mt_calloc((size_t)P, sizeof(int));
    int *sv = mt_calloc((size_t)at, sizeof(int)), *rv = mt_calloc((size_t)at, sizeof(int));
    int *wv = mt_calloc((size_t)at, sizeof(int));
    char *sw = mt_calloc((size_t)wt, 1), *rw = mt_calloc((size_t)wt, 1),
         *ww = mt_calloc((size_t)wt, 1);

    mt_fill_int(ag, 2, R, 6);
    for (int i = 0; i < P; i++)
        mt_fill_int(wag + 2 * i, 2, i, 6);
    mt_fill_int(agv, R + 1, R, 7);
    for (int i = 0; i < P; i++)
        mt_fill_int(wagv + displs[i], i + 1, i, 7);
    for (int j = 0; j < P; j++) {
        s1[j] = a2a(R, j, 8, 0);
        w1[j] = a2a(j, R, 8, 0);
        for (int k = 0; k < ac[j]; k++) {
            sv[ad[j] + k] = a2a(R, j, 9, k);
            wv[ad[j] + k] = a2a(j, R, 9, k);
        }
        for (int k = 0; k < wc[j]; k++) {
            if (wty[j] == MPI_INT) {
                ((int *)(sw + wd[j]))[k] = a2a(R, j, 10, k);
                ((int *)(ww + wd[j]))[k] = a2a(j, R, 10, k);
            } else {
                ((double *)(sw + wd[j]))[k] = a2a(R, j, 10, k) + 0.25;
                ((double *)(ww + wd[j]))[k] = a2a(j, R, 10, k) + 0.25;
            }
        }
    }

    MT_CHECK(MPI_Iallgather(ag, 2, MPI_INT, rag, 2, MPI_INT, MPI_COMM_WORLD, &r[0]));
    MT_CHECK(
        MPI_Iallgatherv(agv, R + 1, MPI_INT, ragv, counts, displs, MPI_INT, MPI_COMM_WORLD, &r[1]));
    MT_CHECK(MPI_Ialltoall(s1, 1, MPI_INT, r1, 1, MPI_INT, MPI_COMM_WORLD, &r[2]));
    MT_CHECK(MPI_Ialltoallv(sv, ac, ad, MPI_INT, rv, ac, ad, MPI_INT, MPI_COMM_WORLD, &r[3]));
    MT_CHECK(MPI_Ialltoallw(sw, wc, wd, wty, rw, wc, wd, wty, MPI_COMM_WORLD, &r[4]));
    MT_CHECK(MPI_Waitall(5, r, MPI_STATUSES_IGNORE));
    mt_result_i("iallgather", rag, wag, 2 * P);
    mt_result_i("iallgatherv", ragv, wagv, total);
    mt_result_i("ialltoall", r1, w1, P);
    mt_result_i("ialltoallv", rv, wv, at);
    int bad = memcmp(rw, ww, (size_t)wt) != 0;
    mt_printf("ialltoallw: bytes=%d bad=%d\n", wt, bad);
    MT_EXPECT(!bad, "ialltoallw: wrong data");
    free(rag);
    free(wag);
    free(ragv);
    free(wagv);
    free(s1);
    free(r1);
    free(w1);
    free(sv);
    free(rv);
    free(wv);
    free(sw);
    free(rw);
    free(ww);
}

/* Batch C, reductions, each completed by its own MPI_Wait in reverse order of starting. */
static void batch_c(void)
{
    MPI_Request r[6];
    int counts[MAXP], total = 0, off = 0;
    for (int i = 0; i < P; i++) {
        counts[i] = i + 1;
        if (i < R)
            off += i + 1;
        total += i + 1;
    }
    int red_s[3], red_r[3], red_w[3], rsb_s[MAXP], rsb_r, rsb_w, sc_s, sc_r, sc_w, ex_r, ex_w;
    double ar_s[2], ar_r[2], ar_w[2];
    int *rs_s = mt_calloc((size_t)total, sizeof(int)), rs_r[MAXP], rs_w[MAXP];

    for (int k = 0; k < 3; k++) {
        red_s[k] = R + k;
        red_w[k] = P * k + P * (P - 1) / 2;
    }
    for (int k = 0; k < 2; k++) {
        ar_s[k] = R * 0.5 + k;
        ar_w[k] = 0;
        for (int i = 0; i < P; i++)
            ar_w[k] += i * 0.5 + k;
    }
    for (int e = 0; e < total; e++)
        rs_s[e] = R + e;
    for (int k = 0; k < R + 1; k++)
        rs_w[k] = P * (off + k) + P * (P - 1) / 2;
    for (int e = 0; e < P; e++)
        rsb_s[e] = R * e + 1;
    rsb_w = R * P * (P - 1) / 2 + P;
    sc_s = R + 1;
    sc_w = (R + 1) * (R + 2) / 2;
    ex_w = R * (R + 1) / 2;

    MT_CHECK(MPI_Ireduce(red_s, red_r, 3, MPI_INT, MPI_SUM, P / 2, MPI_COMM_WORLD, &r[0]));
    MT_CHECK(MPI_Iallreduce(ar_s, ar_r, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[1]));
    MT_CHECK(MPI_Ireduce_scatter(rs_s, rs_r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[2]));
    MT_CHECK(MPI_Ireduce_scatter_block(rsb_s, &rsb_r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[3]));
    MT_CHECK(MPI_Iscan(&sc_s, &sc_r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[4]));
    MT_CHECK(MPI_Iexscan(&sc_s, &ex_r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[5]));
    for (int i = 5; i >= 0; i--) {
        MT_CHECK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
        MT_EXPECT(r[i] == MPI_REQUEST_NULL, "batch c: request %d not null after Wait", i);
    }
    mt_result_i("ireduce", red_r, red_w, R == P / 2 ? 3 : 0);
    mt_result_d("iallreduce", ar_r, ar_w, 2);
    mt_result_i("ireduce_scatter", rs_r, rs_w, R + 1);
    mt_result_i("ireduce_scatter_block", &rsb_r, &rsb_w, 1);
    mt_result_i("iscan", &sc_r, &sc_w, 1);
    mt_result_i("iexscan", &ex_r, &ex_w, R == 0 ? 0 : 1);
    free(rs_s);
}

/* Batch D: in-place forms; a Test loop, then Waitany over two. */
static void batch_d(void)
{
    MPI_Request r[2];
    MPI_Status st;
    int flag = 0, idx, mx[2], wmx[2], b, wb = 77, done = 0;
    int *g = mt_calloc((size_t)P, sizeof(int)), *wg = mt_calloc((size_t)P, sizeof(int));

    for (int k = 0; k < 2; k++) {
        mx[k] = (R * 3) % 4 + k;
        wmx[k] = 0;
        for (int i = 0; i < P; i++)
            if ((i * 3) % 4 + k > wmx[k])
                wmx[k] = (i * 3) % 4 + k;
    }
    MT_CHECK(MPI_Iallreduce(MPI_IN_PLACE, mx, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r[0]));
    while (!flag) {
        MT_CHECK(MPI_Test(&r[0], &flag, &st));
        if (!flag)
            mt_poll_pause();
    }
    MT_EXPECT(r[0] == MPI_REQUEST_NULL, "Test left the request active");
    mt_result_i("iallreduce inplace", mx, wmx, 2);

    b = R == 0 ? 77 : 0;
    for (int i = 0; i < P; i++)
        wg[i] = 1000 + i;
    g[0] = 1000;
    int mine = 1000 + R;
    MT_CHECK(MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]));
    if (R == 0)
        MT_CHECK(MPI_Igather(MPI_IN_PLACE, 1, MPI_INT, g, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[1]));
    else
        MT_CHECK(MPI_Igather(&mine, 1, MPI_INT, NULL, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[1]));
    while (done < 2) {
        MT_CHECK(MPI_Waitany(2, r, &idx, &st));
        MT_EXPECT(idx == 0 || idx == 1, "Waitany index %d", idx);
        done++;
    }
    mt_result_i("ibcast 2", &b, &wb, 1);
    mt_result_i("igather inplace", g, wg, R == 0 ? P : 0);
    free(g);
    free(wg);
}

/* Neighbourhood collectives on a periodic ring. With fewer than 3 ranks both neighbours are the
 * same process, and which block arrives where is not something to test, so check the set. */
static void neighbours(void)
{
    MPI_Comm ring;
    MPI_Request req;
    int dims[1] = {P}, periods[1] = {1}, left, right;
    MT_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    MT_CHECK(MPI_Cart_shift(ring, 0, 1, &left, &right));

    int s[2] = {a2a(R, left, 20, 0), a2a(R, right, 20, 1)}, rv[2] = {0, 0};
    int w[2] = {a2a(left, R, 20, 1), a2a(right, R, 20, 0)};
    MT_CHECK(MPI_Ineighbor_alltoall(s, 1, MPI_INT, rv, 1, MPI_INT, ring, &req));
    MT_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (P < 3 && rv[0] == w[1] && rv[1] == w[0]) {
        int t = rv[0];
        rv[0] = rv[1];
        rv[1] = t;
    }
    mt_result_i("ineighbor_alltoall", rv, w, 2);

    int ag[2], rag[4] = {0}, wag[4];
    mt_fill_int(ag, 2, R, 21);
    mt_fill_int(wag, 2, left, 21);
    mt_fill_int(wag + 2, 2, right, 21);
    MT_CHECK(MPI_Neighbor_allgather(ag, 2, MPI_INT, rag, 2, MPI_INT, ring));
    mt_result_i("neighbor_allgather", rag, wag, 4);
    MT_CHECK(MPI_Comm_free(&ring));
    MT_EXPECT(ring == MPI_COMM_NULL, "Comm_free did not null the handle");
}

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    P = mt.size;
    R = mt.rank;
    if (P > MAXP) {
        mt_fail(__FILE__, __LINE__, "at most %d ranks", MAXP);
        return mt_finish();
    }
    batch_a();
    batch_b();
    batch_c();
    batch_d();
    neighbours();
    return mt_finish();
}
