/* test_phases.c: the metrics of analysis/phases_*.c against the exact checks of science.md
 * section 4, phases rebuilt from synthetic logs with known iteration times, and the whole
 * study of `phasor phases` (phases_study.h) over such a log. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phases.h"
#include "phases_study.h"
#include "pstat.h"
#include "plog_calls.h"
#include "plog_reader.h"
#include "plog_testgen.h"
#include "phases_testlog.h"

#define TAU (2 * M_PI)

/* ---- analytic checks ---- */

Test(phases_metrics, equal_phases_give_R_one_also_2pi_apart)
{
    double th[6] = {0.7, 0.7, 0.7 + TAU, 0.7 - 2 * TAU, 0.7 + 5 * TAU, 0.7};
    double R, psi;
    ph_order(th, 6, &R, &psi);
    cr_assert_float_eq(R, 1.0, 1e-12);
    cr_assert_float_eq(psi, 0.7, 1e-12);
}

Test(phases_metrics, splay_state_gives_R_zero)
{
    for (int n = 2; n <= 64; n++) {
        double th[64];
        for (int k = 0; k < n; k++)
            th[k] = TAU * k / n + 3 * TAU * (k % 3); /* unwrapped: whole turns apart too */
        double R, psi;
        ph_order(th, (size_t)n, &R, &psi);
        cr_assert(R < 1e-12, "n=%d R=%g", n, R);
        cr_assert_eq(psi, 0.0); /* psi undefined at R = 0: reported as 0 */
    }
}

Test(phases_metrics, one_minus_R_squared_identity)
{
    uint64_t st = 12345;
    for (int trial = 0; trial < 50; trial++) {
        int n = 2 + (int)(pgen_rand(&st) % 40);
        double th[42];
        for (int k = 0; k < n; k++)
            th[k] = (double)(pgen_rand(&st) % 1000000) / 1000000.0 * 40 - 20;
        double R, psi, sum = 0;
        ph_order(th, (size_t)n, &R, &psi);
        for (int k = 0; k < n; k++)
            for (int j = k + 1; j < n; j++) {
                double s = sin((th[j] - th[k]) / 2);
                sum += s * s;
            }
        cr_assert_float_eq(4 * sum / ((double)n * n), 1 - R * R, 1e-12, "trial %d", trial);
    }
}

Test(phases_metrics, nan_phases_are_left_out_of_R)
{
    double th[4] = {1.0, NAN, 1.0, NAN};
    double R, psi;
    ph_order(th, 4, &R, &psi);
    cr_assert_float_eq(R, 1.0, 1e-12);
    double none[2] = {NAN, NAN};
    ph_order(none, 2, &R, &psi);
    cr_assert_eq(R, 0.0);
}

Test(phases_metrics, entropy_of_equal_bins_is_log_nb)
{
    /* 64 evenly spaced values over [-1, 1]: IQR = 1, h = 2 * 64^(-1/3) = 1/2, 4 bins of 16 */
    double th[64], scratch[64];
    for (int k = 0; k < 64; k++)
        th[k] = -1 + 2.0 * k / 63;
    uint32_t nb;
    double S = ph_entropy(th, 64, 0, scratch, &nb, PH_ENTROPY_FD);
    cr_assert_eq(nb, 4);
    cr_assert_float_eq(S, log(4.0), 1e-12);
    /* the same phases turned by psi and whole turns: wrapped around psi, same entropy */
    for (int k = 0; k < 64; k++)
        th[k] += 2.5 + TAU * (k % 5);
    S = ph_entropy(th, 64, 2.5, scratch, &nb, PH_ENTROPY_FD);
    cr_assert_eq(nb, 4);
    cr_assert_float_eq(S, log(4.0), 1e-9);
}

Test(phases_metrics, entropy_does_not_split_phases_at_the_cut)
{
    /* phases around pi, where wrapping to [-pi, pi) would cut the cluster in two: wrapped
     * around psi they keep their spread, and S is that of the same spread around 0 */
    double th[5] = {M_PI - 1e-3, M_PI + 1e-3, M_PI, 3 * M_PI + 2e-4, -M_PI - 5e-4}, scratch[5];
    double at0[5] = {-1e-3, 1e-3, 0, 2e-4, -5e-4};
    double R, psi, R0, psi0;
    ph_order(th, 5, &R, &psi);
    ph_order(at0, 5, &R0, &psi0);
    uint32_t nb, nb0;
    double S = ph_entropy(th, 5, psi, scratch, &nb, PH_ENTROPY_FD);
    double S0 = ph_entropy(at0, 5, psi0, scratch, &nb0, PH_ENTROPY_FD);
    cr_assert_eq(nb, nb0);
    cr_assert_float_eq(S, S0, 1e-12);
    /* exactly equal (whole turns apart): one bin, S = 0 */
    double same[5] = {M_PI, M_PI, M_PI, 3 * M_PI, -M_PI};
    ph_order(same, 5, &R, &psi);
    S = ph_entropy(same, 5, psi, scratch, &nb, PH_ENTROPY_FD);
    cr_assert_eq(nb, 1);
    cr_assert_eq(S, 0.0);
}

/* The default bins tile the circle (N_b = the number of phases, one centred on psi): jitter
 * narrower than a bin is S = 0, the splay state log N_b; the literal Freedman-Diaconis recipe
 * scales its bins to the spread and scores the same jitter high. */
Test(phases_metrics, entropy_on_the_circle)
{
    enum { N = 64 };
    double th[N], scratch[N], R, psi;
    uint32_t nb;
    uint64_t st = 7;
    for (int k = 0; k < N; k++) /* 1e-3 rad of jitter around 1.3, some whole turns apart */
        th[k] = 1.3 + ((double)(pgen_rand(&st) % 2001) - 1000) * 1e-6 + TAU * (k % 3);
    ph_order(th, N, &R, &psi);
    double S = ph_entropy(th, N, psi, scratch, &nb, PH_ENTROPY_CIRCLE);
    cr_assert_eq(nb, N);
    cr_assert_eq(S, 0.0, "S=%g", S);
    double Sfd = ph_entropy(th, N, psi, scratch, &nb, PH_ENTROPY_FD);
    cr_assert_gt(Sfd, 1.0, "the literal recipe scores jitter as disorder: S=%g", Sfd);
    for (int k = 0; k < N; k++) /* the splay state, turned */
        th[k] = 0.7 + TAU * k / N;
    ph_order(th, N, &R, &psi);
    cr_assert_lt(R, 1e-12);
    S = ph_entropy(th, N, psi, scratch, &nb, PH_ENTROPY_CIRCLE);
    cr_assert_float_eq(S, log((double)N), 1e-12);
    /* four phases at psi, two half a turn away (either side of the cut), NaNs skipped */
    double two[8] = {0.1, 0.1 + 1e-4, 0.1 - 1e-4, 0.1 + M_PI - 1e-4, NAN, 0.1, 0.1 + M_PI, NAN};
    ph_order(two, 8, &R, &psi);
    S = ph_entropy(two, 8, psi, scratch, &nb, PH_ENTROPY_CIRCLE);
    cr_assert_eq(nb, 6);
    cr_assert_float_eq(S, -(4.0 / 6) * log(4.0 / 6) - (2.0 / 6) * log(2.0 / 6), 1e-12);
    /* S falls as the phases gather: from the splay state to a cluster, never rising */
    double prev = INFINITY;
    for (double spread = TAU; spread > 1e-4; spread /= 2) {
        for (int k = 0; k < N; k++)
            th[k] = spread * k / N;
        ph_order(th, N, &R, &psi);
        S = ph_entropy(th, N, psi, scratch, &nb, PH_ENTROPY_CIRCLE);
        cr_assert_leq(S, prev + 1e-12, "spread %g: S=%g after %g", spread, S, prev);
        prev = S;
    }
    cr_assert_eq(prev, 0.0);
}

Test(phases_metrics, freedman_diaconis_edge_cases)
{
    ph_bins_t b;
    ph_fd_bins(NULL, 0, &b); /* no values: one bin */
    cr_assert_eq(b.n, 1);
    double one[1] = {3.0};
    ph_fd_bins(one, 1, &b);
    cr_assert_eq(b.n, 1);
    cr_assert_eq(ph_bin_of(&b, 3.0), 0);
    double same[7] = {2, 2, 2, 2, 2, 2, 2};
    ph_fd_bins(same, 7, &b); /* range 0: one bin */
    cr_assert_eq(b.n, 1);
    /* IQR = 0 with range 1: IQR floored at range / 10, h = 0.2 * 11^(-1/3) */
    double out[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    ph_fd_bins(out, 11, &b);
    cr_assert_eq(b.n, (uint32_t)ceil(1 / (0.2 * pow(11, -1.0 / 3))));
    cr_assert_eq(ph_bin_of(&b, 1.0), b.n - 1); /* the maximum is in the last bin */
    cr_assert_eq(ph_bin_of(&b, 0.0), 0);
    /* quantiles by linear interpolation */
    double q[4] = {1, 2, 3, 4};
    cr_assert_float_eq(pstat_quantile(q, 4, 0.25), 1.75, 1e-15);
    cr_assert_float_eq(pstat_quantile(q, 4, 0.75), 3.25, 1e-15);
    /* a huge range with a tiny IQR is capped */
    double wide[1000];
    for (int k = 0; k < 1000; k++)
        wide[k] = k == 999 ? 1e12 : (double)k * 1e-9;
    ph_fd_bins(wide, 1000, &b);
    cr_assert_leq(b.n, PH_MAX_BINS);
}

Test(phases_metrics, entropy_bounds)
{
    uint64_t st = 99;
    double th[300], scratch[300];
    for (int k = 0; k < 300; k++)
        th[k] = (double)(pgen_rand(&st) % 100000) / 100000.0 * 100;
    double R, psi;
    ph_order(th, 300, &R, &psi);
    uint32_t nb;
    double S = ph_entropy(th, 300, psi, scratch, &nb, PH_ENTROPY_FD);
    cr_assert(S >= 0 && S <= log((double)nb) + 1e-12, "S=%g nb=%u", S, nb);
}

static ph_topo_t chain(int32_t n) /* i receives from i - 1 */
{
    int32_t pairs[64];
    for (int32_t i = 1; i < n; i++) {
        pairs[2 * (i - 1)] = i;
        pairs[2 * (i - 1) + 1] = i - 1;
    }
    ph_topo_t t;
    cr_assert_eq(ph_topo_from_pairs(n, pairs, (size_t)(n - 1), &t), 0);
    return t;
}

Test(phases_metrics, gradient_and_energy)
{
    ph_topo_t t = chain(4);
    double th[4] = {0, 1, 3, 2.5};
    double ga[4], gs[4];
    ph_gradient(th, &t, ga, gs);
    cr_assert_eq(ga[0], 0.0);
    cr_assert_float_eq(ga[1], 1.0, 1e-15);  /* |0 - 1| */
    cr_assert_float_eq(gs[1], -1.0, 1e-15); /* 0 - 1 */
    cr_assert_float_eq(ga[2], 2.0, 1e-15);
    cr_assert_float_eq(gs[3], 0.5, 1e-15);
    ph_potential_t p;
    cr_assert_eq(osc_pot_parse("tanh:2", &p), 0);
    double E = ph_energy(th, &t, &p);
    double want = pow(tanh(-2.0), 2) + pow(tanh(-4.0), 2) + pow(tanh(1.0), 2);
    cr_assert_float_eq(E, want, 1e-12);
    /* synchronised: no gradient, no energy */
    double sync[4] = {5, 5, 5, 5};
    ph_gradient(sync, &t, ga, gs);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(ga[i], 0.0);
    cr_assert_eq(ph_energy(sync, &t, &p), 0.0);
    ph_topo_t all;
    cr_assert_eq(ph_topo_all(4, &all), 0);
    cr_assert_eq(all.nnz, 12);
    cr_assert(ph_topo_has(&all, 2, 3) && !ph_topo_has(&all, 2, 2));
    int32_t bad[2] = {1, 1};
    ph_topo_t tb;
    cr_assert_eq(ph_topo_from_pairs(4, bad, 1, &tb), -1);
    ph_topo_free(&all);
    ph_topo_free(&t);
}

Test(phases_metrics, potentials)
{
    ph_potential_t p;
    cr_assert_eq(osc_pot_parse("sin", &p), 0);
    cr_assert_float_eq(osc_pot_eval(&p, 0.3), sin(0.3), 1e-15);
    cr_assert_eq(osc_pot_parse("piecewise", &p), 0);
    cr_assert_float_eq(p.sigma, M_PI, 1e-15);
    cr_assert_float_eq(osc_pot_eval(&p, 1.0), -sin(1.5), 1e-15); /* -sin(1.5 x), sigma = pi */
    cr_assert_eq(osc_pot_eval(&p, 4.0), 1.0);
    cr_assert_eq(osc_pot_eval(&p, -4.0), -1.0);
    cr_assert_eq(osc_pot_parse("fourier:0.5,0.25,3", &p), 0);
    cr_assert_float_eq(osc_pot_eval(&p, 0.4), sin(0.4) - 0.5 * sin(1.2) + 0.25 * sin(2.4),
                       1e-15);
    cr_assert_eq(osc_pot_parse("tanh:0", &p), -1);
    cr_assert_eq(osc_pot_parse("piecewise:x", &p), -1);
    cr_assert_eq(osc_pot_parse("fourier:1,2", &p), -1);
    cr_assert_eq(osc_pot_parse("cos", &p), -1);
    cr_assert_float_eq(ph_wrap_pi(M_PI), -M_PI, 1e-15);
    cr_assert_float_eq(ph_wrap_pi(-M_PI), -M_PI, 1e-15);
    cr_assert_float_eq(ph_wrap_pi(7 * M_PI / 2), -M_PI / 2, 1e-12);
}

Test(phases_metrics, resync_excursions)
{
    ph_resync_t r;
    ph_resync_init(&r, 0.9);
    double R[] = {1, 0.95, 0.5, 0.3, 0.6, 0.92, 1, 0.8, 0.85};
    for (int i = 0; i < 9; i++)
        cr_assert_eq(ph_resync_add(&r, 100 * i, R[i]), 0);
    ph_resync_finish(&r, 800);
    cr_assert_eq(r.n, 2);
    cr_assert_eq(r.v[0].start_ns, 200);
    cr_assert_eq(r.v[0].min_ns, 300);
    cr_assert_float_eq(r.v[0].r_min, 0.3, 1e-15);
    cr_assert_eq(r.v[0].end_ns, 500);
    cr_assert(r.v[0].recovered && r.v[0].preceded);
    cr_assert_eq(r.v[1].start_ns, 700);
    cr_assert(!r.v[1].recovered);
    ph_resync_free(&r);
    /* low from the start: not preceded by a synchronised state */
    ph_resync_init(&r, 0.9);
    ph_resync_add(&r, 0, 0.2);
    ph_resync_add(&r, 10, 0.95);
    ph_resync_finish(&r, 10);
    cr_assert_eq(r.n, 1);
    cr_assert(!r.v[0].preceded && r.v[0].recovered);
    ph_resync_free(&r);
}

Test(phases_period, finds_period_after_setup_and_the_anchors)
{
    /* set-up 7 calls, then A B C B D repeated: period 5, once per period: A, C, D */
    uint64_t s[7 + 5 * 40];
    size_t n = 0;
    for (int k = 0; k < 7; k++)
        s[n++] = 100 + (uint64_t)k;
    for (int it = 0; it < 40; it++) {
        s[n++] = 1;
        s[n++] = 2;
        s[n++] = 3;
        s[n++] = 2;
        s[n++] = 4;
    }
    uint64_t anc[8];
    size_t na;
    cr_assert_eq(ph_detect_period(s, n, anc, 8, &na), 5);
    cr_assert_eq(na, 3);
    cr_assert_eq(anc[0], 1);
    cr_assert_eq(anc[1], 3);
    cr_assert_eq(anc[2], 4);
}

Test(phases_period, no_period_in_noise_or_short_sequences)
{
    uint64_t st = 7, s[500];
    for (int k = 0; k < 500; k++)
        s[k] = pgen_rand(&st) % 50;
    size_t na;
    uint64_t anc[4];
    cr_assert_eq(ph_detect_period(s, 500, anc, 4, &na), 0);
    cr_assert_eq(na, 0);
    uint64_t two[4] = {1, 2, 1, 2};
    cr_assert_eq(ph_detect_period(two, 4, NULL, 0, NULL), 0); /* fewer than 3 periods */
    uint64_t three[6] = {1, 2, 1, 2, 1, 2};
    cr_assert_eq(ph_detect_period(three, 6, NULL, 0, NULL), 2);
}

Test(phases_period, tolerates_rare_deviations)
{
    uint64_t s[400];
    for (int k = 0; k < 400; k++)
        s[k] = (uint64_t)(k % 4) + 1;
    s[123] = 99; /* one odd call */
    cr_assert_eq(ph_detect_period(s, 400, NULL, 0, NULL), 4);
}

/* ---- synthetic logs ---- */

typedef ptl_mark_fn mark_fn;

#define T0_TRUE PTL_T0_TRUE

static char *write_log(int32_t P, uint32_t nb, mark_fn mark, const int64_t *clk, int pcontrol)
{
    char *dir = pgen_tmpdir();
    cr_assert_not_null(dir);
    cr_assert_eq(ptl_write_log(dir, P, nb, mark, clk, pcontrol), 0, "writing the log in %s", dir);
    return dir;
}

#define PERIOD 100000
static const int64_t offsets[4] = {0, 25000, 50000, 62500};

static int64_t const_marks(int32_t r, uint32_t k)
{
    return T0_TRUE + 2000 + offsets[r] + (int64_t)k * PERIOD;
}

Test(phases_log, constant_periods_and_offsets_rebuilt_exactly)
{
    int64_t clk[4] = {0, 123456, -98765, 777};
    char *dir = write_log(4, 50, const_marks, clk, 1);
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    ph_mark_spec_t sp = {.mode = PH_MARK_AUTO, .level = PH_ANY_LEVEL, .every = 1};
    ph_marks_t m;
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(m.used.mode, PH_MARK_PCONTROL);
    for (int32_t r = 0; r < 4; r++) {
        cr_assert_eq(m.n[r], 50);
        for (uint32_t k = 0; k < 50; k++) /* clock-aligned, relative to rank 0's Init */
            cr_assert_eq(m.t[r][k], const_marks(r, k) - T0_TRUE, "rank %d k %u", r, k);
    }
    cr_assert_float_eq(ph_median_period(&m), PERIOD, 1e-9);
    ph_grid_t g;
    cr_assert_eq(ph_grid_make(&m, 0, 100000, &g), 0);
    cr_assert_eq(g.t0, const_marks(3, 0) - T0_TRUE); /* the latest first boundary */
    cr_assert_eq(g.dt, PERIOD / 4);
    cr_assert_eq(g.t0 + (int64_t)(g.n - 1) * g.dt <= const_marks(0, 49) - T0_TRUE, 1);
    ph_cursor_t c[4];
    for (int32_t r = 0; r < 4; r++)
        ph_cursor_init(&c[r], &m, r);
    for (size_t i = 0; i < g.n; i++) {
        int64_t t = g.t0 + (int64_t)i * g.dt;
        double th[4];
        for (int32_t r = 0; r < 4; r++) {
            th[r] = ph_cursor_phase(&c[r], t);
            double want = TAU * (double)(t - (const_marks(r, 0) - T0_TRUE)) / PERIOD;
            cr_assert_float_eq(th[r], want, 1e-9, "rank %d t %lld", r, (long long)t);
            cr_assert_float_eq(ph_phase_at(m.t[r], m.n[r], t), th[r], 1e-12);
        }
        /* offsets of 0, 1/4, 1/2, 5/8 of a period: R is constant */
        double R, psi;
        ph_order(th, 4, &R, &psi);
        double cx = 0, sy = 0;
        for (int r = 0; r < 4; r++) {
            cx += cos(-TAU * offsets[r] / PERIOD);
            sy += sin(-TAU * offsets[r] / PERIOD);
        }
        cr_assert_float_eq(R, hypot(cx, sy) / 4, 1e-9);
    }
    cr_assert(isnan(ph_phase_at(m.t[0], m.n[0], -5)));
    ph_timeline_t tl;
    cr_assert_eq(ph_timeline_init(&tl, &m, NULL, &g), 0);
    for (size_t i = 0; i < g.n; i += 7) {
        double th[4];
        ph_timeline_at(&tl, i, th);
        for (int32_t r = 0; r < 4; r++)
            cr_assert_float_eq(th[r], ph_phase_at(m.t[r], m.n[r], g.t0 + (int64_t)i * g.dt), 1e-12);
    }
    ph_timeline_free(&tl);
    /* the topology: who received from whom */
    ph_topo_t t;
    cr_assert_eq(ph_topo_from_log(run, &t, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(t.nnz, 3);
    for (int32_t i = 1; i < 4; i++)
        cr_assert(ph_topo_has(&t, i, i - 1));
    cr_assert(!ph_topo_has(&t, 0, 1));
    ph_topo_free(&t);
    /* level filter: no Pcontrol of level 3 */
    ph_marks_free(&m);
    sp.mode = PH_MARK_PCONTROL;
    sp.level = 3;
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_OK);
    cr_assert_eq(m.n[0], 0);
    cr_assert_eq(ph_grid_make(&m, 0, 1000, &g), -1);
    ph_marks_free(&m);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(phases_log, detected_period_numbers_ranks_alike)
{
    char *dir = write_log(4, 40, const_marks, NULL, 0);
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    ph_mark_spec_t sp = {.mode = PH_MARK_AUTO, .level = PH_ANY_LEVEL, .every = 1};
    ph_marks_t m;
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(m.used.mode, PH_MARK_PERIOD);
    /* the Barrier is the only call every rank makes once per iteration */
    cr_assert_eq(m.used.call, PLOG_CALL_MPI_Barrier);
    cr_assert_eq(m.used.callsite, 0x54);
    for (int32_t r = 0; r < 4; r++) {
        cr_assert_eq(m.n[r], 39, "rank %d: %u", r, m.n[r]);
        for (uint32_t k = 0; k < m.n[r]; k++)
            cr_assert_eq(m.t[r][k], const_marks(r, k) + 600 - T0_TRUE);
    }
    ph_marks_free(&m);
    /* a chosen call, every 2nd after skipping 3 */
    sp = (ph_mark_spec_t){.mode = PH_MARK_CALL, .call = PLOG_CALL_MPI_Barrier, .every = 2,
                          .skip = 3, .use_end = 1};
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_OK);
    cr_assert_eq(m.n[2], 18);
    cr_assert_eq(m.t[2][0], const_marks(2, 3) + 700 - T0_TRUE);
    cr_assert_eq(m.t[2][1], const_marks(2, 5) + 700 - T0_TRUE);
    ph_marks_free(&m);
    /* a call site no event has */
    sp = (ph_mark_spec_t){.mode = PH_MARK_CALL, .call = PLOG_CALL_MPI_Barrier, .callsite = 0x99,
                          .every = 1};
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_OK);
    cr_assert_eq(m.n[0], 0);
    ph_marks_free(&m);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* a one-off delay D on rank 0 at iteration K0, reaching rank r one iteration later per rank */
#define K0 10
#define DELAY 300000
static int64_t wave_marks(int32_t r, uint32_t k)
{
    return T0_TRUE + 2000 + (int64_t)k * PERIOD + (k > (uint32_t)(K0 + r) ? DELAY : 0);
}

Test(phases_log, propagating_delay_speed_and_resync)
{
    char *dir = write_log(8, 40, wave_marks, NULL, 1);
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    ph_mark_spec_t sp = {.mode = PH_MARK_PCONTROL, .level = 7, .every = 1};
    ph_marks_t m;
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_OK, "%s", err.msg);
    for (int32_t r = 0; r < 8; r++)
        for (uint32_t k = 0; k < 40; k++)
            cr_assert_eq(m.t[r][k], wave_marks(r, k) - T0_TRUE);
    ph_wave_t w;
    cr_assert_eq(ph_wave_find(&m, NULL, 0.5, &w), 0);
    cr_assert(w.found);
    cr_assert(!w.directed);
    cr_assert_eq(w.source, 0);
    cr_assert_eq(w.source_iter, K0);
    cr_assert_float_eq(w.source_excess_ns, DELAY, 1e-9);
    cr_assert_eq(w.reached, 8);
    for (int32_t r = 0; r < 8; r++) {
        cr_assert_eq(w.arrival_iter[r], K0 + r);
        cr_assert_eq(w.distance[r], r);
        cr_assert_float_eq(w.idle_ns[r], DELAY, 1e-9);
    }
    cr_assert_float_eq(w.ranks_per_iter, 1.0, 1e-9);
    cr_assert_float_eq(w.ranks_per_s, 1e9 / PERIOD, 1e-6);
    /* the delay passes undamped: no decay, the wave runs to the end */
    cr_assert_eq(w.reach_hops, 7);
    cr_assert_eq(w.extent_hops, 7);
    cr_assert_float_eq(w.decay_ns_per_hop, 0, 1e-6);
    cr_assert_float_eq(w.decay_per_hop, 0, 1e-12);
    ph_wave_free(&w);
    /* with the compute time per iteration: the delayed iterations are compute (MPI takes
     * 300-400 ns of each iteration here), the source the same */
    ph_topo_t tp;
    cr_assert_eq(ph_marks_compute(run, &m, &tp, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(tp.nnz, 7); /* the chain, as ph_topo_from_log gives it */
    for (int32_t i = 1; i < 8; i++)
        cr_assert(ph_topo_has(&tp, i, i - 1));
    cr_assert_float_eq(m.comp[3][0], PERIOD - 400, 1e-9);       /* Recv + Send + Barrier */
    cr_assert_float_eq(m.comp[0][K0], PERIOD + DELAY - 200, 1e-9); /* Send + Barrier */
    cr_assert_eq(ph_wave_find(&m, &tp, 0.5, &w), 0);
    cr_assert(w.found && w.source == 0 && w.source_iter == K0);
    cr_assert(w.directed);
    for (int32_t r = 0; r < 8; r++)
        cr_assert_eq(w.distance[r], r);
    cr_assert_float_eq(w.ranks_per_iter, 1.0, 1e-9);
    ph_wave_free(&w);
    ph_topo_free(&tp);
    /* R: 1 before, lower while the delay travels, 1 again once every rank took it */
    ph_grid_t g;
    cr_assert_eq(ph_grid_make(&m, 10000, 100000, &g), 0);
    ph_cursor_t c[8];
    for (int32_t r = 0; r < 8; r++)
        ph_cursor_init(&c[r], &m, r);
    ph_resync_t rs;
    ph_resync_init(&rs, 0.99);
    double rmin = 2;
    for (size_t i = 0; i < g.n; i++) {
        int64_t t = g.t0 + (int64_t)i * g.dt;
        double th[8], R, psi;
        for (int32_t r = 0; r < 8; r++)
            th[r] = ph_cursor_phase(&c[r], t);
        ph_order(th, 8, &R, &psi);
        if (R < rmin)
            rmin = R;
        ph_resync_add(&rs, t, R);
    }
    ph_resync_finish(&rs, g.t0 + (int64_t)(g.n - 1) * g.dt);
    cr_assert_eq(rs.n, 1);
    cr_assert(rs.v[0].recovered && rs.v[0].preceded);
    /* the delay starts inside iteration K0 of rank 0 and is absorbed by rank 7's */
    int64_t a = wave_marks(0, K0) - T0_TRUE, b = wave_marks(7, K0 + 8) - T0_TRUE;
    cr_assert(rs.v[0].start_ns > a && rs.v[0].start_ns < a + PERIOD + DELAY);
    cr_assert(rs.v[0].end_ns <= b && rs.v[0].end_ns > b - PERIOD - DELAY,
              "end %lld, b %lld", (long long)rs.v[0].end_ns, (long long)b);
    cr_assert(rmin < 0.9, "R min %g", rmin);
    ph_resync_free(&rs);
    ph_marks_free(&m);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

/* a ring of 8 (rank r receives from r - 1 mod 8), the delay made on rank 5: it runs round
 * once, one rank per iteration, rank 4 last (seven hops, not one) */
#define RSRC 5
static int64_t ring_marks(int32_t r, uint32_t k)
{
    int32_t d = (r - RSRC + 8) % 8;
    return T0_TRUE + 2000 + (int64_t)k * PERIOD + (k > (uint32_t)(K0 + d) ? DELAY : 0);
}

/* the same ring with messages both ways and the delay on rank 0: it runs both ways round and
 * ends at rank 4, four hops away */
static int64_t ring_bi_marks(int32_t r, uint32_t k)
{
    int32_t d = r < 8 - r ? r : 8 - r;
    return T0_TRUE + 2000 + (int64_t)k * PERIOD + (k > (uint32_t)(K0 + d) ? DELAY : 0);
}

static void ring_case(mark_fn mark, int flags, int32_t src, const int32_t *want_dist)
{
    char *dir = pgen_tmpdir();
    cr_assert_not_null(dir);
    cr_assert_eq(ptl_write_log_topo(dir, 8, 40, mark, NULL, 1, flags), 0);
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    ph_mark_spec_t sp = {.mode = PH_MARK_PCONTROL, .level = 7, .every = 1};
    ph_marks_t m;
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_OK, "%s", err.msg);
    ph_topo_t tp;
    cr_assert_eq(ph_marks_compute(run, &m, &tp, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(tp.nnz, flags & PTL_BIDIR ? 16u : 8u);
    cr_assert(ph_topo_has(&tp, 0, 7)); /* the wrap-around edge, as seen in the log */
    ph_wave_t w;
    cr_assert_eq(ph_wave_find(&m, &tp, 0.5, &w), 0);
    cr_assert(w.found && w.directed);
    cr_assert_eq(w.source, src);
    cr_assert_eq(w.source_iter, K0);
    cr_assert_eq(w.reached, 8);
    for (int32_t r = 0; r < 8; r++) {
        cr_assert_eq(w.distance[r], want_dist[r], "rank %d: distance %d, want %d", (int)r,
                     (int)w.distance[r], (int)want_dist[r]);
        cr_assert_eq(w.arrival_iter[r], K0 + want_dist[r]);
    }
    cr_assert_float_eq(w.ranks_per_iter, 1.0, 1e-9);
    cr_assert_float_eq(w.ranks_per_s, 1e9 / PERIOD, 1e-6);
    int32_t far = 0;
    for (int32_t r = 0; r < 8; r++)
        far = want_dist[r] > far ? want_dist[r] : far;
    cr_assert_eq(w.reach_hops, far);
    cr_assert_eq(w.extent_hops, far);
    ph_wave_free(&w);
    /* |rank - source| would put the far side of the ring next to the source: there the wave
     * arrives late, so by index distance it is not the wave (and no speed of 1 comes out) */
    cr_assert_eq(ph_wave_find(&m, NULL, 0.5, &w), 0);
    cr_assert(!w.directed);
    cr_assert_lt(w.reached, 8);
    ph_wave_free(&w);
    ph_topo_free(&tp);
    ph_marks_free(&m);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(phases_log, wave_distance_follows_a_periodic_topology)
{
    int32_t uni[8], bi[8];
    for (int32_t r = 0; r < 8; r++) {
        uni[r] = (r - RSRC + 8) % 8;
        bi[r] = r < 8 - r ? r : 8 - r;
    }
    ring_case(ring_marks, PTL_PERIODIC, RSRC, uni);
    ring_case(ring_bi_marks, PTL_PERIODIC | PTL_BIDIR, 0, bi);
}

Test(phases_topo, hop_distance_directed_undirected_and_fallback)
{
    /* 0 -> 1 -> 2 -> 3 (i receives from i - 1) and 4 receives from 3; 5 is alone */
    int32_t pairs[] = {1, 0, 2, 1, 3, 2, 4, 3};
    ph_topo_t t;
    cr_assert_eq(ph_topo_from_pairs(6, pairs, 4, &t), 0);
    int32_t d[6];
    cr_assert_eq(ph_hop_distance(&t, 2, d), 0);
    /* downstream along the messages, upstream (against them) by the undirected distance */
    int32_t want[6] = {2, 1, 0, 1, 2, -1};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(d[i], want[i], "rank %d: %d", i, d[i]);
    cr_assert_eq(ph_hop_distance(&t, 6, d), -1);
    ph_topo_free(&t);
    ph_topo_t none = {.n = 6};
    cr_assert_eq(ph_hop_distance(&none, 4, d), 0);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(d[i], i > 4 ? i - 4 : 4 - i);
}

/* a wave that loses DECAY of its idle period at every rank (noise absorbing it): it dies where
 * the idle period falls to half the delay */
#define DECAY 30000
static int64_t decay_marks(int32_t r, uint32_t k)
{
    return T0_TRUE + 2000 + (int64_t)k * PERIOD +
           (k > (uint32_t)(K0 + r) ? DELAY - (int64_t)r * DECAY : 0);
}

Test(phases_log, wave_decay_and_survival_distance)
{
    char *dir = write_log(8, 40, decay_marks, NULL, 1);
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    ph_mark_spec_t sp = {.mode = PH_MARK_PCONTROL, .level = 7, .every = 1};
    ph_marks_t m;
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_OK, "%s", err.msg);
    ph_topo_t tp;
    cr_assert_eq(ph_marks_compute(run, &m, &tp, &err), PLOG_OK, "%s", err.msg);
    ph_wave_t w;
    cr_assert_eq(ph_wave_find(&m, &tp, 0.5, &w), 0);
    cr_assert(w.found && w.source == 0);
    /* idle DELAY - r DECAY > DELAY / 2 up to r = 4 */
    cr_assert_eq(w.reached, 5);
    cr_assert_eq(w.reach_hops, 4);
    cr_assert_eq(w.extent_hops, 7);
    for (int32_t r = 1; r < 8; r++) {
        if (r <= 4)
            cr_assert_float_eq(w.idle_ns[r], DELAY - r * DECAY, 1e-6);
        else
            cr_assert(isnan(w.idle_ns[r]) && w.arrival_iter[r] == -1);
    }
    cr_assert_float_eq(w.decay_ns_per_hop, DECAY, 1e-6);
    cr_assert_float_eq(w.decay_per_hop, (double)DECAY / (DELAY - DECAY), 1e-9);
    /* the source given: the same wave; a rank and iteration without a delay, or past the
     * run, give none */
    ph_wave_free(&w);
    cr_assert_eq(ph_wave_find_at(&m, &tp, 0.5, 0, K0, &w), 0);
    cr_assert(w.found && w.source == 0 && w.source_iter == K0 && w.reach_hops == 4);
    ph_wave_free(&w);
    cr_assert_eq(ph_wave_find_at(&m, &tp, 0.5, 3, 2, &w), 0);
    cr_assert(!w.found);
    ph_wave_free(&w);
    cr_assert_eq(ph_wave_find_at(&m, &tp, 0.5, 0, 39, &w), 0);
    cr_assert(!w.found);
    /* a lower bar follows it farther, with the same decay */
    ph_wave_free(&w);
    cr_assert_eq(ph_wave_find(&m, &tp, 0.2, &w), 0);
    cr_assert_eq(w.reach_hops, 7);
    cr_assert_float_eq(w.decay_ns_per_hop, DECAY, 1e-6);
    ph_wave_free(&w);
    ph_topo_free(&tp);
    ph_marks_free(&m);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(phases_metrics, recovery_relative_to_the_own_baseline)
{
    /* R jitters around 0.8 (never reaching a fixed 0.95), drops to 0.2 at 40..59, back after */
    double R[100];
    for (int i = 0; i < 100; i++)
        R[i] = i >= 40 && i < 60 ? 0.2 : (i % 2 ? 0.85 : 0.75);
    ph_grid_t g = {.t0 = 0, .dt = 1, .n = 100};
    ph_recovery_t rc;
    cr_assert_eq(ph_recovery_find(R, &g, 40, 4, 0.9, &rc), 0);
    cr_assert(rc.found && rc.recovered);
    cr_assert_eq(rc.n_base, 40u);
    cr_assert_float_eq(rc.r_base, 0.8, 1e-12);
    cr_assert_float_eq(rc.r_base_sd, 0.05, 1e-9);
    cr_assert_float_eq(rc.r_min, 0.2, 1e-12);
    cr_assert_eq(rc.t_min, 42);          /* the first window (+-2 points) all in the drop */
    cr_assert_float_eq(rc.r_target, 0.2 + 0.9 * 0.6, 1e-12);
    cr_assert_eq(rc.t_back, 62);         /* at 61 the window still holds 59 */
    cr_assert_float_eq(rc.r_tail, (13 * 0.85 + 12 * 0.75) / 25, 1e-12);
    /* a smaller fraction recovers earlier */
    cr_assert_eq(ph_recovery_find(R, &g, 40, 4, 0.5, &rc), 0);
    cr_assert_eq(rc.t_back, 60);         /* (2 x 0.2 + 0.75 + 0.85 + 0.75) / 5 >= 0.5 */
    /* no drop below the baseline, or too short a baseline: nothing found */
    for (int i = 0; i < 100; i++)
        R[i] = 0.8;
    cr_assert_eq(ph_recovery_find(R, &g, 40, 4, 0.9, &rc), 0);
    cr_assert(!rc.found && !rc.recovered && isnan(rc.r_min));
    R[50] = 0.1;
    cr_assert_eq(ph_recovery_find(R, &g, 3, 4, 0.9, &rc), 0);
    cr_assert(!rc.found);
    cr_assert_eq(ph_recovery_find(R, &g, 40, 4, 0.9, &rc), 0);
    cr_assert(rc.found && rc.recovered);
    cr_assert_float_eq(rc.r_min, 0.8 - 0.7 / 5, 1e-12);
    cr_assert_eq(rc.t_back, 53);
}

/* twin runs built in memory: the reference has noise, the perturbed run the same noise plus
 * a delay that reaches rank r at iteration 10 + r, losing DA per hop */
#define TW_K0 10
#define TW_D 15000000.0
#define TW_DA (TW_D / 40)
static int64_t tw_noise(int32_t r, uint32_t k)
{
    return (int64_t)((k * 2654435761u + (uint32_t)r * 40503u) % 3000000u);
}

Test(phases_metrics, twin_runs_isolate_the_delay)
{
    enum { P = 4, N = 30 };
    int64_t ta[P][N], tb[P][N];
    int64_t *pa[P], *pb[P];
    uint32_t na[P], nb[P];
    for (int32_t r = 0; r < P; r++) {
        for (uint32_t k = 0; k < N; k++) {
            tb[r][k] = 1000 + (int64_t)k * 30000000 + tw_noise(r, k) + 777 * r;
            ta[r][k] = tb[r][k] + 5000000 + (k > (uint32_t)(TW_K0 + r) ? (int64_t)(TW_D - r * TW_DA) : 0);
        }
        pa[r] = ta[r];
        pb[r] = tb[r];
        na[r] = nb[r] = N;
    }
    ph_marks_t a = {.nranks = P, .n = na, .t = pa}, b = {.nranks = P, .n = nb, .t = pb};
    int32_t dist[P] = {0, 1, 2, 3};
    ph_twin_t tw;
    cr_assert_eq(ph_twin_find(&a, &b, dist, 0, TW_K0, 0.9, &tw), 0);
    cr_assert(tw.found && tw.recovered);
    cr_assert_eq(tw.n, N);
    /* the noise cancels: nothing before the delay */
    for (uint32_t k = 0; k <= TW_K0; k++)
        cr_assert_float_eq(tw.spread_ns[k], 0, 1e-6);
    cr_assert_float_eq(tw.base_ns, 0, 1e-6);
    cr_assert_float_eq(tw.peak_ns, TW_D, 1e-6);
    cr_assert_eq(tw.k_peak, TW_K0 + 1);
    cr_assert_float_eq(tw.target_ns, 0.1 * TW_D, 1e-6);
    /* all ranks shifted from boundary 14 on: D = 3 DA <= 0.1 D */
    cr_assert_float_eq(tw.spread_ns[TW_K0 + 4], 3 * TW_DA, 1e-6);
    cr_assert_eq(tw.k_back, TW_K0 + 4);
    for (int32_t r = 0; r < P; r++)
        cr_assert_float_eq(tw.reach_ns[r], TW_D - r * TW_DA, 1e-6);
    cr_assert_float_eq(tw.source_reach_ns, TW_D, 1e-6);
    cr_assert_float_eq(tw.far_reach_ns, TW_D - 3 * TW_DA, 1e-6);
    cr_assert_eq(tw.survival_hops, 3);
    ph_twin_free(&tw);
    /* a stricter recovery: D must fall to 1 % of the peak, which 3 DA never does */
    cr_assert_eq(ph_twin_find(&a, &b, dist, 0, TW_K0, 0.99, &tw), 0);
    cr_assert(tw.found && !tw.recovered);
    ph_twin_free(&tw);
    /* a delay that halves per hop survives one hop at half the source's */
    for (int32_t r = 0; r < P; r++)
        for (uint32_t k = 0; k < N; k++)
            ta[r][k] = tb[r][k] + (k > (uint32_t)(TW_K0 + r) ? (int64_t)(TW_D / (1 << r)) : 0);
    cr_assert_eq(ph_twin_find(&a, &b, dist, 0, TW_K0, 0.9, &tw), 0);
    cr_assert_eq(tw.survival_hops, 1);
    ph_twin_free(&tw);
    /* jitter between the runs before the delay as large as the delay's jump: not found */
    for (int32_t r = 0; r < P; r++)
        for (uint32_t k = 0; k < N; k++)
            ta[r][k] = tb[r][k] + (r == 1 && k > 0 && k <= TW_K0 ? (int64_t)(TW_D * 0.6) : 0) +
                       (r == 0 && k > TW_K0 ? (int64_t)TW_D : 0);
    cr_assert_eq(ph_twin_find(&a, &b, dist, 0, TW_K0, 0.9, &tw), 0);
    cr_assert_float_eq(tw.base_ns, 0.6 * TW_D, 1e-6);
    cr_assert(!tw.found);
    ph_twin_free(&tw);
    /* no delay (identical runs): nothing found; k0 too early: nothing found */
    cr_assert_eq(ph_twin_find(&b, &b, dist, 0, TW_K0, 0.9, &tw), 0);
    cr_assert(!tw.found);
    ph_twin_free(&tw);
    cr_assert_eq(ph_twin_find(&a, &b, dist, 0, 1, 0.9, &tw), 0);
    cr_assert(!tw.found);
    ph_twin_free(&tw);
}

Test(phases_log, compute_only_phase_stops_inside_mpi)
{
    char *dir = write_log(2, 20, const_marks, NULL, 1);
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    ph_mark_spec_t sp = {.mode = PH_MARK_PCONTROL, .level = PH_ANY_LEVEL, .every = 1};
    ph_marks_t m;
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_OK);
    /* a grid of 50 ns steps from rank 1's first boundary over its first iteration */
    ph_grid_t g = {m.t[1][0], 50, PERIOD / 50 + 1};
    ph_compute_t cp;
    cr_assert_eq(ph_compute_fill(run, &m, &g, &cp, &err), PLOG_OK, "%s", err.msg);
    /* rank 1, per iteration: Recv [100, 300), Barrier [600, 700) (no Send: it is the last
     * rank; the Pcontrol marker itself does not count): MPI 300 ns of 100000 */
    const double comp = PERIOD - 300.0;
    for (size_t i = 0; i < g.n; i++) {
        int64_t x = (int64_t)i * 50; /* time since the boundary */
        double busy = x <= 100 ? 0 : x <= 300 ? (double)(x - 100) : 200;
        busy += x <= 600 ? 0 : x <= 700 ? (double)(x - 600) : 100;
        double want = x == PERIOD ? 0 : ((double)x - busy) / comp; /* next iteration starts */
        cr_assert_float_eq(cp.frac[1][i], want, 1e-6, "x=%lld", (long long)x);
    }
    /* rank 0 starts later (offset 0 vs 25000 ns): its first grid points are in iteration 0 */
    cr_assert(!isnan(cp.frac[0][0]));
    /* the timeline: iteration from the boundaries, fraction from the compute time */
    ph_timeline_t tl;
    cr_assert_eq(ph_timeline_init(&tl, &m, &cp, &g), 0);
    double th[2];
    ph_timeline_at(&tl, 10, th);
    cr_assert_float_eq(th[1], TAU * cp.frac[1][10], 1e-12);
    ph_timeline_at(&tl, g.n - 1, th); /* rank 1's next boundary: iteration 1, fraction 0 */
    cr_assert_float_eq(th[1], TAU, 1e-12);
    ph_timeline_rewind(&tl);
    ph_timeline_at(&tl, 0, th);
    cr_assert_float_eq(th[1], 0.0, 1e-12);
    ph_timeline_free(&tl);
    ph_compute_free(&cp);
    ph_marks_free(&m);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(phases_log, no_markers_and_no_period_is_a_clear_error)
{
    /* one rank, a handful of calls with no repetition */
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 1000), 0);
    int32_t self = 0;
    pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &self, 1, NULL, 0);
    pgen_event(&g, 0, PLOG_CALL_MPI_Init, 500, 1000);
    pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 2000, 2100)->comm = 1;
    pgen_event(&g, 0, PLOG_CALL_MPI_Bcast, 3000, 3100)->comm = 1;
    pgen_event(&g, 0, PLOG_CALL_MPI_Finalize, 4000, 4100);
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    ph_mark_spec_t sp = {.mode = PH_MARK_AUTO, .level = PH_ANY_LEVEL, .every = 1};
    ph_marks_t m;
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_E_USAGE);
    cr_assert(strstr(err.msg, "--marker") != NULL, "%s", err.msg);
    cr_assert(strstr(err.msg, dir) != NULL, "%s", err.msg);
    ph_marks_free(&m);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(phases_grid, common_interval_step_and_cap)
{
    int64_t a[3] = {0, 100, 200}, b[4] = {50, 150, 250, 350}, c[1] = {10};
    uint32_t n[3] = {3, 4, 1};
    int64_t *t[3] = {a, b, c};
    ph_marks_t m = {.nranks = 3, .n = n, .t = t};
    ph_grid_t g;
    cr_assert_eq(ph_grid_make(&m, 0, 1000, &g), 0); /* rank 2 has no phase: not in the span */
    cr_assert_eq(g.t0, 50);
    cr_assert_eq(g.dt, 25); /* median period 100 / 4 */
    cr_assert_eq(g.n, 7);   /* 50 .. 200 */
    cr_assert_eq(ph_grid_make(&m, 7, 1000, &g), 0);
    cr_assert_eq(g.dt, 7);
    cr_assert_eq(g.n, 22); /* 50 + 21 * 7 = 197 <= 200 */
    cr_assert_eq(ph_grid_make(&m, 1, 4, &g), 0); /* at most 4 points: the step grows */
    cr_assert_eq(g.dt, 50);
    cr_assert_eq(g.n, 4);
    int64_t d[2] = {500, 600};
    t[2] = d;
    n[2] = 2;
    cr_assert_eq(ph_grid_make(&m, 0, 1000, &g), -1); /* [500, 600] misses [50, 200] */
    n[0] = n[1] = n[2] = 0;
    cr_assert_eq(ph_grid_make(&m, 0, 1000, &g), -1); /* nobody has a phase */
    cr_assert_eq(ph_median_period(&m), 0.0);
}

/* ---- the study of `phasor phases` (phases_study.h) ---- */

static ph_study_opts_t study_opts(void)
{
    ph_study_opts_t op = {.spec = {.mode = PH_MARK_PCONTROL, .level = 7, .every = 1},
                          .dt = 10000, .points = 100000, .topology = "log", .pairs = "auto",
                          .snapshots = 3, .thr = 0.99, .wave_frac = 0.5, .recover_frac = 0.9,
                          .src_rank = -1};
    cr_assert_eq(osc_pot_parse("tanh", &op.pot), 0);
    return op;
}

Test(phases_study, walk_summary_and_snapshots_of_a_delay)
{
    char *dir = write_log(8, 40, wave_marks, NULL, 1);
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    ph_study_opts_t op = study_opts();
    ph_study_t st;
    cr_assert_eq(ph_study_prepare(&st, run, &op, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(st.P, 8);
    cr_assert_eq(st.with_phase, 8);
    cr_assert_eq(st.grid.dt, 10000);
    cr_assert_eq(st.topo.nnz, 7); /* the chain of the log */
    cr_assert_float_eq(st.median_period, PERIOD, 1e-9);
    cr_assert_eq(ph_study_pairs(&st, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(st.npairs, 28); /* every pair, as (i, j < i) */
    cr_assert(st.pairs[0] == 1 && st.pairs[1] == 0);
    /* the walk: every grid point once, in order, R as ph_order gives it, dR/dt settled one
     * point late (both ends one-sided) */
    ph_point_t pt;
    size_t n = 0, nrates = 0;
    int64_t last_rate_t = INT64_MIN;
    double rmin = 2;
    int rc;
    while ((rc = ph_study_next(&st, &pt, &err)) == 1) {
        cr_assert_eq(pt.g, n);
        cr_assert_eq(pt.t, st.grid.t0 + (int64_t)n * st.grid.dt);
        double R, psi;
        ph_order(pt.theta, 8, &R, &psi);
        cr_assert_eq(pt.R, R);
        cr_assert_eq(pt.psi, psi);
        rmin = fmin(rmin, R);
        cr_assert_eq(pt.nrate, n == 0 ? 0 : n + 1 == st.grid.n ? 2 : 1, "point %zu", n);
        for (int k = 0; k < pt.nrate; k++) {
            cr_assert(pt.rate_t[k] > last_rate_t);
            last_rate_t = pt.rate_t[k];
            nrates++;
        }
        n++;
    }
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(ph_study_next(&st, &pt, &err), 0); /* and it stays over */
    cr_assert_eq(n, st.grid.n);
    cr_assert_eq(nrates, n);
    cr_assert_eq(last_rate_t, st.grid.t0 + (int64_t)(n - 1) * st.grid.dt);
    cr_assert_eq(st.r_min, rmin);
    cr_assert_eq(st.Rg[st.r_min_g], rmin);
    cr_assert(rmin < 0.99);
    cr_assert_geq(st.rs.n, 1);
    /* after the walk: the wave from the delay, R's recovery, the snapshots */
    cr_assert_eq(ph_study_finish(&st, &err), PLOG_OK, "%s", err.msg);
    cr_assert(st.wave.found && st.wave.source == 0 && st.wave.source_iter == K0);
    cr_assert_eq(st.rec.t_from, wave_marks(0, K0) - T0_TRUE);
    cr_assert(st.nsnap >= 2 && st.nsnap <= 4);
    int has_min = 0;
    for (size_t k = 0; k < st.nsnap; k++) {
        cr_assert(k == 0 || st.snap[k] > st.snap[k - 1]);
        has_min |= st.snap[k] == (int64_t)st.r_min_g;
        ph_snapshot_t sn;
        cr_assert_eq(ph_study_snapshot(&st, k, 1, &sn, &err), PLOG_OK, "%s", err.msg);
        cr_assert_eq(sn.g, (size_t)st.snap[k]);
        cr_assert_eq(sn.nd, 28); /* inside the grid every rank has a phase */
        uint64_t sum = 0;
        for (uint32_t b = 0; b < sn.bins.n; b++)
            sum += sn.count[b];
        cr_assert_eq(sum, sn.nd);
        for (size_t i = 1; i < sn.nd; i++)
            cr_assert(sn.d[i - 1] <= sn.d[i]);
        cr_assert_eq(ph_study_snapshot(&st, k, 0, &sn, &err), PLOG_OK);
        cr_assert(sn.d == NULL && sn.nd == 0);
    }
    cr_assert(has_min, "R's minimum is a snapshot");
    ph_summary_t sm;
    cr_assert_eq(ph_study_summarise(&st, &sm, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(sm.it_min, 39);
    cr_assert_eq(sm.it_max, 39);
    cr_assert_str_eq(sm.marker_call, "MPI_Pcontrol");
    cr_assert_float_eq(sm.r_mean, st.r_sum / (double)n, 1e-15);
    /* rank 0 took the delay first and stays behind longest */
    cr_assert_eq(sm.lag_rank, 0);
    cr_assert(sm.lag_iters > 0 && sm.lag_iters == sm.lag_mean[0]);
    cr_assert_eq(sm.nincomplete, 0);
    ph_summary_free(&sm);
    ph_study_free(&st);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(phases_study, bad_pairs_and_markers_are_reported)
{
    char *dir = write_log(4, 20, const_marks, NULL, 1);
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    ph_study_opts_t op = study_opts();
    ph_study_t st;
    const char *bad[] = {"1:4", "1:x", "2:2", "1:0,3"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(*bad); k++) {
        op.pairs = bad[k];
        cr_assert_eq(ph_study_prepare(&st, run, &op, &err), PLOG_OK, "%s", err.msg);
        cr_assert_eq(ph_study_pairs(&st, &err), PLOG_E_USAGE, "%s", bad[k]);
        cr_assert(strstr(err.msg, "--pairs") != NULL && strstr(err.msg, bad[k]) != NULL, "%s",
                  err.msg);
        ph_study_free(&st);
    }
    op.pairs = "3:1,2:0";
    cr_assert_eq(ph_study_prepare(&st, run, &op, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(ph_study_pairs(&st, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(st.npairs, 2);
    cr_assert(st.pairs[0] == 3 && st.pairs[1] == 1 && st.pairs[2] == 2 && st.pairs[3] == 0);
    ph_study_free(&st);
    /* a marker the log does not have: no phase, a message that says how to choose one */
    op.spec = (ph_mark_spec_t){.mode = PH_MARK_CALL, .call = PLOG_CALL_MPI_Allreduce, .every = 1};
    cr_assert_eq(ph_study_prepare(&st, run, &op, &err), PLOG_E_USAGE);
    cr_assert(strstr(err.msg, "no rank has two iteration boundaries (call markers)") != NULL,
              "%s", err.msg);
    cr_assert(strstr(err.msg, dir) != NULL, "%s", err.msg);
    ph_study_free(&st);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(phases_topo, read_from_a_file_of_pairs)
{
    char *dir = pgen_tmpdir();
    char path[4096];
    snprintf(path, sizeof(path), "%s/topo.txt", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("0 1\n# a comment\n\n2 1   # i receives from j\n0 1\n", f);
    fclose(f);
    ph_topo_t t;
    plog_error_t err;
    cr_assert_eq(ph_topo_read(path, 3, &t, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(t.nnz, 2); /* the repeated pair once */
    cr_assert(ph_topo_has(&t, 0, 1) && ph_topo_has(&t, 2, 1) && !ph_topo_has(&t, 1, 0));
    ph_topo_free(&t);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("0 1\n1 1\n", f);
    fclose(f);
    cr_assert_eq(ph_topo_read(path, 3, &t, &err), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, path) != NULL && strstr(err.msg, "line 2") != NULL, "%s", err.msg);
    cr_assert_eq(t.nnz, 0);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("0 3\n", f); /* rank 3 of 3 */
    fclose(f);
    cr_assert_eq(ph_topo_read(path, 3, &t, &err), PLOG_E_CORRUPT);
    cr_assert(strstr(err.msg, "line 1") != NULL, "%s", err.msg);
    remove(path);
    cr_assert_eq(ph_topo_read(path, 3, &t, &err), PLOG_E_IO);
    cr_assert(strstr(err.msg, path) != NULL, "%s", err.msg);
    pgen_rmdir(dir);
    free(dir);
}

/* ---- the idle wave's source: the delay that travels farthest ---- */

/* A chain with three perturbations. Rank 5 stalls for STALL in iteration 25 and nobody waits
 * for it (it only falls behind: the largest excess, reaching no one); a delay made on rank
 * 1 in iteration K0 runs down the chain to rank 7 (7 ranks); one of DELAY2 made on rank 4 in
 * iteration 30 dies after two hops (3 ranks). */
#define STALL (3 * DELAY)
#define DELAY2 200000
#define K2 30
static int64_t stall_marks(int32_t r, uint32_t k)
{
    int64_t t = T0_TRUE + 2000 + (int64_t)k * PERIOD;
    if (r >= 1 && k > (uint32_t)(K0 + r - 1))
        t += DELAY;
    if (r >= 4 && r <= 6 && k > (uint32_t)(K2 + r - 4))
        t += DELAY2;
    if (r == 5 && k > 25)
        t += STALL;
    return t;
}

static void open_marks(mark_fn mark, char **dir, plog_run_t **run, ph_marks_t *m,
                       ph_topo_t *tp)
{
    *dir = write_log(8, 40, mark, NULL, 1);
    plog_error_t err;
    cr_assert_eq(plog_run_open(*dir, run, &err), PLOG_OK, "%s", err.msg);
    ph_mark_spec_t sp = {.mode = PH_MARK_PCONTROL, .level = 7, .every = 1};
    cr_assert_eq(ph_marks_find(*run, &sp, m, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(ph_marks_compute(*run, m, tp, &err), PLOG_OK, "%s", err.msg);
}

static void close_marks(char *dir, plog_run_t *run, ph_marks_t *m, ph_topo_t *tp)
{
    ph_topo_free(tp);
    ph_marks_free(m);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}

Test(phases_wave_source, the_farthest_wave_beats_a_larger_stall)
{
    char *dir;
    plog_run_t *run;
    ph_marks_t m;
    ph_topo_t tp;
    open_marks(stall_marks, &dir, &run, &m, &tp);
    /* the stall is the largest compute excess: the old rule's source */
    cr_assert_float_eq(m.comp[5][25] - m.comp[5][0], STALL, 1e-9);
    const ph_topo_t *tops[2] = {&tp, NULL}; /* along the messages, and by rank index */
    for (int i = 0; i < 2; i++) {
        ph_wave_t w;
        cr_assert_eq(ph_wave_find(&m, tops[i], 0.5, &w), 0);
        cr_assert(w.found);
        cr_assert_eq(w.source, 1, "source rank %d", (int)w.source);
        cr_assert_eq(w.source_iter, K0);
        cr_assert_float_eq(w.source_excess_ns, DELAY, 1e-9);
        cr_assert_eq(w.reached, 7);
        cr_assert_eq(w.reach_hops, 6);
        for (int32_t r = 1; r < 8; r++)
            cr_assert_eq(w.arrival_iter[r], K0 + r - 1);
        cr_assert_eq(w.arrival_iter[0], -1);
        /* tried: the stall, the delay's arrivals and the second delay's three */
        cr_assert_eq(w.candidates, 1 + 7 + 3);
        /* the second delay is the runner-up (its arrivals are its wave, the stall reached
         * no one): it delivered 2 DELAY2 of idle time, the source 6 DELAY */
        cr_assert_float_eq(w.idle_delivered_ns, 6.0 * DELAY, 1e-6);
        cr_assert_eq(w.runner_up_source, 4);
        cr_assert_eq(w.runner_up_iter, K2);
        cr_assert_eq(w.runner_up_reached, 3);
        cr_assert_float_eq(w.runner_up_idle_ns, 2.0 * DELAY2, 1e-6);
        cr_assert_float_eq(w.confidence, 1 - 2.0 * DELAY2 / (6.0 * DELAY), 1e-12);
        ph_wave_free(&w);
    }
    /* the stall given as the source: no wave, and the pick is not rated */
    ph_wave_t w;
    cr_assert_eq(ph_wave_find_at(&m, &tp, 0.5, 5, 25, &w), 0);
    cr_assert(!w.found && w.source == 5 && w.reached == 1);
    cr_assert_eq(w.candidates, 0);
    cr_assert_eq(w.runner_up_source, -1);
    cr_assert(isnan(w.confidence));
    ph_wave_free(&w);
    close_marks(dir, run, &m, &tp);
}

Test(phases_wave_source, one_clear_wave_is_certain)
{
    char *dir;
    plog_run_t *run;
    ph_marks_t m;
    ph_topo_t tp;
    open_marks(wave_marks, &dir, &run, &m, &tp);
    ph_wave_t w;
    cr_assert_eq(ph_wave_find(&m, &tp, 0.5, &w), 0);
    cr_assert(w.found && w.source == 0 && w.source_iter == K0 && w.reached == 8);
    /* every other candidate is the wave's own arrival: no runner-up */
    cr_assert_eq(w.candidates, 8);
    cr_assert_eq(w.runner_up_source, -1);
    cr_assert_eq(w.runner_up_reached, 0);
    cr_assert_float_eq(w.runner_up_idle_ns, 0, 1e-12);
    cr_assert_float_eq(w.idle_delivered_ns, 7.0 * DELAY, 1e-6);
    cr_assert_float_eq(w.confidence, 1, 1e-12);
    ph_wave_free(&w);
    /* the source given: the same wave, nothing to compare it with */
    cr_assert_eq(ph_wave_find_at(&m, &tp, 0.5, 0, K0, &w), 0);
    cr_assert(w.found && w.reached == 8 && w.candidates == 0 && isnan(w.confidence));
    ph_wave_free(&w);
    close_marks(dir, run, &m, &tp);
}

/* A run of unsuccessful polls (PLOG_F_POLLS) is MPI time for the time inside its polls only:
 * between them the rank computed, as it would show with the polls logged one by one. */
Test(phases_log, runs_of_polls_compute_between_their_polls)
{
    char *dir = pgen_tmpdir();
    pgen_rank_t g;
    cr_assert_eq(pgen_open(&g, dir, 0, 1, 1000), 0);
    int32_t me = 0;
    cr_assert_eq(pgen_comm(&g, 1, 0, PLOG_CALL_MPI_Init, PLOG_COMMK_INTRA, &me, 1, NULL, 0), 0);
    cr_assert_eq(pgen_flush_comms(&g), 0);
    pgen_event(&g, 0, PLOG_CALL_MPI_Pcontrol, 10000, 10000)->tag = 7;
    plog_event_t *e = pgen_event(&g, 0, PLOG_CALL_MPI_Iprobe, 12000, 18000);
    e->comm = 1;
    e->peer = PLOG_ANY_SOURCE;
    e->tag = PLOG_ANY_TAG;
    e->flags = PLOG_F_POLLS;
    const uint64_t w[2] = {6, 600};
    pgen_extra(&g, 0, w, 2);
    pgen_event(&g, 0, PLOG_CALL_MPI_Pcontrol, 20000, 20000)->tag = 7;
    pgen_event(&g, 0, PLOG_CALL_MPI_Barrier, 22000, 22500)->comm = 1;
    pgen_event(&g, 0, PLOG_CALL_MPI_Pcontrol, 30000, 30000)->tag = 7;
    cr_assert_eq(pgen_close(&g, NULL, 0), 0);
    plog_run_t *run;
    plog_error_t err;
    cr_assert_eq(plog_run_open(dir, &run, &err), PLOG_OK, "%s", err.msg);
    ph_mark_spec_t sp = {.mode = PH_MARK_PCONTROL, .level = 7, .every = 1};
    ph_marks_t m;
    cr_assert_eq(ph_marks_find(run, &sp, &m, &err), PLOG_OK, "%s", err.msg);
    cr_assert_eq(m.n[0], 3);
    cr_assert_eq(ph_marks_compute(run, &m, NULL, &err), PLOG_OK, "%s", err.msg);
    cr_assert_float_eq(m.comp[0][0], 10000 - 600, 1e-9, "the run's 600 ns inside: %g",
                       m.comp[0][0]);
    cr_assert_float_eq(m.comp[0][1], 10000 - 500, 1e-9);
    ph_marks_free(&m);
    plog_run_close(run);
    pgen_rmdir(dir);
    free(dir);
}
