/* polls_mklog.c: a synthetic log for cli_polls.sh: two ranks exchange 64 B per iteration
 * (Irecv + Isend, then rank 0 polls its receive with MPI_Test until it completes and every
 * third iteration polls with MPI_Iprobe for nothing; rank 1 waits with Waitall), an
 * MPI_Pcontrol(1) opening each iteration and an Allreduce closing it. The polls that find
 * nothing are written as the shim of log format 11 writes them:
 *   runs    consecutive unsuccessful polls as one event (PLOG_F_POLLS: n, the ns inside)
 *   each    one event per poll (PHASOR_POLLS=each)
 *   bad     as runs, but one run claims a single poll (damage the reader refuses)
 * The polls of a run take the same time each and are evenly spaced, so both logs hold the
 * same calls and times: what a consumer derives from calls must agree between them.
 * Usage: polls_mklog DIR runs|each|bad  (DIR must exist). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plog_calls.h"
#include "plog_testgen.h"

#define T0 100000ull      /* MPI_Init's return, local ns (all clocks agree) */
#define ITERS 20
#define PERIOD 20000ull
#define SITE_TEST 11u
#define SITE_IPROBE 12u

enum { RUNS, EACH, BAD };

static void die(void)
{
    fprintf(stderr, "polls_mklog: cannot write the log\n");
    exit(1);
}

static plog_event_t *ev(pgen_rank_t *g, unsigned call, uint64_t t0, uint64_t t1)
{
    plog_event_t *e = pgen_event(g, 0, call, t0, t1);
    if (e == NULL)
        die();
    return e;
}

/* k polls of call (each dur ns, step ns from start to start) from t; returns the end of the
 * last. One event per poll, or with runs one event for k >= 2. */
static uint64_t polls(pgen_rank_t *g, int mode, unsigned call, uint64_t t, unsigned k,
                      uint64_t dur, uint64_t step, uint64_t req, uint32_t site, int bad)
{
    if (k == 0)
        return t;
    uint64_t last_end = t + (k - 1) * step + dur;
    if (mode == EACH || k == 1) {
        for (unsigned i = 0; i < k; i++) {
            plog_event_t *e = ev(g, call, t + i * step, t + i * step + dur);
            e->request = req;
            e->callsite = site;
            if (call == PLOG_CALL_MPI_Iprobe) {
                e->comm = 1;
                e->peer = PLOG_ANY_SOURCE;
                e->tag = PLOG_ANY_TAG;
            }
        }
        return last_end;
    }
    plog_event_t *e = ev(g, call, t, last_end);
    e->request = req;
    e->callsite = site;
    e->flags = PLOG_F_POLLS;
    if (call == PLOG_CALL_MPI_Iprobe) {
        e->comm = 1;
        e->peer = PLOG_ANY_SOURCE;
        e->tag = PLOG_ANY_TAG;
    }
    const uint64_t w[2] = {bad ? 1 : k, k * dur};
    pgen_extra(g, 0, w, 2);
    return last_end;
}

static void status(pgen_rank_t *g, uint64_t h, int32_t src, int32_t tag, uint64_t bytes,
                   uint64_t index)
{
    pgen_status(g, 0, h, src, tag, bytes, index);
}

static void rank_log(const char *dir, int32_t r, int mode)
{
    pgen_rank_t g;
    if (pgen_open(&g, dir, r, 2, T0) != 0)
        die();
    int32_t all[2] = {0, 1};
    if (pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, 2, NULL, 0) != 0 ||
        pgen_comm(&g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &r, 1, NULL, 0) != 0 ||
        pgen_flush_comms(&g) != 0 || pgen_sync(&g, PLOG_SYNC_INIT, T0, 0, 10) != 0 ||
        pgen_flush_sync(&g) != 0)
        die();
    ev(&g, PLOG_CALL_MPI_Init, T0 - 5000, T0);
    int32_t peer = 1 - r;
    for (unsigned i = 0; i < ITERS; i++) {
        uint64_t t = T0 + 1000 + i * PERIOD;
        uint64_t hr = 0x1000 + 0x20 * (i % 4), hs = hr + 0x10;
        ev(&g, PLOG_CALL_MPI_Pcontrol, t, t + 20)->tag = 1;
        plog_event_t *e = pgen_call(&g, PLOG_CALL_MPI_Irecv, t + 100, t + 200, peer, 3, 0);
        e->rbytes = 64;
        e->request = hr;
        e = pgen_call(&g, PLOG_CALL_MPI_Isend, t + 300, t + 400, peer, 3, 64);
        e->request = hs;
        if (r == 0) {
            /* i % 5 Tests that find nothing, 100 ns each, 400 ns apart; then the one that
             * completes the receive; then the send's Wait */
            uint64_t u = polls(&g, mode, PLOG_CALL_MPI_Test, t + 500, i % 5, 100, 400, hr,
                               SITE_TEST, mode == BAD && i == 7);
            e = ev(&g, PLOG_CALL_MPI_Test, u + 300, u + 450);
            e->request = hr;
            e->callsite = SITE_TEST;
            e->flags = PLOG_F_FLAG_TRUE | PLOG_F_STATUS;
            pgen_extra1(&g, 0, 1);
            status(&g, hr, peer, 3, 64, 0);
            e = ev(&g, PLOG_CALL_MPI_Wait, u + 600, u + 700);
            e->request = hs;
            e->flags = PLOG_F_STATUS;
            pgen_extra1(&g, 0, 1);
            status(&g, hs, PLOG_NONE, PLOG_NONE, PLOG_BYTES_UNKNOWN, 0);
            /* every third iteration, i % 4 Iprobes for nothing, 50 ns each, 300 ns apart */
            if (i % 3 == 0)
                polls(&g, mode, PLOG_CALL_MPI_Iprobe, u + 1000, i % 4, 50, 300, 0, SITE_IPROBE,
                      0);
        } else {
            e = ev(&g, PLOG_CALL_MPI_Waitall, t + 500, t + 3000);
            e->flags = PLOG_F_STATUS;
            pgen_extra1(&g, 0, 2);
            status(&g, hr, peer, 3, 64, 0);
            status(&g, hs, PLOG_NONE, PLOG_NONE, PLOG_BYTES_UNKNOWN, 1);
        }
        e = pgen_call(&g, PLOG_CALL_MPI_Allreduce, t + 15000, t + 16000, PLOG_NONE, PLOG_NONE, 8);
        e->rbytes = 8;
    }
    uint64_t end = T0 + 1000 + ITERS * PERIOD;
    ev(&g, PLOG_CALL_MPI_Finalize, end, end + 1000);
    static const char tail[] = "threads=1\0ending=finalize";
    if (pgen_close(&g, tail, sizeof(tail)) != 0)
        die();
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "runs") != 0 && strcmp(argv[2], "each") != 0 &&
                      strcmp(argv[2], "bad") != 0)) {
        fprintf(stderr, "usage: polls_mklog DIR runs|each|bad\n");
        return 2;
    }
    int mode = strcmp(argv[2], "runs") == 0 ? RUNS : strcmp(argv[2], "each") == 0 ? EACH : BAD;
    for (int32_t r = 0; r < 2; r++)
        rank_log(argv[1], r, mode);
    return 0;
}
