/* phasor_init.c: the start of a rank's log, at MPI_Init: configuration, the log directory
 * every rank agrees on, the file (either every rank records or none does), clock sync, the
 * optional network probe (phasor_probe_sched.c), then recording. */
#define _GNU_SOURCE
#include <assert.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "phasor_core.h"
#include "phasor_measure.h"
#include "phasor_probe.h"

static int make_dirs(const char *path)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
            return errno;
        *p = '/';
    }
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
        return errno;
    return 0;
}

/* Room a rank's file name takes after the directory ("/rank-NNNNNN.plog", the markers). */
#define DIR_TAIL 64
static size_t dir_too_long; /* PHASOR_DIR's length, when a rank's path could not hold it */

/* All ranks agree on the directory: PHASOR_DIR, or a fresh name chosen by rank 0. */
static void choose_dir(void)
{
    const char *d = getenv("PHASOR_DIR");
    if (d && *d) {
        size_t n = strlen(d);
        if (n + DIR_TAIL >= sizeof(phasor_cfg.dir)) {
            /* never cut: a shortened path names some other directory */
            dir_too_long = n;
            phasor_cfg.dir[0] = '\0';
            return;
        }
        memcpy(phasor_cfg.dir, d, n + 1);
        return;
    }
    if (phasor_world_rank == 0) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char stamp[32];
        strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
        snprintf(phasor_cfg.dir, sizeof(phasor_cfg.dir), "phasor-%s-%ld", stamp, (long)getpid());
    }
    PMPI_Bcast(phasor_cfg.dir, sizeof(phasor_cfg.dir), MPI_CHAR, 0, phasor_shim_comm);
}

/* Configuration, directory, writer, PHASOR_STEPS, call sites: what the log is made with. */
static void set_up(void)
{
    phasor_read_config(phasor_world_rank);
    choose_dir();
    phasor_writer_choose();
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    PMPI_Get_library_version(lib, &len);
    const char *steps = getenv("PHASOR_STEPS");
    int m = phasor_measure_init(steps, lib);
    if (m < 0 && phasor_world_rank == 0)
        phasor_warn("PHASOR_STEPS=%s is not 'off' or 'measure'; using off", steps);
    else if (m == 0 && phasor_world_rank == 0)
        phasor_warn("PHASOR_STEPS=measure: no algorithm rules for this MPI library; "
                    "collectives run as usual");
    if (!phasor_callsite_init(phasor_cfg.callsite_depth) && phasor_world_rank == 0)
        phasor_warn("call sites are off: cannot load %s (%s)", PHASOR_LIBUNWIND_SONAME,
                    dlerror());
}

/* Open this rank's file, then agree (collective): 1 when every rank could. */
static int open_log(int required, int provided)
{
    int err = dir_too_long ? ENAMETOOLONG : make_dirs(phasor_cfg.dir);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/" PLOG_FILE_PATTERN, phasor_cfg.dir, phasor_world_rank);
    kvbuf_t kv = {0};
    phasor_header_kv(&kv, required, provided);
    plog_file_header_t h = {0};
    h.rank = phasor_world_rank;
    h.world_size = phasor_world_size;
    h.pid = getpid();
    h.clock = phasor_clock_use_tsc ? PLOG_CLOCK_TSC : PLOG_CLOCK_MONOTONIC;
    h.t_init_ns = phasor_mono_ns();
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    h.realtime_init_ns = (int64_t)rt.tv_sec * 1000000000ll + rt.tv_nsec;
    if (err == 0)
        err = phasor_writer_open(path, &h, kv.p, kv.len);
    free(kv.p);
    int mine[2] = {err ? err : INT_MAX, phasor_world_rank}, first[2];
    PMPI_Allreduce(mine, first, 1, MPI_2INT, MPI_MINLOC, phasor_shim_comm);
    if (first[0] == INT_MAX)
        return 1;
    if (err == 0) {
        phasor_writer_abandon();
        unlink(path); /* empty but for the header: nothing of the app's is lost */
    }
    if (phasor_world_rank == 0 && dir_too_long)
        phasor_warn("PHASOR_DIR is %zu bytes long, more than a log's path can hold here (%d): "
                    "running without phasor", dir_too_long, PATH_MAX - DIR_TAIL - 1);
    else if (phasor_world_rank == 0)
        phasor_warn("cannot write logs to '%s' (rank %d: %s): running without phasor",
                    phasor_cfg.dir, first[1], strerror(first[0]));
    return 0;
}

/* Everything the ranks do together before recording starts. */
static void start_log(unsigned call, uint64_t t0, uint64_t t1, int rc, int required,
                      int provided)
{
    set_up();
    if (!open_log(required, provided))
        return;

    phasor_types_init();
    if (!phasor_comm_table_init())
        phasor_warn("rank %d: communicator table unavailable: events will carry unknown ids",
                    phasor_world_rank);
    plog_sync_sample_t sync;
    phasor_clocksync(PLOG_SYNC_INIT, &sync);
    pthread_mutex_lock(&phasor_write_lock);
    phasor_flush_defs_locked();
    phasor_write_sync_locked(&sync);
    pthread_mutex_unlock(&phasor_write_lock);
    phasor_probe_at_init();

    phasor_writer_start_thread();
    phasor_watch_start();
    phasor_install_endings();
    /* a run of polls is written after half the watch thread's bound, as a buffer's records */
    if (phasor_cfg.flush_ns != 0) {
        phasor_clock_map_t m;
        phasor_clock_map_now(&m);
        phasor_poll_max_ticks = (uint64_t)((double)phasor_cfg.flush_ns / 2 / m.ns_per_tick);
    }
    phasor_thread_t *th = phasor_thread_attach();
    __atomic_store_n(&phasor_active, 1, __ATOMIC_RELEASE);
    if (th)
        phasor_record_raw(call, t0, t1, rc, PLOG_NONE);
}

void phasor_start(unsigned call, uint64_t t0, uint64_t t1, int rc, int required, int provided)
{
    if (rc != MPI_SUCCESS)
        return;
    assert(!phasor_active && phasor_shim_comm == MPI_COMM_NULL); /* MPI starts once */
    PMPI_Comm_rank(MPI_COMM_WORLD, &phasor_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &phasor_world_size);
    /* No communicator of our own here: one created before the application's, even freed
     * again, changes the library's state enough that Open MPI 4.1's treematch component
     * hangs in MPI_Dist_graph_create in some runs (doc/design.md, "The shim's own
     * communicators"). MPI_COMM_WORLD is safe inside MPI_Init: the application has nothing
     * posted yet, and every message sent here is received here. */
    phasor_shim_comm = MPI_COMM_WORLD;
    start_log(call, t0, t1, rc, required, provided);
    phasor_shim_comm = MPI_COMM_NULL;
}
