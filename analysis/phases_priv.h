/* phases_priv.h: what the phases_*.c files of analysis/ share and nobody else sees: the
 * comparators and medians they all use alike, the phase within one iteration, and the
 * gathering of receive pairs that the topology and the compute-time pass both feed. */
#ifndef PHASES_PRIV_H
#define PHASES_PRIV_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "phases.h"

#define PH_TAU 6.283185307179586476925

/* qsort comparators, ascending */
int ph_cmp_i64(const void *a, const void *b);
int ph_cmp_u64(const void *a, const void *b);
int ph_cmp_u32(const void *a, const void *b);

/* Median of v[0..n) (sorts v; the mean of the middle two when n is even); NaN when n = 0. */
double ph_median_of(double *v, size_t n);
/* Median of the n - 1 differences of t[0..n) (scratch holds n - 1); 0 when n < 2. */
double ph_median_diff(const int64_t *t, uint32_t n, int64_t *scratch);

/* The failure of a pass over the log for want of memory: "<log>: out of memory". */
plog_err_t ph_nomem(const plog_run_t *run, plog_error_t *err);

/* Largest k with t[k] <= at (walking from c->k; at must not decrease), -1 outside
 * [first, last] boundary. Inline: the grid walk asks it for every rank at every point. */
static inline int64_t ph_cursor_iter(ph_cursor_t *c, int64_t at)
{
    if (c->n < 2 || at < c->t[0] || at > c->t[c->n - 1])
        return -1;
    if (c->t[c->k] > at)
        c->k = 0;
    while (c->k + 1 < c->n && c->t[c->k + 1] <= at)
        c->k++;
    return c->k;
}

/* theta at `at` in iteration k of t[0..n) (k = n - 1: exactly the last boundary). */
static inline double ph_phase_in(const int64_t *t, uint32_t n, int64_t k, int64_t at)
{
    assert(k >= 0 && (uint64_t)k < n);
    if ((uint32_t)k == n - 1)
        return PH_TAU * (double)k;
    return PH_TAU * ((double)k + (double)(at - t[k]) / (double)(t[k + 1] - t[k]));
}

/* Receive pairs (i, j), gathered event by event, deduplicated per rank as the list grows. */
typedef struct ph_topo_acc {
    int32_t P;
    int32_t *pairs;           /* 2 np values */
    size_t np, cap;           /* cap: int32 values */
    size_t first, next_dedup; /* this rank's pairs start at first */
    int32_t last;
} ph_topo_acc_t;
void ph_acc_rank(ph_topo_acc_t *a); /* before each rank's events */
int ph_acc_event(ph_topo_acc_t *a, const plog_rec_t *ev); /* -1: out of memory */
/* pairs (i, j) sorted and deduplicated in place into CSR; -1: out of memory */
int ph_topo_build(int32_t n, int32_t *pairs, size_t np, ph_topo_t *out);

#endif
