/* test_health.c: the passive samples of `phasor health` (analysis/health_samples.c) on a
 * synthetic log whose messages are worked out by hand, the windows and departures of
 * analysis/health.c on samples made here, and the regimes of a made-up series
 * (analysis/regimes.c). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "plog_calls.h"
#include "plog_reader.h"
#include "plog_testgen.h"
#include "regimes.h"
#include "synth_rng.h"

static plog_event_t *ev(pgen_rank_t *g, unsigned call, uint64_t t0, uint64_t t1, int32_t peer,
                        int32_t tag, uint64_t bytes)
{
    plog_event_t *e = pgen_call(g, call, t0, t1, peer, tag, bytes);
    cr_assert_not_null(e);
    return e;
}


static void comms(pgen_rank_t *g, int32_t rank)
{
    int32_t all[2] = {0, 1};
    cr_assert_eq(pgen_comm(g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, all, 2, NULL, 0), 0);
    cr_assert_eq(pgen_comm(g, 2, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &rank, 1, NULL, 0), 0);
    cr_assert_eq(pgen_flush_comms(g), 0);
}

/* Rank 0 sends, rank 1 receives:
 *   tag 5  Send at 1500; Recv [1000, 3000]: waiting already          -> 1500 ns, kept
 *   tag 6  Isend at 4100; Irecv at 4000, Wait [5000, 5200]: not yet waiting -> late
 *   tag 7  Send at 6100; Irecv(ANY_SOURCE) at 6000, Wait [6050, 6500]  -> 400 ns, kept
 *   tag 8  Sends at 7000 (10 B) and 7100 (20 B); Recv [6900, 7500] takes the first
 *          (500 ns, 10 B, kept), Recv [7600, 7800] the second (late)
 *   tag 9  Send at 8000, never received                                -> unmatched */
static char *gen_pair(void)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 2, 500), 0);
    comms(&g, 0);
    ev(&g, PLOG_CALL_MPI_Init, 100, 500, PLOG_NONE, PLOG_NONE, 0)->comm = 0;
    ev(&g, PLOG_CALL_MPI_Send, 1500, 1600, 1, 5, 100);
    ev(&g, PLOG_CALL_MPI_Isend, 4100, 4150, 1, 6, 64)->request = 0xa0;
    plog_event_t *e = ev(&g, PLOG_CALL_MPI_Wait, 4200, 4300, PLOG_NONE, PLOG_NONE, 0);
    e->comm = 0;
    e->request = 0xa0;
    pgen_status1(&g, 0xa0, PLOG_NONE, PLOG_NONE, PLOG_BYTES_UNKNOWN);
    ev(&g, PLOG_CALL_MPI_Send, 6100, 6200, 1, 7, 8);
    ev(&g, PLOG_CALL_MPI_Send, 7000, 7050, 1, 8, 10);
    ev(&g, PLOG_CALL_MPI_Send, 7100, 7150, 1, 8, 20);
    ev(&g, PLOG_CALL_MPI_Send, 8000, 8050, 1, 9, 30);
    ev(&g, PLOG_CALL_MPI_Finalize, 9000, 9100, PLOG_NONE, PLOG_NONE, 0)->comm = 0;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);

    cr_assert_eq(pgen_open(&g, dir, 1, 2, 500), 0);
    comms(&g, 1);
    ev(&g, PLOG_CALL_MPI_Init, 100, 500, PLOG_NONE, PLOG_NONE, 0)->comm = 0;
    ev(&g, PLOG_CALL_MPI_Recv, 1000, 3000, 0, 5, 0)->rbytes = 100;
    pgen_status1(&g, 0, 0, 5, 100);
    e = ev(&g, PLOG_CALL_MPI_Irecv, 4000, 4010, 0, 6, 0);
    e->rbytes = 64;
    e->request = 0xc0;
    e = ev(&g, PLOG_CALL_MPI_Wait, 5000, 5200, PLOG_NONE, PLOG_NONE, 0);
    e->comm = 0;
    e->request = 0xc0;
    pgen_status1(&g, 0xc0, 0, 6, 64);
    e = ev(&g, PLOG_CALL_MPI_Irecv, 6000, 6010, PLOG_ANY_SOURCE, 7, 0);
    e->rbytes = 8;
    e->request = 0xc1;
    e = ev(&g, PLOG_CALL_MPI_Wait, 6050, 6500, PLOG_NONE, PLOG_NONE, 0);
    e->comm = 0;
    e->request = 0xc1;
    pgen_status1(&g, 0xc1, 0, 7, 8);
    ev(&g, PLOG_CALL_MPI_Recv, 6900, 7500, 0, 8, 0)->rbytes = 10;
    pgen_status1(&g, 0, 0, 8, 10);
    ev(&g, PLOG_CALL_MPI_Recv, 7600, 7800, 0, 8, 0)->rbytes = 20;
    pgen_status1(&g, 0, 0, 8, 20);
    ev(&g, PLOG_CALL_MPI_Finalize, 9000, 9100, PLOG_NONE, PLOG_NONE, 0)->comm = 0;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    return dir;
}

Test(health, messages_matched_by_hand)
{
    char *dir = gen_pair();
    plog_run_t *run = NULL;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    hl_samples_t s;
    cr_assert_eq(hl_collect(run, NULL, &s, &err), PLOG_OK, "%s", err.msg);
    cr_expect_eq(s.c.sends, 6);
    cr_expect_eq(s.c.recvs, 5);
    cr_expect_eq(s.c.matched, 5);
    cr_expect_eq(s.c.reliable, 3);
    cr_expect_eq(s.c.late_receiver, 2);
    cr_expect_eq(s.c.unmatched_sends, 1);
    cr_expect_eq(s.c.unmatched_recvs, 0);
    cr_assert_eq(s.n[HL_SRC_MESSAGES], 3);
    const hl_sample_t *m = s.s[HL_SRC_MESSAGES];
    /* by completion time: tag 5, tag 7, the first tag 8 */
    cr_expect_eq(m[0].dur_ns, 1500);
    cr_expect_eq(m[0].bytes, 100);
    cr_expect_eq(m[1].dur_ns, 400);
    cr_expect_eq(m[1].bytes, 8);
    cr_expect_eq(m[2].dur_ns, 500);
    cr_expect_eq(m[2].bytes, 10, "non-overtaking: the first receive takes the first send");
    for (int k = 0; k < 3; k++) {
        cr_expect_eq(m[k].src, 0);
        cr_expect_eq(m[k].dst, 1);
        cr_expect_eq(m[k].cls, 2 * hl_bucket(m[k].bytes), "one host: within");
    }
    cr_expect_eq(s.nhosts, 1);
    hl_samples_free(&s);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* Two ranks on two hosts, a message every 10 ms for 10 s, 100 us each but 300 us in
 * [4 s, 6 s): every link finds that span with windows of 0.5 s. */
static void slow_span_samples(hl_samples_t *s)
{
    memset(s, 0, sizeof(*s));
    s->world = 2;
    s->nhosts = 2;
    s->host = calloc(2, sizeof(int32_t));
    s->host[1] = 1;
    s->host_name = calloc(2, sizeof(char *));
    s->host_name[0] = strdup("a");
    s->host_name[1] = strdup("b");
    size_t n = 1000;
    s->s[HL_SRC_MESSAGES] = calloc(n, sizeof(hl_sample_t));
    s->n[HL_SRC_MESSAGES] = n;
    for (size_t i = 0; i < n; i++) {
        int64_t t = (int64_t)i * 10000000;
        int64_t d = t >= 4000000000 && t < 6000000000 ? 300000 : 100000 + (int64_t)(i % 7) * 1000;
        s->s[HL_SRC_MESSAGES][i] = (hl_sample_t){.t_ns = t, .dur_ns = d, .value = (double)d,
                                                 .bytes = 65536, .cls = 2 * hl_bucket(65536) + 1,
                                                 .src = (int32_t)(i % 2), .dst = (int32_t)(1 - i % 2)};
    }
    s->t_first = 0;
    s->t_last = (int64_t)(n - 1) * 10000000;
}

Test(health, finds_the_slow_span)
{
    hl_samples_t s;
    slow_span_samples(&s);
    hl_opts_t o = {.window_ns = 500000000};
    hl_health_t h;
    cr_assert_eq(hl_health(&s, &o, &h), 0);
    cr_expect_eq(h.window_ns[HL_SRC_MESSAGES], 500000000);
    cr_assert_eq(h.nlink, 3, "inter-host and the two hosts' links");
    cr_expect_str_eq(h.link[0].name, "inter-host");
    cr_expect_str_eq(h.link[1].name, "host a");
    cr_expect_str_eq(h.link[2].name, "host b");
    cr_assert_eq(h.nspan, 3);
    for (size_t k = 0; k < 3; k++) {
        cr_expect_eq(h.span[k].start_ns, 4000000000);
        cr_expect_eq(h.span[k].end_ns, 6000000000);
        cr_expect_eq(h.span[k].windows, 4);
        cr_expect(fabs(h.span[k].slowdown - 3.0) < 0.1, "slowdown %g", h.span[k].slowdown);
    }
    const hl_link_t *L = &h.link[0];
    cr_expect(fabs(L->best_bw_bps - 8.0 * 65536 / 100e-6) / (8.0 * 65536 / 100e-6) < 0.05);
    cr_expect(isnan(L->best_lat_s), "no small messages: no latency");
    /* a threshold above the slowdown: nothing departs */
    hl_health_free(&h);
    o.threshold = 3.5;
    cr_assert_eq(hl_health(&s, &o, &h), 0);
    cr_expect_eq(h.nspan, 0);
    hl_health_free(&h);
    hl_samples_free(&s);
}

Test(health, a_span_goes_on_through_an_empty_window)
{
    hl_samples_t s;
    slow_span_samples(&s);
    /* no sample in [5.0, 5.5) s: that window has no slowdown, and the span goes on */
    size_t k = 0;
    for (size_t i = 0; i < s.n[HL_SRC_MESSAGES]; i++) {
        int64_t t = s.s[HL_SRC_MESSAGES][i].t_ns;
        if (t < 5000000000 || t >= 5500000000)
            s.s[HL_SRC_MESSAGES][k++] = s.s[HL_SRC_MESSAGES][i];
    }
    s.n[HL_SRC_MESSAGES] = k;
    hl_opts_t o = {.window_ns = 500000000};
    hl_health_t h;
    cr_assert_eq(hl_health(&s, &o, &h), 0);
    cr_assert_eq(h.nspan, 3, "one span per link, not two");
    for (size_t j = 0; j < 3; j++) {
        cr_expect_eq(h.span[j].start_ns, 4000000000);
        cr_expect_eq(h.span[j].end_ns, 6000000000);
        cr_expect_eq(h.span[j].windows, 4);
        cr_expect(fabs(h.span[j].slowdown - 3.0) < 0.1);
    }
    /* but a window below the threshold ends it */
    hl_health_free(&h);
    for (size_t i = 0; i < s.n[HL_SRC_MESSAGES]; i++) {
        hl_sample_t *x = &s.s[HL_SRC_MESSAGES][i];
        if (x->t_ns >= 4500000000 && x->t_ns < 5000000000)
            x->value = (double)(x->dur_ns = 100000);
    }
    cr_assert_eq(hl_health(&s, &o, &h), 0);
    cr_expect_eq(h.nspan, 6, "two spans per link");
    hl_health_free(&h);
    hl_samples_free(&s);
}

Test(health, auto_window)
{
    /* 10^4 samples over 10 s: 100 a window on average needs 100 ms */
    cr_expect_eq(hl_auto_window(10000, 0, 10000000000), 100000000);
    cr_expect_eq(hl_auto_window(50, 0, 10000000000), 10000000000, "too few: one window");
    /* at most 2000 windows */
    cr_expect_eq(hl_auto_window(100000000, 0, 10000000000), 5000000);
    cr_expect_eq(hl_bucket(0), 0);
    cr_expect_eq(hl_bucket(1), 1);
    cr_expect_eq(hl_bucket(65536), 17);
}

Test(regimes, two_levels_switch_where_made)
{
    /* ln time: 1 ms for 600 samples, 3 ms for 300, 1 ms again: K = 2, switches at both edges */
    size_t n = 1500;
    int64_t *t = malloc(n * sizeof(int64_t));
    double *x = malloc(n * sizeof(double));
    uint64_t st = 7;
    for (size_t i = 0; i < n; i++) {
        t[i] = (int64_t)i * 1000000;
        double z = srng_gauss(&st); /* sd 0.05 below */
        x[i] = log(i >= 600 && i < 900 ? 3e-3 : 1e-3) + 0.05 * z;
    }
    rg_series_t s;
    memset(&s, 0, sizeof(s));
    rg_opts_t o = {.kmax = 4};
    char why[256];
    cr_assert_eq(rg_fit_values(&s, t, x, n, &o, why, sizeof(why)), 0, "%s", why);
    cr_expect_eq(s.k, 2);
    cr_assert_eq(s.nsw, 2);
    cr_expect_eq(s.sw[0].t_ns, 600000000);
    cr_expect_eq(s.sw[0].from, 0);
    cr_expect_eq(s.sw[0].to, 1);
    cr_expect_eq(s.sw[1].t_ns, 900000000);
    cr_expect(fabs(s.reg[0].mean_s - 1e-3) < 3e-5);
    cr_expect(fabs(s.reg[1].mean_s - 3e-3) < 1e-4);
    cr_expect(fabs(s.reg[1].share - 0.2) < 1e-9);
    cr_expect(isfinite(s.loglik[1]) && s.loglik[1] > s.loglik[0]);
    rg_series_free(&s);
    free(t);
    free(x);
}

Test(regimes, resolution_merges_close_regimes)
{
    /* persistent stretches at 1.00, 1.10 and 3.00 ms (sd 1 %): BIC keeps three; regimes less
     * than 25 % apart are one */
    size_t n = 3000;
    int64_t *t = malloc(n * sizeof(int64_t));
    double *x = malloc(n * sizeof(double));
    uint64_t st = 11;
    for (size_t i = 0; i < n; i++) {
        t[i] = (int64_t)i * 1000000;
        double z = srng_gauss(&st);
        size_t b = (i / 300) % 3;
        x[i] = log(b == 0 ? 1e-3 : b == 1 ? 1.1e-3 : 3e-3) + 0.01 * z;
    }
    char why[256];
    rg_series_t s;
    memset(&s, 0, sizeof(s));
    rg_opts_t o = {.kmax = 4, .resolution = 1};
    cr_assert_eq(rg_fit_values(&s, t, x, n, &o, why, sizeof(why)), 0, "%s", why);
    cr_expect_eq(s.k, 3, "BIC alone");
    cr_expect_eq(s.k_bic, 3);
    rg_series_free(&s);
    memset(&s, 0, sizeof(s));
    o.resolution = 0; /* the default, 1.25 */
    cr_assert_eq(rg_fit_values(&s, t, x, n, &o, why, sizeof(why)), 0, "%s", why);
    cr_expect_eq(s.k, 2);
    cr_expect_eq(s.k_bic, 3);
    cr_expect(fabs(s.reg[1].mean_s - 3e-3) < 1e-4);
    /* blocks of 300: 1.0, 1.1, 3.0, ... ten of them, three at 3 ms */
    cr_expect(fabs(s.reg[0].share - 0.7) < 1e-9, "shares %g %g, means %g %g", s.reg[0].share,
              s.reg[1].share, s.reg[0].mean_s, s.reg[1].mean_s);
    rg_series_free(&s);
    free(t);
    free(x);
}
