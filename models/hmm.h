/* hmm.h: a 1-D Gaussian hidden Markov model for latency regimes (science.md section 5;
 * doc/notes/hmm-library.md says why phasor writes its own instead of using libghmm).
 *
 *   hmm_fit       Baum-Welch (EM) for K states: scaled forward-backward whose emissions are
 *                 evaluated as log N(x; mu, sd) and shifted by their per-sample maximum, so
 *                 that a sample far from every state cannot underflow the fit; initialised
 *                 by quantiles, by k-means and by random restarts; the best log L is kept
 *   hmm_viterbi   the most likely state path, in log space
 *   hmm_bic       -2 log L + p ln T, p = K^2 + 2K - 1
 *   hmm_select    fits K = 1..kmax and keeps the K of least BIC
 *
 * Work in log time (or standardised units): the variance floor is in the data's own units.
 * Pure C, libc/libm only: no I/O, no global state, never prints, never exits. Failures
 * return -1 and write one line into an optional why buffer. */
#ifndef HMM_H
#define HMM_H

#include <stddef.h>
#include <stdint.h>

/* Options; a zeroed struct (or NULL) gives every default. */
typedef struct hmm_opts {
    int max_iter;     /* EM iterations (M-steps) per start; <= 0: 500 */
    double tol;       /* converged when |delta log L| < tol; <= 0: max(1e-7 T, 1e-6) */
    double var_floor; /* least variance of a state, in the data's units squared; <= 0:
                         (1e-3 s)^2, s the data's sd, or max(|mean|, 1) when the sd is 0 */
    int restarts;     /* random starts besides the quantile and k-means ones; < 0: 0 */
    uint64_t seed;    /* seeds the random starts (splitmix64, per start; no global state) */
    /* Optional: called after every EM iteration with the log L of the new parameters
       (start 0 is the quantile one, 1 k-means, 2.. the random ones). */
    void (*on_iter)(void *ctx, int start, int iter, double loglik);
    void *ctx;
} hmm_opts_t;

/* A fitted model; states sorted by mean ascending. Release with hmm_free. */
typedef struct hmm {
    int K;
    double *pi;     /* [K] initial distribution */
    double *A;      /* [K*K] transitions, A[i*K + j] = P(j at t+1 | i at t) */
    double *mu;     /* [K] state means */
    double *sd;     /* [K] state standard deviations (>= sqrt(var_floor)) */
    double loglik;  /* log L of these parameters */
    int iterations; /* EM iterations of the kept start */
    int converged;  /* 1 when the kept start met tol before max_iter */
} hmm_t;

/* Fits K states to x[0..T-1]. Rejects K < 1, T < K, NaN or inf in x or in the options.
 * On success *out holds the model (free it with hmm_free); on failure *out is empty. */
int hmm_fit(const double *x, size_t T, int K, const hmm_opts_t *o, hmm_t *out, char *why,
            size_t nwhy);

/* labels[t] in 0..K-1: the Viterbi path of x under m. -1 on NaN/inf input or no memory. */
int hmm_viterbi(const hmm_t *m, const double *x, size_t T, int *labels);

/* -2 log L + p ln T, p = K^2 + 2K - 1 free parameters of a 1-D Gaussian HMM. */
double hmm_bic(const hmm_t *m, size_t T);

/* Fits K = 1..kmax and keeps in *out the K of least BIC; bic[K-1] is that K's BIC, NAN
 * where its fit failed (bic may be NULL). -1 when every fit failed. */
int hmm_select(const double *x, size_t T, int kmax, const hmm_opts_t *o, hmm_t *out,
               double *bic, char *why, size_t nwhy);

void hmm_free(hmm_t *m);

#endif
