/* predict.h: `phasor predict` as a library: every collective instance of a run priced by
 * network models (predict_models.h), next to the time the same instance took; results per
 * (collective, communicator size, size bucket) and over the run (doc/predict-format.md).
 * Never prints: the command writes the results.
 *
 * The steps method (science.md §1): T = Σ_steps max over the step's messages of
 * t(src, dst, bytes), the messages being the library's own schedule rebuilt per member
 * (coll_instances.h), priced by pred_steps_price (predict_steps.c). expected-max replaces
 * each step's max of point estimates by the expected maximum of the messages' time
 * distributions (order statistics of independent variables), and gives its 90th
 * percentile too. replay runs every member's schedule from its own entry
 * (predict_replay.h). Measured: the last member's exit minus the first member's entry on
 * the aligned clock. */
#ifndef PREDICT_H
#define PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "coll_instances.h"
#include "plog_error.h"
#include "plog_reader.h"
#include "predict_models.h"
#include "predict_replay.h"

typedef enum pred_method { PRED_STEPS = 0, PRED_EXPECTED_MAX = 1, PRED_REPLAY = 2 } pred_method_t;

/* "steps", "expected-max" or "replay" */
const char *pred_method_name(pred_method_t m);

/* ---- the steps and expected-max methods' price of an instance (predict_steps.c) ---- */

/* A rank's messages of one step go out (come in) through its one link at the same time:
 * they count as one message of their summed bytes, on the path of the slowest of them
 * alone (science.md §2, concurrency), priced as its largest message alone plus the rest at
 * the bandwidth and under the links' load, as the replay prices them (pr_aggregate_time;
 * no eager size here: all priced as sent); when that path is between hosts, of the bytes
 * all ranks of the host send (receive) between hosts in the step, which share its link. A
 * step takes the slowest of its per-source and per-destination messages, by point
 * estimates (steps) or as the expected maximum (expected-max: the largest message's
 * distribution shifted by what the rest add to it). Zero-initialise, then
 * pred_steps_init; the scratch grows with the largest instance. */
typedef struct pred_steps {
    pred_method_t method;
    const int32_t *host;      /* per world rank, a host id in [0, nhosts) */
    pr_links_t links;         /* per host, between hosts; allocated when ranks share one */
    /* scratch, room for cap transfers: */
    size_t cap;
    const ci_xfer_t **step;   /* the instance's transfers by step, then source */
    ci_xfer_t *agg, **aggp;   /* one step's aggregated transfers */
    uint64_t *aggbig;         /* theirs: the largest single message in each */
    double *aggshift;         /* expected-max: each one's time past its largest message's */
    uint8_t *twoway;          /* theirs: data also flows the other way at an end */
    int32_t *snd, *rcv;       /* the step's senders and receivers (pr_link_key), sorted */
    void *block;              /* the arrays above, in one allocation */
} pred_steps_t;

/* host: a host id in [0, nhosts) per world rank of world; the host links are counted when
 * ranks share a host (nhosts < world). 0, or -1 out of memory. */
int pred_steps_init(pred_steps_t *s, pred_method_t method, const int32_t *host,
                    int32_t nhosts, int32_t world);
/* The instance's price by model m: Σ over its steps of the step's max (steps) or expected
 * max (expected-max) into *t; *p90: Σ of the steps' P90 of the max (expected-max; steps:
 * *t). 0, or -1 out of memory. */
int pred_steps_price(pred_steps_t *s, const ci_inst_t *in, const pred_model_t *m, double *t,
                     double *p90);
void pred_steps_free(pred_steps_t *s);

/* ---- a run's instances, all methods (predict.c) ---- */

typedef struct pred_opts {
    const char *model_file; /* a model file (doc/model-format.md); NULL: fit the run's probe */
    const char *kinds;      /* "lookup,hockney"; NULL: every model the source can give */
    const char *save_model; /* also write the run's probe and its fit here; NULL: no */
    pred_method_t method;
    double gamma;           /* replay: ns per reduced byte; NAN: measured here */
    long long eager;        /* the largest message sent eagerly, bytes; -1: the run's
                               library's (pr_eager_of) */
    recon_lib_t lib;        /* the MPI library's rules (as phasor steps) */
    pnm_opts_t fit;         /* fitting the run's probe */
} pred_opts_t;

/* One model over a group's instances: medians (and the ratio's 10th and 90th percentiles,
 * pstat_quantile) of the per-instance values, and the predicted sum. */
typedef struct pred_stat {
    double pred_med, ratio_med, ratio_p10, ratio_p90, abserr_med;
    double exiterr_med; /* replay: of the members' median exit errors; else NAN */
    double sum_pred;
} pred_stat_t;

/* The instances of one (collective, communicator size, size bucket). */
typedef struct pred_group {
    pcs_coll_t coll;
    int32_t size;
    int bucket;             /* bytes in [2^(b-1), 2^b); 0: 0 bytes (pred_bucket_lo) */
    uint64_t count;
    double measured_med, sum_measured;
    pred_stat_t m[PRED_MAXMODELS];
} pred_group_t;

typedef struct pred_state pred_state_t;

typedef struct pred {
    /* set by pred_open */
    pred_method_t method;
    pred_models_t models;
    int32_t world, nhosts;
    int32_t *host;           /* per world rank, a host id in [0, nhosts) */
    double gamma;            /* replay: ns per reduced byte */
    int gamma_given;         /* replay: gamma from the options, not measured */
    uint64_t eager;          /* the largest message sent eagerly */
    const char *eager_what;  /* whose eager size (pr_eager_of), or "--eager" */
    /* set by pred_run */
    uint64_t instances, predicted, nonblocking, incomplete;
    uint64_t skipped[RECON__COUNT + 1]; /* without steps, by recon_skip_t (last: unknown) */
    double sum_measured, sum_pred[PRED_MAXMODELS];
    pred_group_t *g;         /* sorted by collective, size, bucket */
    size_t ng;
    /* per predicted instance, in the order they completed: measured, and the first
     * model's prediction (ns) */
    double *scatter_m, *scatter_p;
    size_t nscatter;
    pred_state_t *st;
} pred_t;

/* One predicted instance as pred_run completes it: measured (ns) and, per model k,
 * pt[k] the prediction and p9[k] its P90 (expected-max), the members' median exit error
 * (replay) or pt[k] (steps). */
typedef void (*pred_row_fn)(void *arg, const pred_t *p, const ci_inst_t *in, double measured,
                            const double *pt, const double *p9);

/* Sets up p for run with o: hosts, eager size, the models (pred_models_load; and
 * pred_models_save with o->save_model), gamma. pred_free p in every case. */
plog_err_t pred_open(pred_t *p, const plog_run_t *run, const pred_opts_t *o,
                     plog_error_t *err);
/* Reads the run's events once and prices every instance: the counts, sums, groups and
 * scatter of p; row (NULL: none) for each predicted instance. */
plog_err_t pred_run(pred_t *p, plog_run_t *run, pred_row_fn row, void *arg,
                    plog_error_t *err);
void pred_free(pred_t *p);

/* The smallest size of a group's bucket, bytes. */
static inline uint64_t pred_bucket_lo(int bucket)
{
    return bucket ? 1ull << (bucket - 1) : 0;
}

#endif
