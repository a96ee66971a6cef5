/* phasor_report.h: the statistics behind `phasor report` (mpiP-style profile of a log),
 * computed in one streaming pass in memory bounded by calls, ranks and rank pairs seen.
 * Split from the command so that tests/unit/test_report.c can check the numbers directly.
 * The rules (what counts as MPI time, which events fill the matrix) are in
 * doc/report-format.md. */
#ifndef PHASOR_REPORT_H
#define PHASOR_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "plog_calls.h"
#include "coll_recon.h"
#include "plog_reader.h"

#define REP_UNKNOWN_CALL PLOG_CALL__MAX   /* every id without a name is counted here */
#define REP_NFUNC (PLOG_CALL__MAX + 1)
#define REP_NBUCKETS 65 /* bucket 0: 0 bytes; bucket k >= 1: [2^(k-1), 2^k) bytes */

/* Counts, times (ns) and bytes of a group of events (a function, a collective x
 * communicator size, a rank pair, a call site). */
typedef struct rep_stat {
    uint64_t key;   /* map key; unused in the per-function table */
    uint64_t count;
    uint64_t time_sum, time_min, time_max;
    uint64_t bytes_sum, bytes_min, bytes_max;
} rep_stat_t;

/* Open-addressing hash of rep_stat_t by key (key + 1 stored, so 0 marks an empty slot). */
typedef struct rep_map {
    rep_stat_t *slot;
    size_t cap, n;
} rep_map_t;

typedef struct rep_rank {
    int loaded;
    int have_init, have_finalize;  /* MPI_Init(_thread) / MPI_Finalize events seen */
    int64_t app_start, app_end;    /* aligned ns: Init's return, Finalize's start */
    uint64_t app_ns, mpi_ns;
    uint64_t events;
} rep_rank_t;

typedef struct rep {
    int32_t world_size;
    rep_rank_t *ranks;               /* world_size entries */
    rep_stat_t func[REP_NFUNC];      /* by call id */
    uint64_t (*hist)[REP_NBUCKETS];  /* REP_NFUNC rows: message-size histograms */
    rep_map_t coll;                  /* key (call << 32) | communicator size (0: unknown) */
    rep_map_t matrix;                /* key (src << 32) | dst, world ranks; count = messages */
    rep_map_t sites;                 /* key (callsite << 16) | call, callsite != 0 */
    rep_map_t coll_matrix;           /* as matrix, for the messages inside collectives as the
                                        library's algorithm sends them (coll_recon.h) */
    uint64_t coll_calls;             /* collective calls seen */
    uint64_t coll_skipped[RECON__COUNT]; /* of those, without a schedule, by reason */
    uint64_t events, mpi_total, app_total;
} rep_t;

/* Read every event of every loaded rank. Returns PLOG_OK or the reader's error (in err);
 * rep_free is needed either way. */
plog_err_t rep_compute(plog_run_t *run, rep_t *rep, plog_error_t *err);
void rep_free(rep_t *rep);

const rep_stat_t *rep_map_get(const rep_map_t *m, uint64_t key);
/* The map's entries, compacted into a malloc'd array (NULL if empty or out of memory). */
rep_stat_t *rep_map_list(const rep_map_t *m);

unsigned rep_bucket(uint64_t bytes);

typedef struct rep_imb {
    double min, mean, max, imbalance; /* imbalance = max / mean - 1 (0 when mean is 0) */
    int32_t min_rank, max_rank;       /* lowest rank holding the min / max; -1 if no ranks */
} rep_imb_t;
enum rep_imb_what { REP_IMB_MPI, REP_IMB_APP };
void rep_imbalance(const rep_t *rep, enum rep_imb_what what, rep_imb_t *out);

/* Whether rank r's MPI time exceeds its time from MPI_Init to MPI_Finalize (by more than
 * 1 % and 1 ms): calls made between them cannot add up to more, so its times do not hang
 * together (a second MPI_Init, a damaged duration within the reader's ranges). */
int rep_inconsistent(const rep_t *rep, int32_t r);

#endif
