/* wrappers_special.c: hand-written wrappers for the calls the spec's directives cannot describe:
 * the Wait/Test families (the call overwrites the handles we must record, statuses come in
 * arrays), Start/Startall, Request_free, Cancel, Comm_idup and the communicator destructors.
 * Same pattern and rules as the generated ones (profiler/phasor_rt.h); ids and classes come
 * from pmpi/mpi_spec.txt, where these calls are marked `special`. What they record is
 * pmpi/wrappers.h's (the Fortran ones in fwrappers_special.c record the same):
 *   Wait, Test             request = the input handle; one STATUS entry if it completed
 *   Waitany/all/some       on failure HANDLES = the whole input array as passed
 *                          (MPI_REQUEST_NULL as 0, so positions are the indices); a STATUS
 *                          entry per completed request
 *   Testany/all/some       STATUS entries only: a polling loop must stay cheap
 *   Request_get_status     as Test (the request stays active: the reader knows)
 *   a poll that found nothing (Test* with the flag false or no index, Request_get_status
 *                          false) joins the thread's run of such polls on the same
 *                          arguments: one event for the run (phasor_rt.h)
 *   Test, Testany, Testall PLOG_F_FLAG_TRUE when the flag came back true
 *   Start                  request = the handle started; Startall: HANDLES = the handles;
 *                          both RENEWED with the handles after and before when MPI
 *                          gave a request a new handle
 *   Request_free, Cancel   request = the handle before the call
 *   Grequest_complete      request = the handle given
 *   Comm_free/disconnect   comm = the id the communicator had; Comm_idup: NEWCOMM, request
 * A status entry is [handle, source/tag, bytes, index] (format/plog_extras.h);
 * MPI_REQUEST_NULL inputs give none. */
#include "wrappers.h"

/* Copy of the request array taken before a call that sets completed handles to
 * MPI_REQUEST_NULL. NULL when there is nothing to copy or no memory for the copy. Inlined,
 * and a few handles copied without a call: Testany/all/some in a polling loop copy them on
 * every poll (hpcc: 7·10⁷ Testany of 4 requests a run). */
PW_INLINE const MPI_Request *pw_save_requests(phasor_thread_t *th, int count,
                                              const MPI_Request *reqs)
{
    if (count <= 0 || reqs == NULL ||
        ((size_t)count > th->scratch_cap && !phasor_scratch_reserve(th, (size_t)count)))
        return NULL;
    MPI_Request *d = th->req_scratch;
    switch (count) {
    case 4: d[3] = reqs[3]; /* fall through */
    case 3: d[2] = reqs[2]; /* fall through */
    case 2: d[1] = reqs[1]; /* fall through */
    case 1: d[0] = reqs[0]; break;
    default: memcpy(d, reqs, (size_t)count * sizeof(*reqs));
    }
    return d;
}

/* The statuses a call fills in: the caller's, or the thread's scratch when it passed
 * MPI_STATUSES_IGNORE and the requests could be saved (same capacity). */
static MPI_Status *pw_statuses(phasor_thread_t *th, MPI_Status *sts, const MPI_Request *saved)
{
    return sts == MPI_STATUSES_IGNORE && saved ? th->st_scratch : sts;
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
    phasor_pending(th, PLOG_CALL_MPI_Wait, t0, MPI_COMM_NULL, MPI_PROC_NULL, 0, h);
    int rc = PMPI_Wait(request, st);
    uint64_t t1 = phasor_now();
    pw_record_one(th, PLOG_CALL_MPI_Wait, t0, t1, rc, h, NULL, st, pw_status);
    phasor_leave(th);
    return rc;
}

/* Test and Request_get_status: one request, a flag, one status. fn takes the request by
 * pointer (Request_get_status through pw_get_status: the request stays as it is). */
PW_INLINE int pw_test_one(int (*fn)(MPI_Request *, int *, MPI_Status *), unsigned call,
                          MPI_Request *request, int *flag, MPI_Status *status)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return fn(request, flag, status);
    const MPI_Request h = request ? *request : MPI_REQUEST_NULL;
    MPI_Status st_own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_own : status;
    const uint64_t hv = phasor_handle_value(h);
    int quiet;
    uint64_t t0 = pw_poll_start(th, call, hv, 0, &quiet);
    int rc = fn(request, flag, st);
    if (rc == MPI_SUCCESS && !*flag) {
        pw_poll_nothing(th, call, quiet, t0, hv, 0, hv);
        phasor_leave(th);
        return rc;
    }
    uint64_t t1 = phasor_now();
    pw_record_one(th, call, quiet ? t1 : t0, t1, rc, h, flag, st, pw_status);
    phasor_leave(th);
    return rc;
}

static int pw_get_status(MPI_Request *request, int *flag, MPI_Status *status)
{
    return PMPI_Request_get_status(*request, flag, status);
}

PW_ENTRY int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    return pw_test_one(PMPI_Test, PLOG_CALL_MPI_Test, request, flag, status);
}

PW_ENTRY int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    return pw_test_one(pw_get_status, PLOG_CALL_MPI_Request_get_status, &request, flag, status);
}

/* ---- any ---- */

PW_ENTRY int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
                         MPI_Status *status)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Waitany(count, array_of_requests, index, status);
    const MPI_Request *saved = pw_save_requests(th, count, array_of_requests);
    MPI_Status st_own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_own : status;
    uint64_t t0 = phasor_now();
    phasor_pending(th, PLOG_CALL_MPI_Waitany, t0, MPI_COMM_NULL, MPI_PROC_NULL, count,
                   count > 0 && saved ? saved[0] : MPI_REQUEST_NULL);
    int rc = PMPI_Waitany(count, array_of_requests, index, st);
    uint64_t t1 = phasor_now();
    pw_record_any(th, PLOG_CALL_MPI_Waitany, t0, t1, rc, count, saved, index, 0, NULL, st,
                  pw_status);
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                         MPI_Status *status)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Testany(count, array_of_requests, index, flag, status);
    const MPI_Request *saved = pw_save_requests(th, count, array_of_requests);
    MPI_Status st_own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_own : status;
    const uint64_t pk0 = (uintptr_t)array_of_requests, pk1 = (uint32_t)count;
    int quiet;
    uint64_t t0 = pw_poll_start(th, PLOG_CALL_MPI_Testany, pk0, pk1, &quiet);
    int rc = PMPI_Testany(count, array_of_requests, index, flag, st);
    if (rc == MPI_SUCCESS && !*flag) {
        pw_poll_nothing(th, PLOG_CALL_MPI_Testany, quiet, t0, pk0, pk1, 0);
        phasor_leave(th);
        return rc;
    }
    uint64_t t1 = phasor_now();
    pw_record_any(th, PLOG_CALL_MPI_Testany, quiet ? t1 : t0, t1, rc, count, saved, index, 0,
                  flag, st, pw_status);
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
    const MPI_Request *saved = pw_save_requests(th, count, array_of_requests);
    MPI_Status *sts = pw_statuses(th, array_of_statuses, saved);
    uint64_t t0 = phasor_now();
    phasor_pending(th, PLOG_CALL_MPI_Waitall, t0, MPI_COMM_NULL, MPI_PROC_NULL, count,
                   count > 0 && saved ? saved[0] : MPI_REQUEST_NULL);
    int rc = PMPI_Waitall(count, array_of_requests, sts);
    uint64_t t1 = phasor_now();
    pw_record_all(th, PLOG_CALL_MPI_Waitall, t0, t1, rc, count, saved, NULL, sts, pw_status);
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                         MPI_Status array_of_statuses[])
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    const MPI_Request *saved = pw_save_requests(th, count, array_of_requests);
    MPI_Status *sts = pw_statuses(th, array_of_statuses, saved);
    const uint64_t pk0 = (uintptr_t)array_of_requests, pk1 = (uint32_t)count;
    int quiet;
    uint64_t t0 = pw_poll_start(th, PLOG_CALL_MPI_Testall, pk0, pk1, &quiet);
    int rc = PMPI_Testall(count, array_of_requests, flag, sts);
    if (rc == MPI_SUCCESS && !*flag) {
        pw_poll_nothing(th, PLOG_CALL_MPI_Testall, quiet, t0, pk0, pk1, 0);
        phasor_leave(th);
        return rc;
    }
    uint64_t t1 = phasor_now();
    pw_record_all(th, PLOG_CALL_MPI_Testall, quiet ? t1 : t0, t1, rc, count, saved, flag, sts,
                  pw_status);
    phasor_leave(th);
    return rc;
}

/* ---- some ---- */

/* Waitsome and Testsome differ only in the library entry and the call recorded. */
PW_INLINE int pw_some(int (*fn)(int, MPI_Request[], int *, int[], MPI_Status[]), unsigned call,
                      int is_test, int incount, MPI_Request array_of_requests[], int *outcount,
                      int array_of_indices[], MPI_Status array_of_statuses[])
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return fn(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    const MPI_Request *saved = pw_save_requests(th, incount, array_of_requests);
    MPI_Status *sts = pw_statuses(th, array_of_statuses, saved);
    const uint64_t pk0 = (uintptr_t)array_of_requests, pk1 = (uint32_t)incount;
    int quiet = 0;
    uint64_t t0 = is_test ? pw_poll_start(th, call, pk0, pk1, &quiet) : phasor_now();
    if (!is_test) /* a test does not block */
        phasor_pending(th, call, t0, MPI_COMM_NULL, MPI_PROC_NULL, incount,
                       incount > 0 && saved ? saved[0] : MPI_REQUEST_NULL);
    int rc = fn(incount, array_of_requests, outcount, array_of_indices, sts);
    if (is_test && rc == MPI_SUCCESS && *outcount == 0) {
        pw_poll_nothing(th, call, quiet, t0, pk0, pk1, 0);
        phasor_leave(th);
        return rc;
    }
    uint64_t t1 = phasor_now();
    pw_record_some(th, call, quiet ? t1 : t0, t1, rc, incount, saved, outcount, array_of_indices,
                   0, is_test, sts, pw_status);
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                          int array_of_indices[], MPI_Status array_of_statuses[])
{
    return pw_some(PMPI_Waitsome, PLOG_CALL_MPI_Waitsome, 0, incount, array_of_requests,
                   outcount, array_of_indices, array_of_statuses);
}

PW_ENTRY int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                          int array_of_indices[], MPI_Status array_of_statuses[])
{
    return pw_some(PMPI_Testsome, PLOG_CALL_MPI_Testsome, 1, incount, array_of_requests,
                   outcount, array_of_indices, array_of_statuses);
}

/* ---- persistent starts, freeing, cancelling ---- */

/* Start, Request_free and Cancel: one request in, the handle before the call recorded, and
 * for Start (renews) the one after it (Request_free sets it to MPI_REQUEST_NULL). */
PW_INLINE int pw_request(int (*fn)(MPI_Request *), unsigned call, MPI_Request *request,
                         int renews)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return fn(request);
    const MPI_Request h = request ? *request : MPI_REQUEST_NULL;
    uint64_t t0 = phasor_now();
    int rc = fn(request);
    pw_record_request(th, call, t0, rc, h, renews && rc == MPI_SUCCESS && request ? *request : h);
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Start(MPI_Request *request)
{
    return pw_request(PMPI_Start, PLOG_CALL_MPI_Start, request, 1);
}

PW_ENTRY int MPI_Request_free(MPI_Request *request)
{
    return pw_request(PMPI_Request_free, PLOG_CALL_MPI_Request_free, request, 0);
}

PW_ENTRY int MPI_Cancel(MPI_Request *request)
{
    /* from now on completions ask MPI_Test_cancelled; set even when not recording, since the
     * request may be completed by a thread that is */
    phasor_cancel_seen = 1;
    return pw_request(PMPI_Cancel, PLOG_CALL_MPI_Cancel, request, 0);
}

/* the request by value: named, not completed (the application's Wait/Test completes it) */
PW_ENTRY int MPI_Grequest_complete(MPI_Request request)
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Grequest_complete(request);
    uint64_t t0 = phasor_now();
    int rc = PMPI_Grequest_complete(request);
    pw_record_request(th, PLOG_CALL_MPI_Grequest_complete, t0, rc, request, request);
    phasor_leave(th);
    return rc;
}

PW_ENTRY int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    phasor_thread_t *th = phasor_enter();
    if (!th)
        return PMPI_Startall(count, array_of_requests);
    /* the handles as they were: Open MPI may give a request still in flight a new one */
    const MPI_Request *before = pw_save_requests(th, count, array_of_requests);
    uint64_t t0 = phasor_now();
    int rc = PMPI_Startall(count, array_of_requests);
    uint64_t t1 = phasor_now();
    pw_record_startall(th, t0, t1, rc, array_of_requests, before,
                       array_of_requests != NULL && count > 0 ? count : 0);
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
    pw_record_idup(th, t0, t1, rc, comm, rc == MPI_SUCCESS && request ? *request : MPI_REQUEST_NULL,
                   new_id);
    phasor_leave(th);
    return rc;
}

/* Comm_free and Comm_disconnect (inlined: one wrapper frame like every other). */
PW_INLINE int pw_comm_destroy(MPI_Comm *comm, unsigned call, int (*destroy)(MPI_Comm *))
{
    const MPI_Comm was = comm ? *comm : MPI_COMM_NULL;
    plog_event_t before;
    pw_comm_destroy_begin(was, &before);
    phasor_thread_t *th = phasor_enter();
    uint64_t t0 = phasor_now();
    int rc = destroy(comm);
    pw_comm_destroy_end(th, call, t0, phasor_now(), rc, was, &before);
    return rc;
}

PW_ENTRY int MPI_Comm_free(MPI_Comm *comm)
{
    return pw_comm_destroy(comm, PLOG_CALL_MPI_Comm_free, PMPI_Comm_free);
}

PW_ENTRY int MPI_Comm_disconnect(MPI_Comm *comm)
{
    return pw_comm_destroy(comm, PLOG_CALL_MPI_Comm_disconnect, PMPI_Comm_disconnect);
}
