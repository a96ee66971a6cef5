/* report_stats.h: the statistics behind `phasor report` (an mpiP-style profile of a log):
 * one streaming pass over the events in memory bounded by the calls, ranks and rank pairs
 * seen, then a summary computed once (orders, percentages, totals, imbalance, heaviest pairs,
 * the probe's medians) that the command's text and JSON writers only format. Never prints.
 * The rules (what counts as MPI time, which events fill the matrix) are in
 * doc/report-format.md; tests/unit/test_report.c checks the numbers on hand-worked logs. */
#ifndef REPORT_STATS_H
#define REPORT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "coll_recon.h"
#include "hmap.h"
#include "plog_calls.h"
#include "plog_probeset.h"
#include "plog_reader.h"

#define REP_UNKNOWN_CALL PLOG_CALL__MAX   /* every id without a name is counted here */
#define REP_NFUNC (PLOG_CALL__MAX + 1)
#define REP_NBUCKETS 65  /* bucket 0: 0 bytes; bucket k >= 1: [2^(k-1), 2^k) bytes */
#define REP_TOP_PAIRS 10 /* the heaviest pairs of a matrix kept in its summary */

/* Counts, times (ns) and bytes of a group of events (a function, a collective x
 * communicator size, a rank pair, a call site). */
typedef struct rep_stat {
    uint64_t key;   /* the map's key; unused in the per-function table */
    uint64_t count;
    uint64_t time_sum, time_min, time_max;
    uint64_t bytes_sum, bytes_min, bytes_max;
} rep_stat_t;

/* Statistics by key: util/hmap maps key + 1 (key 0 is hmap's empty slot) to the entry's
 * index in v. Indices never move, so a lookup cache stays valid while v grows. After
 * rep_compute, v is in the order the report lists it (see rep_t). */
typedef struct rep_map {
    hmap_t idx;
    rep_stat_t *v; /* n entries */
    size_t n, cap;
} rep_map_t;

typedef struct rep_rank {
    int loaded;
    int have_init, have_finalize;  /* MPI_Init(_thread) / MPI_Finalize events seen */
    int64_t app_start, app_end;    /* aligned ns: Init's return, Finalize's start */
    uint64_t app_ns, mpi_ns;
    double mpi_pct;                /* mpi_ns of app_ns, in % (0 when app_ns is 0) */
    uint64_t events;
} rep_rank_t;

typedef struct rep_imb {
    double min, mean, max, imbalance; /* imbalance = max / mean - 1 (0 when mean is 0) */
    int32_t min_rank, max_rank;       /* lowest rank holding the min / max; -1 if no ranks */
} rep_imb_t;
enum rep_imb_what { REP_IMB_MPI, REP_IMB_APP, REP_IMB__COUNT };

/* A function that was called, with its share of the run's MPI and application time. */
typedef struct rep_func {
    unsigned call; /* row of rep_t.func and .hist */
    double pct_mpi, pct_app;
} rep_func_t;

/* The totals of a communication matrix and its heaviest pairs. */
typedef struct rep_pairs {
    uint64_t msgs, bytes;
    rep_stat_t top[REP_TOP_PAIRS]; /* by bytes descending, then by key */
    size_t ntop;                   /* min(pairs, REP_TOP_PAIRS) */
} rep_pairs_t;

typedef struct rep {
    /* the pass */
    int32_t world_size;
    rep_rank_t *ranks;               /* world_size entries */
    rep_stat_t func[REP_NFUNC];      /* by call id */
    uint64_t (*hist)[REP_NBUCKETS];  /* REP_NFUNC rows: message-size histograms */
    rep_map_t coll;                  /* key (call << 32) | communicator size (0: unknown);
                                        listed by time descending, then key */
    rep_map_t matrix;                /* key (src << 32) | dst, world ranks; count = messages;
                                        listed by key */
    rep_map_t sites;                 /* key (callsite << 16) | call, callsite != 0; listed
                                        by time descending, then key */
    rep_map_t coll_matrix;           /* as matrix, for the messages inside collectives as the
                                        library's algorithm sends them (coll_recon.h) */
    uint64_t coll_calls;             /* collective calls seen */
    uint64_t coll_skipped[RECON__COUNT]; /* of those, without a schedule, by reason */
    uint64_t events, mpi_total, app_total;
    /* the summary */
    double mpi_pct;                  /* mpi_total of app_total, in % */
    uint64_t coll_rebuilt;           /* collective calls with a schedule */
    rep_imb_t imb[REP_IMB__COUNT];
    rep_func_t funcs[REP_NFUNC];     /* the functions called, by time descending, then id */
    unsigned nfunc;
    rep_pairs_t p2p, cm;             /* of matrix and coll_matrix */
} rep_t;

/* Read every event of every loaded rank, then summarise. Returns PLOG_OK, or the reader's
 * error or PLOG_E_NOMEM (in err); rep_free is needed either way. */
plog_err_t rep_compute(plog_run_t *run, rep_t *rep, plog_error_t *err);
void rep_free(rep_t *rep);

const rep_stat_t *rep_map_get(const rep_map_t *m, uint64_t key);

unsigned rep_bucket(uint64_t bytes);

/* Whether rank r's MPI time exceeds its time from MPI_Init to MPI_Finalize (by more than
 * 1 % and 1 ms): calls made between them cannot add up to more, so its times do not hang
 * together (a second MPI_Init, a damaged duration within the reader's ranges). */
int rep_inconsistent(const rep_t *rep, int32_t r);

/* The network probe's results per size over the sources (pooled entries): the median of the
 * sources' medians, and the slowest and fastest source by median (a slow node shows here). */
typedef struct rep_probe_row {
    uint64_t size;
    int nsrc;
    double med, slow, fast; /* ns */
    int32_t slow_src, fast_src;
} rep_probe_row_t;

typedef struct rep_probe {
    rep_probe_row_t row[PLOG_PROBE_ONEWAY + 1][PLOG_PROBE_MAXSIZES]; /* by way */
    int nrows[PLOG_PROBE_ONEWAY + 1];                                /* sizes with a source */
} rep_probe_t;

/* PLOG_OK, or PLOG_E_NOMEM (in err, naming path). */
plog_err_t rep_probe_summarize(const plog_probeset_t *ps, const char *path, rep_probe_t *out,
                               plog_error_t *err);

#endif
