/* regimes_synth: the evidence of doc/regimes-model.md for the latency-regime HMM
 * (models/hmm.h), on synthetic series whose regimes are known. bench/regimes.sh runs it.
 *
 *   bench/regimes_synth eval K SEP STAY [SEEDS [T [KMAX]]]
 *       K regimes in log time, means SEP sd apart (sd 0.05), equal shares; STAY the
 *       self-transition probability (0: iid draws from the mixture). For seeds 1..SEEDS
 *       (100): hmm_select (KMAX 6, 5 restarts, the default outlier policy) on T (2000)
 *       samples. Prints the rate of K recovered, the label accuracy (best one-to-one
 *       matching of labels to the truth; over every seed, and over the seeds whose K was
 *       recovered) and the oracle's accuracy (Viterbi under the true parameters: the most
 *       any fit can reach on these data).
 *   bench/regimes_synth speed T KMAX [RESTARTS [REPEAT [SCREEN_ITER]]]
 *       hmm_select on the 3 regimes of tests/unit/test_hmm.c (10, 15, 40 us, sd 0.05,
 *       stay 0.99), RESTARTS (5) random starts besides the quantile and k-means ones;
 *       prints the wall time (best of REPEAT, 1), the K chosen and each K's fit time. */
#include "hmm.h"
#include "synth_rng.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SD 0.05
#define KTOP 8

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* K regimes with means mu[k], sd SD; stay > 0: a Markov chain that leaves to any other
 * state with equal probability; stay == 0: iid draws, equal shares. */
static void gen(double *x, int *st, size_t T, int K, const double *mu, double stay,
                uint64_t seed)
{
    uint64_t s = seed * 0x2545f4914f6cdd1dULL + 1;
    int k = (int)(srng_next(&s) % (uint64_t)K);
    for (size_t t = 0; t < T; t++) {
        if (stay <= 0)
            k = (int)(srng_next(&s) % (uint64_t)K);
        else if (t > 0 && K > 1 && srng_unif(&s) >= stay)
            k = (k + 1 + (int)(srng_next(&s) % (uint64_t)(K - 1))) % K;
        st[t] = k;
        x[t] = mu[k] + SD * srng_gauss(&s);
    }
}

/* Best one-to-one matching of n labels (0..kl-1) to the truth (0..kt-1): the largest sum
 * of the confusion matrix over injective maps, by enumerating permutations (K <= 8). */
static double best_match(const int *lab, const int *st, size_t T, int kl, int kt)
{
    long conf[KTOP][KTOP] = {{0}};
    for (size_t t = 0; t < T; t++)
        if (lab[t] >= 0 && lab[t] < KTOP && st[t] < KTOP)
            conf[lab[t]][st[t]]++;
    int n = kl > kt ? kl : kt, perm[KTOP], c[KTOP] = {0};
    for (int i = 0; i < n; i++)
        perm[i] = i;
    long best = 0;
    for (int i = 0;;) { /* Heap's algorithm, iterative */
        long s = 0;
        for (int j = 0; j < n; j++)
            s += conf[j][perm[j]];
        if (s > best)
            best = s;
        while (i < n && c[i] >= i)
            c[i] = 0, i++;
        if (i >= n)
            break;
        int j = i % 2 ? c[i] : 0, tmp = perm[j];
        perm[j] = perm[i], perm[i] = tmp;
        c[i]++, i = 0;
    }
    return (double)best / (double)T;
}

static int eval(int K, double sep, double stay, int seeds, size_t T, int kmax)
{
    double *x = malloc(T * sizeof(double));
    int *st = malloc(T * sizeof(int)), *lab = malloc(T * sizeof(int));
    double mu[KTOP], A[KTOP * KTOP], pi[KTOP], sd[KTOP];
    if (!x || !st || !lab || K < 1 || K > KTOP)
        return 1;
    for (int k = 0; k < K; k++) {
        mu[k] = log(1e-5) + k * sep * SD, sd[k] = SD, pi[k] = 1.0 / K;
        for (int j = 0; j < K; j++)
            A[k * K + j] = stay <= 0 ? 1.0 / K : (k == j ? stay : (1 - stay) / (K - 1));
    }
    hmm_t truth = {.K = K, .pi = pi, .A = A, .mu = mu, .sd = sd};
    int hit = 0, over = 0, under = 0, fail = 0, good = 0;
    double acc = 0, acc_hit = 0, oracle = 0, secs = 0;
    size_t outl = 0;
    for (int seed = 1; seed <= seeds; seed++) {
        gen(x, st, T, K, mu, stay, (uint64_t)seed);
        if (hmm_viterbi(&truth, x, T, lab) == 0)
            oracle += best_match(lab, st, T, K, K);
        hmm_opts_t o = {.restarts = 5, .seed = (uint64_t)seed};
        hmm_t m;
        char why[200];
        double t0 = now();
        if (hmm_select(x, T, kmax, &o, &m, NULL, why, sizeof(why)) != 0) {
            fail++;
            continue;
        }
        secs += now() - t0;
        outl += m.n_outliers;
        if (hmm_viterbi_mask(&m, x, T, m.outlier, lab) == 0) {
            double a = best_match(lab, st, T, m.K, K);
            acc += a;
            good += a >= 0.95;
            if (m.K == K)
                acc_hit += a;
        }
        hit += m.K == K, over += m.K > K, under += m.K < K;
        hmm_free(&m);
    }
    printf("K=%d sep=%gsd stay=%-4g T=%zu seeds=%d: K_recovered %.2f (over %d, under %d, "
           "failed %d) accuracy %.4f (>=0.95 in %.2f; at recovered K %.4f) oracle %.4f "
           "outliers/series %.2f fit %.3f s/series\n",
           K, sep, stay, T, seeds, (double)hit / seeds, over, under, fail,
           acc / seeds, (double)good / seeds, hit ? acc_hit / hit : NAN, oracle / seeds,
           (double)outl / seeds, secs / seeds);
    free(x);
    free(st);
    free(lab);
    return 0;
}

static int speed(size_t T, int kmax, int restarts, int repeat, int screen)
{
    static const double mus[3] = {1e-5, 1.5e-5, 4e-5};
    double *x = malloc(T * sizeof(double)), mu[3];
    int *st = malloc(T * sizeof(int));
    if (!x || !st)
        return 1;
    for (int k = 0; k < 3; k++)
        mu[k] = log(mus[k]);
    uint64_t s = 42;
    int k = (int)(srng_next(&s) % 3);
    for (size_t t = 0; t < T; t++) { /* the generator of tests/unit/test_hmm.c */
        if (t > 0 && srng_unif(&s) >= 0.99)
            k = (k + 1 + (int)(srng_next(&s) % 2)) % 3;
        st[t] = k;
        x[t] = mu[k] + SD * srng_gauss(&s);
    }
    double best = INFINITY, best_cpu = INFINITY, bic[64];
    hmm_t m = {0};
    for (int r = 0; r < repeat; r++) {
        hmm_free(&m);
        hmm_opts_t o = {.restarts = restarts, .seed = 7, .screen_iter = screen};
        char why[200];
        double t0 = now(), c0 = cpu();
        if (hmm_select(x, T, kmax, &o, &m, bic, why, sizeof(why)) != 0) {
            fprintf(stderr, "regimes_synth: %s\n", why);
            return 1;
        }
        double w = now() - t0, c = cpu() - c0;
        if (w < best)
            best = w;
        if (c < best_cpu)
            best_cpu = c;
    }
    printf("T=%zu kmax=%d restarts=%d: hmm_select %.3f s wall, %.3f s cpu, K %d, log L %.3f, %d iterations, "
           "converged %d, outliers %zu\n",
           T, kmax, restarts, best, best_cpu, m.K, m.loglik, m.iterations, m.converged, m.n_outliers);
    for (int j = 1; j <= kmax && j <= 64; j++) {
        hmm_opts_t o = {.restarts = restarts, .seed = 7, .screen_iter = screen};
        hmm_t f;
        double c0 = cpu();
        if (hmm_fit(x, T, j, &o, &f, NULL, 0) != 0)
            continue;
        printf("  K=%d fit %.3f s cpu, log L %.3f, BIC %.3f, %d iterations%s\n", j, cpu() - c0,
               f.loglik, bic[j - 1], f.iterations, f.converged ? "" : " (not converged)");
        hmm_free(&f);
    }
    hmm_free(&m);
    free(x);
    free(st);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "eval") == 0)
        return eval(atoi(argv[2]), atof(argv[3]), atof(argv[4]),
                    argc > 5 ? atoi(argv[5]) : 100,
                    argc > 6 ? (size_t)strtoull(argv[6], NULL, 10) : 2000,
                    argc > 7 ? atoi(argv[7]) : 6);
    if (argc >= 4 && strcmp(argv[1], "speed") == 0)
        return speed((size_t)strtoull(argv[2], NULL, 10), atoi(argv[3]),
                     argc > 4 ? atoi(argv[4]) : 5, argc > 5 ? atoi(argv[5]) : 1,
                     argc > 6 ? atoi(argv[6]) : 0);
    fprintf(stderr, "usage: regimes_synth eval K SEP STAY [SEEDS [T [KMAX]]]\n"
                    "       regimes_synth speed T KMAX [RESTARTS [REPEAT [SCREEN_ITER]]]\n");
    return 2;
}
