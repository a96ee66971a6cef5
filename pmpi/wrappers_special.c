/* wrappers_special.c: hand-written wrappers for the calls the spec's directives cannot describe:
 * the Wait/Test families (the call overwrites the handles we must record, statuses come in
 * arrays), Start/Startall, Request_free, Cancel, Comm_idup and the communicator destructors.
 * Same pattern and rules as the generated ones (profiler/phasor_rt.h); ids and classes come
 * from pmpi/mpi_spec.txt, where these calls are marked `special`.
 *
 * What they record (extras layout: format/plog_format.h):
 *   Wait, Test             request = the input handle; one STATUS entry if it completed
 *   Waitany/all/some       HANDLES = the whole input array as passed (MPI_REQUEST_NULL as 0, so
 *                          positions are the indices); STATUS entry per completed request
 *   Testany/all/some       STATUS entries only: a polling loop must stay cheap
 *   Test, Testany, Testall PLOG_F_FLAG_TRUE when the flag came back true
 *   Start                  request = the handle started; Startall: HANDLES = the handles
 *   Request_free, Cancel   request = the handle before the call
 *   Comm_free/disconnect   comm = the id the communicator had; Comm_idup: NEWCOMM, request
 * A status entry is [handle, source/tag, bytes, index]; MPI_REQUEST_NULL inputs give none. */
#include "phasor_measure.h"
#include "wrappers.h"

/* ---- helpers ---- */

/* Copy of the request array taken before a call that sets completed handles to
 * MPI_REQUEST_NULL. NULL when there is nothing to copy or no memory for the copy. */
static const MPI_Request *pmpi_save_requests(phasor_thread_t *th, int count,
                                             const MPI_Request *reqs)
{
    if (count <= 0 || reqs == NULL || !phasor_scratch_reserve(th, (size_t)count))
        return NULL;
    memcpy(th->req_scratch, reqs, (size_t)count * sizeof(*reqs));
    return th->req_scratch;
}

/* MPI_ERR_IN_STATUS (by class: libraries may return a more specific code) means the
 * statuses are valid and each says whether its request completed (MPI_ERROR other than
 * MPI_ERR_PENDING). Asking the class is safe: it touches no handle. */
static int pmpi_in_status(int rc)
{
    int cls = MPI_SUCCESS;
    return rc != MPI_SUCCESS && PMPI_Error_class(rc, &cls) == MPI_SUCCESS &&
           cls == MPI_ERR_IN_STATUS;
}

/* Requests of the array that completed: not MPI_REQUEST_NULL and, after MPI_ERR_IN_STATUS,
 * not left pending. */
static int pmpi_completed(const MPI_Request *reqs, const MPI_Status *sts, int i, int in_status)
{
    return reqs[i] != MPI_REQUEST_NULL && (!in_status || sts[i].MPI_ERROR != MPI_ERR_PENDING);
}

static size_t pmpi_count_active(const MPI_Request *reqs, const MPI_Status *sts, int count,
                                int in_status)
{
    size_t n = 0;
    for (int i = 0; i < count; i++)
        n += (size_t)pmpi_completed(reqs, sts, i, in_status);
    return n;
}

/* HANDLES list of the input array, written only if it fits together with the `after` words
 * that must follow it (the statuses matter more than the inputs). */
static size_t pmpi_put_handles(plog_event_t *ev, uint64_t *x, size_t room,
                               const MPI_Request *reqs, int n, size_t after)
{
    if (reqs == NULL || n <= 0)
        return 0;
    if (room < 1 + (size_t)n + after) {
        ev->flags |= PLOG_F_TRUNCATED;
        return 0;
    }
    x[0] = (uint64_t)n;
    for (int i = 0; i < n; i++)
        x[1 + i] = phasor_handle_value(reqs[i]);
    ev->flags |= PLOG_F_HANDLES;
    return 1 + (size_t)n;
}

/* Opens a STATUS list for `want` entries at x[*nx]: writes its length word and returns how
 * many entries fit (PLOG_F_TRUNCATED when fewer than wanted). */
static size_t pmpi_status_list(plog_event_t *ev, uint64_t *x, size_t room, size_t *nx,
                               size_t want)
{
    if (want == 0)
        return 0;
    if (room < *nx + 1) {
        ev->flags |= PLOG_F_TRUNCATED;
        return 0;
    }
    size_t fit = (room - *nx - 1) / PLOG_STATUS_WORDS;
    if (fit < want)
        ev->flags |= PLOG_F_TRUNCATED;
    else
        fit = want;
    x[(*nx)++] = fit;
    ev->flags |= PLOG_F_STATUS;
    return fit;
}

static void pmpi_status_entry(uint64_t *x, size_t *nx, MPI_Request h, const MPI_Status *st,
                              int index)
{
    phasor_put_status(x + *nx, phasor_handle_value(h), st, (uint32_t)index);
    phasor_status_cancelled(x + *nx, st);
    *nx += PLOG_STATUS_WORDS;
}

/* The one status of Wait/Test/Waitany/Testany. */
static size_t pmpi_put_one_status(plog_event_t *ev, uint64_t *x, size_t room, size_t nx,
                                  MPI_Request h, const MPI_Status *st, int index)
{
    if (pmpi_status_list(ev, x, room, &nx, 1) == 1)
        pmpi_status_entry(x, &nx, h, st, index);
    return nx;
}

/* Waitall/Testall: one entry per request that was not MPI_REQUEST_NULL, status i for
 * request i. */
static size_t pmpi_put_all_statuses(plog_event_t *ev, uint64_t *x, size_t room, size_t nx,
                                    const MPI_Request *saved, int count, const MPI_Status *sts,
                                    size_t nactive, int in_status)
{
    size_t fit = pmpi_status_list(ev, x, room, &nx, nactive);
    for (int i = 0; i < count && fit > 0; i++)
        if (pmpi_completed(saved, sts, i, in_status)) {
            pmpi_status_entry(x, &nx, saved[i], &sts[i], i);
            fit--;
        }
    return nx;
}

/* Waitsome/Testsome: entry k for the request at indices[k], status k. */
static size_t pmpi_put_some_statuses(plog_event_t *ev, uint64_t *x, size_t room, size_t nx,
                                     const MPI_Request *saved, int incount, int outcount,
                                     const int *indices, const MPI_Status *sts)
{
    size_t fit = pmpi_status_list(ev, x, room, &nx, (size_t)outcount);
    for (size_t k = 0; k < fit; k++) {
        int i = indices[k];
        MPI_Request h = i >= 0 && i < incount ? saved[i] : MPI_REQUEST_NULL;
        pmpi_status_entry(x, &nx, h, &sts[k], i);
    }
    return nx;
}

/* ---- single-request completion ---- */

PW_ENTRY int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Wait(request, status);
    const MPI_Request h = request ? *request : MPI_REQUEST_NULL;
    MPI_Status st_own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_own : status;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Wait(request, st);
    uint64_t t1 = phasor_now();
    plog_event_t *ev =
        phasor_event_begin(th, PLOG_CALL_MPI_Wait, t0, t1, rc, 1 + PLOG_STATUS_WORDS);
    if (ev) {
        size_t nx = 0;
        ev->request = phasor_handle_value(h);
        if (rc == MPI_SUCCESS && h != MPI_REQUEST_NULL)
            nx = pmpi_put_one_status(ev, phasor_extras(ev), phasor_extras_room(th, ev), 0, h,
                                     st, 0);
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Test(request, flag, status);
    const MPI_Request h = request ? *request : MPI_REQUEST_NULL;
    MPI_Status st_own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_own : status;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Test(request, flag, st);
    uint64_t t1 = phasor_now();
    const int done = rc == MPI_SUCCESS && *flag;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Test, t0, t1, rc,
                                          done ? 1 + PLOG_STATUS_WORDS : 0);
    if (ev) {
        size_t nx = 0;
        ev->request = phasor_handle_value(h);
        if (done) {
            ev->flags |= PLOG_F_FLAG_TRUE;
            if (h != MPI_REQUEST_NULL)
                nx = pmpi_put_one_status(ev, phasor_extras(ev), phasor_extras_room(th, ev), 0,
                                         h, st, 0);
        }
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
    return rc;
}

/* ---- any ---- */

PW_ENTRY int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
                         MPI_Status *status)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Waitany(count, array_of_requests, index, status);
    const MPI_Request *saved = pmpi_save_requests(th, count, array_of_requests);
    MPI_Status st_own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_own : status;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Waitany(count, array_of_requests, index, st);
    uint64_t t1 = phasor_now();
    const int done = rc == MPI_SUCCESS && *index != MPI_UNDEFINED;
    const size_t st_words = done ? 1 + PLOG_STATUS_WORDS : 0;
    const size_t h_words = saved && rc != MPI_SUCCESS ? 1 + (size_t)count : 0;
    plog_event_t *ev =
        phasor_event_begin(th, PLOG_CALL_MPI_Waitany, t0, t1, rc, h_words + st_words);
    if (ev) {
        uint64_t *x = phasor_extras(ev);
        size_t room = phasor_extras_room(th, ev), nx = 0;
        if (count > 0 && !saved)
            ev->flags |= PLOG_F_TRUNCATED; /* no memory to keep the handles */
        if (rc != MPI_SUCCESS)
            nx += pmpi_put_handles(ev, x, room, saved, count, st_words);
        if (done) {
            MPI_Request h = saved && *index >= 0 && *index < count ? saved[*index]
                                                                   : MPI_REQUEST_NULL;
            nx = pmpi_put_one_status(ev, x, room, nx, h, st, *index);
        }
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                         MPI_Status *status)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Testany(count, array_of_requests, index, flag, status);
    const MPI_Request *saved = pmpi_save_requests(th, count, array_of_requests);
    MPI_Status st_own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_own : status;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Testany(count, array_of_requests, index, flag, st);
    uint64_t t1 = phasor_now();
    const int hit = rc == MPI_SUCCESS && *flag;
    const int done = hit && *index != MPI_UNDEFINED;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Testany, t0, t1, rc,
                                          done ? 1 + PLOG_STATUS_WORDS : 0);
    if (ev) {
        size_t nx = 0;
        if (hit)
            ev->flags |= PLOG_F_FLAG_TRUE;
        if (done) {
            MPI_Request h = MPI_REQUEST_NULL;
            if (saved && *index >= 0 && *index < count)
                h = saved[*index];
            else
                ev->flags |= PLOG_F_TRUNCATED; /* handle unknown */
            nx = pmpi_put_one_status(ev, phasor_extras(ev), phasor_extras_room(th, ev), 0, h,
                                     st, *index);
        }
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
    return rc;
}

/* ---- all ---- */

PW_ENTRY int MPI_Waitall(int count, MPI_Request array_of_requests[],
                         MPI_Status array_of_statuses[])
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Waitall(count, array_of_requests, array_of_statuses);
    const MPI_Request *saved = pmpi_save_requests(th, count, array_of_requests);
    MPI_Status *sts = array_of_statuses;
    if (sts == MPI_STATUSES_IGNORE && saved)
        sts = th->st_scratch;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Waitall(count, array_of_requests, sts);
    uint64_t t1 = phasor_now();
    const int in_status = pmpi_in_status(rc);
    const int done = (rc == MPI_SUCCESS || in_status) && saved;
    const size_t nactive = done ? pmpi_count_active(saved, sts, count, in_status) : 0;
    const size_t st_words = nactive ? 1 + nactive * PLOG_STATUS_WORDS : 0;
    const size_t h_words = saved && rc != MPI_SUCCESS ? 1 + (size_t)count : 0;
    plog_event_t *ev =
        phasor_event_begin(th, PLOG_CALL_MPI_Waitall, t0, t1, rc, h_words + st_words);
    if (ev) {
        uint64_t *x = phasor_extras(ev);
        size_t room = phasor_extras_room(th, ev), nx = 0;
        if (count > 0 && !saved)
            ev->flags |= PLOG_F_TRUNCATED;
        if (rc != MPI_SUCCESS)
            nx += pmpi_put_handles(ev, x, room, saved, count, st_words);
        if (done)
            nx = pmpi_put_all_statuses(ev, x, room, nx, saved, count, sts, nactive, in_status);
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                         MPI_Status array_of_statuses[])
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    const MPI_Request *saved = pmpi_save_requests(th, count, array_of_requests);
    MPI_Status *sts = array_of_statuses;
    if (sts == MPI_STATUSES_IGNORE && saved)
        sts = th->st_scratch;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Testall(count, array_of_requests, flag, sts);
    uint64_t t1 = phasor_now();
    const int in_status = pmpi_in_status(rc);
    const int hit = (rc == MPI_SUCCESS || in_status) && *flag;
    const size_t nactive = hit && saved ? pmpi_count_active(saved, sts, count, in_status) : 0;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Testall, t0, t1, rc,
                                          nactive ? 1 + nactive * PLOG_STATUS_WORDS : 0);
    if (ev) {
        size_t nx = 0;
        if (hit) {
            ev->flags |= PLOG_F_FLAG_TRUE;
            if (count > 0 && !saved)
                ev->flags |= PLOG_F_TRUNCATED;
            else
                nx = pmpi_put_all_statuses(ev, phasor_extras(ev), phasor_extras_room(th, ev),
                                           0, saved, count, sts, nactive, in_status);
        }
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
    return rc;
}

/* ---- some ---- */

PW_ENTRY int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                          int array_of_indices[], MPI_Status array_of_statuses[])
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices,
                             array_of_statuses);
    const MPI_Request *saved = pmpi_save_requests(th, incount, array_of_requests);
    MPI_Status *sts = array_of_statuses;
    if (sts == MPI_STATUSES_IGNORE && saved)
        sts = th->st_scratch;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, sts);
    uint64_t t1 = phasor_now();
    const int nout = (rc == MPI_SUCCESS || pmpi_in_status(rc)) && saved &&
                             *outcount != MPI_UNDEFINED && *outcount > 0
                         ? *outcount : 0;
    const size_t st_words = nout ? 1 + (size_t)nout * PLOG_STATUS_WORDS : 0;
    const size_t h_words = saved && rc != MPI_SUCCESS ? 1 + (size_t)incount : 0;
    plog_event_t *ev =
        phasor_event_begin(th, PLOG_CALL_MPI_Waitsome, t0, t1, rc, h_words + st_words);
    if (ev) {
        uint64_t *x = phasor_extras(ev);
        size_t room = phasor_extras_room(th, ev), nx = 0;
        if (incount > 0 && !saved)
            ev->flags |= PLOG_F_TRUNCATED;
        if (rc != MPI_SUCCESS)
            nx += pmpi_put_handles(ev, x, room, saved, incount, st_words);
        if (nout)
            nx = pmpi_put_some_statuses(ev, x, room, nx, saved, incount, nout,
                                        array_of_indices, sts);
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                          int array_of_indices[], MPI_Status array_of_statuses[])
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices,
                             array_of_statuses);
    const MPI_Request *saved = pmpi_save_requests(th, incount, array_of_requests);
    MPI_Status *sts = array_of_statuses;
    if (sts == MPI_STATUSES_IGNORE && saved)
        sts = th->st_scratch;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, sts);
    uint64_t t1 = phasor_now();
    const int ok = (rc == MPI_SUCCESS || pmpi_in_status(rc)) && *outcount != MPI_UNDEFINED &&
                   *outcount > 0;
    const int nout = ok && saved ? *outcount : 0;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Testsome, t0, t1, rc,
                                          nout ? 1 + (size_t)nout * PLOG_STATUS_WORDS : 0);
    if (ev) {
        size_t nx = 0;
        if (ok && !saved)
            ev->flags |= PLOG_F_TRUNCATED;
        if (nout)
            nx = pmpi_put_some_statuses(ev, phasor_extras(ev), phasor_extras_room(th, ev), 0,
                                        saved, incount, nout, array_of_indices, sts);
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
    return rc;
}

/* ---- persistent starts, freeing, cancelling ---- */

PW_ENTRY int MPI_Start(MPI_Request *request)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Start(request);
    const MPI_Request h = request ? *request : MPI_REQUEST_NULL;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Start(request);
    uint64_t t1 = phasor_now();
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Start, t0, t1, rc, 0);
    if (ev) {
        ev->request = phasor_handle_value(h);
        phasor_event_end(th, ev, 0);
    }
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Startall(count, array_of_requests);
    uint64_t t0 = phasor_now();
    int rc = PMPI_Startall(count, array_of_requests);
    uint64_t t1 = phasor_now();
    /* Startall leaves the handles as they were: read them after the call */
    const int n = array_of_requests != NULL && count > 0 ? count : 0;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Startall, t0, t1, rc,
                                          n ? 1 + (size_t)n : 0);
    if (ev)
        phasor_event_end(th, ev,
                         phasor_put_request_list(ev, phasor_extras(ev),
                                                 phasor_extras_room(th, ev), array_of_requests, n));
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Request_free(MPI_Request *request)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Request_free(request);
    const MPI_Request h = request ? *request : MPI_REQUEST_NULL;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Request_free(request);
    uint64_t t1 = phasor_now();
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Request_free, t0, t1, rc, 0);
    if (ev) {
        ev->request = phasor_handle_value(h);
        phasor_event_end(th, ev, 0);
    }
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Cancel(MPI_Request *request)
{
    /* from now on completions ask MPI_Test_cancelled; set even when not recording, since the
     * request may be completed by a thread that is */
    phasor_cancel_seen = 1;
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Cancel(request);
    const MPI_Request h = request ? *request : MPI_REQUEST_NULL;
    uint64_t t0 = phasor_now();
    int rc = PMPI_Cancel(request);
    uint64_t t1 = phasor_now();
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Cancel, t0, t1, rc, 0);
    if (ev) {
        ev->request = phasor_handle_value(h);
        phasor_event_end(th, ev, 0);
    }
    phasor_leave(th);
    return rc;
}

/* ---- communicators ---- */

PW_ENTRY int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        int rc = PMPI_Comm_idup(comm, newcomm, request);
        if (rc == MPI_SUCCESS && phasor_active)
            phasor_comm_register_dup(*newcomm, comm, PLOG_CALL_MPI_Comm_idup);
        return rc;
    }
    uint64_t t0 = phasor_now();
    int rc = PMPI_Comm_idup(comm, newcomm, request);
    uint64_t t1 = phasor_now();
    /* the new handle may not be used (nor queried) before the request completes: the
     * runtime copies its membership from the parent. Registered even if no event fits. */
    const uint32_t new_id = rc == MPI_SUCCESS
                                ? phasor_comm_register_dup(*newcomm, comm, PLOG_CALL_MPI_Comm_idup)
                                : 0;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Comm_idup, t0, t1, rc, 1);
    if (ev) {
        size_t nx = 0;
        phasor_event_set_comm(ev, comm);
        if (rc == MPI_SUCCESS) {
            ev->request = phasor_req_handle(request);
            if (phasor_extras_room(th, ev) >= 1) {
                phasor_extras(ev)[nx++] = new_id;
                ev->flags |= PLOG_F_NEWCOMM;
            } else {
                ev->flags |= PLOG_F_TRUNCATED;
            }
        }
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
    return rc;
}

/* Comm_free and Comm_disconnect (inlined: one wrapper frame like every other): record the
 * id the communicator had, then drop it from the table -- unless another thread has
 * meanwhile registered a new communicator that MPI gave the recycled handle value (its id
 * then differs). Forgotten even when the call is not recorded, like constructors register. */
static inline __attribute__((always_inline)) int
pmpi_comm_destroy(MPI_Comm *comm, unsigned call, int (*destroy)(MPI_Comm *))
{
    if (phasor_steps_mode && comm) /* collective like the user's free: before it */
        phasor_measure_release(*comm);
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        const MPI_Comm was = comm ? *comm : MPI_COMM_NULL;
        int rc = destroy(comm);
        if (rc == MPI_SUCCESS && was != MPI_COMM_NULL && phasor_active)
            phasor_comm_forget(was);
        return rc;
    }
    const MPI_Comm saved = comm ? *comm : MPI_COMM_NULL;
    plog_event_t probe = {0};
    phasor_event_set_comm(&probe, saved);
    uint64_t t0 = phasor_now();
    int rc = destroy(comm);
    uint64_t t1 = phasor_now();
    if (rc == MPI_SUCCESS && saved != MPI_COMM_NULL) {
        const phasor_comm_info_t *ci = phasor_comm_lookup(saved);
        if (ci && ci->id == probe.comm)
            phasor_comm_forget(saved);
    }
    plog_event_t *ev = phasor_event_begin(th, call, t0, t1, rc, 0);
    if (ev) {
        ev->comm = probe.comm;
        ev->flags |= probe.flags;
        phasor_event_end(th, ev, 0);
    }
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Comm_free(MPI_Comm *comm)
{
    return pmpi_comm_destroy(comm, PLOG_CALL_MPI_Comm_free, PMPI_Comm_free);
}

PW_ENTRY int MPI_Comm_disconnect(MPI_Comm *comm)
{
    return pmpi_comm_destroy(comm, PLOG_CALL_MPI_Comm_disconnect, PMPI_Comm_disconnect);
}
