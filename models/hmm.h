/* hmm.h: a 1-D Gaussian hidden Markov model for latency regimes (science.md section 5;
 * doc/notes/hmm-library.md says why phasor writes its own instead of using libghmm).
 *
 *   hmm_fit       Baum-Welch (EM) for K states: scaled forward-backward whose emissions are
 *                 evaluated as log N(x; mu, sd) and shifted by their per-sample maximum, so
 *                 that a sample far from every state cannot underflow the fit; initialised
 *                 by quantiles, by k-means and by random restarts, each run a few
 *                 iterations, the best of them on to convergence (small EM)
 *   hmm_fit_from  the same from given parameters (one start; tests, warm starts)
 *   hmm_loglik    log L of a model on a series (the forward algorithm)
 *   hmm_viterbi   the most likely state path, in log space
 *   hmm_bic       -2 log L + p ln T, p = K^2 + 2K - 1
 *   hmm_select    fits K = 1..kmax and keeps the K of least BIC; a state that holds fewer
 *                 than min_state samples is not a regime: its samples are set aside as
 *                 outliers and the selection is run again without them
 *
 * doc/regimes-model.md describes the model, its choices and the evidence behind them.
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
    /* Optional: called with the log L of a start's initial parameters (iter 0) and after
       every EM iteration with that of the new ones (start 0 is the quantile one, 1
       k-means, 2.. the random ones); the start kept after screening goes on from
       iter screen_iter + 1. */
    void (*on_iter)(void *ctx, int start, int iter, double loglik);
    void *ctx;
    /* Small EM: every start runs screen_iter EM iterations, then only the best of them
       runs on to convergence; 0: 5; < 0: every start runs to convergence. */
    int screen_iter;
    /* hmm_select's outlier policy: a state the Viterbi path visits fewer than min_state
       times is not a regime; 0: max(5, ceil(T / 1000)); < 0: no policy. */
    int min_state;
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
    size_t n;       /* samples the parameters were fitted to: T - n_outliers */
    size_t n_outliers; /* hmm_select: samples set aside by the outlier policy */
    uint8_t *outlier;  /* hmm_select: [T], 1 where set aside; NULL when n_outliers is 0 */
} hmm_t;

/* Fits K states to x[0..T-1]. Rejects K < 1, T < K, NaN or inf in x or in the options.
 * On success *out holds the model (free it with hmm_free); on failure *out is empty. */
int hmm_fit(const double *x, size_t T, int K, const hmm_opts_t *o, hmm_t *out, char *why,
            size_t nwhy);

/* Runs EM from init's parameters (K = init->K; sd at least the variance floor's root) as
 * one start: max_iter iterations or until tol, on_iter called with start 0. With tol tiny
 * (1e-300) it runs max_iter iterations unless log L stops changing at all
 * (tests/unit/hmm_ref.sh compares them with an independent Baum-Welch). States sorted by
 * mean in *out; pi and A of init must be probabilities. */
int hmm_fit_from(const double *x, size_t T, const hmm_t *init, const hmm_opts_t *o,
                 hmm_t *out, char *why, size_t nwhy);

/* log L of x[0..T-1] under m (scaled forward algorithm, log-space emissions); NAN on
 * NaN/inf input, a bad model or no memory. */
double hmm_loglik(const hmm_t *m, const double *x, size_t T);

/* labels[t] in 0..K-1: the Viterbi path of x under m. -1 on NaN/inf input or no memory. */
int hmm_viterbi(const hmm_t *m, const double *x, size_t T, int *labels);

/* The same with skip[t] != 0 samples (hmm_select's m->outlier) missing from the path (an
 * emission of 1 in every state), each then labelled by the state of greatest density at
 * it. skip may be NULL: hmm_viterbi. */
int hmm_viterbi_mask(const hmm_t *m, const double *x, size_t T, const uint8_t *skip,
                     int *labels);

/* -2 log L + p ln T, p = K^2 + 2K - 1 free parameters of a 1-D Gaussian HMM. */
double hmm_bic(const hmm_t *m, size_t T);

/* Fits K = 1..kmax and keeps in *out the K of least BIC; bic[K-1] is that K's BIC, NAN
 * where its fit failed (bic may be NULL). -1 when every fit failed.
 * Outlier policy (o->min_state): when a state of the chosen model holds fewer than
 * min_state samples of its Viterbi path, those samples are set aside (out->outlier,
 * out->n_outliers) and the selection runs again on the rest, the samples set aside being
 * missing values of the series (up to 3 rounds). The last round's model and BICs are
 * returned: fitted to out->n = T - n_outliers samples, bic[] with ln(out->n). Label with
 * hmm_viterbi_mask(out, x, T, out->outlier, labels). */
int hmm_select(const double *x, size_t T, int kmax, const hmm_opts_t *o, hmm_t *out,
               double *bic, char *why, size_t nwhy);

void hmm_free(hmm_t *m);

#endif
