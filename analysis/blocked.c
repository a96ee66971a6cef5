/* blocked.c: the shim's "blocked"/"unblocked" notes (profiler/phasor_watch.c) turned into the
 * calls each rank hung in, on the run's aligned clock. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocked.h"
#include "plog_calls.h"
#include "plog_format.h"
#include "vec.h"

static int starts_with(const char *s, const char *key)
{
    size_t n = strlen(key);
    return strncmp(s, key, n) == 0 && s[n] == '=';
}

/* One rank's notes, in file order: a note "unblocked T SINCE" ends the matching one. */
static int collect_rank(const plog_run_t *run, const plog_rank_t *rk, int32_t rank,
                        blk_call_t **v, size_t *n, size_t *cap, size_t *bad)
{
    uint64_t ref = plog_run_time_ref(run);
    size_t first = *n;
    for (const char *s = plog_rank_kv_next(rk, NULL); s; s = plog_rank_kv_next(rk, s)) {
        if (starts_with(s, "unblocked")) {
            unsigned th;
            unsigned long long since;
            if (sscanf(s + 10, "%u %llu", &th, &since) != 2) {
                (*bad)++;
                continue;
            }
            int64_t a = plog_clock_align(&rk->clock, since, ref);
            for (size_t i = first; i < *n; i++)
                if ((*v)[i].thread == th && (*v)[i].since_ns == a)
                    (*v)[i].at_end = 0;
            continue;
        }
        if (!starts_with(s, "blocked"))
            continue;
        unsigned th, call, comm;
        unsigned long long since, seen, req;
        int peer, tag;
        if (sscanf(s + 8, "%u %u %llu %llu %u %d %d %llu", &th, &call, &since, &seen, &comm,
                   &peer, &tag, &req) != 8 || call == 0 || call >= PLOG_CALL__MAX ||
            since > seen) {
            (*bad)++;
            continue;
        }
        int64_t a = plog_clock_align(&rk->clock, since, ref);
        /* the end of a log repeats the note of a call already noted while running */
        size_t j = first;
        while (j < *n && !((*v)[j].thread == th && (*v)[j].since_ns == a))
            j++;
        if (j == *n) {
            if (VEC_GROW(*v, *cap, *n + 1) != 0)
                return -1;
            (*n)++;
        }
        blk_call_t *b = &(*v)[j];
        const plog_lcomm_t *lc = comm == PLOG_COMM_NONE ? NULL : plog_rank_comm(rk, comm);
        int inter = lc && lc->n_remote > 0;
        *b = (blk_call_t){.rank = rank,
                          .thread = th,
                          .call = (uint16_t)call,
                          .since_ns = a,
                          .seen_ns = plog_clock_align(&rk->clock, seen, ref),
                          .comm = lc ? lc->gid : 0,
                          .peer = lc ? plog_lcomm_world(lc, inter, peer) : peer,
                          .tag = tag,
                          .request = req,
                          .at_end = 1};
    }
    return 0;
}

int blk_collect(const plog_run_t *run, blk_call_t **out, size_t *n, size_t *bad)
{
    *out = NULL;
    *n = 0;
    *bad = 0;
    size_t cap = 0;
    int32_t ws = plog_run_world_size(run);
    for (int32_t r = 0; r < ws; r++) {
        const plog_rank_t *rk = plog_run_rank(run, r);
        if (rk && collect_rank(run, rk, r, out, n, &cap, bad) != 0) {
            free(*out);
            *out = NULL;
            *n = 0;
            return -1;
        }
    }
    return 0;
}
