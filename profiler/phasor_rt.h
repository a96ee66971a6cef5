/* phasor_rt.h: what the MPI wrappers (pmpi/) call into; everything here is hot-path safe.
 *
 * A wrapper does:
 *     phasor_thread_t *th = phasor_enter();
 *     if (!th) return PMPI_X(...);                       // not recording, or re-entered
 *     uint64_t t0 = phasor_now();
 *     int rc = PMPI_X(...);
 *     uint64_t t1 = phasor_now();
 *     plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_X, t0, t1, rc, max_extras);
 *     if (ev) { ...fill fields, append extras...; phasor_event_end(th, ev, extras_used); }
 *     phasor_leave(th);
 *     return rc;
 * No locks, no malloc, no syscalls on this path: records go into the thread's own buffer;
 * a full buffer is encoded, compressed and written by the thread that filled it.
 * Rule for field helpers: when rc != MPI_SUCCESS, ask MPI nothing more about the arguments
 * (a bad handle could make the library call its error handler where the app's call did not). */
#ifndef PHASOR_RT_H
#define PHASOR_RT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "phasor_clock.h"
#include "plog_calls.h"
#include "plog_format.h"
#include "plog_sites.h"

/* Everything declared below is the shim's own: hidden, so that its users reach it
 * directly, not through the PLT or the GOT (the entry points: pmpi/wrappers.h). */
#pragma GCC visibility push(hidden)

typedef struct phasor_thread {
    uint8_t *buf;         /* record buffer (PHASOR_BUFFER bytes) */
    uint8_t *pos;         /* next free byte */
    uint8_t *end;
    int depth;            /* re-entrancy: > 0 while inside a wrapper */
    uint16_t slot;        /* thread number in the log (0 = first thread to call MPI) */
    uint8_t dead;         /* no slot: count, don't record */
    /* The open run of unsuccessful polls (phasor_poll_*): kept here, not in the buffer, whose
     * records up to pos the watch thread may write at any time. poll_n = 0: none. */
    uint64_t poll_n;
    uint64_t poll_key0, poll_key1; /* the polls' arguments */
    uint64_t poll_timed;           /* polls of the run that were timed */
    uint64_t poll_inside;          /* raw clock ticks inside those */
    plog_event_t poll_ev;          /* the run's event: first start, last end */
    /* Per slot, over every thread that used it (a slot is reused once its thread exits) */
    uint64_t nevents;     /* events recorded */
    uint64_t dropped;     /* events lost (buffer could not be written) */
    uint64_t nflush;
    uint64_t *cs_cache;   /* call-site cache (phasor_callsite.c), NULL when sites are off */
    /* scratch for calls that need to see request handles after MPI overwrote them */
    MPI_Request *req_scratch;
    MPI_Status *st_scratch;
    size_t scratch_cap;
    /* The call this thread is in (phasor_pending), for the watch thread (phasor_watch.c) to
     * name a rank blocked in MPI. Plain stores at entry; read racily, validated by nevents. */
    uint64_t pend_t0;
    MPI_Comm pend_comm;
    MPI_Request pend_req;
    int32_t pend_peer, pend_tag;
    uint16_t pend_call;
    /* Odd while phasor_handoff swaps buf/pos (slow path only): the watch thread reads
     * buf/pos only between two equal even values. */
    uint32_t swap_gen;
} phasor_thread_t;

/* Global state read on the hot path. phasor_active is 1 between a successful MPI_Init(_thread)
 * and the start of MPI_Finalize, when the log file could be opened. */
extern volatile int phasor_active;
/* initial-exec: a plain %fs-relative load instead of a __tls_get_addr call per MPI call.
 * Safe for a preloaded library (loaded at start-up, static TLS) and small enough to fit
 * glibc's surplus static TLS if the shim is ever dlopen()ed. */
#define PHASOR_TLS _Thread_local __attribute__((tls_model("initial-exec")))
extern PHASOR_TLS phasor_thread_t *phasor_tls;

phasor_thread_t *phasor_thread_attach(void); /* first call of a thread: claim a slot */
/* Calls of threads without a slot (started while PHASOR_MAX_THREADS threads recorded, or
 * calling while they exit, after their slot was released): atomic. */
extern uint64_t phasor_dead_calls;

static inline phasor_thread_t *phasor_enter(void)
{
    if (__builtin_expect(!phasor_active, 0))
        return NULL;
    phasor_thread_t *th = phasor_tls;
    if (__builtin_expect(th == NULL, 0)) {
        th = phasor_thread_attach();
        if (th == NULL)
            return NULL;
    }
    int d = th->depth;
    if (__builtin_expect(d != 0 || th->dead, 0)) {
        /* every call of a thread without a slot is counted: the log says how many it lacks */
        if (th->dead)
            __atomic_fetch_add(&phasor_dead_calls, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    /* relaxed: plain stores, seen by the watch thread (phasor_watch.c); a wrapper that does
     * not say which call it makes (phasor_pending) is never named as blocked */
    __atomic_store_n(&th->pend_call, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&th->depth, 1, __ATOMIC_RELAXED);
    return th;
}

static inline void phasor_leave(phasor_thread_t *th)
{
    __atomic_store_n(&th->depth, th->depth - 1, __ATOMIC_RELAXED);
}

/* The call a wrapper is about to make, published for the watch thread (phasor_watch.c):
 * plain stores into the thread's own hot cache line, no fence. Only the outermost wrapper
 * (phasor_enter returned th) publishes. */
static inline void phasor_pending(phasor_thread_t *th, unsigned call, uint64_t t0, MPI_Comm comm,
                                  int peer, int tag, MPI_Request req)
{
    __atomic_store_n(&th->pend_call, (uint16_t)call, __ATOMIC_RELAXED);
    __atomic_store_n(&th->pend_t0, t0, __ATOMIC_RELAXED);
    th->pend_comm = comm;
    th->pend_req = req;
    __atomic_store_n(&th->pend_peer, peer, __ATOMIC_RELAXED);
    __atomic_store_n(&th->pend_tag, tag, __ATOMIC_RELAXED);
}

/* PHASOR_STEPS=measure is on (phasor_measure.c): the `measure` wrappers perform blocking
 * collectives through pw_measure_* (pmpi/wrappers_measure.c). */
extern int phasor_steps_mode;

/* PHASOR_PROBE=...,every=N (phasor_probe_sched.c): N, set inside MPI_Init when every rank
 * asked for it, 0 otherwise and from MPI_Finalize on. Every blocking collective wrapper ends
 * with PHASOR_PROBE_AFTER(comm, rc), after phasor_leave and also when it did not record:
 * with periodic probes off that is one load and compare (the arguments are not evaluated);
 * on, phasor_probe_tick counts the calls on MPI_COMM_WORLD and probes at every N-th. */
extern uint32_t phasor_probe_every;
void phasor_probe_tick(MPI_Comm comm, int rc);
#define PHASOR_PROBE_AFTER(comm, rc)                                                 \
    do {                                                                             \
        if (__builtin_expect(__atomic_load_n(&phasor_probe_every, __ATOMIC_RELAXED), 0)) \
            phasor_probe_tick((comm), (rc));                                         \
    } while (0)

/* Call sites (phasor_callsite.c). phasor_cs_depth: application frames per site, 0 = off. */
extern int phasor_cs_depth;
extern int (*phasor_unw_backtrace)(void **, int);
uint32_t phasor_callsite_lookup(phasor_thread_t *th, void *const *pcs, int n);

/* Inlined into each wrapper so that the first frame captured is the wrapper itself (skipped
 * with any other libphasor frame) and the rest are the application's. */
static inline __attribute__((always_inline)) uint32_t phasor_callsite(phasor_thread_t *th)
{
    void *pcs[PLOG_SITE_MAX_FRAMES + 1];
    int n = phasor_unw_backtrace(pcs, phasor_cs_depth + 1);
    return phasor_callsite_lookup(th, pcs, n);
}

/* Slow path of phasor_event_begin: flush and retry, or cap the extras. */
plog_event_t *phasor_event_begin_slow(phasor_thread_t *th, size_t need);

/* Runs of unsuccessful polls (PLOG_F_POLLS). A poll that found nothing (flag false, no
 * index, rc MPI_SUCCESS) on the same arguments (key0, key1) as the thread's open run, with
 * nothing recorded in between, only counts: no call site, no record. Two timestamps cost
 * more than the ~10 ns a poll may add (~10 ns each here), so only the first
 * PHASOR_POLL_TIMED polls of a run and every PHASOR_POLL_EVERY-th after are timed: the others
 * take no timestamp at all ("quiet"), the run's end is its last timed poll's and its time
 * inside is the timed polls' scaled to the count. A quiet poll that finds something is
 * recorded with its end as its start.
 * The run becomes one event when anything else is recorded on the thread (phasor_event_reserve),
 * when it has lasted phasor_poll_max_ticks (the watch thread's bound: a rank spinning in a
 * poll loop that hangs still shows it), and at Finalize, Abort, thread exit and the endings.
 * PHASOR_POLLS=each (phasor_polls_each) keeps one event per poll. */
extern int phasor_polls_each;
extern uint64_t phasor_poll_max_ticks;
/* Writes the open run into the buffer (the owning thread; may hand the buffer off). */
void phasor_poll_close(phasor_thread_t *th);
#define PHASOR_POLL_TIMED 16u
#define PHASOR_POLL_EVERY 16u /* a power of two */

/* Whether the next poll (call, key0, key1) would be a quiet one of the open run. */
static inline int phasor_poll_quiet(const phasor_thread_t *th, unsigned call, uint64_t key0,
                                    uint64_t key1)
{
    return th->poll_n >= PHASOR_POLL_TIMED && ((th->poll_n + 1) & (PHASOR_POLL_EVERY - 1)) != 0 &&
           th->poll_ev.call == call && th->poll_key0 == key0 && th->poll_key1 == key1;
}

/* The common fields of an event; the rest zero / PLOG_NONE. */
static inline void phasor_event_init(plog_event_t *ev, unsigned call, uint64_t t0, uint64_t t1,
                                     int rc, uint32_t callsite)
{
    ev->t_start = t0;
    ev->t_end = t1;
    ev->bytes = 0;
    ev->rbytes = 0;
    ev->request = 0;
    ev->comm = PLOG_COMM_NONE;
    ev->peer = PLOG_NONE;
    ev->tag = PLOG_NONE;
    ev->root = PLOG_NONE;
    ev->callsite = callsite;
    ev->rc = rc;
    ev->call = (uint16_t)call;
    ev->flags = 0;
    ev->nextra = 0;
}

/* Reserve a record with room for max_extras extra words and fill the common fields;
 * the rest are zero / PLOG_NONE. Returns NULL only if nothing can be recorded any more. */
/* phasor_event_begin with a call site the caller already has (records phasor makes itself
 * inside one MPI call: the steps of a measured collective carry the collective's site). */
static inline __attribute__((always_inline)) plog_event_t *
phasor_event_reserve(phasor_thread_t *th, unsigned call, uint64_t t0, uint64_t t1, int rc,
                     size_t max_extras, uint32_t callsite)
{
    /* anything else the thread records ends its run of polls, which goes first */
    if (__builtin_expect(th->poll_n != 0, 0))
        phasor_poll_close(th);
    size_t need = sizeof(plog_event_t) + max_extras * sizeof(uint64_t);
    plog_event_t *ev;
    if (__builtin_expect((size_t)(th->end - th->pos) >= need, 1))
        ev = (plog_event_t *)th->pos;
    else if ((ev = phasor_event_begin_slow(th, need)) == NULL)
        return NULL;
    phasor_event_init(ev, call, t0, t1, rc, callsite);
    return ev;
}

/* A timed unsuccessful poll that continues the open run: 1 if it did (counted), else 0. */
static inline __attribute__((always_inline)) int
phasor_poll_more(phasor_thread_t *th, unsigned call, uint64_t t0, uint64_t t1, uint64_t key0,
                 uint64_t key1)
{
    if (th->poll_n == 0 || th->poll_ev.call != call || th->poll_key0 != key0 ||
        th->poll_key1 != key1)
        return 0;
    th->poll_n++;
    th->poll_timed++;
    th->poll_inside += t1 - t0;
    th->poll_ev.t_end = t1;
    if (__builtin_expect(t1 - th->poll_ev.t_start > phasor_poll_max_ticks, 0))
        phasor_poll_close(th);
    return 1;
}

/* Always inlined: the call-site capture then starts in the wrapper's own frame, the case it
 * is sized for (phasor_callsite_lookup captures again when it started deeper). */
static inline __attribute__((always_inline)) plog_event_t *
phasor_event_begin(phasor_thread_t *th, unsigned call, uint64_t t0, uint64_t t1, int rc,
                   size_t max_extras)
{
    uint32_t site = __builtin_expect(phasor_cs_depth != 0, 1) ? phasor_callsite(th) : 0;
    return phasor_event_reserve(th, call, t0, t1, rc, max_extras, site);
}

/* An unsuccessful poll that opens a run (after phasor_poll_more said no; with PHASOR_POLLS=each
 * it records the poll at once): the event to fill like phasor_event_begin's, then
 * phasor_poll_opened. Inlined for the call site, as phasor_event_begin. */
static inline __attribute__((always_inline)) plog_event_t *
phasor_poll_open(phasor_thread_t *th, unsigned call, uint64_t t0, uint64_t t1)
{
    if (__builtin_expect(phasor_polls_each, 0))
        return phasor_event_begin(th, call, t0, t1, 0, 0);
    if (th->poll_n != 0)
        phasor_poll_close(th);
    plog_event_t *ev = &th->poll_ev;
    phasor_event_init(ev, call, t0, t1, MPI_SUCCESS,
                      __builtin_expect(phasor_cs_depth != 0, 1) ? phasor_callsite(th) : 0);
    return ev;
}


/* Words of extras that fit after ev (may be fewer than asked when the buffer is small). */
static inline size_t phasor_extras_room(const phasor_thread_t *th, const plog_event_t *ev)
{
    return (size_t)(th->end - (const uint8_t *)(ev + 1)) / sizeof(uint64_t);
}

static inline uint64_t *phasor_extras(plog_event_t *ev) { return (uint64_t *)(ev + 1); }

static inline void phasor_event_end(phasor_thread_t *th, plog_event_t *ev, size_t nextra)
{
    ev->nextra = (uint32_t)nextra;
    /* release: the watch thread may write records up to pos while this thread is inside
     * MPI (a plain store on x86; it only keeps the compiler from sinking the record's
     * stores below it) */
    __atomic_store_n(&th->pos, (uint8_t *)(phasor_extras(ev) + nextra), __ATOMIC_RELEASE);
    __atomic_store_n(&th->nevents, th->nevents + 1, __ATOMIC_RELEASE);
}

/* Completes what phasor_poll_open returned: the run is open with one poll (or, each, the
 * event is recorded). */
static inline void phasor_poll_opened(phasor_thread_t *th, plog_event_t *ev, uint64_t key0,
                                      uint64_t key1)
{
    if (ev != &th->poll_ev) {
        if (ev != NULL)
            phasor_event_end(th, ev, 0);
        return;
    }
    th->poll_key0 = key0;
    th->poll_key1 = key1;
    th->poll_inside = ev->t_end - ev->t_start;
    th->poll_timed = 1;
    th->poll_n = 1;
}

/* ---- argument translation (no MPI calls unless stated) ---- */

/* A handle's bits as a number (a pointer in Open MPI, an int in MPICH): table keys, the
 * arguments a run of polls compares, request and message handles as recorded. */
#define PHASOR_BITS(h) phasor_bits_of(&(h), sizeof(h))
static inline uint64_t phasor_bits_of(const void *h, size_t n)
{
    uint64_t k = 0;
    memcpy(&k, h, n < sizeof(k) ? n : sizeof(k));
    return k;
}

static inline int32_t phasor_rank_arg(int r)
{
    if (r == MPI_ANY_SOURCE)
        return PLOG_ANY_SOURCE;
    if (r == MPI_PROC_NULL)
        return PLOG_PROC_NULL;
    return r;
}

static inline int32_t phasor_root_arg(int r)
{
    if (r == MPI_ROOT)
        return PLOG_ROOT_ROOT;
    if (r == MPI_PROC_NULL)
        return PLOG_PROC_NULL;
    return r;
}

static inline int32_t phasor_tag_arg(int t) { return t == MPI_ANY_TAG ? PLOG_ANY_TAG : t; }

/* The predefined datatypes' sizes, filled before recording starts (phasor_types_init): a
 * predefined type is never freed, so an entry never goes stale, and a Send or Recv of one
 * asks the library nothing after it returns (~5 ns a call). One probe; a type that lost its
 * slot to another, and every derived type, asks MPI. */
#define PHASOR_TYPES_BITS 8
typedef struct phasor_type_slot {
    uint64_t key; /* the handle's bits, 0: empty */
    uint64_t size;
} phasor_type_slot_t;
extern phasor_type_slot_t phasor_types[1u << PHASOR_TYPES_BITS];
void phasor_types_init(void);

static inline uint64_t phasor_type_key(MPI_Datatype dt) { return PHASOR_BITS(dt); }

static inline unsigned phasor_type_slot(uint64_t key)
{
    return (unsigned)((key * 0x9E3779B97F4A7C15ull) >> (64 - PHASOR_TYPES_BITS));
}

/* Size of one element in bytes, 0 if unknown. MPI_Count: PMPI_Type_size says MPI_UNDEFINED
 * for elements past INT_MAX bytes, which would record such transfers as empty. */
static inline uint64_t phasor_type_size(MPI_Datatype dt)
{
    const uint64_t k = phasor_type_key(dt);
    const phasor_type_slot_t *s = &phasor_types[phasor_type_slot(k)];
    if (s->key == k && k != 0)
        return s->size;
    MPI_Count sz = 0;
    if (dt == MPI_DATATYPE_NULL || PMPI_Type_size_x(dt, &sz) != MPI_SUCCESS || sz < 0)
        return 0;
    return (uint64_t)sz;
}

/* count x size of datatype; calls PMPI_Type_size_x, so only after a successful call. */
static inline uint64_t phasor_bytes(int count, MPI_Datatype dt)
{
    if (count <= 0)
        return 0;
    return (uint64_t)count * phasor_type_size(dt);
}

static inline uint64_t phasor_req_handle(const MPI_Request *r)
{
    uint64_t h = 0;
    if (r != NULL && *r != MPI_REQUEST_NULL)
        memcpy(&h, r, sizeof(*r) < sizeof(h) ? sizeof(*r) : sizeof(h));
    return h;
}

static inline uint64_t phasor_handle_value(MPI_Request r)
{
    return r != MPI_REQUEST_NULL ? PHASOR_BITS(r) : 0;
}

/* COLLINFO's op word (PLOG_OP_* | PLOG_OP_COMMUTATIVE). Predefined ops are commutative;
 * a user op is asked (only after a successful call: the handle is valid then). */
static inline uint64_t phasor_op_word(MPI_Op op)
{
    unsigned code = PLOG_OP_USER;
    if (op == MPI_OP_NULL) return PLOG_OP_NONE;
    else if (op == MPI_MAX) code = PLOG_OP_MAX;
    else if (op == MPI_MIN) code = PLOG_OP_MIN;
    else if (op == MPI_SUM) code = PLOG_OP_SUM;
    else if (op == MPI_PROD) code = PLOG_OP_PROD;
    else if (op == MPI_LAND) code = PLOG_OP_LAND;
    else if (op == MPI_BAND) code = PLOG_OP_BAND;
    else if (op == MPI_LOR) code = PLOG_OP_LOR;
    else if (op == MPI_BOR) code = PLOG_OP_BOR;
    else if (op == MPI_LXOR) code = PLOG_OP_LXOR;
    else if (op == MPI_BXOR) code = PLOG_OP_BXOR;
    else if (op == MPI_MAXLOC) code = PLOG_OP_MAXLOC;
    else if (op == MPI_MINLOC) code = PLOG_OP_MINLOC;
    else if (op == MPI_REPLACE) code = PLOG_OP_REPLACE;
    else if (op == MPI_NO_OP) code = PLOG_OP_NO_OP;
    int commute = 1;
    if (code == PLOG_OP_USER && PMPI_Op_commutative(op, &commute) != MPI_SUCCESS)
        commute = 0;
    return code | (commute ? PLOG_OP_COMMUTATIVE : 0);
}

/* ---- communicators ---- */

typedef struct phasor_comm_info {
    uint32_t id;       /* local log id */
    int32_t rank;      /* this process's rank in the local group */
    int32_t size;      /* local group size */
    int32_t rsize;     /* remote group size (intercommunicators), else 0 */
    int32_t indegree;  /* neighbourhood collectives: sources / destinations counts */
    int32_t outdegree;
} phasor_comm_info_t;

/* Lock-free lookup of a communicator the shim has seen; NULL if unknown (phasor_comm.c). */
const phasor_comm_info_t *phasor_comm_find(MPI_Comm comm);

/* The last communicator a thread looked up, valid while phasor_comm_gen (bumped by every
 * change of the table) is as it was: most calls name the communicator the last one did, and
 * this spares them the table's hash and probe after the library returns. */
typedef struct phasor_comm_memo {
    MPI_Comm comm;
    const phasor_comm_info_t *info;
    uint32_t gen;
} phasor_comm_memo_t;
extern uint32_t phasor_comm_gen;
extern PHASOR_TLS phasor_comm_memo_t phasor_comm_memo;

static inline const phasor_comm_info_t *phasor_comm_lookup(MPI_Comm comm)
{
    const uint32_t g = __atomic_load_n(&phasor_comm_gen, __ATOMIC_ACQUIRE);
    phasor_comm_memo_t *m = &phasor_comm_memo;
    if (m->info != NULL && m->gen == g && m->comm == comm)
        return m->info;
    const phasor_comm_info_t *ci = phasor_comm_find(comm);
    m->comm = comm;
    m->info = ci;
    m->gen = g;
    return ci;
}

static inline uint32_t phasor_comm_id(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return PLOG_COMM_NONE;
    const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
    return ci ? ci->id : PLOG_COMM_UNKNOWN;
}

/* Register a communicator just created by a successful call (cold path: queries MPI,
 * allocates). parent may be MPI_COMM_NULL. Returns its new local id (0 for MPI_COMM_NULL). */
uint32_t phasor_comm_register(MPI_Comm newcomm, MPI_Comm parent, unsigned creating_call);
/* Register the result of MPI_Comm_idup: the new handle may not be queried before the
 * request completes, so its membership is copied from the parent. */
uint32_t phasor_comm_register_dup(MPI_Comm newcomm, MPI_Comm parent, unsigned creating_call);
/* Forget a communicator once it has been freed (call with the handle value it had). */
void phasor_comm_forget(MPI_Comm comm);

/* An event's communicator id and PLOG_F_INTER with a single table lookup (the rules of
 * phasor_comm_id and phasor_is_inter). */
static inline void phasor_event_set_comm(plog_event_t *ev, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) {
        ev->comm = PLOG_COMM_NONE;
        return;
    }
    const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
    ev->comm = ci ? ci->id : PLOG_COMM_UNKNOWN;
    if (ci && ci->rsize > 0)
        ev->flags |= PLOG_F_INTER;
}

/* Size of the group a collective's counts arrays run over: remote size for
 * intercommunicators, else local size. 0 if unknown. */
static inline int phasor_comm_peers(MPI_Comm comm)
{
    const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
    if (!ci)
        return 0;
    return ci->rsize > 0 ? ci->rsize : ci->size;
}

/* Marks completions as worth asking MPI_Test_cancelled: set once any Cancel happened
 * (pmpi/wrappers.h, pw_status_cancelled). */
extern volatile int phasor_cancel_seen;

/* Scratch arrays for the Wait/Test families (grown rarely, never per event once large
 * enough). Returns 0 if memory could not be had. */
int phasor_scratch_reserve(phasor_thread_t *th, size_t n);

/* Root-only arguments: true when this process's root-side arguments are significant in a
 * rooted collective (intracommunicator: rank == root; intercommunicator: root == MPI_ROOT). */
static inline int phasor_is_root(MPI_Comm comm, int root)
{
    const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
    if (!ci)
        return 0;
    if (ci->rsize > 0)
        return root == MPI_ROOT;
    return ci->rank == root;
}

static inline int phasor_is_inter(MPI_Comm comm)
{
    const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
    return ci && ci->rsize > 0;
}

#pragma GCC visibility pop

#endif
