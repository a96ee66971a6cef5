/* phases_plot.h: the figures of `phasor phases --plots` (doc/phases-format.md, "Plots"):
 * eight SVG views of the coupled-oscillator metrics and an index.html showing them with the
 * summary. Data are aggregated while the grid is walked, so memory does not grow with the
 * grid or with P^2: time is reduced to at most PP_MAX_BINS columns (mean, min and max per
 * column), ranks to at most PP_MAX_ROWS rows (block means), pairs to percentiles plus a few
 * chosen pairs, snapshots to at most PP_MAX_SNAP. */
#ifndef PHASES_PLOT_H
#define PHASES_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "phases.h"
#include "phases_study.h"

#define PP_MAX_BINS 2000 /* time points per series */
#define PP_MAX_COLS 400  /* time columns of the gradient heatmap */
#define PP_MAX_ROWS 128  /* rank rows of the gradient heatmap */
#define PP_MAX_BLOCK 64  /* rank blocks per axis of the Delta-theta heatmap */
#define PP_MAX_SNAP 9    /* snapshots drawn (circle, histogram) */
#define PP_MAX_HL 4      /* pairs drawn as lines over the percentile band */
#define PP_RING_BINS 90  /* angular bins of the density ring (more than PP_POINTS_UP_TO ranks) */
#define PP_POINTS_UP_TO 256

typedef struct pp_snap {
    int64_t t;
    double R, psi;
    uint32_t nring[PP_RING_BINS];
    double *wrapped;      /* P wrapped phases (NaN: none) when P <= PP_POINTS_UP_TO */
    double hlo, hw;       /* histogram of the pairwise differences */
    uint32_t hn;
    uint64_t *hcount, htotal;
    double *block;        /* nb x nb block means of dtheta_ij (row i, column j) */
} pp_snap_t;

typedef struct pp {
    int32_t P;
    int wrap;
    int heat_wrap; /* the heatmap's differences wrapped (the paper's), whatever wrap says */
    int64_t t0, dt;
    size_t n, per, nbins;          /* grid points, points per time bin, bins */
    double *t, *r[3], *s[3], *e[3]; /* per bin: time (ns, bin centre); mean, min, max */
    size_t *cnt;
    /* gradient heatmap */
    size_t grow, gcol, gper;
    int32_t rblock;
    double *gsum;
    uint32_t *gcnt;
    /* pairwise differences: percentiles over the chosen pairs (sampled at each bin's
     * first grid point) and a few pairs as lines */
    const int32_t *pairs;
    size_t npairs;
    double *q[5], *scratch;
    int nhl;
    int32_t hl[PP_MAX_HL][2];
    double *hls[PP_MAX_HL];
    /* snapshots */
    size_t nsnap;
    pp_snap_t snap[PP_MAX_SNAP];
    int32_t nblock, bsize;
} pp_t;

/* Derived figures and run facts shown on the page; strings are borrowed. */
typedef struct pp_summary {
    const char *log, *marker, *topology, *potential;
    int32_t ranks, with_phase;
    uint32_t it_min, it_max;
    double median_period_ns, r_mean, r_min, s_mean, e_mean, thr;
    int64_t r_min_t;
    int compute_only;
    const ph_resync_t *rs;
    const ph_wave_t *wave;
    int64_t wave_t;            /* start of the source's delayed iteration, ns */
    const double *lag_mean;    /* per rank, iterations (NaN: no phase) */
    double period_ns;
    const char *extra_html;    /* NULL, or a section put at the page's end (phasor oscillate) */
} pp_summary_t;

/* pairs: (i, j) of dtheta.csv, borrowed until pp_free. -1: out of memory. */
int pp_init(pp_t *pp, int32_t P, const ph_grid_t *g, const int32_t *pairs, size_t npairs,
            int wrap, int heat_wrap);
/* Grid point g (in order): the phases and the metrics there. */
void pp_add(pp_t *pp, size_t g, const double *theta, double R, double S, double E,
            const double *gabs);
/* Whether snapshot k of n (grid point index gk, R's minimum at gmin) is drawn. */
int pp_want_snapshot(size_t k, size_t n, int64_t gk, int64_t gmin);
/* A drawn snapshot (its histogram when it has one). -1: out of memory. */
int pp_snapshot(pp_t *pp, const ph_snapshot_t *sn);
/* Write the SVG files and index.html into dir (open as dirfd: ofile.h); on failure -1 with
 * the file in why. */
int pp_write(const pp_t *pp, const pp_summary_t *sm, int dirfd, const char *dir, char *why,
             size_t wn);
void pp_free(pp_t *pp);

/* The files written, in order (the index last). */
#define PP_NFILES 9
extern const char *const pp_files[PP_NFILES];

#endif
