/* oscillate.h: the coupled-oscillator model (models/osc_model.h) fitted to a run and run side
 * by side with it, or run alone from a configuration (doc/oscillate.md).
 *
 *   osf_side_run     the model integrated on a time grid: its phases' metrics at every grid
 *                    point (the same functions as the measured side: ph_order, ph_entropy,
 *                    ph_gradient, ph_energy), its iteration boundaries (the times each
 *                    theta_i crosses 2 pi k) and from them the idle wave and the recovery
 *   osf_fit          from a log: the measured side (phases_study.h) and every model
 *                    parameter with how it was obtained and how well it is determined, then
 *                    the fitted model's side and the comparison, figure by figure
 * Library code: it never prints; failures return a plog_err_t and fill plog_error_t. */
#ifndef OSCILLATE_H
#define OSCILLATE_H

#include <stddef.h>
#include <stdint.h>

#include "osc_model.h"
#include "phases.h"
#include "phases_study.h"

/* ---- one side: phases on a grid and the figures of them ---- */

typedef struct osf_series {
    size_t n;                /* grid points */
    int32_t P;
    double *R, *S, *E;       /* per point */
    double *gmean;           /* per point: mean over ranks of g_i = sum_j T_ij |dtheta| */
    float *g;                /* n x P: g_i(t), row by row */
    float *dev;              /* n x P: theta_i - the ranks' mean phase (unwrapped), the
                                pattern the fit compares */
} osf_series_t;
int osf_series_alloc(osf_series_t *s, size_t n, int32_t P); /* NaN-filled; -1: no memory */
void osf_series_free(osf_series_t *s);
/* Point k from metrics already computed there (the phases study's): R, S, E and g as given,
 * the deviations from theta. */
void osf_series_set(osf_series_t *s, size_t k, const double *theta, double R, double S,
                    double E, const double *gabs);
/* Point k from the phases there (scratch, gabs, gsig: P doubles each). */
void osf_series_point(osf_series_t *s, size_t k, const double *theta, const ph_topo_t *topo,
                      const ph_potential_t *pot, int entropy, double *scratch, double *gabs,
                      double *gsig);

/* The final pattern, from the last quarter of the grid: synchronised (mean R >= 0.9);
 * else, with the neighbours' wrapped differences along T about equal (their coefficient of
 * variation below 0.5, mean above 0.1 rad), splay (R < 0.2) or wavefront; else disordered. */
enum osf_pattern { OSF_SYNC = 0, OSF_WAVEFRONT = 1, OSF_SPLAY = 2, OSF_DISORDERED = 3 };
const char *osf_pattern_name(int p); /* "synchronised", "wavefront", "splay", "disordered" */

/* The idle wave, defined alike on both sides (a threshold on the waits, as `phasor phases`
 * uses, finds no wave in the model: its coupling spreads a delay over many ranks at once at a
 * fraction of the amplitude). Per rank, from the boundaries: its steady period (the median
 * iteration time) and the iteration in the window [k0, k0 + 2 (largest distance + 2)] whose
 * time exceeds it the most; the rank is reached when that excess is above max(5 x its median
 * absolute deviation, 5 % of the source's excess), and arrives then; nothing is reached when
 * the source's own excess is within 5 x its median absolute deviation or 1 % of its median
 * iteration time. Distances as
 * ph_hop_distance. Speed: the inverse least-squares slope of (arrival - k0) over the distance,
 * over the reached ranks at distance >= 1 (two distances at least); reach: the largest
 * distance reached. */
typedef struct osf_wave {
    int found;
    uint32_t k0;            /* the source's iteration */
    uint32_t reached;       /* ranks reached at distance >= 1 */
    int32_t reach_hops;
    double ranks_per_iter;  /* NaN: not found */
    double source_excess_ns;
    int32_t *distance;      /* per rank: hops from the source, -1 none */
    int32_t *arrival;       /* per rank: the arrival iteration, -1 not reached */
    double *excess_ns;      /* per rank: the largest excess in the window, NaN none */
} osf_wave_t;
int osf_wave_find(const ph_marks_t *m, const ph_topo_t *topo, int32_t src, uint32_t k0,
                  osf_wave_t *w); /* -1: out of memory */
void osf_wave_free(osf_wave_t *w);

/* What follows from a series and iteration boundaries (measured or the model's). */
typedef struct osf_figures {
    double r_mean, s_mean, e_mean, g_mean; /* over the grid */
    int pattern;                           /* enum osf_pattern */
    double r_tail;                         /* mean R over the last quarter */
    osf_wave_t wave;                       /* from the perturbation's rank and iteration */
    ph_recovery_t rec;                     /* recovery of R from the perturbation on */
    double resync_s;                       /* rec.t_back - rec.t_from, s; NaN: none */
} osf_figures_t;
/* The figures of a series s on grid with boundaries m, following the perturbation of rank
 * src_rank at src_t (ns; -1: none). -1: out of memory. */
int osf_figures_of(const osf_series_t *s, const ph_marks_t *m, const ph_topo_t *topo,
                   const ph_grid_t *grid, int32_t src_rank, int64_t src_t,
                   double recover_frac, int64_t period_ns, osf_figures_t *f);
void osf_figures_free(osf_figures_t *f);

/* The model's side. */
typedef struct osf_side {
    osf_series_t ser;
    ph_marks_t marks;        /* the model's boundaries (earlier ones as given, see below) */
    osf_figures_t fig;
    osc_stats_t stats;
    double cpu_s;            /* the integration's time */
} osf_side_t;
void osf_side_free(osf_side_t *s);

/* What the model needs to run on a grid. */
typedef struct osf_setup {
    const osc_model_t *model;
    const osc_solver_opts_t *solver;
    const double *theta0;    /* P phases at grid->t0 */
    const ph_grid_t *grid;   /* time in ns; the model's t = (t_ns - grid->t0) / 1e9 */
    const ph_topo_t *topo;   /* T_ij of the metrics (the model's graph as a ph_topo) */
    const ph_potential_t *epot; /* V of E(t) */
    int entropy;             /* PH_ENTROPY_* */
    /* boundaries before t0 (levels below each rank's first crossing): NULL, free running
     * backwards from theta0 at omega_i; else these marks (the measured ones), whose k-th
     * boundary is level k */
    const ph_marks_t *past;
    /* the perturbation the figures follow: its rank and time (ns; the wave starts in the
     * iteration it falls in, the recovery is measured from it); rank -1: none */
    int32_t src_rank;
    int64_t src_t;
    double recover_frac;
    int64_t period_ns;       /* for the recovery's smoothing */
} osf_setup_t;
/* Integrate and derive. PLOG_E_USAGE for a model osc_model_check refuses or an integration
 * that fails (the reason in err). */
plog_err_t osf_side_run(const osf_setup_t *su, osf_side_t *out, plog_error_t *err);

/* The distance between two sides' patterns: the RMS over grid points and ranks of
 * dev_model - dev_measured (radians). */
double osf_distance(const osf_series_t *a, const osf_series_t *b);

/* ---- the fit ---- */

/* The families fitted: the paper's tanh(s x) and bottleneck piecewise form, and phasor's
 * wait potential (osc_model.h) with every delay one period: a rank learns of a neighbour's
 * progress at their exchange, once per iteration, and waits when it was behind by more
 * than a slack. */
enum osf_family {
    OSF_FAM_AUTO = 0, OSF_FAM_TANH = 1, OSF_FAM_BOTTLENECK = 2, OSF_FAM_FIXED = 3,
    OSF_FAM_WAIT = 4,
    OSF_FAM_PAPER = 5 /* the paper's two: tanh and bottleneck */
};
/* tau: none, one given value, per pair from the log's messages (AUTO), or one value for
 * every pair fitted like the shape (FIT: an effective delay, the lag with which a rank learns
 * of a neighbour's progress when they exchange once per iteration) */
enum osf_delay_mode { OSF_DELAY_NONE = 0, OSF_DELAY_CONST = 1, OSF_DELAY_AUTO = 3,
                      OSF_DELAY_FIT = 4 };

/* One change for a what-if run of the fitted model (NAN / -1: unchanged). */
typedef struct osf_whatif {
    int active;
    double noise_share;      /* >= 0 */
    int noise_kind;          /* OSC_NOISE_*, -1 */
    double coupling;         /* factor on v_p */
    const char *topology;    /* a named topology (osc_topo_parse) */
    double delay_s;          /* every tau_ij */
    double perturb_s;        /* the perturbation's length */
} osf_whatif_t;

typedef struct osf_opts {
    ph_study_opts_t study;   /* the measured side */
    int family;              /* enum osf_family */
    osc_pot_t pot;           /* FIXED: this potential */
    int delay_mode;          /* enum osf_delay_mode */
    double delay_s;          /* CONST */
    int noise_kind;          /* -1: fitted (uniform when any); else OSC_NOISE_* with share */
    double noise_share;      /* with noise_kind >= 0 */
    uint64_t seed;
    osc_solver_opts_t solver;
    unsigned fit_evals;      /* golden-section evaluations per family (default 14) */
    osf_whatif_t whatif;
    int64_t start_ns;        /* the model starts from the measured phases at the first grid
                                point at or after this time (aligned ns); INT64_MIN: at the
                                iterations' common start */
    /* optional, for writers that want the measured side as it is walked (the phases page):
     * on_prepared once the study is prepared (nonzero: out of memory), on_point at every
     * grid point */
    int (*on_prepared)(void *ctx, const ph_study_t *st);
    void (*on_point)(void *ctx, const ph_point_t *pt);
    void *hook_ctx;
} osf_opts_t;
void osf_opts_defaults(osf_opts_t *o);

/* One fitted value: how it was obtained, and the fit's distance at 0.8 and 1.2 times it
 * (NaN where not computed) against the distance at the value. */
typedef struct osf_param {
    const char *name;        /* "omega_mean_rad_s", "vp_per_s", "beta", "kappa", ... */
    double value;
    char how[160];
    double d_at, d_lo, d_hi;
} osf_param_t;
#define OSF_MAX_PARAMS 16

typedef struct osf_family_fit {
    int tried;
    osc_pot_t pot;           /* best of the family */
    double distance;         /* rad */
    unsigned evals;
    double gain;             /* the coupling's gain fitted with it */
    double tau;              /* --delay fit: the delay fitted with it (s) */
} osf_family_fit_t;

typedef struct osf_fit {
    /* measured */
    ph_study_t st;
    ph_grid_t grid;          /* the grid compared: the study's from point g0 on */
    size_t g0;
    osf_series_t meas;
    osf_figures_t mfig;
    int32_t src_rank;        /* the perturbation followed (the idle wave's source), -1 none */
    uint32_t src_iter;
    int64_t src_t;           /* when it was injected in the model, ns */
    double src_delta_s;
    /* fitted */
    double *rate;            /* P: each rank's measured rate, 2 pi / its period (rad/s) */
    double *omega;           /* P: the natural frequencies (osf_natural) */
    double *theta0;          /* P: the measured phases at the grid's start */
    osc_graph_t graph;
    osc_model_t model;
    osc_perturb_t perturb;
    double vp_formula;       /* beta kappa / period, 1/s */
    double tau_log;          /* the messages' median delay (s) */
    double *tau_edge;        /* the delays before the fit changed them, per edge (NULL: none) */
    double wait_lag;         /* the wait family: the mean rate x one period (rad) */
    osf_param_t param[OSF_MAX_PARAMS];
    size_t nparam;
    osf_family_fit_t fam[5]; /* by enum osf_family (AUTO's slot: unused) */
    int eager;               /* 1: every message eager (beta 1), 0: some rendezvous */
    uint64_t max_bytes, eager_limit;
    const char *eager_what;
    /* the fitted model's side and, with a what-if, the changed model's */
    osf_side_t model_side;
    osf_side_t whatif_side;
    int have_whatif;
    osc_model_t wmodel;
    osc_perturb_t wperturb;
    osc_graph_t wgraph;
    ph_topo_t wtopo;
    /* the distance per metric between model and measured */
    double r_rms, s_rms, e_rel, g_rms, resync_rel, wave_speed_rel;
    unsigned evals;          /* integrations run by the fit */
    double fit_s;            /* wall time of the whole fit */
} osf_fit_t;

/* The natural frequencies omega[i] that make the locked state of model m (every phase equal,
 * each delayed term theta_j(t - tau) = theta - rate_i tau) advance at rate[i], on average over
 * the noise: omega_i = (rate_i - (v_p / n) sum_j T_ij V(-rate_i tau_ij)) / (1 + share E[r]).
 * Without delays and noise omega = rate. */
void osf_natural(const osc_model_t *m, const double *rate, double *omega);

/* Fit run's model with o (borrowed until osf_fit_free) and run it side by side. */
plog_err_t osf_fit(plog_run_t *run, const osf_opts_t *o, osf_fit_t *f, plog_error_t *err);
void osf_fit_free(osf_fit_t *f);

/* T from a CSV file: one row per rank i, P comma-separated numbers, nonzero in column j when
 * i receives from j ('#' lines and blank lines skipped); P > 0: the matrix must be P x P;
 * *rows (may be NULL) gets its size. Errors name the file and the line. */
plog_err_t osf_graph_read_csv(const char *path, int32_t P, osc_graph_t *g, int32_t *rows,
                              plog_error_t *err);
/* A named topology (osc_topo_parse) of P nodes, else a CSV file as above. */
plog_err_t osf_graph_spec(const char *spec, int32_t P, osc_graph_t *g, plog_error_t *err);

/* A ph_topo of the model's graph (same edges). -1: out of memory. */
int osf_topo_of_graph(const osc_graph_t *g, ph_topo_t *t);
/* The other way: a graph of T's edges (both are CSR, neighbours ascending), no delays. */
int osf_graph_of_topo(const ph_topo_t *t, osc_graph_t *g);

#endif
