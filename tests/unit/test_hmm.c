/* test_hmm.c: the Gaussian HMM (models/hmm.h) on the synthetic regimes of
 * doc/notes/hmm-library.md: three regimes in log time (10, 15, 40 us, sd 0.05, stay
 * probability 0.99, T = 10^4) from a seeded generator. BIC picks K = 3, the parameters and
 * the Viterbi labels match the truth, EM never lowers log L, one far outlier does not break
 * the fit, a constant series is K = 1, bad input is rejected, and a seed gives one answer.
 * The outlier policy of hmm_select: three isolated spikes are outliers, not a regime; a
 * persistent regime of 1 % of the samples is a regime. hmm_loglik and hmm_fit_from agree
 * with the fit (hmm_ref.sh compares them with an independent implementation). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hmm.h"
#include "synth_rng.h"

#define NT 10000
#define SD 0.05

static const double truth_mu_s[3] = {1e-5, 1.5e-5, 4e-5};

/* x[t] = log(time), state[t] in 0..2 (ascending means). */
static void gen(double *x, int *state, size_t T, uint64_t seed)
{
    uint64_t s = seed;
    int k = (int)(srng_next(&s) % 3);
    for (size_t t = 0; t < T; t++) {
        if (t > 0 && srng_unif(&s) >= 0.99)
            k = (k + 1 + (int)(srng_next(&s) % 2)) % 3;
        state[t] = k;
        x[t] = log(truth_mu_s[k]) + SD * srng_gauss(&s);
    }
}

static void check_params(const hmm_t *m)
{
    cr_assert_eq(m->K, 3);
    for (int k = 0; k < 3; k++) {
        cr_expect(fabs(m->mu[k] - log(truth_mu_s[k])) < 0.01, "mu[%d] = %g, truth %g", k,
                  m->mu[k], log(truth_mu_s[k]));
        cr_expect(fabs(m->sd[k] - SD) < 0.2 * SD, "sd[%d] = %g, truth %g", k, m->sd[k], SD);
    }
}

static void check_sorted(const hmm_t *m)
{
    double s = 0;
    for (int k = 0; k < m->K; k++) {
        if (k > 0)
            cr_expect(m->mu[k - 1] <= m->mu[k], "state %d mean %g < state %d's", k, m->mu[k],
                      k - 1);
        s += m->pi[k];
        double r = 0;
        for (int j = 0; j < m->K; j++)
            r += m->A[k * m->K + j];
        cr_expect(fabs(r - 1) < 1e-9, "row %d of A sums to %.12g", k, r);
    }
    cr_expect(fabs(s - 1) < 1e-9, "pi sums to %.12g", s);
}

Test(hmm, bic_picks_three_regimes)
{
    static double x[NT];
    static int st[NT], lab[NT];
    gen(x, st, NT, 42);
    hmm_opts_t o = {.restarts = 2, .seed = 7};
    hmm_t m;
    double bic[4];
    char why[200] = "";
    cr_assert_eq(hmm_select(x, NT, 4, &o, &m, bic, why, sizeof(why)), 0, "%s", why);
    for (int k = 0; k < 4; k++)
        cr_expect(isfinite(bic[k]), "bic[%d] = %g", k, bic[k]);
    cr_expect(bic[2] < bic[0] && bic[2] < bic[1] && bic[2] < bic[3],
              "bic %g %g %g %g", bic[0], bic[1], bic[2], bic[3]);
    cr_assert_eq(m.K, 3, "BIC picked K = %d", m.K);
    cr_expect(m.converged, "not converged after %d iterations", m.iterations);
    cr_expect(fabs(hmm_bic(&m, NT) - bic[2]) < 1e-9);
    check_params(&m);
    check_sorted(&m);
    cr_assert_eq(hmm_viterbi(&m, x, NT, lab), 0);
    size_t ok = 0;
    for (size_t t = 0; t < NT; t++)
        ok += lab[t] == st[t];
    cr_expect((double)ok / NT > 0.99, "Viterbi accuracy %g", (double)ok / NT);
    hmm_free(&m);
}

/* Checks log L along each start's iterations: iter 0 is the start's own log L, each
 * later one must not fall by more than round-off (1e-9 |log L|). A start resumed after the
 * screening (iter > 1 after another start's) continues from its last value. */
typedef struct lltrace {
    int n, bad, steps;
    double last[64];
    int last_iter[64];
} lltrace_t;

static void on_iter(void *ctx, int start, int iter, double ll)
{
    lltrace_t *tr = ctx;
    cr_assert(start >= 0 && start < 64);
    if (iter > 0) {
        cr_expect_eq(tr->last_iter[start], iter - 1, "start %d: iter %d after %d", start,
                     iter, tr->last_iter[start]);
        if (ll < tr->last[start] - 1e-9 * fabs(ll))
            tr->bad++;
        tr->steps++;
    }
    tr->last[start] = ll, tr->last_iter[start] = iter;
    tr->n++;
}

Test(hmm, em_never_lowers_loglik)
{
    static double x[NT];
    static int st[NT];
    for (uint64_t seed = 43; seed < 47; seed++) {
        gen(x, st, NT, seed);
        if (seed == 45) /* one spike, the case that made the emissions log-space */
            x[NT / 3] = log(1e-3);
        for (int K = 1; K <= 5; K++) {
            lltrace_t tr = {.n = 0};
            hmm_opts_t o = {.restarts = 3, .seed = seed, .on_iter = on_iter, .ctx = &tr,
                            .screen_iter = seed == 46 ? -1 : 0};
            hmm_t m;
            char why[200] = "";
            cr_assert_eq(hmm_fit(x, seed == 44 ? 3000 : NT, K, &o, &m, why, sizeof(why)), 0,
                         "%s", why);
            cr_expect(tr.steps > 0);
            cr_expect_eq(tr.bad, 0, "seed %d K = %d: log L fell %d times in %d steps",
                         (int)seed, K, tr.bad, tr.steps);
            hmm_free(&m);
        }
    }
    /* The same through the iteration cap: more iterations never give less. */
    double prev = -INFINITY;
    for (int it = 1; it <= 6; it++) {
        hmm_opts_t o = {.max_iter = it, .tol = 1e-300};
        hmm_t m;
        cr_assert_eq(hmm_fit(x, NT, 3, &o, &m, NULL, 0), 0);
        cr_expect(m.iterations <= it, "%d iterations with max_iter %d", m.iterations, it);
        cr_expect(m.loglik >= prev - 1e-9 * fabs(prev), "max_iter %d: %.9g < %.9g", it,
                  m.loglik, prev);
        prev = m.loglik;
        hmm_free(&m);
    }
}

Test(hmm, one_far_outlier)
{
    static double x[NT];
    static int st[NT];
    gen(x, st, NT, 44);
    x[NT / 2] = log(1e-3);
    hmm_opts_t o = {.restarts = 2, .seed = 1};
    hmm_t m;
    char why[200] = "";
    cr_assert_eq(hmm_fit(x, NT, 3, &o, &m, why, sizeof(why)), 0, "%s", why);
    cr_assert(isfinite(m.loglik));
    for (int k = 0; k < 3; k++)
        cr_expect(fabs(m.mu[k] - log(truth_mu_s[k])) < 0.01, "mu[%d] = %g", k, m.mu[k]);
    check_sorted(&m);
    hmm_free(&m);
}

Test(hmm, constant_series_is_one_state)
{
    static double x[1000];
    for (size_t t = 0; t < 1000; t++)
        x[t] = log(1e-5);
    hmm_t m;
    double bic[3];
    char why[200] = "";
    cr_assert_eq(hmm_select(x, 1000, 3, NULL, &m, bic, why, sizeof(why)), 0, "%s", why);
    cr_expect_eq(m.K, 1);
    for (int k = 0; k < 3; k++)
        cr_expect(isfinite(bic[k]), "bic[%d] = %g", k, bic[k]);
    cr_expect(isfinite(m.loglik) && isfinite(m.sd[0]) && m.sd[0] > 0);
    cr_expect(fabs(m.mu[0] - log(1e-5)) < 1e-12);
    hmm_free(&m);
}

Test(hmm, rejects_bad_input)
{
    double x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    int lab[10];
    hmm_t m;
    char why[200] = "";
    x[4] = NAN;
    cr_expect_eq(hmm_fit(x, 10, 2, NULL, &m, why, sizeof(why)), -1);
    cr_expect(strstr(why, "NaN"), "why: %s", why);
    cr_expect_eq(m.K, 0);
    double bic[2] = {0, 0};
    cr_expect_eq(hmm_select(x, 10, 2, NULL, &m, bic, why, sizeof(why)), -1);
    x[4] = INFINITY;
    why[0] = '\0';
    cr_expect_eq(hmm_fit(x, 10, 2, NULL, &m, why, sizeof(why)), -1);
    cr_expect(why[0] != '\0');
    x[4] = 5;
    why[0] = '\0';
    cr_expect_eq(hmm_fit(x, 3, 4, NULL, &m, why, sizeof(why)), -1);
    cr_expect(strstr(why, "T >= K"), "why: %s", why);
    cr_expect_eq(hmm_fit(x, 10, 0, NULL, &m, NULL, 0), -1);
    /* select: K beyond T fails alone and is NAN; smaller K still fit. */
    double b3[3];
    cr_assert_eq(hmm_select(x, 2, 3, NULL, &m, b3, why, sizeof(why)), 0, "%s", why);
    cr_expect(isfinite(b3[0]) && isfinite(b3[1]) && isnan(b3[2]));
    cr_assert_eq(hmm_viterbi(&m, x, 10, lab), 0);
    x[0] = NAN;
    cr_expect_eq(hmm_viterbi(&m, x, 10, lab), -1);
    hmm_free(&m);
}

Test(hmm, deterministic_for_a_seed)
{
    static double x[NT];
    static int st[NT];
    gen(x, st, 4000, 45);
    hmm_opts_t o = {.restarts = 3, .seed = 99};
    hmm_t a, b;
    cr_assert_eq(hmm_fit(x, 4000, 3, &o, &a, NULL, 0), 0);
    cr_assert_eq(hmm_fit(x, 4000, 3, &o, &b, NULL, 0), 0);
    cr_expect_eq(a.loglik, b.loglik);
    cr_expect_eq(a.iterations, b.iterations);
    cr_expect_eq(memcmp(a.mu, b.mu, 3 * sizeof(double)), 0);
    cr_expect_eq(memcmp(a.sd, b.sd, 3 * sizeof(double)), 0);
    cr_expect_eq(memcmp(a.A, b.A, 9 * sizeof(double)), 0);
    cr_expect_eq(memcmp(a.pi, b.pi, 3 * sizeof(double)), 0);
    hmm_free(&a);
    hmm_free(&b);
}

Test(hmm, states_sorted_from_any_start)
{
    /* Random starts only matter through the best log L; whichever wins, means ascend and
       A and pi follow their states: the big self-transitions stay on the diagonal. */
    static double x[NT];
    static int st[NT];
    gen(x, st, 4000, 46);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        hmm_opts_t o = {.restarts = 4, .seed = seed};
        hmm_t m;
        cr_assert_eq(hmm_fit(x, 4000, 3, &o, &m, NULL, 0), 0);
        check_sorted(&m);
        for (int k = 0; k < 3; k++)
            cr_expect(m.A[k * 3 + k] > 0.95, "A[%d][%d] = %g", k, k, m.A[k * 3 + k]);
        hmm_free(&m);
    }
}

/* Two persistent regimes (10 and 20 us, sd 0.05, stay 0.99) in log time; T = 10^4. */
static void gen2(double *x, int *state, size_t T, uint64_t seed)
{
    uint64_t s = seed;
    int k = 0;
    for (size_t t = 0; t < T; t++) {
        if (t > 0 && srng_unif(&s) >= 0.99)
            k = 1 - k;
        state[t] = k;
        x[t] = log(k ? 2e-5 : 1e-5) + SD * srng_gauss(&s);
    }
}

Test(hmm, isolated_spikes_are_outliers)
{
    static double x[NT];
    static int st[NT], lab[NT];
    gen2(x, st, NT, 50);
    const size_t at[3] = {1234, 5678, 9012};
    x[at[0]] = log(1e-3), x[at[1]] = log(2e-3), x[at[2]] = log(5e-4);
    hmm_opts_t o = {.restarts = 2, .seed = 5};
    hmm_t m;
    double bic[5];
    char why[200] = "";
    /* without the policy BIC gives the spikes states of their own */
    hmm_opts_t off = o;
    off.min_state = -1;
    cr_assert_eq(hmm_select(x, NT, 5, &off, &m, bic, why, sizeof(why)), 0, "%s", why);
    cr_expect_gt(m.K, 2, "without the policy K = %d", m.K);
    cr_expect_eq(m.n_outliers, 0);
    cr_expect_null(m.outlier);
    hmm_free(&m);
    cr_assert_eq(hmm_select(x, NT, 5, &o, &m, bic, why, sizeof(why)), 0, "%s", why);
    cr_expect_eq(m.K, 2, "K = %d", m.K);
    cr_assert_eq(m.n_outliers, 3, "%zu outliers", m.n_outliers);
    cr_assert_not_null(m.outlier);
    size_t n = 0;
    for (size_t t = 0; t < NT; t++)
        n += m.outlier[t];
    cr_expect_eq(n, 3);
    for (int i = 0; i < 3; i++)
        cr_expect(m.outlier[at[i]], "the spike at %zu is not an outlier", at[i]);
    cr_expect_eq(m.n, NT - 3);
    cr_expect(fabs(hmm_bic(&m, m.n) - bic[1]) < 1e-6, "bic %g, %g", hmm_bic(&m, m.n), bic[1]);
    cr_expect(fabs(m.mu[0] - log(1e-5)) < 0.01 && fabs(m.mu[1] - log(2e-5)) < 0.01,
              "mu %g %g", m.mu[0], m.mu[1]);
    cr_assert_eq(hmm_viterbi_mask(&m, x, NT, m.outlier, lab), 0);
    size_t ok = 0;
    for (size_t t = 0; t < NT; t++)
        ok += m.outlier[t] || lab[t] == st[t];
    cr_expect(ok > 0.99 * NT, "accuracy %g", (double)ok / NT);
    for (int i = 0; i < 3; i++) /* labelled by the nearest state: the slower one */
        cr_expect_eq(lab[at[i]], 1);
    hmm_free(&m);
}

Test(hmm, a_rare_persistent_regime_is_a_regime)
{
    static double x[NT];
    static int st[NT], lab[NT];
    gen2(x, st, NT, 51);
    uint64_t s = 77;
    for (int r = 0; r < 4; r++) /* 1 %: four runs of 25 samples at 40 us */
        for (size_t t = 1000 + 2300 * (size_t)r; t < 1025 + 2300 * (size_t)r; t++)
            st[t] = 2, x[t] = log(4e-5) + SD * srng_gauss(&s);
    hmm_opts_t o = {.restarts = 2, .seed = 5};
    hmm_t m;
    char why[200] = "";
    cr_assert_eq(hmm_select(x, NT, 5, &o, &m, NULL, why, sizeof(why)), 0, "%s", why);
    cr_expect_eq(m.K, 3, "K = %d", m.K);
    cr_expect_eq(m.n_outliers, 0, "%zu outliers", m.n_outliers);
    cr_assert_eq(hmm_viterbi_mask(&m, x, NT, m.outlier, lab), 0);
    size_t ok = 0, rare = 0;
    for (size_t t = 0; t < NT; t++)
        ok += lab[t] == st[t], rare += st[t] == 2 && lab[t] == 2;
    cr_expect(ok > 0.99 * NT, "accuracy %g", (double)ok / NT);
    cr_expect_eq(rare, 100, "%zu of the rare regime's 100 samples", rare);
    hmm_free(&m);
}

Test(hmm, loglik_and_fit_from)
{
    static double x[NT];
    static int st[NT];
    gen(x, st, 3000, 52);
    hmm_opts_t o = {.restarts = 1, .seed = 2};
    hmm_t m, f;
    cr_assert_eq(hmm_fit(x, 3000, 3, &o, &m, NULL, 0), 0);
    double ll = hmm_loglik(&m, x, 3000);
    cr_expect(fabs(ll - m.loglik) < 1e-9 * fabs(ll), "hmm_loglik %.12g, fit %.12g", ll,
              m.loglik);
    /* from the fitted model EM has nowhere to go: one iteration keeps log L */
    hmm_opts_t one = {.max_iter = 1, .tol = 1e-300};
    cr_assert_eq(hmm_fit_from(x, 3000, &m, &one, &f, NULL, 0), 0);
    cr_expect_eq(f.iterations, 1);
    cr_expect(f.loglik >= m.loglik - 1e-9 * fabs(m.loglik));
    cr_expect(f.loglik - m.loglik < 1e-3, "%.12g after %.12g", f.loglik, m.loglik);
    hmm_free(&f);
    hmm_t bad = m;
    bad.K = 0;
    cr_expect_eq(hmm_fit_from(x, 3000, &bad, NULL, &f, NULL, 0), -1);
    cr_expect(isnan(hmm_loglik(&bad, x, 3000)));
    x[7] = NAN;
    cr_expect(isnan(hmm_loglik(&m, x, 3000)));
    hmm_free(&m);
}
