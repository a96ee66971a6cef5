/* plog_rd_drops.c: what each rank recorded but its log does not hold, and why.
 *
 * A rank whose write fails (a full disk, a quota, EIO) cannot say so in its own log: it stops
 * writing, and on a full disk its tail would fail too. So the shim leaves a marker beside the
 * logs, a directory entry with no data (it may still fit where data does not):
 * ".phasor-dropped.RANK.ERRNO" at the first failed write, renamed at the end of the log to
 * ".phasor-dropped.RANK.ERRNO.COUNT" with the number of events dropped. A rank that could
 * write its tail says "dropped_events" and "dead_thread_calls" there (threads over the
 * budget). doc/log-format.md, "Events the log does not hold". */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plog_rd.h"

static uint64_t kv_u64(const plog_rank_t *rk, const char *key)
{
    const char *v = plog_rank_kv(rk, key);
    if (v == NULL)
        return 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    return end != v && *end == '\0' ? (uint64_t)x : 0;
}

/* ".phasor-dropped.R.E" or ".phasor-dropped.R.E.N": 1 if name is one, fields filled */
static int parse_marker(const char *name, long *rank, int *e, uint64_t *count, int *known)
{
    const char *pre = ".phasor-dropped.";
    if (strncmp(name, pre, strlen(pre)) != 0)
        return 0;
    const char *s = name + strlen(pre);
    char *end;
    long r = strtol(s, &end, 10);
    if (end == s || *end != '.' || r < 0)
        return 0;
    s = end + 1;
    long er = strtol(s, &end, 10);
    if (end == s || er <= 0 || er > 4095 || (*end != '\0' && *end != '.'))
        return 0;
    *known = 0;
    *count = 0;
    if (*end == '.') {
        s = end + 1;
        unsigned long long c = strtoull(s, &end, 10);
        if (end == s || *end != '\0')
            return 0;
        *count = c;
        *known = 1;
    }
    *rank = r;
    *e = (int)er;
    return 1;
}

static void read_markers(plog_run_t *run)
{
    const char *dir = run->path;
    char *parent = NULL;
    if (!run->is_dir) { /* one rank file: the markers are beside it */
        const char *slash = strrchr(run->path, '/');
        parent = slash ? strndup(run->path, (size_t)(slash - run->path) + 1) : strdup(".");
        if (parent == NULL)
            return;
        dir = parent;
    }
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            long r;
            int e, known;
            uint64_t count;
            if (!parse_marker(de->d_name, &r, &e, &count, &known) || r >= run->world_size ||
                run->ranks[r] == NULL)
                continue;
            plog_rank_t *rk = &run->ranks[r]->pub;
            rk->write_errno = e;
            if (known) {
                rk->dropped = count;
                rk->dropped_known = 1;
            } else if (!rk->dropped_known) {
                rk->dropped = 0;
            }
        }
        closedir(d);
    }
    free(parent);
}

void run_read_drops(plog_run_t *run)
{
    for (int32_t r = 0; r < run->world_size; r++) {
        if (run->ranks[r] == NULL)
            continue;
        plog_rank_t *rk = &run->ranks[r]->pub;
        rk->dropped_threads = kv_u64(rk, "dead_thread_calls");
        rk->dropped = kv_u64(rk, "dropped_events");
        rk->dropped_known = rk->complete;
    }
    read_markers(run);
    for (int32_t r = 0; r < run->world_size; r++) {
        if (run->ranks[r] == NULL)
            continue;
        const plog_rank_t *rk = &run->ranks[r]->pub;
        if (rk->write_errno && rk->dropped_known)
            run_warn(run, "%s: %" PRIu64 " events dropped: writing the log failed (%s)",
                     rk->path, rk->dropped, strerror(rk->write_errno));
        else if (rk->write_errno)
            run_warn(run, "%s: writing the log failed (%s); the events recorded after that "
                     "were dropped, how many is unknown (the rank ended before it said)",
                     rk->path, strerror(rk->write_errno));
        else if (rk->dropped > rk->dropped_threads && rk->dropped_known)
            run_warn(run, "%s: %" PRIu64 " events dropped: their buffers could not be written",
                     rk->path, rk->dropped - rk->dropped_threads);
        if (rk->dropped_threads)
            run_warn(run, "%s: %" PRIu64 " calls of threads over the thread budget "
                     "(PHASOR_MAX_THREADS) not recorded", rk->path, rk->dropped_threads);
    }
}
