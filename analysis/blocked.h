/* blocked.h: the MPI calls a run's threads were seen blocked in (the shim's "blocked" notes,
 * PHASOR_FLUSH; doc/log-format.md), for the report's "hung" view. */
#ifndef BLOCKED_H
#define BLOCKED_H

#include <stddef.h>
#include <stdint.h>

#include "plog_reader.h"

typedef struct blk_call {
    int32_t rank;          /* world rank */
    uint32_t thread;       /* thread slot */
    uint16_t call;         /* call id (plog_call_name) */
    int64_t since_ns;      /* start of the call, aligned, relative to plog_run_time_ref() */
    int64_t seen_ns;       /* last time it was seen still inside (same axis) */
    int32_t comm;          /* global communicator id, 0 none or unknown */
    int32_t peer;          /* world rank (point-to-point) or root; PLOG_NONE etc. pass through */
    int32_t tag;           /* posted tag; for the Wait family the number of requests */
    uint64_t request;      /* first request handle of a Wait-family call, 0 none */
    int at_end;            /* still inside when the log ended (no later "unblocked") */
} blk_call_t;

/* Every blocked note of every loaded rank, by rank then time. *out is malloc'd (NULL when
 * there are none). Returns 0, or -1 when memory ran out. Notes that cannot be parsed are
 * skipped and counted in *bad. */
int blk_collect(const plog_run_t *run, blk_call_t **out, size_t *n, size_t *bad);

#endif
