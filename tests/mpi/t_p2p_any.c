/* t_p2p_any.c: wildcard receives (MPI_ANY_SOURCE / MPI_ANY_TAG), blocking and nonblocking, with
 * and without MPI_STATUS(ES)_IGNORE, completed by Waitall/Waitany/Waitsome/Testany/Testsome/
 * Testall/Test. Rank 0 collects one message per round from every other rank (needs >= 2 ranks);
 * a barrier separates rounds so that a wildcard never matches the next round's message. Round 9
 * is a ring of Sendrecv / Sendrecv_replace with wildcard sources on every rank.
 * The expected events are check_events.py's p2p_any(). */
#include "mpitest.h"

#define CAP 64 /* receive capacity in ints */
#define MAXP 64

typedef struct got {
    int src, tag, count, bad;
} got_t;

static int cmp_got(const void *a, const void *b)
{
    const got_t *x = a, *y = b;
    return x->src - y->src;
}

/* What sender s sends in round k: s + k ints with tag 100k + s (round 4: tag 400). */
static int r_count(int s, int k) { return s + k; }
static int r_tag(int s, int k) { return k == 4 ? 400 : 100 * k + s; }

/* Identify a message from its content alone (for receives whose status was ignored). */
static got_t from_data(const int *buf)
{
    got_t g;
    g.src = buf[0] / 100000;
    g.tag = (buf[0] % 100000) / 100;
    g.count = 0;
    while (g.count < CAP && buf[g.count] != -1)
        g.count++;
    g.bad = mt_bad_int(buf, g.count, g.src, g.tag);
    return g;
}

static got_t from_status(const int *buf, const MPI_Status *st)
{
    got_t g;
    g.src = st->MPI_SOURCE;
    g.tag = st->MPI_TAG;
    g.count = mt_count(st, MPI_INT);
    g.bad = mt_bad_int(buf, g.count < 0 ? 0 : g.count, g.src, g.tag);
    got_t d = from_data(buf);
    if (d.src != g.src || d.tag != g.tag || d.count != g.count)
        g.bad++;
    return g;
}

/* Rank 0: print one round's messages in source order and check them. */
static void print_round(int k, const char *how, got_t *g, int n)
{
    qsort(g, (size_t)n, sizeof *g, cmp_got);
    mt_printf("round %d (%s):", k, how);
    for (int i = 0; i < n; i++) {
        mt_printf(" %d/%d/%d%s", g[i].src, g[i].tag, g[i].count, g[i].bad ? "!" : "");
        MT_EXPECT(g[i].src == i + 1 && g[i].tag == r_tag(i + 1, k) &&
                      g[i].count == r_count(i + 1, k) && !g[i].bad,
                  "round %d: message %d wrong", k, i);
    }
    mt_printf("\n");
}

static void sender(int k)
{
    int buf[CAP], flag = 0;
    MPI_Request req;
    MPI_Status st;
    int n = r_count(mt.rank, k), tag = r_tag(mt.rank, k);
    mt_fill_int(buf, n, mt.rank, tag);
    switch (k) {
    case 3:
        MT_CHECK(MPI_Isend(buf, n, MPI_INT, 0, tag, MPI_COMM_WORLD, &req));
        MT_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        break;
    case 4:
        MT_CHECK(MPI_Isend(buf, n, MPI_INT, 0, tag, MPI_COMM_WORLD, &req));
        while (!flag) {
            MT_CHECK(MPI_Test(&req, &flag, &st));
            if (!flag)
                mt_poll_pause();
        }
        MT_EXPECT(req == MPI_REQUEST_NULL, "Test left the request active");
        break;
    case 8:
        MT_CHECK(MPI_Ssend(buf, n, MPI_INT, 0, tag, MPI_COMM_WORLD));
        break;
    default:
        MT_CHECK(MPI_Send(buf, n, MPI_INT, 0, tag, MPI_COMM_WORLD));
    }
}

static void collector(int k, int np)
{
    static int buf[MAXP][CAP];
    MPI_Request r[MAXP];
    MPI_Status st[MAXP];
    got_t g[MAXP];
    int n = np - 1, done = 0, idx, flag, out, ind[MAXP];

    for (int i = 0; i < n; i++)
        for (int j = 0; j < CAP; j++)
            buf[i][j] = -1;
    switch (k) {
    case 1: /* blocking, statuses */
        for (int i = 0; i < n; i++) {
            MT_CHECK(MPI_Recv(buf[i], CAP, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                              &st[0]));
            g[i] = from_status(buf[i], &st[0]);
        }
        print_round(k, "recv", g, n);
        break;
    case 2: /* blocking, status ignored */
        for (int i = 0; i < n; i++) {
            MT_CHECK(MPI_Recv(buf[i], CAP, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
            g[i] = from_data(buf[i]);
        }
        print_round(k, "recv ignore", g, n);
        break;
    case 3: /* Irecv any/any, Waitall with statuses */
        for (int i = 0; i < n; i++)
            MT_CHECK(MPI_Irecv(buf[i], CAP, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                               &r[i]));
        MT_CHECK(MPI_Waitall(n, r, st));
        for (int i = 0; i < n; i++)
            g[i] = from_status(buf[i], &st[i]);
        print_round(k, "waitall", g, n);
        break;
    case 4: /* Irecv any source with a fixed tag, Waitany one at a time */
        for (int i = 0; i < n; i++)
            MT_CHECK(MPI_Irecv(buf[i], CAP, MPI_INT, MPI_ANY_SOURCE, 400, MPI_COMM_WORLD, &r[i]));
        for (int i = 0; i < n; i++) {
            MT_CHECK(MPI_Waitany(n, r, &idx, &st[0]));
            MT_EXPECT(idx >= 0 && idx < n && r[idx] == MPI_REQUEST_NULL, "Waitany index %d", idx);
            g[i] = from_status(buf[idx], &st[0]);
        }
        print_round(k, "waitany", g, n);
        break;
    case 5: /* Irecv from each source with any tag, Waitsome until all are done */
        for (int i = 0; i < n; i++)
            MT_CHECK(MPI_Irecv(buf[i], CAP, MPI_INT, i + 1, MPI_ANY_TAG, MPI_COMM_WORLD, &r[i]));
        while (done < n) {
            MT_CHECK(MPI_Waitsome(n, r, &out, ind, st));
            MT_EXPECT(out >= 1 && out != MPI_UNDEFINED, "Waitsome outcount %d", out);
            for (int j = 0; j < out; j++) {
                g[done++] = from_status(buf[ind[j]], &st[j]);
                MT_EXPECT(g[done - 1].src == ind[j] + 1, "Waitsome: index/source mismatch");
            }
        }
        print_round(k, "waitsome", g, n);
        break;
    case 6: /* Irecv any/any, Testany until all are done */
        for (int i = 0; i < n; i++)
            MT_CHECK(MPI_Irecv(buf[i], CAP, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                               &r[i]));
        while (done < n) {
            MT_CHECK(MPI_Testany(n, r, &idx, &flag, &st[0]));
            if (flag) {
                MT_EXPECT(idx >= 0 && idx < n, "Testany index %d", idx);
                g[done++] = from_status(buf[idx], &st[0]);
            } else {
                mt_poll_pause();
            }
        }
        print_round(k, "testany", g, n);
        break;
    case 7: /* Irecv any/any, Testsome with statuses ignored */
        for (int i = 0; i < n; i++)
            MT_CHECK(MPI_Irecv(buf[i], CAP, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                               &r[i]));
        while (done < n) {
            MT_CHECK(MPI_Testsome(n, r, &out, ind, MPI_STATUSES_IGNORE));
            MT_EXPECT(out != MPI_UNDEFINED, "Testsome outcount undefined");
            for (int j = 0; j < out; j++)
                g[done++] = from_data(buf[ind[j]]);
            if (out == 0)
                mt_poll_pause();
        }
        print_round(k, "testsome ignore", g, n);
        break;
    case 8: /* Irecv any/any, Testall with statuses ignored */
        for (int i = 0; i < n; i++)
            MT_CHECK(MPI_Irecv(buf[i], CAP, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                               &r[i]));
        for (flag = 0; !flag;) {
            MT_CHECK(MPI_Testall(n, r, &flag, MPI_STATUSES_IGNORE));
            if (!flag)
                mt_poll_pause();
        }
        for (int i = 0; i < n; i++) {
            MT_EXPECT(r[i] == MPI_REQUEST_NULL, "Testall left request %d active", i);
            g[i] = from_data(buf[i]);
        }
        print_round(k, "testall ignore", g, n);
        break;
    }
}

/* Round 9: a ring where every rank receives from an unnamed source. */
static void ring_wildcards(void)
{
    int right = (mt.rank + 1) % mt.size, left = (mt.rank + mt.size - 1) % mt.size;
    int sb[3], rb[CAP];
    MPI_Status st;

    for (int j = 0; j < CAP; j++)
        rb[j] = -1;
    mt_fill_int(sb, 3, mt.rank, 9);
    MT_CHECK(MPI_Sendrecv(sb, 3, MPI_INT, right, 9, rb, CAP, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                          MPI_COMM_WORLD, &st));
    got_t g = from_status(rb, &st);
    mt_printf("sendrecv any: %d/%d/%d%s\n", g.src, g.tag, g.count, g.bad ? "!" : "");
    MT_EXPECT(g.src == left && g.tag == 9 && g.count == 3 && !g.bad, "Sendrecv any wrong");

    mt_fill_int(rb, 4, mt.rank, 10);
    MT_CHECK(
        MPI_Sendrecv_replace(rb, 4, MPI_INT, right, 10, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st));
    mt_printf("sendrecv_replace any: %d/%d/%d bad=%d\n", st.MPI_SOURCE, st.MPI_TAG,
              mt_count(&st, MPI_INT), mt_bad_int(rb, 4, left, 10));
    MT_EXPECT(st.MPI_SOURCE == left && st.MPI_TAG == 10, "Sendrecv_replace any wrong");
}

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    if (mt.size < 2 || mt.size > MAXP) {
        mt_fail(__FILE__, __LINE__, "needs 2..%d ranks", MAXP);
        return mt_finish();
    }
    for (int k = 1; k <= 8; k++) {
        if (mt.rank == 0)
            collector(k, mt.size);
        else
            sender(k);
        MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    ring_wildcards();
    return mt_finish();
}
