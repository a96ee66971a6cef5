/* plog_probeset.h: the network-probe results of a run (PROBE frames, one per rank that took
 * part in a probe; see format/plog_probe.h), gathered and checked: the probe at MPI_Init
 * (plog_probeset_load), and every probe of the run in order (plog_probeseries_load). */
#ifndef PLOG_PROBESET_H
#define PLOG_PROBESET_H

#include "plog_probe.h"
#include "plog_reader.h"

typedef struct plog_probeset {
    plog_probe_info_t info;   /* the same on every rank (checked); elapsed_s: the largest */
    int32_t world;
    int32_t ranks;            /* ranks whose log has the probe */
    size_t n;                 /* entries of every rank: pairs (dst >= 0) first, then pooled */
    plog_probe_entry_t *e;
} plog_probeset_t;

/* PLOG_E_MISSING (message says so) when no loaded rank ran the probe; PLOG_E_CORRUPT with
 * the file named when a PROBE frame is damaged, holds another rank's entries, or disagrees
 * with the other ranks on mode and sizes. */
/* The probe at MPI_Init only (PHASOR_PROBE=quick|full); later probes are left unread. */
plog_err_t plog_probeset_load(const plog_run_t *run, plog_probeset_t *out, plog_error_t *err);
void plog_probeset_free(plog_probeset_t *ps);

/* ---- every probe of the run (libplogread 1.2) ----
 * PHASOR_PROBE=...,every=N,pcontrol repeats a short probe during the run (doc/log-format.md).
 * A probe is kept with the ranks whose log holds it (set.ranks; a rank that ended early lacks
 * the last ones): the same rule as plog_probeset_load's, never an error. */
typedef struct plog_probe_run {     /* one probe of the run with every rank's entries */
    plog_probeset_t set;            /* info and entries of every rank that took part */
    uint32_t seq;                   /* 0: at MPI_Init; 1, 2, ...: the later ones in order */
    uint32_t trigger;               /* enum plog_probe_trigger */
    int64_t start_ns, end_ns;       /* aligned, relative to plog_run_time_ref(): earliest
                                       start and latest end over the ranks */
} plog_probe_run_t;

/* Every probe of the run in time order (= seq order); *n = 0 and *out = NULL when there are
 * none. Logs before format version 10: their one probe is seq 0, trigger init, at the time
 * of MPI_Init (each rank's t_init_ns, aligned). PLOG_E_CORRUPT naming the file when a PROBE
 * frame is damaged, holds another rank's entries, comes out of order (seq not rising, or
 * starting before the rank's previous probe ended), or disagrees with the other ranks' frames
 * of the same seq on trigger, mode, sizes or repetitions. Reads every PROBE frame once; the
 * caller frees *out with plog_probeseries_free. */
plog_err_t plog_probeseries_load(const plog_run_t *run, plog_probe_run_t **out, size_t *n,
                                 plog_error_t *err);
void plog_probeseries_free(plog_probe_run_t *p, size_t n);

#endif
