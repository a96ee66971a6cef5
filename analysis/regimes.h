/* regimes.h: latency regimes of a run's timing series (`phasor regimes`; science.md §5,
 * doc/regimes.md). A series is a time-ordered list of durations; the HMM of models/hmm.h
 * is fitted to their logarithms, K chosen by BIC, every sample labelled by Viterbi.
 *
 *   probe        the periodic probes' medians per pair, size and way (health.h)
 *   messages     the reliable messages of health.h
 *   collectives  the complete blocking collective instances of health.h (their own time)
 *   iterations   per rank, the iteration times of `phasor phases`' boundaries
 *
 * Samples of different classes (message sizes and link kinds; collective, communicator size
 * and size) are put on one scale before the fit: each is divided by its class's median and
 * multiplied by the median of the series' most common class, so that the series reads as
 * times of that class (doc/regimes.md). Iterations follow the paper's procedure: the model
 * is fitted on up to fit_ranks ranks picked evenly by their median iteration time and then
 * labels every rank. Never prints. */
#ifndef REGIMES_H
#define REGIMES_H

#include <stddef.h>
#include <stdint.h>

#include "health.h"
#include "hmm.h"
#include "phases.h"
#include "plog_error.h"
#include "plog_reader.h"

typedef enum rg_kind { RG_PROBE = 0, RG_MESSAGES = 1, RG_COLLECTIVES = 2, RG_ITERATIONS = 3 } rg_kind_t;
#define RG_NKINDS 4
const char *rg_kind_name(rg_kind_t k); /* "probe", "messages", "collectives", "iterations" */
int rg_kind_parse(const char *s);      /* -1: none of them */

#define RG_KMAX 12
/* A regime's least spread: 1 % of its time. Timings repeat to the nanosecond in places
 * (a clock's granularity, a library's fixed path); without a floor a handful of equal
 * values is a state of zero width and unbounded likelihood, which BIC always takes. */
#define RG_MIN_SD 0.01
/* Neighbouring regimes less than 25 % apart in time are one (BIC would keep them apart on long
 * series: a steady network's windows still drift by a few percent). */
#define RG_RESOLUTION 1.25
#define RG_WINDOW_MIN 3   /* samples a window's median needs */
#define RG_MIN_WINDOWS 20 /* fewer windows: the series is every sample */

typedef struct rg_opts {
    int kmax;            /* 1..RG_KMAX; <= 0: 6 */
    int restarts;        /* random starts besides quantile and k-means; < 0: 5 */
    uint64_t seed;       /* of the random starts */
    size_t max_samples;  /* longer series are thinned evenly to this many; 0: 1000000 */
    int fit_ranks;       /* iterations: ranks the model is fitted on; <= 0: 20 */
    ph_mark_spec_t marks;/* iterations: the boundaries (phases.h) */
    double min_sd;       /* least sd of a regime on ln(seconds); <= 0: RG_MIN_SD */
    int per_sample;      /* messages, collectives, probe: fit every sample, not window medians */
    double resolution;   /* regimes closer than this factor in time are one; <= 0:
                            RG_RESOLUTION; 1: BIC alone */
    int64_t window_ns;   /* their windows; <= 0: hl_auto_window over the series (probe: one
                            probe a window, hl_source_window) */
} rg_opts_t;

typedef struct rg_regime {
    double mean_s, sd_s; /* of the samples labelled with it, in the series' quantity (s) */
    double log_mu, log_sd; /* the state's Gaussian, on ln(seconds) */
    double share;        /* of the labelled samples */
    uint64_t count;
} rg_regime_t;

typedef struct rg_switch {
    int64_t t_ns;        /* the first sample of the new regime (aligned, as the log's) */
    int from, to;        /* regimes, 0 = the fastest */
} rg_switch_t;

typedef struct rg_series {
    rg_kind_t kind;
    char name[64];        /* "messages/inter-host", "iterations", ... */
    char quantity[160];   /* what one value is */
    size_t total;         /* samples the source gave */
    size_t samples;       /* points fitted: windows, or samples (thinned when total >
                             max_samples) */
    int64_t window_ns;    /* the windows whose medians were fitted; 0: every sample */
    size_t outliers;      /* samples set aside as outliers by the fit (models/hmm.h) */
    int kmax, k;          /* tried 1..kmax; chosen */
    int k_bic;            /* BIC's choice, before regimes closer than the resolution merged */
    double bic[RG_KMAX], loglik[RG_KMAX]; /* per K (index K-1); NAN where the fit failed */
    hmm_t model;
    rg_regime_t *reg;     /* k of them, fastest first */
    size_t nsw;
    rg_switch_t *sw;      /* every change of the label along the series' time */
    /* the series, for plots and CSV: npoints times, values (s) and labels; iterations: one
       point per iteration, the median over ranks, labelled as most ranks are */
    size_t npoints;
    int64_t *t;
    double *v;
    int *label;
    /* iterations: ranks the fit used, and labels of every rank */
    int32_t nfit;
    int32_t *fit_rank;
    int32_t ranks_labelled;
} rg_series_t;

/* Messages and probe samples within a host and between hosts are different series: their
 * regimes are the regimes of different links. */
typedef enum rg_link { RG_LINK_ANY = 0, RG_LINK_INTRA = 1, RG_LINK_INTER = 2 } rg_link_t;

/* The series of kind from a run's samples (messages, collectives, probe: hl_collect; only
 * those of link) or from the run (iterations), fitted. Its name is the kind's, and for
 * RG_LINK_INTRA / RG_LINK_INTER "/intra-host" or "/inter-host" after it. A series without
 * samples has samples = 0 and k = 0 (not an error). */
plog_err_t rg_series_fit(plog_run_t *run, const hl_samples_t *hs, rg_kind_t kind, rg_link_t link,
                         const rg_opts_t *o, rg_series_t *out, plog_error_t *err);
/* How many of the kind's samples are between hosts (*inter) and within one (*intra). */
void rg_link_counts(const hl_samples_t *hs, rg_kind_t kind, size_t *intra, size_t *inter);
void rg_series_free(rg_series_t *s);

/* The fit of one prepared series (pure): x = ln(seconds) at times t (non-decreasing).
 * Fills k, bic, loglik, model, reg, sw, label. 0, or -1 with why. */
int rg_fit_values(rg_series_t *s, const int64_t *t, const double *x, size_t n,
                  const rg_opts_t *o, char *why, size_t nwhy);

#endif
