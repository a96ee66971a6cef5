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

static int colls_log(const char *dir, int world, long long per_rank)
{
    static const char lib[] = "mpi_library=Open MPI v4.1.4, package: Debian OpenMPI";
    int32_t *all = malloc((size_t)world * sizeof(*all));
    if (all == NULL)
        return 1;
    for (int i = 0; i < world; i++)
        all[i] = i;
    unsigned long long total = 0;
    for (int r = 0; r < world; r++) {
        pgen_rank_t g;
        uint64_t t = 1000000, seed = 0x51ed270b27a1f9d3ull + (uint64_t)r;
        pgen_opts_t o = {.t_init_ns = t, .kv = lib, .kv_len = sizeof(lib)};
        char path[4096];
        snprintf(path, sizeof(path), "%s/rank-%06d.plog", dir, r);
        if (pgen_open_ex(&g, path, r, world, &o) != 0) {
            fprintf(stderr, "mklog: cannot write rank %d under %s\n", r, dir);
            return 1;
        }
        int32_t self = r;
        pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, (uint32_t)world, NULL, 0);
        pgen_comm(&g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &self, 1, NULL, 0);
        pgen_flush_comms(&g);
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
            if (++since >= FLUSH_EVERY) {
                pgen_flush(&g, 0);
                since = 0;
            }
        }
        ev(&g, PLOG_CALL_MPI_Finalize, &t, 5000);
        if (pgen_close(&g, NULL, 0) != 0) {
            fprintf(stderr, "mklog: writing rank %d failed\n", r);
            return 1;
        }
        total += (unsigned long long)per_rank + 2;
    }
    free(all);
    printf("%llu\n", total);
    return 0;
}

static int iters_log(const char *dir, int world, long long iters)
{
    int32_t *all = malloc((size_t)world * sizeof(*all));
    if (all == NULL)
        return 1;
    for (int i = 0; i < world; i++)
        all[i] = i;
    unsigned long long total = 0;
    const int src = world / 2;
    const long long k0 = iters / 2;
    const uint64_t period = 100000, delay = 3 * period;
    for (int r = 0; r < world; r++) {
        pgen_rank_t g;
        uint64_t t = 1000000, seed = 0x2545f4914f6cdd1dull + (uint64_t)r;
        if (pgen_open(&g, dir, r, world, t) != 0) {
            fprintf(stderr, "mklog: cannot write rank %d under %s\n", r, dir);
            return 1;
        }
        int32_t self = r;
        pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, (uint32_t)world, NULL, 0);
        pgen_comm(&g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &self, 1, NULL, 0);
        pgen_flush_comms(&g);
        pgen_sync(&g, 0, t, 0, 2000);
        pgen_flush_sync(&g);
        ev(&g, PLOG_CALL_MPI_Init, &t, 5000);
        int32_t left = r > 0 ? r - 1 : PLOG_PROC_NULL, right = r + 1 < world ? r + 1 : PLOG_PROC_NULL;
        long long dist = r > src ? r - src : src - r, since = 0;
        uint64_t h = 0x1000, base = t;
        /* boundary k is at base + k period, later by the delay once it has reached the rank:
         * the source computes longer, the others wait longer in the Waitall */
#define BOUNDARY(k) (base + (uint64_t)(k) * period + ((k) > k0 + dist ? delay : 0))
        for (long long it = 0; it <= iters; it++) {
            if (BOUNDARY(it) > t)
                t = BOUNDARY(it);
            plog_event_t *p = ev(&g, PLOG_CALL_MPI_Pcontrol, &t, 30);
            p->tag = 1;
            total++;
            if (it == iters)
                break;
            t += 60000 + pgen_rand(&seed) % 2000 + (r == src && it == k0 ? delay : 0);
            uint64_t hs[4];
            int32_t peers[4] = {left, right, left, right};
            for (int k = 0; k < 4; k++) {
                plog_event_t *e = ev(&g, k < 2 ? PLOG_CALL_MPI_Irecv : PLOG_CALL_MPI_Isend, &t, 300);
                e->comm = 1;
                e->peer = peers[k];
                e->tag = 7;
                hs[k] = h++;
                e->request = hs[k];
                if (k < 2)
                    e->rbytes = 64;
                else
                    e->bytes = 64;
            }
            uint64_t until = BOUNDARY(it + 1) - 200 - pgen_rand(&seed) % 1000;
            plog_event_t *w = ev(&g, PLOG_CALL_MPI_Waitall, &t, until > t + 2000 ? until - t : 2000);
            w->flags = PLOG_F_STATUS;
            pgen_extra1(&g, 0, 4);
            for (int k = 0; k < 4; k++) {
                int null = peers[k] == PLOG_PROC_NULL; /* the empty status */
                pgen_status(&g, 0, hs[k], k < 2 ? peers[k] : PLOG_NONE,
                            k < 2 ? (null ? PLOG_ANY_TAG : 7) : PLOG_NONE,
                            k < 2 ? (null ? 0 : 64) : PLOG_BYTES_UNKNOWN, (uint64_t)k);
            }
            total += 5;
            since += 6;
            if (since >= FLUSH_EVERY) {
                pgen_flush(&g, 0);
                since = 0;
            }
        }
#undef BOUNDARY
        ev(&g, PLOG_CALL_MPI_Finalize, &t, 5000);
        total += 2;
        if (pgen_close(&g, NULL, 0) != 0) {
            fprintf(stderr, "mklog: writing rank %d failed\n", r);
            return 1;
        }
    }
    free(all);
    printf("%llu\n", total);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--iters") == 0) {
        int world = atoi(argv[3]);
        long long iters = atoll(argv[4]);
        if (world < 1 || iters < 2) {
            fprintf(stderr, "mklog: need RANKS >= 1 and ITERATIONS >= 2\n");
            return 2;
        }
        return iters_log(argv[2], world, iters);
    }
    if (argc == 5 && strcmp(argv[1], "--colls") == 0) {
        int world = atoi(argv[3]);
        long long per_rank = atoll(argv[4]);
        if (world < 1 || per_rank < 1) {
            fprintf(stderr, "mklog: need RANKS >= 1 and COLLS_PER_RANK >= 1\n");
            return 2;
        }
        return colls_log(argv[2], world, per_rank);
    }
    int ompi = argc == 5 && strcmp(argv[1], "--ompi") == 0;
    if (ompi) {
        argv++;
        argc--;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: mklog [--ompi] DIR RANKS EVENTS_PER_RANK\n"
                        "       mklog --colls DIR RANKS COLLS_PER_RANK\n"
                        "       mklog --iters DIR RANKS ITERATIONS\n");
        return 2;
    }
    const char *dir = argv[1];
    int world = atoi(argv[2]);
    long long per_rank = atoll(argv[3]);
    if (world < 2 || per_rank < 10) {
        fprintf(stderr, "mklog: need RANKS >= 2 and EVENTS_PER_RANK >= 10\n");
        return 2;
    }
    int32_t *all = malloc((size_t)world * sizeof(*all));
    if (all == NULL)
        return 1;
    for (int i = 0; i < world; i++)
        all[i] = i;
    unsigned long long total = 0;
    for (int r = 0; r < world; r++) {
        pgen_rank_t g;
        uint64_t t = 1000000 + (uint64_t)r * 1000, seed = 0x9e3779b97f4a7c15ull + (uint64_t)r;
        static const char lib[] = "mpi_library=Open MPI v4.1.4, package: Debian OpenMPI";
        char path[4096];
        snprintf(path, sizeof(path), "%s/rank-%06d.plog", dir, r);
        pgen_opts_t o = {.t_init_ns = t, .kv = lib, .kv_len = sizeof(lib)};
        if (ompi ? pgen_open_ex(&g, path, r, world, &o) != 0 : pgen_open(&g, dir, r, world, t) != 0) {
            fprintf(stderr, "mklog: cannot write rank %d under %s\n", r, dir);
            return 1;
        }
        int32_t self = r;
        pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, (uint32_t)world, NULL, 0);
        pgen_comm(&g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &self, 1, NULL, 0);
        pgen_flush_comms(&g);
        pgen_sync(&g, 0, t, r ? -1000 * (int64_t)r : 0, 2000); /* as the shim's Init sample */
        pgen_flush_sync(&g);
        ev(&g, PLOG_CALL_MPI_Init, &t, 5000);
        int32_t left = (r + world - 1) % world, right = (r + 1) % world;
        uint64_t h = 0x1000, bytes = 4096 << (r % 3);
        long long n = 1, since = 0;
        for (long long it = 0; n < per_rank - 1; it++) {
            uint64_t hs[4];
            int32_t peers[4] = {left, right, left, right};
            for (int k = 0; k < 4; k++) {
                plog_event_t *e = ev(&g, k < 2 ? PLOG_CALL_MPI_Irecv : PLOG_CALL_MPI_Isend, &t,
                                     200 + pgen_rand(&seed) % 300);
                e->comm = 1;
                e->peer = peers[k];
                e->tag = 7;
                hs[k] = h++;
                e->request = hs[k];
                if (k < 2)
                    e->rbytes = bytes;
                else
                    e->bytes = bytes;
            }
            plog_event_t *w = ev(&g, PLOG_CALL_MPI_Waitall, &t, 2000 + pgen_rand(&seed) % 20000);
            w->flags = PLOG_F_STATUS;
            pgen_extra1(&g, 0, 4);
            for (int k = 0; k < 4; k++)
                pgen_status(&g, 0, hs[k], k < 2 ? peers[k] : PLOG_NONE, k < 2 ? 7 : PLOG_NONE,
                            k < 2 ? bytes : PLOG_BYTES_UNKNOWN, (uint64_t)k);
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
            if (since >= FLUSH_EVERY) {
                pgen_flush(&g, 0);
                since = 0;
            }
        }
        pgen_sync(&g, 1, t, r ? -1000 * (int64_t)r : 0, 2000);
        ev(&g, PLOG_CALL_MPI_Finalize, &t, 5000);
        n++;
        if (pgen_close(&g, NULL, 0) != 0) {
            fprintf(stderr, "mklog: writing rank %d failed\n", r);
            return 1;
        }
        total += (unsigned long long)n;
    }
    free(all);
    printf("%llu\n", total);
    return 0;
}
