/* mklog.c: write a large synthetic log to time the offline tools. Built on
 * tests/unit/plog_testgen.
 *   mklog DIR RANKS EVENTS_PER_RANK          stencil-like mix for `phasor report`: per
 *       iteration Irecv + Isend to both ring neighbours, Waitall with four statuses, and an
 *       Allreduce every fourth iteration
 *   mklog --ompi DIR RANKS EVENTS_PER_RANK   the same mix as Open MPI 4.1 logs it (library
 *       string, the Allreduce's type size and op), so that report also rebuilds each
 *       Allreduce's schedule (collective-internal matrix), as on a real run
 *   mklog --iters DIR RANKS ITERATIONS     an iterative code for `phasor phases`: per iteration
 *       MPI_Pcontrol(1), Irecv + Isend to both chain neighbours and a Waitall with statuses;
 *       ~100 us of compute with jitter, and rank RANKS/2 late by 3 iterations once, at
 *       iteration ITERATIONS/2, the delay passing to the neighbours one rank per iteration
 *   mklog --colls DIR RANKS COLLS_PER_RANK   collectives on MPI_COMM_WORLD for `phasor steps`,
 *       with the type sizes and ops the shim records (COLLINFO), as Open MPI 4.1 logs: a cycle
 *       of Allreduce 8 B and 64 KiB, Bcast 4 KiB from a moving root, Reduce 8 B to rank 0,
 *       Allgather 8 B and Barrier
 * DIR must exist; prints the events written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plog_calls.h"
#include "plog_testgen.h"

#define FLUSH_EVERY 100000 /* events per EVENTS frame, like a full shim buffer */

static plog_event_t *ev(pgen_rank_t *g, unsigned call, uint64_t *t, uint64_t dur)
{
    plog_event_t *e = pgen_event(g, 0, call, *t, *t + dur);
    *t += dur + 150;
    return e;
}

static void collinfo(pgen_rank_t *g, plog_event_t *e, uint64_t tsize, unsigned op)
{
    e->flags |= PLOG_F_COLLINFO;
    uint64_t w[2] = {tsize | tsize << 32, op ? (op | PLOG_OP_COMMUTATIVE) : 0};
    pgen_extra(g, 0, w, 2);
}

static const char ompi_lib[] = "mpi_library=Open MPI v4.1.4, package: Debian OpenMPI";

/* MPI_COMM_WORLD's members, 0 .. world - 1 (NULL when out of memory). */
static int32_t *world_ranks(int world)
{
    int32_t *all = malloc((size_t)world * sizeof(*all));
    for (int i = 0; all != NULL && i < world; i++)
        all[i] = i;
    return all;
}

/* Open rank r's log in dir, its header strings kv (NULL: plog_testgen's own), and define
 * MPI_COMM_WORLD (id 1) and MPI_COMM_SELF (id 2) as the shim does at MPI_Init. */
static int rank_open(pgen_rank_t *g, const char *dir, int r, int world, const int32_t *all,
                     uint64_t t, const char *kv, size_t kv_len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/rank-%06d.plog", dir, r);
    pgen_opts_t o = {.t_init_ns = t, .kv = kv, .kv_len = kv_len};
    if ((kv ? pgen_open_ex(g, path, r, world, &o) : pgen_open(g, dir, r, world, t)) != 0) {
        fprintf(stderr, "mklog: cannot write rank %d under %s\n", r, dir);
        return 1;
    }
    int32_t self = r;
    pgen_comm(g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, (uint32_t)world, NULL, 0);
    pgen_comm(g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &self, 1, NULL, 0);
    pgen_flush_comms(g);
    return 0;
}

static int rank_close(pgen_rank_t *g, int r)
{
    if (pgen_close(g, NULL, 0) != 0) {
        fprintf(stderr, "mklog: writing rank %d failed\n", r);
        return 1;
    }
    return 0;
}

/* A full shim buffer's worth of events since the last frame: write them as one. */
static void flush_full(pgen_rank_t *g, long long *since)
{
    if (*since >= FLUSH_EVERY) {
        pgen_flush(g, 0);
        *since = 0;
    }
}

/* Irecv from, then Isend to, both neighbours (peers: left, right, left, right) on
 * MPI_COMM_WORLD, tag 7, bytes each, request handles from *h on (kept in hs); each call
 * takes dur ns plus a random part below jitter (none drawn when jitter is 0). */
static void halo_posts(pgen_rank_t *g, uint64_t *t, uint64_t *seed, uint64_t dur,
                       uint64_t jitter, const int32_t peers[4], uint64_t bytes, uint64_t *h,
                       uint64_t hs[4])
{
    for (int k = 0; k < 4; k++) {
        plog_event_t *e = ev(g, k < 2 ? PLOG_CALL_MPI_Irecv : PLOG_CALL_MPI_Isend, t,
                             dur + (jitter ? pgen_rand(seed) % jitter : 0));
        e->comm = 1;
        e->peer = peers[k];
        e->tag = 7;
        hs[k] = (*h)++;
        e->request = hs[k];
        if (k < 2)
            e->rbytes = bytes;
        else
            e->bytes = bytes;
    }
}

/* The Waitall w of those four requests: the receives' statuses (source, tag 7, bytes; the
 * empty status from MPI_PROC_NULL), the sends' undefined ones. */
static void halo_statuses(pgen_rank_t *g, plog_event_t *w, const uint64_t hs[4],
                          const int32_t peers[4], uint64_t bytes)
{
    w->flags = PLOG_F_STATUS;
    pgen_extra1(g, 0, 4);
    for (int k = 0; k < 4; k++) {
        int null = peers[k] == PLOG_PROC_NULL;
        pgen_status(g, 0, hs[k], k < 2 ? peers[k] : PLOG_NONE,
                    k < 2 ? (null ? PLOG_ANY_TAG : 7) : PLOG_NONE,
                    k < 2 ? (null ? 0 : bytes) : PLOG_BYTES_UNKNOWN, (uint64_t)k);
    }
}

/* One rank's log of one kind: opens, writes and closes rank r's file; returns the events
 * written, or -1 (the reason printed). opt: the kind's variant (the stencil's --ompi). */
typedef long long (*mklog_rank_fn)(const char *dir, int r, int world, const int32_t *all,
                                   long long count, int opt);

static long long colls_rank(const char *dir, int r, int world, const int32_t *all,
                            long long per_rank, int opt)
{
    (void)opt;
    pgen_rank_t g;
    uint64_t t = 1000000, seed = 0x51ed270b27a1f9d3ull + (uint64_t)r;
    if (rank_open(&g, dir, r, world, all, t, ompi_lib, sizeof(ompi_lib)) != 0)
        return -1;
    ev(&g, PLOG_CALL_MPI_Init, &t, 5000);
    long long since = 0;
    for (long long i = 0; i < per_rank; i++) {
        static const unsigned cycle[6] = {PLOG_CALL_MPI_Allreduce, PLOG_CALL_MPI_Bcast,
                                          PLOG_CALL_MPI_Allreduce, PLOG_CALL_MPI_Reduce,
                                          PLOG_CALL_MPI_Allgather, PLOG_CALL_MPI_Barrier};
        unsigned call = cycle[i % 6];
        plog_event_t *e = ev(&g, call, &t, 3000 + pgen_rand(&seed) % 30000);
        e->comm = 1;
        switch (i % 6) {
        case 0: e->bytes = e->rbytes = 8; collinfo(&g, e, 8, PLOG_OP_SUM); break;
        case 1: e->bytes = 4096; e->root = (int32_t)((i / 6) % world); collinfo(&g, e, 1, 0); break;
        case 2: e->bytes = e->rbytes = 65536; collinfo(&g, e, 8, PLOG_OP_SUM); break;
        case 3: e->bytes = e->rbytes = 8; e->root = 0; collinfo(&g, e, 8, PLOG_OP_MAX); break;
        case 4: e->bytes = e->rbytes = 8; collinfo(&g, e, 8, 0); break;
        default: break;
        }
        t += 20000;
        since++;
        flush_full(&g, &since);
    }
    ev(&g, PLOG_CALL_MPI_Finalize, &t, 5000);
    return rank_close(&g, r) != 0 ? -1 : per_rank + 2;
}

static long long iters_rank(const char *dir, int r, int world, const int32_t *all,
                            long long iters, int opt)
{
    (void)opt;
    const int src = world / 2;
    const long long k0 = iters / 2;
    const uint64_t period = 100000, delay = 3 * period;
    pgen_rank_t g;
    uint64_t t = 1000000, seed = 0x2545f4914f6cdd1dull + (uint64_t)r;
    if (rank_open(&g, dir, r, world, all, t, NULL, 0) != 0)
        return -1;
    pgen_sync(&g, 0, t, 0, 2000);
    pgen_flush_sync(&g);
    ev(&g, PLOG_CALL_MPI_Init, &t, 5000);
    int32_t left = r > 0 ? r - 1 : PLOG_PROC_NULL, right = r + 1 < world ? r + 1 : PLOG_PROC_NULL;
    long long dist = r > src ? r - src : src - r, since = 0, n = 0;
    uint64_t h = 0x1000, base = t;
    /* boundary k is at base + k period, later by the delay once it has reached the rank:
     * the source computes longer, the others wait longer in the Waitall */
#define BOUNDARY(k) (base + (uint64_t)(k) * period + ((k) > k0 + dist ? delay : 0))
    for (long long it = 0; it <= iters; it++) {
        if (BOUNDARY(it) > t)
            t = BOUNDARY(it);
        plog_event_t *p = ev(&g, PLOG_CALL_MPI_Pcontrol, &t, 30);
        p->tag = 1;
        n++;
        if (it == iters)
            break;
        t += 60000 + pgen_rand(&seed) % 2000 + (r == src && it == k0 ? delay : 0);
        uint64_t hs[4];
        int32_t peers[4] = {left, right, left, right};
        halo_posts(&g, &t, &seed, 300, 0, peers, 64, &h, hs);
        uint64_t until = BOUNDARY(it + 1) - 200 - pgen_rand(&seed) % 1000;
        plog_event_t *w = ev(&g, PLOG_CALL_MPI_Waitall, &t, until > t + 2000 ? until - t : 2000);
        halo_statuses(&g, w, hs, peers, 64);
        n += 5;
        since += 6;
        flush_full(&g, &since);
    }
#undef BOUNDARY
    ev(&g, PLOG_CALL_MPI_Finalize, &t, 5000);
    return rank_close(&g, r) != 0 ? -1 : n + 2;
}

/* The stencil-like mix; ompi: as Open MPI 4.1 logs it (library string, COLLINFO). */
static long long stencil_rank(const char *dir, int r, int world, const int32_t *all,
                              long long per_rank, int ompi)
{
    pgen_rank_t g;
    uint64_t t = 1000000 + (uint64_t)r * 1000, seed = 0x9e3779b97f4a7c15ull + (uint64_t)r;
    if (rank_open(&g, dir, r, world, all, t, ompi ? ompi_lib : NULL,
                  ompi ? sizeof(ompi_lib) : 0) != 0)
        return -1;
    pgen_sync(&g, 0, t, r ? -1000 * (int64_t)r : 0, 2000); /* as the shim's Init sample */
    pgen_flush_sync(&g);
    ev(&g, PLOG_CALL_MPI_Init, &t, 5000);
    int32_t left = (r + world - 1) % world, right = (r + 1) % world;
    uint64_t h = 0x1000, bytes = 4096 << (r % 3);
    long long n = 1, since = 0;
    for (long long it = 0; n < per_rank - 1; it++) {
        uint64_t hs[4];
        int32_t peers[4] = {left, right, left, right};
        halo_posts(&g, &t, &seed, 200, 300, peers, bytes, &h, hs);
        plog_event_t *w = ev(&g, PLOG_CALL_MPI_Waitall, &t, 2000 + pgen_rand(&seed) % 20000);
        halo_statuses(&g, w, hs, peers, bytes);
        n += 5;
        since += 5;
        if (it % 4 == 3) {
            plog_event_t *a = ev(&g, PLOG_CALL_MPI_Allreduce, &t,
                                 5000 + pgen_rand(&seed) % 50000);
            a->comm = 1;
            a->bytes = a->rbytes = 8;
            if (ompi)
                collinfo(&g, a, 8, PLOG_OP_SUM);
            n++;
            since++;
        }
        t += 100000; /* compute */
        flush_full(&g, &since);
    }
    pgen_sync(&g, 1, t, r ? -1000 * (int64_t)r : 0, 2000);
    ev(&g, PLOG_CALL_MPI_Finalize, &t, 5000);
    n++;
    return rank_close(&g, r) != 0 ? -1 : n;
}

/* Every rank's log of one kind; prints the events written. */
static int mklog_ranks(mklog_rank_fn make, const char *dir, int world, long long count, int opt)
{
    int32_t *all = world_ranks(world);
    if (all == NULL)
        return 1;
    unsigned long long total = 0;
    for (int r = 0; r < world; r++) {
        long long n = make(dir, r, world, all, count, opt);
        if (n < 0) {
            free(all);
            return 1;
        }
        total += (unsigned long long)n;
    }
    free(all);
    printf("%llu\n", total);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *opt, *count; /* the option and what its count is */
        int min_ranks;
        long long min;
        mklog_rank_fn make;
        int variant;
    } modes[] = {{"--iters", "ITERATIONS", 1, 2, iters_rank, 0},
                 {"--colls", "COLLS_PER_RANK", 1, 1, colls_rank, 0},
                 {"--ompi", "EVENTS_PER_RANK", 2, 10, stencil_rank, 1},
                 {NULL, "EVENTS_PER_RANK", 2, 10, stencil_rank, 0}};
    for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
        const char *o = modes[m].opt;
        if (o != NULL ? argc != 5 || strcmp(argv[1], o) != 0 : argc != 4)
            continue;
        char **a = argv + (o != NULL);
        int world = atoi(a[2]);
        long long count = atoll(a[3]);
        if (world < modes[m].min_ranks || count < modes[m].min) {
            fprintf(stderr, "mklog: need RANKS >= %d and %s >= %lld\n", modes[m].min_ranks,
                    modes[m].count, modes[m].min);
            return 2;
        }
        return mklog_ranks(modes[m].make, a[1], world, count, modes[m].variant);
    }
    fprintf(stderr, "usage: mklog [--ompi] DIR RANKS EVENTS_PER_RANK\n"
                    "       mklog --colls DIR RANKS COLLS_PER_RANK\n"
                    "       mklog --iters DIR RANKS ITERATIONS\n");
    return 2;
}
