/* plog_probe.h: the PROBE payload (format versions 3, 5 and 10): what the network-health probe
 * measured, as quantiles of message times. Pure: no I/O, no MPI (shared by the shim, which runs
 * the probe at MPI_Init with PHASOR_PROBE=quick|full and, from version 10, again during the run
 * with PHASOR_PROBE=...,every=N|pcontrol, and by the offline reader).
 *
 * A rank's log holds the summaries of the messages it sent (src = its world rank), one PROBE
 * frame per probe it took part in (before version 10: at most one). Payload:
 *   varint mode (1 quick, 2 full), varint nsizes (1..PLOG_PROBE_MAXSIZES),
 *   nsizes x varint size (bytes, strictly increasing), varint reps, varint rounds,
 *   f64 elapsed_s, u64 seed (little-endian),
 *   [log version >= 10: varint seq (0 the probe at MPI_Init, 1, 2, ... the later ones in
 *   order), varint trigger (enum plog_probe_trigger), u64 t_start_ns, u64 t_end_ns (this
 *   rank's CLOCK_MONOTONIC around the probe, start <= end)],
 *   `count` entries: varint src, varint dst+1 (0: every destination pooled), varint size
 *   index, [log version >= 5: varint way, 0 exchange or 1 one way], varint n (samples,
 *   >= 1), 8 x f64 ns: min q10 q25 q50 q75 q90 max mean (non-decreasing from min to max,
 *   mean within [min, max], all finite and >= 0). Before version 5 the way follows from
 *   the mode: quick probes measured exchanges only, full probes one-way times only.
 * What a sample is depends on the mode: doc/log-format.md, profiler/phasor_probe.h. */
#ifndef PLOG_PROBE_H
#define PLOG_PROBE_H

#include <stddef.h>
#include <stdint.h>

#define PLOG_PROBE_MAXSIZES 16

enum plog_probe_mode { PLOG_PROBE_QUICK = 1, PLOG_PROBE_FULL = 2 };

/* Quantiles of n samples (ns). Quantile q: linear interpolation between the order
 * statistics at h = (n-1)q (Hyndman-Fan type 7, R's default). */
typedef struct plog_probe_q {
    uint32_t n;
    double min, q10, q25, q50, q75, q90, max, mean;
} plog_probe_q_t;

enum plog_probe_way { PLOG_PROBE_EXCHANGE = 0, PLOG_PROBE_ONEWAY = 1 };

/* What started a probe (on disk: the payload's trigger, version >= 10; before, always init).
 * Values are an on-disk contract: only add. */
enum plog_probe_trigger {
    PLOG_PROBE_AT_INIT = 0,  /* inside MPI_Init (PHASOR_PROBE=quick|full) */
    PLOG_PROBE_EVERY = 1,    /* at the end of every N-th blocking collective on MPI_COMM_WORLD */
    PLOG_PROBE_PCONTROL = 2  /* at MPI_Pcontrol(2) */
};
#define PLOG_PROBE_TRIGGER_MAX PLOG_PROBE_PCONTROL

/* src -> dst (dst = -1: every destination of src pooled) at sizes[size_idx], sent one way
 * or exchanged (both directions at once) */
typedef struct plog_probe_entry {
    int32_t src, dst;
    uint32_t size_idx;
    uint32_t way; /* enum plog_probe_way */
    plog_probe_q_t q;
} plog_probe_entry_t;

typedef struct plog_probe_info {
    unsigned mode;
    unsigned nsizes;
    uint64_t sizes[PLOG_PROBE_MAXSIZES];
    uint32_t reps, rounds;
    double elapsed_s;
    uint64_t seed;
    uint32_t version; /* the log's format version (not in the payload): how entries read */
} plog_probe_info_t;

/* The names every output uses: "quick" or "full"; "exchange" or "one-way"; "init", "every"
 * or "pcontrol" ("unknown" for other values). */
const char *plog_probe_mode_name(unsigned mode);
const char *plog_probe_way_name(uint32_t way);
const char *plog_probe_trigger_name(uint32_t trigger);

/* The partner of rank r in round k (0 <= k < P-1 for even P, < P for odd P) of the circle
 * tournament the quick probe pairs ranks by; -1 when r rests. Symmetric:
 * partner(partner(r)) == r. Offline readers use it to know which pairs ran at once. */
int plog_probe_partner(int r, int k, int p);

/* ---- phasor's own (the probe, the shim's encoder, the reader's decoder): not part of
 * libplogread's API, compiled with PLOG_INTERNAL (doc/libplogread.md) ---- */
#ifdef PLOG_INTERNAL
#include "plog_codec.h"

/* Which probe of the rank's run a payload is, and when it ran (version >= 10). */
typedef struct plog_probe_when {
    uint32_t seq;          /* 0: at MPI_Init; 1, 2, ...: the later ones, in order */
    uint32_t trigger;      /* enum plog_probe_trigger */
    uint64_t t_start_ns;   /* this rank's CLOCK_MONOTONIC before and after the probe */
    uint64_t t_end_ns;
} plog_probe_when_t;

/* Bytes the payload needs at most. */
#define PLOG_PROBE_BOUND(n) (2 * 10 + PLOG_PROBE_MAXSIZES * 10 + 2 * 10 + 16 + 2 * 10 + 16 + \
                             (size_t)(n) * (5 * 10 + 8 * 8))

/* Always the current layout (PLOG_VERSION). when NULL: the probe at MPI_Init, times 0. */
void plog_probe_encode(plog_wcur_t *w, const plog_probe_info_t *info,
                       const plog_probe_when_t *when, const plog_probe_entry_t *e, size_t n);
/* The header part of a payload from a log of format `version`; then plog_probe_get_entry
 * `count` times. world: the run's size (src and dst must be ranks of it). *when (if not NULL)
 * says which probe it is; before version 10: seq 0, trigger init, times 0.
 * PLOG_E_TRUNCATED / PLOG_E_CORRUPT / PLOG_E_TOOBIG. */
plog_err_t plog_probe_get_info(plog_rcur_t *r, uint32_t version, plog_probe_info_t *out,
                               plog_probe_when_t *when);
plog_err_t plog_probe_get_entry(plog_rcur_t *r, const plog_probe_info_t *info, int32_t world,
                                plog_probe_entry_t *out);

/* Quantiles of v[0..n) (sorts v). n = 0 gives all zeros. */
void plog_probe_quantiles(double *v, size_t n, plog_probe_q_t *out);

/* A quick probe's exchange sample (ns) from its two sides: each side's posting s and time
 * to its own Waitall d, on each one's own clock, b's clock theta ahead of a's. The time
 * from the later posting to the later end: the earlier side's wait for the later one to
 * start is not the network's, and a side's end can come before the other has its data.
 * Never below 0 (the later poster ends after it posts). */
double plog_probe_exchange_time(double sa, double da, double sb, double db, double theta);

/* b's clock ahead of a's (ns), from a ping-pong a sent at t1 and got back at t2 (a's
 * clock) that b answered at tb (b's clock), taken as the round trip's middle: off by at
 * most half the round trip, least for the fastest one. */
double plog_probe_clock_offset(double t1, double t2, double tb);

#endif /* PLOG_INTERNAL */

#endif
