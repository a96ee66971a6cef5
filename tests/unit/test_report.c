/* test_report.c: the numbers of `phasor report` (analysis/report_stats.c, linked from
 * libphasoranalysis) on synthetic logs whose answers are worked out by hand: MPI/app time per
 * rank (union of call intervals, threads overlapping), imbalance, per-function
 * counts/times/bytes, histogram buckets, collectives by communicator size, the sender-side
 * matrix, call sites, early endings, and the summary the writers format (orders, shares,
 * heaviest pairs, the probe's medians). The writers themselves (cli/phasor_report.c) are
 * checked byte for byte by tests/unit/cli_report.sh through the phasor command. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_recon.h"
#include "plog_calls.h"
#include "plog_reader.h"
#include "plog_testgen.h"
#include "report_stats.h"

static plog_event_t *ev(pgen_rank_t *g, unsigned th, unsigned call, uint64_t t0, uint64_t t1,
                        int32_t peer, uint64_t bytes)
{
    plog_event_t *e = pgen_event(g, th, call, t0, t1);
    cr_assert_not_null(e);
    e->comm = 1;
    e->peer = peer;
    e->bytes = bytes;
    return e;
}

static void world_comms(pgen_rank_t *g, int32_t rank, int32_t world)
{
    int32_t all[64];
    for (int32_t i = 0; i < world; i++)
        all[i] = i;
    cr_assert_eq(pgen_comm(g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, (uint32_t)world,
                           NULL, 0), 0);
    cr_assert_eq(pgen_comm(g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &rank, 1, NULL, 0), 0);
    cr_assert_eq(pgen_flush_comms(g), 0);
}

static void status1(pgen_rank_t *g, unsigned th, uint64_t handle, int32_t src, int32_t tag,
                    uint64_t bytes)
{
    pgen_last(g, th)->flags |= PLOG_F_STATUS;
    pgen_extra1(g, th, 1);
    pgen_status(g, th, handle, src, tag, bytes, 0);
}

/* Three ranks; every time below is worked into the expected values of the tests. */
static char *gen_three(void)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    plog_event_t *e;

    /* rank 0: app 2000..10000 = 8000; MPI 500+100+200+1000+100 = 1900 */
    cr_assert_eq(pgen_open(&g, dir, 0, 3, 2000), 0);
    world_comms(&g, 0, 3);
    ev(&g, 0, PLOG_CALL_MPI_Init, 1000, 2000, PLOG_NONE, 0)->comm = 0;
    e = ev(&g, 0, PLOG_CALL_MPI_Send, 3000, 3500, 1, 100);
    e->tag = 5;
    e->callsite = 5;
    e = ev(&g, 0, PLOG_CALL_MPI_Isend, 4000, 4100, 2, 1000);
    e->tag = 6;
    e->request = 0xa0;
    e = ev(&g, 0, PLOG_CALL_MPI_Wait, 4200, 4400, PLOG_NONE, 0);
    e->comm = 0;
    e->request = 0xa0;
    status1(&g, 0, 0xa0, PLOG_NONE, PLOG_NONE, PLOG_BYTES_UNKNOWN);
    ev(&g, 0, PLOG_CALL_MPI_Allreduce, 5000, 6000, PLOG_NONE, 8);
    ev(&g, 0, PLOG_CALL_MPI_Send, 6100, 6200, PLOG_PROC_NULL, 50)->tag = 5;
    ev(&g, 0, PLOG_CALL_MPI_Finalize, 10000, 11000, PLOG_NONE, 0)->comm = 0;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);

    /* rank 1: app 1500..12000 = 10500; MPI [3000,4100] + 100 + 100 + 2000 = 3300 */
    cr_assert_eq(pgen_open(&g, dir, 1, 3, 2000), 0);
    world_comms(&g, 1, 3);
    ev(&g, 0, PLOG_CALL_MPI_Init_thread, 1000, 1500, PLOG_NONE, 0)->comm = 0;
    e = ev(&g, 0, PLOG_CALL_MPI_Recv, 3000, 4000, 0, 0);
    e->tag = 5;
    e->rbytes = 400;
    status1(&g, 0, 0, 0, 5, 100);
    e = ev(&g, 0, PLOG_CALL_MPI_Send_init, 4000, 4100, 2, 64);
    e->tag = 9;
    e->request = 0xb0;
    ev(&g, 0, PLOG_CALL_MPI_Start, 4200, 4300, PLOG_NONE, 0)->request = 0xb0;
    ev(&g, 0, PLOG_CALL_MPI_Start, 4400, 4500, PLOG_NONE, 0)->request = 0xb0;
    ev(&g, 0, PLOG_CALL_MPI_Allreduce, 5000, 7000, PLOG_NONE, 8);
    ev(&g, 0, PLOG_CALL_MPI_Finalize, 12000, 13000, PLOG_NONE, 0)->comm = 0;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);

    /* rank 2: app 3000..8000 = 5000; MPI: Irecv [3500,3600], Barrier on thread 1
     * [3550,3800], Sendrecv [3700,3900] overlap into 400, + Allreduce 500 = 900 */
    cr_assert_eq(pgen_open(&g, dir, 2, 3, 2000), 0);
    world_comms(&g, 2, 3);
    ev(&g, 0, PLOG_CALL_MPI_Init, 1000, 3000, PLOG_NONE, 0)->comm = 0;
    e = ev(&g, 0, PLOG_CALL_MPI_Irecv, 3500, 3600, 0, 0);
    e->tag = 6;
    e->rbytes = 1000;
    e->request = 0xc0;
    ev(&g, 1, PLOG_CALL_MPI_Barrier, 3550, 3800, PLOG_NONE, 0);
    e = ev(&g, 0, PLOG_CALL_MPI_Sendrecv, 3700, 3900, 0, 16);
    e->tag = 3;
    e->rbytes = 16;
    e->flags = PLOG_F_RECVSPEC;
    pgen_extra1(&g, 0, ((uint64_t)1 << 32) | 3);
    ev(&g, 0, PLOG_CALL_MPI_Allreduce, 5000, 5500, PLOG_NONE, 8);
    ev(&g, 0, PLOG_CALL_MPI_Finalize, 8000, 9000, PLOG_NONE, 0)->comm = 0;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    return dir;
}

static plog_run_t *compute(const char *dir, rep_t *rep)
{
    plog_run_t *run = NULL;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(rep_compute(run, rep, &err), PLOG_OK, "%s", err.msg);
    return run;
}

static const rep_stat_t *pair(const rep_t *rep, uint32_t s, uint32_t d)
{
    return rep_map_get(&rep->matrix, ((uint64_t)s << 32) | d);
}

Test(report, times_per_rank_and_imbalance)
{
    char *dir = gen_three();
    rep_t rep;
    plog_run_t *run = compute(dir, &rep);
    static const uint64_t app[3] = {8000, 10500, 5000}, mpi[3] = {1900, 3300, 900};
    for (int r = 0; r < 3; r++) {
        cr_assert(rep.ranks[r].loaded);
        cr_assert(rep.ranks[r].have_init && rep.ranks[r].have_finalize);
        cr_expect_eq(rep.ranks[r].app_ns, app[r], "rank %d app %llu", r,
                     (unsigned long long)rep.ranks[r].app_ns);
        cr_expect_eq(rep.ranks[r].mpi_ns, mpi[r], "rank %d mpi %llu", r,
                     (unsigned long long)rep.ranks[r].mpi_ns);
    }
    cr_expect_eq(rep.ranks[0].events, 7);
    cr_expect_eq(rep.ranks[2].events, 6);
    cr_expect_eq(rep.events, 20);
    cr_expect_eq(rep.mpi_total, 6100);
    cr_expect_eq(rep.app_total, 23500);

    const rep_imb_t *im = &rep.imb[REP_IMB_MPI];
    cr_expect_float_eq(im->min, 900, 1e-9);
    cr_expect_float_eq(im->max, 3300, 1e-9);
    cr_expect_float_eq(im->mean, 6100.0 / 3, 1e-9);
    cr_expect_float_eq(im->imbalance, 3300 / (6100.0 / 3) - 1, 1e-12);
    cr_expect_eq(im->min_rank, 2);
    cr_expect_eq(im->max_rank, 1);
    im = &rep.imb[REP_IMB_APP];
    cr_expect_float_eq(im->imbalance, 10500 / (23500.0 / 3) - 1, 1e-12);
    cr_expect_eq(im->min_rank, 2);
    cr_expect_eq(im->max_rank, 1);

    for (int r = 0; r < 3; r++)
        cr_expect_float_eq(rep.ranks[r].mpi_pct, 100.0 * mpi[r] / app[r], 1e-12, "rank %d", r);
    cr_expect_float_eq(rep.mpi_pct, 100.0 * 6100 / 23500, 1e-12);
    rep_free(&rep);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(report, functions_and_histograms)
{
    char *dir = gen_three();
    rep_t rep;
    plog_run_t *run = compute(dir, &rep);
    const rep_stat_t *s = &rep.func[PLOG_CALL_MPI_Allreduce];
    cr_expect_eq(s->count, 3);
    cr_expect_eq(s->time_sum, 3500);
    cr_expect_eq(s->time_min, 500);
    cr_expect_eq(s->time_max, 2000);
    cr_expect_eq(s->bytes_sum, 24);
    s = &rep.func[PLOG_CALL_MPI_Send];
    cr_expect_eq(s->count, 2);
    cr_expect_eq(s->time_sum, 600);
    cr_expect_eq(s->bytes_sum, 150);
    cr_expect_eq(s->bytes_min, 50);
    cr_expect_eq(s->bytes_max, 100);
    cr_expect_eq(rep.func[PLOG_CALL_MPI_Recv].bytes_sum, 100, "status bytes, not the buffer");
    cr_expect_eq(rep.func[PLOG_CALL_MPI_Irecv].bytes_sum, 1000);
    cr_expect_eq(rep.func[PLOG_CALL_MPI_Start].count, 2);
    cr_expect_eq(rep.func[PLOG_CALL_MPI_Start].bytes_sum, 128, "the started send's bytes");
    cr_expect_eq(rep.func[PLOG_CALL_MPI_Sendrecv].bytes_sum, 16);
    cr_expect_eq(rep.func[PLOG_CALL_MPI_Barrier].time_sum, 250);
    cr_expect_eq(rep.func[PLOG_CALL_MPI_Init].count, 0, "Init is not an MPI-time function");
    cr_expect_eq(rep.func[PLOG_CALL_MPI_Finalize].count, 0);

    cr_expect_eq(rep_bucket(0), 0);
    cr_expect_eq(rep_bucket(1), 1);
    cr_expect_eq(rep_bucket(64), 7);
    cr_expect_eq(rep_bucket(127), 7);
    cr_expect_eq(rep_bucket(UINT64_MAX), 64);
    cr_expect_eq(rep.hist[PLOG_CALL_MPI_Send][7], 1);
    cr_expect_eq(rep.hist[PLOG_CALL_MPI_Send][6], 1);
    cr_expect_eq(rep.hist[PLOG_CALL_MPI_Isend][10], 1);
    cr_expect_eq(rep.hist[PLOG_CALL_MPI_Allreduce][4], 3);
    cr_expect_eq(rep.hist[PLOG_CALL_MPI_Start][7], 2);
    cr_expect_eq(rep.hist[PLOG_CALL_MPI_Send_init][7], 0, "set-up calls have no histogram");
    cr_expect_eq(rep.hist[PLOG_CALL_MPI_Barrier][0], 1);

    const rep_stat_t *c = rep_map_get(&rep.coll, ((uint64_t)PLOG_CALL_MPI_Allreduce << 32) | 3);
    cr_assert_not_null(c);
    cr_expect_eq(c->count, 3);
    cr_expect_eq(c->time_sum, 3500);
    c = rep_map_get(&rep.coll, ((uint64_t)PLOG_CALL_MPI_Barrier << 32) | 3);
    cr_assert_not_null(c);
    cr_expect_eq(c->count, 1);
    cr_expect_eq(rep.coll.n, 2);

    cr_expect_eq(rep.sites.n, 1);
    c = rep_map_get(&rep.sites, ((uint64_t)5 << 16) | PLOG_CALL_MPI_Send);
    cr_assert_not_null(c);
    cr_expect_eq(c->count, 1);
    cr_expect_eq(c->bytes_sum, 100);
    rep_free(&rep);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(report, matrix_counts_each_message_once_from_the_sender)
{
    char *dir = gen_three();
    rep_t rep;
    plog_run_t *run = compute(dir, &rep);
    cr_expect_eq(rep.matrix.n, 4, "PROC_NULL and receives add no pair");
    const rep_stat_t *p = pair(&rep, 0, 1);
    cr_assert_not_null(p);
    cr_expect_eq(p->count, 1);
    cr_expect_eq(p->bytes_sum, 100);
    p = pair(&rep, 0, 2);
    cr_assert_not_null(p);
    cr_expect_eq(p->bytes_sum, 1000);
    p = pair(&rep, 1, 2);
    cr_assert_not_null(p, "persistent sends count at each Start");
    cr_expect_eq(p->count, 2);
    cr_expect_eq(p->bytes_min, 64);
    cr_expect_eq(p->bytes_max, 64);
    cr_expect_eq(p->bytes_sum, 128);
    p = pair(&rep, 2, 0);
    cr_assert_not_null(p);
    cr_expect_eq(p->count, 1);
    cr_expect_eq(p->bytes_sum, 16);
    cr_expect_null(pair(&rep, 1, 0), "receives are not counted");
    rep_free(&rep);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* What the writers list, in their order: the functions by time (ties by id) with their
 * shares, collectives by time, the matrix by (src, dst) with its totals and heaviest pairs. */
Test(report, summary_orders_and_shares)
{
    char *dir = gen_three();
    rep_t rep;
    plog_run_t *run = compute(dir, &rep);
    /* Allreduce 3500, Recv 1000, Send 600, Barrier 250, then Wait, Start and Sendrecv at 200
     * and Isend, Send_init and Irecv at 100, each tie by call id */
    static const unsigned want[] = {PLOG_CALL_MPI_Allreduce, PLOG_CALL_MPI_Recv,
                                    PLOG_CALL_MPI_Send, PLOG_CALL_MPI_Barrier};
    cr_assert_eq(rep.nfunc, 10);
    for (unsigned i = 0; i < 4; i++)
        cr_expect_eq(rep.funcs[i].call, want[i], "function %u", i);
    for (unsigned i = 1; i < rep.nfunc; i++) {
        const rep_stat_t *a = &rep.func[rep.funcs[i - 1].call], *b = &rep.func[rep.funcs[i].call];
        cr_expect(a->time_sum > b->time_sum ||
                  (a->time_sum == b->time_sum && rep.funcs[i - 1].call < rep.funcs[i].call),
                  "order at %u", i);
    }
    cr_expect_float_eq(rep.funcs[0].pct_mpi, 100.0 * 3500 / 6100, 1e-12);
    cr_expect_float_eq(rep.funcs[0].pct_app, 100.0 * 3500 / 23500, 1e-12);

    cr_assert_eq(rep.coll.n, 2);
    cr_expect_eq(rep.coll.v[0].key, ((uint64_t)PLOG_CALL_MPI_Allreduce << 32) | 3);
    cr_expect_eq(rep.coll.v[1].key, ((uint64_t)PLOG_CALL_MPI_Barrier << 32) | 3);
    cr_expect_eq(rep_map_get(&rep.coll, rep.coll.v[1].key), &rep.coll.v[1]);
    cr_expect_eq(rep.coll_calls, 4);
    uint64_t skipped = 0;
    for (int w = 0; w < RECON__COUNT; w++)
        skipped += rep.coll_skipped[w];
    cr_expect_eq(rep.coll_rebuilt + skipped, rep.coll_calls);

    static const uint64_t keys[] = {1, 2, (1ull << 32) | 2, 2ull << 32};
    cr_assert_eq(rep.matrix.n, 4);
    for (size_t i = 0; i < 4; i++)
        cr_expect_eq(rep.matrix.v[i].key, keys[i], "entry %zu", i);
    cr_expect_eq(rep.p2p.msgs, 5);
    cr_expect_eq(rep.p2p.bytes, 100 + 1000 + 128 + 16);
    static const uint64_t heavy[] = {2, (1ull << 32) | 2, 1, 2ull << 32};
    cr_assert_eq(rep.p2p.ntop, 4);
    for (size_t i = 0; i < 4; i++)
        cr_expect_eq(rep.p2p.top[i].key, heavy[i], "top %zu", i);
    cr_expect_eq(rep.sites.n, 1);
    cr_expect_eq(rep.sites.v[0].key, ((uint64_t)5 << 16) | PLOG_CALL_MPI_Send);
    rep_free(&rep);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

static plog_probe_entry_t pooled(int32_t src, uint32_t z, uint32_t way, double q50)
{
    plog_probe_entry_t e = {.src = src, .dst = -1, .size_idx = z, .way = way};
    e.q.q50 = q50;
    return e;
}

/* Per size and way: the median of the sources' medians, the slowest and fastest source
 * (the lowest rank on a tie); sizes no source measured are left out. */
Test(report, probe_medians_over_the_sources)
{
    plog_probe_entry_t e[] = {
        pooled(0, 0, PLOG_PROBE_EXCHANGE, 10), pooled(1, 0, PLOG_PROBE_EXCHANGE, 30),
        pooled(2, 0, PLOG_PROBE_EXCHANGE, 20), pooled(3, 0, PLOG_PROBE_EXCHANGE, 40),
        pooled(0, 1, PLOG_PROBE_ONEWAY, 7), pooled(2, 1, PLOG_PROBE_ONEWAY, 7),
        {.src = 1, .dst = 2, .size_idx = 0, .way = PLOG_PROBE_EXCHANGE, .q.q50 = 1e9},
    };
    plog_probeset_t ps = {.info = {.mode = PLOG_PROBE_QUICK, .nsizes = 2, .sizes = {8, 4096}},
                          .world = 4, .ranks = 4, .n = sizeof(e) / sizeof(e[0]), .e = e};
    rep_probe_t out;
    plog_error_t err;
    cr_assert_eq(rep_probe_summarize(&ps, "log", &out, &err), PLOG_OK);
    cr_assert_eq(out.nrows[PLOG_PROBE_EXCHANGE], 1, "a pair's entry is not a source's");
    const rep_probe_row_t *r = &out.row[PLOG_PROBE_EXCHANGE][0];
    cr_expect_eq(r->size, 8);
    cr_expect_eq(r->nsrc, 4);
    cr_expect_float_eq(r->med, 25, 1e-12);
    cr_expect_float_eq(r->slow, 40, 1e-12);
    cr_expect_eq(r->slow_src, 3);
    cr_expect_float_eq(r->fast, 10, 1e-12);
    cr_expect_eq(r->fast_src, 0);
    cr_assert_eq(out.nrows[PLOG_PROBE_ONEWAY], 1);
    r = &out.row[PLOG_PROBE_ONEWAY][0];
    cr_expect_eq(r->size, 4096);
    cr_expect_eq(r->nsrc, 2);
    cr_expect_float_eq(r->med, 7, 1e-12);
    cr_expect_eq(r->slow_src, 0);
    cr_expect_eq(r->fast_src, 0);
}

/* 40 ranks, all to all: 1560 pairs grow the hash many times; every entry must survive. */
Test(report, matrix_many_pairs)
{
    char *dir = pgen_tmpdir();
    const int W = 40;
    for (int r = 0; r < W; r++) {
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, r, W, 1000), 0);
        world_comms(&g, r, W);
        uint64_t t = 2000;
        for (int d = 0; d < W; d++)
            if (d != r) {
                for (int k = 0; k <= d % 3; k++) {
                    ev(&g, 0, PLOG_CALL_MPI_Send, t, t + 10, d, (uint64_t)(r * 100 + d + k));
                    t += 20;
                }
            }
        cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    }
    rep_t rep;
    plog_run_t *run = compute(dir, &rep);
    cr_expect_eq(rep.matrix.n, (size_t)(W * (W - 1)));
    for (int s = 0; s < W; s++)
        for (int d = 0; d < W; d++) {
            const rep_stat_t *p = pair(&rep, (uint32_t)s, (uint32_t)d);
            if (s == d) {
                cr_expect_null(p);
                continue;
            }
            cr_assert_not_null(p, "%d->%d", s, d);
            uint64_t n = (uint64_t)(d % 3 + 1), lo = (uint64_t)(s * 100 + d);
            cr_expect_eq(p->count, n);
            cr_expect_eq(p->bytes_min, lo);
            cr_expect_eq(p->bytes_max, lo + n - 1);
            cr_expect_eq(p->bytes_sum, n * lo + n * (n - 1) / 2);
        }
    cr_assert_not_null(rep.matrix.v);
    uint64_t msgs = 0, bytes = 0;
    for (size_t i = 0; i < rep.matrix.n; i++) {
        const rep_stat_t *p = &rep.matrix.v[i];
        cr_expect(i == 0 || p[-1].key < p->key, "listed by (src, dst) at %zu", i);
        cr_expect_eq(rep_map_get(&rep.matrix, p->key), p, "the index finds every entry");
        msgs += p->count;
        bytes += p->bytes_sum;
    }
    cr_expect_eq(rep.p2p.msgs, msgs);
    cr_expect_eq(rep.p2p.bytes, bytes);
    /* the heaviest ten, by bytes then (src, dst): exactly nine entries come before the last */
    cr_assert_eq(rep.p2p.ntop, REP_TOP_PAIRS);
    const rep_stat_t *last = &rep.p2p.top[REP_TOP_PAIRS - 1];
    size_t before = 0;
    for (size_t i = 0; i < rep.matrix.n; i++) {
        const rep_stat_t *p = &rep.matrix.v[i];
        before += p->bytes_sum > last->bytes_sum ||
                  (p->bytes_sum == last->bytes_sum && p->key < last->key);
    }
    cr_expect_eq(before, REP_TOP_PAIRS - 1);
    for (size_t i = 1; i < REP_TOP_PAIRS; i++)
        cr_expect_geq(rep.p2p.top[i - 1].bytes_sum, rep.p2p.top[i].bytes_sum);
    /* 39 -> 38 sends 3 messages of 3938..3940 bytes: the heaviest pair */
    cr_expect_eq(rep.p2p.top[0].key, ((uint64_t)39 << 32) | 38);
    cr_expect_eq(rep.p2p.top[0].bytes_sum, 3 * 3938 + 3);
    cr_expect_null(rep_map_get(&rep.coll, 1), "empty map");
    cr_expect_eq(rep.nfunc, 1);
    cr_expect_eq(rep.funcs[0].call, PLOG_CALL_MPI_Send);
    rep_free(&rep);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* A rank that died: no Finalize, no END frame: app time runs to its last event. */
Test(report, early_end)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    for (int r = 0; r < 2; r++) {
        cr_assert_eq(pgen_open(&g, dir, r, 2, 2000), 0);
        world_comms(&g, r, 2);
        ev(&g, 0, PLOG_CALL_MPI_Init, 1000, 2000, PLOG_NONE, 0)->comm = 0;
        ev(&g, 0, PLOG_CALL_MPI_Send, 3000, 3100, 1 - r, 8);
        if (r == 0) {
            ev(&g, 0, PLOG_CALL_MPI_Finalize, 5000, 6000, PLOG_NONE, 0)->comm = 0;
            cr_assert_eq(pgen_close(&g, NULL, 0), 0);
        } else {
            pgen_abandon(&g);
        }
    }
    rep_t rep;
    plog_run_t *run = compute(dir, &rep);
    cr_expect(rep.ranks[0].have_finalize);
    cr_expect_eq(rep.ranks[0].app_ns, 3000);
    cr_expect_not(rep.ranks[1].have_finalize);
    cr_expect_eq(rep.ranks[1].app_ns, 1100);
    cr_expect_eq(rep.ranks[1].mpi_ns, 100);
    cr_expect_not(plog_run_rank(run, 1)->complete);
    rep_free(&rep);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* MPI time is a union of calls between MPI_Init and MPI_Finalize, so it cannot exceed the
 * time between them: a second MPI_Init late in the log (the application time then starts
 * there) makes the rank inconsistent, and the command warns; the hand-worked logs are not. */
Test(report, mpi_time_beyond_the_application_is_flagged)
{
    char *dir = gen_three();
    rep_t rep;
    plog_run_t *run = compute(dir, &rep);
    for (int r = 0; r < 3; r++)
        cr_expect(!rep_inconsistent(&rep, r), "rank %d", r);
    rep_free(&rep);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);

    dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 2000), 0);
    world_comms(&g, 0, 1);
    ev(&g, 0, PLOG_CALL_MPI_Init, 1000, 2000, PLOG_NONE, 0)->comm = 0;
    ev(&g, 0, PLOG_CALL_MPI_Barrier, 3000, 9000000, PLOG_NONE, 0);
    ev(&g, 0, PLOG_CALL_MPI_Init, 9000000, 9500000, PLOG_NONE, 0)->comm = 0;
    ev(&g, 0, PLOG_CALL_MPI_Finalize, 9600000, 9700000, PLOG_NONE, 0)->comm = 0;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    run = compute(dir, &rep);
    cr_expect_eq(rep.ranks[0].app_ns, 100000);
    cr_expect_eq(rep.ranks[0].mpi_ns, 8997000);
    cr_expect(rep_inconsistent(&rep, 0));
    rep_free(&rep);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* A collective whose bytes, times the communicator's size, reach 2^50 is damage to the
 * schedule builders (their int64 offsets would overflow): recon_event refuses it as
 * recorded values that cannot be the call's, and takes the sizes below. */
Test(recon, byte_counts_of_2_to_the_50_are_refused)
{
    static const uint64_t bytes[] = {8, 1ull << 48, 1ull << 49, 1ull << 50, 1ull << 62};
    static const recon_skip_t want[] = {RECON_OK, RECON_OK, RECON_BAD_ARGS, RECON_BAD_ARGS,
                                        RECON_BAD_ARGS};
    const size_t n = sizeof(bytes) / sizeof(bytes[0]);
    char *dir = pgen_tmpdir();
    for (int32_t r = 0; r < 2; r++) {
        pgen_rank_t g;
        cr_assert_eq(pgen_open(&g, dir, r, 2, 2000), 0);
        world_comms(&g, r, 2);
        ev(&g, 0, PLOG_CALL_MPI_Init, 1000, 2000, PLOG_NONE, 0)->comm = 0;
        for (size_t i = 0; i < n; i++) {
            plog_event_t *e = ev(&g, 0, PLOG_CALL_MPI_Allreduce, 3000 + 1000 * i,
                                 3500 + 1000 * i, PLOG_NONE, bytes[i]);
            e->rbytes = bytes[i];
            e->flags |= PLOG_F_COLLINFO;
            uint64_t w[2] = {8 | 8ull << 32, PLOG_OP_SUM | PLOG_OP_COMMUTATIVE};
            pgen_extra(&g, 0, w, 2);
        }
        ev(&g, 0, PLOG_CALL_MPI_Finalize, 10000, 11000, PLOG_NONE, 0)->comm = 0;
        cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    }
    plog_run_t *run = NULL;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    recon_t *rc = recon_new(run, RECON_LIB_OMPI41);
    cr_assert_not_null(rc);
    pcs_sched_t s = PCS_SCHED_INIT;
    plog_iter_t *it = NULL;
    cr_assert_eq(plog_iter_open(run, 1, &it, &err), PLOG_OK, "%s", err.msg);
    const plog_rec_t *e;
    size_t k = 0;
    while (plog_iter_next(it, &e, &err) == PLOG_OK && e != NULL) {
        if (e->call != PLOG_CALL_MPI_Allreduce)
            continue;
        pcs_args_t a;
        pcs_choice_t ch;
        cr_assert_lt(k, n);
        recon_skip_t why = recon_event(rc, e, &a, &ch, &s);
        cr_assert_eq(why, want[k], "%llu bytes: %s, want %s", (unsigned long long)bytes[k],
                     recon_skip_name(why), recon_skip_name(want[k]));
        k++;
    }
    cr_assert_eq(k, n);
    plog_iter_close(it);
    pcs_sched_free(&s);
    recon_free(rc);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}


/* Runs of unsuccessful polls (PLOG_F_POLLS): a run counts its n calls and the time inside
 * them, never its span (between the polls the application ran): in the functions, the call
 * sites and the rank's MPI time. */
Test(report, runs_of_polls_count_every_call)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 2000), 0);
    world_comms(&g, 0, 1);
    ev(&g, 0, PLOG_CALL_MPI_Init, 1000, 2000, PLOG_NONE, 0)->comm = 0;
    ev(&g, 0, PLOG_CALL_MPI_Irecv, 3000, 3100, 0, 0)->request = 0xa0;
    plog_event_t *e = ev(&g, 0, PLOG_CALL_MPI_Test, 3200, 8200, PLOG_NONE, 0);
    e->comm = 0;
    e->request = 0xa0;
    e->callsite = 7;
    e->flags = PLOG_F_POLLS;
    const uint64_t w1[2] = {10, 1000};
    pgen_extra(&g, 0, w1, 2);
    e = ev(&g, 0, PLOG_CALL_MPI_Test, 8300, 8550, PLOG_NONE, 0);
    e->comm = 0;
    e->request = 0xa0;
    e->callsite = 7;
    e->flags = PLOG_F_FLAG_TRUE;
    status1(&g, 0, 0xa0, 0, 0, 0);
    e = ev(&g, 0, PLOG_CALL_MPI_Iprobe, 8600, 9600, PLOG_ANY_SOURCE, 0);
    e->flags = PLOG_F_POLLS;
    const uint64_t w2[2] = {4, 200};
    pgen_extra(&g, 0, w2, 2);
    ev(&g, 0, PLOG_CALL_MPI_Finalize, 10000, 11000, PLOG_NONE, 0)->comm = 0;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    rep_t rep;
    plog_run_t *run = compute(dir, &rep);
    const rep_stat_t *t = &rep.func[PLOG_CALL_MPI_Test];
    cr_assert_eq(t->count, 11, "every poll counted: %llu", (unsigned long long)t->count);
    cr_assert_eq(t->time_sum, 1250, "the time inside: %llu", (unsigned long long)t->time_sum);
    cr_assert_eq(t->time_min, 100, "a run's polls at its mean");
    cr_assert_eq(t->time_max, 250);
    const rep_stat_t *p = &rep.func[PLOG_CALL_MPI_Iprobe];
    cr_assert_eq(p->count, 4);
    cr_assert_eq(p->time_sum, 200);
    cr_assert_eq(p->time_min, 50);
    cr_assert_eq(p->time_max, 50);
    const rep_stat_t *site = rep_map_get(&rep.sites, (7ull << 16) | PLOG_CALL_MPI_Test);
    cr_assert_not_null(site);
    cr_assert_eq(site->count, 11);
    cr_assert_eq(site->time_sum, 1250);
    cr_assert_eq(rep.ranks[0].mpi_ns, 100 + 1000 + 250 + 200, "MPI time: %llu",
                 (unsigned long long)rep.ranks[0].mpi_ns);
    cr_assert_eq(rep.ranks[0].app_ns, 8000);
    cr_assert_eq(rep.ranks[0].events, 6, "the events, as the log holds them");
    rep_free(&rep);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}
