/* hmm_ref_dump: fixed data for tests/unit/hmm_ref.sh, which checks models/hmm.c against an
 * independent Python implementation. Prints, one "name values..." line each (%.17g): a
 * seeded 3-regime series in log time (T = 400, sd 0.1, stay 0.95), deliberately poor
 * initial parameters (K = 3), the variance floor, hmm_loglik of the initial model, the log L
 * trace of hmm_fit_from over exactly ITERS (20) EM iterations (iter 0 first) and the final
 * model (states sorted by mean). Then the same for K = 2 from other initial parameters. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hmm.h"
#include "synth_rng.h"

#define T 400
#define ITERS 20

typedef struct trace {
    int n;
    double ll[ITERS + 1];
} trace_t;

static void on_iter(void *ctx, int start, int iter, double ll)
{
    trace_t *tr = ctx;
    (void)start;
    if (iter >= 0 && iter <= ITERS)
        tr->ll[iter] = ll, tr->n = iter + 1;
}

static void line(const char *name, const double *v, int n)
{
    printf("%s", name);
    for (int i = 0; i < n; i++)
        printf(" %.17g", v[i]);
    printf("\n");
}

static int run(const char *tag, const double *x, const hmm_t *init, double var_floor)
{
    int K = init->K;
    trace_t tr = {0};
    hmm_opts_t o = {.max_iter = ITERS, .tol = 1e-300, .var_floor = var_floor,
                    .on_iter = on_iter, .ctx = &tr};
    hmm_t m;
    char why[200];
    if (hmm_fit_from(x, T, init, &o, &m, why, sizeof(why)) != 0) {
        fprintf(stderr, "hmm_ref_dump: %s\n", why);
        return 1;
    }
    printf("case %s\n", tag);
    double kv = K, vf = var_floor, li = hmm_loglik(init, x, T), lf = hmm_loglik(&m, x, T);
    line("K", &kv, 1);
    line("pi", init->pi, K);
    line("A", init->A, K * K);
    line("mu", init->mu, K);
    line("sd", init->sd, K);
    line("var_floor", &vf, 1);
    line("loglik_init", &li, 1);
    line("trace", tr.ll, tr.n);
    line("loglik_final", &lf, 1);
    line("fit_pi", m.pi, K);
    line("fit_A", m.A, K * K);
    line("fit_mu", m.mu, K);
    line("fit_sd", m.sd, K);
    hmm_free(&m);
    return 0;
}

int main(void)
{
    static double x[T];
    const double mu[3] = {log(1e-5), log(1.3e-5), log(3e-5)};
    uint64_t s = 2024;
    int k = 0;
    for (int t = 0; t < T; t++) {
        if (t > 0 && srng_unif(&s) >= 0.95)
            k = (k + 1 + (int)(srng_next(&s) % 2)) % 3;
        x[t] = mu[k] + 0.1 * srng_gauss(&s);
    }
    x[T / 2] = log(1e-3); /* a spike 4.6 log units above the slowest regime */
    line("x", x, T);
    double pi3[3] = {0.5, 0.3, 0.2}, A3[9] = {0.8, 0.15, 0.05, 0.1, 0.7, 0.2, 0.3, 0.3, 0.4},
           mu3[3] = {-11.6, -11.2, -10.9}, sd3[3] = {0.3, 0.2, 0.5};
    hmm_t i3 = {.K = 3, .pi = pi3, .A = A3, .mu = mu3, .sd = sd3};
    double pi2[2] = {0.9, 0.1}, A2[4] = {0.6, 0.4, 0.25, 0.75}, mu2[2] = {-11.0, -10.2},
           sd2[2] = {0.4, 0.4};
    hmm_t i2 = {.K = 2, .pi = pi2, .A = A2, .mu = mu2, .sd = sd2};
    return run("K3", x, &i3, 1e-4) || run("K2", x, &i2, 0.05);
}
