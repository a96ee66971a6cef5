/* plog_probeset.h: the network-probe results of a run (PROBE frames, one per rank that took
 * part; see format/plog_probe.h), gathered and checked. */
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
plog_err_t plog_probeset_load(const plog_run_t *run, plog_probeset_t *out, plog_error_t *err);
void plog_probeset_free(plog_probeset_t *ps);

#endif
