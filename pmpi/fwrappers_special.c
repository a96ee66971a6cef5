/* fwrappers_special.c: the hand-written Fortran wrappers, for the calls the spec marks
 * `special`: Init, Init_thread, Finalize (start and stop the runtime), Abort, Pcontrol, the
 * Wait/Test families, Start/Startall, Request_free, Cancel, Comm_free/disconnect.
 * They record exactly what the C ones in pmpi/wrappers_special.c record, through the same
 * recorders (pmpi/wrappers.h), reading Fortran handles through f2c and Fortran statuses
 * through Status_f2c (pfw_status).
 * Fortran indices (Waitany, Waitsome...) are 1-based: the events keep C's 0-based ones.
 * Pattern: pmpi/fwrappers.h. */
#include "fwrappers.h"
#include "phasor_internal.h"
#include "vec.h"

/* Set while a Fortran lifecycle wrapper runs: on MPICH the library's Fortran entry calls the
 * C MPI_Init/Finalize/Abort/Pcontrol, whose wrappers must then only pass through. */
PHASOR_TLS int pfw_lifecycle_nested;

#define PFW_DECL(name, ...)                                                                 \
    extern void p##name(__VA_ARGS__) __attribute__((weak));                                 \
    PW_ENTRY void name(__VA_ARGS__)

/* ---- helpers ---- */

const MPI_Datatype *pfw_types(phasor_thread_t *th, const MPI_Fint *f, int n, int which)
{
    static PHASOR_TLS MPI_Datatype *buf[2];
    static PHASOR_TLS size_t cap[2];
    (void)th;
    if (n <= 0 || f == NULL || VEC_GROW(buf[which], cap[which], (size_t)n) != 0)
        return NULL;
    for (int i = 0; i < n; i++)
        buf[which][i] = PMPI_Type_f2c(f[i]);
    return buf[which];
}

static MPI_Request pfw_req(const MPI_Fint *f)
{
    return f ? PMPI_Request_f2c(*f) : MPI_REQUEST_NULL;
}

/* C handles of a Fortran request array, in the thread's scratch; NULL if none/no memory. */
static const MPI_Request *pfw_save_requests(phasor_thread_t *th, int count, const MPI_Fint *f)
{
    if (count <= 0 || f == NULL || !phasor_scratch_reserve(th, (size_t)count))
        return NULL;
    for (int i = 0; i < count; i++)
        th->req_scratch[i] = PMPI_Request_f2c(f[i]);
    return th->req_scratch;
}

/* ---- lifecycle ---- */

PFW_DECL(mpi_init_, MPI_Fint *ierr);
void mpi_init_(MPI_Fint *ierr)
{
    if (phasor_disabled_by_env()) {
        pmpi_init_(ierr);
        return;
    }
    phasor_clock_init();
    pfw_lifecycle_nested++;
    uint64_t t0 = phasor_now();
    pmpi_init_(ierr);
    uint64_t t1 = phasor_now();
    pfw_lifecycle_nested--;
    phasor_start(PLOG_CALL_MPI_Init, t0, t1, *ierr, -1, -1);
}
PFW_ALIASES(mpi_init_, mpi_init, mpi_init__, MPI_INIT)

PFW_DECL(mpi_init_thread_, MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    if (phasor_disabled_by_env()) {
        pmpi_init_thread_(required, provided, ierr);
        return;
    }
    phasor_clock_init();
    pfw_lifecycle_nested++;
    uint64_t t0 = phasor_now();
    pmpi_init_thread_(required, provided, ierr);
    uint64_t t1 = phasor_now();
    pfw_lifecycle_nested--;
    phasor_start(PLOG_CALL_MPI_Init_thread, t0, t1, *ierr, *required,
                 *ierr == MPI_SUCCESS ? *provided : -1);
}
PFW_ALIASES(mpi_init_thread_, mpi_init_thread, mpi_init_thread__, MPI_INIT_THREAD)

PFW_DECL(mpi_finalize_, MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr)
{
    uint64_t t0 = phasor_now();
    phasor_finish_begin();
    pfw_lifecycle_nested++;
    pmpi_finalize_(ierr);
    pfw_lifecycle_nested--;
    phasor_finish_end(t0, phasor_now(), *ierr);
}
PFW_ALIASES(mpi_finalize_, mpi_finalize, mpi_finalize__, MPI_FINALIZE)

PFW_DECL(mpi_abort_, MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr);
void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    phasor_on_abort(phasor_now(), *errorcode, PMPI_Comm_f2c(*comm));
    pfw_lifecycle_nested++;
    pmpi_abort_(comm, errorcode, ierr);
    pfw_lifecycle_nested--;
}
PFW_ALIASES(mpi_abort_, mpi_abort, mpi_abort__, MPI_ABORT)

/* MPI_PCONTROL(LEVEL) has no IERROR argument in Fortran. */
PFW_DECL(mpi_pcontrol_, MPI_Fint *level);
void mpi_pcontrol_(MPI_Fint *level)
{
    uint64_t t0 = phasor_now();
    pfw_lifecycle_nested++;
    pmpi_pcontrol_(level);
    pfw_lifecycle_nested--;
    phasor_record_pcontrol(t0, phasor_now(), *level);
    phasor_probe_pcontrol(*level);
}
PFW_ALIASES(mpi_pcontrol_, mpi_pcontrol, mpi_pcontrol__, MPI_PCONTROL)

/* ---- single-request completion ---- */

PFW_DECL(mpi_wait_, MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr);
void mpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        pmpi_wait_(request, status, ierr);
        return;
    }
    const MPI_Request h = pfw_req(request);
    MPI_Fint st_f[PFW_STATUS_FINTS];
    MPI_Fint *fst = pfw_status_ignored(status) ? st_f : status;
    uint64_t t0 = phasor_now();
    pmpi_wait_(request, fst, ierr);
    uint64_t t1 = phasor_now();
    pw_record_one(th, PLOG_CALL_MPI_Wait, t0, t1, *ierr, h, NULL, fst, pfw_status);
    phasor_leave(th);
}
PFW_ALIASES(mpi_wait_, mpi_wait, mpi_wait__, MPI_WAIT)

/* Test and Request_get_status: the same arguments; fn is the library's entry. */
typedef void pfw_test_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
PW_INLINE void pfw_test_one(pfw_test_fn *fn, unsigned call, MPI_Fint *request, MPI_Fint *flag,
                            MPI_Fint *status, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        fn(request, flag, status, ierr);
        return;
    }
    const MPI_Request h = pfw_req(request);
    MPI_Fint st_f[PFW_STATUS_FINTS];
    MPI_Fint *fst = pfw_status_ignored(status) ? st_f : status;
    const uint64_t hv = phasor_handle_value(h);
    int quiet;
    uint64_t t0 = pw_poll_start(th, call, hv, 0, &quiet);
    fn(request, flag, fst, ierr);
    if (*ierr == MPI_SUCCESS && !*flag) {
        pw_poll_nothing(th, call, quiet, t0, hv, 0, hv);
        phasor_leave(th);
        return;
    }
    uint64_t t1 = phasor_now();
    pw_record_one(th, call, quiet ? t1 : t0, t1, *ierr, h, flag, fst, pfw_status);
    phasor_leave(th);
}

PFW_DECL(mpi_test_, MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr);
void mpi_test_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    pfw_test_one(pmpi_test_, PLOG_CALL_MPI_Test, request, flag, status, ierr);
}
PFW_ALIASES(mpi_test_, mpi_test, mpi_test__, MPI_TEST)

PFW_DECL(mpi_request_get_status_, MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status,
         MPI_Fint *ierr);
void mpi_request_get_status_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status,
                             MPI_Fint *ierr)
{
    pfw_test_one(pmpi_request_get_status_, PLOG_CALL_MPI_Request_get_status, request, flag,
                 status, ierr);
}
PFW_ALIASES(mpi_request_get_status_, mpi_request_get_status, mpi_request_get_status__,
            MPI_REQUEST_GET_STATUS)

/* ---- any ---- */

PFW_DECL(mpi_waitany_, MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *index,
         MPI_Fint *status, MPI_Fint *ierr);
void mpi_waitany_(MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *index,
                  MPI_Fint *status, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        pmpi_waitany_(count, array_of_requests, index, status, ierr);
        return;
    }
    const MPI_Request *saved = pfw_save_requests(th, *count, array_of_requests);
    MPI_Fint st_f[PFW_STATUS_FINTS];
    MPI_Fint *fst = pfw_status_ignored(status) ? st_f : status;
    uint64_t t0 = phasor_now();
    pmpi_waitany_(count, array_of_requests, index, fst, ierr);
    uint64_t t1 = phasor_now();
    pw_record_any(th, PLOG_CALL_MPI_Waitany, t0, t1, *ierr, *count, saved, index, 1, NULL, fst,
                  pfw_status);
    phasor_leave(th);
}
PFW_ALIASES(mpi_waitany_, mpi_waitany, mpi_waitany__, MPI_WAITANY)

PFW_DECL(mpi_testany_, MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *index,
         MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr);
void mpi_testany_(MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *index,
                  MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        pmpi_testany_(count, array_of_requests, index, flag, status, ierr);
        return;
    }
    const MPI_Request *saved = pfw_save_requests(th, *count, array_of_requests);
    MPI_Fint st_f[PFW_STATUS_FINTS];
    MPI_Fint *fst = pfw_status_ignored(status) ? st_f : status;
    const uint64_t pk0 = (uintptr_t)array_of_requests, pk1 = (uint32_t)*count;
    int quiet;
    uint64_t t0 = pw_poll_start(th, PLOG_CALL_MPI_Testany, pk0, pk1, &quiet);
    pmpi_testany_(count, array_of_requests, index, flag, fst, ierr);
    if (*ierr == MPI_SUCCESS && !*flag) {
        pw_poll_nothing(th, PLOG_CALL_MPI_Testany, quiet, t0, pk0, pk1, 0);
        phasor_leave(th);
        return;
    }
    uint64_t t1 = phasor_now();
    pw_record_any(th, PLOG_CALL_MPI_Testany, quiet ? t1 : t0, t1, *ierr, *count, saved, index,
                  1, flag, fst, pfw_status);
    phasor_leave(th);
}
PFW_ALIASES(mpi_testany_, mpi_testany, mpi_testany__, MPI_TESTANY)

/* ---- all, some ---- */

/* The Fortran statuses a call fills in: the caller's, or the thread's scratch when it passed
 * MPI_STATUSES_IGNORE and the requests could be saved (count MPI_Status hold count Fortran
 * statuses). */
static MPI_Fint *pfw_statuses(phasor_thread_t *th, MPI_Fint *sts, const MPI_Request *saved)
{
    return pfw_statuses_ignored(sts) && saved ? (MPI_Fint *)th->st_scratch : sts;
}

PFW_DECL(mpi_waitall_, MPI_Fint *count, MPI_Fint *array_of_requests,
         MPI_Fint *array_of_statuses, MPI_Fint *ierr);
void mpi_waitall_(MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *array_of_statuses,
                  MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        pmpi_waitall_(count, array_of_requests, array_of_statuses, ierr);
        return;
    }
    const MPI_Request *saved = pfw_save_requests(th, *count, array_of_requests);
    MPI_Fint *fsts = pfw_statuses(th, array_of_statuses, saved);
    uint64_t t0 = phasor_now();
    pmpi_waitall_(count, array_of_requests, fsts, ierr);
    uint64_t t1 = phasor_now();
    pw_record_all(th, PLOG_CALL_MPI_Waitall, t0, t1, *ierr, *count, saved, NULL, fsts,
                  pfw_status);
    phasor_leave(th);
}
PFW_ALIASES(mpi_waitall_, mpi_waitall, mpi_waitall__, MPI_WAITALL)

PFW_DECL(mpi_testall_, MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *flag,
         MPI_Fint *array_of_statuses, MPI_Fint *ierr);
void mpi_testall_(MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *flag,
                  MPI_Fint *array_of_statuses, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        pmpi_testall_(count, array_of_requests, flag, array_of_statuses, ierr);
        return;
    }
    const MPI_Request *saved = pfw_save_requests(th, *count, array_of_requests);
    MPI_Fint *fsts = pfw_statuses(th, array_of_statuses, saved);
    const uint64_t pk0 = (uintptr_t)array_of_requests, pk1 = (uint32_t)*count;
    int quiet;
    uint64_t t0 = pw_poll_start(th, PLOG_CALL_MPI_Testall, pk0, pk1, &quiet);
    pmpi_testall_(count, array_of_requests, flag, fsts, ierr);
    if (*ierr == MPI_SUCCESS && !*flag) {
        pw_poll_nothing(th, PLOG_CALL_MPI_Testall, quiet, t0, pk0, pk1, 0);
        phasor_leave(th);
        return;
    }
    uint64_t t1 = phasor_now();
    pw_record_all(th, PLOG_CALL_MPI_Testall, quiet ? t1 : t0, t1, *ierr, *count, saved, flag,
                  fsts, pfw_status);
    phasor_leave(th);
}
PFW_ALIASES(mpi_testall_, mpi_testall, mpi_testall__, MPI_TESTALL)

/* Waitsome and Testsome differ only in the library entry and the call recorded. */
typedef void pfw_some_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
PW_INLINE void pfw_some(pfw_some_fn *fn, unsigned call, int is_test, MPI_Fint *incount,
                        MPI_Fint *array_of_requests, MPI_Fint *outcount,
                        MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        fn(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, ierr);
        return;
    }
    const MPI_Request *saved = pfw_save_requests(th, *incount, array_of_requests);
    MPI_Fint *fsts = pfw_statuses(th, array_of_statuses, saved);
    const uint64_t pk0 = (uintptr_t)array_of_requests, pk1 = (uint32_t)*incount;
    int quiet = 0;
    uint64_t t0 = is_test ? pw_poll_start(th, call, pk0, pk1, &quiet) : phasor_now();
    fn(incount, array_of_requests, outcount, array_of_indices, fsts, ierr);
    if (is_test && *ierr == MPI_SUCCESS && *outcount == 0) {
        pw_poll_nothing(th, call, quiet, t0, pk0, pk1, 0);
        phasor_leave(th);
        return;
    }
    uint64_t t1 = phasor_now();
    pw_record_some(th, call, quiet ? t1 : t0, t1, *ierr, *incount, saved, outcount,
                   array_of_indices, 1, is_test, fsts, pfw_status);
    phasor_leave(th);
}

PFW_DECL(mpi_waitsome_, MPI_Fint *incount, MPI_Fint *array_of_requests, MPI_Fint *outcount,
         MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr);
void mpi_waitsome_(MPI_Fint *incount, MPI_Fint *array_of_requests, MPI_Fint *outcount,
                   MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr)
{
    pfw_some(pmpi_waitsome_, PLOG_CALL_MPI_Waitsome, 0, incount, array_of_requests, outcount,
             array_of_indices, array_of_statuses, ierr);
}
PFW_ALIASES(mpi_waitsome_, mpi_waitsome, mpi_waitsome__, MPI_WAITSOME)

PFW_DECL(mpi_testsome_, MPI_Fint *incount, MPI_Fint *array_of_requests, MPI_Fint *outcount,
         MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr);
void mpi_testsome_(MPI_Fint *incount, MPI_Fint *array_of_requests, MPI_Fint *outcount,
                   MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr)
{
    pfw_some(pmpi_testsome_, PLOG_CALL_MPI_Testsome, 1, incount, array_of_requests, outcount,
             array_of_indices, array_of_statuses, ierr);
}
PFW_ALIASES(mpi_testsome_, mpi_testsome, mpi_testsome__, MPI_TESTSOME)

/* ---- persistent starts, freeing, cancelling ---- */

/* Start, Request_free, Cancel, Grequest_complete: request = the handle before the call;
 * renews: also the one after it (Start), which MPI may have changed. */
#define PFW_REQ_WRAPPER(fname, lname, lname2, uname, CALL, pre, renews)                     \
    PFW_DECL(fname, MPI_Fint *request, MPI_Fint *ierr);                                     \
    void fname(MPI_Fint *request, MPI_Fint *ierr)                                           \
    {                                                                                       \
        pre;                                                                                \
        phasor_thread_t *th = phasor_enter();                                               \
        if (!th) {                                                                          \
            p##fname(request, ierr);                                                        \
            return;                                                                         \
        }                                                                                   \
        const MPI_Request h = pfw_req(request);                                             \
        uint64_t t0 = phasor_now();                                                         \
        p##fname(request, ierr);                                                            \
        pw_record_request(th, CALL, t0, *ierr, h,                                           \
                          (renews) && *ierr == MPI_SUCCESS ? pfw_req(request) : h);         \
        phasor_leave(th);                                                                   \
    }                                                                                       \
    PFW_ALIASES(fname, lname, lname2, uname)

PFW_REQ_WRAPPER(mpi_start_, mpi_start, mpi_start__, MPI_START, PLOG_CALL_MPI_Start, (void)0, 1)
PFW_REQ_WRAPPER(mpi_request_free_, mpi_request_free, mpi_request_free__, MPI_REQUEST_FREE,
                PLOG_CALL_MPI_Request_free, (void)0, 0)
/* from now on completions ask MPI_Test_cancelled (see the C MPI_Cancel) */
PFW_REQ_WRAPPER(mpi_cancel_, mpi_cancel, mpi_cancel__, MPI_CANCEL, PLOG_CALL_MPI_Cancel,
                phasor_cancel_seen = 1, 0)
PFW_REQ_WRAPPER(mpi_grequest_complete_, mpi_grequest_complete, mpi_grequest_complete__,
                MPI_GREQUEST_COMPLETE, PLOG_CALL_MPI_Grequest_complete, (void)0, 0)

PFW_DECL(mpi_startall_, MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *ierr);
void mpi_startall_(MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        pmpi_startall_(count, array_of_requests, ierr);
        return;
    }
    /* the C handles before the call in the second half of the scratch, after it in the
     * first (Open MPI may give a request still in flight a new handle) */
    const int n = array_of_requests != NULL && *count > 0 ? *count : 0;
    const MPI_Request *before = NULL;
    if (n > 0 && phasor_scratch_reserve(th, 2 * (size_t)n)) {
        for (int i = 0; i < n; i++)
            th->req_scratch[n + i] = PMPI_Request_f2c(array_of_requests[i]);
        before = th->req_scratch + n;
    }
    uint64_t t0 = phasor_now();
    pmpi_startall_(count, array_of_requests, ierr);
    uint64_t t1 = phasor_now();
    pw_record_startall(th, t0, t1, *ierr, pfw_save_requests(th, n, array_of_requests), before,
                       n);
    phasor_leave(th);
}
PFW_ALIASES(mpi_startall_, mpi_startall, mpi_startall__, MPI_STARTALL)

/* ---- communicator destructors: as the C ones; on MPICH the library's Fortran entry went
 * through the C wrapper, which then passed through (the thread's depth) but already dropped
 * the communicator from the table: its handle value then reads as another id, or none ---- */

PW_INLINE void pfw_comm_destroy(MPI_Fint *comm, MPI_Fint *ierr, unsigned call,
                                void (*destroy)(MPI_Fint *, MPI_Fint *))
{
    const MPI_Comm was = comm ? PMPI_Comm_f2c(*comm) : MPI_COMM_NULL;
    plog_event_t before;
    pw_comm_destroy_begin(was, &before);
    phasor_thread_t *th = phasor_enter();
    uint64_t t0 = phasor_now();
    destroy(comm, ierr);
    pw_comm_destroy_end(th, call, t0, phasor_now(), *ierr, was, &before);
}

PFW_DECL(mpi_comm_free_, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_comm_free_(MPI_Fint *comm, MPI_Fint *ierr)
{
    pfw_comm_destroy(comm, ierr, PLOG_CALL_MPI_Comm_free, pmpi_comm_free_);
}
PFW_ALIASES(mpi_comm_free_, mpi_comm_free, mpi_comm_free__, MPI_COMM_FREE)

PFW_DECL(mpi_comm_disconnect_, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_comm_disconnect_(MPI_Fint *comm, MPI_Fint *ierr)
{
    pfw_comm_destroy(comm, ierr, PLOG_CALL_MPI_Comm_disconnect, pmpi_comm_disconnect_);
}
PFW_ALIASES(mpi_comm_disconnect_, mpi_comm_disconnect, mpi_comm_disconnect__,
            MPI_COMM_DISCONNECT)

/* ---- Comm_idup: the new handle may not be queried before the request completes, so its
 * membership is copied from the parent (see the C wrapper) ---- */

static uint32_t pfw_register_dup(MPI_Comm newcomm, MPI_Comm parent)
{
    const phasor_comm_info_t *ci =
        newcomm == MPI_COMM_NULL ? NULL : phasor_comm_lookup(newcomm);
    return ci ? ci->id : phasor_comm_register_dup(newcomm, parent, PLOG_CALL_MPI_Comm_idup);
}

PFW_DECL(mpi_comm_idup_, MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *request, MPI_Fint *ierr);
void mpi_comm_idup_(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *request, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    const MPI_Comm parent = PMPI_Comm_f2c(*comm);
    if (!th) {
        pmpi_comm_idup_(comm, newcomm, request, ierr);
        if (*ierr == MPI_SUCCESS && phasor_active)
            pfw_register_dup(PMPI_Comm_f2c(*newcomm), parent);
        return;
    }
    uint64_t t0 = phasor_now();
    pmpi_comm_idup_(comm, newcomm, request, ierr);
    uint64_t t1 = phasor_now();
    const int rc = *ierr;
    const uint32_t new_id = rc == MPI_SUCCESS ? pfw_register_dup(PMPI_Comm_f2c(*newcomm), parent)
                                              : 0;
    pw_record_idup(th, t0, t1, rc, parent, rc == MPI_SUCCESS ? pfw_req(request) : MPI_REQUEST_NULL,
                   new_id);
    phasor_leave(th);
}
PFW_ALIASES(mpi_comm_idup_, mpi_comm_idup, mpi_comm_idup__, MPI_COMM_IDUP)
