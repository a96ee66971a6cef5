/* phasor_core.h: what the pieces of the runtime's core share, and nothing else includes:
 *   phasor_rt.c        per-thread record buffers (slots), the records the runtime makes
 *   phasor_config.c    PHASOR_* configuration, warnings
 *   phasor_writer.c    writing frames; the writer thread and its queue
 *   phasor_meta.c      the key=value strings of the header and of the log's tail
 *   phasor_init.c      the start of a rank's log (MPI_Init)
 *   phasor_finalize.c  its end (MPI_Finalize, MPI_Abort)
 *   phasor_endings.c   the ends without MPI_Finalize: fatal signals and exit()
 *
 * Each thread that calls MPI owns a slot with two record buffers (until it exits: the slot
 * then goes to the next thread that calls MPI, phasor_rt.c). When one fills, the thread
 * hands it to the writer thread (which converts stamps to ns, encodes, compresses and
 * writes it) and carries on in the other; it only waits if the writer still holds that one.
 * The hot path therefore never locks, allocates or enters the kernel. */
#ifndef PHASOR_CORE_H
#define PHASOR_CORE_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "phasor_internal.h"

#pragma GCC visibility push(hidden) /* the shim's own: see phasor_rt.h */

#define MAX_SLOTS 1024
_Static_assert(MAX_SLOTS <= 65536, "a slot number is an EVENTS frame's uint16 thread");

/* ---- configuration (phasor_config.c) ---- */

typedef struct phasor_cfg {
    char dir[PATH_MAX];
    size_t buffer;
    int max_threads;
    int level;
    int inline_writer;
    unsigned file_mode;
    int quiet;
    int summary; /* PHASOR_SUMMARY: 1 always, 0 never, -1 only when events were lost */
    int callsite_depth;
    int probe; /* the probe at MPI_Init: 0 off, else enum pprobe_mode */
    long probe_every;     /* PHASOR_PROBE's every=N: a probe after every N-th blocking
                           * collective on MPI_COMM_WORLD; 0 none */
    int probe_pcontrol;   /* PHASOR_PROBE's pcontrol: a probe at MPI_Pcontrol(2) */
    long probe_budget_ms; /* PHASOR_PROBE's budget=MS: each later probe's time */
    uint64_t flush_ns; /* PHASOR_FLUSH: records older than this are written; 0 = off */
    long signal_delay_ms; /* tests only: how long a fatal signal's handler holds its flush */
} phasor_cfg_t;
extern phasor_cfg_t phasor_cfg;

/* Bad values are reported (rank 0 only) and replaced by defaults: a typo in an environment
 * variable must not stop the application. */
void phasor_read_config(int rank);
/* "phasor: ..." on stderr, unless PHASOR_QUIET. */
void phasor_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- network probes (phasor_probe_sched.c) ---- */

/* Inside MPI_Init, collective on phasor_shim_comm: the ranks agree on PHASOR_PROBE, run the
 * probe at MPI_Init if asked, and arm the later ones (before phasor_active is set). */
void phasor_probe_at_init(void);
/* At the start of MPI_Finalize: no more probes; their communicator freed. */
void phasor_probe_stop(void);

/* ---- slots (phasor_rt.c) ---- */

typedef struct slot {
    phasor_thread_t th; /* first: phasor_thread_t pointers are slot pointers */
    uint8_t *bufs[2];
    int cur;
    int busy[2];        /* 1 while the writer holds that buffer (guarded by the queue lock) */
    uint64_t ev_mark;   /* th.nevents when the current buffer was started */
    pid_t tid;          /* the OS thread that owns it now, or owned it last */
    uint32_t uses;      /* threads that have owned it (release store at each claim) */
    int ready;          /* set up (release): the watch thread may look at it */
    /* The prefix of each buffer the watch thread already wrote (guarded by the write lock):
     * whoever writes the buffer next writes only the rest, and clears it. */
    size_t fl_len[2];
    uint32_t fl_n[2];
    /* the watch thread's own view of the thread (phasor_watch.c) */
    uint64_t w_nev, w_t0, w_noted_t0, w_noted_ns;
    int w_in;
    uint32_t w_uses; /* `uses` when it last looked: another value is another thread */
} slot_t;

extern slot_t phasor_slots[MAX_SLOTS];
/* Slots set up so far: at most the threads alive at once, up to the thread budget. */
int phasor_slots_used(void);
/* Threads that got a slot over the run (a slot is reused once its thread exits). */
uint64_t phasor_threads_started(void);
/* Every thread's records; dropped: lost to failed writes or to threads without a slot. */
void phasor_totals(uint64_t *events, uint64_t *dropped, int *threads);
/* Calls of threads without a slot (atomic). */
uint64_t phasor_dead_thread_calls(void);
/* The log is ending: no slot changes hands any more (waits for a release under way); with
 * handoff every slot's current buffer goes to the writer (MPI_Finalize; the other ends write
 * the buffers themselves). */
void phasor_slots_close(int handoff);
/* Give a slot's current buffer to the writer and continue in the other one. */
void phasor_handoff(slot_t *s);
/* Every thread's buffered records, for the ends that come without MPI_Finalize. Caller
 * holds the write lock. */
void phasor_flush_all_slots_locked(void);
/* One event of the calling thread with the common fields and a tag (MPI_Init, Finalize). */
void phasor_record_raw(unsigned call, uint64_t t0, uint64_t t1, int rc, int32_t tag);

/* ---- writing (phasor_writer.c); _locked: the caller holds phasor_write_lock ---- */

extern pthread_mutex_t phasor_write_lock;
extern uint64_t phasor_writer_stalls; /* handoffs that waited for the writer */
extern int phasor_writer_pinned;      /* the writer thread has CPUs no rank is bound to */
extern volatile sig_atomic_t phasor_in_crash; /* a fatal signal is being handled */

/* Decide inline writes or a writer thread (PHASOR_WRITER=auto; collective). */
void phasor_writer_choose(void);
/* Open this rank's file. 0, or the errno that explains the failure. */
int phasor_writer_open(const char *path, plog_file_header_t *h, const char *kv, size_t len);
/* Close without an end frame (the log then reads as ended early) and free the scratch. */
void phasor_writer_abandon(void);
/* Whether frames can still be written. */
int phasor_writer_ok(void);
/* Whether this rank lost events to a failed write (takes the lock). */
int phasor_writer_failed(void);
/* Events dropped because they could not be written (read under the lock, or where a
 * count a moment old will do). */
uint64_t phasor_writer_dropped(void);
void phasor_write_frame_locked(unsigned kind, unsigned thread, uint32_t count, const void *raw,
                               size_t len);
/* A frame under the lock (takes it). */
void phasor_write_frame(unsigned kind, uint32_t count, const void *raw, size_t len);
/* Definitions (communicators, call sites) go out before any frame that may use them. */
void phasor_flush_defs_locked(void);
void phasor_write_events_locked(unsigned thread, uint8_t *buf, size_t len, uint32_t n);
/* Buffer `which` of slot s holding len bytes / n records: what the watch thread has not
 * written yet of it (and forget that prefix). */
void phasor_write_slot_locked(slot_t *s, int which, size_t len, uint32_t n);
void phasor_write_sync_locked(const plog_sync_sample_t *s);
/* A rank whose writes failed: rename its marker file to carry the final count of events
 * it dropped (allocates nothing; the signal path uses it). */
void phasor_writer_mark_dropped_locked(void);
/* The END frame with these strings; the file is closed after it. */
void phasor_writer_end_locked(const char *kv, size_t len);
/* Hand buffer s->cur (len bytes, n events) to the writer thread and make the other one
 * current (waiting until the writer gave it back), or write it here when there is no
 * writer thread. */
void phasor_writer_take(slot_t *s, size_t len, uint32_t n);
/* Wait until the writer thread gave back both of slot s's buffers (written). */
void phasor_writer_wait_slot(slot_t *s);
/* A thread of the shim's own (writer, watch): asynchronous signals blocked, named. 0 when it
 * started (pthread_create's result otherwise). */
int phasor_thread_start(pthread_t *t, void *(*fn)(void *), const char *name);
/* Start the writer thread (unless the writes are inline), with the signals blocked. */
void phasor_writer_start_thread(void);
/* Stop it after it wrote everything queued. */
void phasor_writer_stop_thread(void);
/* Nothing queued for the writer thread (atomic loads: the signal path). */
int phasor_writer_idle(void);

/* ---- the watch thread (phasor_watch.c) ---- */

/* Every PHASOR_FLUSH/2: write the records that have waited longer than PHASOR_FLUSH, and note
 * each thread blocked in one MPI call for longer than that, so that a job killed while it
 * hangs leaves what it recorded, and where it hung. No-op when PHASOR_FLUSH=off. */
void phasor_watch_start(void);
void phasor_watch_stop(void);
/* "unblocked" notes for noted calls that returned since the watch thread last looked and, if
 * PENDING, "blocked" notes for the threads inside an MPI call now (the endings; caller holds
 * the write lock; allocates nothing). */
struct kvbuf;
void phasor_watch_note_all(struct kvbuf *kv, int pending);

/* ---- key=value strings (phasor_meta.c) ---- */

typedef struct kvbuf {
    char *p;
    size_t len, cap;
    int fixed; /* p is caller storage: never reallocated (signal-handler paths) */
} kvbuf_t;

void phasor_kv_add(kvbuf_t *kv, const char *key, const char *val);
void phasor_kv_addf(kvbuf_t *kv, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The header's strings: versions, host, thread levels, clock, buffers, command line, the
 * environment that changes which algorithms the MPI library picks. */
void phasor_header_kv(kvbuf_t *kv, int required, int provided);

/* ---- the end (phasor_finalize.c, phasor_endings.c) ---- */

extern volatile sig_atomic_t phasor_log_closed;
/* Counters, thread table and how the log ended: the META frame, then the END frame with
 * the same strings. Allocates nothing (the signal path uses it); caller holds the lock. */
void phasor_write_tail_locked(const char *ending);
/* Catch the fatal signals (and pass them on) and exit() without MPI_Finalize. */
void phasor_install_endings(void);

#pragma GCC visibility pop

#endif
