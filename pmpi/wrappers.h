/* wrappers.h: what every wrapper shares, C or Fortran, generated or hand-written: how an
 * entry point is exported, the MPI arguments turned into the extras of format/plog_extras.h,
 * and what the completion, request and communicator-destructor calls record.
 *
 * The shim exports its MPI entry points and nothing else: its sources are compiled with
 * -fvisibility=hidden, each entry point is marked PW_ENTRY, and the version script the
 * generator writes from the spec (gen/pmpi/libphasor.map) keeps everything else local, the
 * libraries linked in with it included. tests/unit/cli_symbols.sh checks the result.
 *
 * The recorders below are always inlined (PW_INLINE): the call-site capture of
 * phasor_event_begin then starts in the wrapper's own frame, as it must, and each wrapper
 * gets the code for its own kind of status: a Fortran wrapper passes pfw_status (Fortran
 * statuses, converted one by one), a C one pw_status (the MPI_Status array itself). */
#ifndef PMPI_WRAPPERS_H
#define PMPI_WRAPPERS_H

#include "phasor_measure.h"
#include "phasor_rt.h"
#include "plog_extras.h"

/* An MPI entry point of the shim: C MPI_X, Fortran mpi_x_ and its aliases. */
#define PW_ENTRY __attribute__((visibility("default")))

#pragma GCC visibility push(hidden) /* the shim's own: see phasor_rt.h */

#define PW_INLINE static inline __attribute__((always_inline))

/* ---- arguments ---- */

/* Rooted collectives. On an intracommunicator root is a rank and every process sends to or
 * receives from it; on an intercommunicator the root's group passes MPI_ROOT (the root) or
 * MPI_PROC_NULL (does nothing), and only the other group talks to the root. Deciding from
 * the root argument alone keeps us off arguments MPI ignores even for unknown comms. */
static inline int pw_at_leaf(int root) { return root != MPI_ROOT && root != MPI_PROC_NULL; }
static inline int pw_at_part(int root) { return root != MPI_PROC_NULL; }

static inline int pw_comm_size(MPI_Comm comm)
{
    const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
    return ci ? ci->size : 0;
}

static inline int pw_indegree(MPI_Comm comm)
{
    const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
    return ci ? ci->indegree : 0;
}

static inline int pw_outdegree(MPI_Comm comm)
{
    const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
    return ci ? ci->outdegree : 0;
}

/* Bytes of this rank's own entry of a counts array (rank in the local group). */
static inline uint64_t pw_own_bytes(MPI_Comm comm, const int *counts, MPI_Datatype type)
{
    const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
    if (!ci || counts == NULL || ci->rank < 0 || ci->rank >= ci->size)
        return 0;
    return phasor_bytes(counts[ci->rank], type);
}

static inline uint64_t pw_msg_value(const MPI_Message *m)
{
    uint64_t h = 0;
    if (m != NULL && *m != MPI_MESSAGE_NULL)
        memcpy(&h, m, sizeof(*m) < sizeof(h) ? sizeof(*m) : sizeof(h));
    return h;
}

/* RECVSPEC: the posted source and tag. */
static inline uint64_t pw_recvspec(int source, int tag)
{
    return plog_extras_pair(phasor_rank_arg(source), phasor_tag_arg(tag));
}

/* MPI_ERR_IN_STATUS (by class: libraries may return a more specific code) means the
 * statuses are valid and each says whether its request completed (MPI_ERROR other than
 * MPI_ERR_PENDING). Asking the class is safe: it touches no handle. */
static inline int pw_in_status(int rc)
{
    int cls = MPI_SUCCESS;
    return rc != MPI_SUCCESS && PMPI_Error_class(rc, &cls) == MPI_SUCCESS &&
           cls == MPI_ERR_IN_STATUS;
}

/* An index into the caller's request array (MPI_UNDEFINED kept) as C's: Fortran's are
 * 1-based (base 1), and the events keep C's. */
static inline int pw_index(int i, int base) { return i == MPI_UNDEFINED ? i : i - base; }

/* ---- statuses ---- */

/* Bytes a status says were received. Both libraries keep the byte count in the status
 * itself (its layout is part of their ABI, in mpi.h); reading it directly saves a call
 * into the library on every completion. Other MPIs ask MPI_Get_elements_x. */
static inline uint64_t pw_status_bytes(const MPI_Status *st)
{
    /* Masked to 63 bits: a send's status may be left unwritten (MPICH does), and whatever
     * it holds must not read as the entry's cancelled bit. */
#if defined(OPEN_MPI) && OPEN_MPI
    return (uint64_t)st->_ucount & PLOG_BYTES_UNKNOWN;
#elif defined(MPICH_VERSION)
    return (((uint64_t)(uint32_t)(st->count_hi_and_cancelled >> 1) << 32) +
            (uint64_t)(uint32_t)st->count_lo) & PLOG_BYTES_UNKNOWN;
#else
    MPI_Count n = 0;
    if (PMPI_Get_elements_x(st, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED && n >= 0)
        return (uint64_t)n;
    return PLOG_BYTES_UNKNOWN;
#endif
}

/* Whether a completed request was cancelled: only worth asking once any Cancel happened. */
static inline int pw_status_cancelled(const MPI_Status *st)
{
    int c = 0;
    return phasor_cancel_seen && PMPI_Test_cancelled(st, &c) == MPI_SUCCESS && c;
}

/* One status entry at x for a status MPI really filled in. A completion's may say
 * cancelled; a blocking receive's or probe's cannot have been cancelled (and MPICH leaves a
 * probe status's cancelled bit as it was): those pass completion 0 and nothing is asked. */
static inline void pw_put_status_entry(uint64_t *x, MPI_Request h, const MPI_Status *st,
                                       int index, int completion)
{
    plog_extras_status(x, phasor_handle_value(h), phasor_rank_arg(st->MPI_SOURCE),
                       phasor_tag_arg(st->MPI_TAG), pw_status_bytes(st), (uint32_t)index,
                       completion && pw_status_cancelled(st));
}

/* A STATUS list of one entry, whole or not at all. */
static inline size_t pw_put_status1(plog_event_t *ev, uint64_t *x, size_t room, MPI_Request h,
                                    const MPI_Status *st, int index, int completion)
{
    if (!plog_extras_list1(ev, x, room, PLOG_F_STATUS, PLOG_STATUS_WORDS))
        return 0;
    pw_put_status_entry(x + 1, h, st, index, completion);
    return 1 + PLOG_STATUS_WORDS;
}

/* Status i of a completion call's status argument sts: a C wrapper's MPI_Status array
 * (pw_status), a Fortran wrapper's MPI_STATUS_SIZE integers each (pfw_status, fwrappers.h,
 * converted into *tmp). */
typedef const MPI_Status *pw_status_fn(const void *sts, int i, MPI_Status *tmp);

static inline const MPI_Status *pw_status(const void *sts, int i, MPI_Status *tmp)
{
    (void)tmp;
    return (const MPI_Status *)sts + i;
}

/* ---- lists ---- */

/* HANDLES list of the message handle (Mprobe/Improbe/Mrecv/Imrecv), whole or not at all. */
static inline size_t pw_put_message(plog_event_t *ev, uint64_t *x, size_t room, uint64_t h)
{
    if (!plog_extras_list1(ev, x, room, PLOG_F_HANDLES | PLOG_F_MESSAGE, 1))
        return 0;
    x[1] = h;
    return 2;
}

/* HANDLES list of n request handles; whole = 1: written only if it fits together with the
 * `after` words that must follow it (the statuses matter more than the inputs), else cut to
 * the room there is (Startall). */
static inline size_t pw_put_requests(plog_event_t *ev, uint64_t *x, size_t room,
                                     const MPI_Request *reqs, int n, int whole, size_t after)
{
    if (n <= 0)
        return 0;
    if (reqs == NULL || (whole && room < 1 + (size_t)n + after)) {
        ev->flags |= PLOG_F_TRUNCATED;
        return 0;
    }
    size_t k = plog_extras_list(ev, x, room, PLOG_F_HANDLES, (size_t)n, 1);
    for (size_t i = 0; i < k; i++)
        x[1 + i] = phasor_handle_value(reqs[i]);
    return room >= 1 ? 1 + k : 0;
}

/* VSEND/VRECV list (flag) of n per-peer byte counts: counts[i] x size(types[i], or type
 * when types is NULL); *sum gets the total over all n peers even when the list is cut. */
static inline size_t pw_put_vlist(plog_event_t *ev, uint64_t *x, size_t room, unsigned flag,
                                  int n, const int *counts, MPI_Datatype type,
                                  const MPI_Datatype *types, uint64_t *sum)
{
    uint64_t total = 0;
    for (int i = 0; counts != NULL && i < n; i++)
        total += phasor_bytes(counts[i], types ? types[i] : type);
    *sum = total;
    size_t want = counts != NULL && n > 0 ? (size_t)n : 0;
    size_t k = plog_extras_list(ev, x, room, flag, want, 1);
    uint64_t tsz = types == NULL && k ? phasor_type_size(type) : 0;
    for (size_t i = 0; i < k; i++) {
        uint64_t sz = types != NULL ? phasor_type_size(types[i]) : tsz;
        x[1 + i] = counts[i] > 0 ? (uint64_t)counts[i] * sz : 0;
    }
    return room >= 1 ? 1 + k : 0;
}

/* ---- polls that found nothing (phasor_rt.h: runs of polls) ---- */

/* Before a poll: its start, or 0 with *quiet set when it is a quiet poll of the open run
 * (phasor_rt.h). After it, a poll that found something takes its end as its start when
 * quiet; one that found nothing goes to pw_poll_nothing or pw_poll_probe. */
PW_INLINE uint64_t pw_poll_start(const phasor_thread_t *th, unsigned call, uint64_t key0,
                                 uint64_t key1, int *quiet)
{
    *quiet = phasor_poll_quiet(th, call, key0, key1);
    return *quiet ? 0 : phasor_now();
}

/* A poll that found nothing, counted into the open run: 1, or 0 with its end in *t1 when it
 * opens a run. */
PW_INLINE int pw_poll_counted(phasor_thread_t *th, unsigned call, int quiet, uint64_t t0,
                              uint64_t key0, uint64_t key1, uint64_t *t1)
{
    if (quiet) {
        th->poll_n++;
        return 1;
    }
    *t1 = phasor_now();
    return phasor_poll_more(th, call, t0, *t1, key0, key1);
}

/* Test, Testany/all/some, Request_get_status that found nothing: counted into the thread's
 * run, or opening one; the event of each such call has only its request (0 for the arrays:
 * key0/key1 are then the array and its length). */
PW_INLINE void pw_poll_nothing(phasor_thread_t *th, unsigned call, int quiet, uint64_t t0,
                               uint64_t key0, uint64_t key1, uint64_t request)
{
    uint64_t t1;
    if (pw_poll_counted(th, call, quiet, t0, key0, key1, &t1))
        return;
    plog_event_t *ev = phasor_poll_open(th, call, t0, t1);
    if (ev)
        ev->request = request;
    phasor_poll_opened(th, ev, key0, key1);
}

/* Iprobe, Improbe that found nothing: the event of each has its communicator, source, tag. */
PW_INLINE void pw_poll_probe(phasor_thread_t *th, unsigned call, int quiet, uint64_t t0,
                             uint64_t key0, uint64_t key1, MPI_Comm comm, int source, int tag)
{
    uint64_t t1;
    if (pw_poll_counted(th, call, quiet, t0, key0, key1, &t1))
        return;
    plog_event_t *ev = phasor_poll_open(th, call, t0, t1);
    if (ev) {
        phasor_event_set_comm(ev, comm);
        ev->peer = phasor_rank_arg(source);
        ev->tag = phasor_tag_arg(tag);
    }
    phasor_poll_opened(th, ev, key0, key1);
}

/* ---- what the completion calls record (C: wrappers_special.c, Fortran: fwrappers_special.c)
 * saved: the request array as passed (scratch copy, NULL when there was no memory for it);
 * flag: NULL for Wait*, else Test*'s result, read only after a successful call. ---- */

/* Completed requests of the array: not MPI_REQUEST_NULL and, after MPI_ERR_IN_STATUS, not
 * left pending. */
PW_INLINE int pw_completed(const MPI_Request *saved, const void *sts, pw_status_fn *at, int i,
                           int in_status)
{
    MPI_Status tmp;
    return saved[i] != MPI_REQUEST_NULL &&
           (!in_status || at(sts, i, &tmp)->MPI_ERROR != MPI_ERR_PENDING);
}

/* Wait, Test: request = the input handle h; one STATUS entry if it completed. */
PW_INLINE void pw_record_one(phasor_thread_t *th, unsigned call, uint64_t t0, uint64_t t1,
                             int rc, MPI_Request h, const int *flag, const void *sts,
                             pw_status_fn *at)
{
    const int done = rc == MPI_SUCCESS && (!flag || *flag);
    /* Wait: room for a status whatever happened (a constant: no test on the way) */
    plog_event_t *ev = phasor_event_begin(th, call, t0, t1, rc,
                                          done || !flag ? 1 + PLOG_STATUS_WORDS : 0);
    if (ev) {
        size_t nx = 0;
        ev->request = phasor_handle_value(h);
        if (done && flag)
            ev->flags |= PLOG_F_FLAG_TRUE;
        if (done && h != MPI_REQUEST_NULL) {
            MPI_Status tmp;
            nx = pw_put_status1(ev, phasor_extras(ev), phasor_extras_room(th, ev), h,
                                at(sts, 0, &tmp), 0, 1);
        }
        phasor_event_end(th, ev, nx);
    }
}

/* The event of a completion call, with room for st_words of statuses after the failed
 * Wait*'s HANDLES (its whole input array as passed), which it writes; FLAG_TRUE when a
 * Test* hit. *nx: the words written. NULL when nothing can be recorded. */
PW_INLINE plog_event_t *pw_completion_begin(phasor_thread_t *th, unsigned call, uint64_t t0,
                                            uint64_t t1, int rc, int count,
                                            const MPI_Request *saved, int is_test, int hit,
                                            size_t st_words, size_t *nx)
{
    const size_t h_words = !is_test && saved && rc != MPI_SUCCESS ? 1 + (size_t)count : 0;
    plog_event_t *ev = phasor_event_begin(th, call, t0, t1, rc, h_words + st_words);
    *nx = 0;
    if (!ev)
        return NULL;
    if (hit && is_test)
        ev->flags |= PLOG_F_FLAG_TRUE;
    if (!is_test && rc != MPI_SUCCESS)
        *nx = pw_put_requests(ev, phasor_extras(ev), phasor_extras_room(th, ev), saved, count,
                              1, st_words);
    return ev;
}

/* Waitany, Testany: a failed Waitany's HANDLES (the whole input array); the STATUS entry
 * of the request completed at *index (base: 0 C, 1 Fortran). */
PW_INLINE void pw_record_any(phasor_thread_t *th, unsigned call, uint64_t t0, uint64_t t1,
                             int rc, int count, const MPI_Request *saved, const int *index,
                             int base, const int *flag, const void *sts, pw_status_fn *at)
{
    const int hit = rc == MPI_SUCCESS && (!flag || *flag);
    const int idx = hit ? pw_index(*index, base) : MPI_UNDEFINED;
    const int done = hit && idx != MPI_UNDEFINED;
    size_t nx;
    plog_event_t *ev = pw_completion_begin(th, call, t0, t1, rc, count, saved, flag != NULL,
                                           hit, done ? 1 + PLOG_STATUS_WORDS : 0, &nx);
    if (!ev)
        return;
    uint64_t *x = phasor_extras(ev);
    size_t room = phasor_extras_room(th, ev);
    if (!flag && count > 0 && !saved)
        ev->flags |= PLOG_F_TRUNCATED; /* no memory to keep the handles */
    if (done) {
        MPI_Request h = MPI_REQUEST_NULL;
        if (saved && idx >= 0 && idx < count)
            h = saved[idx];
        else if (flag)
            ev->flags |= PLOG_F_TRUNCATED; /* handle unknown */
        MPI_Status tmp;
        nx += pw_put_status1(ev, x + nx, room - nx, h, at(sts, 0, &tmp), idx, 1);
    }
    phasor_event_end(th, ev, nx);
}

/* Opens the STATUS list of a Waitall/some, Testall/some for `want` entries after the nx
 * words already written; returns the entries that fit (*nx then points past the length). */
static inline size_t pw_status_list(plog_event_t *ev, uint64_t *x, size_t room, size_t *nx,
                                    size_t want)
{
    if (want == 0)
        return 0;
    size_t fit = plog_extras_list(ev, x + *nx, room - *nx, PLOG_F_STATUS, want, PLOG_STATUS_WORDS);
    *nx += room > *nx;
    return fit;
}

/* Waitall, Testall: a failed Waitall's HANDLES; one STATUS entry per request that completed
 * (status i for request i). */
PW_INLINE void pw_record_all(phasor_thread_t *th, unsigned call, uint64_t t0, uint64_t t1,
                             int rc, int count, const MPI_Request *saved, const int *flag,
                             const void *sts, pw_status_fn *at)
{
    const int in_status = pw_in_status(rc);
    const int hit = (rc == MPI_SUCCESS || in_status) && (!flag || *flag);
    size_t nactive = 0;
    for (int i = 0; hit && saved && i < count; i++)
        nactive += (size_t)pw_completed(saved, sts, at, i, in_status);
    size_t nx;
    plog_event_t *ev = pw_completion_begin(th, call, t0, t1, rc, count, saved, flag != NULL,
                                           hit, nactive ? 1 + nactive * PLOG_STATUS_WORDS : 0,
                                           &nx);
    if (!ev)
        return;
    uint64_t *x = phasor_extras(ev);
    size_t room = phasor_extras_room(th, ev);
    if (count > 0 && !saved && (hit || !flag))
        ev->flags |= PLOG_F_TRUNCATED;
    size_t fit = pw_status_list(ev, x, room, &nx, nactive);
    for (int i = 0; i < count && fit > 0; i++) {
        MPI_Status tmp;
        if (!pw_completed(saved, sts, at, i, in_status))
            continue;
        pw_put_status_entry(x + nx, saved[i], at(sts, i, &tmp), i, 1);
        nx += PLOG_STATUS_WORDS;
        fit--;
    }
    phasor_event_end(th, ev, nx);
}

/* Waitsome, Testsome: a failed Waitsome's HANDLES; entry k for the request at indices[k]
 * (base: 0 C, 1 Fortran), status k. */
PW_INLINE void pw_record_some(phasor_thread_t *th, unsigned call, uint64_t t0, uint64_t t1,
                              int rc, int incount, const MPI_Request *saved, const int *outcount,
                              const int *indices, int base, int is_test, const void *sts,
                              pw_status_fn *at)
{
    const int ok = (rc == MPI_SUCCESS || pw_in_status(rc)) && *outcount != MPI_UNDEFINED &&
                   *outcount > 0;
    const int nout = ok && saved ? *outcount : 0;
    size_t nx;
    plog_event_t *ev = pw_completion_begin(th, call, t0, t1, rc, incount, saved, is_test, 0,
                                           nout ? 1 + (size_t)nout * PLOG_STATUS_WORDS : 0, &nx);
    if (!ev)
        return;
    uint64_t *x = phasor_extras(ev);
    size_t room = phasor_extras_room(th, ev);
    if ((is_test ? ok : incount > 0) && !saved)
        ev->flags |= PLOG_F_TRUNCATED;
    size_t fit = pw_status_list(ev, x, room, &nx, (size_t)nout);
    for (size_t k = 0; k < fit; k++) {
        MPI_Status tmp;
        int i = pw_index(indices[k], base);
        MPI_Request h = i >= 0 && i < incount ? saved[i] : MPI_REQUEST_NULL;
        pw_put_status_entry(x + nx, h, at(sts, (int)k, &tmp), i, 1);
        nx += PLOG_STATUS_WORDS;
    }
    phasor_event_end(th, ev, nx);
}

/* ---- requests and communicators ---- */

/* RENEWED: HANDLES = the n handles after a Start(all), then the n before it, only whole
 * (the reader pairs them by position). 0 when none changed (or nothing to compare). */
static inline size_t pw_put_renewed(plog_event_t *ev, uint64_t *x, size_t room,
                                    const MPI_Request *after, const MPI_Request *before, int n)
{
    int changed = 0;
    for (int i = 0; after != NULL && before != NULL && i < n && !changed; i++)
        changed = after[i] != before[i];
    if (!changed)
        return 0;
    if (room < 1 + 2 * (size_t)n) {
        ev->flags |= PLOG_F_TRUNCATED;
        return 0;
    }
    size_t k = plog_extras_list(ev, x, room, PLOG_F_HANDLES, 2 * (size_t)n, 1);
    for (size_t i = 0; i < (size_t)n; i++) {
        x[1 + i] = phasor_handle_value(after[i]);
        x[1 + (size_t)n + i] = phasor_handle_value(before[i]);
    }
    ev->flags |= PLOG_F_RENEWED;
    return 1 + k;
}

/* Start, Request_free, Cancel, Grequest_complete: request = the handle before the call.
 * after: the handle after it where MPI may change it (Start: Open MPI gives a buffered send
 * still in flight a new one: RENEWED with both), else before. */
PW_INLINE void pw_record_request(phasor_thread_t *th, unsigned call, uint64_t t0, int rc,
                                 MPI_Request before, MPI_Request after)
{
    const int renewed = rc == MPI_SUCCESS && after != before;
    plog_event_t *ev = phasor_event_begin(th, call, t0, phasor_now(), rc, renewed ? 3 : 0);
    if (ev) {
        ev->request = phasor_handle_value(before);
        size_t nx = renewed ? pw_put_renewed(ev, phasor_extras(ev), phasor_extras_room(th, ev),
                                             &after, &before, 1)
                            : 0;
        phasor_event_end(th, ev, nx);
    }
}

/* Startall: HANDLES = the n handles started, read after the call (reqs NULL: there was no
 * memory to convert them), cut to the room there is; or, when MPI gave some of them new
 * handles (before: the array as it was, NULL if not kept), RENEWED with both arrays. */
PW_INLINE void pw_record_startall(phasor_thread_t *th, uint64_t t0, uint64_t t1, int rc,
                                  const MPI_Request *reqs, const MPI_Request *before, int n)
{
    plog_event_t *ev =
        phasor_event_begin(th, PLOG_CALL_MPI_Startall, t0, t1, rc, n ? 1 + 2 * (size_t)n : 0);
    if (!ev)
        return;
    uint64_t *x = phasor_extras(ev);
    size_t room = phasor_extras_room(th, ev);
    size_t nx = rc == MPI_SUCCESS ? pw_put_renewed(ev, x, room, reqs, before, n) : 0;
    if (!(ev->flags & PLOG_F_RENEWED))
        nx = pw_put_requests(ev, x, room, reqs, n, 0, 0);
    phasor_event_end(th, ev, nx);
}

/* Comm_idup: the parent's id, the request, NEWCOMM = the new communicator's id. */
PW_INLINE void pw_record_idup(phasor_thread_t *th, uint64_t t0, uint64_t t1, int rc,
                              MPI_Comm parent, MPI_Request req, uint32_t new_id)
{
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Comm_idup, t0, t1, rc, 1);
    if (ev) {
        size_t nx = 0;
        phasor_event_set_comm(ev, parent);
        if (rc == MPI_SUCCESS) {
            ev->request = phasor_handle_value(req);
            nx = plog_extras_word(ev, phasor_extras(ev), phasor_extras_room(th, ev),
                                  PLOG_F_NEWCOMM, new_id);
        }
        phasor_event_end(th, ev, nx);
    }
}

/* Comm_free and Comm_disconnect, before the call: what the communicator was (its id and
 * PLOG_F_INTER, in *was) and, under PHASOR_STEPS=measure, phasor's duplicate of it freed
 * (collective like the user's free: before it). */
static inline void pw_comm_destroy_begin(MPI_Comm comm, plog_event_t *was)
{
    if (phasor_steps_mode)
        phasor_measure_release(comm);
    memset(was, 0, sizeof(*was));
    phasor_event_set_comm(was, comm);
}

/* After it: drop the communicator from the table -- unless another thread has meanwhile
 * registered a new communicator that MPI gave the recycled handle value (its id then
 * differs) -- even when the call is not recorded (th NULL), as constructors register; then
 * record the id it had, and leave. */
PW_INLINE void pw_comm_destroy_end(phasor_thread_t *th, unsigned call, uint64_t t0,
                                   uint64_t t1, int rc, MPI_Comm comm, const plog_event_t *was)
{
    if (rc == MPI_SUCCESS && comm != MPI_COMM_NULL && phasor_active) {
        const phasor_comm_info_t *ci = phasor_comm_lookup(comm);
        if (ci && ci->id == was->comm)
            phasor_comm_forget(comm);
    }
    if (!th)
        return;
    plog_event_t *ev = phasor_event_begin(th, call, t0, t1, rc, 0);
    if (ev) {
        ev->comm = was->comm;
        ev->flags |= was->flags;
        phasor_event_end(th, ev, 0);
    }
    phasor_leave(th);
}

#pragma GCC visibility pop

#endif
