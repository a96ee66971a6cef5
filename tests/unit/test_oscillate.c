/* test_oscillate.c: the comparison of analysis/oscillate.h on inputs whose answers are known:
 * the idle wave on synthetic boundaries, the natural frequencies of a locked state, the
 * distance of two patterns, the final pattern, and the model's side on a grid (a free
 * oscillator's boundaries, R of the splay state). The fit of real runs is checked by
 * run_phases_tests.sh and measured by bench/oscillate.sh. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oscillate.h"

#define PERIOD 1000000 /* ns */

/* P ranks of n boundaries each, PERIOD apart, and a delay of `delay` ns that reaches rank r
 * at iteration k0 + |r - src| / speed (integer division): every later boundary of r is
 * shifted by it. */
static void wave_marks(ph_marks_t *m, int32_t P, uint32_t n, int32_t src, uint32_t k0,
                       int speed, int64_t delay)
{
    memset(m, 0, sizeof(*m));
    m->nranks = P;
    m->n = calloc((size_t)P, sizeof(*m->n));
    m->t = calloc((size_t)P, sizeof(*m->t));
    for (int32_t r = 0; r < P; r++) {
        m->n[r] = n;
        m->t[r] = malloc(n * sizeof(int64_t));
        uint32_t reach = k0 + (uint32_t)(abs(r - src) / speed);
        for (uint32_t k = 0; k < n; k++)
            m->t[r][k] = (int64_t)k * PERIOD + (k > reach ? delay : 0) + (r * 7 + k * 3) % 5;
    }
}

static void chain(int32_t P, ph_topo_t *t)
{
    int32_t *pairs = malloc(4 * (size_t)P * sizeof(*pairs));
    size_t np = 0;
    for (int32_t i = 0; i < P; i++) {
        if (i > 0) {
            pairs[2 * np] = i;
            pairs[2 * np + 1] = i - 1;
            np++;
        }
        if (i + 1 < P) {
            pairs[2 * np] = i;
            pairs[2 * np + 1] = i + 1;
            np++;
        }
    }
    cr_assert_eq(ph_topo_from_pairs(P, pairs, np, t), 0);
    free(pairs);
}

Test(wave, one_rank_per_iteration_both_ways)
{
    ph_marks_t m;
    ph_topo_t t;
    osf_wave_t w;
    wave_marks(&m, 9, 40, 4, 10, 1, PERIOD / 2);
    chain(9, &t);
    cr_assert_eq(osf_wave_find(&m, &t, 4, 10, &w), 0);
    cr_assert(w.found);
    cr_assert_float_eq(w.ranks_per_iter, 1.0, 1e-9);
    cr_assert_eq(w.reach_hops, 4);
    cr_assert_eq(w.reached, 8);
    for (int32_t r = 0; r < 9; r++)
        cr_assert_eq(w.arrival[r], 10 + abs(r - 4), "rank %d arrives at %d", r, w.arrival[r]);
    osf_wave_free(&w);
    ph_marks_free(&m);
    ph_topo_free(&t);
}

Test(wave, two_ranks_per_iteration)
{
    ph_marks_t m;
    ph_topo_t t;
    osf_wave_t w;
    wave_marks(&m, 13, 40, 0, 8, 2, PERIOD / 3);
    chain(13, &t);
    cr_assert_eq(osf_wave_find(&m, &t, 0, 8, &w), 0);
    cr_assert(w.found);
    cr_assert(fabs(w.ranks_per_iter - 2) < 0.2, "speed %g", w.ranks_per_iter);
    cr_assert_eq(w.reach_hops, 12);
    osf_wave_free(&w);
    ph_marks_free(&m);
    ph_topo_free(&t);
}

Test(wave, nothing_travels_without_a_delay)
{
    ph_marks_t m;
    ph_topo_t t;
    osf_wave_t w;
    wave_marks(&m, 6, 30, 2, 10, 1, 0);
    chain(6, &t);
    cr_assert_eq(osf_wave_find(&m, &t, 2, 10, &w), 0);
    cr_assert_not(w.found);
    cr_assert(isnan(w.ranks_per_iter));
    osf_wave_free(&w);
    /* no source: nothing found, nothing allocated that leaks */
    cr_assert_eq(osf_wave_find(&m, &t, -1, 10, &w), 0);
    cr_assert_not(w.found);
    osf_wave_free(&w);
    ph_marks_free(&m);
    ph_topo_free(&t);
}

Test(natural, locked_state_runs_at_the_measured_rate)
{
    osc_graph_t g;
    osc_topo_spec_t ts;
    char why[128];
    cr_assert_eq(osc_topo_parse("chain:bi", &ts), 0);
    cr_assert_eq(osc_graph_named(4, &ts, &g, why, sizeof(why)), 0);
    double rate[4] = {100, 100, 100, 100}, omega[4];
    osc_model_t m = {.n = 4, .omega = omega, .vp = 40, .graph = &g};
    cr_assert_eq(osc_pot_parse("tanh:2", &m.pot), 0);
    osf_natural(&m, rate, omega); /* no delays, no noise: omega = rate */
    for (int i = 0; i < 4; i++)
        cr_assert_float_eq(omega[i], 100, 1e-12);
    cr_assert_eq(osc_graph_set_delay(&g, 0.001), 0);
    osf_natural(&m, rate, omega);
    /* rank 0 has one neighbour, rank 1 two: omega = rate - vp/n * k * tanh(2 * (-0.1)) */
    cr_assert_float_eq(omega[0], 100 + 10 * tanh(0.2), 1e-9);
    cr_assert_float_eq(omega[1], 100 + 20 * tanh(0.2), 1e-9);
    /* the locked state then advances at the rate: the right-hand side with the delayed
     * neighbours behind by rate x tau */
    double th[4] = {0, 0, 0, 0}, d[4];
    m.graph = NULL; /* osc_model_rhs takes tau as 0: the pull is added by hand below */
    osc_model_rhs(&m, 0, th, d);
    cr_assert_float_eq(d[1] + 40.0 / 4 * 2 * tanh(2 * -0.1), 100, 1e-9);
    m.graph = &g;
    m.noise = (osc_noise_t){.kind = OSC_NOISE_UNIFORM, .share = 0.2, .window = 0.01};
    osf_natural(&m, rate, omega);
    cr_assert_float_eq(omega[0], (100 + 10 * tanh(0.2)) / 1.1, 1e-9);
    osc_graph_free(&g);
}

Test(distance, patterns)
{
    osf_series_t a, b;
    cr_assert_eq(osf_series_alloc(&a, 3, 2), 0);
    cr_assert_eq(osf_series_alloc(&b, 3, 2), 0);
    for (int k = 0; k < 6; k++) {
        a.dev[k] = (float)(k % 2 ? 0.5 : -0.5);
        b.dev[k] = a.dev[k];
    }
    cr_assert_float_eq(osf_distance(&a, &b), 0, 1e-12);
    for (int k = 0; k < 6; k++)
        b.dev[k] = (float)(k % 2 ? 0.25 : -0.25);
    cr_assert_float_eq(osf_distance(&a, &b), 0.25, 1e-7);
    osf_series_free(&b);
    cr_assert_eq(osf_series_alloc(&b, 4, 2), 0);
    cr_assert(isnan(osf_distance(&a, &b)), "series of different lengths have no distance");
    osf_series_free(&a);
    osf_series_free(&b);
}

/* The model of P free (uncoupled) or coupled oscillators on a grid of n points, dt ns. */
static void side(int32_t P, const char *topo, const char *init, double vp, size_t n,
                 int64_t dt, osf_side_t *out, ph_topo_t *t, osc_graph_t *g, double *omega,
                 double *theta0)
{
    osc_topo_spec_t ts;
    osc_init_t in;
    char why[128];
    cr_assert_eq(osc_topo_parse(topo, &ts), 0);
    cr_assert_eq(osc_graph_named(P, &ts, g, why, sizeof(why)), 0, "%s", why);
    cr_assert_eq(osf_topo_of_graph(g, t), 0);
    cr_assert_eq(osc_init_parse(init, &in), 0);
    cr_assert_eq(osc_init_fill(&in, P, theta0), 0);
    for (int32_t i = 0; i < P; i++)
        omega[i] = 2 * M_PI / (PERIOD / 1e9);
    static osc_model_t m;
    m = (osc_model_t){.n = P, .omega = omega, .vp = vp, .graph = g};
    osc_pot_parse("tanh", &m.pot);
    static osc_solver_opts_t so;
    osc_solver_defaults(&so);
    so.rtol = 1e-9;
    so.atol = 1e-9;
    static ph_grid_t grid;
    grid = (ph_grid_t){.t0 = 5000, .dt = dt, .n = n};
    osf_setup_t su = {.model = &m, .solver = &so, .theta0 = theta0, .grid = &grid, .topo = t,
                      .epot = &m.pot, .entropy = PH_ENTROPY_CIRCLE, .src_rank = -1,
                      .recover_frac = 0.9, .period_ns = PERIOD};
    plog_error_t err;
    cr_assert_eq(osf_side_run(&su, out, &err), PLOG_OK, "%s", err.msg);
}

Test(side, free_oscillators_cross_on_time)
{
    osf_side_t s;
    ph_topo_t t;
    osc_graph_t g;
    double omega[3], theta0[3];
    side(3, "chain", "local:1:1.0", 0, 201, PERIOD / 20, &s, &t, &g, omega, theta0);
    /* rank 0 starts at 1 rad: it crosses 2 pi k at t0 + (2 pi k - 1) / omega; the level
     * before (0) is its free-running past */
    cr_assert_eq(s.marks.nranks, 3);
    cr_assert_geq(s.marks.n[0], 10);
    double w = 2 * M_PI / (PERIOD / 1e9);
    for (uint32_t k = 0; k < s.marks.n[0]; k++) {
        double want = 5000 + (2 * M_PI * k - 1.0) / w * 1e9;
        cr_assert(fabs((double)s.marks.t[0][k] - want) < 2, "boundary %u at %lld, want %.1f", k,
                  (long long)s.marks.t[0][k], want);
    }
    /* equal rates: the pattern stays as it began, R constant */
    for (size_t k = 0; k < s.ser.n; k++)
        cr_assert_float_eq(s.ser.R[k], s.ser.R[0], 1e-6);
    cr_assert_eq(s.fig.pattern, OSF_DISORDERED);
    osf_side_free(&s);
    ph_topo_free(&t);
    osc_graph_free(&g);
}

Test(side, splay_and_sync_patterns)
{
    osf_side_t s;
    ph_topo_t t;
    osc_graph_t g;
    double omega[8], theta0[8];
    side(8, "ring:bi", "splay", 0, 41, PERIOD / 10, &s, &t, &g, omega, theta0);
    cr_assert(s.fig.r_mean < 1e-6, "R of the splay state %g", s.fig.r_mean);
    cr_assert_eq(s.fig.pattern, OSF_SPLAY);
    cr_assert_str_eq(osf_pattern_name(s.fig.pattern), "splay");
    osf_side_free(&s);
    ph_topo_free(&t);
    osc_graph_free(&g);
    side(8, "ring:bi", "zero", 50, 41, PERIOD / 10, &s, &t, &g, omega, theta0);
    cr_assert_float_eq(s.fig.r_mean, 1, 1e-9);
    cr_assert_eq(s.fig.pattern, OSF_SYNC);
    cr_assert(isnan(s.fig.resync_s), "no perturbation, no resynchronisation");
    osf_side_free(&s);
    ph_topo_free(&t);
    osc_graph_free(&g);
}
