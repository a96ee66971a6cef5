/* phasor_probe.h: the live network-health probe (phasor_probe.c). Times point-to-point
 * messages between the ranks of a communicator with PMPI calls on a private duplicate, and
 * summarises the samples as quantiles per (source, destination, size) and per (source, size).
 * Used by the phasor-probe program and by the shim at MPI_Init (PHASOR_PROBE=quick|full).
 *
 * quick (science.md §3, the study's protocol with both directions at once): in each round
 *   every rank exchanges `size` bytes with one partner in both directions at once (Irecv +
 *   Isend + Waitall), all pairs of the round active together, after an MPI_Barrier. The
 *   partners come from a round-robin tournament (every rank meets every other once in P-1
 *   rounds, P odd: one rank rests per round); at most max_rounds of those rounds are used,
 *   chosen at random. Sizes 4, 16, 64, 128 KiB and 1 MiB, in a new random order each
 *   repetition, rounds too. Repetitions continue until the time budget is spent (at least
 *   reps_min, at most reps_max). A sample is the time from posting to completing both
 *   directions, as the source sees it: congestion of the whole job included.
 * full (the lookup table's protocol): every ordered pair × sizes 0 and 512 B..2 MiB (powers of
 *   two) × reps_min repetitions, one message in flight at a time (a token passes from each
 *   measurement's source to the next one's), in one random order. The source times a
 *   ping (size bytes) and 0-byte pong; the one-way time of the sample is rtt - rtt0/2 where
 *   rtt0 is the pair's median 0-byte round trip.
 * All random choices come from one seed, the same on every rank, so every rank agrees on the
 * order without messages. Times are nanoseconds (CLOCK_MONOTONIC). */
#ifndef PHASOR_PROBE_H
#define PHASOR_PROBE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef enum pprobe_mode { PPROBE_QUICK = 1, PPROBE_FULL = 2 } pprobe_mode_t;

#define PPROBE_MAXSIZES 16

typedef struct pprobe_opts {
    pprobe_mode_t mode;
    double budget_s;  /* quick: stop repeating when the next repetition would exceed it */
    int reps_min;     /* quick: at least this many repetitions; full: exactly this many */
    int reps_max;     /* quick: at most */
    int max_rounds;   /* quick: tournament rounds used (partners per rank), <= P-1 */
    uint64_t seed;    /* rank 0's value is used by all */
} pprobe_opts_t;

/* The defaults of each mode (budget 0.8 s, 3..200 reps, 16 rounds; full: 5 reps). */
void pprobe_defaults(pprobe_mode_t mode, pprobe_opts_t *o);

/* Quantiles of a set of samples (ns). Quantile q of n sorted values: linear interpolation
 * between order statistics at h = (n-1)q (Hyndman-Fan type 7, R's default). */
typedef struct pprobe_q {
    uint32_t n;
    double min, q10, q25, q50, q75, q90, max, mean;
} pprobe_q_t;

/* One summary: src -> dst (dst = -1: every destination of src pooled) at sizes[size_idx]. */
typedef struct pprobe_entry {
    int32_t src, dst;
    uint32_t size_idx;
    pprobe_q_t q;
} pprobe_entry_t;

typedef struct pprobe_result {
    pprobe_mode_t mode;
    int nranks;
    int nsizes;
    uint64_t sizes[PPROBE_MAXSIZES];
    int reps;               /* repetitions done (quick: the same on every rank) */
    int rounds;             /* quick: tournament rounds used */
    double elapsed_s;       /* wall time of the measurement, slowest rank */
    uint64_t seed;
    size_t n_entries;       /* pair entries first (dst >= 0), then per-source ones */
    pprobe_entry_t *entries;
    char (*hosts)[64];      /* processor name of each rank */
} pprobe_result_t;

/* Collective over comm. On root, *res is filled (free with pprobe_result_free); elsewhere it
 * is zeroed. Returns MPI_SUCCESS or the first failing MPI call's code (the same on all
 * ranks is not guaranteed: a failing network is what the probe is for, and MPI's default
 * error handler aborts first anyway). Uses PMPI only: nothing it does is recorded. */
int pprobe_run(MPI_Comm comm, int root, const pprobe_opts_t *o, pprobe_result_t *res);
void pprobe_result_free(pprobe_result_t *res);

/* Quantiles of v[0..n) (sorted in place). Exposed for tests. */
void pprobe_quantiles(double *v, size_t n, pprobe_q_t *out);
/* The partner of rank r in round k (0 <= k < P-1 for even P, < P for odd P) of the circle
 * tournament; -1 when r rests. Symmetric: partner(partner(r)) == r. Exposed for tests. */
int pprobe_partner(int r, int k, int p);

#endif
