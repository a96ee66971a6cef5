/* osc_speed: time the oscillator integrator on the size the model is meant for.
 *
 *   bench/osc_speed [N [PERIODS [TAU_PERIODS [POT [TOPO]]]]]
 *
 * defaults: 4096 oscillators, 200 periods, a delay of 0.1 period on every edge, tanh,
 * chain:bi:d1, default tolerances; one rank perturbed by half a period at period 10 so the
 * run is not trivially synchronised. Prints wall time, steps, rejected, evaluations, history
 * peak, the integrator's own memory and the process's peak RSS (getrusage). */
#include "osc_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int count_samples(void *ctx, double t, const double *theta)
{
    (void)t;
    (void)theta;
    ++*(long *)ctx;
    return 0;
}

int main(int argc, char **argv)
{
    int32_t n = argc > 1 ? (int32_t)atoi(argv[1]) : 4096;
    double periods = argc > 2 ? atof(argv[2]) : 200;
    double tau_p = argc > 3 ? atof(argv[3]) : 0.1;
    const char *pot_s = argc > 4 ? argv[4] : "tanh";
    const char *topo_s = argc > 5 ? argv[5] : "chain:bi:d1";
    char why[256];
    osc_pot_t pot;
    osc_topo_spec_t ts;
    if (n < 1 || osc_pot_parse(pot_s, &pot) != 0 || osc_topo_parse(topo_s, &ts) != 0) {
        fprintf(stderr, "usage: osc_speed [N [PERIODS [TAU_PERIODS [POT [TOPO]]]]]\n");
        return 2;
    }
    const double T = 1.0, w = 6.283185307179586 / T;
    osc_graph_t g;
    if (osc_graph_named(n, &ts, &g, why, sizeof(why)) != 0 ||
        (tau_p > 0 && osc_graph_set_delay(&g, tau_p * T) != 0)) {
        fprintf(stderr, "osc_speed: %s\n", why);
        return 1;
    }
    double *omega = malloc((size_t)n * sizeof(double)), *th0 = calloc((size_t)n, sizeof(double));
    if (!omega || !th0)
        return 1;
    for (int32_t i = 0; i < n; i++)
        omega[i] = w;
    osc_perturb_t pert = {.rank = n / 2, .t = 10 * T, .delta = 0.5 * T};
    /* v_p = 2 / T (beta kappa = 2): the coupling term (v_p / n) sum_j is weak at large n, as
     * in the model; the cost per step does not depend on it */
    osc_model_t m = {.n = n, .omega = omega, .vp = 2.0 / T, .pot = pot, .graph = &g,
                     .perturb = &pert, .nperturb = 1};
    osc_solver_opts_t so;
    osc_solver_defaults(&so);
    long nsamples = 0;
    osc_run_t r = {.t0 = 0, .t1 = periods * T, .theta0 = th0, .dt_out = T,
                   .sample = count_samples, .ctx = &nsamples};
    osc_stats_t st;
    double t0 = now();
    int rc = osc_integrate(&m, &so, &r, NULL, &st, why, sizeof(why));
    double wall = now() - t0;
    if (rc != 0) {
        fprintf(stderr, "osc_speed: %s\n", why);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("n %d periods %g tau %g potential %s topology %s\n", (int)n, periods, tau_p, pot_s,
           topo_s);
    printf("wall %.3f s steps %zu rejected %zu evals %zu history_peak %zu integrator_bytes %zu "
           "peak_rss_kb %ld samples %ld\n",
           wall, st.steps, st.rejected, st.evals, st.history_peak, st.bytes_peak, ru.ru_maxrss,
           nsamples);
    osc_graph_free(&g);
    free(omega);
    free(th0);
    return 0;
}
