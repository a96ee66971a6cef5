/* fwrappers_special.c: the hand-written Fortran wrappers, for the calls the spec marks
 * `special`: Init, Init_thread, Finalize (start and stop the runtime), Abort, Pcontrol, the
 * Wait/Test families, Start/Startall, Request_free, Cancel, Comm_free/disconnect.
 * They record exactly what the C ones in pmpi/wrappers_special.c record (same fields, same
 * extras), reading Fortran handles through f2c and Fortran statuses through Status_f2c.
 * Fortran indices (Waitany, Waitsome...) are 1-based: the events keep C's 0-based ones.
 * Pattern: pmpi/fwrappers.h. */
#include <stdlib.h>

#include "fwrappers.h"
#include "phasor_measure.h"
#include "phasor_internal.h"

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
    static PHASOR_TLS int cap[2];
    (void)th;
    if (n <= 0 || f == NULL)
        return NULL;
    if (n > cap[which]) {
        MPI_Datatype *nb = realloc(buf[which], (size_t)n * sizeof(*nb));
        if (!nb)
            return NULL;
        buf[which] = nb;
        cap[which] = n;
    }
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

static void pfw_status_at(const MPI_Fint *fs, int i, MPI_Status *st)
{
    PMPI_Status_f2c(fs + (size_t)i * PFW_STATUS_FINTS, st);
}

static int pfw_in_status(int rc)
{
    int cls = MPI_SUCCESS;
    return rc != MPI_SUCCESS && PMPI_Error_class(rc, &cls) == MPI_SUCCESS &&
           cls == MPI_ERR_IN_STATUS;
}

static size_t pfw_put_status(plog_event_t *ev, uint64_t *x, size_t room, size_t nx,
                             MPI_Request h, const MPI_Status *st, int index)
{
    if (room < nx + 1 + PLOG_STATUS_WORDS) {
        ev->flags |= PLOG_F_TRUNCATED;
        return nx;
    }
    x[nx++] = 1;
    phasor_put_status(x + nx, phasor_handle_value(h), st, (uint32_t)index);
    phasor_status_cancelled(x + nx, st);
    ev->flags |= PLOG_F_STATUS;
    return nx + PLOG_STATUS_WORDS;
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
    const int rc = *ierr;
    plog_event_t *ev =
        phasor_event_begin(th, PLOG_CALL_MPI_Wait, t0, t1, rc, 1 + PLOG_STATUS_WORDS);
    if (ev) {
        size_t nx = 0;
        ev->request = phasor_handle_value(h);
        if (rc == MPI_SUCCESS && h != MPI_REQUEST_NULL) {
            MPI_Status st;
            pfw_status_at(fst, 0, &st);
            nx = pfw_put_status(ev, phasor_extras(ev), phasor_extras_room(th, ev), 0, h, &st, 0);
        }
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
}
PFW_ALIASES(mpi_wait_, mpi_wait, mpi_wait__, MPI_WAIT)

PFW_DECL(mpi_test_, MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr);
void mpi_test_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        pmpi_test_(request, flag, status, ierr);
        return;
    }
    const MPI_Request h = pfw_req(request);
    MPI_Fint st_f[PFW_STATUS_FINTS];
    MPI_Fint *fst = pfw_status_ignored(status) ? st_f : status;
    uint64_t t0 = phasor_now();
    pmpi_test_(request, flag, fst, ierr);
    uint64_t t1 = phasor_now();
    const int rc = *ierr;
    const int done = rc == MPI_SUCCESS && *flag;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Test, t0, t1, rc,
                                          done ? 1 + PLOG_STATUS_WORDS : 0);
    if (ev) {
        size_t nx = 0;
        ev->request = phasor_handle_value(h);
        if (done) {
            ev->flags |= PLOG_F_FLAG_TRUE;
            if (h != MPI_REQUEST_NULL) {
                MPI_Status st;
                pfw_status_at(fst, 0, &st);
                nx = pfw_put_status(ev, phasor_extras(ev), phasor_extras_room(th, ev), 0, h,
                                    &st, 0);
            }
        }
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
}
PFW_ALIASES(mpi_test_, mpi_test, mpi_test__, MPI_TEST)

/* ---- all ---- */

/* Waitall/Testall record: HANDLES of the input array when the call failed, then one status
 * entry per request that completed (not MPI_REQUEST_NULL; after MPI_ERR_IN_STATUS, not
 * pending), in the order and layout of pmpi/wrappers_special.c. */
static void pfw_record_all(phasor_thread_t *th, unsigned call, uint64_t t0, uint64_t t1, int rc,
                           int count, const MPI_Request *saved, const MPI_Fint *fsts,
                           int is_test, int flag)
{
    const int in_status = pfw_in_status(rc);
    const int hit = (rc == MPI_SUCCESS || in_status) && (!is_test || flag);
    size_t nactive = 0;
    MPI_Status st;
    if (hit && saved)
        for (int i = 0; i < count; i++) {
            if (saved[i] == MPI_REQUEST_NULL)
                continue;
            if (in_status) {
                pfw_status_at(fsts, i, &st);
                if (st.MPI_ERROR == MPI_ERR_PENDING)
                    continue;
            }
            nactive++;
        }
    const size_t st_words = nactive ? 1 + nactive * PLOG_STATUS_WORDS : 0;
    const size_t h_words = !is_test && saved && rc != MPI_SUCCESS ? 1 + (size_t)count : 0;
    plog_event_t *ev = phasor_event_begin(th, call, t0, t1, rc, h_words + st_words);
    if (!ev)
        return;
    uint64_t *x = phasor_extras(ev);
    size_t room = phasor_extras_room(th, ev), nx = 0;
    if (is_test && hit)
        ev->flags |= PLOG_F_FLAG_TRUE;
    if (count > 0 && !saved && (hit || !is_test))
        ev->flags |= PLOG_F_TRUNCATED;
    if (h_words) {
        if (room >= h_words + st_words) {
            x[nx++] = (uint64_t)count;
            for (int i = 0; i < count; i++)
                x[nx++] = phasor_handle_value(saved[i]);
            ev->flags |= PLOG_F_HANDLES;
        } else {
            ev->flags |= PLOG_F_TRUNCATED;
        }
    }
    if (nactive && room >= nx + 1) {
        size_t fit = (room - nx - 1) / PLOG_STATUS_WORDS;
        if (fit < nactive)
            ev->flags |= PLOG_F_TRUNCATED;
        else
            fit = nactive;
        x[nx++] = fit;
        ev->flags |= PLOG_F_STATUS;
        for (int i = 0; i < count && fit > 0; i++) {
            if (saved[i] == MPI_REQUEST_NULL)
                continue;
            pfw_status_at(fsts, i, &st);
            if (in_status && st.MPI_ERROR == MPI_ERR_PENDING)
                continue;
            phasor_put_status(x + nx, phasor_handle_value(saved[i]), &st, (uint32_t)i);
            phasor_status_cancelled(x + nx, &st);
            nx += PLOG_STATUS_WORDS;
            fit--;
        }
    } else if (nactive) {
        ev->flags |= PLOG_F_TRUNCATED;
    }
    phasor_event_end(th, ev, nx);
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
    MPI_Fint *fsts = array_of_statuses;
    if (pfw_statuses_ignored(fsts) && saved)
        fsts = (MPI_Fint *)th->st_scratch; /* count MPI_Status hold count Fortran statuses */
    uint64_t t0 = phasor_now();
    pmpi_waitall_(count, array_of_requests, fsts, ierr);
    uint64_t t1 = phasor_now();
    pfw_record_all(th, PLOG_CALL_MPI_Waitall, t0, t1, *ierr, *count, saved, fsts, 0, 0);
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
    MPI_Fint *fsts = array_of_statuses;
    if (pfw_statuses_ignored(fsts) && saved)
        fsts = (MPI_Fint *)th->st_scratch;
    uint64_t t0 = phasor_now();
    pmpi_testall_(count, array_of_requests, flag, fsts, ierr);
    uint64_t t1 = phasor_now();
    pfw_record_all(th, PLOG_CALL_MPI_Testall, t0, t1, *ierr, *count, saved, fsts, 1, *flag);
    phasor_leave(th);
}
PFW_ALIASES(mpi_testall_, mpi_testall, mpi_testall__, MPI_TESTALL)

/* ---- any ---- */

/* Fortran index (1-based, or MPI_UNDEFINED) as C's. */
static int pfw_index(MPI_Fint i)
{
    return i == MPI_UNDEFINED ? MPI_UNDEFINED : i - 1;
}

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
    const int n = *count;
    const MPI_Request *saved = pfw_save_requests(th, n, array_of_requests);
    MPI_Fint st_f[PFW_STATUS_FINTS];
    MPI_Fint *fst = pfw_status_ignored(status) ? st_f : status;
    uint64_t t0 = phasor_now();
    pmpi_waitany_(count, array_of_requests, index, fst, ierr);
    uint64_t t1 = phasor_now();
    const int rc = *ierr;
    const int idx = rc == MPI_SUCCESS ? pfw_index(*index) : MPI_UNDEFINED;
    const int done = rc == MPI_SUCCESS && idx != MPI_UNDEFINED;
    const size_t st_words = done ? 1 + PLOG_STATUS_WORDS : 0;
    const size_t h_words = saved && rc != MPI_SUCCESS ? 1 + (size_t)n : 0;
    plog_event_t *ev =
        phasor_event_begin(th, PLOG_CALL_MPI_Waitany, t0, t1, rc, h_words + st_words);
    if (ev) {
        uint64_t *x = phasor_extras(ev);
        size_t room = phasor_extras_room(th, ev), nx = 0;
        if (n > 0 && !saved)
            ev->flags |= PLOG_F_TRUNCATED;
        if (h_words) {
            if (room >= h_words + st_words) {
                x[nx++] = (uint64_t)n;
                for (int i = 0; i < n; i++)
                    x[nx++] = phasor_handle_value(saved[i]);
                ev->flags |= PLOG_F_HANDLES;
            } else {
                ev->flags |= PLOG_F_TRUNCATED;
            }
        }
        if (done) {
            MPI_Request h = saved && idx >= 0 && idx < n ? saved[idx] : MPI_REQUEST_NULL;
            MPI_Status st;
            pfw_status_at(fst, 0, &st);
            nx = pfw_put_status(ev, x, room, nx, h, &st, idx);
        }
        phasor_event_end(th, ev, nx);
    }
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
    const int n = *count;
    const MPI_Request *saved = pfw_save_requests(th, n, array_of_requests);
    MPI_Fint st_f[PFW_STATUS_FINTS];
    MPI_Fint *fst = pfw_status_ignored(status) ? st_f : status;
    uint64_t t0 = phasor_now();
    pmpi_testany_(count, array_of_requests, index, flag, fst, ierr);
    uint64_t t1 = phasor_now();
    const int rc = *ierr;
    const int hit = rc == MPI_SUCCESS && *flag;
    const int idx = hit ? pfw_index(*index) : MPI_UNDEFINED;
    const int done = hit && idx != MPI_UNDEFINED;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Testany, t0, t1, rc,
                                          done ? 1 + PLOG_STATUS_WORDS : 0);
    if (ev) {
        size_t nx = 0;
        if (hit)
            ev->flags |= PLOG_F_FLAG_TRUE;
        if (done) {
            MPI_Request h = MPI_REQUEST_NULL;
            if (saved && idx >= 0 && idx < n)
                h = saved[idx];
            else
                ev->flags |= PLOG_F_TRUNCATED;
            MPI_Status st;
            pfw_status_at(fst, 0, &st);
            nx = pfw_put_status(ev, phasor_extras(ev), phasor_extras_room(th, ev), 0, h, &st,
                                idx);
        }
        phasor_event_end(th, ev, nx);
    }
    phasor_leave(th);
}
PFW_ALIASES(mpi_testany_, mpi_testany, mpi_testany__, MPI_TESTANY)

/* ---- some ---- */

/* Waitsome/Testsome: entry k for the request at indices[k] (1-based here), status k. */
static void pfw_record_some(phasor_thread_t *th, unsigned call, uint64_t t0, uint64_t t1,
                            int rc, int incount, const MPI_Request *saved, int outcount,
                            const MPI_Fint *indices, const MPI_Fint *fsts, int with_handles)
{
    const int ok = (rc == MPI_SUCCESS || pfw_in_status(rc)) && outcount != MPI_UNDEFINED &&
                   outcount > 0;
    const int nout = ok && saved ? outcount : 0;
    const size_t st_words = nout ? 1 + (size_t)nout * PLOG_STATUS_WORDS : 0;
    const size_t h_words = with_handles && saved && rc != MPI_SUCCESS ? 1 + (size_t)incount : 0;
    plog_event_t *ev = phasor_event_begin(th, call, t0, t1, rc, h_words + st_words);
    if (!ev)
        return;
    uint64_t *x = phasor_extras(ev);
    size_t room = phasor_extras_room(th, ev), nx = 0;
    if ((with_handles ? incount > 0 : ok) && !saved)
        ev->flags |= PLOG_F_TRUNCATED;
    if (h_words) {
        if (room >= h_words + st_words) {
            x[nx++] = (uint64_t)incount;
            for (int i = 0; i < incount; i++)
                x[nx++] = phasor_handle_value(saved[i]);
            ev->flags |= PLOG_F_HANDLES;
        } else {
            ev->flags |= PLOG_F_TRUNCATED;
        }
    }
    if (nout && room >= nx + 1) {
        size_t fit = (room - nx - 1) / PLOG_STATUS_WORDS;
        if (fit < (size_t)nout)
            ev->flags |= PLOG_F_TRUNCATED;
        else
            fit = (size_t)nout;
        x[nx++] = fit;
        ev->flags |= PLOG_F_STATUS;
        for (size_t k = 0; k < fit; k++) {
            int i = pfw_index(indices[k]);
            MPI_Request h = i >= 0 && i < incount ? saved[i] : MPI_REQUEST_NULL;
            MPI_Status st;
            pfw_status_at(fsts, (int)k, &st);
            phasor_put_status(x + nx, phasor_handle_value(h), &st, (uint32_t)i);
            phasor_status_cancelled(x + nx, &st);
            nx += PLOG_STATUS_WORDS;
        }
    } else if (nout) {
        ev->flags |= PLOG_F_TRUNCATED;
    }
    phasor_event_end(th, ev, nx);
}

/* Waitsome and Testsome differ only in the library entry and the call recorded. */
typedef void pfw_some_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
static inline __attribute__((always_inline)) void
pfw_some(pfw_some_fn *fn, unsigned call, int is_wait, MPI_Fint *incount,
         MPI_Fint *array_of_requests, MPI_Fint *outcount, MPI_Fint *array_of_indices,
         MPI_Fint *array_of_statuses, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        fn(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, ierr);
        return;
    }
    const MPI_Request *saved = pfw_save_requests(th, *incount, array_of_requests);
    MPI_Fint *fsts = array_of_statuses;
    if (pfw_statuses_ignored(fsts) && saved)
        fsts = (MPI_Fint *)th->st_scratch;
    uint64_t t0 = phasor_now();
    fn(incount, array_of_requests, outcount, array_of_indices, fsts, ierr);
    uint64_t t1 = phasor_now();
    pfw_record_some(th, call, t0, t1, *ierr, *incount, saved, *outcount, array_of_indices, fsts,
                    is_wait);
    phasor_leave(th);
}

PFW_DECL(mpi_waitsome_, MPI_Fint *incount, MPI_Fint *array_of_requests, MPI_Fint *outcount,
         MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr);
void mpi_waitsome_(MPI_Fint *incount, MPI_Fint *array_of_requests, MPI_Fint *outcount,
                   MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr)
{
    pfw_some(pmpi_waitsome_, PLOG_CALL_MPI_Waitsome, 1, incount, array_of_requests, outcount,
             array_of_indices, array_of_statuses, ierr);
}
PFW_ALIASES(mpi_waitsome_, mpi_waitsome, mpi_waitsome__, MPI_WAITSOME)

PFW_DECL(mpi_testsome_, MPI_Fint *incount, MPI_Fint *array_of_requests, MPI_Fint *outcount,
         MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr);
void mpi_testsome_(MPI_Fint *incount, MPI_Fint *array_of_requests, MPI_Fint *outcount,
                   MPI_Fint *array_of_indices, MPI_Fint *array_of_statuses, MPI_Fint *ierr)
{
    pfw_some(pmpi_testsome_, PLOG_CALL_MPI_Testsome, 0, incount, array_of_requests, outcount,
             array_of_indices, array_of_statuses, ierr);
}
PFW_ALIASES(mpi_testsome_, mpi_testsome, mpi_testsome__, MPI_TESTSOME)

/* ---- persistent starts, freeing, cancelling ---- */

/* Start, Request_free, Cancel: request = the handle before the call. */
static void pfw_record_req(phasor_thread_t *th, unsigned call, uint64_t t0, int rc,
                           MPI_Request h)
{
    plog_event_t *ev = phasor_event_begin(th, call, t0, phasor_now(), rc, 0);
    if (ev) {
        ev->request = phasor_handle_value(h);
        phasor_event_end(th, ev, 0);
    }
    phasor_leave(th);
}

#define PFW_REQ_WRAPPER(fname, lname, lname2, uname, CALL, pre)                             \
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
        pfw_record_req(th, CALL, t0, *ierr, h);                                             \
    }                                                                                       \
    PFW_ALIASES(fname, lname, lname2, uname)

PFW_REQ_WRAPPER(mpi_start_, mpi_start, mpi_start__, MPI_START, PLOG_CALL_MPI_Start, (void)0)
PFW_REQ_WRAPPER(mpi_request_free_, mpi_request_free, mpi_request_free__, MPI_REQUEST_FREE,
                PLOG_CALL_MPI_Request_free, (void)0)
/* from now on completions ask MPI_Test_cancelled (see the C MPI_Cancel) */
PFW_REQ_WRAPPER(mpi_cancel_, mpi_cancel, mpi_cancel__, MPI_CANCEL, PLOG_CALL_MPI_Cancel,
                phasor_cancel_seen = 1)

PFW_DECL(mpi_startall_, MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *ierr);
void mpi_startall_(MPI_Fint *count, MPI_Fint *array_of_requests, MPI_Fint *ierr)
{
    phasor_thread_t *th = phasor_enter();
    if (!th) {
        pmpi_startall_(count, array_of_requests, ierr);
        return;
    }
    uint64_t t0 = phasor_now();
    pmpi_startall_(count, array_of_requests, ierr);
    uint64_t t1 = phasor_now();
    /* Startall leaves the handles as they were: read them after the call */
    const int n = array_of_requests != NULL && *count > 0 ? *count : 0;
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Startall, t0, t1, *ierr,
                                          n ? 1 + (size_t)n : 0);
    if (ev) {
        const MPI_Request *reqs = pfw_save_requests(th, n, array_of_requests);
        phasor_event_end(th, ev,
                         phasor_put_request_list(ev, phasor_extras(ev),
                                                 phasor_extras_room(th, ev), reqs, n));
    }
    phasor_leave(th);
}
PFW_ALIASES(mpi_startall_, mpi_startall, mpi_startall__, MPI_STARTALL)

/* ---- communicator destructors: record the id the comm had, then forget it (unless a
 * nested C wrapper -- MPICH -- already did, or its handle value was reused meanwhile) ---- */

static void pfw_comm_destroy(MPI_Fint *comm, MPI_Fint *ierr, unsigned call,
                             void (*destroy)(MPI_Fint *, MPI_Fint *))
{
    if (phasor_steps_mode && comm) /* collective like the user's free: before it */
        phasor_measure_release(PMPI_Comm_f2c(*comm));
    phasor_thread_t *th = phasor_enter();
    const MPI_Comm saved = comm ? PMPI_Comm_f2c(*comm) : MPI_COMM_NULL;
    plog_event_t probe = {0};
    phasor_event_set_comm(&probe, saved);
    uint64_t t0 = phasor_now();
    destroy(comm, ierr);
    uint64_t t1 = phasor_now();
    if (*ierr == MPI_SUCCESS && saved != MPI_COMM_NULL && phasor_active) {
        const phasor_comm_info_t *ci = phasor_comm_lookup(saved);
        if (ci && ci->id == probe.comm)
            phasor_comm_forget(saved);
    }
    if (!th)
        return;
    plog_event_t *ev = phasor_event_begin(th, call, t0, t1, *ierr, 0);
    if (ev) {
        ev->comm = probe.comm;
        ev->flags |= probe.flags;
        phasor_event_end(th, ev, 0);
    }
    phasor_leave(th);
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
    plog_event_t *ev = phasor_event_begin(th, PLOG_CALL_MPI_Comm_idup, t0, t1, rc, 1);
    if (ev) {
        size_t nx = 0;
        phasor_event_set_comm(ev, parent);
        if (rc == MPI_SUCCESS) {
            ev->request = phasor_handle_value(pfw_req(request));
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
}
PFW_ALIASES(mpi_comm_idup_, mpi_comm_idup, mpi_comm_idup__, MPI_COMM_IDUP)
