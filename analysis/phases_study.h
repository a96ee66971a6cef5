/* phases_study.h: the whole computation of `phasor phases` over one log, as results in
 * structs (the definitions are in doc/phases-format.md). The caller runs the steps in order:
 *   ph_study_prepare   boundaries, grid, T_ij, compute times (and compute-only phases);
 *   ph_study_pairs     the pairs of dtheta.csv;
 *   ph_study_next      the grid walked point by point: the phases and the metrics there,
 *                      for the caller to write (memory does not grow with the grid), while
 *                      the study gathers what the summary needs;
 *   ph_study_finish    the idle wave, the recovery, the twin run, the snapshot points;
 *   ph_study_snapshot  the phases and pairwise differences at each snapshot;
 *   ph_study_summarise the summary's figures, computed once for every writer;
 * then ph_study_free. Library code: it never prints; failures return a plog_err_t and fill
 * the caller's plog_error_t with a one-line message. */
#ifndef PHASES_STUDY_H
#define PHASES_STUDY_H

#include <stddef.h>
#include <stdint.h>

#include "phases.h"

#define PH_ALL_PAIRS_UP_TO 16 /* pairs "auto": every pair up to this many ranks */

typedef struct ph_study_opts {
    ph_mark_spec_t spec;
    int compute_only;      /* the phase advances only outside MPI calls */
    int wrap;              /* pairwise differences wrapped to [-pi, pi) */
    int entropy;           /* PH_ENTROPY_CIRCLE or PH_ENTROPY_FD */
    int64_t dt;            /* grid step (ns); 0: the median iteration period / 4 */
    size_t points;         /* grid points at most (dt grows) */
    const char *topology;  /* T_ij: "log", "all" or a file of "i j" lines */
    const char *pairs;     /* "auto", "all", "topo" or "i:j,i:j..." */
    ph_potential_t pot;    /* V of E(t) */
    unsigned snapshots;    /* evenly spaced snapshots, plus R's minimum (without at) */
    const int64_t *at;     /* NULL, or nat snapshot times (ns) */
    size_t nat;
    double thr;            /* resynchronised when R >= thr */
    double wave_frac;      /* ph_wave_find's frac */
    double recover_frac;   /* ph_recovery_find's and ph_twin_find's frac */
    int32_t src_rank;      /* the idle wave's source, -1: the largest excess */
    uint32_t src_iter;
    const char *reference; /* NULL, or the same run without the delay (ph_twin_find) */
} ph_study_opts_t;

/* One grid point of the walk; the arrays are the study's, valid until the next call. */
typedef struct ph_point {
    size_t g;
    int64_t t;
    const double *theta;   /* P phases, NaN where a rank has none */
    double R, psi;         /* order parameter */
    double S;              /* entropy over nbins bins */
    uint32_t nbins;
    double E;              /* potential energy */
    const double *gabs, *gsig; /* P gradients, absolute and signed */
    /* the dR/dt values that became known at this point, per second, at rate_t[k]: central
     * differences inside, one-sided at the ends (none at the first point; at the last, the
     * one before it and its own) */
    int nrate;
    int64_t rate_t[2];
    double rate[2];
} ph_point_t;

/* One snapshot; the arrays are the study's, valid until the next call. */
typedef struct ph_snapshot {
    size_t g;
    int64_t t;
    const double *theta;   /* P phases */
    /* with the histogram asked for: theta_j - theta_i (wrapped with wrap) over the pairs
     * j < i with both phases, sorted; their Freedman-Diaconis bins (n = 0 without values)
     * and the count in each bin */
    const double *d;
    size_t nd;
    ph_bins_t bins;
    const uint64_t *count;
} ph_snapshot_t;

typedef struct ph_study {
    const ph_study_opts_t *op; /* borrowed */
    plog_run_t *run;           /* borrowed */
    int32_t P, with_phase;     /* ranks; ranks with >= 2 boundaries */
    ph_marks_t marks;
    ph_grid_t grid;
    double median_period;      /* ns, ph_median_period */
    ph_topo_t topo;            /* T_ij of the metrics */
    ph_topo_t wtopo;           /* T_ij of the log, for the idle wave when topo is not it */
    ph_compute_t comp;         /* compute_only: the compute-only phases */
    int32_t *pairs;            /* (i, j) of dtheta.csv, 2 npairs values */
    size_t npairs;
    /* gathered over the walk */
    size_t r_n;                /* grid points walked */
    double r_sum, s_sum, e_sum, r_min, r_last, s_max;
    int64_t r_min_t;           /* the first point of R's minimum */
    size_t r_min_g;
    double *lag_sum, *lag_min, *lag_max; /* per rank, iterations behind the mean phase */
    size_t *lag_n;
    double *Rg;                /* R at every grid point */
    ph_resync_t rs;
    /* derived (ph_study_finish) */
    ph_wave_t wave;
    ph_recovery_t rec;
    ph_twin_t twin;            /* with reference */
    int64_t *snap;             /* the snapshots' grid points, ascending, distinct */
    size_t nsnap;
    /* the walk's working state */
    ph_timeline_t tl;
    size_t next;
    double *theta, *scratch, *gabs, *gsig;
    double r_prev, r_prev2;
    int64_t t_prev;
    double *d;                 /* snapshots: the pairwise differences */
    uint64_t *count;
} ph_study_t;

/* The summary's figures, derived once from a finished study. */
typedef struct ph_summary {
    const char *marker_call;   /* the marker's MPI call (MPI_Pcontrol for Pcontrol) */
    uint32_t it_min, it_max;   /* iterations of the ranks with a phase */
    double r_mean, s_mean, e_mean; /* over the grid */
    double *lag_mean;          /* per rank: mean lag (iterations), NaN without a phase */
    int32_t lag_rank;          /* the rank most behind on average, -1 none */
    double lag_iters;          /* its mean lag (iterations), NaN none */
    double recovery_iters;     /* the recovery's duration in median periods; NaN none */
    int32_t *incomplete;       /* ranks whose log ended early */
    size_t nincomplete;
    const char **warnings;     /* the reader's warnings, each once (every pass adds them) */
    size_t nwarnings;
} ph_summary_t;

/* Open the study of run: boundaries by op->spec, the grid, the median period, compute
 * times, T_ij, and the compute-only phases. op and run are borrowed until ph_study_free.
 * Errors name the log; PLOG_E_USAGE when there is nothing to go by (no markers, or no
 * common interval of the ranks). */
plog_err_t ph_study_prepare(ph_study_t *st, plog_run_t *run, const ph_study_opts_t *op,
                            plog_error_t *err);
/* The pairs of dtheta.csv from op->pairs: every pair (j < i) for "all" and for "auto" up to
 * PH_ALL_PAIRS_UP_TO ranks, else the unordered pairs of T_ij; or the list given.
 * PLOG_E_USAGE for a list that is not i:j,... of two different ranks below P. */
plog_err_t ph_study_pairs(ph_study_t *st, plog_error_t *err);
/* The next grid point into *pt: 1, or 0 after the last one, or -1 out of memory (err). */
int ph_study_next(ph_study_t *st, ph_point_t *pt, plog_error_t *err);
/* After the walk: the idle wave, the recovery from its source, the twin figures against
 * op->reference, and the snapshot points. */
plog_err_t ph_study_finish(ph_study_t *st, plog_error_t *err);
/* Snapshot k (< nsnap); with hist also the pairwise differences and their histogram. */
plog_err_t ph_study_snapshot(ph_study_t *st, size_t k, int hist, ph_snapshot_t *sn,
                             plog_error_t *err);
plog_err_t ph_study_summarise(const ph_study_t *st, ph_summary_t *sm, plog_error_t *err);
void ph_summary_free(ph_summary_t *sm);
void ph_study_free(ph_study_t *st);

/* The name of a marker mode: auto, pcontrol, call, period. */
const char *ph_mark_mode_name(int mode);

#endif
