/* test_osc.c: the coupled-oscillator model and its integrator (models/osc_model.h) against
 * closed forms (two tanh oscillators, the bottleneck's lock, a delayed pull by a free rank,
 * DP5(4)'s order on a known ODE), the invariants (splay state, common phase shift), the
 * noise and perturbation rules, and the paper's qualitative results from the model alone. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "osc_model.h"

#define TWO_PI 6.283185307179586476925

/* ---- helpers ---- */

typedef struct rec {
    int32_t n;
    size_t cap, count;
    double *t, *th; /* count samples of n phases */
} rec_t;

static int rec_sample(void *ctx, double t, const double *theta)
{
    rec_t *r = ctx;
    if (r->count == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->t = realloc(r->t, r->cap * sizeof(double));
        r->th = realloc(r->th, r->cap * (size_t)r->n * sizeof(double));
        cr_assert(r->t && r->th);
    }
    r->t[r->count] = t;
    memcpy(r->th + r->count * (size_t)r->n, theta, (size_t)r->n * sizeof(double));
    r->count++;
    return 0;
}

static void rec_free(rec_t *r)
{
    free(r->t);
    free(r->th);
}

static double order_R(const double *th, int32_t n)
{
    double c = 0, s = 0;
    for (int32_t i = 0; i < n; i++)
        c += cos(th[i]), s += sin(th[i]);
    return sqrt(c * c + s * s) / n;
}

static void graph_pairs(osc_graph_t *g, int32_t n, const int32_t *pairs, size_t np)
{
    char why[200];
    cr_assert_eq(osc_graph_from_pairs(n, pairs, np, g, why, sizeof(why)), 0, "%s", why);
}

static void run(const osc_model_t *m, const osc_solver_opts_t *so, double t0, double t1,
                const double *th0, double dt, rec_t *rec, osc_crossings_t *cx, osc_stats_t *st)
{
    char why[200] = "";
    rec->n = m->n;
    osc_run_t r = {.t0 = t0, .t1 = t1, .theta0 = th0, .dt_out = dt, .sample = rec_sample,
                   .ctx = rec, .crossings = cx != NULL};
    int rc = osc_integrate(m, so, &r, cx, st, why, sizeof(why));
    cr_assert_eq(rc, 0, "osc_integrate: %s", why);
}

static osc_solver_opts_t tight(void)
{
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    so.rtol = 1e-8;
    so.atol = 1e-10;
    return so;
}

/* ---- two tanh oscillators: sinh x(t) = sinh x0 e^{-2ct} (bi), e^{-ct} (uni) ---- */

static double two_tanh_maxerr(int bi, const osc_solver_opts_t *so, double *tscale)
{
    const int32_t both[] = {0, 1, 1, 0}, one[] = {1, 0};
    osc_graph_t g;
    graph_pairs(&g, 2, bi ? both : one, bi ? 2 : 1);
    double om[2] = {TWO_PI, TWO_PI}, th0[2] = {0.4, 1.6}; /* x0 = 1.2 */
    osc_model_t m = {.n = 2, .omega = om, .vp = 2.0, .graph = &g};
    osc_pot_parse("tanh", &m.pot);
    double c = m.vp / m.n, rate = bi ? 2 * c : c, x0 = th0[1] - th0[0];
    rec_t rec = {0};
    run(&m, so, 0, 5 / rate, th0, 0.037, &rec, NULL, NULL); /* 5 time constants */
    double maxerr = 0, thmax = 0;
    for (size_t k = 0; k < rec.count; k++) {
        const double *th = rec.th + 2 * k;
        double want = asinh(sinh(x0) * exp(-rate * rec.t[k]));
        maxerr = fmax(maxerr, fabs((th[1] - th[0]) - want));
        thmax = fmax(thmax, fabs(th[1]));
    }
    cr_assert_gt(rec.count, 60);
    /* the last difference is small: the formula was followed to the end */
    cr_assert_lt(fabs(rec.th[2 * rec.count - 1] - rec.th[2 * rec.count - 2]), 0.02);
    *tscale = thmax;
    rec_free(&rec);
    osc_graph_free(&g);
    return maxerr;
}

Test(osc_model, two_tanh_closed_form)
{
    osc_solver_opts_t def, so = tight();
    osc_solver_defaults(&def);
    for (int bi = 0; bi <= 1; bi++) {
        double thmax;
        /* default tolerances: the error scale is rtol |theta| (phases unwrapped) */
        double e = two_tanh_maxerr(bi, &def, &thmax);
        cr_assert_lt(e, 5 * (def.rtol * thmax + def.atol), "bi %d: %g (theta up to %g)", bi, e,
                     thmax);
        e = two_tanh_maxerr(bi, &so, &thmax);
        cr_assert_lt(e, 5 * (so.rtol * thmax + so.atol), "bi %d tight: %g", bi, e);
        cr_assert_lt(e, 1e-6);
    }
}

/* ---- the bottleneck potential locks two oscillators at |x| = 2 pi / 3 ---- */

Test(osc_model, piecewise_lock)
{
    const int32_t both[] = {0, 1, 1, 0};
    osc_graph_t g;
    graph_pairs(&g, 2, both, 2);
    double om[2] = {TWO_PI, TWO_PI};
    osc_model_t m = {.n = 2, .omega = om, .vp = 2.0, .graph = &g};
    cr_assert_eq(osc_pot_parse("piecewise", &m.pot), 0);
    osc_solver_opts_t so = tight();
    const double x0s[] = {1.0, 3.0, -0.5};
    for (int k = 0; k < 3; k++) {
        double th0[2] = {0, x0s[k]};
        rec_t rec = {0};
        run(&m, &so, 0, 30, th0, 1, &rec, NULL, NULL);
        const double *th = rec.th + 2 * (rec.count - 1);
        cr_assert_float_eq(fabs(th[1] - th[0]), TWO_PI / 3, 1e-6, "x0 %g -> %g", x0s[k],
                           th[1] - th[0]);
        rec_free(&rec);
    }
    osc_graph_free(&g);
}

/* ---- the splay state of a ring stays at R = 0 ----
 * (sin only: tanh is not periodic, and the unwrapped ring closes with a 2 pi jump) */

Test(osc_model, splay_ring_stays)
{
    const char *topos[] = {"ring:bi", "ring:bi:d3", "ring:uni"};
    for (int p = 0; p < 3; p++) {
        int32_t n = 12;
        osc_topo_spec_t ts;
        osc_graph_t g;
        char why[200];
        cr_assert_eq(osc_topo_parse(topos[p], &ts), 0);
        cr_assert_eq(osc_graph_named(n, &ts, &g, why, sizeof(why)), 0);
        double om[12], th0[12];
        osc_init_t in;
        cr_assert_eq(osc_init_parse("splay", &in), 0);
        cr_assert_eq(osc_init_fill(&in, n, th0), 0);
        for (int i = 0; i < n; i++)
            om[i] = TWO_PI;
        osc_model_t m = {.n = n, .omega = om, .vp = 4.0, .graph = &g};
        osc_pot_parse("sin", &m.pot);
        osc_solver_opts_t so;
        osc_solver_defaults(&so);
        rec_t rec = {0};
        run(&m, &so, 0, 100, th0, 0.5, &rec, NULL, NULL);
        cr_assert_eq(rec.count, 201);
        for (size_t k = 0; k < rec.count; k++)
            cr_assert_lt(order_R(rec.th + k * (size_t)n, n), 1e-6, "%s t %g", topos[p], rec.t[k]);
        rec_free(&rec);
        osc_graph_free(&g);
    }
}

/* ---- a common phase shift shifts the solution (no delay, no noise) ---- */

Test(osc_model, common_shift)
{
    int32_t n = 8;
    osc_topo_spec_t ts;
    osc_graph_t g;
    char why[200];
    cr_assert_eq(osc_topo_parse("chain:bi:d2", &ts), 0);
    cr_assert_eq(osc_graph_named(n, &ts, &g, why, sizeof(why)), 0);
    double om[8], th0[8], th1[8], shift = 3 * TWO_PI + 0.7;
    osc_init_t in;
    cr_assert_eq(osc_init_parse("random:7", &in), 0);
    cr_assert_eq(osc_init_fill(&in, n, th0), 0);
    for (int i = 0; i < n; i++) {
        om[i] = TWO_PI * (1 + 0.01 * i);
        th1[i] = th0[i] + shift;
    }
    osc_model_t m = {.n = n, .omega = om, .vp = 3.0, .graph = &g};
    osc_pot_parse("tanh:2", &m.pot);
    osc_solver_opts_t so = tight();
    rec_t a = {0}, b = {0};
    run(&m, &so, 0, 20, th0, 0.1, &a, NULL, NULL);
    run(&m, &so, 0, 20, th1, 0.1, &b, NULL, NULL);
    cr_assert_eq(a.count, b.count);
    for (size_t k = 0; k < a.count * (size_t)n; k++)
        cr_assert_float_eq(b.th[k], a.th[k] + shift, 1e-6);
    rec_free(&a);
    rec_free(&b);
    osc_graph_free(&g);
}

/* ---- DP5(4) on known ODEs ---- */

static void f_forced(void *ctx, double t, const double *y, double *dy)
{
    (void)ctx;
    dy[0] = -y[0] + sin(t);
}

static double forced_exact(double t)
{
    return 1.5 * exp(-t) + 0.5 * (sin(t) - cos(t));
}

static void f_harmonic(void *ctx, double t, const double *y, double *dy)
{
    (void)ctx;
    (void)t;
    dy[0] = y[1];
    dy[1] = -y[0];
}

Test(osc_ode, fifth_order)
{
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    so.rtol = so.atol = 0; /* fixed steps need no tolerances */
    char why[200];
    double err[2];
    for (int k = 0; k < 2; k++) {
        so.h_fixed = 0.25 / (1 << k);
        double y = 1;
        osc_stats_t st;
        cr_assert_eq(osc_ode_solve(f_forced, NULL, 1, 0, 5, &y, &so, &st, why, sizeof(why)), 0);
        cr_assert_eq(st.steps, (size_t)(20 << k));
        cr_assert_eq(st.rejected, 0);
        err[k] = fabs(y - forced_exact(5));
    }
    double order = log2(err[0] / err[1]);
    cr_assert(order >= 4.6 && order <= 5.4, "observed order %g (errors %g, %g)", order, err[0],
              err[1]);
    for (int k = 0; k < 2; k++) {
        so.h_fixed = 0.5 / (1 << k);
        double y[2] = {0, 1};
        cr_assert_eq(osc_ode_solve(f_harmonic, NULL, 2, 0, 10, y, &so, NULL, why, sizeof(why)), 0);
        err[k] = hypot(y[0] - sin(10), y[1] - cos(10));
    }
    order = log2(err[0] / err[1]);
    cr_assert(order >= 4.6 && order <= 5.4, "harmonic: observed order %g", order);
}

Test(osc_ode, adaptive_meets_tolerance)
{
    const double rtols[] = {1e-3, 1e-6, 1e-9};
    char why[200];
    for (int k = 0; k < 3; k++) {
        osc_solver_opts_t so;
        osc_solver_defaults(&so);
        so.rtol = rtols[k];
        so.atol = rtols[k] * 1e-3;
        double y = 1;
        osc_stats_t st;
        cr_assert_eq(osc_ode_solve(f_forced, NULL, 1, 0, 10, &y, &so, &st, why, sizeof(why)), 0);
        double e = fabs(y - forced_exact(10));
        cr_assert_lt(e, 10 * so.rtol * 1, "rtol %g: error %g", so.rtol, e);
        double yh[2] = {0, 1};
        cr_assert_eq(osc_ode_solve(f_harmonic, NULL, 2, 0, 20, yh, &so, &st, why, sizeof(why)),
                     0);
        e = hypot(yh[0] - sin(20), yh[1] - cos(20));
        cr_assert_lt(e, 20 * so.rtol, "harmonic rtol %g: error %g after %zu steps", so.rtol, e,
                     st.steps);
    }
    /* bad arguments */
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    double y = 1;
    cr_assert_eq(osc_ode_solve(f_forced, NULL, 1, 1, 0, &y, &so, NULL, why, sizeof(why)), -1);
    so.rtol = -1;
    cr_assert_eq(osc_ode_solve(f_forced, NULL, 1, 0, 1, &y, &so, NULL, why, sizeof(why)), -1);
    cr_assert(strstr(why, "rtol") != NULL);
}

/* ---- dense output and crossings ---- */

Test(osc_integrate, dense_output_between_steps)
{
    const int32_t both[] = {0, 1, 1, 0};
    osc_graph_t g;
    graph_pairs(&g, 2, both, 2);
    double om[2] = {TWO_PI, TWO_PI}, th0[2] = {0.3, 1.8};
    osc_model_t m = {.n = 2, .omega = om, .vp = 2.0, .graph = &g};
    osc_pot_parse("tanh", &m.pot);
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    so.rtol = 1e-7;
    so.atol = 1e-9;
    rec_t rec = {0};
    osc_stats_t st;
    run(&m, &so, 0, 4, th0, 0.0123, &rec, NULL, &st);
    cr_assert_eq(rec.count, (size_t)floor(4 / 0.0123) + 1);
    cr_assert_lt(st.steps * 3, rec.count); /* most samples fall between steps */
    double x0 = th0[1] - th0[0], S0 = th0[0] + th0[1];
    for (size_t k = 0; k < rec.count; k++) {
        double t = rec.t[k];
        cr_assert_float_eq(t, 0.0123 * (double)k, 1e-12);
        double x = asinh(sinh(x0) * exp(-2 * t)), S = S0 + 2 * TWO_PI * t;
        cr_assert_float_eq(rec.th[2 * k], (S - x) / 2, 1e-6, "t %g", t);
        cr_assert_float_eq(rec.th[2 * k + 1], (S + x) / 2, 1e-6, "t %g", t);
    }
    rec_free(&rec);
    osc_graph_free(&g);
}

/* theta_1 of the two tanh oscillators (bi, c = 1) at t, exactly */
static double two_tanh_th1(double x0, double S0, double t)
{
    return (S0 + 2 * TWO_PI * t + asinh(sinh(x0) * exp(-2 * t))) / 2;
}

Test(osc_integrate, crossings)
{
    /* free oscillators: theta = theta0 + omega t crosses 2 pi k at (2 pi k - theta0) / omega */
    double om[3] = {TWO_PI * 1.3, TWO_PI * 0.7, TWO_PI * 0.95}, th0[3] = {0.3, -2.0, TWO_PI};
    osc_model_t m = {.n = 3, .omega = om, .vp = 0};
    osc_pot_parse("sin", &m.pot);
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    osc_crossings_t cx;
    rec_t rec = {0};
    run(&m, &so, 0, 10, th0, 1, &rec, &cx, NULL);
    cr_assert_eq(cx.n, 3);
    cr_assert_eq(cx.first[0], 1);
    cr_assert_eq(cx.first[1], 0);
    cr_assert_eq(cx.first[2], 2); /* 2 pi k > theta0: the level it starts on does not count */
    for (int i = 0; i < 3; i++) {
        size_t want = (size_t)floor((th0[i] + om[i] * 10) / TWO_PI) - (size_t)cx.first[i] + 1;
        cr_assert_eq(cx.count[i], want, "rank %d: %u crossings, want %zu", i, cx.count[i], want);
        for (uint32_t k = 0; k < cx.count[i]; k++) {
            double lvl = TWO_PI * (double)(cx.first[i] + k);
            cr_assert_float_eq(cx.t[i][k], (lvl - th0[i]) / om[i], 1e-12);
        }
    }
    osc_crossings_free(&cx);
    rec_free(&rec);
    /* coupled: against the closed form, by bisection on it */
    const int32_t both[] = {0, 1, 1, 0};
    osc_graph_t g;
    graph_pairs(&g, 2, both, 2);
    double om2[2] = {TWO_PI, TWO_PI}, t2[2] = {0.3, 1.8};
    osc_model_t m2 = {.n = 2, .omega = om2, .vp = 2.0, .graph = &g};
    osc_pot_parse("tanh", &m2.pot);
    so = tight();
    rec_t r2 = {0};
    run(&m2, &so, 0, 6, t2, 1, &r2, &cx, NULL);
    cr_assert_geq(cx.count[1], 5);
    for (uint32_t k = 0; k < cx.count[1]; k++) {
        double lvl = TWO_PI * (double)(cx.first[1] + k), a = 0, b = 6;
        for (int it = 0; it < 200; it++) {
            double c = 0.5 * (a + b);
            if (two_tanh_th1(t2[1] - t2[0], t2[0] + t2[1], c) >= lvl)
                b = c;
            else
                a = c;
        }
        cr_assert_float_eq(cx.t[1][k], b, 1e-7, "level %g: %g vs %g", lvl, cx.t[1][k], b);
    }
    osc_crossings_free(&cx);
    rec_free(&r2);
    osc_graph_free(&g);
}

/* ---- delays ---- */

/* Rank 0 runs freely (theta_0 = omega t); rank i > 0 receives from 0 with delay tau_i:
 * u = theta_i - omega t follows u' = -c tanh(u + omega tau_i), so
 * sinh(u + omega tau) = sinh(u0 + omega tau) e^{-c t}. */
Test(osc_integrate, delayed_pull_closed_form)
{
    for (int per_edge = 0; per_edge <= 1; per_edge++) {
        const int32_t pairs[] = {1, 0, 2, 0};
        osc_graph_t g;
        graph_pairs(&g, 3, pairs, 2);
        cr_assert_eq(osc_graph_set_delay(&g, 0.15), 0);
        if (per_edge)
            g.tau[1] = 0.4; /* 2 <- 0 */
        double om[3] = {TWO_PI, TWO_PI, TWO_PI}, th0[3] = {0, 1.0, -0.5};
        osc_model_t m = {.n = 3, .omega = om, .vp = 3.0, .graph = &g};
        osc_pot_parse("tanh", &m.pot);
        double c = m.vp / m.n;
        osc_solver_opts_t so = tight();
        rec_t rec = {0};
        osc_stats_t st;
        run(&m, &so, 0, 8, th0, 0.05, &rec, NULL, &st);
        for (size_t k = 0; k < rec.count; k++) {
            double t = rec.t[k];
            const double *th = rec.th + 3 * k;
            cr_assert_float_eq(th[0], TWO_PI * t, 1e-9);
            for (int i = 1; i < 3; i++) {
                double wt = om[0] * g.tau[i - 1];
                double u = asinh(sinh(th0[i] + wt) * exp(-c * t)) - wt;
                cr_assert_float_eq(th[i], TWO_PI * t + u, 1e-6, "per_edge %d rank %d t %g: %g",
                                   per_edge, i, t, th[i] - TWO_PI * t - u);
            }
        }
        cr_assert_gt(st.history_peak, 0);
        rec_free(&rec);
        osc_graph_free(&g);
    }
}

/* Bidirectional with a delay: the adaptive solution against tiny fixed steps. */
Test(osc_integrate, delayed_pair_against_fixed_steps)
{
    const int32_t both[] = {0, 1, 1, 0};
    osc_graph_t g;
    graph_pairs(&g, 2, both, 2);
    cr_assert_eq(osc_graph_set_delay(&g, 0.2), 0);
    double om[2] = {TWO_PI, TWO_PI * 1.05}, th0[2] = {0, 2.0};
    osc_model_t m = {.n = 2, .omega = om, .vp = 4.0, .graph = &g};
    osc_pot_parse("sin", &m.pot);
    osc_solver_opts_t ref = tight(), ad;
    ref.h_fixed = 0.2 / 64;
    osc_solver_defaults(&ad);
    ad.rtol = 1e-6;
    ad.atol = 1e-8;
    rec_t a = {0}, b = {0};
    osc_stats_t sa, sb;
    run(&m, &ref, 0, 10, th0, 0.25, &a, NULL, &sa);
    run(&m, &ad, 0, 10, th0, 0.25, &b, NULL, &sb);
    cr_assert_eq(a.count, b.count);
    for (size_t k = 0; k < 2 * a.count; k++)
        cr_assert_float_eq(b.th[k], a.th[k], 1e-5, "sample %zu: %.10g vs %.10g", k, b.th[k],
                           a.th[k]);
    cr_assert_lt(sb.steps * 4, sa.steps);
    rec_free(&a);
    rec_free(&b);
    osc_graph_free(&g);
}

/* Short delays (message latencies, ~1e-4 of a period): steps much longer than the delay are
 * iterated, not cut down to it. Two coupled oscillators, one held back 0.3 period at t = 10.3
 * (a jump that reaches through the delay), against tiny fixed steps no longer than the delay
 * (no iteration there); the adaptive run takes about the steps of the same problem without
 * delay. tau2 > 0: that delay on the edge 1 <- 0 (per-edge delays). Returns the largest
 * difference from the reference over the samples. */
static double short_delay_case(double tau, double tau2, const osc_solver_opts_t *ad,
                               double href, osc_stats_t *sa, osc_stats_t *s0)
{
    const int32_t both[] = {0, 1, 1, 0};
    osc_graph_t g;
    graph_pairs(&g, 2, both, 2);
    cr_assert_eq(osc_graph_set_delay(&g, tau), 0);
    if (tau2 > 0)
        g.tau[1] = tau2;
    double om[2] = {TWO_PI, TWO_PI * 1.05}, th0[2] = {0, 2.0};
    osc_perturb_t p = {.rank = 1, .t = 10.3, .delta = 0.3};
    osc_model_t m = {.n = 2, .omega = om, .vp = 4.0, .graph = &g, .perturb = &p, .nperturb = 1};
    osc_pot_parse("sin", &m.pot);
    osc_solver_opts_t ref = tight();
    ref.h_fixed = href;
    rec_t a = {0}, b = {0}, c = {0};
    osc_stats_t sr;
    run(&m, &ref, 0, 50, th0, 0.25, &a, NULL, &sr);
    run(&m, ad, 0, 50, th0, 0.25, &b, NULL, sa);
    cr_assert_eq(a.count, b.count);
    double maxd = 0;
    for (size_t k = 0; k < 2 * a.count; k++)
        maxd = fmax(maxd, fabs(b.th[k] - a.th[k]));
    g.tau[0] = g.tau[1] = 0;
    run(&m, ad, 0, 50, th0, 0.25, &c, NULL, s0);
    rec_free(&a);
    rec_free(&b);
    rec_free(&c);
    osc_graph_free(&g);
    return maxd;
}

Test(osc_integrate, short_delay_iterated)
{
    osc_solver_opts_t ad;
    osc_solver_defaults(&ad);
    ad.rtol = 0; /* absolute: the phases grow to 300 rad */
    ad.atol = 1e-8;
    for (int per_edge = 0; per_edge <= 1; per_edge++) {
        osc_stats_t sa, s0;
        double e = short_delay_case(1e-4, per_edge ? 2.5e-4 : 0, &ad, 1e-4, &sa, &s0);
        cr_log_info("tau 1e-4 T%s: max |adaptive - fixed| %.3g; steps %zu (tau 0: %zu), "
                    "rejected %zu, evals %zu (tau 0: %zu)", per_edge ? " and 2.5e-4 T" : "", e,
                    sa.steps, s0.steps, sa.rejected, sa.evals, s0.evals);
        cr_assert_lt(e, 5 * ad.atol, "per_edge %d: %g", per_edge, e);
        cr_assert_leq(sa.steps, 2 * s0.steps, "%zu steps against %zu without delay", sa.steps,
                      s0.steps);
        cr_assert_lt(sa.evals, 4 * s0.evals);
    }
}

/* A delay of 0.3 h_max: the steps reach past it (fewer steps than 50 s / tau) and are still
 * accurate. */
Test(osc_integrate, delay_shorter_than_step)
{
    osc_solver_opts_t ad;
    osc_solver_defaults(&ad);
    ad.rtol = 0;
    ad.atol = 1e-7;
    double tau = 0.3 * 0.1; /* h_max: a tenth of the shortest period 1 / 1.05 */
    osc_stats_t sa, s0;
    double e = short_delay_case(tau, 0, &ad, tau / 16, &sa, &s0);
    cr_log_info("tau 0.03 T: max |adaptive - fixed| %.3g; steps %zu (tau 0: %zu), rejected %zu,"
                " evals %zu", e, sa.steps, s0.steps, sa.rejected, sa.evals);
    cr_assert_lt(e, 5 * ad.atol, "tau 0.3 h_max: %g", e);
    cr_assert_lt(sa.steps, (size_t)(0.7 * 50 / tau), "%zu steps: not past the delay",
                 sa.steps);
}

Test(osc_integrate, history_bounded)
{
    int32_t n = 16;
    osc_topo_spec_t ts;
    osc_graph_t g;
    char why[200];
    cr_assert_eq(osc_topo_parse("ring:bi", &ts), 0);
    cr_assert_eq(osc_graph_named(n, &ts, &g, why, sizeof(why)), 0);
    cr_assert_eq(osc_graph_set_delay(&g, 0.3), 0);
    double om[16], th0[16];
    osc_init_t in = {.kind = OSC_INIT_RANDOM, .seed = 3};
    osc_init_fill(&in, n, th0);
    for (int i = 0; i < n; i++)
        om[i] = TWO_PI;
    osc_model_t m = {.n = n, .omega = om, .vp = 4.0, .graph = &g};
    osc_pot_parse("tanh", &m.pot);
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    osc_stats_t st;
    osc_run_t r = {.t0 = 0, .t1 = 500, .theta0 = th0};
    cr_assert_eq(osc_integrate(&m, &so, &r, NULL, &st, why, sizeof(why)), 0, "%s", why);
    cr_assert_gt(st.steps, 4000);
    cr_assert_leq(st.history_peak, 16, "history peak %zu", st.history_peak);
    cr_assert_lt(st.bytes_peak, 64 * 1024);
    osc_graph_free(&g);
}

/* Breakpoints on a grid of steps (a perturbation at a whole period, its ends reached
 * through the delay) cost no sliver steps: the steps stay at h_max. */
Test(osc_integrate, no_sliver_steps)
{
    int32_t n = 64;
    osc_topo_spec_t ts;
    osc_graph_t g;
    char why[200];
    cr_assert_eq(osc_topo_parse("chain:bi", &ts), 0);
    cr_assert_eq(osc_graph_named(n, &ts, &g, why, sizeof(why)), 0);
    cr_assert_eq(osc_graph_set_delay(&g, 0.1), 0);
    double om[64], th0[64] = {0};
    for (int i = 0; i < n; i++)
        om[i] = TWO_PI;
    osc_perturb_t p = {.rank = 32, .t = 10, .delta = 0.5};
    osc_model_t m = {.n = n, .omega = om, .vp = 2, .graph = &g, .perturb = &p, .nperturb = 1};
    osc_pot_parse("tanh", &m.pot);
    osc_stats_t st;
    osc_run_t r = {.t0 = 0, .t1 = 30, .theta0 = th0};
    cr_assert_eq(osc_integrate(&m, NULL, &r, NULL, &st, why, sizeof(why)), 0, "%s", why);
    cr_assert_leq(st.steps, 300 + 15, "%zu steps", st.steps); /* 15: the first steps' ramp */
    cr_assert_leq(st.history_peak, 6);
    osc_graph_free(&g);
}

/* ---- noise and perturbations ---- */

Test(osc_model, noise_generator)
{
    osc_noise_t u = {.kind = OSC_NOISE_UNIFORM, .share = 0.1, .window = 0.5, .seed = 42};
    osc_noise_t e = u, u2 = u;
    e.kind = OSC_NOISE_EXP;
    u2.seed = 43;
    double su = 0, se = 0, se2 = 0;
    int differ = 0;
    const int W = 200000;
    for (int64_t w = -5; w < W; w++) {
        double r = osc_noise_r(&u, 3, w);
        cr_assert(r >= 0 && r < 1);
        cr_assert_eq(r, osc_noise_r(&u, 3, w)); /* a function of (seed, rank, window) */
        differ += r != osc_noise_r(&u2, 3, w);
        differ += r != osc_noise_r(&u, 4, w);
        double x = osc_noise_r(&e, 3, w);
        cr_assert_geq(x, 0);
        if (w >= 0)
            su += r, se += x, se2 += x * x;
    }
    cr_assert_gt(differ, 2 * W - 10);
    cr_assert_float_eq(su / W, 0.5, 0.005);
    cr_assert_float_eq(se / W, 1.0, 0.01);
    cr_assert_float_eq(se2 / W - (se / W) * (se / W), 1.0, 0.03); /* exponential: var 1 */
    osc_noise_t none = {0};
    cr_assert_eq(osc_noise_r(&none, 0, 0), 0.0);
}

/* Free noisy oscillators are piecewise linear: the integrator lands on every window edge,
 * so any tolerance gives the exact sum of the windows' rates. */
Test(osc_integrate, noise_windows_exact)
{
    double om[2] = {TWO_PI, 2.0}, th0[2] = {0, 1};
    osc_model_t m = {.n = 2, .omega = om, .vp = 0};
    osc_pot_parse("sin", &m.pot);
    m.noise = (osc_noise_t){.kind = OSC_NOISE_EXP, .share = 0.3, .window = 0.1, .seed = 9};
    const double tols[] = {1e-3, 1e-9};
    double end[2][2];
    for (int k = 0; k < 2; k++) {
        osc_solver_opts_t so;
        osc_solver_defaults(&so);
        so.rtol = tols[k];
        so.atol = tols[k] * 1e-3;
        rec_t rec = {0};
        osc_stats_t st;
        run(&m, &so, 0, 7.05, th0, 7.05, &rec, NULL, &st);
        cr_assert_geq(st.steps, 71);
        memcpy(end[k], rec.th + 2 * (rec.count - 1), sizeof(end[k]));
        rec_free(&rec);
    }
    for (int i = 0; i < 2; i++) {
        double want = th0[i];
        for (int64_t w = 0; w <= 70; w++) {
            double len = w < 70 ? 0.1 : 7.05 - 7.0;
            want += om[i] * (1 + 0.3 * osc_noise_r(&m.noise, i, w)) * len;
        }
        cr_assert_float_eq(end[0][i], want, 1e-9, "rank %d: %.12g vs %.12g", i, end[0][i], want);
        cr_assert_float_eq(end[1][i], want, 1e-9);
    }
}

Test(osc_integrate, perturbation_holds_rank)
{
    double om[2] = {TWO_PI, TWO_PI}, th0[2] = {0.2, 0.2};
    osc_perturb_t p = {.rank = 1, .t = 2.03, .delta = 0.77};
    osc_model_t m = {.n = 2, .omega = om, .vp = 0, .perturb = &p, .nperturb = 1};
    osc_pot_parse("tanh", &m.pot);
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    rec_t rec = {0};
    osc_crossings_t cx;
    run(&m, &so, 0, 6, th0, 0.01, &rec, &cx, NULL);
    for (size_t k = 0; k < rec.count; k++) {
        double t = rec.t[k], lag = t < p.t ? 0 : t < p.t + p.delta ? t - p.t : p.delta;
        cr_assert_float_eq(rec.th[2 * k] - rec.th[2 * k + 1], TWO_PI * lag, 1e-9, "t %g", t);
    }
    /* its crossings come delta later once it was held */
    for (uint32_t k = 0; k < cx.count[1]; k++)
        cr_assert_float_eq(cx.t[1][k] - cx.t[0][k], cx.t[0][k] > p.t ? p.delta : 0, 1e-9);
    osc_crossings_free(&cx);
    rec_free(&rec);
    /* with coupling, the held rank's rate is 0 while held (the whole right-hand side) */
    const int32_t both[] = {0, 1, 1, 0};
    osc_graph_t g;
    graph_pairs(&g, 2, both, 2);
    m.graph = &g;
    m.vp = 5;
    double th[2] = {0, 1}, d[2];
    osc_model_rhs(&m, 2.5, th, d);
    cr_assert_eq(d[1], 0.0);
    cr_assert_float_eq(d[0], TWO_PI + 2.5 * tanh(1.0), 1e-12);
    osc_model_rhs(&m, 1.0, th, d);
    cr_assert_float_eq(d[1], TWO_PI + 2.5 * tanh(-1.0), 1e-12);
    osc_graph_free(&g);
}

/* ---- the paper's qualitative results, from the model alone ----
 * (not here: "moderate noise speeds resynchronisation". With zeta_i = share omega_i r_i as
 * specified, noise of 2-10 % in windows of 0.2-1 period lengthened or scattered the time to
 * R >= 0.99 over seeds rather than shortening it; see doc/oscillate-model.md.) */

typedef struct resync {
    int32_t n;
    double after;  /* the perturbation's end */
    double t_sync; /* first sample after it with R >= 0.99 (held there to the end), or -1 */
    double r_min, r_end;
} resync_t;

static int resync_sample(void *ctx, double t, const double *th)
{
    resync_t *s = ctx;
    double R = order_R(th, s->n);
    if (t < s->after)
        return 0;
    s->r_min = fmin(s->r_min, R);
    if (R < 0.99)
        s->t_sync = -1;
    else if (s->t_sync < 0)
        s->t_sync = t;
    s->r_end = R;
    return 0;
}

/* 16 ranks, open chain, T = 1 s, v_p = 2 / T (rendezvous, kappa 1), rank 8 held back half a
 * period at t = 5. */
static resync_t resync_run(const char *topo, const char *pot, double t1)
{
    int32_t n = 16;
    osc_topo_spec_t ts;
    osc_graph_t g;
    char why[200];
    cr_assert_eq(osc_topo_parse(topo, &ts), 0);
    cr_assert_eq(osc_graph_named(n, &ts, &g, why, sizeof(why)), 0);
    double om[16], th0[16] = {0};
    for (int i = 0; i < n; i++)
        om[i] = TWO_PI;
    osc_perturb_t p = {.rank = 8, .t = 5, .delta = 0.5};
    osc_model_t m = {.n = n, .omega = om, .vp = 2.0, .graph = &g, .perturb = &p, .nperturb = 1};
    cr_assert_eq(osc_pot_parse(pot, &m.pot), 0);
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    resync_t s = {.n = n, .after = p.t + p.delta, .t_sync = -1, .r_min = 2};
    osc_run_t r = {.t0 = 0, .t1 = t1, .theta0 = th0, .dt_out = 0.05, .sample = resync_sample,
                   .ctx = &s};
    cr_assert_eq(osc_integrate(&m, &so, &r, NULL, NULL, why, sizeof(why)), 0, "%s", why);
    osc_graph_free(&g);
    return s;
}

Test(osc_paper, tanh_resyncs_bottleneck_keeps_wavefront)
{
    resync_t s = resync_run("chain:bi", "tanh", 200);
    cr_assert_lt(s.r_min, 0.9); /* the perturbation was felt */
    cr_assert_gt(s.t_sync, 0);
    cr_assert_gt(s.r_end, 0.999);
    resync_t w = resync_run("chain:bi", "piecewise", 300);
    cr_assert_lt(w.t_sync, 0);
    cr_assert_lt(w.r_end, 0.8, "bottleneck R at the end %g", w.r_end);
}

Test(osc_paper, bidirectional_resyncs_in_about_half_the_time)
{
    resync_t bi = resync_run("chain:bi", "tanh", 250), uni = resync_run("chain:uni", "tanh", 250);
    cr_assert_gt(bi.t_sync, 0);
    cr_assert_gt(uni.t_sync, 0);
    double ratio = (bi.t_sync - bi.after) / (uni.t_sync - uni.after);
    cr_log_info("resync after the delay: bi %.2f s, uni %.2f s, ratio %.3f", bi.t_sync - bi.after,
                uni.t_sync - uni.after, ratio);
    cr_assert(ratio >= 0.3 && ratio <= 0.75, "bi %g s, uni %g s after the delay: ratio %g",
              bi.t_sync - bi.after, uni.t_sync - uni.after, ratio);
}

/* ---- bad inputs ---- */

Test(osc_model, parsers)
{
    osc_pot_t p;
    char buf[64];
    const char *good[] = {"sin",         "tanh", "tanh:2.5", "piecewise",
                          "piecewise:2", "fourier:0.5,0.25,3"};
    for (int k = 0; k < 6; k++) {
        cr_assert_eq(osc_pot_parse(good[k], &p), 0, "%s", good[k]);
        osc_pot_format(&p, buf, sizeof(buf));
        osc_pot_t q;
        cr_assert_eq(osc_pot_parse(buf, &q), 0, "%s -> %s", good[k], buf);
        cr_assert_eq(q.kind, p.kind);
        for (double x = -5; x <= 5; x += 0.37)
            cr_assert_float_eq(osc_pot_eval(&q, x), osc_pot_eval(&p, x), 1e-8);
    }
    cr_assert_eq(osc_pot_parse("piecewise", &p), 0);
    cr_assert_float_eq(p.sigma, M_PI, 1e-15);
    cr_assert_float_eq(osc_pot_eval(&p, 1.0), -sin(1.5), 1e-15);
    const char *bad[] = {"", "cos", "tanh:", "tanh:0", "tanh:-1", "tanh:2x", "piecewise:x",
                         "piecewise:0", "fourier:1,2", "fourier:1,2,0", "fourier:1,2,3,", "sine"};
    for (int k = 0; k < 12; k++) {
        cr_assert_eq(osc_pot_parse(bad[k], &p), -1, "%s", bad[k]);
        cr_assert_eq(p.kind, 0);
    }
    osc_topo_spec_t t;
    cr_assert_eq(osc_topo_parse("chain", &t), 0);
    cr_assert(t.kind == OSC_TOPO_CHAIN && !t.uni && t.distance == 1);
    cr_assert_eq(osc_topo_parse("ring:uni:d3", &t), 0);
    cr_assert(t.kind == OSC_TOPO_RING && t.uni && t.distance == 3);
    cr_assert_eq(osc_topo_parse("stencil3d:2x0x4:periodic", &t), 0);
    cr_assert(t.dims[0] == 2 && t.dims[1] == 0 && t.dims[2] == 4 && t.periodic);
    cr_assert_eq(osc_topo_parse("all", &t), 0);
    const char *tbad[] = {"", "chain:", "chain:d0", "chain:dx", "chain:uni:uni", "ring:sideways",
                          "stencil2d:4", "stencil2d:4x4x4", "stencil3d:periodic:periodic",
                          "all:uni", "mesh", "chain::uni"};
    for (int k = 0; k < 12; k++)
        cr_assert_eq(osc_topo_parse(tbad[k], &t), -1, "%s", tbad[k]);
    osc_init_t in;
    cr_assert_eq(osc_init_parse("local:2:4.712", &in), 0);
    cr_assert(in.kind == OSC_INIT_LOCAL && in.k == 2 && in.v == 4.712);
    cr_assert_eq(osc_init_parse("random:12", &in), 0);
    cr_assert(in.kind == OSC_INIT_RANDOM && in.seed == 12);
    const char *ibad[] = {"", "local", "local:2", "local:-1:3", "local:2:x", "random:", "random:x",
                          "splay:1", "zeros"};
    for (int k = 0; k < 9; k++)
        cr_assert_eq(osc_init_parse(ibad[k], &in), -1, "%s", ibad[k]);
    double th[4];
    in = (osc_init_t){.kind = OSC_INIT_LOCAL, .k = 5, .v = 1};
    cr_assert_eq(osc_init_fill(&in, 4, th), -1);
    in.k = 1;
    cr_assert_eq(osc_init_fill(&in, 4, th), 0);
    cr_assert(th[0] == 1 && th[1] == 0 && th[3] == 0);
    in = (osc_init_t){.kind = OSC_INIT_RANDOM, .seed = 5};
    cr_assert_eq(osc_init_fill(&in, 4, th), 0);
    for (int i = 0; i < 4; i++)
        cr_assert(th[i] >= 0 && th[i] < TWO_PI);
}

Test(osc_model, graphs)
{
    char why[200];
    osc_graph_t g;
    const int32_t out[] = {0, 4}, self[] = {1, 1}, neg[] = {-1, 0};
    cr_assert_eq(osc_graph_from_pairs(4, out, 1, &g, why, sizeof(why)), -1);
    cr_assert(strstr(why, "outside") != NULL);
    cr_assert_eq(osc_graph_from_pairs(4, self, 1, &g, why, sizeof(why)), -1);
    cr_assert_eq(osc_graph_from_pairs(4, neg, 1, &g, why, sizeof(why)), -1);
    cr_assert_eq(osc_graph_from_pairs(0, NULL, 0, &g, why, sizeof(why)), -1);
    const int32_t dup[] = {2, 3, 2, 0, 2, 3, 0, 1};
    cr_assert_eq(osc_graph_from_pairs(4, dup, 4, &g, why, sizeof(why)), 0);
    cr_assert_eq(g.nnz, 3);
    cr_assert(g.off[2] == 1 && g.off[3] == 3 && g.nb[1] == 0 && g.nb[2] == 3);
    osc_graph_free(&g);
    osc_topo_spec_t t;
    osc_topo_parse("chain:uni", &t);
    cr_assert_eq(osc_graph_named(5, &t, &g, why, sizeof(why)), 0);
    cr_assert(g.nnz == 4 && g.off[1] == 0 && g.nb[0] == 0 && g.nb[3] == 3); /* i <- i-1 */
    osc_graph_free(&g);
    osc_topo_parse("ring:bi:d2", &t);
    cr_assert_eq(osc_graph_named(5, &t, &g, why, sizeof(why)), 0);
    cr_assert_eq(g.nnz, 20);
    osc_graph_free(&g);
    osc_topo_parse("ring:bi:d2", &t);
    cr_assert_eq(osc_graph_named(3, &t, &g, why, sizeof(why)), 0);
    cr_assert_eq(g.nnz, 6); /* merged, no self loops */
    osc_graph_free(&g);
    osc_topo_parse("stencil2d", &t);
    cr_assert_eq(osc_graph_named(12, &t, &g, why, sizeof(why)), 0); /* 4x3 */
    cr_assert_eq(g.nnz, 2 * (3 * 3 + 4 * 2));
    osc_graph_free(&g);
    osc_topo_parse("stencil3d:periodic", &t);
    cr_assert_eq(osc_graph_named(27, &t, &g, why, sizeof(why)), 0);
    cr_assert_eq(g.nnz, 27 * 6);
    osc_graph_free(&g);
    osc_topo_parse("stencil2d:5x0", &t);
    cr_assert_eq(osc_graph_named(12, &t, &g, why, sizeof(why)), -1);
    osc_topo_parse("all", &t);
    cr_assert_eq(osc_graph_named(6, &t, &g, why, sizeof(why)), 0);
    cr_assert_eq(g.nnz, 30);
    cr_assert_eq(osc_graph_set_delay(&g, -1), -1);
    cr_assert_eq(osc_graph_set_delay(&g, 0.5), 0);
    cr_assert_eq(g.tau[29], 0.5);
    osc_graph_free(&g);
}

Test(osc_model, check_rejects)
{
    char why[200];
    double om[3] = {1, 1, 1};
    osc_graph_t g;
    const int32_t pairs[] = {0, 1, 1, 0};
    graph_pairs(&g, 2, pairs, 2);
    osc_model_t ok = {.n = 2, .omega = om, .vp = 1, .graph = &g};
    osc_pot_parse("tanh", &ok.pot);
    cr_assert_eq(osc_model_check(&ok, why, sizeof(why)), 0);
    osc_model_t m = ok;
    m.n = 0;
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    m = ok;
    m.n = 3; /* graph of another size */
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    cr_assert(strstr(why, "graph") != NULL);
    m = ok;
    m.vp = -1;
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    double bad_om[2] = {1, NAN};
    m = ok;
    m.omega = bad_om;
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    bad_om[1] = -1;
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    m = ok;
    m.noise = (osc_noise_t){.kind = OSC_NOISE_UNIFORM, .share = 0.1, .window = 0};
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    m.noise.window = 1;
    m.noise.share = -0.1;
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    m = ok;
    osc_perturb_t p = {.rank = 2, .t = 0, .delta = 1};
    m.perturb = &p;
    m.nperturb = 1;
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    p.rank = 1;
    p.delta = -1;
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    m = ok;
    cr_assert_eq(osc_graph_set_delay(&g, 0.1), 0);
    g.tau[0] = -0.5;
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    g.tau[0] = 0.1;
    m.pot.s = 0;
    cr_assert_eq(osc_model_check(&m, why, sizeof(why)), -1);
    /* and the integrator refuses what the check refuses, and bad runs */
    m = ok;
    double th0[2] = {0, 0};
    osc_run_t r = {.t0 = 0, .t1 = 1, .theta0 = th0};
    m.vp = -1;
    cr_assert_eq(osc_integrate(&m, NULL, &r, NULL, NULL, why, sizeof(why)), -1);
    m.vp = 1;
    r.t1 = 0;
    cr_assert_eq(osc_integrate(&m, NULL, &r, NULL, NULL, why, sizeof(why)), -1);
    r.t1 = 1;
    r.sample = rec_sample;
    cr_assert_eq(osc_integrate(&m, NULL, &r, NULL, NULL, why, sizeof(why)), -1); /* dt_out 0 */
    r.sample = NULL;
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    so.max_steps = 3;
    r.t1 = 100;
    cr_assert_eq(osc_integrate(&m, &so, &r, NULL, NULL, why, sizeof(why)), -1);
    cr_assert(strstr(why, "steps") != NULL, "%s", why);
    osc_graph_free(&g);
}

static int stop_at_third(void *ctx, double t, const double *theta)
{
    (void)t;
    (void)theta;
    return ++*(int *)ctx == 3 ? 7 : 0;
}

Test(osc_integrate, sample_stops)
{
    double om[1] = {1}, th0[1] = {0};
    osc_model_t m = {.n = 1, .omega = om};
    int calls = 0;
    osc_run_t r = {.t0 = 0, .t1 = 10, .theta0 = th0, .dt_out = 1, .sample = stop_at_third,
                   .ctx = &calls};
    char why[200];
    cr_assert_eq(osc_integrate(&m, NULL, &r, NULL, NULL, why, sizeof(why)), 7);
    cr_assert_eq(calls, 3);
}

/* ---- phasor's wait potential ---- */

Test(osc_wait, parse_format_eval)
{
    osc_pot_t p;
    char buf[80];
    cr_assert_eq(osc_pot_parse("wait", &p), 0);
    cr_assert_eq(p.kind, OSC_POT_WAIT);
    cr_assert_float_eq(p.sigma, TWO_PI, 1e-15);
    cr_assert_float_eq(p.s, 4, 1e-15);
    cr_assert_eq(osc_pot_parse("wait:3", &p), 0);
    cr_assert_float_eq(p.sigma, 3, 1e-15);
    cr_assert_eq(osc_pot_parse("wait:3:2", &p), 0);
    cr_assert_float_eq(p.s, 2, 1e-15);
    osc_pot_format(&p, buf, sizeof(buf));
    cr_assert_str_eq(buf, "wait:3:2");
    osc_pot_t q;
    cr_assert_eq(osc_pot_parse(buf, &q), 0);
    cr_assert(q.kind == p.kind && q.sigma == p.sigma && q.s == p.s);
    static const char *const bad[] = {"wait:", "wait:-1", "wait:1:0", "wait:x", "wait:1:2:3",
                                      "waits", "wait:1:"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(*bad); k++)
        cr_assert_eq(osc_pot_parse(bad[k], &q), -1, "'%s' accepted", bad[k]);
    /* held back only by a neighbour more than sigma behind, never pulled forward */
    cr_assert_eq(osc_pot_eval(&p, 5), 0);
    cr_assert_eq(osc_pot_eval(&p, -3), 0);
    cr_assert_float_eq(osc_pot_eval(&p, -4), tanh(2 * -1.0), 1e-15);
    cr_assert(osc_pot_eval(&p, -100) >= -1);
}

/* A delay on one rank of a chain whose ranks see each other one period late and wait for a
 * neighbour more than that lag behind: the wait travels one rank per period both ways (after
 * the first hop, which the lag makes two), the
 * late rank is never pulled forward, and with no slack beyond the lag nothing of the delay
 * is lost on the way (every rank ends the delay behind). */
Test(osc_wait, idle_wave_one_rank_per_period)
{
    enum { P = 12, SRC = 6 };
    const double T = 0.01, w = TWO_PI / T, delta = 0.4 * T;
    double omega[P], th0[P] = {0};
    for (int i = 0; i < P; i++)
        omega[i] = w;
    osc_graph_t g;
    osc_topo_spec_t ts;
    char why[160];
    cr_assert_eq(osc_topo_parse("chain:bi", &ts), 0);
    cr_assert_eq(osc_graph_named(P, &ts, &g, why, sizeof(why)), 0);
    cr_assert_eq(osc_graph_set_delay(&g, T), 0);
    osc_perturb_t pe = {SRC, 0.1, delta};
    osc_model_t m = {.n = P, .omega = omega, .vp = P * w, .graph = &g, .perturb = &pe,
                     .nperturb = 1};
    cr_assert_eq(osc_pot_parse("wait:6.2831853:40", &m.pot), 0);
    m.pot.sigma = w * T; /* exactly the lag */
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    so.rtol = 1e-8;
    so.atol = 1e-8;
    osc_run_t r = {.t0 = 0, .t1 = 0.4, .theta0 = th0, .crossings = 1};
    osc_crossings_t cx;
    cr_assert_eq(osc_integrate(&m, &so, &r, &cx, NULL, why, sizeof(why)), 0, "%s", why);
    /* the iteration each rank waited in: its longest */
    int at[P];
    for (int i = 0; i < P; i++) {
        double best = 0;
        at[i] = -1;
        for (uint32_t k = 0; k + 1 < cx.count[i]; k++) {
            double d = cx.t[i][k + 1] - cx.t[i][k];
            if (d > best) {
                best = d;
                at[i] = (int)k;
            }
        }
        cr_assert(best > T + 0.5 * delta, "rank %d waited only %g s more", i, best - T);
    }
    /* the first neighbours learn of the delay a period late (the lag): two iterations after
     * the source's; from there one hop per iteration */
    cr_assert_eq(at[SRC - 1] - at[SRC], 2, "the first hop downwards: %d", at[SRC - 1] - at[SRC]);
    cr_assert_eq(at[SRC + 1] - at[SRC], 2, "the first hop upwards: %d", at[SRC + 1] - at[SRC]);
    for (int d = 2; d < 6; d++) {
        cr_assert_eq(at[SRC - d] - at[SRC - d + 1], 1, "hop %d downwards", d);
        cr_assert_eq(at[SRC + d] - at[SRC + d - 1], 1, "hop %d upwards", d);
    }
    /* every rank ends the delay behind a free one: the last crossing is delta late */
    for (int i = 0; i < P; i++) {
        uint32_t k = cx.count[i] - 1;
        double free_t = (TWO_PI * (double)(cx.first[i] + k)) / w;
        cr_assert(fabs(cx.t[i][k] - free_t - delta) < 0.05 * delta, "rank %d ends %g s late", i,
                  cx.t[i][k] - free_t);
    }
    osc_crossings_free(&cx);
    osc_graph_free(&g);
}
