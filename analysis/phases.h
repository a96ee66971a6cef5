/* phases.h: phases of ranks from a log and the coupled-oscillator metrics over them
 * (science.md section 4; the definitions and edge cases are in doc/phases-format.md).
 *
 * Three layers, each usable alone:
 *   1. iteration boundaries per rank (ph_marks_find): MPI_Pcontrol markers, a chosen MPI
 *      call or call site (every n-th occurrence), or the period of each rank's call
 *      signature sequence, read rank by rank; memory O(iterations) per rank;
 *   2. the phase theta_i(t) = 2 pi (k + (t - t_k) / (t_{k+1} - t_k)), unwrapped, on the
 *      clock-aligned axis (ph_cursor_*: grid point by grid point, O(1) amortised), or with
 *      the phase advancing only outside MPI (ph_compute_fill);
 *   3. pure metrics of one grid point (order parameter, entropy with Freedman-Diaconis bins,
 *      phase gradient, potential energy) and derived figures (resynchronisation after a
 *      perturbation, idle-wave speed, per-rank lag).
 * Library code never prints; failures return a plog_err_t and fill an optional
 * plog_error_t naming the file. The whole computation of `phasor phases` over these is
 * phases_study.h; the parts are in analysis/phases_*.c. */
#ifndef PHASES_H
#define PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "osc_model.h"
#include "plog_reader.h"

/* ---- 1. iteration boundaries ---- */

enum ph_mark_mode {
    PH_MARK_AUTO = 0,     /* Pcontrol if any rank has >= 2 of them, else PH_MARK_PERIOD */
    PH_MARK_PCONTROL = 1, /* MPI_Pcontrol calls (of one level, or any) */
    PH_MARK_CALL = 2,     /* a chosen MPI call, optionally at one call site */
    PH_MARK_PERIOD = 3    /* detected: the signature that occurs once per period */
};

#define PH_ANY_LEVEL INT32_MIN
#define PH_DETECT_WINDOW (1u << 18) /* signatures per rank the period detection looks at */

typedef struct ph_mark_spec {
    int mode;            /* enum ph_mark_mode */
    int32_t level;       /* PCONTROL: the level, or PH_ANY_LEVEL */
    int call;            /* CALL: enum plog_call; after PERIOD: the detected call */
    uint32_t callsite;   /* CALL: call-site id, 0 = any */
    uint32_t every;      /* every n-th occurrence is a boundary (>= 1) */
    uint32_t skip;       /* occurrences ignored first on each rank (set-up) */
    int use_end;         /* the boundary is the marker event's end, else its start */
} ph_mark_spec_t;

typedef struct ph_marks {
    int32_t nranks;      /* world size */
    ph_mark_spec_t used; /* the spec after AUTO/PERIOD were resolved */
    uint32_t period;     /* PERIOD: detected period in events on the most ranks, else 0 */
    uint32_t *n;         /* per rank: number of boundaries */
    int64_t **t;         /* per rank: boundary times, aligned ns, non-decreasing */
    double **comp;       /* NULL, or after ph_marks_compute per rank n - 1 values: the time
                            of each iteration spent outside MPI calls (ns) */
} ph_marks_t;

/* Find the boundaries of every loaded rank. A rank with fewer than two has no phase.
 * PLOG_E_USAGE (with a message) when AUTO/PERIOD find nothing to go by. */
plog_err_t ph_marks_find(plog_run_t *run, const ph_mark_spec_t *spec, ph_marks_t *out,
                         plog_error_t *err);
void ph_marks_free(ph_marks_t *m);
/* One more pass: each iteration's compute time (outside the union of the rank's MPI calls,
 * the Pcontrol markers and phasor's own step records not counted) into m->comp; with
 * topo != NULL the same pass also gives the topology of ph_topo_from_log. */
struct ph_topo;
plog_err_t ph_marks_compute(plog_run_t *run, ph_marks_t *m, struct ph_topo *topo,
                            plog_error_t *err);

/* Period detection on one signature sequence (pure). Returns the smallest period p (in
 * sequence positions) with s[n] == s[n+p] for at least PH_PERIOD_MATCH of the positions
 * past the first p, or 0 when there is none (sequence shorter than 3 periods included).
 * With anchors != NULL, writes up to max_anchors signatures occurring exactly once per
 * period over the periodic part (ascending) to anchors and their count to *n_anchors. */
#define PH_PERIOD_MATCH 0.9
uint32_t ph_detect_period(const uint64_t *s, size_t n, uint64_t *anchors, size_t max_anchors,
                          size_t *n_anchors);
/* The signature of an event for period detection: call id and call site. */
static inline uint64_t ph_signature(unsigned call, uint32_t callsite)
{
    return (uint64_t)call << 32 | callsite;
}

/* ---- 2. phases on a time grid ---- */

typedef struct ph_grid {
    int64_t t0;          /* aligned ns */
    int64_t dt;          /* > 0 */
    size_t n;            /* points t0 + g dt, g < n */
} ph_grid_t;

/* The common interval of the ranks with a phase: [max first boundary, min last boundary].
 * dt_ns > 0 is taken as given; else dt = median iteration period / 4. The grid is then
 * thinned to at most max_points (dt grows). Returns 0, or -1 when fewer than one rank has
 * a phase or the intervals do not overlap. */
int ph_grid_make(const ph_marks_t *m, int64_t dt_ns, size_t max_points, ph_grid_t *g);
/* Median over ranks of each rank's median iteration period (ns); 0 if none. */
double ph_median_period(const ph_marks_t *m);

/* theta of one rank at non-decreasing times (binary search once, then it walks). */
typedef struct ph_cursor {
    const int64_t *t;
    uint32_t n, k;
} ph_cursor_t;
void ph_cursor_init(ph_cursor_t *c, const ph_marks_t *m, int32_t rank);
/* Phase at t, unwrapped, radians; NaN outside [first, last] boundary. */
double ph_cursor_phase(ph_cursor_t *c, int64_t t);
/* Same for any t, without state. */
double ph_phase_at(const int64_t *t, uint32_t n, int64_t at);

/* Phase that advances only outside MPI calls: for every rank with a phase, the fraction of
 * the current iteration's compute time (time outside MPI calls, the union of its events)
 * elapsed at each grid point. frac[r] (rank r, NULL for ranks without a phase) gets g->n
 * values: theta = 2 pi (k + frac), k from the boundaries; an iteration without compute
 * time falls back to wall time. Memory: 4 bytes per rank and grid point. */
typedef struct ph_compute {
    int32_t nranks;
    float **frac;
} ph_compute_t;
plog_err_t ph_compute_fill(plog_run_t *run, const ph_marks_t *m, const ph_grid_t *g,
                           ph_compute_t *out, plog_error_t *err);
void ph_compute_free(ph_compute_t *c);

/* Every rank's phase at the grid points, in order (what the metrics consume): with comp the
 * compute-only phases of ph_compute_fill, else wall-time phases. */
typedef struct ph_timeline {
    const ph_marks_t *m;
    const ph_compute_t *comp; /* NULL: wall time */
    ph_grid_t grid;
    ph_cursor_t *cur;         /* one per rank */
} ph_timeline_t;
int ph_timeline_init(ph_timeline_t *tl, const ph_marks_t *m, const ph_compute_t *comp,
                     const ph_grid_t *g); /* -1: out of memory */
/* theta[r] for every rank r (NaN where it has no phase). Grid points must not decrease
 * between calls, except after ph_timeline_rewind. */
void ph_timeline_at(ph_timeline_t *tl, size_t g, double *theta);
void ph_timeline_rewind(ph_timeline_t *tl);
void ph_timeline_free(ph_timeline_t *tl);

/* ---- topology T_ij (i receives from j) ---- */

typedef struct ph_topo {
    int32_t n;           /* ranks */
    uint32_t *off;       /* CSR: neighbours of i are nb[off[i] .. off[i+1]) ascending */
    int32_t *nb;
    size_t nnz;
} ph_topo_t;

/* From the log: i receives from j when a completed receive on i (Recv, Sendrecv, a receive
 * request's completion) matched a message from j != i. Collectives are not counted. */
/* Whether status st of event e is such a received message (from st->source, a world rank). */
int ph_recv_source(const plog_rec_t *e, const plog_rstatus_t *st);
plog_err_t ph_topo_from_log(plog_run_t *run, ph_topo_t *out, plog_error_t *err);
/* From pairs (i, j): T_ij = 1; out-of-range pairs and i == j are rejected (-1). */
int ph_topo_from_pairs(int32_t n, const int32_t *pairs, size_t npairs, ph_topo_t *out);
int ph_topo_all(int32_t n, ph_topo_t *out); /* every j != i */
/* From a file of lines "i j" (i receives from j; '#' starts a comment) for P ranks: the
 * message names the file, and the line of a pair that is not two different ranks below P. */
plog_err_t ph_topo_read(const char *path, int32_t P, ph_topo_t *out, plog_error_t *err);
int ph_topo_has(const ph_topo_t *t, int32_t i, int32_t j);
void ph_topo_free(ph_topo_t *t);

/* ---- 3. metrics of one grid point (pure; NaN phases are skipped where stated) ---- */

/* R e^{i psi} = (1/N) sum e^{i theta_j} over the n finite phases; R = 0, psi = 0 when none. */
void ph_order(const double *theta, size_t n, double *R, double *psi);

/* Freedman-Diaconis binning of x[0..n) (x is sorted in place): h = 2 IQR n^{-1/3}, IQR of
 * linear-interpolated quantiles; IQR = 0 is floored at range / 10; range 0 gives one bin.
 * nbins = ceil(range / h) capped at PH_MAX_BINS, equal widths over [min, max]. */
#define PH_MAX_BINS 4096
typedef struct ph_bins {
    double lo, width;    /* bin b covers [lo + b w, lo + (b+1) w), the last one closed */
    uint32_t n;
} ph_bins_t;
void ph_fd_bins(double *x, size_t n, ph_bins_t *b);
uint32_t ph_bin_of(const ph_bins_t *b, double x);

/* Synchronisation entropy S = -sum p_k log p_k of the finite phases wrapped to [-pi, pi)
 * around psi; scratch holds n doubles, *nbins gets N_b.
 *   PH_ENTROPY_CIRCLE (the default): N_b = the number of finite phases (at most PH_MAX_BINS)
 *     bins of width 2 pi / N_b tiling the circle, one centred on psi. S is 0 for any cluster
 *     narrower than a bin, log N_b for the splay state, and does not depend on the spread's
 *     scale within a bin.
 *   PH_ENTROPY_FD: the literal recipe, Freedman-Diaconis bins over the wrapped values' own
 *     [min, max], so S measures the shape of the spread, not its width (a cluster of 1e-3 rad
 *     can score as high as the splay state). */
enum ph_entropy_kind { PH_ENTROPY_CIRCLE = 0, PH_ENTROPY_FD = 1 };
double ph_entropy(const double *theta, size_t n, double psi, double *scratch, uint32_t *nbins,
                  int kind);
/* "circle" or "fd": 0 with *kind set, -1 otherwise. */
int ph_entropy_parse(const char *s, int *kind);
const char *ph_entropy_name(int kind);

/* g_i = sum_j T_ij |theta_j - theta_i| and the signed sum; NaN when theta_i or a
 * neighbour's phase is NaN. */
void ph_gradient(const double *theta, const ph_topo_t *t, double *g_abs, double *g_signed);

/* The potential V is the oscillator model's (models/osc_model.h: osc_pot_parse, _eval,
 * _format and the OSC_POT_* kinds): one definition for the model and the metrics. */
typedef osc_pot_t ph_potential_t;
/* E = sum_i sum_j T_ij V^2(theta_j - theta_i) over pairs with finite phases. */
double ph_energy(const double *theta, const ph_topo_t *t, const ph_potential_t *p);

static inline double ph_wrap_pi(double x) /* to [-pi, pi) */
{
    const double tau = 6.283185307179586476925;
    double y = x - tau * __builtin_floor((x + 3.141592653589793238463) / tau);
    return y >= 3.141592653589793238463 ? y - tau : y;
}

/* The pairwise phase difference theta_j - theta_i, wrapped to [-pi, pi) with wrap. */
static inline double ph_dtheta(const double *theta, int32_t i, int32_t j, int wrap)
{
    double d = theta[j] - theta[i];
    return wrap ? ph_wrap_pi(d) : d;
}

/* ---- derived figures ---- */

/* Excursions of R below a threshold: fed grid point by grid point. An excursion starts at
 * the first point with R < thr after a point with R >= thr (or at the start, when R starts
 * low it is reported with start_ns = the grid start and preceded = 0) and ends at the first
 * point with R >= thr again (recovered = 1) or at the end of the grid (recovered = 0). */
typedef struct ph_excursion {
    int64_t start_ns, min_ns, end_ns;
    double r_min;
    int recovered, preceded;
} ph_excursion_t;
typedef struct ph_resync {
    double thr;
    int in, started;
    ph_excursion_t cur;
    ph_excursion_t *v;
    size_t n, cap;
} ph_resync_t;
void ph_resync_init(ph_resync_t *r, double thr);
int ph_resync_add(ph_resync_t *r, int64_t t, double R); /* -1: out of memory */
int ph_resync_finish(ph_resync_t *r, int64_t t_end); /* -1: out of memory */
void ph_resync_free(ph_resync_t *r);

/* Idle wave. A delay is an iteration longer than the rank's median duration. The source is
 * where it was caused, and of the delays the one whose wave spread farthest: a loaded
 * machine's one-rank stall can be longer than a delay that reaches every rank. Candidates: the
 * PH_WAVE_CANDIDATES (rank, iteration) whose excess is largest, the excess of compute time
 * over the rank's median compute time with m->comp (waiting for a late neighbour is time
 * inside MPI), else of duration, each above 5 x that rank's median absolute deviation of
 * it and of its durations (the largest one alone when none is). The wave is walked from
 * each; a candidate that the wave of one with no smaller excess reached at that very
 * iteration is an arrival of that wave, not a source (of two that reach each other, the
 * earlier). The source: the candidate left
 * whose wave delivered the most idle time past it (the sum of the idle periods at the other
 * ranks reached, each up to the source's excess: the reached ranks weighted by the wait that
 * arrived, so a one-rank stall scores 0 and machine-wide jitter little), then reached the
 * most ranks, then the most hops, then the largest excess (equal excesses: the earliest).
 * Distance: hops from the source in topo along the messages (i is one hop past j when
 * T_ij = 1, i receives from j); ranks the messages do not lead to get the hop distance with
 * the edges taken both ways (a wave against the messages: rendezvous senders waiting), ranks
 * in neither direction -1. topo NULL or without edges: |rank - source| (an open chain).
 * The wave walks outwards hop by hop: a rank is reached at its first iteration k in
 * [kp, kp + PH_WAVE_SLACK] (kp: the earliest arrival among its reached neighbours one hop
 * nearer the source) whose duration exceeds its median by more than max(frac x the
 * source's excess duration, 5 x the rank's median absolute deviation). Only a neighbour's
 * arrival can start one, so a rank's own noise much later is not taken for the wave.
 * The idle period at a reached rank is that excess (at the source: its own excess).
 * Speeds are the inverse least-squares slopes of the arrival iteration and the arrival time
 * (the end of the delayed iteration) over the distance, over the reached ranks. */
#define PH_WAVE_SLACK 2
#define PH_WAVE_CANDIDATES 16
typedef struct ph_wave {
    int found;            /* a source with a positive excess and >= 2 reached ranks */
    int32_t source;
    uint32_t source_iter;
    double source_excess_ns;
    uint32_t reached;     /* ranks reached (the source included) */
    double ranks_per_iter, ranks_per_s;
    int directed;         /* distances from a topology with edges (else |rank - source|) */
    int32_t reach_hops;   /* largest distance reached (survival distance) */
    int32_t extent_hops;  /* largest distance of any rank with a phase */
    /* decay of the idle period along the way: least-squares slope of idle_ns over the
     * distance for the reached ranks at distance >= 1, negated (ns per hop, > 0: the wave
     * loses amplitude), and that over the idle period at distance 1 (per hop); NaN with
     * fewer than two distances */
    double decay_ns_per_hop, decay_per_hop;
    /* How sure the pick is. The runner-up: the best other candidate left that is not on
     * the source's wave (its rank reached within PH_WAVE_SLACK iterations of its iteration,
     * the source's rank included), -1 none. confidence = 1 - the runner-up's idle time
     * delivered / the source's: 1 when no other delay reached anyone, 0 when one delivered
     * as much; NaN when not found. ph_wave_find_at: 0 candidates, no runner-up, NaN. */
    uint32_t candidates;  /* sources walked */
    double idle_delivered_ns; /* the idle periods at the ranks reached past the source, each
                               * up to source_excess_ns */
    int32_t runner_up_source;
    uint32_t runner_up_iter, runner_up_reached;
    double runner_up_idle_ns; /* its idle time delivered (0 without one) */
    double confidence;
    int32_t *arrival_iter; /* per rank: iteration reached, -1 not reached / no phase */
    int64_t *arrival_ns;
    int32_t *distance;    /* per rank: hops from the source, -1 none */
    double *idle_ns;      /* per rank: the idle period at arrival, NaN not reached */
} ph_wave_t;
int ph_wave_find(const ph_marks_t *m, const ph_topo_t *topo, double frac, ph_wave_t *w);
/* The same with the source given (the rank and iteration a delay was injected at: a loaded
 * machine's own hiccups can be larger); an iteration the rank does not have: found = 0. */
int ph_wave_find_at(const ph_marks_t *m, const ph_topo_t *topo, double frac, int32_t source,
                    uint32_t iter, ph_wave_t *w);
void ph_wave_free(ph_wave_t *w);
/* Hop distances from src into dist[0..t->n) as described above (pure). 0, -1 out of memory. */
int ph_hop_distance(const ph_topo_t *t, int32_t src, int32_t *dist);

/* Recovery of R relative to the run's own level, for runs whose R never reaches a fixed
 * threshold (noise, machine jitter). Rs is R smoothed over one period: the mean of the grid
 * points within half a period either side. Baseline: the mean of R over the grid points
 * before t_from (the perturbation); the drop: the lowest Rs at or after t_from; recovered at
 * the first later grid point where Rs >= Rs_min + frac (baseline - Rs_min). Every figure
 * is NaN / not found when there are fewer than 4 points before t_from or Rs did not drop
 * below the baseline by more than twice the standard deviation of R before t_from (the
 * run's own jitter). */
typedef struct ph_recovery {
    int found, recovered;
    size_t n_base;        /* grid points in the baseline */
    double r_base, r_base_sd; /* mean and standard deviation of R before t_from */
    double r_min;         /* lowest smoothed R after t_from */
    double r_target;      /* r_min + frac (r_base - r_min) */
    double r_tail;        /* mean R over the last quarter of the grid */
    int64_t t_from, t_min, t_back; /* t_back: 0 when not recovered */
} ph_recovery_t;
int ph_recovery_find(const double *R, const ph_grid_t *g, int64_t t_from, int64_t period_ns,
                     double frac, ph_recovery_t *out); /* 0, -1 out of memory */
void ph_recovery_clear(ph_recovery_t *out); /* nothing found: every figure NaN or 0 */

/* Twin runs: the perturbed run m against a reference ref of the same program with the same
 * noise but without the delay (idlewave draws its noise per rank and iteration from a seed).
 * Shift of rank r at boundary k: s_r(k) = (t_r(k) - t_r(0)) - (t'_r(k) - t'_r(0)); what
 * differs between the runs is the delay and the machine's own jitter, the program's noise
 * cancels. Spread D(k) = max_r s_r(k) - min_r s_r(k) over the ranks with boundary k in both.
 * Base: median of D over boundaries 1..k0 (k0: the delayed iteration, >= 2); peak: the
 * largest D at boundaries k0 + 1 .. k0 + 1 + PH_WAVE_SLACK (where the delayed iteration
 * ends); found only when peak - base > base (the jitter between the runs before the delay
 * must not be as large as the delay's jump); recovered at the first boundary after the peak
 * from which D stays
 * <= base + (1 - frac)(peak - base) for three boundaries. Per rank, reach_ns: the
 * largest s_r(k) for k0 < k < k0 + 2 + 2 max distance + PH_WAVE_SLACK (a wave of half a rank
 * per iteration) minus the median of s_r(1..k0): how much of the delay it took;
 * survival_hops: the largest distance d such that at every distance 1..d some rank took at
 * least half of the source rank's reach (distance as in ph_wave_t; -1 ranks ignored). */
typedef struct ph_twin {
    int found, recovered;
    uint32_t k0, n;       /* the delayed iteration; boundaries compared */
    double *spread_ns;    /* n values, D(k) */
    double base_ns, peak_ns, target_ns;
    uint32_t k_peak, k_back;
    double *reach_ns;     /* per rank, NaN without a shift */
    double source_reach_ns;
    double far_reach_ns;  /* mean reach of the ranks at the largest distance */
    int32_t survival_hops;
} ph_twin_t;
int ph_twin_find(const ph_marks_t *m, const ph_marks_t *ref, const int32_t *distance,
                 int32_t source, uint32_t k0, double frac, ph_twin_t *tw); /* -1: no memory */
void ph_twin_free(ph_twin_t *tw);
void ph_twin_clear(ph_twin_t *tw); /* nothing found: every figure NaN or 0, no arrays */

#endif
