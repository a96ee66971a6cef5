/* phasor_probe.h: the live network-health probe (phasor_probe.c). Times point-to-point
 * messages between the ranks of a communicator with PMPI calls on a private duplicate (or on
 * the communicator itself: pprobe_opts_t.on_comm), and
 * summarises the samples as quantiles per (source, destination, size) and per (source, size).
 * Used by the phasor-probe program, by the shim at MPI_Init (PHASOR_PROBE=quick|full) and
 * during the run (PHASOR_PROBE=...,every=N|pcontrol: profiler/phasor_probe_sched.c).
 *
 * quick (science.md §3, the study's protocol with both directions at once): in each round
 *   every rank exchanges `size` bytes with one partner in both directions at once (Irecv +
 *   Isend + Waitall), all pairs of the round active together, after an MPI_Barrier. The
 *   partners come from a round-robin tournament (plog_probe_partner: every rank meets every
 *   other once in P-1 rounds, P odd: one rank rests per round); at most max_rounds of those
 *   rounds are used, chosen at random. Sizes 4, 16, 64, 128 KiB and 1 MiB, in a new random order each
 *   repetition, rounds too. Repetitions continue until the time budget is spent (at least
 *   reps_min, at most reps_max). An exchange sample is the time from the later of the two
 *   partners' postings to the later of their Waitalls at the same repetition, on the lower
 *   rank's clock (each pair matches its clocks by 0-byte ping-pongs before and after the
 *   repetitions), so the pair's two entries hold the same samples. A rank's own time ends
 *   when its receive has arrived and its send has left its hands, which can be long before
 *   its data arrives; and it begins when the rank leaves the barrier, which can be long
 *   before its partner does. Congestion of the whole job is included.
 *   Then, after another barrier, every pair of the round sends the same size one way, all
 *   pairs together (the lower rank of the pair sends on even repetitions, the higher on odd
 *   ones): the sender times a 0-byte ping-pong, then the message and its 0-byte
 *   acknowledgement; the one-way sample is that second time minus half the pair's median
 *   0-byte round trip (at least 0). Collectives do both: exchanges (recursive doubling,
 *   rings) and one-way steps (trees, chains, linear fan-outs), and where a link is not
 *   full duplex in practice the two differ by up to 2x.
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

#include "plog_probe.h"

#pragma GCC visibility push(hidden) /* the shim's own: see phasor_rt.h */

typedef enum pprobe_mode { PPROBE_QUICK = PLOG_PROBE_QUICK, PPROBE_FULL = PLOG_PROBE_FULL } pprobe_mode_t;

typedef struct pprobe_opts {
    pprobe_mode_t mode;
    double budget_s;  /* quick: stop repeating when the next repetition would exceed it */
    int reps_min;     /* quick: at least this many repetitions; full: exactly this many */
    int reps_max;     /* quick: at most */
    int max_rounds;   /* quick: tournament rounds used (partners per rank), <= P-1 */
    int round0;       /* quick: -1, max_rounds rounds chosen at random; >= 0, the rounds
                       * round0, round0 + 1, ... (modulo the tournament's) */
    const uint64_t *sizes; /* quick: nsizes sizes (bytes, increasing, <= PLOG_PROBE_MAXSIZES) */
    int nsizes;            /* instead of the default ones when > 0 */
    uint64_t seed;    /* rank 0's value is used by all */
    int on_comm;      /* measure on comm itself, not on a duplicate: for a caller that knows
                       * nothing else can be in flight on it (the shim inside MPI_Init, where
                       * creating a communicator would change the application's) */
} pprobe_opts_t;

/* The defaults of each mode (budget 0.8 s, 3..200 reps, 16 rounds; full: 5 reps). */
void pprobe_defaults(pprobe_mode_t mode, pprobe_opts_t *o);
/* The shim's probes during the run (PHASOR_PROBE=...,every=N|pcontrol), number seq >= 1: quick,
 * sizes 4 and 64 KiB, one tournament round (seq - 1: every pair once in P-1 probes), 2..8
 * repetitions within budget_s, a seed of their own. */
void pprobe_defaults_later(double budget_s, uint32_t seq, pprobe_opts_t *o);
/* PHASOR_PROBE's budget=MS when not given: a later probe within 50 ms at 8 ranks. */
#define PHASOR_PROBE_BUDGET_MS 30

typedef struct pprobe_result {
    plog_probe_info_t info; /* elapsed_s: the slowest rank's; reps: the same on every rank */
    int nranks;
    size_t n_entries;       /* pair entries first (dst >= 0), then pooled ones (dst -1) */
    plog_probe_entry_t *entries;
    char (*hosts)[64];      /* processor name of each rank (root only, else NULL) */
} pprobe_result_t;

#define PPROBE_NO_GATHER (-1)

/* Collective over comm; ranks are comm's. root >= 0: on root, *res holds every rank's
 * entries and hosts (free with pprobe_result_free); elsewhere it is zeroed.
 * root = PPROBE_NO_GATHER: every rank keeps its own entries (src = itself).
 * Returns MPI_SUCCESS or the first failing MPI call's code (MPI's default error handler
 * aborts the job first). Uses PMPI only: nothing it does is recorded. */
int pprobe_run(MPI_Comm comm, int root, const pprobe_opts_t *o, pprobe_result_t *res);
void pprobe_result_free(pprobe_result_t *res);

#pragma GCC visibility pop

#endif
