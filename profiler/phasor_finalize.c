/* phasor_finalize.c: the end of a rank's log: at MPI_Finalize (a last clock sync, the job's
 * totals for rank 0's summary line, every buffer written, the META and END frames), and
 * best effort at MPI_Abort; the log's tail, which the ends without MPI_Finalize
 * (phasor_endings.c) write too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phasor_core.h"

volatile sig_atomic_t phasor_log_closed;

static plog_sync_sample_t sync_fin_sample;
static int finishing, fin_synced;
static uint64_t job_events, job_dropped, job_failed;

void phasor_finish_begin(void)
{
    if (!phasor_active)
        return;
    finishing = 1;
    __atomic_store_n(&phasor_active, 0, __ATOMIC_RELEASE);
    phasor_probe_stop();
    uint64_t mine[3], sum[3] = {0, 0, 0};
    int threads;
    phasor_totals(&mine[0], &mine[1], &threads);
    mine[0] += 1; /* the Finalize event itself, recorded after the library's finalize */
    mine[2] = (uint64_t)phasor_writer_failed();
    /* a communicator of our own for as long as the shim's traffic takes: the application
     * may have left a receive posted on MPI_COMM_WORLD; every rank is here, none in a call */
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &phasor_shim_comm) == MPI_SUCCESS) {
        phasor_clocksync(PLOG_SYNC_FINALIZE, &sync_fin_sample);
        fin_synced = 1;
        PMPI_Reduce(mine, sum, 3, MPI_UINT64_T, MPI_SUM, 0, phasor_shim_comm);
        PMPI_Comm_free(&phasor_shim_comm);
    } else { /* no second clock sample (the reader then keeps the first), own totals */
        phasor_shim_comm = MPI_COMM_NULL;
        memcpy(sum, mine, sizeof(sum));
    }
    job_events = sum[0];
    job_dropped = sum[1];
    job_failed = sum[2];
}

/* Allocates nothing (static buffer, writer memory kept) so that the signal path can use it. */
static char tail_buf[64 << 10];

/* The counters and the ending come first: a full buffer drops the thread table's tail and
 * the notes, never them. */
void phasor_write_tail_locked(const char *ending)
{
    uint64_t events, dropped;
    int threads;
    phasor_totals(&events, &dropped, &threads);
    kvbuf_t kv = {tail_buf, 0, sizeof(tail_buf), 1};
    phasor_kv_addf(&kv, "threads", "%d", threads);
    phasor_kv_addf(&kv, "threads_started", "%llu",
                   (unsigned long long)phasor_threads_started());
    phasor_kv_addf(&kv, "events", "%llu", (unsigned long long)events);
    phasor_kv_addf(&kv, "dropped_events", "%llu", (unsigned long long)dropped);
    phasor_kv_addf(&kv, "dead_thread_calls", "%llu",
                   (unsigned long long)phasor_dead_thread_calls());
    phasor_kv_addf(&kv, "writer_stalls", "%llu", (unsigned long long)phasor_writer_stalls);
    phasor_kv_add(&kv, "ending", ending);
    phasor_watch_note_all(&kv, strcmp(ending, "finalize") != 0); /* where each thread was */
    for (int i = 0; i < threads; i++) {
        char key[64];
        snprintf(key, sizeof(key), "thread.%d.tid", i);
        phasor_kv_addf(&kv, key, "%ld", (long)phasor_slots[i].tid);
        uint32_t uses = __atomic_load_n(&phasor_slots[i].uses, __ATOMIC_RELAXED);
        if (uses > 1) { /* absent: one thread */
            snprintf(key, sizeof(key), "thread.%d.started", i);
            phasor_kv_addf(&kv, key, "%lu", (unsigned long)uses);
        }
    }
    phasor_flush_defs_locked();
    phasor_write_frame_locked(PLOG_FRAME_META, 0, 0, kv.p, kv.len);
    phasor_writer_end_locked(kv.p, kv.len);
    phasor_writer_mark_dropped_locked();
    phasor_log_closed = 1;
}

/* Rank 0's one line: how many logs, events and losses, and where. */
static void summary(void)
{
    char abs[PATH_MAX];
    const char *shown = realpath(phasor_cfg.dir, abs) ? abs : phasor_cfg.dir;
    char failed[96] = "";
    if (job_failed)
        snprintf(failed, sizeof(failed), "; %llu rank%s could not write all of theirs",
                 (unsigned long long)job_failed, job_failed == 1 ? "" : "s");
    fprintf(stderr, "phasor: %d rank logs (%llu events, %llu dropped%s) in %s\n",
            phasor_world_size, (unsigned long long)job_events, (unsigned long long)job_dropped,
            failed, shown);
}

/* Rank 0 knows the job's totals: the job's marker (phasor_writer.c, first_to_fail) is renamed
 * to carry them, ".phasor-write-failed.DROPPED.RANKS" (a rename fits on a full disk; best
 * effort). The reader checks the ranks' own markers against it (doc/log-format.md). */
static void mark_job_dropped(void)
{
    char from[PATH_MAX + 32], to[PATH_MAX + 96];
    int n = snprintf(from, sizeof(from), "%s/.phasor-write-failed", phasor_cfg.dir);
    int m = snprintf(to, sizeof(to), "%s.%llu.%llu", from, (unsigned long long)job_dropped,
                     (unsigned long long)job_failed);
    if (n > 0 && (size_t)n < sizeof(from) && m > 0 && (size_t)m < sizeof(to))
        (void)rename(from, to);
}

void phasor_finish_end(uint64_t t0, uint64_t t1, int rc)
{
    if (!finishing)
        return;
    finishing = 0;
    phasor_record_raw(PLOG_CALL_MPI_Finalize, t0, t1, rc, PLOG_NONE);
    phasor_watch_stop();
    phasor_slots_close(1);
    phasor_writer_stop_thread();
    pthread_mutex_lock(&phasor_write_lock);
    if (fin_synced)
        phasor_write_sync_locked(&sync_fin_sample);
    phasor_write_tail_locked("finalize");
    phasor_writer_abandon();
    pthread_mutex_unlock(&phasor_write_lock);
    if (phasor_world_rank == 0 && job_failed)
        mark_job_dropped();
    /* Not by default: harnesses that compare a program's output (MPICH's runtests) would
     * fail every test. `phasor run` asks for it; lost events are a problem worth a line. */
    if (phasor_world_rank == 0 && !phasor_cfg.quiet &&
        (phasor_cfg.summary == 1 || (phasor_cfg.summary < 0 && (job_dropped || job_failed))))
        summary();
}

void phasor_on_abort(uint64_t t0, int errorcode, MPI_Comm comm)
{
    if (!phasor_active)
        return;
    __atomic_store_n(&phasor_active, 0, __ATOMIC_RELEASE);
    phasor_thread_t *th = phasor_tls;
    if (th && !th->dead) {
        plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Abort, t0, phasor_now(), 0, 0);
        if (ev) {
            ev->comm = phasor_comm_id(comm);
            ev->tag = errorcode;
            phasor_event_end(th, ev, 0);
        }
    }
    /* MPI_Abort does not return: write everything now. Other threads may still be inside
     * MPI calls; their finished records are written, the lock stays held afterwards so
     * nothing touches the closed file. */
    phasor_slots_close(0);
    phasor_watch_stop();
    phasor_writer_stop_thread();
    pthread_mutex_lock(&phasor_write_lock);
    if (!phasor_log_closed) {
        phasor_flush_all_slots_locked();
        phasor_write_tail_locked("MPI_Abort");
    }
}
