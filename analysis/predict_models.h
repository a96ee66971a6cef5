/* predict_models.h: the network models as `phasor predict` uses them (predict_models.c binds
 * them to models/ and the model file or the log's probe). */
#ifndef PREDICT_MODELS_H
#define PREDICT_MODELS_H

#include <stddef.h>
#include <stdint.h>

#include "coll_instances.h"
#include "net_model.h"
#include "plog_error.h"
#include "plog_reader.h"
#include "predict_replay.h"

#define PRED_MAXMODELS 3

typedef struct pred_model {
    const char *name; /* "lookup", "hockney", "loggp" */
    const void *ctx;
    /* point estimate of one message, ns; twoway: its source also receives, or its
     * destination also sends, in the same step (net_model.h, pnm_way) */
    double (*time)(const void *ctx, int32_t src, int32_t dst, uint64_t bytes, int twoway);
    /* the expected value and the 90th percentile of the maximum of n messages' times taken
     * as independent (order statistics of their distributions); twoway[i] as above for
     * x[i]; shift[i] ns added to x[i]'s distribution (NULL: none); 0, or -1 out of
     * memory */
    int (*max_of)(const void *ctx, const ci_xfer_t *const *x, const uint8_t *twoway,
                  const double *shift, size_t n, double *mean, double *p90);
    /* the host links' background load as this model shows it (pred_models_load) */
    pr_load_t load;
} pred_model_t;

typedef struct pred_models {
    pred_model_t m[PRED_MAXMODELS];
    int n;
    char source[512]; /* where the models came from, for the output */
    /* fitted to the run's probe: its samples, those pooling moved, those unshared; -1:
     * the models came from a file */
    long probe_samples, probe_pooled, probe_unshared;
    void *priv;
} pred_models_t;

/* file: a model file, or NULL for the run's probe; kinds: "lookup,hockney" or NULL (all the
 * source can give); host: a host id in [0, nhosts) per world rank, by which a quick probe
 * of the run is unshared (pns_unshare; a file is by its own hosts), or NULL. A refusal's
 * message is one line naming the file. */
plog_err_t pred_models_load(pred_models_t *pm, const plog_run_t *run, const char *file,
                            const char *kinds, const pnm_opts_t *fit, const int32_t *host,
                            int32_t nhosts, plog_error_t *err);
void pred_models_free(pred_models_t *pm);
/* The fitted model behind m (a model of pm): its parameters, e.g. LogGP's send and receive
 * parts (pnm_loggp_parts). */
const pnm_model_t *pred_model_fit(const pred_model_t *m);

/* The run's probe as a model file at path (doc/model-format.md), as phasor-probe would have
 * written it then: its samples as taken, the models fitted to them with fit, and the run's
 * host names and MPI library. A refusal's message is one line naming the file. */
plog_err_t pred_models_save(const plog_run_t *run, const pnm_opts_t *fit, const char *path,
                            plog_error_t *err);

#endif
