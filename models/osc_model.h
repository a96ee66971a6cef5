/* osc_model.h: the coupled-oscillator model of science.md section 4, and its integrator
 * (doc/oscillate.md is the reference):
 *
 *   d theta_i/dt = omega_i + zeta_i(t) + (v_p / P) sum_j T_ij V(theta_j(t - tau_ij) - theta_i(t))
 *
 * Time in seconds, phases in radians, never wrapped (a rank two periods ahead is 4 pi ahead,
 * also inside V). Pure C, libc/libm only: no I/O, no MPI. Failures return -1 and write one
 * line into an optional why buffer.
 *
 *   osc_pot_t      the potential V (sin, tanh(s x), the bottleneck's piecewise form, Fourier)
 *   osc_graph_t    T_ij as a sparse graph (CSR: row i lists the j that i receives from), with
 *                  an optional delay tau_ij per edge; every evaluation costs O(edges)
 *   osc_model_t    omega, v_p, V, T, noise, one-off perturbations
 *   osc_integrate  Dormand-Prince 5(4) with dense output and a history of past steps for the
 *                  delayed terms; samples on a grid and the times each theta_i crosses 2 pi k */
#ifndef OSC_MODEL_H
#define OSC_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* ---- the potential V ---- */

enum osc_pot_kind {
    OSC_POT_SIN = 0, OSC_POT_TANH = 1, OSC_POT_PIECEWISE = 2, OSC_POT_FOURIER = 3,
    OSC_POT_WAIT = 4
};
/* WAIT is phasor's, not the paper's: min(0, tanh(s (x + sigma))). A rank is held back only
 * by a neighbour more than sigma behind it (the slack of one exchange per iteration, 2 pi:
 * it cannot finish iteration k before the neighbour's message of iteration k left) and is
 * never pulled forward: a late rank cannot compute faster, the others wait for it. */
typedef struct osc_pot {
    int kind;       /* enum osc_pot_kind */
    double s;       /* TANH: slope s of tanh(s x); WAIT: its steepness */
    double sigma;   /* PIECEWISE: -sin(3 pi x / (2 sigma)) for |x| < sigma, sgn(x) beyond;
                       WAIT: the slack */
    double a, b;    /* FOURIER: sin x - a sin(N x) + b sin(2 N x) */
    int harmonic;   /* FOURIER: N */
} osc_pot_t;
/* "sin", "tanh", "tanh:S", "piecewise[:SIGMA]" (default pi: the OSC-AD -sin(1.5 x)),
 * "fourier:A,B,N", "wait[:SIGMA[:S]]" (default 2 pi, 4). 0, or -1 for anything else (p
 * zeroed). */
int osc_pot_parse(const char *s, osc_pot_t *p);
/* The text osc_pot_parse reads back to the same potential ("tanh:2", "piecewise:3.14159265",
 * ...), %.9g numbers. Returns what snprintf returns. */
int osc_pot_format(const osc_pot_t *p, char *buf, size_t n);
double osc_pot_eval(const osc_pot_t *p, double x);

/* ---- the coupling graph T_ij ---- */

typedef struct osc_graph {
    int32_t n;
    uint32_t *off;  /* n + 1: the neighbours of i are nb[off[i] .. off[i+1]), ascending */
    int32_t *nb;
    size_t nnz;
    double *tau;    /* NULL: no delays; else nnz delays tau_ij >= 0 (s), edge by edge */
} osc_graph_t;

/* From pairs (i, j): T_ij = 1, duplicates merged; -1 for a rank outside [0, n) or i == j. */
int osc_graph_from_pairs(int32_t n, const int32_t *pairs, size_t npairs, osc_graph_t *g,
                         char *why, size_t nwhy);

/* Named topologies, all of n nodes:
 *   chain  open chain, ring  periodic chain: i receives from i - k and i + k for k = 1..d
 *          (uni: from i - k only, the paper's directed chain);
 *   stencil2d, stencil3d: grid of dims (row-major, product n; 0 extents chosen as even as
 *          possible), i receives from its 4 / 6 face neighbours (uni: from the lower ones
 *          only), open or periodic;
 *   all    every j != i. */
enum osc_topo_kind {
    OSC_TOPO_CHAIN = 0, OSC_TOPO_RING = 1, OSC_TOPO_STENCIL2D = 2, OSC_TOPO_STENCIL3D = 3,
    OSC_TOPO_ALL = 4
};
typedef struct osc_topo_spec {
    int kind;       /* enum osc_topo_kind */
    int uni;        /* unidirectional */
    int distance;   /* chain, ring: neighbours at 1..distance (>= 1) */
    int dims[3];    /* stencils: extents, 0 = chosen */
    int periodic;   /* stencils */
} osc_topo_spec_t;
/* "chain[:uni|bi][:dD]", "ring[:uni|bi][:dD]", "stencil2d[:AxB][:periodic]",
 * "stencil3d[:AxBxC][:periodic]", "all". 0 or -1. */
int osc_topo_parse(const char *s, osc_topo_spec_t *t);
int osc_graph_named(int32_t n, const osc_topo_spec_t *t, osc_graph_t *g, char *why, size_t nwhy);
/* Every edge gets the delay tau (>= 0); allocates g->tau when NULL. 0 or -1. */
int osc_graph_set_delay(osc_graph_t *g, double tau);
void osc_graph_free(osc_graph_t *g);

/* ---- noise, perturbations, initial state ---- */

/* zeta_i(t) = share omega_i r_i(t): science.md's (P_noise / 100) theta_i' r with theta_i'
 * taken as omega_i (the rate without noise). r is uniform on [0, 1) or exponential with mean
 * 1, drawn once per rank and window of `window` seconds (windows start at t = 0) from a
 * counter-based generator of (seed, rank, window): the right-hand side is a deterministic,
 * piecewise smooth function of t, the same whatever steps the integrator takes, and the
 * integrator stops at every window boundary. */
enum osc_noise_kind { OSC_NOISE_NONE = 0, OSC_NOISE_UNIFORM = 1, OSC_NOISE_EXP = 2 };
typedef struct osc_noise {
    int kind;
    double share;   /* >= 0 */
    double window;  /* > 0 when kind != NONE */
    uint64_t seed;
} osc_noise_t;
/* r_i of window w (exposed for tests and for the noise's mean). */
double osc_noise_r(const osc_noise_t *z, int32_t rank, int64_t window);

/* Rank `rank` held back for delta seconds from time t: its theta stands still on
 * [t, t + delta) (the whole right-hand side is 0 there, as a rank that is late computing
 * neither advances nor is pulled), then goes on. The integrator stops at both ends. */
typedef struct osc_perturb {
    int32_t rank;
    double t, delta;
} osc_perturb_t;

/* Initial phases: zero; random uniform on [0, 2 pi) (seeded); splay 2 pi i / n; localised
 * (ranks 0..k-1 at v, the others 0); or given (theta[0..n)). */
enum osc_init_kind {
    OSC_INIT_ZERO = 0, OSC_INIT_RANDOM = 1, OSC_INIT_SPLAY = 2, OSC_INIT_LOCAL = 3,
    OSC_INIT_GIVEN = 4
};
typedef struct osc_init {
    int kind;
    uint64_t seed;       /* RANDOM */
    int32_t k;           /* LOCAL */
    double v;            /* LOCAL */
    const double *theta; /* GIVEN */
} osc_init_t;
/* "zero", "random[:SEED]", "splay", "local:K:V" (V in radians). 0 or -1. */
int osc_init_parse(const char *s, osc_init_t *in);
int osc_init_fill(const osc_init_t *in, int32_t n, double *theta0);

/* ---- the model ---- */

typedef struct osc_model {
    int32_t n;                 /* P */
    const double *omega;       /* n natural frequencies, rad/s */
    double vp;                 /* v_p, 1/s: the coupling term is (vp / n) sum_j ... */
    osc_pot_t pot;
    const osc_graph_t *graph;  /* n nodes; its tau (if any) are the delays */
    osc_noise_t noise;
    const osc_perturb_t *perturb;
    size_t nperturb;
    int forward;               /* phasor's, not the paper's: theta_i' = max(0, the right-hand
                                  side), a rank waits but never runs backwards (with the wait
                                  potential a rank held by two late neighbours would) */
} osc_model_t;
/* 0, or -1 with why (n < 1, a non-finite or negative omega, graph of another size, a
 * negative delay, a perturbation of a rank outside, ...). */
int osc_model_check(const osc_model_t *m, char *why, size_t nwhy);
/* The right-hand side at t with no delayed terms (every tau taken as 0): dtheta[0..n).
 * For tests and for callers that need the rate of a state. */
void osc_model_rhs(const osc_model_t *m, double t, const double *theta, double *dtheta);

/* ---- the integrator ---- */

typedef struct osc_solver_opts {
    double rtol, atol; /* default 1e-3 and 1e-6, as MATLAB's ode45 */
    double h_max;      /* 0: a tenth of the shortest period 2 pi / max omega */
    double h_fixed;    /* > 0: fixed steps of this size, no error control (order tests) */
    size_t max_steps;  /* 0: no limit; else fail past it */
} osc_solver_opts_t;
void osc_solver_defaults(osc_solver_opts_t *so);

/* Called at every output time t0 + k dt_out <= t1 (k = 0, 1, ...; t0 itself with theta0)
 * with the phases there from the dense output. Nonzero stops the integration (returned). */
typedef int (*osc_sample_fn)(void *ctx, double t, const double *theta);

typedef struct osc_run {
    double t0, t1;             /* t1 > t0 */
    const double *theta0;      /* n phases at t0; before t0 each theta_j is taken to have run
                                  freely, theta_j(t) = theta0_j + omega_j (t - t0), which is
                                  what the delayed terms see for t - tau < t0 */
    double dt_out;             /* > 0 with sample */
    osc_sample_fn sample;
    void *ctx;
    int crossings;             /* record when each theta_i crosses 2 pi k */
} osc_run_t;

/* The times each theta_i reached 2 pi k, k = first[i], first[i] + 1, ... (first[i] the
 * smallest k with 2 pi k > theta0_i), found on the dense output to within the tolerances.
 * A rank that is held back or pulled back may touch the same level twice: the first
 * crossing counts. */
typedef struct osc_crossings {
    int32_t n;
    int64_t *first;
    uint32_t *count;
    double **t;
} osc_crossings_t;
void osc_crossings_free(osc_crossings_t *cx);

typedef struct osc_stats {
    size_t steps, rejected, evals; /* accepted steps, rejected ones, right-hand sides */
    size_t history_peak;           /* most past steps kept at once for the delays */
    size_t bytes_peak;             /* the integrator's own memory at its peak */
} osc_stats_t;

/* Integrate m from r->t0 to r->t1. cx (with r->crossings) and st may be NULL. Returns 0,
 * the sample function's nonzero value, or -1 with why (a bad model or run, no memory, the
 * step size underflowing, max_steps passed). Delays: the dense output of every step back to
 * t - max tau is kept (a ring of steps; memory O(n x steps in max tau)); a step longer than
 * the smallest positive delay, whose stages read delayed values inside itself, is iterated
 * (predicted from the last step's dense output, then corrected with its own, 1-3 times; not
 * converged: rejected and halved), so delays much shorter than a step cost about twice the
 * right-hand sides of no delay, not steps of the delay's length. */
int osc_integrate(const osc_model_t *m, const osc_solver_opts_t *so, const osc_run_t *r,
                  osc_crossings_t *cx, osc_stats_t *st, char *why, size_t nwhy);

/* ---- the generic stepper, for tests of the method itself ---- */

/* y' = f(t, y) for n values, no delays: DP5(4) with the same control as osc_integrate;
 * y holds y(t0) on entry and y(t1) on return. 0, or -1 with why. */
typedef void (*osc_ode_fn)(void *ctx, double t, const double *y, double *dy);
int osc_ode_solve(osc_ode_fn f, void *ctx, size_t n, double t0, double t1, double *y,
                  const osc_solver_opts_t *so, osc_stats_t *st, char *why, size_t nwhy);

#endif
