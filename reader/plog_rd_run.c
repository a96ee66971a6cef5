/* plog_rd_run.c: the run: opening a log directory (or one rank file), its ranks' clocks and
 * time origin, the run's warnings, the call table the records use, and the accessors. */
#include "plog_rd.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ==== warnings and accessors ============================================================= */

void run_warn(plog_run_t *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    warn_vadd(&run->warn, RUN_MAX_WARNINGS, fmt, ap);
    va_end(ap);
}

size_t plog_run_nwarnings(const plog_run_t *run)
{
    return run->warn.n + (run->warn.dropped ? 1 : 0);
}

const char *plog_run_warning(const plog_run_t *run, size_t i)
{
    if (i < run->warn.n)
        return run->warn.v[i];
    if (i == run->warn.n && run->warn.dropped) {
        static _Thread_local char buf[96];
        snprintf(buf, sizeof(buf), "%zu more warnings not listed", run->warn.dropped);
        return buf;
    }
    return NULL;
}

const char *plog_run_path(const plog_run_t *run) { return run->path; }
int32_t plog_run_world_size(const plog_run_t *run) { return run->world_size; }
uint64_t plog_run_time_ref(const plog_run_t *run) { return run->time_ref; }

const plog_rank_t *plog_run_rank(const plog_run_t *run, int32_t rank)
{
    if (rank < 0 || rank >= run->world_size || run->ranks[rank] == NULL)
        return NULL;
    return &run->ranks[rank]->pub;
}

/* What the records need to know of every call id, in tables (once per run, not per event). */
static void run_init_calls(plog_run_t *run)
{
    for (unsigned id = 0; id < 65536; id++) {
        const char *name = plog_call_name(id);
        int cls = plog_call_class(id);
        if (name == NULL || cls < 0 || cls >= PLOG_CLASS__COUNT)
            continue;
        run->call_cls[id] = (uint8_t)(cls + 1);
        run->call_complete[id] = cls == PLOG_CLASS_COMPLETE;
        run->call_name[id] = name;
        uint8_t f = CALLF_KNOWN;
        if (strncmp(name, "MPI_Test", 8) == 0 && strcmp(name, "MPI_Test_cancelled") != 0)
            f |= CALLF_TEST;
        size_t len = strlen(name);
        if (len >= 3 && strcmp(name + len - 3, "all") == 0)
            f |= CALLF_ALL;
        if ((len >= 3 && (strcmp(name + len - 3, "all") == 0 ||
                          strcmp(name + len - 3, "any") == 0)) ||
            (len >= 4 && strcmp(name + len - 4, "some") == 0))
            f |= CALLF_ARRAY;
        if (strcmp(name, "MPI_Request_get_status") == 0)
            f |= CALLF_GETSTATUS;
        if (strcmp(name, "MPI_Cancel") == 0)
            f |= CALLF_CANCEL;
        if (strcmp(name, "MPI_Grequest_complete") == 0)
            f |= CALLF_NAMES;
        if ((f & CALLF_TEST) || strcmp(name, "MPI_Iprobe") == 0 ||
            strcmp(name, "MPI_Improbe") == 0 || (f & CALLF_GETSTATUS))
            f |= CALLF_POLL;
        run->call_flags[id] = f;
        run->call_complete_nopoll[id] = run->call_complete[id] && !(f & CALLF_POLL);
    }
}

void plog_run_close(plog_run_t *run)
{
    if (run == NULL)
        return;
    if (run->ranks != NULL)
        for (int32_t r = 0; r < run->world_size; r++)
            rank_free(run->ranks[r]);
    free(run->ranks);
    free(run->gcomms);
    intern_free(&run->intern);
    warn_free(&run->warn);
    free(run->path);
    free(run);
}

/* ==== a directory of rank files ========================================================== */

static int run_parse_rank_name(const char *name, long *rank)
{
    if (strncmp(name, "rank-", 5) != 0)
        return 0;
    const char *p = name + 5;
    if (*p < '0' || *p > '9')
        return 0;
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (errno != 0 || strcmp(end, ".plog") != 0 || v < 0 || v > INT32_MAX)
        return 0;
    *rank = v;
    return 1;
}

static char *run_join_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p == NULL)
        return NULL;
    memcpy(p, dir, a);
    size_t n = a;
    if (a > 0 && dir[a - 1] != '/')
        p[n++] = '/';
    memcpy(p + n, name, b + 1);
    return p;
}

typedef struct run_dirent {
    long rank;
    char *name;
} run_dirent_t;

static int run_cmp_dirent(const void *a, const void *b)
{
    long x = ((const run_dirent_t *)a)->rank, y = ((const run_dirent_t *)b)->rank;
    return (x > y) - (x < y);
}

/* The directory's rank-N.plog files, sorted by rank (at least one, none twice). */
static plog_err_t run_list_dir(plog_run_t *run, run_dirent_t **found, size_t *n_found,
                               plog_error_t *err)
{
    DIR *d = opendir(run->path);
    if (d == NULL)
        return plog_fail(err, PLOG_E_IO, run->path, PLOG_NO_OFFSET, "%s", strerror(errno));
    size_t cap = 0;
    plog_err_t e = PLOG_OK;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        long rank;
        if (!run_parse_rank_name(de->d_name, &rank))
            continue;
        char *name = strdup(de->d_name);
        if (name == NULL || VEC_GROW(*found, cap, *n_found + 1) != 0) {
            free(name);
            e = plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
            break;
        }
        (*found)[(*n_found)++] = (run_dirent_t){rank, name};
    }
    closedir(d);
    if (e != PLOG_OK)
        return e;
    if (*n_found == 0)
        return plog_fail(err, PLOG_E_MISSING, run->path, PLOG_NO_OFFSET,
                         "no rank-NNNNNN.plog files");
    qsort(*found, *n_found, sizeof(**found), run_cmp_dirent);
    for (size_t i = 1; i < *n_found; i++)
        if ((*found)[i].rank == (*found)[i - 1].rank) {
            char *p = run_join_path(run->path, (*found)[i].name);
            e = plog_fail(err, PLOG_E_CORRUPT, p ? p : run->path, PLOG_NO_OFFSET,
                          "a second file for rank %ld", (*found)[i].rank);
            free(p);
            return e;
        }
    return PLOG_OK;
}

/* Make room for the world's ranks, as the first file loaded says it is. */
static plog_err_t run_size_world(plog_run_t *run, const rank_priv_t *first, plog_error_t *err)
{
    run->world_size = first->pub.hdr.world_size;
    run->ranks = calloc((size_t)run->world_size, sizeof(*run->ranks));
    if (run->ranks == NULL)
        return plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
    return PLOG_OK;
}

/* Load every rank-N.plog of a directory; the lowest rank's header sets the world size, and
 * the directory must then hold exactly ranks 0 .. world_size-1. */
static plog_err_t run_open_dir(plog_run_t *run, frame_zbufs_t *z, plog_error_t *err)
{
    run_dirent_t *found = NULL;
    size_t n_found = 0;
    char *p = NULL;
    plog_err_t e = run_list_dir(run, &found, &n_found, err);
    run->world_max = (int64_t)n_found; /* every rank of the world has its file here */
    int32_t *franks = e == PLOG_OK ? malloc((n_found + 1) * sizeof(*franks)) : NULL;
    if (e == PLOG_OK && franks == NULL)
        e = plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
    for (size_t i = 0; franks && i < n_found; i++)
        franks[i] = found[i].rank > INT32_MAX ? INT32_MAX : (int32_t)found[i].rank;
    run->found_ranks = franks;
    run->n_found = n_found;
    for (size_t i = 0; i < n_found && e == PLOG_OK; i++) {
        free(p);
        if ((p = run_join_path(run->path, found[i].name)) == NULL) {
            e = plog_fail(err, PLOG_E_NOMEM, run->path, PLOG_NO_OFFSET, NULL);
            break;
        }
        rank_priv_t *rp = NULL;
        if ((e = rank_load(run, p, &rp, z, err)) != PLOG_OK)
            break;
        if (i == 0)
            e = run_size_world(run, rp, err);
        else if (rp->pub.hdr.world_size != run->world_size)
            e = plog_fail(err, PLOG_E_CORRUPT, p, 0, "world size %d, but %s says %d",
                          (int)rp->pub.hdr.world_size, run->ranks[found[0].rank]->path,
                          (int)run->world_size);
        if (e == PLOG_OK && found[i].rank >= run->world_size)
            e = plog_fail(err, PLOG_E_CORRUPT, p, PLOG_NO_OFFSET,
                          "rank %ld beyond the world size %d", found[i].rank,
                          (int)run->world_size);
        else if (e == PLOG_OK && rp->pub.rank != found[i].rank)
            e = plog_fail(err, PLOG_E_CORRUPT, p, 0, "header says rank %d", (int)rp->pub.rank);
        if (e != PLOG_OK) {
            rank_free(rp);
            break;
        }
        run->ranks[found[i].rank] = rp;
        run->n_loaded++;
    }
    for (int32_t r = 0; r < run->world_size && e == PLOG_OK; r++) {
        if (run->ranks[r] != NULL)
            continue;
        char name[64];
        snprintf(name, sizeof(name), PLOG_FILE_PATTERN, (int)r);
        free(p);
        p = run_join_path(run->path, name);
        e = plog_fail(err, PLOG_E_MISSING, p ? p : run->path, PLOG_NO_OFFSET,
                      "rank %d of a world of size %d", (int)r, (int)run->world_size);
    }
    free(p);
    free(franks);
    run->found_ranks = NULL;
    run->n_found = 0;
    for (size_t i = 0; i < n_found; i++)
        free(found[i].name);
    free(found);
    return e;
}

/* One rank file as the run. */
static plog_err_t run_open_file(plog_run_t *run, frame_zbufs_t *z, plog_error_t *err)
{
    rank_priv_t *rp = NULL;
    run->world_max = PLOG_MAX_WORLD_ALONE;
    plog_err_t e = rank_load(run, run->path, &rp, z, err);
    if (e == PLOG_OK && (e = run_size_world(run, rp, err)) != PLOG_OK)
        rank_free(rp);
    if (e != PLOG_OK)
        return e;
    run->ranks[rp->pub.rank] = rp;
    run->n_loaded = 1;
    return PLOG_OK;
}

/* ==== clocks ============================================================================= */

static void run_fit_clocks(plog_run_t *run)
{
    for (int32_t r = 0; r < run->world_size; r++) {
        rank_priv_t *rp = run->ranks[r];
        if (rp == NULL)
            continue;
        unsigned f = plog_clock_fit(rp->sync, rp->pub.n_sync, &rp->pub.clock);
        rp->clockfit_flags = f;
        if ((f & PLOG_CLOCKFIT_NONE) && r != 0)
            run_warn(run, "%s: no clock-sync samples; this rank's times are not aligned "
                     "(offset 0)", rp->path);
        if (f & PLOG_CLOCKFIT_BADSLOPE)
            run_warn(run, "%s: clock offsets at Init (%lld ns) and Finalize (%lld ns) imply a "
                     "drift over %g; using the Init offset", rp->path,
                     (long long)rp->pub.clock.o0, (long long)rp->pub.clock.o1,
                     PLOG_CLOCK_MAX_DRIFT);
        if (f & PLOG_CLOCKFIT_BADORDER)
            run_warn(run, "%s: the Finalize clock sample is not after the Init sample; using "
                     "the Init offset", rp->path);
    }
}

/* The time origin: rank 0's MPI_Init, or the first loaded rank's on rank 0's clock. */
static void run_set_time_ref(plog_run_t *run)
{
    if (run->ranks[0] != NULL) {
        run->time_ref = run->ranks[0]->pub.hdr.t_init_ns;
        return;
    }
    const plog_rank_t *rk = NULL;
    for (int32_t r = 0; r < run->world_size && rk == NULL; r++)
        if (run->ranks[r] != NULL)
            rk = &run->ranks[r]->pub;
    assert(rk != NULL); /* a run has at least one rank loaded */
    run->time_ref = (uint64_t)plog_clock_align(&rk->clock, rk->hdr.t_init_ns, 0);
    run_warn(run, "%s: rank 0's log is not read; times are relative to this rank's MPI_Init "
             "on rank 0's clock", rk->path);
}

/* The ranks return from MPI_Init within seconds of each other: an hour apart on the aligned
 * clock means the clock-sync samples are wrong, and every time across ranks with them (the
 * offsets themselves are within range, or the file was refused). */
static void run_check_init_times(plog_run_t *run)
{
    for (int32_t r = 0; r < run->world_size; r++) {
        const rank_priv_t *rp = run->ranks[r];
        if (rp == NULL)
            continue;
        int64_t d = plog_clock_align(&rp->pub.clock, rp->pub.hdr.t_init_ns, run->time_ref);
        if (d > 3600 * (int64_t)1000000000 || d < -3600 * (int64_t)1000000000)
            run_warn(run, "%s: MPI_Init returned %.0f s from rank 0's on the aligned clock; "
                     "its clock-sync samples look wrong, and so do times across ranks",
                     rp->path, (double)d / 1e9);
    }
}

/* ==== opening ============================================================================ */

plog_err_t plog_run_open(const char *path, plog_run_t **out, plog_error_t *err)
{
    *out = NULL;
    if (err != NULL) {
        err->code = PLOG_OK;
        err->offset = 0;
        err->msg[0] = '\0';
    }
    plog_run_t *run = calloc(1, sizeof(*run));
    if (run == NULL || (run->path = strdup(path)) == NULL) {
        free(run);
        return plog_fail(err, PLOG_E_NOMEM, path, PLOG_NO_OFFSET, NULL);
    }
    run_init_calls(run);
    frame_zbufs_t z = {0};
    plog_err_t e;
    struct stat st;
    if (stat(path, &st) != 0) {
        e = plog_fail(err, errno == ENOENT ? PLOG_E_MISSING : PLOG_E_IO, path, PLOG_NO_OFFSET,
                      "%s", strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        run->is_dir = 1;
        e = run_open_dir(run, &z, err);
    } else {
        e = run_open_file(run, &z, err);
    }
    frame_zbufs_free(&z);
    for (int32_t r = 0; r < run->world_size && e == PLOG_OK; r++)
        if (run->ranks[r] != NULL)
            e = comm_finish_rank(run, run->ranks[r], err);
    if (e == PLOG_OK)
        e = comm_match(run, err);
    if (e != PLOG_OK) {
        plog_run_close(run);
        return e;
    }
    run_fit_clocks(run);
    run_set_time_ref(run);
    run_check_init_times(run);
    run_read_drops(run);
    *out = run;
    return PLOG_OK;
}
