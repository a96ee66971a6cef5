/* test_whole_replay.c: the whole-run replay (analysis/whole_replay.c) on small logs whose
 * predicted times are worked out by hand, with a model of t(n) = 1000 + n ns and an eager
 * size of 1000 bytes. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plog_calls.h"
#include "plog_reader.h"
#include "plog_testgen.h"
#include "whole_replay.h"

static double lin_time(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway)
{
    (void)ctx;
    (void)src;
    (void)dst;
    (void)twoway;
    return 1000.0 + (double)bytes;
}

static plog_event_t *ev(pgen_rank_t *g, unsigned call, uint64_t t0, uint64_t t1, int32_t peer,
                        int32_t tag, uint64_t bytes)
{
    plog_event_t *e = pgen_call(g, call, t0, t1, peer, tag, bytes);
    cr_assert_not_null(e);
    return e;
}


static void open_rank(pgen_rank_t *g, const char *dir, int32_t rank)
{
    int32_t all[2] = {0, 1};
    cr_assert_eq(pgen_open(g, dir, rank, 2, 500), 0);
    cr_assert_eq(pgen_comm(g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, 2, NULL, 0), 0);
    cr_assert_eq(pgen_comm(g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &rank, 1, NULL, 0), 0);
    cr_assert_eq(pgen_flush_comms(g), 0);
    ev(g, PLOG_CALL_MPI_Init, 100, 500, PLOG_NONE, PLOG_NONE, 0)->comm = 0;
}

static void close_rank(pgen_rank_t *g, uint64_t t)
{
    ev(g, PLOG_CALL_MPI_Finalize, t, t + 100, PLOG_NONE, PLOG_NONE, 0)->comm = 0;
    cr_assert_eq(pgen_close(g, NULL, 0), 0);
}

typedef struct fixture {
    char *dir;
    plog_run_t *run;
    pred_model_t m;
    pred_t p;
    int32_t host[2];
    wr_opts_t o;
    wr_result_t r;
} fixture_t;

static void replay(fixture_t *f, char *dir)
{
    memset(f, 0, sizeof(*f));
    f->dir = dir;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &f->run, &err), PLOG_OK, "%s", err.msg);
    f->m = (pred_model_t){.name = "linear", .time = lin_time};
    f->p.world = 2;
    f->p.nhosts = 2;
    f->host[1] = 1;
    f->p.host = f->host;
    f->p.eager = 1000;
    f->p.gamma = 0;
    f->o = (wr_opts_t){.model = &f->m, .lat = 1, .bw = 1, .pred = &f->p, .compute_scale = 1,
                       .slow_rank = -1, .slow_factor = 1, .path = 1, .lib = RECON_LIB_AUTO};
}

static void run(fixture_t *f)
{
    plog_error_t err;
    wr_result_free(&f->r);
    cr_assert_eq(wr_run(f->run, &f->o, &f->r, &err), PLOG_OK, "%s", err.msg);
}

static void done(fixture_t *f)
{
    wr_result_free(&f->r);
    plog_run_close(f->run);
    pgen_rmdir(f->dir);
    free(f->dir);
}

/* The path is as long as the run it explains: its stretches and the edges between them. */
static void path_adds_up(const wr_result_t *r)
{
    cr_assert_gt(r->npath, 0);
    double sum = 0;
    for (size_t i = 0; i < r->npath; i++) {
        const wr_seg_t *g = &r->path[i];
        cr_expect_geq(g->p_end, g->p_start);
        sum += g->p_end - g->p_start + (i ? g->edge : 0);
        cr_expect_float_eq(g->compute + g->mpi, g->p_end - g->p_start, 1e-6,
                           "stretch %zu: compute %g + mpi %g against %g", i, g->compute, g->mpi,
                           g->p_end - g->p_start);
    }
    cr_expect_float_eq(sum, r->path[r->npath - 1].p_end - r->path[0].p_start, 1e-6);
}

/* Rank 0 computes 10 us then sends 100 B (eager); rank 1 waits in Recv from 1 us. */
static char *gen_eager(void)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    open_rank(&g, dir, 0);
    ev(&g, PLOG_CALL_MPI_Send, 10500, 10600, 1, 5, 100);
    close_rank(&g, 20000);
    open_rank(&g, dir, 1);
    ev(&g, PLOG_CALL_MPI_Recv, 1000, 12000, 0, 5, 0)->rbytes = 100;
    pgen_status1(&g, 0, 0, 5, 100);
    close_rank(&g, 30000);
    return dir;
}

Test(whole_replay, eager_message_by_hand)
{
    fixture_t f;
    replay(&f, gen_eager());
    run(&f);
    const wr_result_t *r = &f.r;
    cr_expect_eq(r->messages, 1);
    cr_expect_eq(r->eager, 1);
    cr_expect_eq(r->forced, 0);
    /* rank 1's Recv ends when the message arrives: 10500 + 1100; its Finalize 18000 later */
    cr_expect_float_eq(r->ranks[1].p_mpi, 11600.0 - 1000, 1e-6);
    cr_expect_float_eq(r->ranks[1].m_mpi, 11000, 1e-6);
    cr_expect_float_eq(r->ranks[1].p_end - r->t0, 29600.0 - 500, 1e-6);
    cr_expect_float_eq(r->ranks[0].p_end - r->t0, 20000.0 - 500, 1e-6);
    cr_expect_float_eq(r->measured, 30000.0 - 500, 1e-6);
    cr_expect_float_eq(r->predicted, 29600.0 - 500, 1e-6);
    /* the path: rank 0 computing, the message, rank 1 computing */
    cr_assert_eq(r->npath, 2);
    cr_expect_eq(r->path[0].rank, 0);
    cr_expect_float_eq(r->path[0].compute, 10000, 1e-6);
    cr_expect_eq(r->path[1].rank, 1);
    cr_expect_eq(r->path[1].from, WR_FROM_MSG);
    cr_expect_eq(r->path[1].peer, 0);
    cr_expect_eq(r->path[1].bytes, 100);
    cr_expect_float_eq(r->path[1].edge, 1100, 1e-6);
    path_adds_up(r);

    /* twice the compute: the send leaves at 20500, rank 1 ends 36000 after the message */
    f.o.compute_scale = 2;
    run(&f);
    cr_expect_float_eq(f.r.ranks[1].p_end - f.r.t0, 20500.0 + 1100 + 36000 - 500, 1e-6);
    /* only rank 0 slower: its send leaves at 30500 */
    f.o.compute_scale = 1;
    f.o.slow_rank = 0;
    f.o.slow_factor = 3;
    run(&f);
    cr_expect_float_eq(f.r.ranks[1].p_end - f.r.t0, 30500.0 + 1100 + 18000 - 500, 1e-6);
    done(&f);
}

/* 5000 B above the eager size: rank 0's Send waits until rank 1 posts its Recv at 8000. */
static char *gen_rendezvous(void)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    open_rank(&g, dir, 0);
    ev(&g, PLOG_CALL_MPI_Send, 1000, 9000, 1, 5, 5000);
    close_rank(&g, 20000);
    open_rank(&g, dir, 1);
    ev(&g, PLOG_CALL_MPI_Recv, 8000, 9000, 0, 5, 0)->rbytes = 5000;
    pgen_status1(&g, 0, 0, 5, 5000);
    close_rank(&g, 20000);
    return dir;
}

Test(whole_replay, rendezvous_and_what_ifs)
{
    fixture_t f;
    replay(&f, gen_rendezvous());
    run(&f);
    cr_expect_eq(f.r.rendezvous, 1);
    /* both ends of 8000 + 6000 */
    cr_expect_float_eq(f.r.ranks[0].p_mpi, 14000.0 - 1000, 1e-6);
    cr_expect_float_eq(f.r.ranks[1].p_mpi, 14000.0 - 8000, 1e-6);
    /* rank 0 ends last (11000 after its send): the path came from rank 1's posting */
    cr_assert_eq(f.r.npath, 2);
    cr_expect_eq(f.r.path[1].rank, 0);
    cr_expect_eq(f.r.path[1].from, WR_FROM_RECV);
    cr_expect_float_eq(f.r.path[1].edge, 6000, 1e-6);
    path_adds_up(&f.r);
    /* twice the bandwidth: 1000 + 2500 */
    f.o.bw = 2;
    run(&f);
    cr_expect_float_eq(f.r.ranks[0].p_mpi, 8000.0 + 3500 - 1000, 1e-6);
    /* three times the latency: 3000 + 5000 */
    f.o.bw = 1;
    f.o.lat = 3;
    run(&f);
    cr_expect_float_eq(f.r.ranks[0].p_mpi, 8000.0 + 8000 - 1000, 1e-6);
    /* a larger eager size: the send goes at once and the receive finds it there */
    f.o.lat = 1;
    f.p.eager = 10000;
    run(&f);
    cr_expect_eq(f.r.eager, 1);
    cr_expect_float_eq(f.r.ranks[0].p_mpi, 6000, 1e-6); /* its measured 8000, capped */
    cr_expect_float_eq(f.r.ranks[1].p_mpi, 1000, 1e-6); /* arrived at 7000: a local 1000 */
    done(&f);
}

/* Isend + Wait to a wildcard Irecv, whose channel comes from its Wait's status. */
static char *gen_wildcard(void)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    open_rank(&g, dir, 0);
    ev(&g, PLOG_CALL_MPI_Isend, 2000, 2050, 1, 7, 100)->request = 0xa0;
    plog_event_t *e = ev(&g, PLOG_CALL_MPI_Wait, 2100, 2200, PLOG_NONE, PLOG_NONE, 0);
    e->comm = 0;
    e->request = 0xa0;
    pgen_status1(&g, 0xa0, PLOG_NONE, PLOG_NONE, PLOG_BYTES_UNKNOWN);
    close_rank(&g, 5000);
    open_rank(&g, dir, 1);
    e = ev(&g, PLOG_CALL_MPI_Irecv, 1000, 1010, PLOG_ANY_SOURCE, 7, 0);
    e->rbytes = 100;
    e->request = 0xc1;
    e = ev(&g, PLOG_CALL_MPI_Wait, 1500, 4000, PLOG_NONE, PLOG_NONE, 0);
    e->comm = 0;
    e->request = 0xc1;
    pgen_status1(&g, 0xc1, 0, 7, 100);
    close_rank(&g, 6000);
    return dir;
}

Test(whole_replay, wildcard_receive_from_its_status)
{
    fixture_t f;
    replay(&f, gen_wildcard());
    run(&f);
    cr_expect_eq(f.r.wildcard, 1);
    cr_expect_eq(f.r.messages, 1);
    cr_expect_eq(f.r.forced, 0);
    cr_expect_eq(f.r.unmatched_sends + f.r.unmatched_recvs, 0);
    /* the Wait ends at 2000 + 1100; Irecv 10 + Wait 1600 */
    cr_expect_float_eq(f.r.ranks[1].p_mpi, 10.0 + 3100 - 1500, 1e-6);
    cr_expect_float_eq(f.r.ranks[1].p_end - f.r.t0, 3100.0 + 2000 - 500, 1e-6);
    cr_expect_eq(f.r.peak_messages, 1);
    path_adds_up(&f.r);
    done(&f);
}

/* Rank 1 waits for a message rank 0 never sends: taken as measured, never a hang. */
static char *gen_missing(void)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    open_rank(&g, dir, 0);
    close_rank(&g, 5000);
    open_rank(&g, dir, 1);
    ev(&g, PLOG_CALL_MPI_Recv, 1000, 3000, 0, 9, 0)->rbytes = 8;
    pgen_status1(&g, 0, 0, 9, 8);
    close_rank(&g, 6000);
    return dir;
}

Test(whole_replay, unresolved_wait_as_measured)
{
    fixture_t f;
    replay(&f, gen_missing());
    run(&f);
    cr_expect_eq(f.r.forced, 1);
    cr_expect_float_eq(f.r.ranks[1].p_mpi, 2000, 1e-6);
    cr_expect_float_eq(f.r.predicted, f.r.measured, 1e-6);
    done(&f);
}

/* A Barrier: rank 0 enters at 1000, rank 1 at 5000; neither leaves before 5000. */
static char *gen_barrier(void)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    open_rank(&g, dir, 0);
    ev(&g, PLOG_CALL_MPI_Barrier, 1000, 5200, PLOG_NONE, PLOG_NONE, 0);
    close_rank(&g, 8000);
    open_rank(&g, dir, 1);
    ev(&g, PLOG_CALL_MPI_Barrier, 5000, 5200, PLOG_NONE, PLOG_NONE, 0);
    close_rank(&g, 9000);
    return dir;
}

Test(whole_replay, collective_waits_for_its_last_member)
{
    fixture_t f;
    replay(&f, gen_barrier());
    run(&f);
    cr_expect_eq(f.r.colls, 1);
    cr_expect_eq(f.r.colls_local, 0);
    cr_expect_geq(f.r.ranks[0].p_mpi, 4000);
    cr_expect_geq(f.r.ranks[1].p_mpi, 0);
    /* rank 1 ends last; rank 0's path came into the barrier from rank 1 if it ends later */
    path_adds_up(&f.r);
    /* priced whole: the same wait for the last member */
    f.o.whole = 1;
    run(&f);
    cr_expect_geq(f.r.ranks[0].p_mpi, 4000);
    cr_expect_eq(f.r.colls_priced + f.r.colls_tail, 1);
    done(&f);
}

/* Two 100 kB messages leave rank 0 10 ns apart for rank 1 on another host: their bytes
 * share the links (1 ns per byte at 2-4 MiB), so the second is through when the links have
 * moved both. */
static char *gen_share(void)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    open_rank(&g, dir, 0);
    ev(&g, PLOG_CALL_MPI_Isend, 1000, 1010, 1, 1, 100000)->request = 0xa0;
    ev(&g, PLOG_CALL_MPI_Isend, 1010, 1020, 1, 2, 100000)->request = 0xa1;
    plog_event_t *e = ev(&g, PLOG_CALL_MPI_Waitall, 1030, 3000, PLOG_NONE, PLOG_NONE, 0);
    e->comm = 0;
    e->flags |= PLOG_F_STATUS;
    pgen_extra1(&g, 0, 2);
    pgen_status(&g, 0, 0xa0, PLOG_NONE, PLOG_NONE, PLOG_BYTES_UNKNOWN, 0);
    pgen_status(&g, 0, 0xa1, PLOG_NONE, PLOG_NONE, PLOG_BYTES_UNKNOWN, 1);
    close_rank(&g, 300000);
    open_rank(&g, dir, 1);
    e = ev(&g, PLOG_CALL_MPI_Irecv, 600, 610, 0, 1, 0);
    e->rbytes = 100000;
    e->request = 0xc0;
    e = ev(&g, PLOG_CALL_MPI_Irecv, 610, 620, 0, 2, 0);
    e->rbytes = 100000;
    e->request = 0xc1;
    e = ev(&g, PLOG_CALL_MPI_Waitall, 700, 4000, PLOG_NONE, PLOG_NONE, 0);
    e->comm = 0;
    e->flags |= PLOG_F_STATUS;
    pgen_extra1(&g, 0, 2);
    pgen_status(&g, 0, 0xc0, 0, 1, 100000, 0);
    pgen_status(&g, 0, 0xc1, 0, 2, 100000, 1);
    close_rank(&g, 300000);
    return dir;
}

Test(whole_replay, messages_between_hosts_share_the_link)
{
    fixture_t f;
    replay(&f, gen_share());
    f.p.eager = 1 << 20;
    run(&f);
    cr_expect_eq(f.r.messages, 2);
    cr_expect_eq(f.r.eager, 2);
    /* the first alone: 1000 + 101000; the second, from 1010, once the links moved 200 kB */
    cr_expect_float_eq(f.r.ranks[1].p_mpi, 10.0 + 10 + (1010 + 200000 - 700), 1e-6);
    /* on one host they do not share: 1010 + 101000 */
    f.host[1] = 0;
    run(&f);
    cr_expect_float_eq(f.r.ranks[1].p_mpi, 10.0 + 10 + (1010 + 101000 - 700), 1e-6);
    done(&f);
}

/* Rank 0 polls for rank 1's message: an Irecv, 4 Tests that find nothing (100 ns each, 400 ns
 * apart), the Test that completes it, then 3 Iprobes that find nothing (50 ns each, 450 ns
 * apart). With runs, each group of polls is one event (PLOG_F_POLLS); else one per poll, as
 * PHASOR_POLLS=each logs them. Rank 1 sends 100 B at 2500 (eager). */
static char *gen_polls(int runs)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    open_rank(&g, dir, 0);
    ev(&g, PLOG_CALL_MPI_Irecv, 1000, 1100, 1, 5, 0)->request = 0xa0;
    if (runs) {
        plog_event_t *e = ev(&g, PLOG_CALL_MPI_Test, 1200, 2800, PLOG_NONE, PLOG_NONE, 0);
        e->comm = 0;
        e->request = 0xa0;
        e->flags = PLOG_F_POLLS;
        const uint64_t w[2] = {4, 400};
        pgen_extra(&g, 0, w, 2);
    } else {
        for (int i = 0; i < 4; i++) {
            plog_event_t *e = ev(&g, PLOG_CALL_MPI_Test, 1200 + 500 * (uint64_t)i,
                                 1300 + 500 * (uint64_t)i, PLOG_NONE, PLOG_NONE, 0);
            e->comm = 0;
            e->request = 0xa0;
        }
    }
    plog_event_t *e = ev(&g, PLOG_CALL_MPI_Test, 3200, 3300, PLOG_NONE, PLOG_NONE, 0);
    e->comm = 0;
    e->request = 0xa0;
    e->flags = PLOG_F_FLAG_TRUE;
    pgen_status1(&g, 0xa0, 1, 5, 100);
    if (runs) {
        e = ev(&g, PLOG_CALL_MPI_Iprobe, 3400, 4450, PLOG_ANY_SOURCE, PLOG_ANY_TAG, 0);
        e->flags = PLOG_F_POLLS;
        const uint64_t w[2] = {3, 150};
        pgen_extra(&g, 0, w, 2);
    } else {
        for (int i = 0; i < 3; i++)
            ev(&g, PLOG_CALL_MPI_Iprobe, 3400 + 500 * (uint64_t)i, 3450 + 500 * (uint64_t)i,
               PLOG_ANY_SOURCE, PLOG_ANY_TAG, 0);
    }
    close_rank(&g, 10000);
    open_rank(&g, dir, 1);
    ev(&g, PLOG_CALL_MPI_Send, 2500, 2600, 0, 5, 100);
    close_rank(&g, 10000);
    return dir;
}

/* A run of polls replays as its polls logged one by one do: the time inside them as
 * measured, the time between them as compute (scaled with the what-ifs), every poll
 * counted. */
Test(whole_replay, runs_of_polls_replay_as_their_polls)
{
    fixture_t a, b;
    replay(&a, gen_polls(1));
    replay(&b, gen_polls(0));
    for (int k = 0; k < 3; k++) {
        a.o.compute_scale = b.o.compute_scale = k == 1 ? 2 : 1;
        a.o.slow_rank = b.o.slow_rank = k == 2 ? 0 : -1;
        a.o.slow_factor = b.o.slow_factor = k == 2 ? 3 : 1;
        run(&a);
        run(&b);
        cr_expect_eq(a.r.polls, 7, "case %d: %llu polls", k, (unsigned long long)a.r.polls);
        cr_expect_eq(b.r.polls, 7);
        cr_expect_eq(a.r.events + 5, b.r.events, "the events as the logs hold them");
        for (unsigned c = 0; c < WR_NCALLS; c++) {
            cr_expect_eq(a.r.calls[c].count, b.r.calls[c].count, "case %d, call %u", k, c);
            cr_expect_float_eq(a.r.calls[c].measured, b.r.calls[c].measured, 1e-6,
                               "case %d, call %u: measured %g against %g", k, c,
                               a.r.calls[c].measured, b.r.calls[c].measured);
            cr_expect_float_eq(a.r.calls[c].predicted, b.r.calls[c].predicted, 1e-6,
                               "case %d, call %u: predicted %g against %g", k, c,
                               a.r.calls[c].predicted, b.r.calls[c].predicted);
        }
        for (int r = 0; r < 2; r++) {
            cr_expect_float_eq(a.r.ranks[r].m_mpi, b.r.ranks[r].m_mpi, 1e-6, "case %d", k);
            cr_expect_float_eq(a.r.ranks[r].p_mpi, b.r.ranks[r].p_mpi, 1e-6, "case %d", k);
            cr_expect_float_eq(a.r.ranks[r].p_end, b.r.ranks[r].p_end, 1e-6, "case %d", k);
        }
        cr_expect_float_eq(a.r.predicted, b.r.predicted, 1e-6, "case %d", k);
        double ca = 0, ma = 0, cb = 0, mb = 0;
        for (size_t i = 0; i < a.r.npath; i++)
            ca += a.r.path[i].compute, ma += a.r.path[i].mpi;
        for (size_t i = 0; i < b.r.npath; i++)
            cb += b.r.path[i].compute, mb += b.r.path[i].mpi;
        cr_expect_float_eq(ca, cb, 1e-6, "case %d: path compute %g against %g", k, ca, cb);
        cr_expect_float_eq(ma, mb, 1e-6, "case %d: path mpi %g against %g", k, ma, mb);
        path_adds_up(&a.r);
    }
    /* by hand, as measured: inside the Tests 4 x 100 + 100, the Iprobes 3 x 50 */
    cr_expect_eq(a.r.calls[PLOG_CALL_MPI_Test].count, 5);
    cr_expect_float_eq(a.r.calls[PLOG_CALL_MPI_Test].measured, 500, 1e-6);
    cr_expect_eq(a.r.calls[PLOG_CALL_MPI_Iprobe].count, 3);
    cr_expect_float_eq(a.r.calls[PLOG_CALL_MPI_Iprobe].measured, 150, 1e-6);
    done(&a);
    done(&b);
}
