/* phasor_writer.c: writing a rank's frames (the caller holds phasor_write_lock: any thread
 * may write, one at a time), and the writer thread that takes full buffers off the threads
 * that record (phasor_core.h). */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "phasor_core.h"
#include "plog_write.h"
#include "vec.h"

/* Writer state: everything below is guarded by phasor_write_lock. */
pthread_mutex_t phasor_write_lock = PTHREAD_MUTEX_INITIALIZER;
static plog_writer_t writer;
static int writer_ok;
static uint8_t *enc_buf;
static size_t enc_cap;
static uint8_t *comm_pending; /* COMMS records not written yet */
static size_t comm_pending_len, comm_pending_cap;
static uint32_t comm_pending_n;
static uint64_t dropped_events;
static uint64_t frames_written;
static int warned_write;
static int write_failed; /* this rank lost events to a failed write */
volatile sig_atomic_t phasor_in_crash;

/* Writer thread queue: guarded by q_lock. A slot has at most its two buffers queued. */
typedef struct job {
    slot_t *s;
    int which;
    size_t len;
    uint32_t n;
} job_t;
#define QUEUE_LEN (2 * MAX_SLOTS)
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;    /* work arrived / stop */
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER; /* a buffer came back */
static job_t queue[QUEUE_LEN];
static size_t q_head, q_tail;
static int q_stop;
static pthread_t writer_thread;
static int writer_thread_running;
uint64_t phasor_writer_stalls;
static cpu_set_t writer_cpus; /* CPUs no rank of this node is bound to */
int phasor_writer_pinned;

/* ---- opening and closing ---- */

int phasor_writer_open(const char *path, plog_file_header_t *h, const char *kv, size_t len)
{
    enc_cap = plog_events_encode_bound(phasor_cfg.buffer);
    enc_buf = malloc(enc_cap);
    if (enc_buf == NULL)
        return ENOMEM;
    if (plog_writer_open(&writer, path, phasor_cfg.file_mode, phasor_cfg.level, h, kv, len) !=
        PLOG_OK) {
        free(enc_buf);
        enc_buf = NULL;
        return writer.sys_errno ? writer.sys_errno : EIO;
    }
    writer_ok = 1;
    return 0;
}

void phasor_writer_abandon(void)
{
    writer_ok = 0;
    plog_writer_abandon(&writer);
    free(enc_buf);
    enc_buf = NULL;
}

int phasor_writer_ok(void) { return writer_ok; }

int phasor_writer_failed(void)
{
    pthread_mutex_lock(&phasor_write_lock);
    int failed = write_failed;
    pthread_mutex_unlock(&phasor_write_lock);
    return failed;
}

uint64_t phasor_writer_dropped(void) { return dropped_events; }

/* ---- writing ---- */

/* One warning per job, not per rank: the first rank whose write fails creates a marker in
 * the log directory (O_EXCL) and warns; the others find it and stay quiet. Best effort: when
 * the marker cannot be created (a full directory, a node-local directory per host) each such
 * rank warns. Rank 0's summary at MPI_Finalize counts the ranks that lost events. */
static int first_to_fail(void)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/.phasor-write-failed", phasor_cfg.dir);
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return 1;
    }
    return errno != EEXIST;
}

/* The rank's own marker, created at its first failed write, when the disk may have no room
 * left for data but still for a directory entry: ".phasor-dropped.RANK.ERRNO". Renamed (a
 * rename needs no data block, and is async-signal-safe, for the endings) as events are
 * dropped to ".phasor-dropped.RANK.ERRNO.N" (at least N so far), and when the rank ends its
 * log to ".phasor-dropped.RANK.ERRNO.N.T" (N events dropped by failed writes, T calls of
 * threads over the budget: final). The reader reports them (doc/log-format.md). */
static char dropped_marker[PATH_MAX + 64];

static void create_dropped_marker(int e)
{
    int n = snprintf(dropped_marker, sizeof(dropped_marker), "%s/.phasor-dropped.%d.%d",
                     phasor_cfg.dir, phasor_world_rank, e);
    if (n < 0 || (size_t)n >= sizeof(dropped_marker)) {
        dropped_marker[0] = '\0';
        return;
    }
    int fd = open(dropped_marker, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    else
        dropped_marker[0] = '\0';
}

/* Rename the marker to carry the count: final (with the thread count) at the end of the log. */
static void rename_dropped_marker(int final)
{
    if (dropped_marker[0] == '\0')
        return;
    char to[sizeof(dropped_marker)];
    const char *dot = strrchr(dropped_marker, '/');
    /* the base name up to its errno: ".phasor-dropped.R.E" is the first three dots */
    const char *p = dot ? dot + 1 : dropped_marker;
    int dots = 0;
    while (*p && !(*p == '.' && ++dots == 4))
        p++;
    size_t base = (size_t)(p - dropped_marker);
    int n = final ? snprintf(to, sizeof(to), "%.*s.%llu.%llu", (int)base, dropped_marker,
                             (unsigned long long)dropped_events,
                             (unsigned long long)phasor_dead_thread_calls())
                  : snprintf(to, sizeof(to), "%.*s.%llu", (int)base, dropped_marker,
                             (unsigned long long)dropped_events);
    if (n < 0 || (size_t)n >= sizeof(to) || rename(dropped_marker, to) != 0)
        return;
    memcpy(dropped_marker, to, (size_t)n + 1);
}

void phasor_writer_mark_dropped_locked(void)
{
    if (write_failed)
        rename_dropped_marker(1);
}

static void note_write_failure(void)
{
    if (writer_ok && !write_failed)
        create_dropped_marker(writer.sys_errno ? writer.sys_errno : EIO);
    if (writer_ok && !warned_write && first_to_fail())
        phasor_warn("rank %d: writing the log in %s failed (%s): the run goes on; further "
                    "events of the ranks that cannot write are counted as dropped",
                    phasor_world_rank, phasor_cfg.dir,
                    writer.sys_errno ? strerror(writer.sys_errno) : plog_strerror(writer.err));
    if (writer_ok)
        write_failed = 1;
    warned_write = 1;
    writer_ok = 0;
}

void phasor_write_frame_locked(unsigned kind, unsigned thread, uint32_t count, const void *raw,
                               size_t len)
                               {
                               if (!writer_ok)
                               return;
    if (plog_writer_frame(&writer, kind, thread, count, raw, len) != PLOG_OK)
        note_write_failure();
    else
        frames_written++;
}

static void emit_callsites_locked(uint32_t n, const void *buf, size_t len)
{
    phasor_write_frame_locked(PLOG_FRAME_CALLSITES, 0, n, buf, len);
}

void phasor_flush_defs_locked(void)
{
    phasor_callsite_flush(emit_callsites_locked, phasor_in_crash);
    if (comm_pending_n == 0)
        return;
    phasor_write_frame_locked(PLOG_FRAME_COMMS, 0, comm_pending_n, comm_pending, comm_pending_len);
    comm_pending_len = 0;
    comm_pending_n = 0;
}

void phasor_write_events_locked(unsigned thread, uint8_t *buf, size_t len, uint32_t n)
{
    if (n == 0)
        return;
    if (!writer_ok) {
        dropped_events += n;
        if (write_failed)
            rename_dropped_marker(0);
        return;
    }
    phasor_flush_defs_locked();
    phasor_clock_map_t map;
    phasor_clock_map_now(&map);
    size_t out = 0;
    if (plog_events_encode_mapped(buf, len, n, phasor_clock_use_tsc ? &map : NULL, enc_buf,
                                  enc_cap, &out) != PLOG_OK) {
        dropped_events += n; /* cannot happen with enc_cap from the bound; counted anyway */
        return;
    }
    phasor_write_frame_locked(PLOG_FRAME_EVENTS, thread, n, enc_buf, out);
    if (!writer_ok) {
        dropped_events += n;
        rename_dropped_marker(0);
    }
}

void phasor_write_slot_locked(slot_t *s, int which, size_t len, uint32_t n)
{
    size_t skip = s->fl_len[which];
    uint32_t nskip = s->fl_n[which];
    s->fl_len[which] = 0;
    s->fl_n[which] = 0;
    assert(skip <= len && nskip <= n);
    phasor_write_events_locked(s->th.slot, s->bufs[which] + skip, len - skip, n - nskip);
}

void phasor_queue_comm_def(const plog_comm_def_t *c)
{
    size_t need = 5 * 10 + ((size_t)c->n_local + c->n_remote + c->n_topo + 3) * 10;
    pthread_mutex_lock(&phasor_write_lock);
    if (VEC_GROW(comm_pending, comm_pending_cap, comm_pending_len + need) != 0) {
        pthread_mutex_unlock(&phasor_write_lock);
        return; /* the reader will report events on an undefined communicator */
    }
    plog_wcur_t w = {comm_pending + comm_pending_len, comm_pending + comm_pending_cap, 0};
    plog_comm_encode(&w, c);
    assert(!w.overflow); /* need bounds every varint of the record */
    comm_pending_len = (size_t)(w.p - comm_pending);
    comm_pending_n++;
    pthread_mutex_unlock(&phasor_write_lock);
}

void phasor_write_frame(unsigned kind, uint32_t count, const void *raw, size_t len)
{
    pthread_mutex_lock(&phasor_write_lock);
    phasor_write_frame_locked(kind, 0, count, raw, len);
    pthread_mutex_unlock(&phasor_write_lock);
}

void phasor_write_sync_locked(const plog_sync_sample_t *s)
{
    uint8_t buf[64]; /* four varints */
    plog_wcur_t w = {buf, buf + sizeof(buf), 0};
    plog_sync_encode(&w, s);
    assert(!w.overflow);
    phasor_write_frame_locked(PLOG_FRAME_CLOCKSYNC, 0, 1, buf, (size_t)(w.p - buf));
}

void phasor_writer_end_locked(const char *kv, size_t len)
{
    if (writer_ok && plog_writer_end(&writer, kv, len) != PLOG_OK)
        note_write_failure();
    writer_ok = 0;
}

/* ---- the writer thread ---- */

static void *writer_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&q_lock);
    for (;;) {
        while (q_head == q_tail && !q_stop)
            pthread_cond_wait(&q_cond, &q_lock);
        if (q_head == q_tail)
            break;
        job_t j = queue[q_head++ % QUEUE_LEN];
        assert(j.s->busy[j.which]);
        pthread_mutex_unlock(&q_lock);

        pthread_mutex_lock(&phasor_write_lock);
        phasor_write_slot_locked(j.s, j.which, j.len, j.n);
        pthread_mutex_unlock(&phasor_write_lock);

        pthread_mutex_lock(&q_lock);
        j.s->busy[j.which] = 0;
        pthread_cond_broadcast(&done_cond);
    }
    pthread_mutex_unlock(&q_lock);
    return NULL;
}

void phasor_writer_take(slot_t *s, size_t len, uint32_t n)
{
    if (!writer_thread_running) {
        pthread_mutex_lock(&phasor_write_lock);
        phasor_write_slot_locked(s, s->cur, len, n);
        pthread_mutex_unlock(&phasor_write_lock);
        return;
    }
    pthread_mutex_lock(&q_lock);
    assert(!s->busy[s->cur] && q_tail - q_head < QUEUE_LEN);
    s->busy[s->cur] = 1;
    queue[q_tail++ % QUEUE_LEN] = (job_t){s, s->cur, len, n};
    pthread_cond_signal(&q_cond);
    s->cur ^= 1;
    if (s->busy[s->cur])
        phasor_writer_stalls++;
    while (s->busy[s->cur])
        pthread_cond_wait(&done_cond, &q_lock);
    pthread_mutex_unlock(&q_lock);
}

void phasor_writer_wait_slot(slot_t *s)
{
    if (!writer_thread_running)
        return; /* inline writes: phasor_writer_take wrote it */
    pthread_mutex_lock(&q_lock);
    while (s->busy[0] || s->busy[1])
        pthread_cond_wait(&done_cond, &q_lock);
    pthread_mutex_unlock(&q_lock);
}

/* The union of the CPU masks of the ranks that share this rank's node, and how many they
 * are, without a communicator of the node (creating one would change the application's:
 * phasor_start): the host keys are gathered, the lowest rank of each node collects its
 * ranks' masks and sends back their union. 0 on success (the same on every rank). */
static int node_cpus(cpu_set_t *used, int *local)
{
    MPI_Comm c = phasor_shim_comm;
    const int tag = 4243, me = phasor_world_rank, p = phasor_world_size;
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)p);
    int ok = keys != NULL;
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, c);
    if (!ok) {
        free(keys);
        return -1;
    }
    const uint64_t key = phasor_host_key();
    PMPI_Allgather(&key, 1, MPI_UINT64_T, keys, 1, MPI_UINT64_T, c);
    int leader = -1;
    *local = 0;
    for (int r = 0; r < p; r++)
        if (keys[r] == key) {
            leader = leader < 0 ? r : leader;
            ++*local;
        }
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof(mine), &mine) != 0)
        CPU_ZERO(&mine);
    if (me != leader) {
        PMPI_Send(&mine, sizeof(mine), MPI_BYTE, leader, tag, c);
        PMPI_Recv(used, sizeof(*used), MPI_BYTE, leader, tag, c, MPI_STATUS_IGNORE);
    } else {
        *used = mine;
        for (int r = me + 1; r < p; r++)
            if (keys[r] == key) {
                cpu_set_t other;
                PMPI_Recv(&other, sizeof(other), MPI_BYTE, r, tag, c, MPI_STATUS_IGNORE);
                CPU_OR(used, used, &other);
            }
        for (int r = me + 1; r < p; r++)
            if (keys[r] == key)
                PMPI_Send(used, sizeof(*used), MPI_BYTE, r, tag, c);
    }
    free(keys);
    return 0;
}

/* A writer thread only pays off when it has a core of its own: with every core running a
 * rank that busy-polls in MPI, it preempts ranks and their peers wait (measured: ping-pong
 * on 2 ranks / 2 cores slower with the thread than with inline writes). In auto mode the
 * ranks of a node share their CPU masks: CPUs no rank is bound to are the writer's; if
 * there are none but the ranks float over more CPUs than there are ranks, the writer floats
 * with them; otherwise buffers are written inline. */
void phasor_writer_choose(void)
{
    if (phasor_cfg.inline_writer >= 0)
        return;
    phasor_cfg.inline_writer = 1;
    cpu_set_t used;
    int local = 1;
    if (node_cpus(&used, &local) != 0)
        return;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(&writer_cpus);
    for (long c = 0; c < online && c < CPU_SETSIZE; c++)
        if (!CPU_ISSET((int)c, &used))
            CPU_SET((int)c, &writer_cpus);
    if (CPU_COUNT(&writer_cpus) > 0) {
        phasor_writer_pinned = 1;
        phasor_cfg.inline_writer = 0;
    } else if (local < CPU_COUNT(&used)) {
        phasor_cfg.inline_writer = 0;
    }
}


/* The shim's threads (writer, watch) are created with every asynchronous signal blocked,
 * so that none is delivered to them: a signal meant for the application goes to its own
 * threads, and a fatal one is never handled on a thread the handler waits for. Faults stay
 * open: one raised by such a thread itself, blocked, would end the process without any
 * handler (the MPI library's backtrace, phasor's END frame). 0 when it started. */
int phasor_thread_start(pthread_t *t, void *(*fn)(void *), const char *name)
{
    sigset_t all, was;
    sigfillset(&all);
    const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_BLOCK, &all, &was);
    int rc = pthread_create(t, NULL, fn, NULL);
    if (rc == 0)
        pthread_setname_np(*t, name);
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    return rc;
}

void phasor_writer_start_thread(void)
{
    if (phasor_cfg.inline_writer ||
        phasor_thread_start(&writer_thread, writer_main, "phasor-writer") != 0)
        return;
    writer_thread_running = 1;
    if (phasor_writer_pinned)
        pthread_setaffinity_np(writer_thread, sizeof(writer_cpus), &writer_cpus);
}

void phasor_writer_stop_thread(void)
{
    if (!writer_thread_running)
        return;
    pthread_mutex_lock(&q_lock);
    q_stop = 1;
    pthread_cond_signal(&q_cond);
    pthread_mutex_unlock(&q_lock);
    pthread_join(writer_thread, NULL);
    writer_thread_running = 0;
}

int phasor_writer_idle(void)
{
    return __atomic_load_n(&q_head, __ATOMIC_ACQUIRE) == __atomic_load_n(&q_tail, __ATOMIC_ACQUIRE);
}
