/* plog_rd_drops.c: what each rank recorded but its log does not hold, and why.
 *
 * A rank whose write fails (a full disk, a quota, EIO) cannot say so in its own log: it stops
 * writing, and on a full disk its tail would fail too. So the shim leaves markers beside the
 * logs, directory entries with no data (they may still fit where data does not), whose names
 * carry what it knows: ".phasor-dropped.RANK.ERRNO" (writing failed), ".RANK.ERRNO.N" (at
 * least N events dropped so far), ".RANK.ERRNO.N.T" (final: N dropped by failed writes, T
 * calls of threads over the budget); and rank 0, at MPI_Finalize, ".phasor-write-failed.D.F"
 * (the job's D dropped events, F ranks that could not write). A rank that could write its
 * tail says "dropped_events" and "dead_thread_calls" there. doc/log-format.md, "Events the
 * log does not hold". */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plog_rd.h"

void plog_rank_drops(const plog_rank_t *rk, plog_drops_t *out)
{
    *out = ((const rank_priv_t *)rk)->drops; /* pub is rank_priv_t's first member */
}

static int kv_u64(const plog_rank_t *rk, const char *key, uint64_t *out)
{
    const char *v = plog_rank_kv(rk, key);
    if (v == NULL)
        return 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || *end != '\0')
        return 0;
    *out = x;
    return 1;
}

/* Up to max dot-separated decimal numbers after prefix, the whole name: how many (0: none,
 * or not such a name). */
static int parse_numbers(const char *name, const char *prefix, uint64_t *v, int max)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return 0;
    const char *s = name + pl;
    int n = 0;
    while (n < max) {
        if (*s < '0' || *s > '9')
            return 0;
        char *end;
        v[n++] = strtoull(s, &end, 10);
        if (*end == '\0')
            return n;
        if (*end != '.')
            return 0;
        s = end + 1;
    }
    return 0;
}

/* One marker of a rank: keep what says the most (final, then the highest lower bound). */
static void take_marker(rank_priv_t *rp, const uint64_t *v, int n)
{
    plog_drops_t *d = &rp->drops;
    if (v[1] == 0 || v[1] > 4095)
        return;
    int count = n == 4 ? PLOG_DROPS_EXACT : n == 3 ? PLOG_DROPS_AT_LEAST : PLOG_DROPS_UNKNOWN;
    if (d->write_errno != 0 &&
        (count > d->write_count || (count == d->write_count && v[2] <= d->write_dropped)))
        return;
    d->write_errno = (int)v[1];
    d->write_count = count;
    d->write_dropped = n >= 3 ? v[2] : 0;
    if (n == 4) {
        d->thread_dropped = v[3];
        d->threads_known = 1;
    }
}

/* Reads the markers; *job_dropped, *job_failed from rank 0's (returns 1 when there is one). */
static int read_markers(plog_run_t *run, uint64_t *job_dropped, uint64_t *job_failed)
{
    const char *dir = run->path;
    char *parent = NULL;
    int job = 0;
    if (!run->is_dir) { /* one rank file: the markers are beside it */
        const char *slash = strrchr(run->path, '/');
        parent = slash ? strndup(run->path, (size_t)(slash - run->path) + 1) : strdup(".");
        if (parent == NULL)
            return 0;
        dir = parent;
    }
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            uint64_t v[4];
            int n = parse_numbers(de->d_name, ".phasor-dropped.", v, 4);
            if (n >= 2 && v[0] < (uint64_t)run->world_size && run->ranks[v[0]] != NULL)
                take_marker(run->ranks[v[0]], v, n);
            if (parse_numbers(de->d_name, ".phasor-write-failed.", v, 2) == 2) {
                *job_dropped = v[0];
                *job_failed = v[1];
                job = 1;
            }
        }
        closedir(d);
    }
    free(parent);
    return job;
}

static void warn_rank(plog_run_t *run, const plog_rank_t *rk, const plog_drops_t *d)
{
    if (d->write_errno && d->write_count == PLOG_DROPS_EXACT)
        run_warn(run, "%s: %" PRIu64 " events dropped: writing the log failed (%s)", rk->path,
                 d->write_dropped, strerror(d->write_errno));
    else if (d->write_errno && d->write_count == PLOG_DROPS_AT_LEAST)
        run_warn(run, "%s: at least %" PRIu64 " events dropped: writing the log failed (%s); "
                 "the rank ended before it gave its final count", rk->path, d->write_dropped,
                 strerror(d->write_errno));
    else if (d->write_errno)
        run_warn(run, "%s: events dropped: writing the log failed (%s); how many is unknown "
                 "(the rank ended before it counted them)", rk->path,
                 strerror(d->write_errno));
    else if (d->write_dropped && d->threads_known)
        run_warn(run, "%s: %" PRIu64 " events dropped: their buffers could not be written",
                 rk->path, d->write_dropped);
    else if (d->write_dropped) /* a tail without dead_thread_calls */
        run_warn(run, "%s: %" PRIu64 " events dropped (the log does not say why)", rk->path,
                 d->write_dropped);
    if (d->thread_dropped)
        run_warn(run, "%s: %" PRIu64 " calls of threads over the thread budget "
                 "(PHASOR_MAX_THREADS) not recorded", rk->path, d->thread_dropped);
}

void run_read_drops(plog_run_t *run)
{
    for (int32_t r = 0; r < run->world_size; r++) {
        rank_priv_t *rp = run->ranks[r];
        if (rp == NULL)
            continue;
        memset(&rp->drops, 0, sizeof(rp->drops));
        uint64_t all = 0, threads = 0;
        if (rp->pub.complete && kv_u64(&rp->pub, "dropped_events", &all)) {
            rp->drops.threads_known = kv_u64(&rp->pub, "dead_thread_calls", &threads);
            rp->drops.thread_dropped = threads;
            rp->drops.write_dropped = all > threads ? all - threads : 0;
        }
    }
    uint64_t job_dropped = 0, job_failed = 0;
    int job = read_markers(run, &job_dropped, &job_failed);
    uint64_t sum = 0, nfailed = 0;
    for (int32_t r = 0; r < run->world_size; r++) {
        if (run->ranks[r] == NULL)
            continue;
        const plog_drops_t *d = &run->ranks[r]->drops;
        warn_rank(run, &run->ranks[r]->pub, d);
        sum += d->write_dropped + d->thread_dropped;
        nfailed += d->write_errno != 0;
    }
    /* Rank 0 counts before the last buffers are written: the ranks' own counts may exceed
     * its, never fall short but when some rank's marker is missing. */
    if (job && (job_dropped > sum || job_failed > nfailed))
        run_warn(run, "rank 0 counted %" PRIu64 " events dropped and %" PRIu64 " rank%s failing "
                 "to write at MPI_Finalize; the ranks' own counts say %" PRIu64 " and %" PRIu64
                 " (some ranks left no count)", job_dropped, job_failed,
                 job_failed == 1 ? "" : "s", sum, nfailed);
}
