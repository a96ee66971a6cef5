/* phasor_rt.c: the per-thread record buffers behind phasor_rt.h (slots: phasor_core.h), and
 * the few records the runtime makes itself (Init, Finalize, Pcontrol).
 *
 * A slot is a thread's while it lives: when the thread exits, a key destructor hands its
 * buffer to the writer, waits until both are written and puts the slot on a free list, so
 * PHASOR_MAX_THREADS bounds the threads alive at once, not those started over the run. The
 * log's thread number is the slot's: its frames are the events of successive threads, each
 * one's written before the next one starts. */
#define _GNU_SOURCE
#include <assert.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "phasor_core.h"
#include "plog_extras.h"
#include "vec.h"

volatile int phasor_active;
volatile int phasor_cancel_seen;
PHASOR_TLS phasor_thread_t *phasor_tls;
/* A thread without a slot (over the budget, or exiting after its slot was released) */
static PHASOR_TLS phasor_thread_t tls_dead = {.dead = 1};
uint64_t phasor_dead_calls;

int phasor_world_rank, phasor_world_size;
MPI_Comm phasor_shim_comm = MPI_COMM_NULL;

slot_t phasor_slots[MAX_SLOTS];
/* Claims, releases and the ends' hand-off of every slot exclude each other (cold paths). */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static int nslots;                   /* set up so far (written under slot_lock, read atomic) */
static uint16_t free_slots[MAX_SLOTS]; /* released, for the next thread (under slot_lock) */
static int nfree;
static int slots_closed; /* the log is ending: buffers are the end's, no slot changes hands */
static pthread_key_t exit_key;       /* its destructor releases the slot of an exiting thread */
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int exit_key_ok;
_Static_assert(offsetof(slot_t, th) == 0, "phasor_thread_t pointers are slot pointers");
_Static_assert(MAX_SLOTS - 1 <= UINT16_MAX, "free_slots holds slot numbers");

int phasor_slots_used(void)
{
    return __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
}

uint64_t phasor_threads_started(void)
{
    int n = phasor_slots_used();
    uint64_t started = 0;
    for (int i = 0; i < n; i++)
        started += __atomic_load_n(&phasor_slots[i].uses, __ATOMIC_RELAXED);
    return started;
}

uint64_t phasor_dead_thread_calls(void)
{
    return __atomic_load_n(&phasor_dead_calls, __ATOMIC_RELAXED);
}

void phasor_totals(uint64_t *events, uint64_t *dropped, int *threads)
{
    int n = phasor_slots_used();
    *events = 0;
    for (int i = 0; i < n; i++)
        *events += phasor_slots[i].th.nevents;
    *dropped = phasor_writer_dropped() + phasor_dead_thread_calls();
    *threads = n;
}

void phasor_handoff(slot_t *s)
{
    phasor_thread_t *th = &s->th;
    assert(th->buf == s->bufs[s->cur] && th->pos >= th->buf && th->pos <= th->end);
    size_t len = (size_t)(th->pos - th->buf);
    uint32_t n = (uint32_t)(th->nevents - s->ev_mark);
    th->nflush++;
    if (len == 0)
        return;
    /* odd while buf/pos change: the watch thread leaves the slot alone (phasor_watch.c) */
    uint32_t g = th->swap_gen;
    __atomic_store_n(&th->swap_gen, g + 1, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    phasor_writer_take(s, len, n);
    th->buf = s->bufs[s->cur];
    __atomic_store_n(&th->pos, th->buf, __ATOMIC_RELAXED);
    th->end = th->buf + phasor_cfg.buffer;
    s->ev_mark = th->nevents;
    __atomic_store_n(&th->swap_gen, g + 2, __ATOMIC_RELEASE);
}

phasor_type_slot_t phasor_types[1u << PHASOR_TYPES_BITS];

void phasor_types_init(void)
{
    /* MPI-3.1's predefined datatypes (3.2.2, 4.1.6 and Fortran's named in C); a library
     * without Fortran may name those MPI_DATATYPE_NULL, which is skipped */
    const MPI_Datatype named[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT,
        MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_BOOL, MPI_INT8_T,
        MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
        MPI_UINT64_T, MPI_AINT, MPI_COUNT, MPI_OFFSET, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
        MPI_PACKED, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
        MPI_LONG_DOUBLE_INT, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX,
        MPI_DOUBLE_COMPLEX, MPI_LOGICAL, MPI_CHARACTER, MPI_2REAL, MPI_2DOUBLE_PRECISION,
        MPI_2INTEGER};
    for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
        MPI_Count sz = 0;
        if (named[i] == MPI_DATATYPE_NULL || PMPI_Type_size_x(named[i], &sz) != MPI_SUCCESS ||
            sz < 0)
            continue;
        const uint64_t k = phasor_type_key(named[i]);
        phasor_type_slot_t *s = &phasor_types[phasor_type_slot(k)];
        if (k != 0 && s->key == 0) {
            s->key = k;
            s->size = (uint64_t)sz;
        }
    }
}

int phasor_polls_each;
uint64_t phasor_poll_max_ticks = UINT64_MAX;

void phasor_poll_close(phasor_thread_t *th)
{
    const uint64_t n = th->poll_n;
    th->poll_n = 0; /* first: the reservation below must not close it again */
    if (n == 0)
        return;
    const size_t words = n > 1 ? PLOG_POLLS_WORDS : 0;
    plog_event_t *ev = phasor_event_reserve(th, th->poll_ev.call, 0, 0, 0, words, 0);
    if (ev == NULL)
        return;
    *ev = th->poll_ev;
    size_t nx = 0;
    if (words != 0) {
        if (phasor_extras_room(th, ev) >= PLOG_POLLS_WORDS) {
            uint64_t *x = phasor_extras(ev);
            x[0] = n;
            /* the timed polls' time scaled to all of them (every poll timed up to
             * PHASOR_POLL_TIMED) */
            x[1] = n == th->poll_timed
                       ? th->poll_inside
                       : (uint64_t)((double)th->poll_inside * (double)n / (double)th->poll_timed);
            ev->flags |= PLOG_F_POLLS;
            nx = PLOG_POLLS_WORDS;
        } else {
            ev->flags |= PLOG_F_TRUNCATED; /* a buffer too small for 88 bytes */
        }
    }
    phasor_event_end(th, ev, nx);
}

/* The open run of a thread that records no more (its buffer is written next by another
 * thread: the end, an abort, a crash): closed only where it fits without a handoff. */
static int poll_fits(const phasor_thread_t *th)
{
    return (size_t)(th->end - th->pos) >= sizeof(plog_event_t) + PLOG_POLLS_WORDS * sizeof(uint64_t);
}

plog_event_t *phasor_event_begin_slow(phasor_thread_t *th, size_t need)
{
    (void)need; /* a record larger than a whole buffer gets what room there is */
    phasor_handoff((slot_t *)th);
    return (size_t)(th->end - th->pos) >= sizeof(plog_event_t) ? (plog_event_t *)th->pos : NULL;
}

/* Called by the thread that exits (arg: its slot), after its last MPI call. */
static void release_slot(void *arg)
{
    slot_t *s = arg;
    phasor_thread_t *th = &s->th;
    /* a later MPI call of this thread (another destructor's) must not record into a slot
     * that another thread may own by then: it is counted, as a call without a slot */
    phasor_tls = &tls_dead;
    pthread_mutex_lock(&slot_lock);
    /* once recording stopped the buffers are the end's to write (phasor_slots_close,
     * the endings): the slot stays as it is */
    if (!slots_closed && __atomic_load_n(&phasor_active, __ATOMIC_ACQUIRE)) {
        phasor_poll_close(th);
        phasor_handoff(s);
        /* written before the next occupant's: the frames of one slot stay in time order */
        phasor_writer_wait_slot(s);
        /* a thread that left from inside a call (pthread_exit in a callback) */
        __atomic_store_n(&th->pend_call, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&th->depth, 0, __ATOMIC_RELAXED);
        free_slots[nfree++] = th->slot;
    }
    pthread_mutex_unlock(&slot_lock);
}

static void make_exit_key(void)
{
    exit_key_ok = pthread_key_create(&exit_key, release_slot) == 0;
}

/* A fresh slot's buffers (caller holds slot_lock). 0 without memory. */
static int set_up_slot(slot_t *s, int idx)
{
    s->bufs[0] = malloc(phasor_cfg.buffer);
    s->bufs[1] = malloc(phasor_cfg.buffer);
    if (!s->bufs[0] || !s->bufs[1]) {
        free(s->bufs[0]);
        free(s->bufs[1]);
        s->bufs[0] = s->bufs[1] = NULL;
        return 0;
    }
    s->th.slot = (uint16_t)idx;
    s->th.buf = s->th.pos = s->bufs[0];
    s->th.end = s->th.buf + phasor_cfg.buffer;
    s->th.cs_cache = phasor_callsite_cache_new(); /* NULL: this thread's sites are 0 */
    return 1;
}

/* A released slot keeps its buffers, call-site cache, scratch arrays and counters (totals
 * stay exact); only who owns it changes. */
static phasor_thread_t *claim_slot(void)
{
    pthread_once(&exit_key_once, make_exit_key);
    int budget = phasor_cfg.max_threads < MAX_SLOTS ? phasor_cfg.max_threads : MAX_SLOTS;
    slot_t *s = NULL;
    pthread_mutex_lock(&slot_lock);
    if (slots_closed) {
        /* the log is ending: no new thread records */
    } else if (nfree > 0) {
        s = &phasor_slots[free_slots[--nfree]];
    } else if (nslots < budget && set_up_slot(&phasor_slots[nslots], nslots)) {
        s = &phasor_slots[nslots];
        __atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&nslots, nslots + 1, __ATOMIC_RELEASE);
    }
    if (s) {
        s->tid = (pid_t)syscall(SYS_gettid);
        /* release: the watch thread sees a new occupant and forgets the last one's call */
        __atomic_store_n(&s->uses, s->uses + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&slot_lock);
    /* without the key (or its memory) the slot is this thread's until the end, as it was
     * before slots were reused */
    if (s && exit_key_ok)
        (void)pthread_setspecific(exit_key, s);
    return s ? &s->th : NULL;
}

phasor_thread_t *phasor_thread_attach(void)
{
    phasor_thread_t *th = claim_slot();
    if (th == NULL) {
        /* Over the thread budget (or out of memory): this thread's calls are counted (here
         * and in phasor_enter), and the log says how many were not recorded. */
        __atomic_fetch_add(&phasor_dead_calls, 1, __ATOMIC_RELAXED);
        phasor_tls = &tls_dead;
        return NULL;
    }
    phasor_tls = th;
    return th;
}

void phasor_slots_close(int handoff)
{
    pthread_mutex_lock(&slot_lock);
    slots_closed = 1;
    int n = handoff ? phasor_slots_used() : 0;
    for (int i = 0; i < n; i++)
        if (phasor_slots[i].th.buf) {
            phasor_poll_close(&phasor_slots[i].th);
            phasor_handoff(&phasor_slots[i]);
        }
    pthread_mutex_unlock(&slot_lock);
}

int phasor_scratch_reserve(phasor_thread_t *th, size_t n)
{
    if (n <= th->scratch_cap)
        return 1;
    /* the two arrays share one capacity: grow each to the same size, then note it */
    size_t cap_r = th->scratch_cap, cap_s = th->scratch_cap;
    if (VEC_GROW(th->req_scratch, cap_r, n) != 0 || VEC_GROW(th->st_scratch, cap_s, n) != 0)
        return 0;
    th->scratch_cap = cap_r < cap_s ? cap_r : cap_s;
    return 1;
}

/* Writes what slot s holds and empties its buffer. Caller holds the write lock. */
static void write_slot_now_locked(slot_t *s)
{
    phasor_write_slot_locked(s, s->th.buf == s->bufs[1], (size_t)(s->th.pos - s->th.buf),
                             (uint32_t)(s->th.nevents - s->ev_mark));
    s->th.pos = s->th.buf;
    s->ev_mark = s->th.nevents;
}

void phasor_flush_all_slots_locked(void)
{
    int n = phasor_slots_used();
    for (int i = 0; i < n; i++) {
        slot_t *s = &phasor_slots[i];
        if (!s->th.buf)
            continue;
        if (s->th.poll_n != 0) {
            if (!poll_fits(&s->th))
                write_slot_now_locked(s);
            phasor_poll_close(&s->th); /* fits: no handoff under the write lock */
        }
        write_slot_now_locked(s);
    }
}

void phasor_record_raw(unsigned call, uint64_t t0, uint64_t t1, int rc, int32_t tag)
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
