/* t_distgraph.c: distributed graph topologies created from MPI_COMM_WORLD over and over, with
 * and without reordering, each duplicated, checked and freed. Under Open MPI 4.1 reordering
 * goes to the treematch component, whose communicator creation loops for ever in
 * ompi_comm_nextcid in some runs when one more communicator derived from MPI_COMM_WORLD is
 * alive than the application made: the shim must not keep one (run_distgraph_tests.sh runs
 * this many times).
 *
 * Usage: t_distgraph [--extra-dup] [ROUNDS]   (default 10). Output: per round the degrees rank by rank. */
#include "mpitest.h"

/* Open MPI's MPI_UNWEIGHTED is (int *)2, which GCC 12 takes for a zero-sized array. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

static int P, R;

/* The round's edge weights, layout[i * P + j] from i to j (0: no edge), the same on every
 * rank: made on rank 0 and broadcast, as a program with a random graph would. */
static void make_layout(int round, int *layout)
{
    if (R == 0) {
        unsigned s = 2463534242u + (unsigned)round * 977u;
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) {
                s ^= s << 13, s ^= s >> 17, s ^= s << 5;
                switch (round % 5) {
                case 0: layout[i * P + j] = (i + 2) * (j + 1); break;        /* complete */
                case 1: layout[i * P + j] = j % 2 ? (i + 1) * (j + 3) : 0; break;
                case 2: layout[i * P + j] = i == j && i == 0 ? 10 : 0; break; /* a self-edge */
                case 3: layout[i * P + j] = 0; break;                        /* no edges */
                default: layout[i * P + j] = s % 3 == 0 ? 0 : (int)(s % 97) + 1; break;
                }
            }
    }
    MT_CHECK(MPI_Bcast(layout, P * P, MPI_INT, 0, MPI_COMM_WORLD));
}

/* What comm (a dist graph of layout) must say about this rank; its duplicate too. */
static void verify(MPI_Comm comm, const int *layout, int me)
{
    for (int dup = 0; dup <= 1; dup++) {
        MPI_Comm c = comm, d = MPI_COMM_NULL;
        if (dup) {
            MT_CHECK(MPI_Comm_dup(comm, &d));
            c = d;
        }
        int status, indeg, outdeg, weighted;
        MT_CHECK(MPI_Topo_test(c, &status));
        MT_EXPECT(status == MPI_DIST_GRAPH, "topology %d, not MPI_DIST_GRAPH", status);
        MT_CHECK(MPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &weighted));
        int win = 0, wout = 0;
        for (int i = 0; i < P; i++) {
            win += layout[i * P + me] != 0;
            wout += layout[me * P + i] != 0;
        }
        MT_EXPECT(indeg == win && outdeg == wout, "degrees %d/%d, expected %d/%d", indeg,
                  outdeg, win, wout);
        int src[64], sw[64], dst[64], dw[64];
        if (indeg <= 64 && outdeg <= 64) {
            MT_CHECK(MPI_Dist_graph_neighbors(c, indeg, src, sw, outdeg, dst, dw));
            for (int k = 0; k < indeg; k++)
                MT_EXPECT(src[k] >= 0 && src[k] < P && layout[src[k] * P + me] == sw[k],
                          "in-edge %d from %d weight %d", k, src[k], sw[k]);
            for (int k = 0; k < outdeg; k++)
                MT_EXPECT(dst[k] >= 0 && dst[k] < P && layout[me * P + dst[k]] == dw[k],
                          "out-edge %d to %d weight %d", k, dst[k], dw[k]);
        }
        if (d != MPI_COMM_NULL)
            MT_CHECK(MPI_Comm_free(&d));
    }
}

enum { ADJACENT, UNWEIGHTED, OUTGOING, INCOMING, ROOT_ONLY };

/* The graph of layout as a new communicator c, described the way `how` says (scratch arrays
 * of P * P entries each). */
static void create(int how, int reorder, const int *layout, int *s, int *w, int *d, int *deg,
                   MPI_Comm *c)
{
    int in = 0, out = 0, me = R, n = 0;
    switch (how) {
    case ADJACENT: /* each rank names its own in- and out-edges */
    case UNWEIGHTED:
        for (int j = 0; j < P; j++) {
            if (layout[j * P + R])
                s[in] = j, w[in++] = layout[j * P + R];
            if (layout[R * P + j])
                d[out] = j, deg[out++] = layout[R * P + j];
        }
        if (how == ADJACENT)
            MT_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, s, w, out, d, deg,
                                                    MPI_INFO_NULL, reorder, c));
        else
            MT_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, s, MPI_UNWEIGHTED, out,
                                                    d, MPI_UNWEIGHTED, MPI_INFO_NULL, reorder,
                                                    c));
        return;
    case OUTGOING: /* general: each rank gives its outgoing edges */
        for (int j = 0; j < P; j++)
            if (layout[R * P + j])
                d[n] = j, w[n++] = layout[R * P + j];
        MT_CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &n, d, w, MPI_INFO_NULL, reorder,
                                       c));
        return;
    case INCOMING: /* general: each rank gives its incoming edges, one source at a time */
        for (int j = 0; j < P; j++)
            if (layout[j * P + R])
                s[n] = j, w[n] = layout[j * P + R], deg[n] = 1, d[n++] = R;
        MT_CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, s, deg, d, w, MPI_INFO_NULL, reorder,
                                       c));
        return;
    default: /* general: rank 0 gives the whole graph */
        if (R == 0)
            for (int i = 0; i < P; i++)
                for (int j = 0; j < P; j++)
                    if (layout[i * P + j])
                        s[n] = i, deg[n] = 1, d[n] = j, w[n++] = layout[i * P + j];
        MT_CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, s, deg, d, w, MPI_INFO_NULL, reorder,
                                       c));
        return;
    }
}

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    P = mt.size, R = mt.rank;
    /* --extra-dup: one more communicator from MPI_COMM_WORLD alive throughout, as a tool
     * that keeps one would leave (shows the library's behaviour without the shim) */
    int extra = argc > 1 && strcmp(argv[1], "--extra-dup") == 0;
    MPI_Comm keep = MPI_COMM_NULL;
    if (extra)
        MT_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &keep));
    int rounds = argc > 1 + extra ? atoi(argv[1 + extra]) : 10;
    if (P > 64 || rounds < 1) {
        mt_fail(__FILE__, __LINE__, "at most 64 ranks and one round");
        return mt_finish();
    }
    int *layout = malloc(sizeof(int) * (size_t)(P * P));
    int *s = malloc(sizeof(int) * (size_t)(P * P)), *w = malloc(sizeof(int) * (size_t)(P * P));
    int *d = malloc(sizeof(int) * (size_t)(P * P)), *deg = malloc(sizeof(int) * (size_t)(P * P));
    if (!layout || !s || !w || !d || !deg) {
        mt_fail(__FILE__, __LINE__, "out of memory");
        return mt_finish();
    }
    for (int round = 0; round < rounds; round++) {
        make_layout(round, layout);
        /* each way of describing the graph, without and with reordering, in turn (the order
         * matters to the hang: treematch's creations follow the plain ones) */
        for (int how = ADJACENT; how <= ROOT_ONLY; how++)
            for (int reorder = 0; reorder <= 1; reorder++) {
                if (how == UNWEIGHTED && reorder == 0)
                    continue;
                MPI_Comm c;
                int rank_in;
                create(how, how == UNWEIGHTED ? 2 : reorder, layout, s, w, d, deg, &c);
                MT_CHECK(MPI_Comm_rank(c, &rank_in));
                MT_CHECK(MPI_Barrier(c));
                if (how != UNWEIGHTED)
                    verify(c, layout, rank_in);
                MT_CHECK(MPI_Comm_free(&c));
            }
        /* no graph at all */
        for (int reorder = 0; reorder <= 1; reorder++) {
            MPI_Comm c;
            int indeg, outdeg, weighted;
            MT_CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, s, deg, d, w,
                                           MPI_INFO_NULL, reorder, &c));
            MT_CHECK(MPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &weighted));
            MT_EXPECT(indeg == 0 && outdeg == 0, "empty graph: degrees %d/%d", indeg, outdeg);
            MT_CHECK(MPI_Comm_free(&c));
            MT_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0,
                                                    NULL, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                                    reorder, &c));
            MT_CHECK(MPI_Comm_free(&c));
        }
        int in = 0, out = 0;
        for (int j = 0; j < P; j++) {
            in += layout[j * P + R] != 0;
            out += layout[R * P + j] != 0;
        }
        mt_printf("round %d: in %d out %d\n", round, in, out);
    }
    free(layout), free(s), free(w), free(d), free(deg);
    if (keep != MPI_COMM_NULL)
        MT_CHECK(MPI_Comm_free(&keep));
    return mt_finish();
}
