/* phasor_watch.c: the watch thread. A job that hangs is the commonest reason to want a trace,
 * and its launcher kills it: SIGTERM, then SIGKILL a moment later, often before a rank whose
 * core is busy gets to write its buffers. So what a rank recorded must already be on disk.
 *
 * Every PHASOR_FLUSH/2 this thread, holding the write lock:
 *  - writes the records of any thread's buffer that have waited longer than PHASOR_FLUSH
 *    (the prefix up to the thread's committed `pos`), and remembers how far it wrote
 *    (slot_t.fl_len/fl_n) so that whoever writes that buffer next writes only the rest;
 *  - notes, in a META frame, each thread that has stayed inside one MPI call for longer than
 *    PHASOR_FLUSH ("blocked"), and when such a call returns after all ("unblocked").
 *
 * The owning thread keeps its hot path: it publishes `pos` with a release store after each
 * record (a plain store on x86), the call it enters with plain stores (phasor_pending), and
 * bumps `swap_gen` around the buffer swap of phasor_handoff (slow path). Why reading a buffer
 * the owner may be appending to is safe:
 *  - bytes before a `pos` read with acquire are complete records and do not change until the
 *    buffer is written and handed back;
 *  - a buffer is only recycled after it was written, under the write lock this thread holds
 *    (inline writes take the lock; the writer thread takes it too);
 *  - buf and pos are read only between two equal even `swap_gen` values, so a swap in
 *    progress is never seen half done.
 * The call a thread is in is read racily and trusted only when the thread's record count was
 * the same before and after, and the same call was seen at the previous tick. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "phasor_core.h"

static pthread_t watch_thread;
static int watch_running;
static pthread_mutex_t w_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t w_cond;
static int w_stop;

static uint64_t raw_to_ns(const phasor_clock_map_t *m, uint64_t raw)
{
    if (!phasor_clock_use_tsc)
        return raw;
    return m->ns0 + (uint64_t)(int64_t)((double)(int64_t)(raw - m->raw0) * m->ns_per_tick);
}

/* Write what of slot s has waited longer than the bound. Caller holds the write lock. */
static void flush_stale(slot_t *s, const phasor_clock_map_t *m, uint64_t now_ns)
{
    phasor_thread_t *th = &s->th;
    uint32_t g1 = __atomic_load_n(&th->swap_gen, __ATOMIC_ACQUIRE);
    if (g1 & 1)
        return;
    uint8_t *buf = __atomic_load_n(&th->buf, __ATOMIC_RELAXED);
    uint8_t *pos = __atomic_load_n(&th->pos, __ATOMIC_ACQUIRE);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&th->swap_gen, __ATOMIC_RELAXED) != g1)
        return;
    int which = buf == s->bufs[1];
    if (buf != s->bufs[which] || pos < buf || pos > buf + phasor_cfg.buffer)
        return;
    uint8_t *from = buf + s->fl_len[which];
    if (pos <= from)
        return;
    const plog_event_t *first = (const plog_event_t *)from;
    if (now_ns - raw_to_ns(m, first->t_start) < phasor_cfg.flush_ns &&
        (int64_t)(now_ns - raw_to_ns(m, first->t_start)) >= 0)
        return;
    uint32_t n = 0;
    for (const uint8_t *p = from; p < pos; n++)
        p += sizeof(plog_event_t) + ((const plog_event_t *)p)->nextra * sizeof(uint64_t);
    phasor_write_events_locked(th->slot, from, (size_t)(pos - from), n);
    s->fl_len[which] = (size_t)(pos - buf);
    s->fl_n[which] += n;
}

/* "THREAD CALL SINCE_NS SEEN_NS COMM PEER TAG REQUEST" (doc/log-format.md, META keys) */
static void note_blocked(kvbuf_t *kv, const slot_t *s, unsigned call, uint64_t since_ns,
                         uint64_t seen_ns, MPI_Comm comm, int peer, int tag, MPI_Request req)
{
    uint32_t cid = comm == MPI_COMM_NULL ? PLOG_COMM_NONE : phasor_comm_id(comm);
    phasor_kv_addf(kv, "blocked", "%u %u %llu %llu %u %d %d %llu", (unsigned)s->th.slot, call,
                   (unsigned long long)since_ns, (unsigned long long)seen_ns, cid,
                   peer == MPI_PROC_NULL ? PLOG_PROC_NULL : phasor_rank_arg(peer),
                   tag == MPI_ANY_TAG ? PLOG_ANY_TAG : tag,
                   (unsigned long long)phasor_handle_value(req));
}

/* A consistent view of the call thread s is in: 0 if it is in none or changed meanwhile. */
static int pending_of(const slot_t *s, unsigned *call, uint64_t *t0, MPI_Comm *comm, int *peer,
                      int *tag, MPI_Request *req, uint64_t *nev)
{
    const phasor_thread_t *th = &s->th;
    uint64_t n1 = __atomic_load_n(&th->nevents, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&th->depth, __ATOMIC_RELAXED) == 0)
        return 0;
    *call = __atomic_load_n(&th->pend_call, __ATOMIC_RELAXED);
    *t0 = __atomic_load_n(&th->pend_t0, __ATOMIC_RELAXED);
    *comm = th->pend_comm;
    *req = th->pend_req;
    *peer = __atomic_load_n(&th->pend_peer, __ATOMIC_RELAXED);
    *tag = __atomic_load_n(&th->pend_tag, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&th->depth, __ATOMIC_RELAXED) == 0 ||
        __atomic_load_n(&th->nevents, __ATOMIC_RELAXED) != n1)
        return 0;
    *nev = n1;
    return *call != 0;
}

/* The noted call returned after all: a long call, not a hang. */
static void note_returned(kvbuf_t *kv, slot_t *s, int in, uint64_t t0)
{
    if (s->w_noted_t0 && (!in || t0 != s->w_noted_t0)) {
        phasor_kv_addf(kv, "unblocked", "%u %llu", (unsigned)s->th.slot,
                       (unsigned long long)s->w_noted_ns);
        s->w_noted_t0 = 0;
    }
}

/* Another thread owns the slot since the last look (phasor_rt.c): the last one's call
 * returned before it exited, and what was seen of it says nothing about the new one. */
static void note_new_owner(kvbuf_t *kv, slot_t *s)
{
    uint32_t uses = __atomic_load_n(&s->uses, __ATOMIC_ACQUIRE);
    if (uses == s->w_uses)
        return;
    note_returned(kv, s, 0, 0);
    s->w_in = 0;
    s->w_t0 = s->w_nev = 0;
    s->w_uses = uses;
}

static void tick(void)
{
    phasor_clock_map_t m;
    phasor_clock_map_now(&m);
    uint64_t now_raw = phasor_now(), now_ns = raw_to_ns(&m, now_raw);
    static char note[64 << 10]; /* this thread's only: ~60 bytes per blocked thread */
    kvbuf_t kv = {note, 0, sizeof(note), 1};
    pthread_mutex_lock(&phasor_write_lock);
    if (!phasor_writer_ok() || phasor_log_closed) {
        pthread_mutex_unlock(&phasor_write_lock);
        return;
    }
    int n = phasor_slots_used();
    for (int i = 0; i < n; i++) {
        slot_t *s = &phasor_slots[i];
        if (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
            continue;
        note_new_owner(&kv, s);
        flush_stale(s, &m, now_ns);
        unsigned call;
        uint64_t t0, nev;
        MPI_Comm comm;
        MPI_Request req;
        int peer, tag;
        int in = pending_of(s, &call, &t0, &comm, &peer, &tag, &req, &nev);
        note_returned(&kv, s, in, t0);
        int stable = in && s->w_in && s->w_t0 == t0 && s->w_nev == nev;
        if (stable && t0 != s->w_noted_t0 && now_ns - raw_to_ns(&m, t0) >= phasor_cfg.flush_ns &&
            (int64_t)(now_ns - raw_to_ns(&m, t0)) >= 0) {
            s->w_noted_ns = raw_to_ns(&m, t0);
            note_blocked(&kv, s, call, s->w_noted_ns, now_ns, comm, peer, tag, req);
            s->w_noted_t0 = t0;
        }
        s->w_in = in;
        s->w_t0 = in ? t0 : 0;
        s->w_nev = in ? nev : 0;
    }
    if (kv.len > 0) {
        phasor_flush_defs_locked(); /* the communicators the notes name */
        phasor_write_frame_locked(PLOG_FRAME_META, 0, 0, kv.p, kv.len);
    }
    pthread_mutex_unlock(&phasor_write_lock);
}

void phasor_watch_note_all(kvbuf_t *kv, int pending)
{
    phasor_clock_map_t m;
    phasor_clock_map_now(&m);
    uint64_t now_ns = raw_to_ns(&m, phasor_now());
    int n = phasor_slots_used();
    for (int i = 0; i < n; i++) {
        slot_t *s = &phasor_slots[i];
        unsigned call;
        uint64_t t0, nev;
        MPI_Comm comm;
        MPI_Request req;
        int peer, tag;
        if (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
            continue;
        note_new_owner(kv, s);
        int in = pending_of(s, &call, &t0, &comm, &peer, &tag, &req, &nev);
        /* a noted call that returned since the watch thread's last look (it may have stopped) */
        note_returned(kv, s, in, t0);
        if (in && pending)
            /* the same start as a note already written, so the reader sees one call */
            note_blocked(kv, s, call, t0 == s->w_noted_t0 ? s->w_noted_ns : raw_to_ns(&m, t0),
                         now_ns, comm, peer, tag, req);
    }
}

static void *watch_main(void *arg)
{
    (void)arg;
    uint64_t period = phasor_cfg.flush_ns / 2;
    pthread_mutex_lock(&w_lock);
    while (!w_stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + period;
        ts.tv_sec = (time_t)(t / 1000000000ull);
        ts.tv_nsec = (long)(t % 1000000000ull);
        int rc = 0;
        while (!w_stop && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&w_cond, &w_lock, &ts);
        if (w_stop)
            break;
        pthread_mutex_unlock(&w_lock);
        tick();
        pthread_mutex_lock(&w_lock);
    }
    pthread_mutex_unlock(&w_lock);
    return NULL;
}

void phasor_watch_start(void)
{
    if (phasor_cfg.flush_ns == 0 || watch_running)
        return;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w_cond, &ca);
    pthread_condattr_destroy(&ca);
    w_stop = 0;
    if (phasor_thread_start(&watch_thread, watch_main, "phasor-watch") == 0)
        watch_running = 1;
}

void phasor_watch_stop(void)
{
    if (!watch_running)
        return;
    pthread_mutex_lock(&w_lock);
    w_stop = 1;
    pthread_cond_signal(&w_cond);
    pthread_mutex_unlock(&w_lock);
    pthread_join(watch_thread, NULL);
    watch_running = 0;
}
