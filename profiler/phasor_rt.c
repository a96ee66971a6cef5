/* phasor_rt.c: the shim's runtime: configuration, per-thread buffers, the writer thread,
 * and the start and end of a rank's log.
 *
 * Each thread that calls MPI owns a slot with two record buffers. When one fills, the thread
 * hands it to the writer thread (which converts stamps to ns, encodes, compresses and
 * writes it) and carries on in the other; it only waits if the writer still holds that one.
 * The hot path therefore never locks, allocates or enters the kernel. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "config.h"
#include "phasor_internal.h"
#include "phasor_measure.h"
#include "phasor_probe.h"
#include "plog_write.h"

#define MAX_SLOTS 1024
#define DEFAULT_BUFFER (4u << 20)
#define MIN_BUFFER (64u << 10)
#define MAX_BUFFER (16u << 20)

typedef struct slot {
    phasor_thread_t th; /* first: phasor_thread_t pointers are slot pointers */
    uint8_t *bufs[2];
    int cur;
    int busy[2];        /* 1 while the writer holds that buffer (guarded by q_lock) */
    uint64_t ev_mark;   /* th.nevents when the current buffer was started */
    pid_t tid;
} slot_t;

typedef struct job {
    slot_t *s;
    int which;
    size_t len;
    uint32_t n;
} job_t;

volatile int phasor_active;
volatile int phasor_cancel_seen;
PHASOR_TLS phasor_thread_t *phasor_tls;
static PHASOR_TLS phasor_thread_t tls_dead = {.dead = 1};

int phasor_world_rank, phasor_world_size;
MPI_Comm phasor_private_comm = MPI_COMM_NULL;

static struct {
    char dir[PATH_MAX];
    size_t buffer;
    int max_threads;
    int level;
    int inline_writer;
    unsigned file_mode;
    int quiet;
    int callsite_depth;
    int probe; /* 0 off, else enum pprobe_mode */
    long signal_delay_ms; /* tests only: how long a fatal signal's handler holds its flush */
} cfg;

static slot_t slots[MAX_SLOTS];
static int nslots; /* claimed so far (atomic) */
static uint64_t dead_thread_calls; /* atomic: calls of threads that got no slot */

/* Writer state: everything below is guarded by write_lock. */
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
static plog_writer_t writer;
static int writer_ok;
static uint8_t *enc_buf;
static size_t enc_cap;
static uint8_t *comm_pending;
static size_t comm_pending_len, comm_pending_cap;
static uint32_t comm_pending_n;
static uint64_t dropped_events;
static uint64_t frames_written;
static int warned_write;
static int write_failed; /* this rank lost events to a failed write */

/* Writer thread queue: guarded by q_lock. */
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;    /* work arrived / stop */
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER; /* a buffer came back */
static job_t queue[2 * MAX_SLOTS];
static size_t q_head, q_tail;
static int q_stop;
static pthread_t writer_thread;
static int writer_thread_running;
static uint64_t writer_stalls;
static cpu_set_t writer_cpus; /* CPUs no rank of this node is bound to */
static int writer_pinned;

static plog_sync_sample_t sync_init_sample;
static uint64_t t_init_ns;

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
    if (cfg.quiet)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "phasor: %s\n", msg);
}

int phasor_disabled_by_env(void)
{
    const char *d = getenv("PHASOR_DISABLE");
    return d != NULL && *d != '\0' && strcmp(d, "0") != 0;
}

/* ---- configuration ---- */

/* Size with an optional K/M/G suffix. Returns 0 and leaves *out alone on a bad value. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'i' && end[-1] != '\0')
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0')
        return 0;
    *out = (size_t)v;
    return 1;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* Bad values are reported (rank 0 only) and replaced by defaults: a typo in an environment
 * variable must not stop the application. */
static void read_config(int rank)
{
    memset(&cfg, 0, sizeof(cfg));
    cfg.buffer = DEFAULT_BUFFER;
    cfg.max_threads = 256;
    cfg.level = 1;
    cfg.file_mode = 0600;
    cfg.callsite_depth = 4;
    const char *q = getenv("PHASOR_QUIET");
    cfg.quiet = q && *q && strcmp(q, "0") != 0;
    const char *v;
    long l;
    if ((v = getenv("PHASOR_BUFFER")) && *v) {
        size_t sz;
        if (parse_size(v, &sz) && sz >= MIN_BUFFER && sz <= MAX_BUFFER)
            cfg.buffer = sz;
        else if (rank == 0)
            warn("PHASOR_BUFFER=%s is not a size from 64K to 16M; using 4M", v);
    }
    cfg.buffer &= ~(size_t)7;
    if ((v = getenv("PHASOR_MAX_THREADS")) && *v) {
        if (parse_int(v, 1, MAX_SLOTS, &l))
            cfg.max_threads = (int)l;
        else if (rank == 0)
            warn("PHASOR_MAX_THREADS=%s is not a number from 1 to %d; using 256", v, MAX_SLOTS);
    }
    if ((v = getenv("PHASOR_ZSTD_LEVEL")) && *v) {
        if (parse_int(v, 1, 19, &l))
            cfg.level = (int)l;
        else if (rank == 0)
            warn("PHASOR_ZSTD_LEVEL=%s is not a number from 1 to 19; using 1", v);
    }
    if ((v = getenv("PHASOR_CALLSITE_DEPTH")) && *v) {
        if (parse_int(v, 0, PLOG_SITE_MAX_FRAMES, &l))
            cfg.callsite_depth = (int)l;
        else if (rank == 0)
            warn("PHASOR_CALLSITE_DEPTH=%s is not a number from 0 to %d; using 4", v,
                 PLOG_SITE_MAX_FRAMES);
    }
    cfg.inline_writer = -1; /* auto: decided in choose_writer() */
    if ((v = getenv("PHASOR_WRITER")) && *v) {
        if (strcmp(v, "inline") == 0)
            cfg.inline_writer = 1;
        else if (strcmp(v, "thread") == 0)
            cfg.inline_writer = 0;
        else if (strcmp(v, "auto") != 0 && rank == 0)
            warn("PHASOR_WRITER=%s is not 'auto', 'thread' or 'inline'; using auto", v);
    }
    if ((v = getenv("PHASOR_PROBE")) && *v) {
        if (strcmp(v, "quick") == 0)
            cfg.probe = PPROBE_QUICK;
        else if (strcmp(v, "full") == 0)
            cfg.probe = PPROBE_FULL;
        else if (strcmp(v, "off") != 0 && rank == 0)
            warn("PHASOR_PROBE=%s is not 'off', 'quick' or 'full'; using off", v);
    }
    if ((v = getenv("PHASOR_FILE_MODE")) && *v) {
        if (parse_int(v, 0, 0777, &l) && (l & 0600) == 0600)
            cfg.file_mode = (unsigned)l;
        else if (rank == 0)
            warn("PHASOR_FILE_MODE=%s is not an octal mode with owner read/write; using 0600", v);
    }
    /* Lets the ending tests send a second signal while the first one's log is being written,
     * a window otherwise a few milliseconds wide. */
    if ((v = getenv("PHASOR_TEST_SIGNAL_DELAY_MS")) && *v && parse_int(v, 0, 10000, &l))
        cfg.signal_delay_ms = l;
}

/* ---- writing (caller holds write_lock) ---- */

/* One warning per job, not per rank: the first rank whose write fails creates a marker in
 * the log directory (O_EXCL) and warns; the others find it and stay quiet. Best effort: when
 * the marker cannot be created (a full directory, a node-local directory per host) each such
 * rank warns. Rank 0's summary at MPI_Finalize counts the ranks that lost events. */
static int first_to_fail(void)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/.phasor-write-failed", cfg.dir);
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return 1;
    }
    return errno != EEXIST;
}

static void note_write_failure(void)
{
    if (writer_ok && !warned_write && first_to_fail())
        warn("rank %d: writing the log in %s failed (%s): the run goes on; further events of "
             "the ranks that cannot write are counted as dropped", phasor_world_rank, cfg.dir,
             writer.sys_errno ? strerror(writer.sys_errno) : plog_strerror(writer.err));
    if (writer_ok)
        write_failed = 1;
    warned_write = 1;
    writer_ok = 0;
}

static void write_frame_locked(unsigned kind, unsigned thread, uint32_t count, const void *raw,
                               size_t len)
{
    if (!writer_ok)
        return;
    if (plog_writer_frame(&writer, kind, thread, count, raw, len) != PLOG_OK)
        note_write_failure();
    else
        frames_written++;
}

static volatile sig_atomic_t in_crash; /* a fatal signal is being handled */

static void emit_callsites_locked(uint32_t n, const void *buf, size_t len)
{
    write_frame_locked(PLOG_FRAME_CALLSITES, 0, n, buf, len);
}

/* Definitions (communicators, call sites) go out before any frame that may use them. */
static void flush_comms_locked(void)
{
    phasor_callsite_flush(emit_callsites_locked, in_crash);
    if (comm_pending_n == 0)
        return;
    write_frame_locked(PLOG_FRAME_COMMS, 0, comm_pending_n, comm_pending, comm_pending_len);
    comm_pending_len = 0;
    comm_pending_n = 0;
}

static void write_events_locked(unsigned thread, uint8_t *buf, size_t len, uint32_t n)
{
    if (n == 0)
        return;
    if (!writer_ok) {
        dropped_events += n;
        return;
    }
    flush_comms_locked();
    phasor_clock_map_t map;
    phasor_clock_map_now(&map);
    size_t out = 0;
    if (plog_events_encode_mapped(buf, len, n, phasor_clock_use_tsc ? &map : NULL, enc_buf,
                                  enc_cap, &out) != PLOG_OK) {
        dropped_events += n; /* cannot happen with enc_cap from the bound; counted anyway */
        return;
    }
    write_frame_locked(PLOG_FRAME_EVENTS, thread, n, enc_buf, out);
    if (!writer_ok)
        dropped_events += n;
}

void phasor_queue_comm_def(const plog_comm_def_t *c)
{
    size_t need = 5 * 10 + ((size_t)c->n_local + c->n_remote + c->n_topo + 3) * 10;
    pthread_mutex_lock(&write_lock);
    if (comm_pending_len + need > comm_pending_cap) {
        size_t cap = (comm_pending_cap + need) * 2;
        uint8_t *nb = realloc(comm_pending, cap);
        if (!nb) {
            pthread_mutex_unlock(&write_lock);
            return; /* the reader will report events on an undefined communicator */
        }
        comm_pending = nb;
        comm_pending_cap = cap;
    }
    plog_wcur_t w = {comm_pending + comm_pending_len, comm_pending + comm_pending_cap, 0};
    plog_comm_encode(&w, c);
    comm_pending_len = (size_t)(w.p - comm_pending);
    comm_pending_n++;
    pthread_mutex_unlock(&write_lock);
}

/* ---- writer thread ---- */

static void *writer_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&q_lock);
    for (;;) {
        while (q_head == q_tail && !q_stop)
            pthread_cond_wait(&q_cond, &q_lock);
        if (q_head == q_tail)
            break;
        job_t j = queue[q_head++ % (2 * MAX_SLOTS)];
        pthread_mutex_unlock(&q_lock);

        pthread_mutex_lock(&write_lock);
        write_events_locked(j.s->th.slot, j.s->bufs[j.which], j.len, j.n);
        pthread_mutex_unlock(&write_lock);

        pthread_mutex_lock(&q_lock);
        j.s->busy[j.which] = 0;
        pthread_cond_broadcast(&done_cond);
    }
    pthread_mutex_unlock(&q_lock);
    return NULL;
}

/* Give the slot's current buffer to the writer and continue in the other one. */
static void handoff(slot_t *s)
{
    phasor_thread_t *th = &s->th;
    size_t len = (size_t)(th->pos - th->buf);
    uint32_t n = (uint32_t)(th->nevents - s->ev_mark);
    th->nflush++;
    if (len == 0)
        return;
    if (!writer_thread_running) {
        pthread_mutex_lock(&write_lock);
        write_events_locked(th->slot, th->buf, len, n);
        pthread_mutex_unlock(&write_lock);
    } else {
        pthread_mutex_lock(&q_lock);
        s->busy[s->cur] = 1;
        queue[q_tail++ % (2 * MAX_SLOTS)] = (job_t){s, s->cur, len, n};
        pthread_cond_signal(&q_cond);
        s->cur ^= 1;
        if (s->busy[s->cur])
            writer_stalls++;
        while (s->busy[s->cur])
            pthread_cond_wait(&done_cond, &q_lock);
        pthread_mutex_unlock(&q_lock);
    }
    th->buf = s->bufs[s->cur];
    th->pos = th->buf;
    th->end = th->buf + cfg.buffer;
    s->ev_mark = th->nevents;
}

plog_event_t *phasor_event_begin_slow(phasor_thread_t *th, size_t need)
{
    (void)need; /* a record larger than a whole buffer gets what room there is */
    handoff((slot_t *)th);
    return (size_t)(th->end - th->pos) >= sizeof(plog_event_t) ? (plog_event_t *)th->pos : NULL;
}

static phasor_thread_t *claim_slot(void)
{
    int idx = __atomic_fetch_add(&nslots, 1, __ATOMIC_RELAXED);
    if (idx >= cfg.max_threads || idx >= MAX_SLOTS)
        return NULL;
    slot_t *s = &slots[idx];
    s->bufs[0] = malloc(cfg.buffer);
    s->bufs[1] = malloc(cfg.buffer);
    if (!s->bufs[0] || !s->bufs[1]) {
        free(s->bufs[0]);
        free(s->bufs[1]);
        s->bufs[0] = s->bufs[1] = NULL;
        return NULL;
    }
    s->tid = (pid_t)syscall(SYS_gettid);
    s->th.slot = (uint16_t)idx;
    s->th.buf = s->th.pos = s->bufs[0];
    s->th.end = s->th.buf + cfg.buffer;
    s->th.cs_cache = phasor_callsite_cache_new(); /* NULL: this thread's sites are 0 */
    return &s->th;
}

phasor_thread_t *phasor_thread_attach(void)
{
    phasor_thread_t *th = claim_slot();
    if (th == NULL) {
        /* Over the thread budget (or out of memory): this thread's calls are counted, and
         * the log says how many were not recorded. */
        __atomic_fetch_add(&dead_thread_calls, 1, __ATOMIC_RELAXED);
        phasor_tls = &tls_dead;
        return NULL;
    }
    phasor_tls = th;
    return th;
}

int phasor_scratch_reserve(phasor_thread_t *th, size_t n)
{
    if (n <= th->scratch_cap)
        return 1;
    size_t cap = n < 64 ? 64 : n * 2;
    MPI_Request *r = realloc(th->req_scratch, cap * sizeof(*r));
    if (r)
        th->req_scratch = r;
    MPI_Status *st = realloc(th->st_scratch, cap * sizeof(*st));
    if (st)
        th->st_scratch = st;
    int *ix = realloc(th->idx_scratch, cap * sizeof(*ix));
    if (ix)
        th->idx_scratch = ix;
    if (!r || !st || !ix)
        return 0;
    th->scratch_cap = cap;
    return 1;
}

/* ---- header ---- */

typedef struct kvbuf {
    char *p;
    size_t len, cap;
    int fixed; /* p is caller storage: never reallocated (signal-handler paths) */
} kvbuf_t;

static void kv_add(kvbuf_t *kv, const char *key, const char *val)
{
    size_t need = strlen(key) + 1 + strlen(val) + 1;
    if (kv->len + need > kv->cap && kv->fixed)
        return;
    if (kv->len + need > kv->cap) {
        size_t cap = (kv->cap + need) * 2;
        char *np = realloc(kv->p, cap);
        if (!np)
            return;
        kv->p = np;
        kv->cap = cap;
    }
    kv->len += (size_t)sprintf(kv->p + kv->len, "%s=%s", key, val) + 1;
}

static void kv_addf(kvbuf_t *kv, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void kv_addf(kvbuf_t *kv, const char *key, const char *fmt, ...)
{
    char val[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof(val), fmt, ap);
    va_end(ap);
    kv_add(kv, key, val);
}

extern char **environ;

/* Variables that change which algorithms the MPI library picks (and phasor's own). */
static int env_worth_recording(const char *e)
{
    static const char *const prefixes[] = {"OMPI_MCA_", "MPIR_CVAR_", "PHASOR_", "UCX_",
                                           "I_MPI_", "FI_"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(e, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

static void header_kv(kvbuf_t *kv, int required, int provided)
{
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    kv_add(kv, "phasor_version", PACKAGE_VERSION);
    kv_add(kv, "hostname", host);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    PMPI_Get_library_version(lib, &len);
    for (char *c = lib; *c; c++) /* one line per value */
        if (*c == '\n')
            *c = ' ';
    kv_add(kv, "mpi_library", lib);
    int ver = 0, sub = 0;
    PMPI_Get_version(&ver, &sub);
    kv_addf(kv, "mpi_version", "%d.%d", ver, sub);
    if (required >= 0) {
        kv_addf(kv, "thread_level_required", "%d", required);
        kv_addf(kv, "thread_level_provided", "%d", provided);
    }
    kv_addf(kv, "clock", "%s", phasor_clock_use_tsc ? "tsc" : "monotonic");
    kv_addf(kv, "buffer_bytes", "%zu", cfg.buffer);
    kv_addf(kv, "callsite_depth", "%d", phasor_cs_depth);
    kv_add(kv, "writer", cfg.inline_writer ? "inline" : writer_pinned ? "thread-spare-cpu" : "thread");
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        char cmd[1024];
        size_t n = fread(cmd, 1, sizeof(cmd) - 1, f);
        fclose(f);
        for (size_t i = 0; i + 1 < n; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        cmd[n] = '\0';
        kv_add(kv, "cmdline", cmd);
    }
    for (char **e = environ; e && *e; e++) {
        if (!env_worth_recording(*e))
            continue;
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char key[300];
        snprintf(key, sizeof(key), "env.%.*s", (int)(eq - *e), *e);
        kv_add(kv, key, eq + 1);
    }
}

/* ---- start ---- */

static void install_signal_handlers(void);
static void at_exit_without_finalize(void);

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

/* A writer thread only pays off when it has a core of its own: with every core running a
 * rank that busy-polls in MPI, it preempts ranks and their peers wait (measured: ping-pong
 * on 2 ranks / 2 cores slower with the thread than with inline writes). In auto mode the
 * ranks of a node share their CPU masks: CPUs no rank is bound to are the writer's; if
 * there are none but the ranks float over more CPUs than there are ranks, the writer floats
 * with them; otherwise buffers are written inline. */
static void choose_writer(void)
{
    if (cfg.inline_writer >= 0)
        return;
    cfg.inline_writer = 1;
    MPI_Comm node;
    if (PMPI_Comm_split_type(phasor_private_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                             &node) != MPI_SUCCESS)
        return;
    int local = 1;
    PMPI_Comm_size(node, &local);
    cpu_set_t mine, *all = malloc(sizeof(cpu_set_t) * (size_t)local);
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof(mine), &mine) != 0)
        CPU_ZERO(&mine);
    int ok = all != NULL;
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, node);
    if (ok)
        PMPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, node);
    PMPI_Comm_free(&node);
    if (!ok) {
        free(all);
        return;
    }
    cpu_set_t used;
    CPU_ZERO(&used);
    for (int i = 0; i < local; i++)
        CPU_OR(&used, &used, &all[i]);
    free(all);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(&writer_cpus);
    for (long c = 0; c < online && c < CPU_SETSIZE; c++)
        if (!CPU_ISSET((int)c, &used))
            CPU_SET((int)c, &writer_cpus);
    if (CPU_COUNT(&writer_cpus) > 0) {
        writer_pinned = 1;
        cfg.inline_writer = 0;
    } else if (local < CPU_COUNT(&used)) {
        cfg.inline_writer = 0;
    }
}

/* All ranks agree on the directory: PHASOR_DIR, or a fresh name chosen by rank 0. */
static void choose_dir(void)
{
    const char *d = getenv("PHASOR_DIR");
    if (d && *d) {
        snprintf(cfg.dir, sizeof(cfg.dir), "%s", d);
        return;
    }
    if (phasor_world_rank == 0) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char stamp[32];
        strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
        snprintf(cfg.dir, sizeof(cfg.dir), "phasor-%s-%ld", stamp, (long)getpid());
    }
    PMPI_Bcast(cfg.dir, sizeof(cfg.dir), MPI_CHAR, 0, phasor_private_comm);
}

static void append_event_raw(unsigned call, uint64_t t0, uint64_t t1, int rc, int32_t tag)
{
    phasor_thread_t *th = phasor_tls;
    if (th == NULL || th->dead)
        return;
    plog_event_t *ev = phasor_event_begin(th, call, t0, t1, rc, 0);
    if (ev) {
        ev->tag = tag;
        phasor_event_end(th, ev, 0);
    }
}

/* PHASOR_PROBE: measure the network before the application starts, and keep what this
 * rank sent in its log. Every rank must take part, so the ranks first agree on the mode. */
static void run_probe(void)
{
    int lo_hi[2] = {cfg.probe, -cfg.probe}, agreed[2];
    if (PMPI_Allreduce(lo_hi, agreed, 2, MPI_INT, MPI_MIN, phasor_private_comm) != MPI_SUCCESS)
        return;
    if (agreed[0] != -agreed[1]) {
        if (phasor_world_rank == 0)
            warn("PHASOR_PROBE differs between ranks: no probe");
        return;
    }
    if (agreed[0] == 0)
        return;
    pprobe_opts_t o;
    pprobe_defaults((pprobe_mode_t)agreed[0], &o);
    pprobe_result_t res;
    int rc = pprobe_run(MPI_COMM_WORLD, PPROBE_NO_GATHER, &o, &res);
    if (rc != MPI_SUCCESS) {
        warn("rank %d: the network probe failed (MPI error %d): no probe results",
             phasor_world_rank, rc);
        return;
    }
    size_t cap = PLOG_PROBE_BOUND(res.n_entries);
    uint8_t *buf = malloc(cap);
    if (buf) {
        plog_wcur_t w = {buf, buf + cap, 0};
        plog_probe_encode(&w, &res.info, res.entries, res.n_entries);
        pthread_mutex_lock(&write_lock);
        write_frame_locked(PLOG_FRAME_PROBE, 0, (uint32_t)res.n_entries, buf,
                           (size_t)(w.p - buf));
        pthread_mutex_unlock(&write_lock);
        free(buf);
    }
    if (phasor_world_rank == 0)
        warn("network probe (%s): %.2f s, %u repetitions", agreed[0] == PPROBE_QUICK ? "quick"
             : "full", res.info.elapsed_s, res.info.reps);
    pprobe_result_free(&res);
}

void phasor_start(unsigned call, uint64_t t0, uint64_t t1, int rc, int required, int provided)
{
    if (rc != MPI_SUCCESS)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &phasor_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &phasor_world_size);
    read_config(phasor_world_rank);
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &phasor_private_comm) != MPI_SUCCESS)
        return;
    choose_dir();
    choose_writer();
    {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
        int len = 0;
        PMPI_Get_library_version(lib, &len);
        const char *steps = getenv("PHASOR_STEPS");
        int m = phasor_measure_init(steps, lib);
        if (m < 0 && phasor_world_rank == 0)
            warn("PHASOR_STEPS=%s is not 'off' or 'measure'; using off", steps);
        else if (m == 0 && phasor_world_rank == 0)
            warn("PHASOR_STEPS=measure: no algorithm rules for this MPI library; collectives "
                 "run as usual");
    }
    if (!phasor_callsite_init(cfg.callsite_depth) && phasor_world_rank == 0)
        warn("call sites are off: cannot load %s (%s)", PHASOR_LIBUNWIND_SONAME, dlerror());

    /* Open this rank's file, then agree: either every rank records or none does. */
    int err = make_dirs(cfg.dir);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/" PLOG_FILE_PATTERN, cfg.dir, phasor_world_rank);
    kvbuf_t kv = {0};
    header_kv(&kv, required, provided);
    t_init_ns = phasor_mono_ns();
    plog_file_header_t h = {0};
    h.rank = phasor_world_rank;
    h.world_size = phasor_world_size;
    h.pid = getpid();
    h.clock = phasor_clock_use_tsc ? PLOG_CLOCK_TSC : PLOG_CLOCK_MONOTONIC;
    h.t_init_ns = t_init_ns;
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    h.realtime_init_ns = (int64_t)rt.tv_sec * 1000000000ll + rt.tv_nsec;
    enc_cap = plog_events_encode_bound(cfg.buffer);
    enc_buf = malloc(enc_cap);
    if (err == 0 && enc_buf == NULL)
        err = ENOMEM;
    if (err == 0 && plog_writer_open(&writer, path, cfg.file_mode, cfg.level, &h, kv.p,
                                     kv.len) != PLOG_OK)
        err = writer.sys_errno ? writer.sys_errno : EIO;
    free(kv.p);
    int mine[2] = {err ? err : INT_MAX, phasor_world_rank}, first[2];
    PMPI_Allreduce(mine, first, 1, MPI_2INT, MPI_MINLOC, phasor_private_comm);
    if (first[0] != INT_MAX) {
        if (err == 0) {
            plog_writer_abandon(&writer);
            unlink(path); /* empty but for the header: nothing of the app's is lost */
        }
        if (phasor_world_rank == 0)
            warn("cannot write logs to '%s' (rank %d: %s): running without phasor", cfg.dir,
                 first[1], strerror(first[0]));
        free(enc_buf);
        enc_buf = NULL;
        return;
    }
    writer_ok = 1;

    if (!phasor_comm_table_init())
        warn("rank %d: communicator table unavailable: events will carry unknown ids",
             phasor_world_rank);
    phasor_clocksync(PLOG_SYNC_INIT, &sync_init_sample);
    uint8_t sbuf[64];
    plog_wcur_t w = {sbuf, sbuf + sizeof(sbuf), 0};
    plog_sync_encode(&w, &sync_init_sample);
    pthread_mutex_lock(&write_lock);
    flush_comms_locked();
    write_frame_locked(PLOG_FRAME_CLOCKSYNC, 0, 1, sbuf, (size_t)(w.p - sbuf));
    pthread_mutex_unlock(&write_lock);
    run_probe();

    /* The writer is created with every asynchronous signal blocked, so that none is
     * delivered to it: a signal meant for the application goes to its own threads, and a
     * fatal one is never handled on the thread whose queue the handler waits to drain.
     * Faults stay open: one raised by the writer itself, blocked, would end the process
     * without any handler (the MPI library's backtrace, phasor's END frame). */
    sigset_t all, was;
    sigfillset(&all);
    const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_BLOCK, &all, &was);
    if (!cfg.inline_writer && pthread_create(&writer_thread, NULL, writer_main, NULL) == 0) {
        writer_thread_running = 1;
        pthread_setname_np(writer_thread, "phasor-writer");
        if (writer_pinned)
            pthread_setaffinity_np(writer_thread, sizeof(writer_cpus), &writer_cpus);
    }
    pthread_sigmask(SIG_SETMASK, &was, NULL);

    install_signal_handlers();
    atexit(at_exit_without_finalize);
    phasor_thread_t *th = phasor_thread_attach();
    __atomic_store_n(&phasor_active, 1, __ATOMIC_RELEASE);
    if (th)
        append_event_raw(call, t0, t1, rc, PLOG_NONE);
}

/* ---- end ---- */

static plog_sync_sample_t sync_fin_sample;
static int finishing;
static uint64_t job_events, job_dropped, job_failed;

static void stop_writer_thread(void)
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

static void totals(uint64_t *events, uint64_t *dropped, int *threads)
{
    int n = __atomic_load_n(&nslots, __ATOMIC_RELAXED);
    if (n > cfg.max_threads)
        n = cfg.max_threads;
    *events = 0;
    for (int i = 0; i < n; i++)
        *events += slots[i].th.nevents;
    *dropped = dropped_events + __atomic_load_n(&dead_thread_calls, __ATOMIC_RELAXED);
    *threads = n;
}

void phasor_finish_begin(void)
{
    if (!phasor_active)
        return;
    finishing = 1;
    __atomic_store_n(&phasor_active, 0, __ATOMIC_RELEASE);
    phasor_clocksync(PLOG_SYNC_FINALIZE, &sync_fin_sample);
    uint64_t mine[3], sum[3] = {0, 0, 0};
    int threads;
    totals(&mine[0], &mine[1], &threads);
    mine[0] += 1; /* the Finalize event itself, recorded after the library's finalize */
    pthread_mutex_lock(&write_lock);
    mine[2] = (uint64_t)write_failed;
    pthread_mutex_unlock(&write_lock);
    PMPI_Reduce(mine, sum, 3, MPI_UINT64_T, MPI_SUM, 0, phasor_private_comm);
    job_events = sum[0];
    job_dropped = sum[1];
    job_failed = sum[2];
    PMPI_Comm_free(&phasor_private_comm);
}

/* Counters, thread table and how the log ended: the META frame, then the END frame with
 * the same strings. Allocates nothing (static buffer, writer memory kept) so that the
 * signal path can use it; the caller holds write_lock. */
static char tail_buf[64 << 10];
static volatile sig_atomic_t log_closed;

static void write_tail(const char *ending)
{
    uint64_t events, dropped;
    int threads;
    totals(&events, &dropped, &threads);
    kvbuf_t kv = {tail_buf, 0, sizeof(tail_buf), 1};
    kv_addf(&kv, "threads", "%d", threads);
    for (int i = 0; i < threads; i++) {
        char key[64];
        snprintf(key, sizeof(key), "thread.%d.tid", i);
        kv_addf(&kv, key, "%ld", (long)slots[i].tid);
    }
    kv_addf(&kv, "events", "%llu", (unsigned long long)events);
    kv_addf(&kv, "dropped_events", "%llu", (unsigned long long)dropped);
    kv_addf(&kv, "dead_thread_calls", "%llu",
            (unsigned long long)__atomic_load_n(&dead_thread_calls, __ATOMIC_RELAXED));
    kv_addf(&kv, "writer_stalls", "%llu", (unsigned long long)writer_stalls);
    kv_add(&kv, "ending", ending);
    flush_comms_locked();
    write_frame_locked(PLOG_FRAME_META, 0, 0, kv.p, kv.len);
    if (writer_ok && plog_writer_end(&writer, kv.p, kv.len) != PLOG_OK)
        note_write_failure();
    writer_ok = 0;
    log_closed = 1;
}

/* Every thread's buffered records, for the ends that come without MPI_Finalize. A record
 * another thread is writing at this moment is not yet counted in its buffer and is lost. */
static void flush_all_slots_locked(void)
{
    int n = __atomic_load_n(&nslots, __ATOMIC_RELAXED);
    for (int i = 0; i < n && i < cfg.max_threads; i++) {
        slot_t *s = &slots[i];
        if (!s->th.buf)
            continue;
        write_events_locked(s->th.slot, s->th.buf, (size_t)(s->th.pos - s->th.buf),
                            (uint32_t)(s->th.nevents - s->ev_mark));
        s->th.pos = s->th.buf;
        s->ev_mark = s->th.nevents;
    }
}

void phasor_finish_end(uint64_t t0, uint64_t t1, int rc)
{
    if (!finishing)
        return;
    finishing = 0;
    append_event_raw(PLOG_CALL_MPI_Finalize, t0, t1, rc, PLOG_NONE);
    int n = __atomic_load_n(&nslots, __ATOMIC_RELAXED);
    for (int i = 0; i < n && i < cfg.max_threads; i++)
        if (slots[i].th.buf)
            handoff(&slots[i]);
    stop_writer_thread();
    pthread_mutex_lock(&write_lock);
    uint8_t sbuf[64];
    plog_wcur_t w = {sbuf, sbuf + sizeof(sbuf), 0};
    plog_sync_encode(&w, &sync_fin_sample);
    write_frame_locked(PLOG_FRAME_CLOCKSYNC, 0, 1, sbuf, (size_t)(w.p - sbuf));
    write_tail("finalize");
    plog_writer_abandon(&writer);
    pthread_mutex_unlock(&write_lock);
    if (phasor_world_rank == 0 && !cfg.quiet) {
        char abs[PATH_MAX];
        const char *shown = realpath(cfg.dir, abs) ? abs : cfg.dir;
        char failed[96] = "";
        if (job_failed)
            snprintf(failed, sizeof(failed), "; %llu rank%s could not write all of theirs",
                     (unsigned long long)job_failed, job_failed == 1 ? "" : "s");
        fprintf(stderr, "phasor: %d rank logs (%llu events, %llu dropped%s) in %s\n",
                phasor_world_size, (unsigned long long)job_events,
                (unsigned long long)job_dropped, failed, shown);
    }
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
    stop_writer_thread();
    pthread_mutex_lock(&write_lock);
    if (!log_closed) {
        flush_all_slots_locked();
        write_tail("MPI_Abort");
    }
}

/* ---- ends without MPI_Finalize: fatal signals and exit() ----
 * Best effort, documented in doc/design.md: the handler waits (at most ~200 ms) for the
 * writer thread to finish what it holds and for the write lock; if the crash happened while
 * the log was being written, it gives up and the log reads as truncated. It then restores
 * the previous disposition and passes the signal on, so the process ends exactly as it
 * would have. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                                    SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU};
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction prev_action[NFATAL];
static int handler_installed[NFATAL];

/* The signal that ends the process is the first one: the process would have ended of it
 * without phasor, before any later one arrived. So while its handler writes the log, the
 * thread running it blocks every signal in fatal_signals (sa_mask), and a handler entered on
 * another thread meanwhile waits for the first to finish. crash_ending: 0 no signal being
 * handled, 1 phasor writing (a window that does not exist without phasor: later signals
 * wait), 2 passing the signal on (as without phasor: later signals go their way). */
static volatile sig_atomic_t crash_ending;
static volatile sig_atomic_t crash_owner; /* the thread (tid) handling the first signal */

static int ends_process(const struct sigaction *a)
{
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

static void unblock_one(int sig)
{
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
}

static void sleep_ms(long ms)
{
    struct timespec d = {ms / 1000, ms % 1000 * 1000000};
    nanosleep(&d, NULL);
}

/* The first fatal signal's log: every thread's records and an END frame naming it, once the
 * writer thread has drained (at most ~200 ms) and the write lock is free; kept locked after,
 * the process is about to end. */
static void write_crash_log(int sig)
{
    if (log_closed || !writer_ok)
        return;
    __atomic_store_n(&phasor_active, 0, __ATOMIC_RELEASE);
    for (int i = 0; i < 200; i++, sleep_ms(1))
        if (__atomic_load_n(&q_head, __ATOMIC_ACQUIRE) ==
                __atomic_load_n(&q_tail, __ATOMIC_ACQUIRE) &&
            pthread_mutex_trylock(&write_lock) == 0) {
            if (cfg.signal_delay_ms > 0)
                sleep_ms(cfg.signal_delay_ms);
            char ending[64];
            snprintf(ending, sizeof(ending), "signal SIG%s",
                     sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
            flush_all_slots_locked();
            write_tail(ending);
            return;
        }
}

/* The first signal, passed on as the kernel would have delivered it to prev, the
 * disposition before ours (restored). Returns only if the process carries on. */
static void pass_on(int sig, const struct sigaction *prev, siginfo_t *si, void *uctx)
{
    sigaction(sig, prev, NULL);
    if (ends_process(prev)) {
        /* Ends here, with the other fatal signals still blocked on this thread; still
         * here, the default did nothing (the init of a PID namespace, a debugger that
         * dropped it) and the process carries on, as without phasor. */
        raise(sig);
        unblock_one(sig);
        return;
    }
    if (!(prev->sa_flags & SA_SIGINFO) && prev->sa_handler == SIG_IGN)
        return;
    /* The handler before ours (the MPI library's backtrace printer, say) is called here
     * rather than after we return, so that it sees this signal's own siginfo, under the
     * mask the kernel would have set for it. */
    if (prev->sa_flags & SA_RESETHAND) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
    }
    sigset_t during, m = ((ucontext_t *)uctx)->uc_sigmask;
    sigorset(&m, &m, &prev->sa_mask);
    if (prev->sa_flags & SA_NODEFER)
        sigdelset(&m, sig);
    else
        sigaddset(&m, sig);
    pthread_sigmask(SIG_SETMASK, &m, &during);
    if (prev->sa_flags & SA_SIGINFO)
        prev->sa_sigaction(sig, si, uctx);
    else
        prev->sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &during, NULL);
    /* Most such handlers end by raising the signal again with its default action; it is
     * pending here, blocked, and ends the process now. */
    struct sigaction now;
    sigset_t pending;
    if (sigpending(&pending) == 0 && sigismember(&pending, sig) &&
        sigaction(sig, NULL, &now) == 0 && ends_process(&now))
        unblock_one(sig);
}

static void on_fatal_signal(int sig, siginfo_t *si, void *uctx)
{
    int saved_errno = errno;
    pid_t self = (pid_t)syscall(SYS_gettid);
    size_t idx = 0;
    while (idx < NFATAL && fatal_signals[idx] != sig)
        idx++;
    int installed = idx < NFATAL && handler_installed[idx];
    if (!__atomic_exchange_n(&in_crash, 1, __ATOMIC_ACQ_REL)) {
        crash_owner = self;
        __atomic_store_n(&crash_ending, 1, __ATOMIC_RELEASE);
        write_crash_log(sig);
        __atomic_store_n(&crash_ending, 2, __ATOMIC_RELEASE);
        errno = saved_errno; /* as the handler before ours would have found it */
        if (installed)
            pass_on(sig, &prev_action[idx], si, uctx);
        /* It carried on: so does the process, unrecorded (the log is closed), and a later
         * fatal signal is handled as a first one again. */
        __atomic_store_n(&crash_ending, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&in_crash, 0, __ATOMIC_RELEASE);
        errno = saved_errno;
        return;
    }
    /* A later signal. It waits only if it arrived while phasor wrote, never on the writing
     * thread itself (an abort() in the flush), and at most 5 s. */
    if (crash_owner != self && __atomic_load_n(&crash_ending, __ATOMIC_ACQUIRE) == 1)
        for (int i = 0; i < 5000 && __atomic_load_n(&crash_ending, __ATOMIC_ACQUIRE); i++)
            sleep_ms(1);
    if (installed)
        sigaction(sig, &prev_action[idx], NULL);
    errno = saved_errno;
    raise(sig);
}

/* Fault signals are always caught (and passed on); termination requests only when their
 * disposition is the default, since a handler of the application's may mean to carry on. */
static void install_signal_handlers(void)
{
    static char altstack[64 << 10]; /* so a stack overflow in the main thread still logs */
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0};
    stack_t old;
    if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE))
        sigaltstack(&ss, NULL);
    for (size_t i = 0; i < NFATAL; i++) {
        struct sigaction cur;
        if (sigaction(fatal_signals[i], NULL, &cur) != 0 || cur.sa_handler == SIG_IGN)
            continue;
        int fault = i < 5; /* the first five of fatal_signals */
        if (!fault && ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_fatal_signal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < NFATAL; j++)
            sigaddset(&sa.sa_mask, fatal_signals[j]);
        if (sigaction(fatal_signals[i], &sa, &prev_action[i]) == 0)
            handler_installed[i] = 1;
    }
}

static void at_exit_without_finalize(void)
{
    if (!phasor_active || log_closed)
        return;
    __atomic_store_n(&phasor_active, 0, __ATOMIC_RELEASE);
    stop_writer_thread();
    pthread_mutex_lock(&write_lock);
    if (!log_closed) {
        flush_all_slots_locked();
        write_tail("exit without MPI_Finalize");
    }
    pthread_mutex_unlock(&write_lock);
}

void phasor_record_pcontrol(uint64_t t0, uint64_t t1, int level)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Pcontrol, t0, t1, MPI_SUCCESS, 0);
    if (ev) {
        ev->tag = level;
        phasor_event_end(th, ev, 0);
    }
    phasor_leave(th);
}
